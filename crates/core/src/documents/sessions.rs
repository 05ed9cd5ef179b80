//! Which version of each file each client session last read, so a line-number edit made from an
//! outdated read is refused instead of landing on the wrong lines.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Sessions remembered before the oldest are forgotten (each entry is a path and a version).
const MAX_ENTRIES: usize = 100_000;

#[derive(Default)]
pub struct Sessions {
    reads: Mutex<HashMap<(String, PathBuf), String>>,
}

impl Sessions {
    pub fn note_read(&self, session: &str, path: &Path, version: &str) {
        let mut reads = self.reads.lock().unwrap_or_else(|e| e.into_inner());
        if reads.len() >= MAX_ENTRIES {
            reads.clear();
        }
        reads.insert(
            (session.to_string(), path.to_path_buf()),
            version.to_string(),
        );
    }

    /// The version this session last read (or wrote: an edit's result counts as read).
    pub fn last_read(&self, session: &str, path: &Path) -> Option<String> {
        let reads = self.reads.lock().unwrap_or_else(|e| e.into_inner());
        reads
            .get(&(session.to_string(), path.to_path_buf()))
            .cloned()
    }
}
