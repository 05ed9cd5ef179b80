//! Lines as `read` sees them: counting them (and how they end) in one pass, the per-daemon cache
//! of counts, sniffing binary files, and pulling a window of lines through a buffered reader
//! without holding more than the caller keeps.

use super::{LineRange, TextRead, COUNT_LIMIT, READ_BUFFER, SNIFF_BYTES};
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Seek, SeekFrom};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::PathBuf;
use std::sync::Mutex;

/// Line counts of files already seen. A daemon reads the same files again and again, and counting
/// the lines of a 30 MB file costs milliseconds; a count is reused while the file's identity, size,
/// mtime and ctime are unchanged.
#[derive(Default)]
pub struct LineCounts {
    pub(super) seen: Mutex<HashMap<(u64, u64), (FileVersion, Counted)>>,
}

/// What one pass over a whole file learned: its line count and how its lines end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Counted {
    pub(super) lines: u64,
    pub(super) line_ending: LineEnding,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum LineEnding {
    None,
    Lf,
    Crlf,
    Mixed,
}

impl LineEnding {
    pub(super) fn of(newlines: u64, crlf: u64) -> LineEnding {
        match (newlines, crlf) {
            (0, _) => LineEnding::None,
            (_, 0) => LineEnding::Lf,
            (n, c) if n == c => LineEnding::Crlf,
            _ => LineEnding::Mixed,
        }
    }

    pub(super) fn as_str(self) -> &'static str {
        match self {
            LineEnding::None => "none",
            LineEnding::Lf => "lf",
            LineEnding::Crlf => "crlf",
            LineEnding::Mixed => "mixed",
        }
    }
}

pub(super) type FileVersion = (u64, i64, i64, i64, i64);
/// Entries kept before the cache starts over (each is a few dozen bytes).
pub(super) const LINE_COUNT_ENTRIES: usize = 4096;

impl LineCounts {
    /// The file's line count and line ending, from the cache or by counting (and caching) them.
    pub(super) fn total(&self, file: &File, meta: &std::fs::Metadata) -> io::Result<Counted> {
        if let Some(count) = self.cached(meta) {
            return Ok(count);
        }
        let count = count_lines(file)?;
        self.remember(meta, count);
        Ok(count)
    }

    /// Records a count taken elsewhere (a `stat` counts while it hashes).
    pub(super) fn remember(&self, meta: &std::fs::Metadata, count: Counted) {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.len() >= LINE_COUNT_ENTRIES {
            seen.clear();
        }
        seen.insert(identity(meta), (version(meta), count));
    }

    /// The count when it is cached or cheap to take (files up to `COUNT_LIMIT`).
    pub(super) fn total_if_cheap(
        &self,
        file: &File,
        meta: &std::fs::Metadata,
    ) -> io::Result<Option<Counted>> {
        if meta.len() <= COUNT_LIMIT {
            return self.total(file, meta).map(Some);
        }
        Ok(self.cached(meta))
    }

    pub(super) fn cached(&self, meta: &std::fs::Metadata) -> Option<Counted> {
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.get(&identity(meta))
            .filter(|(v, _)| *v == version(meta))
            .map(|(_, count)| *count)
    }
}

pub(super) fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    (meta.dev(), meta.ino())
}

pub(super) fn version(meta: &std::fs::Metadata) -> FileVersion {
    (
        meta.size(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
    )
}

/// What the first bytes of a file say about it.
pub(super) struct Sniff {
    pub(super) binary: bool,
}

impl Sniff {
    pub(super) fn of(handle: &File) -> io::Result<Sniff> {
        let mut buf = vec![0u8; SNIFF_BYTES];
        let mut filled = 0;
        while filled < buf.len() {
            let n = handle.read_at(&mut buf[filled..], filled as u64)?;
            if n == 0 {
                break;
            }
            filled += n;
        }
        Ok(Sniff::of_bytes(&buf[..filled]))
    }

    pub(super) fn of_bytes(bytes: &[u8]) -> Sniff {
        Sniff {
            binary: memchr::memchr(0, bytes).is_some(),
        }
    }
}

/// Lines pulled from a file, with where they started and stopped.
pub(super) struct Window {
    pub(super) text: Vec<u8>,
    pub(super) first: u64,
    /// Last line included; `first - 1` when none was.
    pub(super) last: u64,
    /// The first line not returned because the byte cap was hit.
    pub(super) cut_before: Option<u64>,
    /// The last line returned was itself cut at the byte cap.
    pub(super) line_cut: bool,
    /// Lines that exist past `last` (only known when the window reached the end or counting was on).
    pub(super) total: Option<u64>,
    /// Lines read through, for the past-the-end message.
    pub(super) lines_seen: u64,
    /// How the lines read through end, and whether they were the whole file.
    pub(super) line_ending: LineEnding,
    pub(super) saw_end: bool,
}

impl Window {
    pub(super) fn past_end(&self, start: u64) -> bool {
        start > 1 && self.last < start && self.total.is_some_and(|t| t < start)
    }

    pub(super) fn into_result(
        self,
        path: PathBuf,
        size: u64,
        range: &LineRange,
        line_ending: &'static str,
        scope: &'static str,
    ) -> TextRead {
        let (content, lossy) = decode_text(self.text, self.line_cut);
        let more_after_cap = range.capped && self.total.is_none_or(|t| t > self.last);
        let (truncated, reason, next) = if let Some(next) = self.cut_before {
            (true, Some("max_bytes"), Some(next))
        } else if more_after_cap && self.last == range.end.unwrap_or(u64::MAX) {
            (true, Some("line_cap"), Some(self.last + 1))
        } else {
            (false, None, None)
        };
        TextRead {
            path,
            start: self.first,
            end: self.last,
            total_lines: self.total,
            size,
            encoding: "text",
            line_ending,
            line_ending_scope: scope,
            truncated,
            next_start: next,
            truncated_reason: reason,
            version: None,
            lossy_utf8: lossy,
            line_cut: self.line_cut,
            content,
        }
    }
}

/// Text for the wire: invalid UTF-8 replaced (and flagged), a code point split by a cut dropped.
/// Valid text is not copied.
pub(super) fn decode_text(mut bytes: Vec<u8>, cut: bool) -> (String, bool) {
    if cut {
        if let Err(e) = std::str::from_utf8(&bytes) {
            if e.error_len().is_none() {
                bytes.truncate(e.valid_up_to());
            }
        }
    }
    match String::from_utf8(bytes) {
        Ok(text) => (text, false),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true),
    }
}

/// Reads lines one at a time from a buffered reader, never holding more than the caller keeps.
pub(super) struct Lines<'f> {
    pub(super) reader: BufReader<&'f File>,
    /// Number of the next line to be read.
    pub(super) next: u64,
    /// Lines read so far that ended in `\n`, and those of them that ended in `\r\n`.
    pub(super) newlines: u64,
    pub(super) crlf: u64,
}

impl<'f> Lines<'f> {
    pub(super) fn new(file: &'f File) -> io::Result<Self> {
        let mut reader = BufReader::with_capacity(READ_BUFFER, file);
        reader.seek(SeekFrom::Start(0))?;
        Ok(Lines {
            reader,
            next: 1,
            newlines: 0,
            crlf: 0,
        })
    }

    pub(super) fn line_ending(&self) -> LineEnding {
        LineEnding::of(self.newlines, self.crlf)
    }

    /// Reads the next line (with its newline), appending at most `keep` bytes of it to `out`.
    /// Returns the line's full length, or `None` at end of file.
    pub(super) fn next_line(
        &mut self,
        out: &mut Vec<u8>,
        keep: usize,
    ) -> io::Result<Option<usize>> {
        let mut len = 0;
        // The byte before the newline, which may sit in the previous buffer.
        let mut before = None;
        loop {
            let buf = self.reader.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            let (chunk, done) = match memchr::memchr(b'\n', buf) {
                Some(i) => (&buf[..=i], true),
                None => (buf, false),
            };
            if done {
                self.newlines += 1;
                let cr = match chunk.len() {
                    1 => before == Some(b'\r'),
                    n => chunk[n - 2] == b'\r',
                };
                self.crlf += u64::from(cr);
            }
            before = chunk.last().copied();
            let room = keep.saturating_sub(len);
            out.extend_from_slice(&chunk[..chunk.len().min(room)]);
            len += chunk.len();
            let used = chunk.len();
            self.reader.consume(used);
            if done {
                break;
            }
        }
        if len == 0 {
            return Ok(None);
        }
        self.next += 1;
        Ok(Some(len))
    }
}

/// Counts lines as the window reader sees them (every newline, plus an unterminated last line) and
/// how they end, in one look at each chunk. A `\r` is rare outside CRLF files, so finding them costs
/// next to nothing on the usual LF text.
#[derive(Default)]
pub(super) struct LineTally {
    pub(super) newlines: u64,
    pub(super) crlf: u64,
    pub(super) ends_open: bool,
    /// The previous chunk ended in `\r`: a `\n` starting this one closes a CRLF.
    pub(super) open_cr: bool,
}

impl LineTally {
    pub(super) fn feed(&mut self, chunk: &[u8]) {
        let Some(&last) = chunk.last() else {
            return;
        };
        self.newlines += memchr::memchr_iter(b'\n', chunk).count() as u64;
        let split_crlf = self.open_cr && chunk[0] == b'\n';
        let crlf = memchr::memchr_iter(b'\r', chunk)
            .filter(|&i| chunk.get(i + 1) == Some(&b'\n'))
            .count();
        self.crlf += crlf as u64 + u64::from(split_crlf);
        self.ends_open = last != b'\n';
        self.open_cr = last == b'\r';
    }

    pub(super) fn counted(&self) -> Counted {
        Counted {
            lines: self.newlines + u64::from(self.ends_open),
            line_ending: LineEnding::of(self.newlines, self.crlf),
        }
    }
}

/// Streams the whole file through `on_chunk`, from the start, without holding more than a buffer.
pub(super) fn scan(file: &File, mut on_chunk: impl FnMut(&[u8])) -> io::Result<()> {
    let mut reader = BufReader::with_capacity(READ_BUFFER, file);
    reader.seek(SeekFrom::Start(0))?;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        on_chunk(buf);
        let used = buf.len();
        reader.consume(used);
    }
}

pub(super) fn count_lines(file: &File) -> io::Result<Counted> {
    let mut tally = LineTally::default();
    scan(file, |chunk| tally.feed(chunk))?;
    Ok(tally.counted())
}
