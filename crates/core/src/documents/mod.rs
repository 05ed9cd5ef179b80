//! Documents: the files the daemon has read or edited, held in memory as ropes (UTF-8 files) or
//! bytes (anything else), each with a version stamp and a revision number.
//!
//! The store is a cache with a memory budget, never the truth: every use first compares the file's
//! identity and times on disk with the stamp (`load`), so no edit is ever planned on a stale copy. A
//! watcher on the folders of held documents refreshes them early when another program writes.
//! Every committed change publishes an `Event` (see `events`) for the structure and language-server
//! subsystems.

pub mod buffers;
pub mod commit;
pub mod events;
pub mod locks;
mod sessions;
pub mod splice;
pub mod stamp;
mod text;
pub mod timestamps;
pub mod watch;

pub use events::{Change, Event, EventKind};
pub use sessions::Sessions;
pub use stamp::Stamp;
pub use text::{reads_as, Text};

use crate::error::{Error, Result};
use crate::jail::{Jail, Resolved};
use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;

/// Older contents kept per file, so a C212 can show what changed since the caller's read.
const HISTORY: usize = 2;
/// Events buffered for a slow subscriber before it starts missing them (it is told it lagged).
const EVENT_BUFFER: usize = 4096;

/// One version of one file.
#[derive(Debug)]
pub struct Document {
    /// Canonical absolute path.
    pub path: PathBuf,
    pub stamp: Stamp,
    /// Grows by one on every change the daemon sees (its own edits and external writes).
    pub revision: u64,
    pub text: Text,
    /// The content as one contiguous buffer, kept for documents an edit just wrote: the next edit
    /// of the same file (the common case: an agent patches a file several times) plans on it
    /// without copying the rope out again. Counted in the memory budget.
    pub flat: Option<Arc<Vec<u8>>>,
}

impl Document {
    pub fn version(&self) -> String {
        self.stamp.version()
    }
    pub fn bytes(&self) -> Vec<u8> {
        self.text.to_bytes()
    }
    /// The content as one buffer: the kept one, else copied out of the rope.
    pub fn shared_bytes(&self) -> Arc<Vec<u8>> {
        match &self.flat {
            Some(flat) => flat.clone(),
            None => Arc::new(self.text.to_bytes()),
        }
    }
    /// The content as the pieces it is held in (the kept buffer, else the rope's chunks).
    pub fn pieces(&self) -> impl Iterator<Item = &[u8]> {
        let (flat, text) = match &self.flat {
            Some(flat) => (Some(flat.as_slice()), None),
            None => (None, Some(self.text.pieces())),
        };
        flat.into_iter().chain(text.into_iter().flatten())
    }
    /// Memory the document holds (content only; the bookkeeping is small).
    fn weight(&self) -> u64 {
        self.text.len() as u64 + self.flat.as_ref().map_or(0, |f| f.len() as u64)
    }
}

/// What a load found on disk: the content the store held (compared equal as it was read), or
/// bytes read in full.
enum Content {
    Held(Arc<Document>),
    Read(Vec<u8>),
}

impl Content {
    fn into_text(self) -> (Text, Option<Arc<Vec<u8>>>) {
        match self {
            Content::Held(doc) => (doc.text.clone(), doc.flat.clone()),
            Content::Read(bytes) => (Text::from_bytes(bytes), None),
        }
    }
}

struct Entry {
    doc: Arc<Document>,
    older: Vec<Arc<Document>>,
    last_used: u64,
}

impl Entry {
    fn weight(&self) -> u64 {
        self.doc.weight() + self.older.iter().map(|d| d.weight()).sum::<u64>()
    }
}

#[derive(Default)]
struct Inner {
    entries: HashMap<PathBuf, Entry>,
    used: u64,
    tick: u64,
    evictions: u64,
}

pub struct Documents {
    inner: Mutex<Inner>,
    events: broadcast::Sender<Event>,
    pub sessions: Sessions,
    /// The files open in an editor (`coderd lsp`), which an edit must not write under.
    pub buffers: buffers::Buffers,
    /// The folders watched for eager refresh (see `watch`).
    pub watch: watch::Watch,
}

impl Default for Documents {
    fn default() -> Self {
        Documents {
            inner: Mutex::default(),
            events: broadcast::channel(EVENT_BUFFER).0,
            sessions: Sessions::default(),
            buffers: buffers::Buffers::default(),
            watch: watch::Watch::default(),
        }
    }
}

/// What `info` reports about the store.
#[derive(serde::Serialize)]
pub struct Usage {
    pub documents: usize,
    pub bytes: u64,
    pub budget_bytes: u64,
    pub evictions: u64,
}

impl Documents {
    /// A receiver of every event published from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    /// The current document of a resolved file: from memory when the file on disk is the one held,
    /// else read (at most `max_bytes`, C213 beyond) and stamped. An external change found here is
    /// published as an event before the fresh document is returned.
    pub fn load(
        &self,
        jail: &Jail,
        resolved: &Resolved,
        max_bytes: u64,
        budget: u64,
    ) -> Result<Arc<Document>> {
        let (mut file, meta) = jail.open_file(resolved)?;
        if let Some(doc) = self.cached(&resolved.abs, &meta) {
            return Ok(doc);
        }
        if meta.len() > max_bytes {
            return Err(Error::too_large(format!(
                "{} is {} bytes; edits are limited to max_write_bytes = {max_bytes}",
                resolved.abs.display(),
                meta.len()
            ))
            .with_data("size", meta.len())
            .with_recovery("edit a smaller file, or raise max_write_bytes in the config"));
        }
        let io = |e: std::io::Error| Error::from_io(&e, &resolved.abs);
        // A file that may still hold what the store holds (a racy stamp checked again, a touch,
        // the watcher seeing our own write) is compared as it is read: when equal, the held text
        // and hash stay, and nothing file-sized is allocated or hashed.
        if let Some(held) = self.current(&resolved.abs) {
            if held.stamp.dev == meta.dev()
                && held.stamp.ino == meta.ino()
                && held.text.len() as u64 == meta.len()
            {
                if text::reads_as(&mut file, held.pieces()).map_err(io)? {
                    let stamp = Stamp::hashed(&meta, meta.len(), held.stamp.hash);
                    return Ok(self.refreshed(&resolved.abs, stamp, Content::Held(held), budget));
                }
                file.seek(SeekFrom::Start(0)).map_err(io)?;
            }
        }
        // The length read is the truth; the stamp records the metadata taken at the open.
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.read_to_end(&mut bytes).map_err(io)?;
        let stamp = Stamp::loaded(&meta, &bytes);
        Ok(self.refreshed(&resolved.abs, stamp, Content::Read(bytes), budget))
    }

    /// The held document when its stamp still describes the file on disk.
    fn cached(&self, path: &Path, meta: &std::fs::Metadata) -> Option<Arc<Document>> {
        let mut inner = self.lock();
        inner.tick += 1;
        let tick = inner.tick;
        let entry = inner.entries.get_mut(path)?;
        entry.last_used = tick;
        entry
            .doc
            .stamp
            .same_file_state(meta)
            .then(|| entry.doc.clone())
    }

    /// Records what was just read from disk. Same content as held (a touch, or a racy stamp checked
    /// again): the revision and the held text stay, so nothing is rebuilt. Different: a new revision
    /// and an `External` event.
    fn refreshed(&self, path: &Path, stamp: Stamp, content: Content, budget: u64) -> Arc<Document> {
        let mut inner = self.lock();
        let previous = inner.entries.get(path).map(|e| e.doc.clone());
        let same = previous.as_ref().filter(|old| old.stamp.hash == stamp.hash);
        let (revision, changed) = match (&previous, same) {
            (_, Some(old)) => (old.revision, false),
            (Some(old), None) => (old.revision + 1, true),
            (None, None) => (1, false),
        };
        let (text, flat) = match same {
            Some(old) => (old.text.clone(), old.flat.clone()),
            None => content.into_text(),
        };
        let doc = Arc::new(Document {
            path: path.to_path_buf(),
            stamp,
            revision,
            text,
            flat,
        });
        let new = self.install(
            &mut inner,
            doc.clone(),
            previous.filter(|_| changed),
            budget,
        );
        drop(inner);
        if new {
            self.watch.folder_of(path);
        }
        if changed {
            self.publish(Event {
                path: path.to_path_buf(),
                old_revision: Some(revision - 1),
                new_revision: Some(revision),
                kind: EventKind::External,
                changes: Vec::new(),
            });
        }
        doc
    }

    /// Installs the document an edit committed and publishes its event.
    pub fn committed(&self, doc: Arc<Document>, event: Event, budget: u64) {
        let mut inner = self.lock();
        let previous = inner.entries.get(&doc.path).map(|e| e.doc.clone());
        let path = doc.path.clone();
        let new = self.install(&mut inner, doc, previous, budget);
        drop(inner);
        if new {
            self.watch.folder_of(&path);
        }
        self.publish(event);
    }

    /// Forgets a path (deleted, moved away) and publishes the event saying so.
    pub fn removed(&self, path: &Path, event: Event) {
        let mut inner = self.lock();
        if let Some(entry) = inner.entries.remove(path) {
            inner.used -= entry.weight();
        }
        drop(inner);
        self.publish(event);
    }

    /// Every path the store holds.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.lock().entries.keys().cloned().collect()
    }

    /// The document held for a path, as last loaded or committed (not compared with the disk).
    pub fn current(&self, path: &Path) -> Option<Arc<Document>> {
        self.lock().entries.get(path).map(|e| e.doc.clone())
    }

    /// The revision the daemon holds for a path (0 when it holds none).
    pub fn revision(&self, path: &Path) -> u64 {
        self.lock().entries.get(path).map_or(0, |e| e.doc.revision)
    }

    /// An older content of a path by its version, while the store still holds it.
    pub fn older(&self, path: &Path, version: &str) -> Option<Arc<Document>> {
        let inner = self.lock();
        let entry = inner.entries.get(path)?;
        std::iter::once(&entry.doc)
            .chain(entry.older.iter())
            .find(|d| d.version() == version)
            .cloned()
    }

    pub fn usage(&self, budget: u64) -> Usage {
        let inner = self.lock();
        Usage {
            documents: inner.entries.len(),
            bytes: inner.used,
            budget_bytes: budget,
            evictions: inner.evictions,
        }
    }

    /// Puts a document in the store; true when the store did not hold its path before (the
    /// caller then has its folder watched, outside the store's lock).
    fn install(
        &self,
        inner: &mut Inner,
        doc: Arc<Document>,
        previous: Option<Arc<Document>>,
        budget: u64,
    ) -> bool {
        inner.tick += 1;
        let tick = inner.tick;
        let path = doc.path.clone();
        let mut older = inner
            .entries
            .remove(&path)
            .map(|e| {
                inner.used -= e.weight();
                e.older
            })
            .unwrap_or_default();
        if let Some(prev) = previous {
            // History is for diffs, not edits: it keeps the rope, not the flat copy.
            let prev = match prev.flat {
                Some(_) => Arc::new(Document {
                    path: prev.path.clone(),
                    stamp: prev.stamp.clone(),
                    revision: prev.revision,
                    text: prev.text.clone(),
                    flat: None,
                }),
                None => prev,
            };
            older.insert(0, prev);
            older.truncate(HISTORY);
        }
        let entry = Entry {
            doc,
            older,
            last_used: tick,
        };
        inner.used += entry.weight();
        let new = inner.entries.insert(path.clone(), entry).is_none();
        Self::evict(inner, budget, &path);
        new
    }

    /// Drops least recently used documents until the store fits its budget. The one just used is
    /// kept even when it alone is over (the edit in hand needs it); its history goes first.
    fn evict(inner: &mut Inner, budget: u64, keep: &Path) {
        while inner.used > budget {
            let victim = inner
                .entries
                .iter()
                .filter(|(p, _)| p.as_path() != keep)
                .min_by_key(|(_, e)| e.last_used)
                .map(|(p, _)| p.clone());
            match victim {
                Some(path) => {
                    let entry = inner.entries.remove(&path).expect("victim exists");
                    inner.used -= entry.weight();
                    inner.evictions += 1;
                }
                None => {
                    if let Some(entry) = inner.entries.get_mut(keep) {
                        let freed: u64 = entry.older.drain(..).map(|d| d.weight()).sum();
                        inner.used -= freed;
                    }
                    break;
                }
            }
        }
    }

    fn publish(&self, event: Event) {
        events::record(&event);
        // No subscriber is fine: nothing listens until the structure or LSP work starts one.
        let _ = self.events.send(event);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}
