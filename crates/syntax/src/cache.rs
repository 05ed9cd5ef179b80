//! The parse cache: one syntax tree and outline per file, for the document version it was built
//! from. A new version is parsed incrementally from the previous tree: the documents store's edit
//! event (old → new revision, with byte ranges) becomes `InputEdit`s; without one (an external
//! write, a missed event) the changed region is the span between the common prefix and suffix.

use super::items::{self, Outline};
use super::languages::Language;
use super::{parse, queries};
use coderd_core::documents::{Change, Document, Event, EventKind};
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast::{self, error::TryRecvError};
use tree_sitter::{InputEdit, Point, Tree};

/// Files whose trees are kept; the least recently used goes first.
const ENTRIES: usize = 64;

/// How a parse result was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ParseMode {
    /// The tree of this exact version was held.
    Cached,
    /// The previous version's tree was edited and reparsed.
    Incremental,
    Full,
}

/// One file's parse at one version.
pub struct Parsed {
    pub revision: u64,
    pub version: String,
    pub language: &'static Language,
    pub source: Vec<u8>,
    pub tree: Tree,
    pub outline: Outline,
}

pub struct Cache {
    inner: Mutex<Inner>,
    events: Mutex<broadcast::Receiver<Event>>,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<PathBuf, (Arc<Parsed>, u64)>,
    /// The last edit event seen per held file, until the file is parsed again.
    pending: HashMap<PathBuf, Event>,
    tick: u64,
}

impl Cache {
    pub fn new(events: broadcast::Receiver<Event>) -> Cache {
        Cache {
            inner: Mutex::default(),
            events: Mutex::new(events),
        }
    }

    /// The parse of `doc` in `language`: held, updated incrementally from the held previous
    /// version, or parsed afresh. `None` when the language has no grammar or queries.
    pub fn get(
        &self,
        doc: &Document,
        language: &'static Language,
    ) -> Option<(Arc<Parsed>, ParseMode)> {
        self.take_events();
        let version = doc.version();
        let (previous, event) = {
            let mut inner = self.lock();
            inner.tick += 1;
            let tick = inner.tick;
            let held = inner.entries.get_mut(&doc.path).map(|(parsed, used)| {
                *used = tick;
                parsed.clone()
            });
            match held {
                Some(p) if p.version == version && std::ptr::eq(p.language, language) => {
                    return Some((p, ParseMode::Cached));
                }
                Some(p) if std::ptr::eq(p.language, language) => {
                    (Some(p), inner.pending.remove(&doc.path))
                }
                _ => (None, None),
            }
        };
        let source = doc.bytes();
        let queries = queries::of(language).ok()?;
        let (tree, mode) = match &previous {
            Some(old) => {
                let mut tree = old.tree.clone();
                for edit in edits(old, doc.revision, &source, event.as_ref()) {
                    tree.edit(&edit);
                }
                (
                    parse(language, &source, Some(&tree))?,
                    ParseMode::Incremental,
                )
            }
            None => (parse(language, &source, None)?, ParseMode::Full),
        };
        let outline = items::extract(&tree, &source, queries);
        let parsed = Arc::new(Parsed {
            revision: doc.revision,
            version,
            language,
            source,
            tree,
            outline,
        });
        self.insert(&doc.path, parsed.clone());
        Some((parsed, mode))
    }

    fn insert(&self, path: &Path, parsed: Arc<Parsed>) {
        let mut inner = self.lock();
        inner.tick += 1;
        let tick = inner.tick;
        inner.entries.insert(path.to_path_buf(), (parsed, tick));
        while inner.entries.len() > ENTRIES {
            let oldest = inner
                .entries
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(p, _)| p.clone());
            let Some(oldest) = oldest else { break };
            inner.entries.remove(&oldest);
            inner.pending.remove(&oldest);
        }
    }

    /// Reads the events published since the last call: edits are kept for the next parse of
    /// their file; deletions and moves drop the file's tree.
    fn take_events(&self) {
        let mut events = self.events.lock().unwrap_or_else(|e| e.into_inner());
        let mut inner = self.lock();
        loop {
            let event = match events.try_recv() {
                Ok(event) => event,
                Err(TryRecvError::Lagged(_)) => {
                    inner.pending.clear();
                    continue;
                }
                Err(_) => break,
            };
            match &event.kind {
                EventKind::Edited if inner.entries.contains_key(&event.path) => {
                    inner.pending.insert(event.path.clone(), event);
                }
                EventKind::Deleted | EventKind::Moved { .. } | EventKind::Created => {
                    if let EventKind::Moved { from } = &event.kind {
                        inner.entries.remove(from);
                        inner.pending.remove(from);
                    }
                    inner.entries.remove(&event.path);
                    inner.pending.remove(&event.path);
                }
                _ => {
                    inner.pending.remove(&event.path);
                }
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The edits that turn the old parse's text into `new`: from the event when it describes exactly
/// this step, else one edit spanning everything between the common prefix and suffix.
fn edits(old: &Parsed, new_revision: u64, new: &[u8], event: Option<&Event>) -> Vec<InputEdit> {
    if let Some(event) = event {
        let this_step = event.old_revision == Some(old.revision)
            && event.new_revision == Some(new_revision)
            && !event.changes.is_empty();
        if this_step && changes_fit(&old.source, new, &event.changes) {
            // Last change first, so every earlier change's offsets still hold.
            return event
                .changes
                .iter()
                .rev()
                .map(|c| edit(&old.source, c.old_bytes.clone(), &new[c.new_bytes.clone()]))
                .collect();
        }
    }
    let prefix = old
        .source
        .iter()
        .zip(new)
        .take_while(|(a, b)| a == b)
        .count();
    let room = old.source.len().min(new.len()) - prefix;
    let suffix = old
        .source
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    vec![edit(
        &old.source,
        prefix..old.source.len() - suffix,
        &new[prefix..new.len() - suffix],
    )]
}

fn changes_fit(old: &[u8], new: &[u8], changes: &[Change]) -> bool {
    let within = changes.iter().all(|c| {
        c.old_bytes.end <= old.len()
            && c.new_bytes.end <= new.len()
            && c.old_bytes.start <= c.old_bytes.end
            && c.new_bytes.start <= c.new_bytes.end
    });
    let removed: usize = changes.iter().map(|c| c.old_bytes.len()).sum();
    let added: usize = changes.iter().map(|c| c.new_bytes.len()).sum();
    within && old.len() + added == new.len() + removed
}

/// Replacing `old[range]` by `inserted`, in tree-sitter's terms.
fn edit(old: &[u8], range: std::ops::Range<usize>, inserted: &[u8]) -> InputEdit {
    let start_position = point_at(old, range.start);
    InputEdit {
        start_byte: range.start,
        old_end_byte: range.end,
        new_end_byte: range.start + inserted.len(),
        start_position,
        old_end_position: point_at(old, range.end),
        new_end_position: advance(start_position, inserted),
    }
}

fn point_at(text: &[u8], byte: usize) -> Point {
    let before = &text[..byte];
    let row = memchr::memchr_iter(b'\n', before).count();
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    Point::new(row, byte - line_start)
}

fn advance(start: Point, inserted: &[u8]) -> Point {
    let newlines = memchr::memchr_iter(b'\n', inserted).count();
    match memchr::memrchr(b'\n', inserted) {
        Some(last) => Point::new(start.row + newlines, inserted.len() - last - 1),
        None => Point::new(start.row, start.column + inserted.len()),
    }
}
