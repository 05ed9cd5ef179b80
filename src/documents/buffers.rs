//! Editors' buffers: the files a person has open in an editor (through `coderd lsp`), with the
//! buffer's version and whether it holds unsaved changes. An edit to a file whose buffer differs
//! from the file on disk is refused C212 (`refuse`): writing under a person's unsaved text would
//! make their next save undo the agent's edit, or the agent's edit vanish under it.
//!
//! Whether a buffer is dirty is decided when the editor reports it (open, change, save): its text
//! against the file's current bytes. A buffer that matched the disk when last reported stays
//! clean when the agent then edits the file: the editor reloads a clean buffer from disk.

use crate::error::{Code, Error, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One open buffer.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Buffer {
    /// The editor's version of the buffer (LSP's `version`).
    pub version: i64,
    /// The buffer's text differs from the file on disk.
    pub dirty: bool,
}

#[derive(Default)]
pub struct Buffers {
    open: Mutex<HashMap<PathBuf, Buffer>>,
}

impl Buffers {
    /// Records a buffer's state as the editor reported it, unless a later version is held
    /// already (an editor's notifications may reach the daemon out of order; LSP versions only
    /// grow). Answers the state held after the report.
    pub fn set(&self, path: PathBuf, buffer: Buffer) -> Buffer {
        let mut open = self.lock();
        match open.get(&path) {
            Some(held) if held.version > buffer.version => held.clone(),
            _ => {
                open.insert(path, buffer.clone());
                buffer
            }
        }
    }

    /// The editor closed the buffer.
    pub fn close(&self, path: &Path) {
        self.lock().remove(path);
    }

    pub fn get(&self, path: &Path) -> Option<Buffer> {
        self.lock().get(path).cloned()
    }

    /// C212 when an editor holds unsaved changes to the file.
    pub fn refuse(&self, path: &Path) -> Result<()> {
        let Some(buffer) = self.get(path).filter(|b| b.dirty) else {
            return Ok(());
        };
        Err(Error::new(
            Code::Stale,
            format!(
                "{} has unsaved changes in an editor (buffer version {})",
                path.display(),
                buffer.version
            ),
        )
        .with_recovery(
            "ask the person to save the file (or undo their changes), then read it again and retry",
        )
        .with_data("buffer_version", buffer.version))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Buffer>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_dirty_buffer_refuses_and_names_its_version() {
        let buffers = Buffers::default();
        let path = PathBuf::from("/ws/a.rs");
        assert!(buffers.refuse(&path).is_ok());
        let clean = Buffer {
            version: 3,
            dirty: false,
        };
        buffers.set(path.clone(), clean);
        assert!(buffers.refuse(&path).is_ok());
        buffers.set(
            path.clone(),
            Buffer {
                version: 4,
                dirty: true,
            },
        );
        let error = buffers.refuse(&path).unwrap_err();
        assert_eq!(error.code, Code::Stale);
        assert!(
            error.message.contains("buffer version 4"),
            "{}",
            error.message
        );
        buffers.close(&path);
        assert!(buffers.refuse(&path).is_ok());
    }

    #[test]
    fn an_older_version_reported_late_does_not_replace_a_newer_one() {
        let buffers = Buffers::default();
        let path = PathBuf::from("/ws/a.rs");
        let typed = Buffer {
            version: 2,
            dirty: true,
        };
        assert_eq!(buffers.set(path.clone(), typed.clone()), typed);
        let opened = Buffer {
            version: 1,
            dirty: false,
        };
        assert_eq!(buffers.set(path.clone(), opened), typed);
        assert!(buffers.refuse(&path).is_err());
        // A save reports the buffer's last version again: it is taken.
        let saved = Buffer {
            version: 2,
            dirty: false,
        };
        assert_eq!(buffers.set(path.clone(), saved.clone()), saved);
        assert!(buffers.refuse(&path).is_ok());
    }
}
