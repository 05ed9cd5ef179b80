//! Editors' buffers: the files a person has open in an editor (through `coderd lsp`), with the
//! buffer's version and whether it holds unsaved changes. An edit, move, delete or restore that
//! would change a file whose buffer differs from the file on disk is refused C212 (`refuse`):
//! writing under a person's unsaved text would make their next save undo the agent's edit, or
//! the agent's edit vanish under it.
//!
//! Whether a buffer is dirty is decided when the editor reports it (open, change, save): its text
//! against the file's current bytes. A buffer that matched the disk when last reported stays
//! clean when the agent then edits the file: the editor reloads a clean buffer from disk.
//!
//! Each buffer belongs to one editor session (an id its face chose at random and never shows):
//! only that session changes or closes it, so no other caller can lift a person's claim. A claim
//! lasts while its face renews it (every second); one not renewed for `LEASE` lapses, so an
//! editor that died does not block edits forever. Versions only grow within a session, so a
//! report that arrives late cannot replace a newer one.

use crate::error::{Code, Error, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a buffer's claim lasts without a renewal from its editor.
pub const LEASE: Duration = Duration::from_secs(30);

/// One open buffer.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Buffer {
    /// The editor's version of the buffer (LSP's `version`).
    pub version: i64,
    /// The buffer's text differs from the file on disk.
    pub dirty: bool,
}

/// What an editor session reports of one buffer.
pub enum Report {
    /// Opened: a new buffer, whatever this session held before.
    Opened(Buffer),
    /// Changed or saved, or renewed unchanged: taken unless a later version is held.
    Updated(Buffer),
}

struct Held {
    buffer: Buffer,
    renewed: Instant,
}

/// Per file, per editor session.
#[derive(Default)]
pub struct Buffers {
    open: Mutex<HashMap<PathBuf, HashMap<String, Held>>>,
}

impl Buffers {
    /// Records what `editor` reported of its buffer of `path`; answers the state held after it.
    pub fn report(&self, path: PathBuf, editor: &str, report: Report, now: Instant) -> Buffer {
        let mut open = self.lock();
        let sessions = open.entry(path).or_default();
        let (buffer, replace) = match report {
            Report::Opened(buffer) => (buffer, true),
            Report::Updated(buffer) => {
                let newer = sessions.get(editor).map(|h| h.buffer.version);
                let replace = newer.is_none_or(|held| held <= buffer.version);
                (buffer, replace)
            }
        };
        let held = sessions.entry(editor.to_string()).or_insert(Held {
            buffer: buffer.clone(),
            renewed: now,
        });
        if replace {
            held.buffer = buffer;
        }
        held.renewed = now;
        held.buffer.clone()
    }

    /// `editor` closed its buffer of `path` at `version` (a close older than the buffer held is
    /// a late one, and ignored).
    pub fn close(&self, path: &Path, editor: &str, version: i64) {
        let mut open = self.lock();
        let Some(sessions) = open.get_mut(path) else {
            return;
        };
        if sessions
            .get(editor)
            .is_some_and(|h| h.buffer.version <= version)
        {
            sessions.remove(editor);
        }
        if sessions.is_empty() {
            open.remove(path);
        }
    }

    /// The buffer `editor` holds of `path`.
    pub fn get(&self, path: &Path, editor: &str) -> Option<Buffer> {
        let open = self.lock();
        open.get(path)?.get(editor).map(|h| h.buffer.clone())
    }

    /// C212 when an editor whose claim has not lapsed holds unsaved changes to the file (or to a
    /// file under the folder).
    pub fn refuse(&self, path: &Path) -> Result<()> {
        self.refuse_at(path, Instant::now())
    }

    /// `refuse` for each path.
    pub fn refuse_all<'a>(&self, paths: impl IntoIterator<Item = &'a Path>) -> Result<()> {
        let now = Instant::now();
        paths.into_iter().try_for_each(|p| self.refuse_at(p, now))
    }

    /// The file itself, or (for a folder) any file under it.
    fn refuse_at(&self, path: &Path, now: Instant) -> Result<()> {
        let dirty = {
            let open = self.lock();
            let buffered = open.iter().filter(|(p, _)| p.starts_with(path));
            let held = buffered.flat_map(|(p, sessions)| sessions.values().map(move |h| (p, h)));
            held.filter(|(_, h)| h.buffer.dirty && now.saturating_duration_since(h.renewed) < LEASE)
                .map(|(p, h)| (p.clone(), h.buffer.version))
                .max_by_key(|(_, version)| *version)
        };
        let Some((file, version)) = dirty else {
            return Ok(());
        };
        Err(Error::new(
            Code::Stale,
            format!(
                "{} has unsaved changes in an editor (buffer version {version})",
                file.display(),
            ),
        )
        .with_recovery(
            "ask the person to save the file (or undo their changes), then read it again and retry",
        )
        .with_data("buffer_version", version))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, HashMap<String, Held>>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(version: i64, dirty: bool) -> Buffer {
        Buffer { version, dirty }
    }

    #[test]
    fn only_a_dirty_buffer_refuses_and_names_its_version() {
        let buffers = Buffers::default();
        let path = PathBuf::from("/ws/a.rs");
        let now = Instant::now();
        assert!(buffers.refuse(&path).is_ok());
        buffers.report(path.clone(), "e1", Report::Opened(buffer(3, false)), now);
        assert!(buffers.refuse(&path).is_ok());
        buffers.report(path.clone(), "e1", Report::Updated(buffer(4, true)), now);
        let error = buffers.refuse(&path).unwrap_err();
        assert_eq!(error.code, Code::Stale);
        assert!(
            error.message.contains("buffer version 4"),
            "{}",
            error.message
        );
        buffers.close(&path, "e1", 4);
        assert!(buffers.refuse(&path).is_ok());
    }

    #[test]
    fn an_older_version_reported_late_does_not_replace_a_newer_one() {
        let buffers = Buffers::default();
        let path = PathBuf::from("/ws/a.rs");
        let now = Instant::now();
        let typed = buffer(2, true);
        let held = buffers.report(path.clone(), "e1", Report::Updated(typed.clone()), now);
        assert_eq!(held, typed);
        let late = buffers.report(path.clone(), "e1", Report::Updated(buffer(1, false)), now);
        assert_eq!(late, typed);
        assert!(buffers.refuse(&path).is_err());
        // A late close (of version 1) leaves the newer buffer too.
        buffers.close(&path, "e1", 1);
        assert!(buffers.refuse(&path).is_err());
        // A save reports the buffer's last version again: it is taken.
        let saved = buffer(2, false);
        let held = buffers.report(path.clone(), "e1", Report::Updated(saved.clone()), now);
        assert_eq!(held, saved);
        assert!(buffers.refuse(&path).is_ok());
    }

    #[test]
    fn only_its_own_session_changes_or_closes_a_buffer() {
        let buffers = Buffers::default();
        let path = PathBuf::from("/ws/a.rs");
        let now = Instant::now();
        buffers.report(path.clone(), "person", Report::Opened(buffer(7, true)), now);
        // Another caller reports the file clean and closes it: the person's claim stands.
        buffers.report(
            path.clone(),
            "other",
            Report::Opened(buffer(99, false)),
            now,
        );
        buffers.close(&path, "other", 99);
        assert_eq!(buffers.refuse(&path).unwrap_err().data["buffer_version"], 7);
        // A folder holding the file is refused too.
        assert!(buffers.refuse(Path::new("/ws")).is_err());
        assert!(buffers.refuse(Path::new("/w")).is_ok());
        // A reopen by the same session starts over, whatever version it held.
        buffers.report(
            path.clone(),
            "person",
            Report::Opened(buffer(1, false)),
            now,
        );
        assert!(buffers.refuse(&path).is_ok());
    }

    #[test]
    fn a_claim_not_renewed_lapses() {
        let buffers = Buffers::default();
        let path = PathBuf::from("/ws/a.rs");
        let then = Instant::now();
        buffers.report(path.clone(), "e1", Report::Opened(buffer(2, true)), then);
        assert!(buffers.refuse_at(&path, then + LEASE / 2).is_err());
        assert!(buffers.refuse_at(&path, then + LEASE).is_ok());
        // Renewed: claimed again.
        buffers.report(
            path.clone(),
            "e1",
            Report::Updated(buffer(2, true)),
            then + LEASE,
        );
        assert!(buffers.refuse_at(&path, then + LEASE).is_err());
    }
}
