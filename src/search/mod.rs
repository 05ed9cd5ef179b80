//! `search`: literal or regex content search (and path search) over a jailed tree, built on
//! ripgrep's own crates: `ignore` walks in parallel honoring .gitignore, `grep-searcher` scans.
//!
//! Output is bounded twice: by a match count and by a byte budget for the whole response. Hitting
//! either stops the walk and sets `truncated`; it is never an error.

mod query;

use coderd_core::config::Limits;
use coderd_core::error::{Error, Result};
use coderd_core::globs::Globs;
use coderd_core::jail::{Jail, Resolved};
use coderd_core::memory::Policy;
use grep_matcher::Matcher;
use grep_regex::RegexMatcher;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::WalkState;
use query::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use wire::jsonw;

pub const DEFAULT_MAX_RESULTS: usize = 100;
pub const DEFAULT_CONTEXT: usize = 2;
pub const MAX_CONTEXT: usize = 10;
/// JSON overhead charged per returned line on top of its text, so the budget tracks the real response.
const LINE_OVERHEAD: usize = 48;
const FILE_OVERHEAD: usize = 64;
/// Files up to this size are read whole and searched as a slice; larger ones are streamed.
const SLURP_LIMIT: u64 = 4 * 1024 * 1024;

#[derive(Deserialize, JsonSchema, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    /// What to look for: literal text unless `regex` is set.
    pattern: Option<String>,
    /// `true` for regex mode, or the pattern itself (the flat atomic form `{"regex": "fo+"}`).
    regex: Option<RegexField>,
    /// Match `pattern` as literal text (the default).
    literal: Option<bool>,
    /// A folder to walk, or one file (default: the primary root).
    dir: Option<String>,
    /// Search only files matching these globs (ripgrep's glob rules).
    glob: Option<Globs>,
    /// Skip files matching these globs.
    exclude: Option<Globs>,
    /// `sensitive` (default), `insensitive`, or `smart` (insensitive unless the pattern has a
    /// capital).
    case: Option<Case>,
    /// Same as `case: insensitive`.
    ignore_case: Option<bool>,
    /// ChatCLI's flag: `true` is `case: sensitive` (the default), `false` is `case: insensitive`.
    case_sensitive: Option<bool>,
    /// Match whole words only.
    word: Option<bool>,
    /// Matches returned before the walk stops with `truncated: true` (default 100, capped by
    /// `search_default_max_matches`).
    max_results: Option<usize>,
    /// Lines of context around each match (default 2, at most 10).
    context: Option<usize>,
    /// Lines of context before each match (overrides `context`).
    before: Option<usize>,
    /// Lines of context after each match (overrides `context`).
    after: Option<usize>,
    /// Answer the matching files' paths, without lines.
    paths_only: Option<bool>,
    /// `content` (default) searches inside files; `paths` matches the pattern against relative
    /// paths.
    target: Option<Target>,
    /// Longer lines are clipped around the match (default: the config's
    /// `search_default_max_line_bytes`).
    max_line_bytes: Option<usize>,
    /// Honour `.gitignore`, `.ignore` and `.git/info/exclude` (default true).
    gitignore: Option<bool>,
    /// Search hidden files (default true).
    hidden: Option<bool>,
    /// Skip the default-excluded folders (`node_modules`, `target`, …; default true).
    use_default_excludes: Option<bool>,
    /// `json` (default): `files`, each with its line objects. `text`: `text`, the hits as `rg -n`
    /// prints them (`path:line:text` for a match, `path-line-text` for context, `--` between
    /// groups and files when context is shown), which is what `coder search` shows, a fifth
    /// smaller than `json`.
    format: Option<Format>,
}

pub fn handle(
    jail: &Jail,
    limits: &Limits,
    policy: &Policy,
    p: SearchParams,
) -> Result<SearchResult> {
    let query = Query::from_params(&p, limits, policy)?;
    let matcher = query.matcher()?;
    let wire = p.dir.as_deref().unwrap_or(".");
    let dir = jail.resolve_visible("dir", wire)?;
    if jail.metadata(&dir)?.is_file() {
        // Searching one file is reading it: it must be accessible.
        jail.resolve("dir", wire)?;
    }
    let walker = build_walker(jail, &dir, &p, query.threads)?;
    let shared = Shared::new(&query);
    walker.run(|| {
        let (shared, query) = (&shared, &query);
        let mut worker = Worker::new(matcher.clone(), query);
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let Some(resolved) = jail.locate(entry.path()) else {
                return WalkState::Continue;
            };
            // A git config's remote URLs may carry credentials: its lines are never shown.
            let git_config = query.target == Target::Content
                && coderd_core::credentials::is_git_config(&resolved.rel);
            if jail.is_non_accessible(&resolved.rel) || git_config {
                return WalkState::Continue;
            }
            shared.files_searched.fetch_add(1, Ordering::Relaxed);
            match query.target {
                Target::Paths => search_path(jail, &resolved, &worker.matcher, query, shared),
                Target::Content => worker.search_file(jail, &resolved, query, shared),
            }
            if shared.stop.load(Ordering::Relaxed) {
                WalkState::Quit
            } else {
                WalkState::Continue
            }
        })
    });
    Ok(shared.finish(query, dir.abs))
}

fn build_walker(
    jail: &Jail,
    dir: &Resolved,
    p: &SearchParams,
    threads: usize,
) -> Result<ignore::WalkParallel> {
    let mut overrides = ignore::overrides::OverrideBuilder::new(&dir.abs);
    let bad_glob = |field: &str, g: &str, e: ignore::Error| {
        Error::bad_input(format!("`{field}`: invalid glob {g:?}: {e}"))
    };
    for g in p.glob.as_ref().map(Globs::to_vec).unwrap_or_default() {
        overrides.add(&g).map_err(|e| bad_glob("glob", &g, e))?;
    }
    for g in p.exclude.as_ref().map(Globs::to_vec).unwrap_or_default() {
        overrides
            .add(&format!("!{g}"))
            .map_err(|e| bad_glob("exclude", &g, e))?;
    }
    let overrides = overrides
        .build()
        .map_err(|e| Error::bad_input(format!("`glob`: {e}")))?;
    let mut builder = jail.walk_builder(dir, p.gitignore.unwrap_or(true), p.hidden.unwrap_or(true));
    builder.overrides(overrides).threads(threads);
    if p.use_default_excludes.unwrap_or(true) {
        let noise = jail.default_excludes();
        let root = jail.roots()[dir.root].path.clone();
        builder.filter_entry(move |e| {
            e.depth() == 0
                || !coderd_core::globs::hit(
                    &noise,
                    e.path().strip_prefix(&root).unwrap_or(e.path()),
                )
        });
    }
    Ok(builder.build_parallel())
}

/// State shared by the walker threads: the results so far and what is left of the budgets.
struct Shared {
    files: Mutex<Vec<FoundFile>>,
    matches: AtomicUsize,
    bytes: AtomicUsize,
    files_searched: AtomicUsize,
    stop: AtomicBool,
    reason: Mutex<Option<&'static str>>,
    skipped: Mutex<Vec<Skipped>>,
    max_results: usize,
    budget: usize,
}

/// A file left out by the memory policy.
#[derive(Serialize)]
pub struct Skipped {
    path: String,
    reason: String,
}

/// A file with hits, already serialized: each walker thread writes its own files' part of the
/// answer, so the one thread that assembles it only copies bytes. One allocation per file, however
/// many lines it returns.
struct FoundFile {
    path: String,
    matches: usize,
    /// The file's JSON object, or (text format) its lines as JSON-escaped text.
    body: String,
}

impl FoundFile {
    /// The file's part of the answer in `format`: for text, its lines (already escaped) or, for a
    /// path-only answer, its path on a line.
    fn in_format(format: Format, path: String, matches: usize, lines: Option<&str>) -> FoundFile {
        if format == Format::Json {
            return FoundFile::new(path, matches, lines);
        }
        let body = match lines {
            Some(lines) => lines.to_owned(),
            None => {
                let mut text = String::with_capacity(path.len() + 2);
                jsonw::string_contents(&mut text, &path);
                text.push_str("\\n");
                text
            }
        };
        FoundFile {
            path,
            matches,
            body,
        }
    }

    /// `{"path":…,"matches":N,"lines":[…]}`; `lines` (the comma-separated line objects, already
    /// JSON) is left out for path-only answers.
    fn new(path: String, matches: usize, lines: Option<&str>) -> FoundFile {
        let mut json = String::with_capacity(path.len() + 48 + lines.map_or(0, str::len));
        json.push_str("{\"path\":");
        jsonw::string(&mut json, &path);
        json.push_str(",\"matches\":");
        jsonw::number(&mut json, matches as u64);
        if let Some(lines) = lines {
            json.push_str(",\"lines\":[");
            json.push_str(lines);
            json.push(']');
        }
        json.push('}');
        FoundFile {
            path,
            matches,
            body: json,
        }
    }
}

/// The `search` result, as the walk left it; `into_json` writes the answer.
pub struct SearchResult {
    path: PathBuf,
    pattern: String,
    mode: &'static str,
    target: &'static str,
    files: Vec<FoundFile>,
    /// Text format: the files' text joined (with `--` lines between them when there is context).
    text: Option<&'static str>,
    match_count: usize,
    files_searched: usize,
    truncated_reason: Option<&'static str>,
    skipped: Vec<Skipped>,
}

/// The answer's JSON, its fields in the order clients have always seen. serde writes it once into
/// a buffer sized for it; the files' parts, already JSON, go in as `RawValue`s, copied as they are
/// and never parsed (a 20 MB answer must not go through a serializer again).
#[derive(Serialize)]
struct Envelope<'a> {
    path: &'a str,
    pattern: &'a str,
    mode: &'static str,
    target: &'static str,
    /// JSON format: the files' objects.
    #[serde(skip_serializing_if = "Option::is_none")]
    files: Option<Files<'a>>,
    /// Text format: one JSON string, the files' escaped text joined.
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a RawValue>,
    files_matched: usize,
    match_count: usize,
    files_searched: usize,
    truncated: bool,
    truncated_reason: Option<&'static str>,
    #[serde(skip_serializing_if = "<[Skipped]>::is_empty")]
    skipped: &'a [Skipped],
}

/// The files' JSON objects as a JSON array, each written as the walker thread built it.
struct Files<'a>(&'a [FoundFile]);

impl Serialize for Files<'_> {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|file| jsonw::raw_ref(&file.body)))
    }
}

impl SearchResult {
    pub fn into_json(self) -> Result<Box<RawValue>> {
        let files_len: usize = self.files.iter().map(|f| f.body.len() + 3).sum();
        // Text format: the bodies are pieces of one string, so they are joined into it first (a
        // `RawValue` is one whole JSON value); a `--` line between files when there is context.
        let text = self.text.map(|separator| {
            let mut text = String::with_capacity(files_len + 2);
            text.push('"');
            for (i, file) in self.files.iter().enumerate() {
                if i > 0 {
                    text.push_str(separator);
                }
                text.push_str(&file.body);
            }
            text.push('"');
            text
        });
        let path = self.path.to_string_lossy();
        let envelope = Envelope {
            path: &path,
            pattern: &self.pattern,
            mode: self.mode,
            target: self.target,
            files: text.is_none().then_some(Files(&self.files)),
            text: text.as_deref().map(jsonw::raw_ref),
            files_matched: self.files.len(),
            match_count: self.match_count,
            files_searched: self.files_searched,
            truncated: self.truncated_reason.is_some(),
            truncated_reason: self.truncated_reason,
            skipped: &self.skipped,
        };
        jsonw::to_raw(&envelope, files_len + self.pattern.len() + path.len() + 512)
            .map_err(|e| Error::io(format!("serializing the answer: {e}")))
    }
}

/// Writes one line object (`{"line":N,"match":…,"column":C,"text":"…","line_truncated":true}`,
/// the field order clients have always seen) and returns the length of its JSON-escaped text.
fn write_line(
    out: &mut String,
    number: Option<u64>,
    is_match: bool,
    column: Option<usize>,
    text: &[u8],
    cut: bool,
) -> usize {
    out.push_str("{\"line\":");
    match number {
        Some(n) => jsonw::number(out, n),
        None => out.push_str("null"),
    }
    out.push_str(",\"match\":");
    jsonw::boolean(out, is_match);
    if let Some(column) = column {
        out.push_str(",\"column\":");
        jsonw::number(out, column as u64);
    }
    out.push_str(",\"text\":");
    let from = out.len();
    jsonw::lossy_string(out, text);
    let escaped = out.len() - from;
    if cut {
        out.push_str(",\"line_truncated\":true");
    }
    out.push('}');
    escaped
}

/// Writes one line as `rg -n` prints it (`path:N:text` for a match, `path-N-text` for context,
/// after a `--` line when it does not follow the previous one; ` [line cut]` after a line clipped
/// to `max_line_bytes`), escaped for the answer's `text` string, and returns the length of its
/// escaped text (the same budget charge as a line object).
fn write_text_line(
    out: &mut String,
    path: &str,
    gap: bool,
    number: Option<u64>,
    is_match: bool,
    text: &[u8],
    cut: bool,
) -> usize {
    if gap {
        out.push_str("--\\n");
    }
    let separator = if is_match { ':' } else { '-' };
    out.push_str(path);
    out.push(separator);
    jsonw::number(out, number.unwrap_or(0));
    out.push(separator);
    let from = out.len();
    jsonw::lossy_string_contents(out, text);
    let escaped = out.len() - from + 2;
    if cut {
        out.push_str(" [line cut]");
    }
    out.push_str("\\n");
    escaped
}

impl Shared {
    fn new(q: &Query) -> Self {
        Shared {
            files: Mutex::new(Vec::new()),
            matches: AtomicUsize::new(0),
            bytes: AtomicUsize::new(0),
            files_searched: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            reason: Mutex::new(None),
            skipped: Mutex::new(Vec::new()),
            max_results: q.max_results,
            budget: q.budget,
        }
    }

    /// Reserves room for one match of `bytes`; false (and the walk stops) when a bound is reached.
    fn take_match(&self, bytes: usize) -> bool {
        if self.matches.fetch_add(1, Ordering::SeqCst) >= self.max_results {
            self.halt("max_results");
            return false;
        }
        self.take_bytes(bytes)
    }

    fn take_bytes(&self, bytes: usize) -> bool {
        if self.bytes.fetch_add(bytes, Ordering::SeqCst) + bytes > self.budget {
            self.halt("search_response_budget_bytes");
            return false;
        }
        true
    }

    fn halt(&self, why: &'static str) {
        if !self.stop.swap(true, Ordering::SeqCst) {
            *self.reason.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
        }
    }

    fn skip(&self, skipped: Skipped) {
        self.skipped
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(skipped);
    }

    fn push(&self, found: FoundFile) {
        self.files
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(found);
    }

    fn finish(self, q: Query, path: PathBuf) -> SearchResult {
        let mut files = self.files.into_inner().unwrap_or_else(|e| e.into_inner());
        // The walk is parallel; the answer is in path order whatever the thread timing was.
        files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        let match_count: usize = files.iter().map(|f| f.matches).sum();
        let reason = self.reason.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut skipped = self.skipped.into_inner().unwrap_or_else(|e| e.into_inner());
        skipped.sort_by(|a, b| a.path.cmp(&b.path));
        // rg prints `--` between files too when it shows context.
        let context = !q.paths_only && q.target == Target::Content && q.before + q.after > 0;
        let text = (q.format == Format::Text).then_some(if context { "--\\n" } else { "" });
        SearchResult {
            path,
            text,
            mode: if q.regex { "regex" } else { "literal" },
            target: if q.target == Target::Paths {
                "paths"
            } else {
                "content"
            },
            pattern: q.pattern,
            files,
            match_count,
            files_searched: self.files_searched.into_inner(),
            truncated_reason: reason,
            skipped,
        }
    }
}

fn search_path(
    jail: &Jail,
    resolved: &Resolved,
    matcher: &RegexMatcher,
    q: &Query,
    shared: &Shared,
) {
    let rel = resolved.rel.to_string_lossy();
    if matcher.is_match(rel.as_bytes()).unwrap_or(false)
        && jail.holds_entry(&resolved.abs)
        && shared.take_match(FILE_OVERHEAD + resolved.abs.as_os_str().len())
    {
        let path = resolved.abs.to_string_lossy().into_owned();
        shared.push(FoundFile::in_format(q.format, path, 1, None));
    }
}

/// What one walker thread keeps between files.
struct Worker {
    matcher: RegexMatcher,
    searcher: Searcher,
    /// Reused for whole-file reads.
    buffer: Vec<u8>,
    /// Reused for the JSON of the current file's lines.
    lines: String,
}

impl Worker {
    fn new(matcher: RegexMatcher, q: &Query) -> Worker {
        Worker {
            matcher,
            searcher: Worker::searcher(q),
            buffer: Vec::new(),
            lines: String::new(),
        }
    }

    fn searcher(q: &Query) -> Searcher {
        let context = |n| if q.paths_only { 0 } else { n };
        SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(0))
            .line_number(true)
            .before_context(context(q.before))
            .after_context(context(q.after))
            .heap_limit(Some(q.heap_limit))
            .build()
    }

    fn search_file(&mut self, jail: &Jail, resolved: &Resolved, q: &Query, shared: &Shared) {
        // The walker listed it as a regular file (see `handle`).
        let Ok((mut file, meta)) = jail.open_walked_file(resolved) else {
            return;
        };
        self.lines.clear();
        let mut sink = Collector {
            matcher: &self.matcher,
            q,
            shared,
            out: &mut self.lines,
            lines: 0,
            matches: 0,
            charged_file: false,
            path: &resolved.abs,
            text_path: None,
            previous: None,
        };
        // The size is known from the open, so a file of ordinary size is read in one call and
        // searched as a slice: two syscalls fewer per file than streaming it (measured).
        let searched = if meta.len() <= SLURP_LIMIT {
            self.buffer.resize(meta.len() as usize, 0);
            match file.read_exact(&mut self.buffer) {
                Ok(()) => search_buffer(&mut self.searcher, &self.matcher, &self.buffer, &mut sink),
                Err(e) => Err(e),
            }
        } else {
            self.searcher.search_file(&self.matcher, &file, &mut sink)
        };
        if meta.len() > SLURP_LIMIT {
            // A long line grew the searcher's buffer; start the next file with a small one.
            self.searcher = Worker::searcher(q);
        }
        let matches = sink.matches;
        match searched {
            Ok(()) if matches > 0 => {
                let path = resolved.abs.to_string_lossy().into_owned();
                let lines = (!q.paths_only).then_some(self.lines.as_str());
                shared.push(FoundFile::in_format(q.format, path, matches, lines));
            }
            Ok(()) => {}
            Err(e) if is_heap_limit(&e) => shared.skip(Skipped {
                path: resolved.abs.to_string_lossy().into_owned(),
                reason: format!("line over {} bytes", q.heap_limit),
            }),
            Err(_) => {}
        }
    }
}

/// A UTF-16 file (by its BOM) goes through the searcher's reader path, which transcodes it, as it
/// does for streamed files; anything else is searched as the bytes it is.
fn search_buffer(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    buffer: &[u8],
    sink: &mut Collector,
) -> std::io::Result<()> {
    let utf16 = buffer.starts_with(b"\xff\xfe") || buffer.starts_with(b"\xfe\xff");
    if utf16 {
        searcher.search_reader(matcher, buffer, sink)
    } else {
        searcher.search_slice(matcher, buffer, sink)
    }
}

/// grep-searcher's error for a line that would outgrow its `heap_limit`.
fn is_heap_limit(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::Other && e.to_string().contains("allocation limit")
}

/// Collects one file's matches and context lines, charging each against the shared budgets.
struct Collector<'a> {
    matcher: &'a RegexMatcher,
    q: &'a Query,
    shared: &'a Shared,
    /// The file's line objects so far, comma-separated JSON.
    out: &'a mut String,
    lines: usize,
    matches: usize,
    charged_file: bool,
    path: &'a Path,
    /// Text format: the path, escaped once (at the file's first line) for every line it starts.
    text_path: Option<String>,
    /// The last line written, to put `--` before a line that does not follow it.
    previous: Option<u64>,
}

impl Collector<'_> {
    fn charge_file(&mut self) -> bool {
        if self.charged_file {
            return true;
        }
        self.charged_file = true;
        self.shared
            .take_bytes(FILE_OVERHEAD + self.path.as_os_str().len())
    }

    /// Adds a line (clipped around its match) if the response budget has room for it. The line
    /// is written as JSON straight into the file's buffer and taken back out if it does not fit.
    fn add_line(&mut self, number: Option<u64>, bytes: &[u8], is_match: bool) -> bool {
        let line = trim_newline(bytes);
        let column = if is_match {
            self.matcher.find(line).ok().flatten().map(|m| m.start())
        } else {
            None
        };
        let (kept, cut) = clip(line, column.unwrap_or(0), self.q.max_line_bytes);
        let from = self.out.len();
        let escaped = match self.q.format {
            Format::Text => {
                let path = self.text_path.get_or_insert_with(|| {
                    let mut escaped = String::new();
                    jsonw::string_contents(&mut escaped, &self.path.to_string_lossy());
                    escaped
                });
                // rg separates groups only when it shows context: with none, every match is
                // its own line and `--` would stand between each of them.
                let context = self.q.before + self.q.after > 0;
                let gap = context && self.previous.is_some_and(|p| number.unwrap_or(0) > p + 1);
                self.previous = number;
                write_text_line(self.out, path, gap, number, is_match, kept, cut)
            }
            Format::Json => {
                if self.lines > 0 {
                    self.out.push(',');
                }
                write_line(self.out, number, is_match, column.map(|c| c + 1), kept, cut)
            }
        };
        // What a line adds to the response: its JSON frame plus its text as JSON escaped it.
        let cost = LINE_OVERHEAD + escaped;
        let room = if is_match {
            self.shared.take_match(cost)
        } else {
            self.shared.take_bytes(cost)
        };
        if !room {
            self.out.truncate(from);
            return false;
        }
        self.lines += 1;
        true
    }
}

impl Sink for Collector<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        if self.shared.stop.load(Ordering::Relaxed) || !self.charge_file() {
            return Ok(false);
        }
        if self.q.paths_only {
            // Listing the file is all that is wanted: one match is enough to know.
            if self.shared.take_match(0) {
                self.matches += 1;
            }
            return Ok(false);
        }
        if !self.add_line(mat.line_number(), mat.bytes(), true) {
            return Ok(false);
        }
        self.matches += 1;
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, Self::Error> {
        if self.shared.stop.load(Ordering::Relaxed) {
            return Ok(false);
        }
        Ok(self.add_line(ctx.line_number(), ctx.bytes(), false))
    }
}

fn trim_newline(bytes: &[u8]) -> &[u8] {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    bytes.strip_suffix(b"\r").unwrap_or(bytes)
}

/// `line` cut to `max` bytes around `focus` (the match) on character boundaries, and whether it
/// was cut. Only the kept bytes are decoded later, so a 50 MB line costs what its clip costs.
fn clip(line: &[u8], focus: usize, max: usize) -> (&[u8], bool) {
    if line.len() <= max {
        return (line, false);
    }
    let continuation = |i: usize| line.get(i).is_some_and(|b| b & 0xc0 == 0x80);
    let mut start = focus.saturating_sub(max / 4).min(line.len());
    while start > 0 && continuation(start) {
        start -= 1;
    }
    let mut end = (start + max).min(line.len());
    while end > start && end < line.len() && continuation(end) {
        end -= 1;
    }
    (&line[start..end], true)
}

#[cfg(test)]
mod tests;
