//! Whether a file system's change times tell every write apart.
//!
//! File times usually advance in clock ticks of a few milliseconds, so two writes within one tick
//! can leave size and times equal, and a stamp that young cannot vouch for the file ("racy", see
//! `Stamp`): the content is compared again, which costs an edit of a large file two reads of it.
//! Linux 6.13 and later give ext4, xfs, btrfs and tmpfs *multigrain* timestamps instead: once a
//! file's times have been read (every stamp reads them), its next change gets a fine-grained time,
//! newer than any time handed out before. There, a stamp is never racy.
//!
//! Nothing reports the feature, so it is probed: on each root's file system, an unnamed temporary
//! file (`O_TMPFILE`: no name ever appears in the folder; a watcher of the folder may see writes to
//! a `#<inode>` entry that does not exist) is written and stat'ed in a tight loop.
//! With coarse times, most of those writes share a tick; with multigrain times, every write has a
//! time of its own. Any doubt (no `O_TMPFILE`, a read-only root, one repeated time) keeps the
//! careful rule.

use rustix::fs::{Mode, OFlags};
use std::path::Path;
use std::sync::RwLock;

/// Writes in the probe: all must get distinct times. Each takes microseconds, so a coarse clock
/// (ticks of 1 ms or more) cannot pass by luck.
const PROBE_WRITES: usize = 16;

/// Devices whose file systems passed the probe.
static FINE: RwLock<Vec<u64>> = RwLock::new(Vec::new());

/// Whether files on `dev` get a distinct change time for every write made after their times were
/// read.
pub fn fine_grained(dev: u64) -> bool {
    FINE.read()
        .unwrap_or_else(|e| e.into_inner())
        .contains(&dev)
}

/// Probes the file system holding `dir` (a root) and records it when it passed. Returns whether
/// it did.
pub fn probe(dir: &Path) -> bool {
    let Some(dev) = distinct_times(dir) else {
        return false;
    };
    let mut fine = FINE.write().unwrap_or_else(|e| e.into_inner());
    if !fine.contains(&dev) {
        fine.push(dev);
    }
    true
}

/// The device of `dir` when `PROBE_WRITES` writes to an unnamed file there all got distinct times.
fn distinct_times(dir: &Path) -> Option<u64> {
    let fd = rustix::fs::open(
        dir,
        OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    )
    .ok()?;
    let mut seen = Vec::with_capacity(PROBE_WRITES);
    for i in 0..PROBE_WRITES {
        rustix::io::pwrite(&fd, &[i as u8], 0).ok()?;
        let st = rustix::fs::fstat(&fd).ok()?;
        let time = (st.st_mtime, st.st_mtime_nsec, st.st_ctime, st.st_ctime_nsec);
        if seen.contains(&time) {
            return None;
        }
        seen.push(time);
    }
    let st = rustix::fs::fstat(&fd).ok()?;
    Some(st.st_dev)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn a_probe_records_only_what_passed() {
        let dir = tempfile::tempdir().unwrap();
        let dev = std::fs::metadata(dir.path()).unwrap().dev();
        let passed = probe(dir.path());
        assert_eq!(fine_grained(dev), passed);
        // Not a folder: no probe file, nothing recorded for it.
        assert!(!probe(&dir.path().join("missing")));
    }
}
