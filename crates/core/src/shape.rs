//! Value shapes: character allowlists with length bounds.
//!
//! Every value agent-resume replays (a session id, a flag value, a program
//! path) must match a shape. A shape is built from segments, each either a
//! literal or a run of characters from an ASCII set. The sets themselves may
//! only draw from [`SAFE_CHARS`], so no shape can ever admit a quote, a
//! backslash, whitespace, a glob, `$`, `` ` ``, `;`, `*` (the host's
//! obfuscation mark) or any non-ASCII byte. On top of that every accepted
//! value starts with an ASCII letter or digit, so no value can be read as a
//! flag by the agent it is handed to.

use thiserror::Error;

/// The only characters a shape may admit, besides ASCII letters and digits.
pub const SAFE_PUNCTUATION: &str = "._:/@+=,-";

/// Human-readable form of the characters any shape may draw from.
pub const SAFE_CHARS: &str = "A-Za-z0-9 and ._:/@+=,-";

fn is_safe_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || SAFE_PUNCTUATION.as_bytes().contains(&b)
}

/// A set of ASCII characters, kept as a 128-bit map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Charset(u128);

impl Charset {
    /// Parses a set written as characters and ranges, e.g. `A-Za-z0-9._-`.
    /// A `-` at the start or end is literal.
    pub fn parse(spec: &str) -> Result<Self, ShapeError> {
        let b = spec.as_bytes();
        if b.is_empty() {
            return Err(ShapeError::EmptyCharset);
        }
        let mut bits = 0u128;
        let mut i = 0;
        while i < b.len() {
            let lo = b[i];
            let (lo, hi) = if i + 2 < b.len() && b[i + 1] == b'-' {
                i += 3;
                (lo, b[i - 1])
            } else {
                i += 1;
                (lo, lo)
            };
            if lo > hi {
                return Err(ShapeError::BadRange);
            }
            for c in lo..=hi {
                if !is_safe_char(c) {
                    return Err(ShapeError::UnsafeChar);
                }
                bits |= 1 << c;
            }
        }
        Ok(Charset(bits))
    }

    /// The set as a bit map (bit `c` for character `c`), which `build.rs`
    /// writes into the generated catalog.
    #[allow(dead_code)]
    pub(crate) const fn bits(self) -> u128 {
        self.0
    }

    /// The set [`Charset::bits`] gave, for the generated catalog (whose sets
    /// were parsed and checked at build time).
    #[allow(dead_code)]
    pub(crate) const fn from_bits(bits: u128) -> Self {
        Charset(bits)
    }

    /// Whether `b` is in the set.
    pub fn contains(self, b: u8) -> bool {
        // One 64-bit half, then a plain shift: shifting the `u128` by a
        // variable amount costs several instructions per byte checked.
        let half = match b {
            0..=63 => self.0 as u64,
            64..=127 => (self.0 >> 64) as u64,
            _ => return false,
        };
        (half >> (b & 63)) & 1 != 0
    }
}

/// One piece of a segmented shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// Exactly these bytes.
    Literal(String),
    /// Between `min` and `max` characters from `set`.
    Run {
        /// The allowed characters.
        set: Charset,
        /// Fewest characters.
        min: u16,
        /// Most characters.
        max: u16,
    },
}

/// A character allowlist with length bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A sequence of segments; all but the last have a fixed length, so a
    /// match is one left-to-right pass with no backtracking.
    Segments(Vec<Segment>),
    /// One of these exact values.
    Choice(Vec<String>),
}

/// Why a shape declaration was refused.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShapeError {
    /// A character set with nothing in it.
    #[error("empty character set")]
    EmptyCharset,
    /// A range whose start is after its end.
    #[error("character range runs backwards")]
    BadRange,
    /// A character outside the safe set.
    #[error("shape admits a character outside {SAFE_CHARS}")]
    UnsafeChar,
    /// A segment that is neither a literal nor a bounded run.
    #[error("segment needs exactly one of `literal` or `chars` with bounds")]
    BadSegment,
    /// A variable-length segment that is not the last one.
    #[error("only the last segment may vary in length")]
    VariableNotLast,
    /// A shape that could accept a value starting with a non-alphanumeric.
    #[error("every value must start with a letter or digit")]
    BadFirstChar,
    /// A shape with no segments or choices, or a maximum length of zero.
    #[error("shape accepts nothing")]
    Empty,
}

impl Shape {
    /// Builds a segmented shape, checking the rules that keep matching linear
    /// and every value safe.
    pub fn segments(segments: Vec<Segment>) -> Result<Self, ShapeError> {
        if segments.is_empty() {
            return Err(ShapeError::Empty);
        }
        let last = segments.len() - 1;
        for (i, seg) in segments.iter().enumerate() {
            match seg {
                Segment::Literal(lit) => {
                    if lit.is_empty() || !lit.bytes().all(is_safe_char) {
                        return Err(ShapeError::UnsafeChar);
                    }
                }
                Segment::Run { min, max, .. } => {
                    if min > max || *max == 0 {
                        return Err(ShapeError::BadSegment);
                    }
                    if min != max && i != last {
                        return Err(ShapeError::VariableNotLast);
                    }
                }
            }
        }
        // The first character of every accepted value must be alphanumeric.
        match &segments[0] {
            Segment::Literal(lit) if lit.as_bytes()[0].is_ascii_alphanumeric() => {}
            Segment::Run { set, min, .. }
                if *min >= 1
                    && (0u8..128).all(|c| !set.contains(c) || c.is_ascii_alphanumeric()) => {}
            _ => return Err(ShapeError::BadFirstChar),
        }
        Ok(Shape::Segments(segments))
    }

    /// Builds a choice shape; each value must itself be safe.
    pub fn choice(values: Vec<String>) -> Result<Self, ShapeError> {
        if values.is_empty() {
            return Err(ShapeError::Empty);
        }
        for v in &values {
            if v.is_empty() || !v.bytes().all(is_safe_char) {
                return Err(ShapeError::UnsafeChar);
            }
            if !v.as_bytes()[0].is_ascii_alphanumeric() {
                return Err(ShapeError::BadFirstChar);
            }
        }
        Ok(Shape::Choice(values))
    }

    /// Whether `value` matches. Never allocates.
    pub fn matches(&self, value: &str) -> bool {
        let v = value.as_bytes();
        match self {
            Shape::Choice(values) => values.iter().any(|c| c.as_bytes() == v),
            Shape::Segments(segments) => {
                let mut pos = 0;
                for seg in segments {
                    match seg {
                        Segment::Literal(lit) => {
                            let lit = lit.as_bytes();
                            // Literals are a byte or two (`-`, `T`):
                            // compared in line rather than through `memcmp`.
                            let ok = v
                                .get(pos..pos + lit.len())
                                .is_some_and(|next| next.iter().zip(lit).all(|(a, b)| a == b));
                            if !ok {
                                return false;
                            }
                            pos += lit.len();
                        }
                        Segment::Run { set, min, max } => {
                            // The longest prefix from `set`, at most `max`
                            // long: one tight scan of a bounded slice.
                            let rest = &v[pos..];
                            let limit = rest.len().min(usize::from(*max));
                            let run = rest[..limit]
                                .iter()
                                .position(|b| !set.contains(*b))
                                .unwrap_or(limit);
                            if run < usize::from(*min) {
                                return false;
                            }
                            pos += run;
                        }
                    }
                }
                pos == v.len()
            }
        }
    }

    /// The longest value this shape accepts.
    pub fn max_len(&self) -> usize {
        match self {
            Shape::Choice(values) => values.iter().map(String::len).max().unwrap_or(0),
            Shape::Segments(segments) => segments
                .iter()
                .map(|s| match s {
                    Segment::Literal(l) => l.len(),
                    Segment::Run { max, .. } => usize::from(*max),
                })
                .sum(),
        }
    }
}

/// The shape of an absolute program path the user ran an agent through
/// (`/home/me/.local/bin/claude`): safe characters only, absolute, no `..`.
pub fn is_program_path(path: &str) -> bool {
    path.len() <= 4096
        && path.starts_with('/')
        && path.len() > 1
        && !path.ends_with('/')
        && path
            .bytes()
            .all(|b| is_safe_char(b) && b != b'=' && b != b',')
        && !path.split('/').any(|c| c == "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uuid() -> Shape {
        let hex = Charset::parse("0-9a-f").expect("valid set");
        let run = |n| Segment::Run {
            set: hex,
            min: n,
            max: n,
        };
        let dash = || Segment::Literal("-".into());
        Shape::segments(vec![
            run(8),
            dash(),
            run(4),
            dash(),
            run(4),
            dash(),
            run(4),
            dash(),
            run(12),
        ])
        .expect("valid shape")
    }

    #[test]
    fn uuid_shape_accepts_lowercase_uuids_of_any_version() {
        let s = uuid();
        assert!(s.matches("f6066ebb-140e-4519-ab63-b9cde0b60b57"));
        assert!(s.matches("01a22abf-a931-72c2-b857-4949dadb1b99"));
        for bad in [
            "",
            "F6066EBB-140E-4519-AB63-B9CDE0B60B57",
            "f6066ebb-140e-4519-ab63-b9cde0b60b5",
            "f6066ebb-140e-4519-ab63-b9cde0b60b577",
            "f6066ebb-140e-4519-ab63-b9cde0b60b5$",
            "f6066ebb 140e-4519-ab63-b9cde0b60b57",
            "$(touch x)-140e-4519-ab63-b9cde0b60b57",
            "f6066ebb-140e-4519-ab63-b9cde0b60b57\n",
            "**************************",
        ] {
            assert!(!s.matches(bad), "{bad:?}");
        }
    }

    #[test]
    fn charset_refuses_every_shell_metacharacter() {
        for c in [
            " ", "'", "\"", "\\", "$", "`", ";", "&", "|", "*", "?", "~", "!", "#", "(", "{", "<",
            "%", "\t",
        ] {
            assert_eq!(Charset::parse(c), Err(ShapeError::UnsafeChar), "{c:?}");
        }
        // A range that would sweep metacharacters in is refused too.
        assert_eq!(Charset::parse("!-~"), Err(ShapeError::UnsafeChar));
    }

    #[test]
    fn shape_that_could_start_with_a_dash_is_refused() {
        let set = Charset::parse("a-z-").expect("valid set");
        let seg = Segment::Run {
            set,
            min: 1,
            max: 9,
        };
        assert_eq!(Shape::segments(vec![seg]), Err(ShapeError::BadFirstChar));
        assert_eq!(
            Shape::choice(vec!["-x".into()]),
            Err(ShapeError::BadFirstChar)
        );
    }

    #[test]
    fn only_the_last_segment_may_vary() {
        let set = Charset::parse("a-z").expect("valid set");
        let var = Segment::Run {
            set,
            min: 1,
            max: 3,
        };
        assert_eq!(
            Shape::segments(vec![var.clone(), Segment::Literal("x".into())]),
            Err(ShapeError::VariableNotLast)
        );
        assert!(Shape::segments(vec![Segment::Literal("x".into()), var]).is_ok());
    }

    #[test]
    fn program_path_is_absolute_and_plain() {
        assert!(is_program_path("/home/me/.local/bin/claude"));
        assert!(is_program_path("/opt/node-v20/bin/codex"));
        for bad in [
            "claude",
            "./claude",
            "~/bin/claude",
            "/a/../claude",
            "/a b/claude",
            "/a/$x/claude",
            "/",
            "/a/",
        ] {
            assert!(!is_program_path(bad), "{bad:?}");
        }
    }

    /// `matches` as first written (iterator adaptors), the oracle for the
    /// bounded-slice scan.
    fn matches_reference(shape: &Shape, value: &str) -> bool {
        let v = value.as_bytes();
        match shape {
            Shape::Choice(values) => values.iter().any(|c| c.as_bytes() == v),
            Shape::Segments(segments) => {
                let mut pos = 0;
                for seg in segments {
                    match seg {
                        Segment::Literal(lit) => {
                            if !v[pos..].starts_with(lit.as_bytes()) {
                                return false;
                            }
                            pos += lit.len();
                        }
                        Segment::Run { set, min, max } => {
                            let run = v[pos..]
                                .iter()
                                .take(usize::from(*max))
                                .take_while(|b| set.contains(**b))
                                .count();
                            if run < usize::from(*min) {
                                return false;
                            }
                            pos += run;
                        }
                    }
                }
                pos == v.len()
            }
        }
    }

    proptest::proptest! {
        /// Values are built from the shape's own pieces, with runs up to
        /// two longer than their maximum and literals sometimes dropped, so
        /// most cases sit at a boundary.
        #[test]
        fn matches_agrees_with_the_reference(
            pieces in proptest::collection::vec(
                (
                    proptest::option::of("[a-z:-]{1,3}"),
                    "[a-f0-9_.]{1,4}",
                    (0u16..5, 1u16..5),
                    0usize..8,
                    proptest::collection::vec(0usize..8, 8),
                    proptest::bool::weighted(0.9),
                ),
                1..4,
            ),
            tail in "[a-z0-9_.:-]{0,2}",
        ) {
            let n = pieces.len();
            let mut segments = Vec::new();
            let mut value = String::new();
            for (i, (lit, set_text, (a, b), k, picks, keep_lit)) in pieces.iter().enumerate() {
                let (min, max) = ((*a).min(*b), (*a).max(*b).max(1));
                let (min, max) = if i + 1 == n { (min, max) } else { (max, max) };
                let set = Charset::parse(set_text).expect("a set of safe characters");
                if let Some(l) = lit {
                    segments.push(Segment::Literal(l.clone()));
                    if *keep_lit {
                        value.push_str(l);
                    }
                }
                segments.push(Segment::Run { set, min, max });
                let members: Vec<char> = set_text.chars().collect();
                for p in picks.iter().take((*k).min(usize::from(max) + 2)) {
                    value.push(members[p % members.len()]);
                }
            }
            value.push_str(&tail);
            // Shapes the catalog could not declare (a `-` first, say) are
            // not asked about.
            let shape = Shape::segments(segments);
            proptest::prop_assume!(shape.is_ok());
            let shape = shape.expect("checked");
            proptest::prop_assert_eq!(shape.matches(&value), matches_reference(&shape, &value));
        }
    }
}
