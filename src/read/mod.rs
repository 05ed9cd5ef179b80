//! `read`: line windows, head/tail, byte caps, base64, stat probes and batch reads.
//!
//! Files are streamed through a buffered reader: a window of 50 lines out of a 1 GB file reads up to
//! those lines and no further. `total_lines` comes from a per-daemon cache of line counts, taken on
//! first sight for files up to `COUNT_LIMIT` (and always for `tail`).
//!
//! `line_ending` comes from the same pass that counts lines, so it describes the whole file whenever
//! the file was counted (or `stat` hashed it); a window of a file too large to count describes the
//! lines it read through and says so with `line_ending_scope: "window"`.

mod lines;

use base64::Engine;
use coderd_core::config::Limits;
use coderd_core::documents::Documents;
use coderd_core::error::{Error, Result};
use coderd_core::jail::{Jail, Resolved};
use coderd_core::workspace::Workspace;
pub use lines::LineCounts;
use lines::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::PathBuf;

/// A read without a range returns at most this many lines, with a `next_start` to continue.
pub const UNRANGED_LINE_CAP: u64 = 2000;
/// Bytes of content per read unless the caller asks for another cap (never above `max_read_bytes`),
/// or less: see `default_max_bytes`.
pub const DEFAULT_MAX_BYTES: u64 = 200_000;

/// The cap of a read that names none: never above the call's budget for a whole-file read
/// (`whole_read_budget`), so a window over a file never answers more than reading it whole may.
pub fn default_max_bytes(limits: &Limits, asked_budget: Option<u64>) -> u64 {
    DEFAULT_MAX_BYTES.min(whole_read_budget(limits, asked_budget))
}

/// A whole-file read's budget: the call's `max_output_bytes` (clamped to `max_read_bytes`), else
/// the config's.
fn whole_read_budget(limits: &Limits, asked: Option<u64>) -> u64 {
    asked.map_or(limits.max_output_bytes, |b| b.min(limits.max_read_bytes))
}
/// How much of a file's start is looked at to tell binary from text.
const SNIFF_BYTES: usize = 8192;
/// Files up to this size get an exact `total_lines` with every window; larger ones only on `stat`/`tail`.
const COUNT_LIMIT: u64 = 64 * 1024 * 1024;
const READ_BUFFER: usize = 64 * 1024;

#[derive(Deserialize, JsonSchema, Default, Clone, Debug)]
#[serde(deny_unknown_fields)]
pub struct ReadParams {
    /// The file to read (relative paths resolve against the primary root).
    pub file: Option<String>,
    /// First line of the window (1-based, inclusive).
    pub start: Option<u64>,
    /// Last line of the window (1-based, inclusive).
    pub end: Option<u64>,
    /// The first N lines.
    pub head: Option<u64>,
    /// The last N lines (counts every line of the file).
    pub tail: Option<u64>,
    /// Cap on the content returned (default 200000, or the whole-read budget `max_output_bytes` if
    /// smaller; never above `max_read_bytes`); a cut stops at a line boundary with `truncated:
    /// true` and `next_start`.
    pub max_bytes: Option<u64>,
    /// This call's budget for a whole-file read (default: the config's `max_output_bytes`;
    /// clamped to `max_read_bytes`), as iii's `coder::read-file` takes it.
    pub max_output_bytes: Option<u64>,
    /// `text` (default) or `base64` (byte windows through `offset`/`length`).
    pub encoding: Option<Encoding>,
    /// Prefix each line with its number, as `cat -n` does.
    pub numbered: Option<bool>,
    /// Answer the file's facts instead of its content: size, lines, line ending, mtime, sha256,
    /// version.
    pub stat: Option<bool>,
    /// Byte window for `encoding: base64`.
    pub offset: Option<u64>,
    /// Bytes in the window for `encoding: base64`.
    pub length: Option<u64>,
    /// A batch: paths, or objects with their own options; the other params are defaults for each
    /// item, and all content shares `batch_read_budget_bytes`.
    pub paths: Option<Vec<BatchItem>>,
    /// An item of the file's outline by name (dotted for nesting: `Server.handle`, `impl Foo.bar`,
    /// `impl fmt::Debug for Foo.fmt`; `@LINE` picks one of several: `Foo.fmt@120`): reads exactly
    /// its lines, with its doc comment and decorators.
    pub symbol: Option<String>,
    /// The client's session: the daemon remembers the version it read, so a later line-number
    /// edit from an outdated read is refused (C212).
    pub session: Option<String>,
}

#[derive(Deserialize, JsonSchema, Clone, Copy, Debug, PartialEq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    #[default]
    Text,
    Base64,
}

/// One entry of a batch: a bare path, or a path with its own options.
#[derive(Deserialize, JsonSchema, Clone, Debug)]
#[serde(untagged)]
pub enum BatchItem {
    Path(String),
    Spec(Box<ReadParams>),
}

/// Whether a read (params as sent, dashed keys or not) is heavy for the memory policy: a batch, a
/// stat (hashes the whole file), a tail (counts every line), or one that may return more than
/// `DEFAULT_MAX_BYTES`. A ranged read with the default cap is light.
pub fn is_heavy(params: &Value) -> bool {
    let get = |key: &str| {
        params
            .get(key)
            .or(params.get(key.replace('_', "-").as_str()))
    };
    let big =
        |key: &str| get(key).is_some_and(|v| v.as_u64().is_none_or(|n| n > DEFAULT_MAX_BYTES));
    get("paths").is_some()
        || get("stat").is_some_and(|v| v != &Value::Bool(false))
        || get("tail").is_some()
        || big("max_bytes")
        || (get("encoding").is_some_and(|e| e == "base64")
            && get("length").is_none_or(|n| n.as_u64().is_none_or(|n| n > DEFAULT_MAX_BYTES)))
}

/// What a read returns, serialized straight into the response (no JSON tree is built).
#[derive(Serialize)]
#[serde(untagged)]
pub enum ReadResult {
    Text(TextRead),
    Stat(StatRead),
    Base64(Base64Read),
    Batch(BatchRead),
}

#[derive(Serialize)]
pub struct TextRead {
    path: PathBuf,
    start: u64,
    end: u64,
    total_lines: Option<u64>,
    size: u64,
    encoding: &'static str,
    line_ending: &'static str,
    line_ending_scope: &'static str,
    truncated: bool,
    next_start: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    truncated_reason: Option<&'static str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    lossy_utf8: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    line_cut: bool,
    /// The whole file's version (pass it back as an edit's `expect_version`).
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<String>,
    content: String,
}

#[derive(Serialize)]
pub struct StatRead {
    path: PathBuf,
    kind: &'static str,
    size: u64,
    total_lines: u64,
    mtime_ms: Option<u64>,
    sha256: String,
    binary: bool,
    line_ending: &'static str,
    line_ending_scope: &'static str,
    version: String,
}

#[derive(Serialize)]
pub struct Base64Read {
    path: PathBuf,
    encoding: &'static str,
    size: u64,
    offset: u64,
    length: usize,
    truncated: bool,
    next_offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<String>,
    content: String,
}

#[derive(Serialize)]
pub struct BatchRead {
    results: Vec<BatchEntry>,
    budget_bytes: u64,
    used_bytes: u64,
    truncated: bool,
    skipped: usize,
}

#[derive(Serialize)]
#[serde(untagged)]
enum BatchEntry {
    Read(ReadResult),
    Skipped {
        file: String,
        skipped: bool,
        reason: &'static str,
        recovery: &'static str,
    },
    Failed {
        file: String,
        error: ItemError,
    },
}

#[derive(Serialize)]
struct ItemError {
    code: &'static str,
    message: String,
    recovery: Option<String>,
}

impl ReadResult {
    fn content_len(&self) -> u64 {
        match self {
            ReadResult::Text(t) => t.content.len() as u64,
            ReadResult::Base64(b) => b.content.len() as u64,
            _ => 0,
        }
    }

    fn truncated(&self) -> bool {
        match self {
            ReadResult::Text(t) => t.truncated,
            ReadResult::Base64(b) => b.truncated,
            ReadResult::Batch(b) => b.truncated,
            ReadResult::Stat(_) => false,
        }
    }
}

pub fn handle(state: &Workspace, line_counts: &LineCounts, p: ReadParams) -> Result<ReadResult> {
    let limits = state.limits();
    let ctx = Ctx {
        jail: &state.jail,
        limits: &limits,
        counts: line_counts,
        documents: &state.documents,
    };
    match (&p.file, &p.paths) {
        (Some(_), Some(_)) => Err(Error::bad_input("give either `file` or `paths`, not both")),
        (None, None) => Err(
            Error::bad_input("missing field `file` (or `paths` for a batch read)")
                .with_recovery(r#"{"file": "src/main.rs", "start": 1, "end": 50}"#),
        ),
        (Some(file), None) => read_one(&ctx, file, &p, None),
        (None, Some(items)) => read_batch(&ctx, &p, items),
    }
}

/// What a read needs from the daemon.
struct Ctx<'a> {
    jail: &'a Jail,
    limits: &'a Limits,
    counts: &'a LineCounts,
    documents: &'a Documents,
}

/// Reads one file. `budget` is what a batch still allows; `None` outside a batch. The answer
/// carries the file's version, and the session (if named) remembers it.
fn read_one(ctx: &Ctx, file: &str, p: &ReadParams, budget: Option<u64>) -> Result<ReadResult> {
    validate(p)?;
    let resolved = ctx.jail.resolve("file", file)?;
    if let Some(symbol) = &p.symbol {
        let (start, end) = coderd_syntax::symbol::lines_in_file(
            ctx.jail,
            &resolved,
            symbol,
            ctx.limits.max_read_bytes,
        )?;
        let window = ReadParams {
            start: Some(start),
            end: Some(end),
            symbol: None,
            ..p.clone()
        };
        return read_one(ctx, file, &window, budget);
    }
    let (handle, meta) = ctx.jail.open_file(&resolved)?;
    let mut result = read_opened(ctx, file, p, budget, &resolved, &handle, &meta)?;
    if coderd_core::credentials::is_git_config(&resolved.rel) {
        mask_git_config(&mut result, file)?;
    }
    let version = match &mut result {
        ReadResult::Stat(stat) => Some(stat.version.clone()),
        ReadResult::Text(TextRead { version, .. })
        | ReadResult::Base64(Base64Read { version, .. }) => {
            *version = version_of(ctx, &resolved, &meta);
            version.clone()
        }
        ReadResult::Batch(_) => None,
    };
    if let (Some(session), Some(version)) = (&p.session, version) {
        ctx.documents
            .sessions
            .note_read(session, &resolved.abs, &version);
    }
    Ok(result)
}

/// A git config's remote URLs may carry credentials: their userinfo is masked in the text, and
/// the bytes (base64) are refused.
fn mask_git_config(result: &mut ReadResult, file: &str) -> Result<()> {
    match result {
        ReadResult::Text(text) => {
            text.content = coderd_core::credentials::mask_url_credentials(&text.content).into_owned();
            Ok(())
        }
        ReadResult::Base64(_) => Err(Error::refused(format!(
            "`file`: {file} is a git config, whose URLs may carry credentials; its bytes are not shown"
        ))
        .with_recovery("read it as text: the URLs' userinfo is masked there")),
        ReadResult::Stat(_) | ReadResult::Batch(_) => Ok(()),
    }
}

/// The version of the file read through a handle opened with `meta`: the documents store's, when
/// the file it holds is that one (a file changed since the open gets none, and neither does one
/// over `max_write_bytes`, which no edit could take anyway).
fn version_of(ctx: &Ctx, resolved: &Resolved, meta: &std::fs::Metadata) -> Option<String> {
    let doc = ctx
        .documents
        .load(
            ctx.jail,
            resolved,
            ctx.limits.max_write_bytes,
            ctx.limits.documents_max_bytes,
        )
        .ok()?;
    doc.stamp.describes(meta).then(|| doc.version())
}

fn read_opened(
    ctx: &Ctx,
    file: &str,
    p: &ReadParams,
    budget: Option<u64>,
    resolved: &Resolved,
    handle: &File,
    meta: &std::fs::Metadata,
) -> Result<ReadResult> {
    let (limits, counts) = (ctx.limits, ctx.counts);
    let size = meta.len();
    if p.stat == Some(true) {
        return stat(resolved, handle, meta, counts);
    }
    let asked = p
        .max_bytes
        .unwrap_or_else(|| default_max_bytes(limits, p.max_output_bytes))
        .min(limits.max_read_bytes);
    let cap = budget.map_or(asked, |b| b.min(asked));
    if p.encoding == Some(Encoding::Base64) {
        return read_base64(resolved, handle, size, p, cap);
    }
    let sniff = Sniff::of(handle).map_err(|e| Error::from_io(&e, &resolved.abs))?;
    if sniff.binary {
        return Err(Error::bad_input(format!(
            "{} is a binary file; text mode refuses it",
            resolved.abs.display()
        ))
        .with_recovery(format!(
            r#"read it as base64: {{"file": {:?}, "encoding": "base64"}}"#,
            file
        ))
        .with_data("size", size));
    }
    let io_err = |e: io::Error| Error::from_io(&e, &resolved.abs);
    let counted = match p.tail {
        Some(_) => Some(counts.total(handle, meta).map_err(io_err)?),
        None => counts.total_if_cheap(handle, meta).map_err(io_err)?,
    };
    let total = counted.map(|c| c.lines);
    let range = choose_range(resolved, file, size, total, p, limits, budget.is_some())?;
    let window = read_window(
        handle,
        &range,
        cap as usize,
        total,
        p.numbered == Some(true),
    )
    .map_err(io_err)?;
    if window.past_end(range.start) {
        return Err(past_end_error(file, range.start, window.lines_seen));
    }
    // The whole file's ending when it was counted, else what the window read through (which is the
    // whole file when it reached the end).
    let (line_ending, scope) = match counted {
        Some(c) => (c.line_ending, "file"),
        None if window.saw_end => (window.line_ending, "file"),
        None => (window.line_ending, "window"),
    };
    Ok(ReadResult::Text(window.into_result(
        resolved.abs.clone(),
        size,
        &range,
        line_ending.as_str(),
        scope,
    )))
}

fn validate(p: &ReadParams) -> Result<()> {
    let ranged = p.start.is_some() || p.end.is_some();
    if p.symbol.is_some() && (ranged || p.head.is_some() || p.tail.is_some() || p.stat.is_some()) {
        return Err(Error::bad_input(
            "`symbol` picks the lines itself; drop `start`/`end`, `head`, `tail` and `stat`",
        ));
    }
    let modes = [ranged, p.head.is_some(), p.tail.is_some()]
        .iter()
        .filter(|m| **m)
        .count();
    if modes > 1 {
        return Err(Error::bad_input(
            "`start`/`end`, `head` and `tail` exclude each other; pick one",
        ));
    }
    if p.start == Some(0) || p.end == Some(0) {
        return Err(Error::bad_input(
            "`start` and `end` are 1-based line numbers; 0 is not a line",
        ));
    }
    if let (Some(s), Some(e)) = (p.start, p.end) {
        if e < s {
            return Err(Error::bad_input(format!(
                "`end` ({e}) is before `start` ({s})"
            )));
        }
    }
    if p.head == Some(0) || p.tail == Some(0) {
        return Err(Error::bad_input("`head`/`tail` must be at least 1"));
    }
    if p.max_bytes == Some(0) {
        return Err(Error::bad_input("`max_bytes` must be at least 1"));
    }
    let base64 = p.encoding == Some(Encoding::Base64);
    if base64 && (ranged || p.head.is_some() || p.tail.is_some() || p.numbered == Some(true)) {
        return Err(Error::bad_input(
            "`encoding: base64` reads bytes: use `offset`/`length`, not line ranges or `numbered`",
        ));
    }
    if !base64 && (p.offset.is_some() || p.length.is_some()) {
        return Err(Error::bad_input(
            "`offset`/`length` go with `encoding: base64`; text reads take `start`/`end`",
        ));
    }
    Ok(())
}

/// The lines a text read covers, inclusive; `end: None` means "to the end of the file".
#[derive(Debug)]
struct LineRange {
    start: u64,
    end: Option<u64>,
    /// Set when the range was cut to `UNRANGED_LINE_CAP` because no range was given.
    capped: bool,
}

fn choose_range(
    resolved: &Resolved,
    file: &str,
    size: u64,
    total: Option<u64>,
    p: &ReadParams,
    limits: &Limits,
    in_batch: bool,
) -> Result<LineRange> {
    if p.start.is_some() || p.end.is_some() {
        return Ok(LineRange {
            start: p.start.unwrap_or(1),
            end: p.end,
            capped: false,
        });
    }
    if let Some(n) = p.head {
        return Ok(LineRange {
            start: 1,
            end: Some(n),
            capped: false,
        });
    }
    if let Some(n) = p.tail {
        return Ok(LineRange {
            start: total.unwrap_or(0).saturating_sub(n) + 1,
            end: None,
            capped: false,
        });
    }
    // A whole-file read. An explicit `max_bytes` means the caller accepts a cut, and a batch item
    // is governed by the batch budget instead (iii); otherwise an oversized file is refused with
    // the calls that would work.
    let budget = whole_read_budget(limits, p.max_output_bytes);
    if p.max_bytes.is_none() && !in_batch && size > budget {
        return Err(oversize_error(resolved, file, size, total, budget));
    }
    Ok(LineRange {
        start: 1,
        end: Some(UNRANGED_LINE_CAP),
        capped: true,
    })
}

fn oversize_error(
    resolved: &Resolved,
    file: &str,
    size: u64,
    total: Option<u64>,
    max_output: u64,
) -> Error {
    // Lines that fit in the output budget at this file's average line length.
    let fit = total.map_or(200, |t| {
        (t.saturating_mul(max_output) / size.max(1)).clamp(1, UNRANGED_LINE_CAP)
    });
    let calls = json!([
        {"method": "read", "params": {"file": file, "start": 1, "end": fit}},
        {"method": "read", "params": {"file": file, "tail": 100}},
        {"method": "read", "params": {"file": file, "stat": true}},
        {"method": "search", "params": {"pattern": "TEXT", "dir": file}},
    ]);
    Error::too_large(format!(
        "{} is {size} bytes{}, over max_output_bytes ({max_output}) for a whole-file read",
        resolved.abs.display(),
        total.map_or(String::new(), |t| format!(" in {t} lines")),
    ))
    .with_recovery(format!(
        "read a window instead: {{\"file\": {file:?}, \"start\": 1, \"end\": {fit}}}, or head/tail"
    ))
    .with_data("size", size)
    .with_data("total_lines", total)
    .with_data("max_output_bytes", max_output)
    .with_data("recovery_calls", calls)
}

fn past_end_error(file: &str, start: u64, lines: u64) -> Error {
    Error::bad_input(format!(
        "`start` {start} is past the end of {file}, which has {lines} lines"
    ))
    .with_recovery(format!(
        r#"read the end instead: {{"file": {file:?}, "tail": 50}}"#
    ))
    .with_data("total_lines", lines)
}

fn read_window(
    file: &File,
    range: &LineRange,
    cap: usize,
    known_total: Option<u64>,
    numbered: bool,
) -> io::Result<Window> {
    let mut lines = Lines::new(file)?;
    let mut scratch = Vec::new();
    while lines.next < range.start {
        if lines.next_line(&mut scratch, 0)?.is_none() {
            let seen = lines.next - 1;
            return Ok(Window {
                text: Vec::new(),
                first: range.start,
                last: range.start - 1,
                cut_before: None,
                line_cut: false,
                total: Some(seen),
                lines_seen: seen,
                line_ending: lines.line_ending(),
                saw_end: true,
            });
        }
    }
    let mut text = Vec::new();
    let mut line = Vec::new();
    let (mut cut_before, mut line_cut, mut at_eof) = (None, false, false);
    let end = range.end.unwrap_or(u64::MAX);
    while lines.next <= end {
        let number = lines.next;
        let prefix = if numbered {
            format!("{number:>6}\t")
        } else {
            String::new()
        };
        line.clear();
        line.extend_from_slice(prefix.as_bytes());
        let room = cap.saturating_sub(text.len());
        let Some(len) = lines.next_line(&mut line, room)? else {
            at_eof = true;
            break;
        };
        if prefix.len() + len > room {
            if text.is_empty() {
                // A single line larger than the cap: return its head rather than nothing.
                line.truncate(room);
                text.extend_from_slice(&line);
                line_cut = true;
                cut_before = Some(number + 1);
            } else {
                cut_before = Some(number);
            }
            break;
        }
        text.extend_from_slice(&line);
    }
    let last = cut_before.map_or(lines.next - 1, |n| n - 1);
    let total = if at_eof {
        Some(lines.next - 1)
    } else {
        known_total
    };
    Ok(Window {
        text,
        first: range.start,
        last,
        cut_before,
        line_cut,
        total,
        lines_seen: lines.next - 1,
        line_ending: lines.line_ending(),
        saw_end: at_eof,
    })
}

fn stat(
    resolved: &Resolved,
    handle: &File,
    meta: &std::fs::Metadata,
    counts: &LineCounts,
) -> Result<ReadResult> {
    let io_err = |e: io::Error| Error::from_io(&e, &resolved.abs);
    let sniff = Sniff::of(handle).map_err(io_err)?;
    let (sha256, version, counted) = hash_and_count(handle).map_err(io_err)?;
    counts.remember(meta, counted);
    let mtime_ms = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as u64);
    Ok(ReadResult::Stat(StatRead {
        path: resolved.abs.clone(),
        kind: "file",
        size: meta.len(),
        total_lines: counted.lines,
        mtime_ms,
        binary: sniff.binary,
        line_ending: counted.line_ending.as_str(),
        line_ending_scope: "file",
        version,
        sha256,
    }))
}

/// One streaming pass for the SHA-256 (what `sha256sum` prints), the version (a document's, from
/// its content hash), the line count and the line ending.
fn hash_and_count(file: &File) -> io::Result<(String, String, Counted)> {
    let mut sha256 = Sha256::new();
    let mut content = coderd_core::documents::stamp::ContentHasher::default();
    let mut tally = LineTally::default();
    scan(file, |chunk| {
        sha256.update(chunk);
        content.update(chunk);
        tally.feed(chunk);
    })?;
    let digest: String = sha256
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let version = coderd_core::documents::stamp::version_of_hash(&content.finish());
    Ok((digest, version, tally.counted()))
}

fn read_base64(
    resolved: &Resolved,
    handle: &File,
    size: u64,
    p: &ReadParams,
    cap: u64,
) -> Result<ReadResult> {
    let offset = p.offset.unwrap_or(0);
    if offset > size {
        return Err(Error::bad_input(format!(
            "`offset` {offset} is past the end of the file ({size} bytes)"
        )));
    }
    let wanted = p.length.unwrap_or(size - offset).min(size - offset);
    let take = wanted.min(cap);
    let mut bytes = Vec::with_capacity(take as usize);
    let mut reader = handle;
    reader
        .seek(SeekFrom::Start(offset))
        .map_err(|e| Error::from_io(&e, &resolved.abs))?;
    reader
        .take(take)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::from_io(&e, &resolved.abs))?;
    let truncated = (bytes.len() as u64) < wanted;
    let next_offset = truncated.then(|| offset + bytes.len() as u64);
    Ok(ReadResult::Base64(Base64Read {
        path: resolved.abs.clone(),
        encoding: "base64",
        size,
        offset,
        length: bytes.len(),
        truncated,
        next_offset,
        version: None,
        content: base64::engine::general_purpose::STANDARD.encode(&bytes),
    }))
}

/// A batch: each item read with the shared options as defaults, all under one byte budget.
/// A failing item carries its own error; it does not fail the batch.
fn read_batch(ctx: &Ctx, shared: &ReadParams, items: &[BatchItem]) -> Result<ReadResult> {
    if items.is_empty() {
        return Err(Error::bad_input("`paths` is empty"));
    }
    let budget = ctx.limits.batch_read_budget_bytes;
    let mut used = 0u64;
    let mut results = Vec::with_capacity(items.len());
    let mut skipped = 0;
    for item in items {
        let spec = merge(shared, item);
        let file = spec.file.clone().unwrap_or_default();
        let remaining = budget.saturating_sub(used);
        if remaining == 0 && spec.stat != Some(true) {
            skipped += 1;
            results.push(BatchEntry::Skipped {
                file,
                skipped: true,
                reason: "batch_read_budget_bytes exhausted",
                recovery: "read this file in a separate request",
            });
            continue;
        }
        match read_one(ctx, &file, &spec, Some(remaining)) {
            Ok(read) => {
                used += read.content_len();
                results.push(BatchEntry::Read(read));
            }
            Err(e) => results.push(BatchEntry::Failed {
                file,
                error: ItemError {
                    code: e.code.as_str(),
                    message: e.message,
                    recovery: e.recovery,
                },
            }),
        }
    }
    let truncated = skipped > 0
        || results
            .iter()
            .any(|r| matches!(r, BatchEntry::Read(read) if read.truncated()));
    Ok(ReadResult::Batch(BatchRead {
        results,
        budget_bytes: budget,
        used_bytes: used,
        truncated,
        skipped,
    }))
}

fn merge(shared: &ReadParams, item: &BatchItem) -> ReadParams {
    let mut spec = match item {
        BatchItem::Path(path) => ReadParams {
            file: Some(path.clone()),
            ..Default::default()
        },
        BatchItem::Spec(spec) => (**spec).clone(),
    };
    let has_own_range =
        spec.start.is_some() || spec.end.is_some() || spec.head.is_some() || spec.tail.is_some();
    if !has_own_range {
        spec.start = spec.start.or(shared.start);
        spec.end = spec.end.or(shared.end);
        spec.head = spec.head.or(shared.head);
        spec.tail = spec.tail.or(shared.tail);
    }
    spec.max_bytes = spec.max_bytes.or(shared.max_bytes);
    spec.encoding = spec.encoding.or(shared.encoding);
    spec.numbered = spec.numbered.or(shared.numbered);
    spec.stat = spec.stat.or(shared.stat);
    spec.session = spec.session.take().or_else(|| shared.session.clone());
    spec.paths = None;
    spec
}

#[cfg(test)]
mod tests;
