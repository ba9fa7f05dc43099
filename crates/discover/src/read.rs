//! Reading session files as records (JSON lines), to a bound.
//!
//! The fast listing reads a bounded prefix of each file: at most
//! [`Depth::Prefix`] bytes of a plain file, and at most
//! [`ZSTD_INPUT_FACTOR`] times that of a compressed one (a zstd block must
//! be whole to decode; at most the bound is kept once decoded). The full
//! listing streams the whole file and never holds more than one record of
//! at most [`MAX_RECORD`] bytes, and stops at [`MAX_SESSION_FILE`]. A
//! file that is not a regular file (a FIFO, a device) is refused without
//! blocking ([`crate::file`]).
//!
//! The zstd decoder is libzstd, a C build, behind the default cargo
//! feature `zstd` ([`ZSTD_READER`]); a build without it refuses a
//! compressed file. (The pure-Rust decoder `ruzstd` holds back a window's
//! worth of output, up to the whole window, before handing out a byte, so
//! it cannot read a prefix within [`ZSTD_INPUT_FACTOR`].)

use std::cell::Cell;
#[cfg(feature = "zstd")]
use std::cell::RefCell;
use std::fs::{File, Metadata};
#[cfg(feature = "zstd")]
use std::io::BufReader;
use std::io::{self, Read};
use std::path::Path;
use std::time::SystemTime;

#[cfg(feature = "zstd")]
use zstd::zstd_safe::{DCtx, DParameter};

/// How much of each session file is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// At most this many bytes from the start of each file: the header and
    /// the first user text, for a recent-sessions view.
    Prefix(usize),
    /// Every record: exact message counts, the latest title, for search.
    Full,
}

impl Depth {
    /// The fast listing's bound: 4 KiB per file.
    pub const FAST: Depth = Depth::Prefix(4096);
}

/// A compressed file may be read up to this many times the prefix bound.
pub const ZSTD_INPUT_FACTOR: u64 = 16;

/// The most bytes read from one session file even when every record is
/// wanted: a larger file is read to this bound, as cut short.
pub const MAX_SESSION_FILE: u64 = 1 << 30;

/// The longest record parsed whole; a longer one is read as cut short.
pub const MAX_RECORD: usize = 4 << 20;

/// The largest zstd window accepted (16 MiB), so a hostile frame header
/// cannot make the decoder allocate more.
#[cfg(feature = "zstd")]
const ZSTD_WINDOW_LOG_MAX: u32 = 24;

/// Whether this build reads zstd-compressed files (cargo feature `zstd`).
pub const ZSTD_READER: bool = cfg!(feature = "zstd");

/// One record of a session file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rec<'a> {
    /// A whole line, without its newline.
    Whole(&'a [u8]),
    /// A line cut short: by the prefix bound, by [`MAX_RECORD`], or the
    /// unterminated last line of a file being written.
    Cut(&'a [u8]),
}

/// What reading one file cost and saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// Bytes read from disk.
    pub bytes: u64,
    /// The read stopped at the bound, before the end of the file.
    pub hit_bound: bool,
    /// When the file was last written, from the open file's own `fstat`
    /// (`None` for bytes not read from a file).
    pub modified: Option<SystemTime>,
}

/// Splits a byte stream into records.
pub struct Splitter {
    buf: Vec<u8>,
    overflow: bool,
}

impl Splitter {
    /// An empty splitter.
    pub fn new() -> Self {
        Splitter {
            buf: Vec::new(),
            overflow: false,
        }
    }

    /// Feeds one chunk.
    pub fn push(&mut self, mut chunk: &[u8], f: &mut dyn FnMut(Rec<'_>)) {
        while let Some(nl) = memchr::memchr(b'\n', chunk) {
            let (line, rest) = (&chunk[..nl], &chunk[nl + 1..]);
            if self.buf.is_empty() && !self.overflow {
                if line.len() <= MAX_RECORD {
                    f(Rec::Whole(line));
                } else {
                    f(Rec::Cut(&line[..MAX_RECORD]));
                }
            } else {
                self.append(line);
                if self.overflow {
                    f(Rec::Cut(&self.buf));
                } else {
                    f(Rec::Whole(&self.buf));
                }
                self.buf.clear();
                self.overflow = false;
            }
            chunk = rest;
        }
        self.append(chunk);
    }

    fn append(&mut self, bytes: &[u8]) {
        let room = MAX_RECORD.saturating_sub(self.buf.len());
        if bytes.len() > room {
            self.overflow = true;
        }
        self.buf.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// Ends the stream: an unterminated last line is a cut record.
    pub fn finish(&mut self, f: &mut dyn FnMut(Rec<'_>)) {
        if !self.buf.is_empty() {
            f(Rec::Cut(&self.buf));
        }
        self.buf.clear();
        self.overflow = false;
    }
}

impl Default for Splitter {
    fn default() -> Self {
        Self::new()
    }
}

/// Splits in-memory bytes, as read to `depth`.
pub fn records_of_bytes(bytes: &[u8], depth: Depth, f: &mut dyn FnMut(Rec<'_>)) -> ReadStats {
    let (bytes, hit_bound) = match depth {
        Depth::Prefix(n) if bytes.len() > n => (&bytes[..n], true),
        _ => (bytes, false),
    };
    let mut s = Splitter::new();
    s.push(bytes, f);
    s.finish(f);
    ReadStats {
        bytes: bytes.len() as u64,
        hit_bound,
        modified: None,
    }
}

/// Splits bytes held whole into records, as a [`Splitter`] fed them and
/// finished would, without copying the unterminated last line.
fn split_all(mut bytes: &[u8], f: &mut dyn FnMut(Rec<'_>)) {
    while let Some(nl) = memchr::memchr(b'\n', bytes) {
        let line = &bytes[..nl];
        if line.len() <= MAX_RECORD {
            f(Rec::Whole(line));
        } else {
            f(Rec::Cut(&line[..MAX_RECORD]));
        }
        bytes = &bytes[nl + 1..];
    }
    if !bytes.is_empty() {
        f(Rec::Cut(&bytes[..bytes.len().min(MAX_RECORD)]));
    }
}

thread_local! {
    /// The read buffer of [`records_of_open`], one per thread.
    static CHUNK: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
    /// One zstd decompression context per thread, reused across files
    /// (creating one per file costs more than reading a prefix).
    #[cfg(feature = "zstd")]
    static DCTX: RefCell<Option<DCtx<'static>>> = const { RefCell::new(None) };
}

/// Counts the bytes a reader hands out.
struct Counting<R> {
    inner: R,
    count: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

/// Whether `path` names a zstd-compressed session file.
pub fn is_zstd(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "zst")
}

/// Reads the records of one file to `depth`.
pub fn records_of_file(
    path: &Path,
    depth: Depth,
    f: &mut dyn FnMut(Rec<'_>),
) -> io::Result<ReadStats> {
    // Never blocks on a FIFO or device, and refuses what is not a regular
    // file (crate::file).
    let (file, meta) = crate::file::open_with_metadata(path, crate::file::Kind::Session)?;
    records_of_open(file, &meta, is_zstd(path), depth, f)
}

/// Every record of the file as JSON, or `None` when one of them is not
/// whole JSON (cut by a bound, half-written, or garbage): a rule that must
/// see the whole file ([`crate::resumable`]) cannot judge it.
pub(crate) fn json_records(path: &Path, depth: Depth) -> Option<Vec<serde_json::Value>> {
    let mut out = Vec::new();
    let mut broken = false;
    let stats = records_of_file(path, depth, &mut |rec| {
        let bytes = match rec {
            Rec::Whole(b) | Rec::Cut(b) => b,
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        // An unterminated last line that is still whole JSON is a record;
        // anything else cut short leaves the file undecided.
        match serde_json::from_slice::<serde_json::Value>(bytes) {
            Ok(v) => out.push(v),
            Err(_) => broken = true,
        }
    })
    .ok()?;
    (!broken && !stats.hit_bound).then_some(out)
}

/// [`records_of_file`] of a file already opened and checked through
/// [`crate::file`], with what its `fstat` saw; `zstd` when its name says it
/// is compressed.
pub fn records_of_open(
    file: File,
    meta: &Metadata,
    zstd: bool,
    depth: Depth,
    f: &mut dyn FnMut(Rec<'_>),
) -> io::Result<ReadStats> {
    if zstd && !ZSTD_READER {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "built without the zstd reader",
        ));
    }
    let (disk_limit, out_limit) = match depth {
        Depth::Prefix(n) => {
            let n = n as u64;
            if zstd {
                (n.saturating_mul(ZSTD_INPUT_FACTOR), n)
            } else {
                (n, n)
            }
        }
        Depth::Full => (MAX_SESSION_FILE, u64::MAX),
    };
    let mut disk = Counting {
        inner: file.take(disk_limit),
        count: 0,
    };
    let mut splitter = Splitter::new();
    let mut out = 0u64;
    // A plain file is read to the size its open handle reported: the read
    // that would only say "end of file" is not made. Bytes appended after the
    // open are not seen, as if the open had come a moment later.
    let size = if zstd { u64::MAX } else { meta.len() };
    let chunk_len = usize::try_from(out_limit.min(size).min(64 * 1024)).unwrap_or(64 * 1024);
    // One buffer per thread, reused from file to file: a fresh one per file
    // costs an allocation and new pages. Taken out while in use, so a
    // nested read simply makes its own.
    let mut held = CHUNK.take();
    if held.len() < chunk_len.max(1) {
        held.resize(chunk_len.max(1), 0);
    }
    let chunk = &mut held[..chunk_len.max(1)];
    let mut hit_bound = false;
    let mut failed = None;
    if zstd {
        #[cfg(feature = "zstd")]
        DCTX.with_borrow_mut(|slot| {
            let ctx = slot.get_or_insert_with(|| {
                let mut c = DCtx::create();
                // Cannot fail for a value inside zstd's own bounds.
                let _ = c.set_parameter(DParameter::WindowLogMax(ZSTD_WINDOW_LOG_MAX));
                c
            });
            let input = BufReader::with_capacity(16 * 1024, &mut disk);
            let mut dec = zstd::stream::read::Decoder::with_context(input, ctx);
            loop {
                let want = usize::try_from((out_limit - out).min(chunk.len() as u64)).unwrap_or(0);
                if want == 0 {
                    hit_bound = true;
                    break;
                }
                // A frame cut by the bound (or a damaged one) ends the stream:
                // what decoded so far is kept.
                let n = match dec.read(&mut chunk[..want]) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                out += n as u64;
                splitter.push(&chunk[..n], f);
            }
        });
    } else if chunk_len as u64 == out_limit.min(size) {
        // All that is read fits in the buffer: read it whole, then split it
        // where it lies (the last line is not copied aside to be joined).
        let mut got = 0;
        while got < chunk_len {
            match disk.read(&mut chunk[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        hit_bound = got as u64 == out_limit && out_limit < size;
        if failed.is_none() {
            split_all(&chunk[..got], f);
        }
    } else {
        loop {
            if out >= size {
                break;
            }
            let want = usize::try_from((out_limit - out).min(chunk.len() as u64)).unwrap_or(0);
            if want == 0 {
                hit_bound = true;
                break;
            }
            let n = match disk.read(&mut chunk[..want]) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            };
            out += n as u64;
            splitter.push(&chunk[..n], f);
        }
    }
    CHUNK.set(held);
    if let Some(e) = failed {
        return Err(e);
    }
    splitter.finish(f);
    Ok(ReadStats {
        bytes: disk.count,
        hit_bound: hit_bound || (disk_limit != u64::MAX && disk.count >= disk_limit),
        modified: meta.modified().ok(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]]) -> Vec<(bool, Vec<u8>)> {
        let mut out = Vec::new();
        let mut s = Splitter::new();
        let mut f = |r: Rec<'_>| match r {
            Rec::Whole(b) => out.push((true, b.to_vec())),
            Rec::Cut(b) => out.push((false, b.to_vec())),
        };
        for c in chunks {
            s.push(c, &mut f);
        }
        s.finish(&mut f);
        out
    }

    #[test]
    fn records_split_across_chunks_are_joined_and_the_unterminated_tail_is_cut() {
        let got = split(&[b"{\"a\":1}\n{\"b\"", b":2}\n{\"c\":"]);
        assert_eq!(
            got,
            [
                (true, b"{\"a\":1}".to_vec()),
                (true, b"{\"b\":2}".to_vec()),
                (false, b"{\"c\":".to_vec())
            ]
        );
    }

    #[test]
    fn a_file_is_read_to_its_size_or_its_bound_and_only_the_bound_counts_as_hit() {
        let dir = tempfile::tempdir().expect("tempdir");
        for (len, read, hit) in [
            (0, 0, false),
            (100, 100, false),
            (4096, 4096, true),
            (5000, 4096, true),
        ] {
            let p = dir.path().join(format!("{len}.jsonl"));
            let body: Vec<u8> = (0..len)
                .map(|i| if i % 50 == 49 { b'\n' } else { b'x' })
                .collect();
            std::fs::write(&p, &body).expect("writes");
            let mut seen = Vec::new();
            let st = records_of_file(&p, Depth::FAST, &mut |r| match r {
                Rec::Whole(b) | Rec::Cut(b) => seen.extend_from_slice(b),
            })
            .expect("reads");
            assert_eq!((st.bytes, st.hit_bound), (read, hit), "{len} bytes");
            assert_eq!(
                seen.len() as u64,
                read - read / 50,
                "{len} bytes, without newlines"
            );
            let mtime = std::fs::metadata(&p).and_then(|m| m.modified()).ok();
            assert_eq!(st.modified, mtime, "the time is the open file's");
        }
    }

    #[test]
    fn prefix_of_bytes_stops_at_its_bound() {
        let mut n = 0;
        let st = records_of_bytes(b"0123456789\nabc\n", Depth::Prefix(4), &mut |r| {
            assert_eq!(r, Rec::Cut(b"0123"));
            n += 1;
        });
        assert_eq!((n, st.bytes, st.hit_bound), (1, 4, true));
    }
}
