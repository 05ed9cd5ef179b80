//! A file version: identity and times as the kernel reports them, plus the content hash.

use sha2::{Digest, Sha256};
use std::os::unix::fs::MetadataExt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
    pub sha256: [u8; 32],
}

impl Stamp {
    pub fn new(meta: &std::fs::Metadata, content: &[u8]) -> Stamp {
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            size: content.len() as u64,
            mtime_ns: nanos(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: nanos(meta.ctime(), meta.ctime_nsec()),
            sha256: Sha256::digest(content).into(),
        }
    }

    /// The short string callers see as `version` and pass back as `expect_version`. It is the
    /// content's hash, so a `touch` or a formatter that rewrites identical bytes is no change.
    pub fn version(&self) -> String {
        version_of_hash(&self.sha256)
    }

    /// Whether the file on disk is, by identity, size and times, the one this stamp was taken of.
    pub fn same_file_state(&self, meta: &std::fs::Metadata) -> bool {
        self.dev == meta.dev()
            && self.ino == meta.ino()
            && self.size == meta.size()
            && self.mtime_ns == nanos(meta.mtime(), meta.mtime_nsec())
            && self.ctime_ns == nanos(meta.ctime(), meta.ctime_nsec())
    }
}

pub fn version_of(content: &[u8]) -> String {
    version_of_hash(&Sha256::digest(content).into())
}

fn version_of_hash(hash: &[u8; 32]) -> String {
    hash[..8].iter().map(|b| format!("{b:02x}")).collect()
}

pub fn nanos(secs: i64, nsec: i64) -> i128 {
    secs as i128 * 1_000_000_000 + nsec as i128
}
