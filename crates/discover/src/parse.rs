//! From records to session fields, per agent.
//!
//! One pass over a file's records fills an [`Acc`]: the header's id,
//! directory and start time, the title, the first user text and a message
//! count. Which records say what is each agent's own format, as
//! `docs/agents.md` documents it, and its provider fills in the
//! [`Records`] this pass is given; a record of another shape is ignored.

use agent_resume_core::UnixMillis;

use crate::json::{scan_str, Bodies, Line, Msg, Spans};
use crate::read::{ReadStats, Rec};
use crate::text::{clean, MAX_TEXT};
use crate::Problem;

/// The most bytes of Codex response items kept unread for a fallback prompt
/// before they are read.
const MAX_DEFERRED: usize = 64 * 1024;

/// What an agent's records say, record by record: the reader a provider
/// fills in.
pub(crate) struct Records {
    /// Applies one parsed record of type `kind` to the pass.
    pub apply: fn(&mut Acc, &str, &Line<'_>, Raw<'_>),
    /// The key naming the id in a first record cut short.
    pub cut_id_key: Option<&'static str>,
    /// The prefix view needs the header's id (the name carries only part
    /// of it).
    pub needs_header: bool,
    /// The session is one JSON document, not JSON lines: read by this
    /// instead of record by record.
    pub document: Option<Document>,
}

impl Records {
    /// Records nothing is read from.
    pub const NONE: Records = Records {
        apply: |_, _, _, _| {},
        cut_id_key: None,
        needs_header: false,
        document: None,
    };
}

/// A session kept as one JSON document (Auggie's, Cline's): only its first
/// `max` bytes are ever read, at any depth, so the reader must find what it
/// lists (id, directory, time) where the agent writes them, near the top.
pub(crate) struct Document {
    /// The most bytes read.
    pub max: u64,
    /// It holds the messages: read whole, it gives their count.
    pub counts: bool,
    /// Reads the bytes (`whole`: the entire file) into the pass, or says
    /// why they name no session.
    pub read: fn(&[u8], bool, &mut Acc) -> Result<(), Problem>,
}

/// What the records of one session said.
#[derive(Debug, Default)]
pub struct Acc {
    /// The id the header names.
    pub header_id: Option<String>,
    /// The directory the records name.
    pub cwd: Option<String>,
    /// A generated title or summary (last one wins).
    pub summary: Option<String>,
    /// A title the user set (last one wins, and wins over `summary`).
    pub custom_title: Option<String>,
    /// The first user text, cleaned.
    pub first_prompt: Option<String>,
    /// Codex: the first user response item, when no user event is seen.
    pub(crate) fallback_prompt: Option<String>,
    /// Codex: the user response items seen while there is neither a first
    /// prompt nor a fallback, not yet read for their text (one after the
    /// other in `deferred`, each ending at its `deferred_ends` entry): a
    /// user event usually follows, and then their text is never needed.
    deferred: Vec<u8>,
    deferred_ends: Vec<usize>,
    /// The earliest time a record names.
    pub started: Option<UnixMillis>,
    /// User and assistant messages.
    pub messages: u32,
    /// Codex: response-item messages, used when there are no events.
    pub(crate) item_messages: u32,
    /// Records that parsed.
    pub whole: u32,
    /// Whole lines that did not parse.
    pub bad: u32,
    /// A record was cut short.
    pub cut: bool,
    /// The first byte that was not whitespace.
    pub first_byte: Option<u8>,
    /// Stop parsing records once the prefix view has what it shows.
    pub prefix_only: bool,
}

/// A record that parsed, with where its body values lie.
#[derive(Clone, Copy)]
pub(crate) struct Raw<'r> {
    pub(crate) raw: &'r [u8],
    spans: &'r Spans,
}

impl<'r> Raw<'r> {
    /// The record's message bodies (a second, rarer read, of the body
    /// values alone).
    pub(crate) fn bodies(self) -> Bodies<'r> {
        crate::json::bodies(self.raw, self.spans)
    }
}

/// The text the user typed in a message, cleaned; `None` for an injected
/// wrapper.
pub(crate) fn prompt_text(m: &Msg<'_>) -> Option<String> {
    let t = m.text.as_deref()?.trim_start();
    // Injected wrappers (`<command-name>`, `<environment_context>`,
    // `<user_instructions>`) are not what the user typed.
    if t.starts_with('<') {
        return None;
    }
    clean(t, MAX_TEXT)
}

impl Acc {
    /// An empty pass reading to `depth`.
    pub fn new(depth: crate::read::Depth) -> Acc {
        Acc {
            prefix_only: depth != crate::read::Depth::Full,
            ..Acc::default()
        }
    }

    /// Feeds one record, read as `records` says.
    pub(crate) fn feed(&mut self, records: &Records, rec: Rec<'_>) {
        let bytes = match rec {
            Rec::Whole(b) | Rec::Cut(b) => b,
        };
        if self.first_byte.is_none() {
            self.first_byte = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
        }
        match rec {
            Rec::Whole(b) => {
                if b.iter().all(u8::is_ascii_whitespace) || self.has_enough(records) {
                    return;
                }
                match crate::json::line(b) {
                    Ok((line, spans)) => {
                        self.whole += 1;
                        self.apply(
                            records,
                            &line,
                            Raw {
                                raw: b,
                                spans: &spans,
                            },
                        );
                    }
                    Err(_) => self.bad += 1,
                }
            }
            Rec::Cut(b) => {
                self.cut = true;
                if self.cwd.is_none() {
                    self.cwd = scan_str(b, "cwd");
                }
                // A record cut short may still name its time before the cut
                // (Droid's first message: its timestamp comes before a long
                // content): the session's start, where no whole record
                // gave an earlier one.
                if let Some(t) = scan_str(b, "timestamp")
                    .as_deref()
                    .and_then(crate::json::parse_time)
                {
                    self.started = Some(self.started.map_or(t, |s| s.min(t)));
                }
                if self.whole == 0 && self.header_id.is_none() {
                    let key = records.cut_id_key;
                    self.header_id = key.and_then(|k| scan_str(b, k));
                }
            }
        }
    }

    /// On the prefix path, whether the records read so far already name the
    /// directory, the first prompt and (where the header carries it) the id:
    /// later records in the prefix would change nothing shown.
    fn has_enough(&self, records: &Records) -> bool {
        self.prefix_only
            && self.whole > 0
            && self.cwd.is_some()
            && self.first_prompt.is_some()
            && (!records.needs_header || self.header_id.is_some())
    }

    fn apply(&mut self, records: &Records, l: &Line<'_>, raw: Raw<'_>) {
        let kind = l.kind.get().unwrap_or("");
        if let Some(t) = l.timestamp.0.or(l.start_time.0) {
            self.started = Some(self.started.map_or(t, |s| s.min(t)));
        }
        if self.cwd.is_none() {
            self.cwd = l.cwd.get().map(str::to_owned);
        }
        (records.apply)(self, kind, l, raw);
    }

    /// A chat message by `role`: counted, and the first user one's text
    /// (read by `text`) kept.
    pub(crate) fn chat(
        &mut self,
        role: Option<&str>,
        raw: Raw<'_>,
        text: fn(Bodies<'_>) -> Option<String>,
    ) {
        match role {
            Some("user") => {
                self.messages += 1;
                if self.first_prompt.is_none() {
                    self.first_prompt = text(raw.bodies());
                }
            }
            Some("assistant" | "model" | "grok") => self.messages += 1,
            _ => {}
        }
    }

    /// Keeps a user response item to read for a fallback prompt later,
    /// reading those kept so far once they hold [`MAX_DEFERRED`] bytes.
    pub(crate) fn defer(&mut self, raw: &[u8]) {
        self.deferred.extend_from_slice(raw);
        self.deferred_ends.push(self.deferred.len());
        if self.deferred.len() > MAX_DEFERRED {
            self.read_deferred();
        }
    }

    /// The fallback prompt from the kept response items: the first one's
    /// text that there is, as when each was read on arrival.
    fn read_deferred(&mut self) {
        let mut start = 0;
        for &end in &self.deferred_ends {
            if self.fallback_prompt.is_some() {
                break;
            }
            let raw = &self.deferred[start..end];
            self.fallback_prompt = crate::json::bodies_of(raw)
                .payload
                .0
                .and_then(|b| prompt_text(&b.content));
            start = end;
        }
        self.deferred.clear();
        self.deferred_ends.clear();
    }

    /// Closes the pass: Codex falls back to response items.
    pub fn finish(&mut self) {
        if self.messages == 0 {
            self.messages = self.item_messages;
        }
        if self.first_prompt.is_none() {
            self.read_deferred();
            self.first_prompt = self.fallback_prompt.take();
        }
    }

    /// Whether the records were enough to list the session: at least one
    /// record parsed, or the prefix bound cut a first record that still
    /// named what matters. Otherwise, why not.
    pub fn verdict(&self, stats: &ReadStats) -> Result<(), Problem> {
        if self.whole > 0 {
            return Ok(());
        }
        if self.bad > 0 {
            return Err(Problem::Garbage);
        }
        if stats.hit_bound && self.cut && (self.cwd.is_some() || self.header_id.is_some()) {
            return Ok(());
        }
        match self.first_byte {
            None | Some(b'{') => Err(Problem::HalfWritten),
            Some(_) => Err(Problem::Garbage),
        }
    }

    /// The title: the user's own, else the agent's summary, cleaned.
    pub fn title(&self) -> Option<String> {
        self.custom_title
            .as_deref()
            .and_then(|t| clean(t, MAX_TEXT))
            .or_else(|| self.summary.as_deref().and_then(|t| clean(t, MAX_TEXT)))
    }
}

/// Claude's and Qwen's transcripts: summaries, titles the user set, and
/// user and assistant messages (not meta ones, nor a sidechain's first
/// prompt); every record may name the session.
pub(crate) fn apply_transcript(acc: &mut Acc, kind: &str, l: &Line<'_>, raw: Raw<'_>) {
    match kind {
        "summary" => acc.summary = l.summary.get().map(str::to_owned),
        "custom-title" => {
            acc.custom_title = l.custom_title.get().map(str::to_owned);
        }
        "user" | "assistant" if l.is_meta.0 != Some(true) => {
            acc.messages += 1;
            if kind == "user" && acc.first_prompt.is_none() && l.is_sidechain.0 != Some(true) {
                acc.first_prompt = prompt_text(&raw.bodies().message);
            }
        }
        _ => {}
    }
    if acc.header_id.is_none() {
        acc.header_id = l.session_id.get().map(str::to_owned);
    }
}

/// Droid's and Pi's session events: the session header, its info (a
/// name), and messages.
pub(crate) fn apply_session_events(acc: &mut Acc, kind: &str, l: &Line<'_>, raw: Raw<'_>) {
    match kind {
        "session_start" | "session" => {
            if acc.header_id.is_none() {
                acc.header_id = l.id.get().map(str::to_owned);
            }
            if let Some(t) = l.title.get() {
                acc.summary = Some(t.to_owned());
            }
        }
        "session_info" => {
            if let Some(n) = l.name.get().or(l.title.get()) {
                acc.custom_title = Some(n.to_owned());
            }
        }
        "message" => {
            let role = l.message.0.as_ref().and_then(|m| m.role.get());
            acc.chat(role, raw, |b| prompt_text(&b.message));
        }
        _ => {}
    }
}
