//! The journal of the `.bak` files coderd wrote, so `clean` removes those and nothing else.
//!
//! A `<file>.bak` beside a file may be the user's own (a database dump, an editor's copy): its
//! name proves nothing. Each backup an edit publishes is recorded here with the identity of the
//! file it published (device, inode, size, modification time); `clean` removes a `.bak` only when
//! the file there still has that identity, so a backup the user replaced or wrote is never ours.
//!
//! One journal per workspace (a hash of its roots, as for checkpoints) under the daemon's data
//! folder, one line per backup: `dev ino size mtime_s mtime_ns base64(path)`. Lines are appended
//! (one `write` each, so daemons sharing the file do not interleave them); the journal is
//! compacted (the newest line per path whose file still matches) when `clean` runs and when it
//! outgrows `COMPACT_AT`. A line lost to a concurrent compaction only means a backup is kept.

use base64::Engine;
use coderd_core::workspace::Workspace;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A journal bigger than this is compacted on the next record.
const COMPACT_AT: u64 = 1 << 20;

/// Serializes this daemon's appends and compactions.
static WRITING: Mutex<()> = Mutex::new(());

/// What identifies the file a backup was published as.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Identity {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime: i64,
    pub mtime_nsec: i64,
}

impl Identity {
    pub fn of_metadata(meta: &std::fs::Metadata) -> Identity {
        use std::os::unix::fs::MetadataExt;
        Identity {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: meta.mtime(),
            mtime_nsec: meta.mtime_nsec(),
        }
    }

    pub fn of_stat(st: &rustix::fs::Stat) -> Identity {
        Identity {
            dev: st.st_dev,
            ino: st.st_ino,
            size: st.st_size as u64,
            mtime: st.st_mtime,
            mtime_nsec: st.st_mtime_nsec as i64,
        }
    }
}

/// The journal file of this workspace; none without a data folder.
fn journal(state: &Workspace) -> Option<PathBuf> {
    let roots: Vec<&Path> = state
        .jail
        .roots()
        .iter()
        .map(|r| r.path.as_path())
        .collect();
    let tag = wire::tag::of_paths(&roots);
    Some(
        wire::paths::data_dir()?
            .join("backups")
            .join(format!("{tag}.journal")),
    )
}

/// Records a backup just published at `path`. Best effort: a backup left out of the journal is
/// only kept by `clean`, so a failure here is logged and the edit goes on.
pub fn record(state: &Workspace, path: &Path, meta: &std::fs::Metadata) {
    let Some(file) = journal(state) else {
        return;
    };
    let _writing = WRITING.lock().unwrap_or_else(|e| e.into_inner());
    if let Err(e) = append(&file, path, Identity::of_metadata(meta)) {
        tracing::warn!("backup journal {}: {e}", file.display());
    }
    if std::fs::metadata(&file).is_ok_and(|m| m.len() > COMPACT_AT) {
        let kept = read(&file);
        if let Err(e) = rewrite(&file, &kept) {
            tracing::warn!("compacting the backup journal {}: {e}", file.display());
        }
    }
}

/// Whether backups are journaled at all (there is a data folder).
pub fn journaled(state: &Workspace) -> bool {
    journal(state).is_some()
}

/// The backups coderd wrote, newest identity per path.
pub fn recorded(state: &Workspace) -> BTreeMap<PathBuf, Identity> {
    journal(state).map(|file| read(&file)).unwrap_or_default()
}

/// Rewrites the journal with `kept` only (after `clean` removed or dropped the others).
pub fn keep_only(state: &Workspace, kept: &BTreeMap<PathBuf, Identity>) {
    let Some(file) = journal(state) else {
        return;
    };
    let _writing = WRITING.lock().unwrap_or_else(|e| e.into_inner());
    if let Err(e) = rewrite(&file, kept) {
        tracing::warn!("rewriting the backup journal {}: {e}", file.display());
    }
}

fn line(path: &Path, id: Identity) -> Vec<u8> {
    let name = base64::engine::general_purpose::STANDARD.encode(path.as_os_str().as_bytes());
    format!(
        "{} {} {} {} {} {name}\n",
        id.dev, id.ino, id.size, id.mtime, id.mtime_nsec
    )
    .into_bytes()
}

fn append(file: &Path, path: &Path, id: Identity) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    if let Some(folder) = file.parent() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(folder)?;
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(file)?
        .write_all(&line(path, id))
}

/// The journal's lines, the last one per path winning; lines that do not parse are dropped.
fn read(file: &Path) -> BTreeMap<PathBuf, Identity> {
    let text = std::fs::read(file).unwrap_or_default();
    let mut entries = BTreeMap::new();
    for raw in text.split(|b| *b == b'\n') {
        if let Some((path, id)) = parse(raw) {
            entries.insert(path, id);
        }
    }
    entries
}

fn parse(raw: &[u8]) -> Option<(PathBuf, Identity)> {
    let text = std::str::from_utf8(raw).ok()?;
    let mut fields = text.split(' ');
    let mut number = || fields.next()?.parse::<i64>().ok();
    let id = Identity {
        dev: number()? as u64,
        ino: number()? as u64,
        size: number()? as u64,
        mtime: number()?,
        mtime_nsec: number()?,
    };
    let name = base64::engine::general_purpose::STANDARD
        .decode(text.rsplit(' ').next()?)
        .ok()?;
    Some((PathBuf::from(OsStr::from_bytes(&name)), id))
}

/// Replaces the journal with `entries` (a new file renamed over it).
fn rewrite(file: &Path, entries: &BTreeMap<PathBuf, Identity>) -> std::io::Result<()> {
    let mut bytes = Vec::new();
    for (path, id) in entries {
        bytes.extend_from_slice(&line(path, *id));
    }
    let temp = file.with_extension(format!("journal.{}", std::process::id()));
    std::fs::write(&temp, bytes)?;
    std::fs::rename(&temp, file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_with_any_name_and_the_last_line_per_path_wins() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("j/x.journal");
        let id = |ino| Identity {
            dev: 1,
            ino,
            size: 3,
            mtime: -4,
            mtime_nsec: 5,
        };
        let odd = Path::new(OsStr::from_bytes(b"/w/a b\xff.bak"));
        append(&file, odd, id(1)).unwrap();
        append(&file, Path::new("/w/c.bak"), id(2)).unwrap();
        append(&file, odd, id(3)).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .unwrap()
            .write_all(b"garbage\n")
            .unwrap();
        let entries = read(&file);
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[odd], id(3));
        rewrite(&file, &entries).unwrap();
        assert_eq!(read(&file), entries);
    }
}
