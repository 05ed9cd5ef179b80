//! A file version: identity and times as the kernel reports them, plus the content hash.

use std::os::unix::fs::MetadataExt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
    /// The content's hash (see `content_hash`).
    pub hash: [u8; 32],
    /// Taken so soon after the file's last change that a further write within the same clock tick
    /// could leave size and times unchanged ("racy", as git calls it): such a stamp never vouches
    /// for the file by metadata alone, the content is compared again.
    pub racy: bool,
}

/// File times advance in clock ticks of a few milliseconds; a stamp younger than this is racy
/// (unless the file system's times are fine-grained, see `timestamps`).
const RACY_NS: i128 = 50_000_000;

impl Stamp {
    /// A stamp of a file whose content (of `size` bytes) was hashed elsewhere (an edit's own
    /// write: racy too when taken within a few ticks of it, since another writer may have written
    /// in the same tick).
    pub fn hashed(meta: &std::fs::Metadata, size: u64, hash: [u8; 32]) -> Stamp {
        let mut stamp = Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            size,
            mtime_ns: nanos(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: nanos(meta.ctime(), meta.ctime_nsec()),
            hash,
            racy: false,
        };
        stamp.racy = changed_just_now(stamp.mtime_ns.max(stamp.ctime_ns))
            && !super::timestamps::fine_grained(stamp.dev);
        stamp
    }

    /// A stamp of a file read from disk: racy when the file changed within the last few ticks.
    pub fn loaded(meta: &std::fs::Metadata, content: &[u8]) -> Stamp {
        Stamp::hashed(meta, content.len() as u64, content_hash(content))
    }

    /// The short string callers see as `version` and pass back as `expect_version`. It is the
    /// content's hash, so a `touch` or a formatter that rewrites identical bytes is no change.
    pub fn version(&self) -> String {
        version_of_hash(&self.hash)
    }

    /// Whether the file on disk is, by identity, size and times, the one this stamp was taken of,
    /// and the stamp is old enough to vouch for it without reading the content again.
    pub fn same_file_state(&self, meta: &std::fs::Metadata) -> bool {
        !self.racy && self.describes(meta)
    }

    /// Whether `meta` (taken of an open file) has this stamp's identity, size and times.
    pub fn describes(&self, meta: &std::fs::Metadata) -> bool {
        self.dev == meta.dev()
            && self.ino == meta.ino()
            && self.size == meta.size()
            && self.mtime_ns == nanos(meta.mtime(), meta.mtime_nsec())
            && self.ctime_ns == nanos(meta.ctime(), meta.ctime_nsec())
    }

    /// Whether `st` (a stat taken without following links) has this stamp's identity, size and
    /// times.
    pub fn describes_stat(&self, st: &rustix::fs::Stat) -> bool {
        self.describes_renamed(st) && nanos(st.st_ctime, st.st_ctime_nsec as i64) == self.ctime_ns
    }

    /// Whether `st` is this stamp's file with its content untouched, though it may have been
    /// renamed since (a rename changes the ctime, nothing else the stamp records).
    pub fn describes_renamed(&self, st: &rustix::fs::Stat) -> bool {
        self.dev == st.st_dev
            && self.ino == st.st_ino
            && self.size == st.st_size as u64
            && self.mtime_ns == nanos(st.st_mtime, st.st_mtime_nsec as i64)
    }
}

/// The hash behind versions: BLAKE3. Every edit hashes its file's new content before it answers,
/// so the hash is on the critical path of each edit; BLAKE3 is several times faster than SHA-256
/// here (SIMD), and still cryptographic, so no writer can make a changed file pass for unchanged.
pub fn content_hash(bytes: &[u8]) -> [u8; 32] {
    let mut hasher = ContentHasher::default();
    hasher.update(bytes);
    hasher.finish()
}

/// `content_hash` fed in pieces (`read --stat` streams a file through it beside its SHA-256).
#[derive(Default)]
pub struct ContentHasher(blake3::Hasher);

impl ContentHasher {
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
    pub fn finish(&self) -> [u8; 32] {
        self.0.finalize().into()
    }
}

/// A version (the hash's first 8 bytes in hex).
pub fn version_of_hash(hash: &[u8; 32]) -> String {
    hash[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether a file time is within a few clock ticks of now: a write in the same tick could have
/// left size and times as they are.
pub fn changed_just_now(time_ns: i128) -> bool {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    now - time_ns < RACY_NS
}

fn nanos(secs: i64, nsec: i64) -> i128 {
    secs as i128 * 1_000_000_000 + nsec as i128
}
