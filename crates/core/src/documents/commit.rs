//! The commit protocol: the one way coderd changes a file on disk. Every mutating method goes
//! through here, so every write is atomic, race-free inside the jail, and keeps the file's metadata.
//!
//! 1. The target's folder is opened beneath its root (`openat2`, no symlinks), so a symlink swapped
//!    in anywhere makes the call fail; nothing is ever written outside the roots.
//! 2. The new content goes to an anonymous file in that folder (`O_TMPFILE`; a named temp file
//!    with `O_EXCL` where the file system lacks it), takes the old file's mode, owner and extended
//!    attributes, and is fsynced.
//! 3. It is linked under a temporary name, the target is checked once more against the stamp the
//!    edit was planned on (compare-and-swap), and `renameat` publishes it; creating uses
//!    `RENAME_NOREPLACE`, so "must not exist" is the kernel's guarantee. Then the folder is fsynced.
//!
//! A crash leaves each file old or new, never torn. Temporary names are journaled before they
//! exist, and `Journal::sweep` removes any left behind when the daemon starts again.

use crate::documents::Stamp;
use crate::error::{Code, Error, Result};
use crate::jail::{Jail, Resolved};
use rustix::fs::{AtFlags, Mode, OFlags, RenameFlags, ResolveFlags};
use rustix::io::Errno;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Marks coderd's temporary files, so a sweep never removes anything else.
const TEMP_MARK: &str = ".coderd-tmp-";

/// An open folder beneath a root, and the name of the entry an operation is about.
pub struct Place {
    pub dir: OwnedFd,
    pub name: OsString,
    /// Canonical absolute path of the entry, for messages and the documents store.
    pub abs: PathBuf,
}

/// What an existing file looked like when the edit was planned, and what its replacement keeps.
#[derive(Clone, Debug)]
pub struct Existing {
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub nlink: u64,
}

impl Existing {
    pub fn of(meta: &std::fs::Metadata) -> Existing {
        Existing {
            mode: meta.mode() & 0o7777,
            uid: meta.uid(),
            gid: meta.gid(),
            nlink: meta.nlink(),
        }
    }
}

/// The file an edit was planned on: its stamp, and the content the stamp describes.
#[derive(Clone, Copy)]
pub struct Expected<'a> {
    pub stamp: &'a Stamp,
    pub content: &'a [u8],
}

/// How a publish treats an existing entry at the target.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Publish {
    /// Replace it; it must still be the file the edit was planned on (compare-and-swap).
    Replace,
    /// Fail with C217 if anything exists there (the kernel decides, not a check before).
    CreateNew,
    /// Replace whatever is there (the file was checked by the caller under its lock).
    Overwrite,
}

/// Opens the folder that holds `target`, beneath its root. With `parents`, missing folders are
/// created one by one, each beneath the last one opened.
pub fn place(jail: &Jail, target: &Resolved, parents: bool) -> Result<Place> {
    let Some(name) = target.rel.file_name().map(OsStr::to_os_string) else {
        return Err(Error::refused(format!(
            "{} is a workspace root; it cannot be written, moved or deleted",
            target.abs.display()
        )));
    };
    let parent_rel = target.rel.parent().unwrap_or(Path::new("")).to_path_buf();
    let parent = Resolved {
        abs: target.abs.parent().unwrap_or(&target.abs).to_path_buf(),
        root: target.root,
        rel: parent_rel,
    };
    let dir = match jail.open_beneath(&parent, OFlags::RDONLY | OFlags::DIRECTORY) {
        Ok(dir) => dir,
        Err(e) if e.code == Code::NotFound && parents => create_folders(jail, &parent)?,
        Err(e) if e.code == Code::NotFound => {
            return Err(Error::not_found(format!(
                "the folder {} does not exist",
                parent.abs.display()
            ))
            .with_recovery("create it first, or pass `parents: true`"))
        }
        Err(e) => return Err(e),
    };
    Ok(Place {
        dir,
        name,
        abs: target.abs.clone(),
    })
}

/// Creates the missing folders of `dir` (like `mkdir -p`), each opened beneath the previous one.
fn create_folders(jail: &Jail, dir: &Resolved) -> Result<OwnedFd> {
    let root = Resolved {
        abs: jail.roots()[dir.root].path.clone(),
        root: dir.root,
        rel: PathBuf::new(),
    };
    let mut current = jail.open_beneath(&root, OFlags::RDONLY | OFlags::DIRECTORY)?;
    let mut shown = root.abs.clone();
    for part in dir.rel.iter() {
        shown.push(part);
        let io = |e: Errno| Error::from_io(&e.into(), &shown);
        match rustix::fs::mkdirat(&current, part, Mode::from_raw_mode(0o777)) {
            Ok(()) | Err(Errno::EXIST) => {}
            Err(e) => return Err(io(e)),
        }
        current = open_child_dir(&current, part).map_err(io)?;
    }
    Ok(current)
}

/// Opens a folder's child folder, never through a symlink.
pub fn open_child_dir(dir: &OwnedFd, name: &OsStr) -> rustix::io::Result<OwnedFd> {
    rustix::fs::openat2(
        dir,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
        ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
    )
}

impl Place {
    /// The entry's metadata, not following a symlink.
    pub fn stat(&self) -> Result<Option<rustix::fs::Stat>> {
        match rustix::fs::statat(&self.dir, &self.name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => Ok(Some(st)),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(Error::from_io(&e.into(), &self.abs)),
        }
    }

    /// Checks the file is still the one the edit was planned on (the compare of compare-and-swap).
    pub fn still(&self, expected: Expected) -> Result<()> {
        let stamp = expected.stamp;
        // Size and times cannot vouch for a file changed within the tick the stamp was taken in
        // (an in-place write of the same length keeps them): then its bytes must still be the
        // planned ones. Read first, so the metadata compare stays the last step before the swap.
        if stamp.racy && !self.holds(expected)? {
            return Err(stale(&self.abs));
        }
        if self.stat()?.is_some_and(|st| stamp.describes_stat(&st)) {
            Ok(())
        } else {
            Err(stale(&self.abs))
        }
    }

    /// Whether the entry, read without following links, is still the stamp's file and holds
    /// exactly the planned content (compared chunk by chunk as it is read, no copy kept).
    fn holds(&self, expected: Expected) -> Result<bool> {
        let fd = match rustix::fs::openat(
            &self.dir,
            &self.name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        ) {
            Ok(fd) => fd,
            Err(Errno::NOENT | Errno::LOOP) => return Ok(false),
            Err(e) => return Err(Error::from_io(&e.into(), &self.abs)),
        };
        let st = rustix::fs::fstat(&fd).map_err(|e| Error::from_io(&e.into(), &self.abs))?;
        if st.st_dev != expected.stamp.dev || st.st_ino != expected.stamp.ino {
            return Ok(false);
        }
        crate::documents::reads_as(&mut File::from(fd), [expected.content])
            .map_err(|e| Error::from_io(&e, &self.abs))
    }

    pub fn unlink(&self, dir: bool) -> Result<()> {
        let flags = if dir {
            AtFlags::REMOVEDIR
        } else {
            AtFlags::empty()
        };
        rustix::fs::unlinkat(&self.dir, &self.name, flags)
            .map_err(|e| Error::from_io(&e.into(), &self.abs))
    }
}

pub fn stale(path: &Path) -> Error {
    Error::new(
        Code::Stale,
        format!(
            "{} changed on disk while the edit was being made",
            path.display()
        ),
    )
    .with_recovery("read the file again, then retry the edit")
}

/// A new content, written and synced under a temporary name beside its target, not yet visible
/// under the target's name. Dropping it unpublished removes it.
pub struct Staged<'a> {
    place: &'a Place,
    temp: OsString,
    file: File,
    published: bool,
    /// Declared last: dropped after `Drop for Staged` removed the temp name.
    _journaled: Journaled<'a>,
}

/// Writes `bytes` to a temporary file beside the target, with the metadata of `like` (the file it
/// replaces, open as `source` for its extended attributes) or the default mode for a new file.
pub fn stage<'a>(
    place: &'a Place,
    bytes: &[u8],
    like: Option<(&Existing, &File)>,
    fsync: bool,
    journal: &'a Journal,
) -> Result<Staged<'a>> {
    let io = |e: std::io::Error| Error::from_io(&e, &place.abs);
    let mode = Mode::from_raw_mode(like.map_or(0o666, |(l, _)| l.mode));
    let temp = temp_name(&place.name);
    let journaled = journal.record(&place.abs.with_file_name(&temp));
    let anonymous = rustix::fs::openat(
        &place.dir,
        ".",
        OFlags::TMPFILE | OFlags::WRONLY | OFlags::CLOEXEC,
        mode,
    );
    let (fd, named) = match anonymous {
        Ok(fd) => (fd, false),
        // The file system has no O_TMPFILE: a named temp file, created exclusively.
        Err(Errno::OPNOTSUPP | Errno::ISDIR | Errno::INVAL | Errno::NOENT) => {
            let fd = rustix::fs::openat(
                &place.dir,
                &temp,
                OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                mode,
            )
            .map_err(|e| io(e.into()))?;
            (fd, true)
        }
        Err(e) => return Err(io(e.into())),
    };
    let mut staged = Staged {
        place,
        temp,
        file: File::from(fd),
        published: !named, // nothing to clean up until the anonymous file has a name
        _journaled: journaled,
    };
    let file = &mut staged.file;
    file.write_all(bytes).map_err(io)?;
    if let Some((like, source)) = like {
        keep_metadata(file, like, place)?;
        copy_xattrs(source, file);
    }
    if fsync {
        file.sync_all().map_err(io)?;
    }
    if !named {
        // linkat through /proc gives the anonymous file a name without needing CAP_DAC_READ_SEARCH.
        let proc_path = format!("/proc/self/fd/{}", file.as_raw_fd());
        rustix::fs::linkat(
            rustix::fs::CWD,
            proc_path.as_str(),
            &place.dir,
            &staged.temp,
            AtFlags::SYMLINK_FOLLOW,
        )
        .map_err(|e| io(e.into()))?;
        staged.published = false;
    }
    Ok(staged)
}

/// Owner as far as we are allowed, then the mode: the kernel clears setuid/setgid on `fchown`, so
/// the mode must come second to keep them. When the owner cannot be kept (an unprivileged daemon
/// may not give a file away), setuid/setgid are dropped: the file now belongs to the daemon's
/// user, and keeping the bits would make it a set-id program of a user it never was.
fn keep_metadata(file: &File, like: &Existing, place: &Place) -> Result<()> {
    let owner = (
        rustix::fs::Uid::from_raw(like.uid),
        rustix::fs::Gid::from_raw(like.gid),
    );
    let owned = rustix::fs::fchown(file.as_fd(), Some(owner.0), Some(owner.1)).is_ok();
    let mode = if owned {
        like.mode
    } else {
        like.mode & !0o6000
    };
    rustix::fs::fchmod(file.as_fd(), Mode::from_raw_mode(mode))
        .map_err(|e| Error::from_io(&e.into(), &place.abs))
}

/// Copies extended attributes from the file being replaced (best effort, like the owner).
fn copy_xattrs(from: &File, to: &File) {
    let names = xattr_read(
        || rustix::fs::flistxattr_query(from),
        |buf| rustix::fs::flistxattr(from, buf),
    );
    let Some(names) = names else {
        return;
    };
    // The list is the names, each ending in a NUL byte.
    for name in names.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = OsStr::from_bytes(name);
        let value = xattr_read(
            || rustix::fs::fgetxattr_query(from, name),
            |buf| rustix::fs::fgetxattr(from, name, buf),
        );
        if let Some(value) = value {
            let _ = rustix::fs::fsetxattr(to, name, &value, rustix::fs::XattrFlags::empty());
        }
    }
}

/// Reads a list or a value of extended attributes: `size` asks the kernel how large it is, then
/// `read` reads it. If it grew in between (`ERANGE`), both are asked again, a few times at most.
fn xattr_read(
    size: impl Fn() -> rustix::io::Result<usize>,
    read: impl Fn(&mut [u8]) -> rustix::io::Result<usize>,
) -> Option<Vec<u8>> {
    for _ in 0..4 {
        let size = size().ok()?;
        let mut buffer = vec![0; size];
        match read(&mut buffer) {
            Ok(length) => {
                buffer.truncate(length);
                return Some(buffer);
            }
            Err(Errno::RANGE) => continue,
            Err(_) => return None,
        }
    }
    None
}

impl Staged<'_> {
    /// Sets the staged file's permission bits (for new files whose mode is not the default, as a
    /// checkpoint restore needs for executables).
    pub fn chmod(&self, mode: u32) -> Result<()> {
        rustix::fs::fchmod(self.file.as_fd(), Mode::from_raw_mode(mode))
            .map_err(|e| Error::from_io(&e.into(), &self.place.abs))
    }

    /// The metadata of the staged file (its inode is the one the target will have).
    pub fn metadata(&self) -> Result<std::fs::Metadata> {
        self.file
            .metadata()
            .map_err(|e| Error::from_io(&e, &self.place.abs))
    }

    /// Makes the staged content the target's. `Replace` checks `expected` before the swap and the
    /// replaced file after it (see `exchange`); `sync_folder` fsyncs the folder after the rename
    /// (a transaction over several files passes false and syncs each folder once at the end).
    /// Returns the published file's metadata, taken from the staged handle after the rename: it
    /// describes our content even if another program replaces the name right after. If another
    /// program wrote *into* the file once it had the name (opening the target at once), it
    /// returns the metadata from before the rename instead, which no longer describes the file
    /// (see `untouched`), so the next use reads the file rather than trusting a stale stamp.
    pub fn publish(
        mut self,
        how: Publish,
        expected: Option<Expected>,
        sync_folder: bool,
    ) -> Result<std::fs::Metadata> {
        let place = self.place;
        let staged = self.metadata()?;
        if let (Publish::Replace, Some(expected)) = (how, expected) {
            place.still(expected)?;
            self.exchange(expected.stamp)?;
        } else {
            self.rename(how)?;
        }
        self.published = true;
        if sync_folder {
            sync_dir(&place.dir, &place.abs)?;
        }
        let published = self.metadata()?;
        Ok(if untouched(&staged, &published) {
            published
        } else {
            staged
        })
    }

    /// Publishes over the stamp's file by swapping names with it (`RENAME_EXCHANGE`), so the file
    /// replaced still has a name (the temp one) afterwards and can be checked once more: a foreign
    /// write that landed between the last compare and the swap (a rename over the target, or an
    /// in-place rewrite whose truncation came first) is found there, and the swap is undone,
    /// so the foreign write stays and the edit answers C212 instead of silently erasing it.
    fn exchange(&mut self, stamp: &Stamp) -> Result<()> {
        let place = self.place;
        let swap = || {
            rustix::fs::renameat_with(
                &place.dir,
                &self.temp,
                &place.dir,
                &place.name,
                RenameFlags::EXCHANGE,
            )
        };
        match swap() {
            Ok(()) => {}
            // File systems without the exchange: a plain rename (the compare stays the last step).
            Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => {
                return self.rename(Publish::Replace)
            }
            Err(e) => return Err(Error::from_io(&e.into(), &place.abs)),
        }
        // The swap changed the replaced file's ctime; the rest must still be the stamp's.
        let replaced = rustix::fs::statat(&place.dir, &self.temp, AtFlags::SYMLINK_NOFOLLOW);
        if replaced.is_ok_and(|st| stamp.describes_renamed(&st)) {
            // Our content is published; the temp name now holds the old file, which goes.
            let _ = rustix::fs::unlinkat(&place.dir, &self.temp, AtFlags::empty());
            return Ok(());
        }
        // Swap back: the foreign file is the target again, ours is the temp (dropped unpublished).
        if let Err(e) = swap() {
            // The temp name holds the other program's content now: keep it, say where.
            self.published = true;
            return Err(Error::from_io(&e.into(), &place.abs).with_recovery(format!(
                "another program wrote the file during the edit; its content is kept as {}",
                place.abs.with_file_name(&self.temp).display()
            )));
        }
        Err(stale(&place.abs))
    }

    /// Publishes with a plain rename (`RENAME_NOREPLACE` when creating).
    fn rename(&mut self, how: Publish) -> Result<()> {
        let place = self.place;
        let renamed = match how {
            Publish::CreateNew => rustix::fs::renameat_with(
                &place.dir,
                &self.temp,
                &place.dir,
                &place.name,
                RenameFlags::NOREPLACE,
            ),
            Publish::Replace | Publish::Overwrite => {
                rustix::fs::renameat(&place.dir, &self.temp, &place.dir, &place.name)
            }
        };
        match renamed {
            Ok(()) => {}
            Err(Errno::EXIST) => {
                return Err(Error::new(
                    Code::Exists,
                    format!("{} already exists", place.abs.display()),
                )
                .with_recovery("pass `overwrite: true` to replace it, or choose another path"))
            }
            Err(e) => return Err(Error::from_io(&e.into(), &place.abs)),
        }
        self.published = true;
        Ok(())
    }
}

impl Drop for Staged<'_> {
    fn drop(&mut self) {
        if !self.published {
            let _ = rustix::fs::unlinkat(&self.place.dir, &self.temp, AtFlags::empty());
        }
    }
}

/// Whether no write reached the file between two reads of its metadata: a write sets the mtime,
/// and after a read of the times it sets a newer one (multigrain timestamps) or one within the
/// tick a racy stamp re-checks anyway. A rename changes only the ctime.
fn untouched(before: &std::fs::Metadata, after: &std::fs::Metadata) -> bool {
    before.size() == after.size()
        && before.mtime() == after.mtime()
        && before.mtime_nsec() == after.mtime_nsec()
}

/// Closes files off the request path. Closing the last handle of a file an edit just replaced
/// frees its page cache, which for a large file costs as much as a good part of the edit.
pub fn close_later(files: impl IntoIterator<Item = File>) {
    static CLOSER: std::sync::OnceLock<Option<std::sync::mpsc::Sender<File>>> =
        std::sync::OnceLock::new();
    let closer = CLOSER.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<File>();
        std::thread::Builder::new()
            .name("closer".into())
            .spawn(move || rx.into_iter().for_each(drop))
            .ok()
            .map(|_| tx)
    });
    for file in files {
        // Without the thread (it could not start), the file closes here.
        if let Some(tx) = closer {
            let _ = tx.send(file);
        }
    }
}

pub fn sync_dir(dir: &OwnedFd, shown: &Path) -> Result<()> {
    rustix::fs::fsync(dir).map_err(|e| Error::from_io(&e.into(), shown))
}

fn temp_name(target: &OsStr) -> OsString {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    // Keep the name short: NAME_MAX is 255 bytes and the target's own name may be long.
    let stem: Vec<u8> = target.as_bytes().iter().take(64).copied().collect();
    let mut name = OsString::from(".");
    name.push(OsStr::from_bytes(&stem));
    name.push(format!("{TEMP_MARK}{}-{n}-{nonce:08x}", std::process::id()));
    name
}

/// Temporary names the daemon gave files, recorded before they exist, so a daemon killed between
/// naming a temp file and renaming it leaves nothing behind after its next start.
/// The journal is emptied whenever no temp name is outstanding, so it stays a few lines long
/// however long the daemon runs.
pub struct Journal {
    file: Option<Mutex<JournalFile>>,
    path: Option<PathBuf>,
}

struct JournalFile {
    file: File,
    /// Temp names recorded whose staged file is still alive.
    outstanding: usize,
}

/// One recorded temp name; dropping it (the temp is published or removed) may empty the journal.
struct Journaled<'a> {
    journal: &'a Journal,
}

impl Drop for Journaled<'_> {
    fn drop(&mut self) {
        if let Some(file) = &self.journal.file {
            let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
            file.outstanding = file.outstanding.saturating_sub(1);
            if file.outstanding == 0 {
                let _ = file.file.set_len(0);
            }
        }
    }
}

impl Journal {
    /// A journal in `dir`; without one (no writable state folder) temp names are not journaled.
    pub fn open(dir: Option<&Path>) -> Journal {
        let Some(dir) = dir else {
            return Journal {
                file: None,
                path: None,
            };
        };
        let path = dir.join("temp-files.journal");
        let file = wire::paths::create_private_dir(dir)
            .and_then(|_| {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)
            })
            .map_err(|e| tracing::warn!("no temp-file journal at {}: {e}", path.display()))
            .ok();
        Journal {
            file: file.map(|file| {
                Mutex::new(JournalFile {
                    file,
                    outstanding: 0,
                })
            }),
            path: Some(path),
        }
    }

    fn record(&self, temp: &Path) -> Journaled<'_> {
        if let Some(file) = &self.file {
            let mut line = temp.as_os_str().as_bytes().to_vec();
            line.push(b'\n');
            let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
            file.outstanding += 1;
            let _ = file.file.write_all(&line);
        }
        Journaled { journal: self }
    }

    /// Removes temp files a previous run left (only names carrying coderd's mark, only inside the
    /// jail, never through a symlink), then empties the journal. Returns how many were removed.
    pub fn sweep(&self, jail: &Jail) -> usize {
        let Some(path) = &self.path else { return 0 };
        let Ok(text) = std::fs::read(path) else {
            return 0;
        };
        let mut removed = 0;
        for line in text.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let temp = Path::new(OsStr::from_bytes(line));
            let marked = temp.file_name().is_some_and(|n| {
                n.as_bytes()
                    .windows(TEMP_MARK.len())
                    .any(|w| w == TEMP_MARK.as_bytes())
            });
            let Some(resolved) = marked.then(|| jail.locate(temp)).flatten() else {
                continue;
            };
            if let Ok(place) = place(jail, &resolved, false) {
                if place.stat().ok().flatten().is_some() && place.unlink(false).is_ok() {
                    removed += 1;
                }
            }
        }
        if let Some(file) = &self.file {
            let file = file.lock().unwrap_or_else(|e| e.into_inner());
            let _ = file.file.set_len(0);
        }
        removed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    /// A workspace with `a.txt` holding `planned`, and the stamp an edit planned on.
    fn planned_on(planned: &str) -> (tempfile::TempDir, Jail, Stamp) {
        let dir = tempfile::tempdir().unwrap();
        let jail = Jail::new(&[dir.path().to_path_buf()], &Config::default().jail).unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, planned).unwrap();
        let stamp = Stamp::loaded(&std::fs::metadata(&file).unwrap(), planned.as_bytes());
        (dir, jail, stamp)
    }

    /// Stages `ours` for `a.txt` and publishes it by exchange over what is there now.
    fn exchange(dir: &Path, jail: &Jail, stamp: &Stamp, ours: &str) -> Result<()> {
        let journal = Journal::open(None);
        let target = jail.resolve("file", "a.txt").unwrap();
        let place = place(jail, &target, false).unwrap();
        let mut staged = stage(&place, ours.as_bytes(), None, false, &journal).unwrap();
        let outcome = staged.exchange(stamp);
        staged.published = outcome.is_ok();
        drop(staged);
        let names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["a.txt"], "no temp file is left either way");
        outcome
    }

    #[test]
    fn an_exchange_over_the_planned_file_publishes() {
        let (dir, jail, stamp) = planned_on("planned on\n");
        exchange(dir.path(), &jail, &stamp, "ours\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
            "ours\n"
        );
    }

    /// The swap-back, forced: another program renamed its file over the target after the stamp
    /// was taken (as if between the last compare and the swap).
    #[test]
    fn an_exchange_over_a_foreign_file_swaps_back_and_keeps_it() {
        let (dir, jail, stamp) = planned_on("planned on\n");
        let other = dir.path().join("other");
        std::fs::write(&other, "foreign\n").unwrap();
        std::fs::rename(&other, dir.path().join("a.txt")).unwrap();
        let error = exchange(dir.path(), &jail, &stamp, "ours\n").unwrap_err();
        assert_eq!(error.code, Code::Stale, "{error}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
            "foreign\n"
        );
    }

    /// Extended attributes follow the content to the replacing file, values of any size.
    #[test]
    fn extended_attributes_are_copied() {
        let dir = tempfile::tempdir().unwrap();
        let from = File::create(dir.path().join("from")).unwrap();
        let to = File::create(dir.path().join("to")).unwrap();
        let long = vec![b'v'; 3000];
        let flags = rustix::fs::XattrFlags::empty();
        match rustix::fs::fsetxattr(&from, "user.coderd.a", b"1", flags) {
            Ok(()) => {}
            // A file system without user attributes has nothing to copy.
            Err(Errno::NOTSUP) => return,
            Err(e) => panic!("setting an attribute: {e}"),
        }
        rustix::fs::fsetxattr(&from, "user.coderd.long", &long, flags).unwrap();
        copy_xattrs(&from, &to);
        let value = |name: &str| {
            xattr_read(
                || rustix::fs::fgetxattr_query(&to, name),
                |buf| rustix::fs::fgetxattr(&to, name, buf),
            )
        };
        assert_eq!(value("user.coderd.a").as_deref(), Some(&b"1"[..]));
        assert_eq!(value("user.coderd.long"), Some(long));
    }
}
