//! Stable pane identifiers.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// A terminal leaf's stable identifier: a UUID the host keeps across
/// restarts. Parsed strictly (hyphenated, any case on input, lowercase on
/// output), so a pane id can be embedded in a typed command safely.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PaneId(uuid::Uuid);

/// A pane id that is not a hyphenated UUID.
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
#[error("pane id is not a hyphenated UUID")]
pub struct BadPaneId;

impl PaneId {
    /// From raw bytes.
    pub const fn from_bytes(bytes: [u8; 16]) -> Self {
        PaneId(uuid::Uuid::from_bytes(bytes))
    }

    /// The raw bytes (the stable tie-break order of claims).
    pub fn as_bytes(&self) -> &[u8; 16] {
        self.0.as_bytes()
    }

    /// The id as it displays (hyphenated, lowercase), written into `buf`
    /// by the uuid crate's encoder rather than through `fmt`: for writers
    /// that print one per pane.
    pub fn encode<'b>(&self, buf: &'b mut [u8; PaneId::TEXT_LEN]) -> &'b str {
        self.0.hyphenated().encode_lower(buf)
    }

    /// The length of the displayed id.
    pub const TEXT_LEN: usize = uuid::fmt::Hyphenated::LENGTH;
}

impl FromStr for PaneId {
    type Err = BadPaneId;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // Only the 36-character hyphenated form: no braces, URNs or simple hex.
        if s.len() != PaneId::TEXT_LEN {
            return Err(BadPaneId);
        }
        uuid::Uuid::try_parse(s).map(PaneId).map_err(|_| BadPaneId)
    }
}

impl fmt::Display for PaneId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0.hyphenated(), f)
    }
}

impl serde::Serialize for PaneId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for PaneId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // A visitor rather than `Cow<str>` (which always copies): the id is
        // parsed from the deserializer's own buffer.
        struct Text;
        impl serde::de::Visitor<'_> for Text {
            type Value = PaneId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a hyphenated pane id")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<PaneId, E> {
                s.parse().map_err(E::custom)
            }
        }
        d.deserialize_str(Text)
    }
}

/// A single-use key `tmux restore --recreate` hands the first process of a
/// pane it creates (`AGENT_RESUME_TAKE` in that pane's own spawn
/// environment) and stores with the line it arms for the pane, bound to the
/// tmux server it creates the pane on: the pane's first `take` finds its
/// line by the key, without asking the server which pane it runs in. Random
/// (the caller draws the bytes); parsed as strictly as a [`PaneId`], so a
/// key can be written into a tmux command and read back from untrusted
/// environment text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TakeKey(PaneId);

impl TakeKey {
    /// From random bytes.
    pub const fn from_bytes(bytes: [u8; 16]) -> Self {
        TakeKey(PaneId::from_bytes(bytes))
    }
}

impl FromStr for TakeKey {
    type Err = BadPaneId;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse().map(TakeKey)
    }
}

impl fmt::Display for TakeKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pane_ids_and_take_keys_are_strictly_hyphenated_and_print_lowercase() {
        let text = "6F9619FF-8B86-D011-B42D-00C04FC964FF";
        let p: PaneId = text.parse().expect("valid");
        let k: TakeKey = text.parse().expect("valid");
        assert_eq!(p.to_string(), "6f9619ff-8b86-d011-b42d-00c04fc964ff");
        assert_eq!(k.to_string(), p.to_string());
        for bad in [
            "",
            "6f9619ff8b86d011b42d00c04fc964ff",
            "{6f9619ff-8b86-d011-b42d-00c04fc964ff}",
            " 6f9619ff-8b86-d011-b42d-00c04fc964ff",
            "6f9619ff-8b86-d011-b42d-00c04fc964ff\n",
            "6f9619ff-8b86-d011-b42d-00c04fc964f;",
        ] {
            assert_eq!(bad.parse::<PaneId>(), Err(BadPaneId), "{bad:?}");
            assert_eq!(bad.parse::<TakeKey>(), Err(BadPaneId), "{bad:?}");
        }
    }

    #[test]
    fn pane_id_deserializes_from_borrowed_escaped_and_owned_text_only() {
        let want: PaneId = "6f9619ff-8b86-d011-b42d-00c04fc964ff"
            .parse()
            .expect("valid");
        // Borrowed from the input, through the parser's scratch buffer (an
        // escape), and from an owned value.
        let borrowed: PaneId =
            serde_json::from_str(r#""6f9619ff-8b86-d011-b42d-00c04fc964ff""#).expect("borrowed");
        let escaped: PaneId =
            serde_json::from_str(r#""6f9619ff-8b86-d011-b42d-00c04fc964\u0066\u0066""#)
                .expect("escaped");
        let owned: PaneId =
            serde_json::from_value(serde_json::json!("6f9619ff-8b86-d011-b42d-00c04fc964ff"))
                .expect("owned");
        assert_eq!((borrowed, escaped, owned), (want, want, want));
        for bad in [
            "7",
            "null",
            r#"["6f9619ff-8b86-d011-b42d-00c04fc964ff"]"#,
            r#""6f9619ff8b86d011b42d00c04fc964ff""#,
        ] {
            assert!(serde_json::from_str::<PaneId>(bad).is_err(), "{bad}");
        }
    }

    proptest::proptest! {
        /// Environment text is untrusted: whatever it holds, a key is read
        /// only from the 36-character hyphenated form (any case), and a key
        /// read is exactly that text; the uuid crate's other forms of the
        /// same key (simple, braced, URN) are no key.
        #[test]
        fn a_take_key_is_only_its_own_hyphenated_text(
            text in "\\PC{0,40}",
            bytes in proptest::prelude::any::<[u8; 16]>(),
            upper in proptest::prelude::any::<bool>(),
        ) {
            if let Ok(key) = text.parse::<TakeKey>() {
                proptest::prop_assert_eq!(key.to_string(), text.to_ascii_lowercase());
            }
            let id = uuid::Uuid::from_bytes(bytes);
            let key = TakeKey::from_bytes(bytes);
            let hyphenated = if upper {
                id.hyphenated().to_string().to_ascii_uppercase()
            } else {
                id.hyphenated().to_string()
            };
            proptest::prop_assert_eq!(hyphenated.parse::<TakeKey>(), Ok(key));
            for other in [
                id.simple().to_string(),
                id.braced().to_string(),
                id.urn().to_string(),
            ] {
                proptest::prop_assert_eq!(other.parse::<TakeKey>(), Err(BadPaneId));
            }
        }
    }

    #[test]
    fn an_encoded_pane_id_is_its_display() {
        for bytes in [[0; 16], [0xff; 16], [0x5a; 16], *b"0123456789abcdef"] {
            let id = PaneId::from_bytes(bytes);
            let mut buf = [0; PaneId::TEXT_LEN];
            assert_eq!(id.encode(&mut buf), id.to_string());
        }
    }
}
