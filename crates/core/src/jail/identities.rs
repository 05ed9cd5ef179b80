//! Secrets by identity: a secret is a file (or folder), not a name. The jail keeps the identity
//! of every file and folder its non-accessible globs match (found by the secrets walk, see
//! `exec::sandbox::secrets`), and refuses a path whose file, or a folder above it inside the root,
//! is one of them, whatever it is called now: renamed, moved, hard-linked.
//!
//! An identity is the device, the inode and, where the file system keeps it, the birth time: a
//! rename or a new hard link keeps all three, while a new file that reuses a deleted secret's
//! inode has a later birth time and is not mistaken for it.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::sync::RwLock;
use std::time::SystemTime;

/// What stays the same across a rename or a hard link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Identity {
    dev: u64,
    ino: u64,
    born: Option<SystemTime>,
}

impl Identity {
    pub fn of(meta: &std::fs::Metadata) -> Identity {
        Identity {
            dev: meta.dev(),
            ino: meta.ino(),
            born: meta.created().ok(),
        }
    }

    pub fn inode(&self) -> u64 {
        self.ino
    }
}

/// The identities of the secrets the last walk found; replaced whole by each walk.
#[derive(Default)]
pub struct Identities {
    known: RwLock<HashSet<Identity>>,
}

impl Identities {
    pub fn replace(&self, found: HashSet<Identity>) {
        *self.known.write().unwrap_or_else(|e| e.into_inner()) = found;
    }

    /// A copy of the set, for the walk that renews it.
    pub fn snapshot(&self) -> HashSet<Identity> {
        self.read().clone()
    }

    pub fn is_empty(&self) -> bool {
        self.read().is_empty()
    }

    pub fn contains(&self, meta: &std::fs::Metadata) -> bool {
        self.read().contains(&Identity::of(meta))
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, HashSet<Identity>> {
        self.known.read().unwrap_or_else(|e| e.into_inner())
    }
}
