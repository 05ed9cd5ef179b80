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
    /// Records a buffer's state as the editor reported it.
    pub fn set(&self, path: PathBuf, buffer: Buffer) {
        self.lock().insert(path, buffer);
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
}
