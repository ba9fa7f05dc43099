//! Lenient JSON reading for session records.
//!
//! Every agent writes its own record shapes, and versions move. A field of
//! an unexpected type must not make a whole record unreadable, so each field
//! type here accepts anything: the expected type yields a value, any other
//! is skipped and yields nothing. Only the fields the listing needs are
//! kept; message bodies are visited for their first text and dropped.

use std::borrow::Cow;
use std::fmt;

use agent_resume_core::UnixMillis;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// The most bytes of one text kept before cleaning.
const MAX_RAW_TEXT: usize = 4096;

/// A string, or nothing when the value is of another type.
#[derive(Debug, Default)]
pub struct Str<'a>(pub Option<Cow<'a, str>>);

impl Str<'_> {
    /// The string, when present and not empty.
    pub fn get(&self) -> Option<&str> {
        self.0.as_deref().filter(|s| !s.is_empty())
    }
}

struct StrVisitor;

impl<'de> Visitor<'de> for StrVisitor {
    type Value = Str<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Str(Some(Cow::Borrowed(v))))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Str(Some(Cow::Owned(v.to_owned()))))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Str(None))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Str(None))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Str(None))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Str(None))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Str(None))
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Str(None))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Str(None))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Str(None))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrVisitor)
    }
}

/// A time: an RFC 3339 string, or a number of milliseconds (seconds when
/// small) since the epoch.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stamp(pub Option<UnixMillis>);

/// Parses an RFC 3339 time.
pub fn parse_time(s: &str) -> Option<UnixMillis> {
    let t = OffsetDateTime::parse(s, &Rfc3339).ok()?;
    i64::try_from(t.unix_timestamp_nanos() / 1_000_000)
        .ok()
        .map(UnixMillis)
}

/// A number read as milliseconds, or seconds when below 10^11.
pub fn number_time(n: i64) -> UnixMillis {
    if n.abs() < 100_000_000_000 {
        UnixMillis(n.saturating_mul(1000))
    } else {
        UnixMillis(n)
    }
}

impl<'de> Deserialize<'de> for Stamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Stamp;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Stamp, E> {
                Ok(Stamp(parse_time(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Stamp, E> {
                Ok(Stamp(Some(number_time(v))))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Stamp, E> {
                Ok(Stamp(i64::try_from(v).ok().map(number_time)))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Stamp, E> {
                Ok(Stamp(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Stamp, E> {
                Ok(Stamp(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Stamp, E> {
                Ok(Stamp(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Stamp, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Stamp(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Stamp, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Stamp(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// A bool, or nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct Flag(pub Option<bool>);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Flag;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Flag, E> {
                Ok(Flag(Some(v)))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Flag, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Flag(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Flag, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Flag(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// A message, or message content, reduced to its role, its type and its
/// first text. Accepts a string (the text), a list of parts (the first part
/// that is text), or an object with `role`, `type`, and `text`, `content`,
/// `parts` or `message` holding the text. Texts are borrowed from the record
/// where they hold no escape.
#[derive(Debug, Default)]
pub struct Msg<'a> {
    /// `role`, when present.
    pub role: Option<Cow<'a, str>>,
    /// `type`, when present.
    pub kind: Option<Cow<'a, str>>,
    /// The first text.
    pub text: Option<Cow<'a, str>>,
}

fn is_text_kind(kind: Option<&str>) -> bool {
    matches!(
        kind,
        None | Some("text" | "input_text" | "output_text" | "message")
    )
}

/// At most [`MAX_RAW_TEXT`] bytes of `s`, cut at a character boundary.
fn cap_cow(s: Cow<'_, str>) -> Cow<'_, str> {
    if s.len() <= MAX_RAW_TEXT {
        return s;
    }
    let mut end = MAX_RAW_TEXT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    match s {
        Cow::Borrowed(b) => Cow::Borrowed(&b[..end]),
        Cow::Owned(mut o) => {
            o.truncate(end);
            Cow::Owned(o)
        }
    }
}

/// The keys a [`Msg`] object looks at, named without building a string.
enum MsgKey {
    Role,
    Type,
    Body,
    Other,
}

impl<'de> Deserialize<'de> for MsgKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = MsgKey;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<MsgKey, E> {
                Ok(match v {
                    "role" => MsgKey::Role,
                    "type" => MsgKey::Type,
                    "text" | "content" | "parts" | "message" => MsgKey::Body,
                    _ => MsgKey::Other,
                })
            }
        }
        // A JSON key is always a string: the parser checks it as it would
        // for a `String` key, without the allocation.
        d.deserialize_identifier(V)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Msg<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Msg<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Msg<'a>, E> {
                Ok(Msg {
                    text: Some(cap_cow(Cow::Borrowed(v))),
                    ..Msg::default()
                })
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Msg<'a>, E> {
                Ok(Msg {
                    text: Some(Cow::Owned(cap_cow(Cow::Borrowed(v)).into_owned())),
                    ..Msg::default()
                })
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Msg<'a>, E> {
                Ok(Msg::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Msg<'a>, E> {
                Ok(Msg::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Msg<'a>, E> {
                Ok(Msg::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Msg<'a>, E> {
                Ok(Msg::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Msg<'a>, E> {
                Ok(Msg::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Msg<'a>, A::Error> {
                let mut out = Msg::default();
                while let Some(part) = seq.next_element::<Msg<'a>>()? {
                    if out.text.is_none() && is_text_kind(part.kind.as_deref()) {
                        out.text = part.text;
                    }
                }
                Ok(out)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Msg<'a>, A::Error> {
                let mut out = Msg::default();
                let mut body: Option<Cow<'a, str>> = None;
                let text = |s: Str<'a>| s.0.filter(|s| !s.is_empty()).map(cap_cow);
                while let Some(key) = map.next_key::<MsgKey>()? {
                    match key {
                        MsgKey::Role => out.role = text(map.next_value::<Str<'a>>()?),
                        MsgKey::Type => out.kind = text(map.next_value::<Str<'a>>()?),
                        MsgKey::Body => {
                            let m = map.next_value::<Msg<'a>>()?;
                            if body.is_none() {
                                body = m.text;
                            }
                            if out.role.is_none() {
                                out.role = m.role;
                            }
                        }
                        MsgKey::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                if is_text_kind(out.kind.as_deref()) || out.role.is_some() {
                    out.text = body;
                }
                Ok(out)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A nested object read as `T`, or nothing when the value is not an object.
#[derive(Debug)]
pub struct Obj<T>(pub Option<T>);

impl<T> Default for Obj<T> {
    fn default() -> Self {
        Obj(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(|t| Obj(Some(t)))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Obj<T>, E> {
                Ok(Obj(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Obj<T>, E> {
                Ok(Obj(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Obj<T>, E> {
                Ok(Obj(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Obj<T>, E> {
                Ok(Obj(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Obj<T>, E> {
                Ok(Obj(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Obj<T>, E> {
                Ok(Obj(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Obj<T>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Obj(None))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// Codex's `payload` (session meta, response items, events).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Payload<'a> {
    /// `type`.
    #[serde(rename = "type", borrow)]
    pub kind: Str<'a>,
    /// The session id in `session_meta`.
    #[serde(borrow)]
    pub id: Str<'a>,
    /// The directory in `session_meta`.
    #[serde(borrow)]
    pub cwd: Str<'a>,
    /// When the session started.
    pub timestamp: Stamp,
    /// A response item's role.
    #[serde(borrow)]
    pub role: Str<'a>,
}

/// Copilot's event `data`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Data<'a> {
    /// The session id.
    #[serde(rename = "sessionId", borrow)]
    pub session_id: Str<'a>,
    /// The directory.
    #[serde(borrow)]
    pub cwd: Str<'a>,
    /// The directory, nested.
    pub context: Obj<Context<'a>>,
    /// When the session started.
    #[serde(rename = "startTime")]
    pub start_time: Stamp,
}

/// Copilot's `data.context`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Context<'a> {
    /// The directory.
    #[serde(borrow)]
    pub cwd: Str<'a>,
}

/// One session record, of any agent: the union of the fields the listing
/// reads. Everything else in the record is skipped unread.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Line<'a> {
    /// `type`.
    #[serde(rename = "type", borrow)]
    pub kind: Str<'a>,
    /// The directory (Claude, Qwen, Droid, Pi).
    #[serde(borrow)]
    pub cwd: Str<'a>,
    /// The session id (Claude, Qwen, Gemini).
    #[serde(rename = "sessionId", borrow)]
    pub session_id: Str<'a>,
    /// The session id (Pi and Droid headers).
    #[serde(borrow)]
    pub id: Str<'a>,
    /// When the record was written.
    pub timestamp: Stamp,
    /// When the session started (Gemini header).
    #[serde(rename = "startTime")]
    pub start_time: Stamp,
    /// Claude's `summary` record, Gemini's header summary.
    #[serde(borrow)]
    pub summary: Str<'a>,
    /// Claude's `custom-title` record.
    #[serde(rename = "customTitle", borrow)]
    pub custom_title: Str<'a>,
    /// A title (Droid header).
    #[serde(borrow)]
    pub title: Str<'a>,
    /// A session name (Pi `session_info`).
    #[serde(borrow)]
    pub name: Str<'a>,
    /// Claude marks injected records.
    #[serde(rename = "isMeta")]
    pub is_meta: Flag,
    /// Claude marks sub-agent records.
    #[serde(rename = "isSidechain")]
    pub is_sidechain: Flag,
    /// A bare chat record's role (Grok).
    #[serde(borrow)]
    pub role: Str<'a>,
    /// The message's role (Claude, Qwen, Droid, Pi); its body is read only
    /// when needed, as [`Bodies`].
    #[serde(borrow)]
    pub message: Obj<Role<'a>>,
    /// Codex's payload.
    #[serde(borrow)]
    pub payload: Obj<Payload<'a>>,
    /// Copilot's event data.
    #[serde(borrow)]
    pub data: Obj<Data<'a>>,
}

/// A message object's role.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Role<'a> {
    /// `role`.
    #[serde(borrow)]
    pub role: Str<'a>,
}

/// The message bodies of a record, read only for the record that may hold
/// the first user text, so the listing does not build every message's
/// text ([`bodies`]).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Bodies<'a> {
    /// The message (Claude, Qwen, Droid, Pi).
    #[serde(borrow)]
    pub message: Msg<'a>,
    /// A bare chat record's content (Gemini, Grok).
    #[serde(borrow)]
    pub content: Msg<'a>,
    /// Gemini's older `parts`.
    #[serde(borrow)]
    pub parts: Msg<'a>,
    /// Codex's payload.
    #[serde(borrow)]
    pub payload: Obj<PayloadBody<'a>>,
    /// Copilot's event data.
    #[serde(borrow)]
    pub data: Obj<DataBody<'a>>,
}

/// Codex's payload bodies.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct PayloadBody<'a> {
    /// A response item's content.
    #[serde(borrow)]
    pub content: Msg<'a>,
    /// An event's message text.
    #[serde(borrow)]
    pub message: Msg<'a>,
}

/// Copilot's event data bodies.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct DataBody<'a> {
    /// A message's text.
    #[serde(borrow)]
    pub content: Msg<'a>,
}

/// The top-level keys of [`Bodies`], in field order.
const BODY_KEYS: [&str; 5] = ["message", "content", "parts", "payload", "data"];

/// Where the values of a record's top-level [`Bodies`] keys lie, noted while
/// [`line()`] parses it, so the bodies can be read from those values alone
/// instead of a second parse of the whole record.
#[derive(Debug, Default)]
pub struct Spans {
    /// A key's place is unknown (it held an escape, or the record is not
    /// an object): [`bodies`] parses the whole record.
    unknown: bool,
    /// A body key came twice: [`Bodies`] refuses the record.
    twice: bool,
    /// The body key whose value is being read, and where its name ends.
    open: Option<(usize, usize)>,
    /// Per body key: from the end of its name to the start of the next key's
    /// name (or the record's closing brace).
    at: [Option<(usize, usize)>; 5],
}

impl Spans {
    fn key(&mut self, raw: &[u8], key: &str) {
        // A borrowed key is a slice of `raw`; its offset is where it lies.
        let start = (key.as_ptr() as usize).wrapping_sub(raw.as_ptr() as usize);
        // Not inside `raw` (a key the parser copied) reads as unknown, never
        // as an overflowing offset.
        let inside = start > 0
            && start
                .checked_add(key.len())
                .is_some_and(|end| end < raw.len());
        if !inside || raw[start - 1] != b'"' {
            self.unknown = true;
            return;
        }
        if let Some((i, from)) = self.open.take() {
            self.at[i] = Some((from, start - 1));
        }
        if let Some(i) = BODY_KEYS.iter().position(|k| *k == key) {
            self.twice |= self.at[i].is_some();
            self.open = Some((i, start + key.len() + 1));
        }
    }

    fn close(&mut self, raw: &[u8]) {
        if let Some((i, from)) = self.open.take() {
            match raw.iter().rposition(|b| *b == b'}') {
                Some(end) => self.at[i] = Some((from, end)),
                None => self.unknown = true,
            }
        }
    }

    /// The value of body key `i`: what lies between its name's `:` and the
    /// `,` or `}` after it. `Err` when that is not known.
    fn value<'r>(&self, raw: &'r [u8], i: usize) -> Result<Option<&'r [u8]>, ()> {
        let Some((from, to)) = self.at[i] else {
            return Ok(None);
        };
        let v = raw.get(from..to).ok_or(())?;
        let v = v.trim_ascii_start().strip_prefix(b":").ok_or(())?;
        let v = v.trim_ascii_end();
        Ok(Some(v.strip_suffix(b",").unwrap_or(v)))
    }
}

/// A top-level key as the parser hands it: borrowed from the record when it
/// holds no escape.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
        }
        // What the derived field visitor asks for: the same checks.
        d.deserialize_identifier(V)
    }
}

/// The map of a record, handed on to [`Line`]'s derived visitor unchanged,
/// noting where each top-level key lies.
struct Watch<'r, 'de, A> {
    map: A,
    raw: &'de [u8],
    spans: &'r mut Spans,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Watch<'_, 'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let Some(Key(key)) = self.map.next_key::<Key<'de>>()? else {
            return Ok(None);
        };
        match key {
            Cow::Borrowed(k) => {
                self.spans.key(self.raw, k);
                seed.deserialize(de::value::BorrowedStrDeserializer::new(k))
            }
            Cow::Owned(k) => {
                self.spans.unknown = true;
                seed.deserialize(de::value::StringDeserializer::new(k))
            }
        }
        .map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

struct LineVisitor<'r, 'de> {
    raw: &'de [u8],
    spans: &'r mut Spans,
}

impl<'de> Visitor<'de> for LineVisitor<'_, 'de> {
    type Value = Line<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a record")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Line<'de>, A::Error> {
        Line::deserialize(de::value::MapAccessDeserializer::new(Watch {
            map,
            raw: self.raw,
            spans: self.spans,
        }))
    }
}

/// Parses one record as [`Line`] — the same result and the same refusals
/// as `serde_json::from_slice::<Line>` — and notes where its body keys'
/// values lie, for [`bodies`].
pub fn line(raw: &[u8]) -> serde_json::Result<(Line<'_>, Spans)> {
    let mut spans = Spans::default();
    let first = raw
        .iter()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    if first != Some(&b'{') {
        // Not an object (a derived struct also reads an array): as before.
        spans.unknown = true;
        return serde_json::from_slice(raw).map(|l| (l, spans));
    }
    let mut de = serde_json::Deserializer::from_slice(raw);
    let l = de.deserialize_map(LineVisitor {
        raw,
        spans: &mut spans,
    })?;
    de.end()?;
    spans.close(raw);
    Ok((l, spans))
}

/// The bodies of a record [`line()`] accepted, from a parse of the whole
/// record: the same as [`bodies`] with its spans.
pub fn bodies_of(raw: &[u8]) -> Bodies<'_> {
    serde_json::from_slice(raw).unwrap_or_default()
}

/// A value this deeply nested may be refused at the record's depth and not
/// alone (the parser's limit is 128 levels): read with the whole record.
const DEEP: usize = 100;

/// The bodies of a record [`line()`] parsed: the same as
/// `serde_json::from_slice::<Bodies>(raw)`, or empty where that is refused.
/// Only the body keys' values are parsed, each alone: the rest of the record
/// was already checked by [`line()`], and [`Bodies`] skips it.
pub fn bodies<'a>(raw: &'a [u8], spans: &Spans) -> Bodies<'a> {
    let whole = bodies_of;
    if spans.unknown {
        return whole(raw);
    }
    if spans.twice {
        return Bodies::default();
    }
    let mut values: [Option<&[u8]>; 5] = [None; 5];
    for (i, v) in values.iter_mut().enumerate() {
        match spans.value(raw, i) {
            Ok(Some(x)) if memchr::memchr2_iter(b'[', b'{', x).nth(DEEP - 1).is_some() => {
                return whole(raw);
            }
            Ok(x) => *v = x,
            Err(()) => return whole(raw),
        }
    }
    fn part<'a, T: Deserialize<'a> + Default>(v: Option<&'a [u8]>) -> Result<T, ()> {
        v.map_or_else(
            || Ok(T::default()),
            |v| serde_json::from_slice(v).map_err(|_| ()),
        )
    }
    let [message, content, parts, payload, data] = values;
    let read = || -> Result<Bodies<'a>, ()> {
        Ok(Bodies {
            message: part(message)?,
            content: part(content)?,
            parts: part(parts)?,
            payload: part(payload)?,
            data: part(data)?,
        })
    };
    read().unwrap_or_default()
}

/// A parsed value's string, when it is one and not empty.
pub fn text_of(v: Option<&serde_json::Value>) -> Option<&str> {
    v.and_then(serde_json::Value::as_str)
        .filter(|s| !s.is_empty())
}

/// Where the value of the first `"key":` in `bytes` starts. A string's
/// content cannot hold an unescaped `"`, so only a key matches.
fn value_of(bytes: &[u8], key: &str) -> Option<usize> {
    let needle = format!("\"{key}\"");
    let mut from = 0;
    while let Some(at) = find(&bytes[from..], needle.as_bytes()) {
        let mut i = from + at + needle.len();
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        if bytes.get(i) == Some(&b':') {
            i += 1;
            while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
                i += 1;
            }
            return Some(i);
        }
        from += at + 1;
    }
    None
}

/// Finds the first `"key": <digits>` in `bytes` (a document's prefix) and
/// reads the number, when it is whole (followed by more bytes) and fits.
pub fn scan_u64(bytes: &[u8], key: &str) -> Option<u64> {
    let start = value_of(bytes, key)?;
    let digits = bytes[start..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let end = start + digits;
    if digits == 0 || end >= bytes.len() {
        return None;
    }
    std::str::from_utf8(&bytes[start..end]).ok()?.parse().ok()
}

/// Finds `"key":"…"` in a record cut short and decodes the string, when it
/// is complete. Used only for a first record longer than the prefix read.
pub fn scan_str(bytes: &[u8], key: &str) -> Option<String> {
    let needle = format!("\"{key}\"");
    let mut from = 0;
    while let Some(at) = find(&bytes[from..], needle.as_bytes()) {
        let mut i = from + at + needle.len();
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        if bytes.get(i) == Some(&b':') {
            i += 1;
            while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
                i += 1;
            }
            if bytes.get(i) == Some(&b'"') {
                let start = i;
                i += 1;
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' => i += 2,
                        b'"' => {
                            return serde_json::from_slice::<String>(&bytes[start..=i]).ok();
                        }
                        _ => i += 1,
                    }
                }
                return None;
            }
        }
        from += at + 1;
    }
    None
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn field_of_an_unexpected_type_does_not_spoil_the_record() {
        let l: Line<'_> = serde_json::from_str(
            r#"{"type":7,"cwd":["x"],"sessionId":{"a":1},"timestamp":true,"isMeta":"yes","message":12,"payload":"p"}"#,
        )
        .expect("lenient");
        assert!(l.kind.get().is_none() && l.cwd.get().is_none() && l.session_id.get().is_none());
        assert!(l.timestamp.0.is_none() && l.is_meta.0.is_none() && l.payload.0.is_none());
        assert!(l.message.0.is_none());
    }

    #[test]
    fn message_text_is_found_in_every_documented_shape() {
        for (json, role, text) in [
            (r#"{"role":"user","content":"hi"}"#, Some("user"), "hi"),
            (
                r#"{"role":"user","content":[{"type":"tool_result","content":"no"},{"type":"text","text":"yes"}]}"#,
                Some("user"),
                "yes",
            ),
            (
                r#"{"role":"user","parts":[{"text":"gem"}]}"#,
                Some("user"),
                "gem",
            ),
            (r#"[{"type":"input_text","text":"codex"}]"#, None, "codex"),
        ] {
            let m: Msg = serde_json::from_str(json).expect(json);
            assert_eq!(m.role.as_deref(), role, "{json}");
            assert_eq!(m.text.as_deref(), Some(text), "{json}");
        }
    }

    #[test]
    fn times_are_rfc3339_or_epoch_numbers() {
        let s: Stamp = serde_json::from_str(r#""2026-01-02T03:04:05.500Z""#).expect("json");
        assert_eq!(s.0, Some(UnixMillis(1_767_323_045_500)));
        let s: Stamp = serde_json::from_str("1767323045").expect("json");
        assert_eq!(s.0, Some(UnixMillis(1_767_323_045_000)));
        let s: Stamp = serde_json::from_str("1767323045500").expect("json");
        assert_eq!(s.0, Some(UnixMillis(1_767_323_045_500)));
    }

    #[test]
    fn a_string_field_is_recovered_from_a_record_cut_short_only_when_complete() {
        let cut = br#"{"parentUuid":null,"cwd":"/home/me/a \"q\"","message":{"content":"very long"#;
        assert_eq!(scan_str(cut, "cwd").as_deref(), Some("/home/me/a \"q\""));
        assert_eq!(scan_str(cut, "content"), None);
        assert_eq!(scan_str(br#"{"cwd" : "/x"}"#, "cwd").as_deref(), Some("/x"));
    }

    /// What the listing made of a record before [`line()`] and [`bodies`]:
    /// two whole parses.
    fn by_two_parses(raw: &[u8]) -> Option<(String, String)> {
        let l = serde_json::from_slice::<Line<'_>>(raw).ok()?;
        let b = serde_json::from_slice::<Bodies<'_>>(raw).unwrap_or_default();
        Some((format!("{l:?}"), format!("{b:?}")))
    }

    fn by_spans(raw: &[u8]) -> Option<(String, String)> {
        let (l, spans) = line(raw).ok()?;
        Some((format!("{l:?}"), format!("{:?}", bodies(raw, &spans))))
    }

    const KEYS: &[&str] = &[
        "type",
        "cwd",
        "sessionId",
        "id",
        "timestamp",
        "summary",
        "isMeta",
        "role",
        "message",
        "payload",
        "data",
        "content",
        "parts",
        "text",
        "uuid",
        "con\\u0074ent",
        "mess\\u0061ge",
        "",
    ];
    const SCALARS: &[&[u8]] = &[
        b"null",
        b"true",
        b"0",
        b"-1",
        b"1767323045",
        b"1e400",
        b"18446744073709551616",
        b"1.5",
        b"\"user\"",
        b"\"assistant\"",
        b"\"text\"",
        b"\"input_text\"",
        b"\"hi\"",
        b"\"<x>\"",
        b"\"2026-01-02T03:04:05Z\"",
        b"\"a\\nb\"",
        b"\"\\ud800\"",
        b"\"\xff\"",
        b"\"\"",
        b"\"\\u00e9t\xc3\xa9\"",
    ];
    const SPACE: &[&[u8]] = &[b"", b"", b"", b" ", b"\n", b"\t ", b"\r"];

    fn json_value() -> impl Strategy<Value = Vec<u8>> {
        let leaf = proptest::sample::select(SCALARS).prop_map(<[u8]>::to_vec);
        leaf.prop_recursive(5, 48, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(|items| {
                    let mut out = b"[".to_vec();
                    out.extend(items.join(&b","[..]));
                    out.push(b']');
                    out
                }),
                proptest::collection::vec((proptest::sample::select(KEYS), inner), 0..5)
                    .prop_map(|entries| object(&entries, b"", b"")),
            ]
        })
    }

    fn object(entries: &[(&str, Vec<u8>)], before: &[u8], after: &[u8]) -> Vec<u8> {
        let mut out = b"{".to_vec();
        for (i, (k, v)) in entries.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(before);
            out.extend_from_slice(format!("\"{k}\"").as_bytes());
            out.extend_from_slice(after);
            out.push(b':');
            out.extend_from_slice(before);
            out.extend_from_slice(v);
            out.extend_from_slice(after);
        }
        out.push(b'}');
        out
    }

    /// A value nested `n` levels deep, the text at the bottom.
    fn deep(n: usize) -> Vec<u8> {
        let mut out = b"[".repeat(n);
        out.extend_from_slice(b"\"deep\"");
        out.extend(b"]".repeat(n));
        out
    }

    fn record() -> impl Strategy<Value = Vec<u8>> {
        let entry = (
            proptest::sample::select(KEYS),
            prop_oneof![
                8 => json_value(),
                1 => (95usize..135).prop_map(deep),
                1 => (95usize..135).prop_map(|n| {
                    object(&[("role", b"\"user\"".to_vec()), ("content", deep(n))], b"", b"")
                }),
            ],
        );
        (
            proptest::collection::vec(entry, 0..9),
            proptest::sample::select(SPACE),
            proptest::sample::select(SPACE),
            0u8..12,
            any::<proptest::sample::Index>(),
        )
            .prop_map(|(entries, before, after, shape, cut)| {
                let obj = object(&entries, before, after);
                match shape {
                    // An array, which a derived struct also reads.
                    0 => {
                        let values: Vec<Vec<u8>> = entries.into_iter().map(|(_, v)| v).collect();
                        let mut out = b"[".to_vec();
                        out.extend(values.join(&b","[..]));
                        out.push(b']');
                        out
                    }
                    // Cut short, or with something after it.
                    1 => obj[..cut.index(obj.len() + 1)].to_vec(),
                    2 => [&obj[..], b" x"].concat(),
                    3 => [b" \t", &obj[..], b"\r "].concat(),
                    _ => obj,
                }
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn one_parse_and_the_body_values_read_the_same_as_two_whole_parses(raw in record()) {
            prop_assert_eq!(by_spans(&raw), by_two_parses(&raw), "{}", String::from_utf8_lossy(&raw));
        }
    }

    #[test]
    fn records_the_body_values_alone_would_misread_are_read_whole() {
        for raw in [
            // A duplicate `content`: the record parses, its bodies do not.
            &br#"{"type":"user","content":"a","content":"b","message":"hi"}"#[..],
            // An escaped key: its place is not known.
            br#"{"type":"user","mess\u0061ge":{"role":"user","content":"hi"}}"#,
            // Nested to the parser's limit only at the record's depth.
            &[&br#"{"type":"user","message":"#[..], &deep(127), b"}"].concat(),
            &[&br#"{"type":"user","message":"#[..], &deep(126), b"}"].concat(),
            // Spacing around every token.
            b" { \"message\" :\t{\"role\":\"user\",\"content\":\"hi\"} , \"type\" : \"user\" } ",
        ] {
            assert_eq!(
                by_spans(raw),
                by_two_parses(raw),
                "{}",
                String::from_utf8_lossy(raw)
            );
        }
    }
}
