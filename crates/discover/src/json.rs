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

fn cap(s: &str) -> String {
    if s.len() <= MAX_RAW_TEXT {
        return s.to_owned();
    }
    let mut end = MAX_RAW_TEXT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}

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
/// `parts` or `message` holding the text.
#[derive(Debug, Default)]
pub struct Msg {
    /// `role`, when present.
    pub role: Option<String>,
    /// `type`, when present.
    pub kind: Option<String>,
    /// The first text.
    pub text: Option<String>,
}

fn is_text_kind(kind: Option<&str>) -> bool {
    matches!(
        kind,
        None | Some("text" | "input_text" | "output_text" | "message")
    )
}

impl<'de> Deserialize<'de> for Msg {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Msg;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Msg, E> {
                Ok(Msg {
                    text: Some(cap(v)),
                    ..Msg::default()
                })
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Msg, E> {
                Ok(Msg::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Msg, E> {
                Ok(Msg::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Msg, E> {
                Ok(Msg::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Msg, E> {
                Ok(Msg::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Msg, E> {
                Ok(Msg::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Msg, A::Error> {
                let mut out = Msg::default();
                while let Some(part) = seq.next_element::<Msg>()? {
                    if out.text.is_none() && is_text_kind(part.kind.as_deref()) {
                        out.text = part.text;
                    }
                }
                Ok(out)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Msg, A::Error> {
                let mut out = Msg::default();
                let mut body: Option<String> = None;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match key.as_ref() {
                        "role" => out.role = map.next_value::<Str<'_>>()?.get().map(cap),
                        "type" => out.kind = map.next_value::<Str<'_>>()?.get().map(cap),
                        "text" | "content" | "parts" | "message" => {
                            let m = map.next_value::<Msg>()?;
                            if body.is_none() {
                                body = m.text;
                            }
                            if out.role.is_none() {
                                out.role = m.role;
                            }
                        }
                        _ => {
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
        d.deserialize_any(V)
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

/// The message bodies of a record: parsed a second time, and only for the
/// record that may hold the first user text, so the listing does not build
/// every message's text.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Bodies {
    /// The message (Claude, Qwen, Droid, Pi).
    pub message: Msg,
    /// A bare chat record's content (Gemini, Grok).
    pub content: Msg,
    /// Gemini's older `parts`.
    pub parts: Msg,
    /// Codex's payload.
    pub payload: Obj<PayloadBody>,
    /// Copilot's event data.
    pub data: Obj<DataBody>,
}

/// Codex's payload bodies.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct PayloadBody {
    /// A response item's content.
    pub content: Msg,
    /// An event's message text.
    pub message: Msg,
}

/// Copilot's event data bodies.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct DataBody {
    /// A message's text.
    pub content: Msg,
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
}
