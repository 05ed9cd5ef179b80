//! The files git will read before it answers, checked before it runs.
//!
//! git opens its config files, their `include.path`/`includeIf.*.path` targets, the files
//! `core.excludesFile`/`core.attributesFile` name and `info/exclude`/`info/attributes` with a
//! plain blocking `open`. A repository can name a FIFO or a device there, and git then hangs
//! until the call's deadline (and an automatic checkpoint with it). So every such file is
//! checked first: a FIFO, a device or a socket there refuses the call, naming it (a folder reads
//! as nothing and is let through).
//!
//! The repository is the one `repository::find` pinned inside the roots. Each config file, once
//! checked, is read by git itself (`--no-includes`, one file), so its include targets are the
//! values git's own parser sees, as bytes. The repository's own config (and what it includes) is
//! held to the roots: a path it names outside them, or a `core.worktree` that leads out, is C215
//! naming the key; the user's system and global config are theirs and may name any file.

use super::command::{nul_records, Git, GitError, Isolation};
use super::repository::{inside, Pinned};
use coderd_core::error::{Error, Result};
use coderd_core::jail::Jail;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Config keys whose values are files git reads (lowercase, as `--get-regexp` matches them).
const FILE_KEYS: &str =
    r"^(include\.path|includeif\..*\.path|core\.excludesfile|core\.attributesfile)$";

/// `FILE_KEYS` and `core.worktree`, for the repository's own config files: each must stay inside
/// the roots (the user's system and global config are theirs, and may name their home).
const REPOSITORY_KEYS: &str =
    r"^(include\.path|includeif\..*\.path|core\.excludesfile|core\.attributesfile|core\.worktree)$";

/// Nested includes deeper than this are refused (git itself stops at 10).
const MAX_DEPTH: usize = 10;

/// Checks every file git would read for a command run on `repo` (if any) with `isolation`: a
/// FIFO or device is C214, a path the repository's config names outside the roots is C215 naming
/// the key. A `core.worktree` inside the roots becomes `repo.work_tree`.
pub fn check(
    jail: &Jail,
    repo: Option<&mut Pinned>,
    isolation: Isolation,
    deadline: Instant,
) -> Result<()> {
    let mut user = Walk {
        jail: None,
        deadline,
        worktree: None,
    };
    if isolation == Isolation::User {
        user.config(Path::new("/etc/gitconfig"), None, 0)?;
        for global in global_configs() {
            user.config(&global, None, 0)?;
        }
    }
    let Some(repo) = repo else {
        return Ok(());
    };
    let mut own = Walk {
        jail: Some(jail),
        deadline,
        worktree: None,
    };
    // In git's order, so the last `core.worktree` seen is the one git would use.
    let mut configs = vec![
        repo.common_dir.join("config"),
        repo.common_dir.join("config.worktree"),
    ];
    if repo.git_dir != repo.common_dir {
        configs.push(repo.git_dir.join("config.worktree"));
    }
    for config in &configs {
        own.config(config, None, 0)?;
    }
    for git_dir in [&repo.git_dir, &repo.common_dir] {
        check_file(&git_dir.join("info/exclude"), None)?;
        check_file(&git_dir.join("info/attributes"), None)?;
    }
    if let Some(worktree) = own.worktree {
        // Already checked to stay inside; canonical now.
        repo.work_tree = inside(jail, &worktree, String::new)?;
    }
    Ok(())
}

/// The user's global config files, as git looks for them (`GIT_CONFIG_GLOBAL` is never passed).
fn global_configs() -> Vec<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let xdg = wire::paths::config_home();
    let mut files: Vec<PathBuf> = xdg.map(|x| x.join("git/config")).into_iter().collect();
    files.extend(home.map(|h| h.join(".gitconfig")));
    files
}

/// One walk over config files and the files they name.
struct Walk<'a> {
    /// Set for the repository's own config: every path it names must stay inside the roots.
    jail: Option<&'a Jail>,
    deadline: Instant,
    /// The last `core.worktree` the repository's config set.
    worktree: Option<PathBuf>,
}

impl Walk<'_> {
    /// Checks one config file, then every file it names, recursively.
    fn config(&mut self, file: &Path, from: Option<&Path>, depth: usize) -> Result<()> {
        if !check_file(file, from)? {
            return Ok(());
        }
        if depth > MAX_DEPTH {
            return Err(Error::refused(format!(
                "git config: includes nest deeper than {MAX_DEPTH} at {}",
                file.display()
            ))
            .with_recovery("remove the include loop from the repository's config"));
        }
        if !may_name_files(file) {
            return Ok(());
        }
        let folder = file.parent().unwrap_or(Path::new("/"));
        let keys = match self.jail {
            Some(_) => REPOSITORY_KEYS,
            None => FILE_KEYS,
        };
        // No repository around: git would read (and could hang on) the config of one it found.
        let listed = Git::new(Path::new("/"), Isolation::Shadow, self.deadline)
            .env("GIT_DIR", "/dev/null")
            .args(["config", "-z", "--no-includes", "--file"])
            .arg(file)
            .args(["--get-regexp", keys])
            .output();
        let listed = match listed {
            Ok(listed) => listed,
            // The call itself will say so, with its own error.
            Err(GitError::NotInstalled) => return Ok(()),
            Err(e) => return Err(Error::io(format!("reading {}: {e}", file.display()))),
        };
        for record in nul_records(&listed.stdout) {
            let Some(newline) = memchr::memchr(b'\n', record) else {
                continue;
            };
            let (key, value) = (&record[..newline], &record[newline + 1..]);
            let named = resolve(folder, value);
            self.inside(key, &named, file)?;
            if key == b"core.worktree" {
                self.worktree = Some(named);
            } else if key.starts_with(b"include") {
                self.config(&named, Some(file), depth + 1)?;
            } else {
                check_file(&named, Some(file))?;
            }
        }
        Ok(())
    }

    /// For the repository's config: C215 naming `key` when `named` leads outside the roots.
    fn inside(&self, key: &[u8], named: &Path, file: &Path) -> Result<()> {
        let Some(jail) = self.jail else {
            return Ok(());
        };
        let key = String::from_utf8_lossy(key);
        inside(jail, named, || {
            format!("`{key}` in {} names {}", file.display(), named.display())
        })
        .map(drop)
        .map_err(|e| e.with_data("key", key.into_owned()))
    }
}

/// Whether a config file may set one of `FILE_KEYS`: a key's name cannot be escaped or split, so
/// a file without these words sets none of them, and git need not be asked (most config files).
fn may_name_files(file: &Path) -> bool {
    const LARGE: u64 = 1 << 20;
    if std::fs::metadata(file).is_ok_and(|m| m.len() > LARGE) {
        return true;
    }
    let Ok(bytes) = std::fs::read(file) else {
        return true;
    };
    let lower = bytes.to_ascii_lowercase();
    ["include", "excludesfile", "attributesfile", "worktree"]
        .iter()
        .any(|word| memchr::memmem::find(&lower, word.as_bytes()).is_some())
}

/// A path as git resolves it in a config file: `~/` is the home folder, a relative path is
/// relative to the config file's folder.
fn resolve(folder: &Path, value: &[u8]) -> PathBuf {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match (value.strip_prefix(b"~/"), home) {
        (Some(rest), Some(home)) => home.join(OsStr::from_bytes(rest)),
        _ => folder.join(OsStr::from_bytes(value)),
    }
}

/// Whether `file` is there to read: false when it does not exist (or is a folder); an error when
/// it is a FIFO, a device or a socket (a symlink is followed, as git follows it).
fn check_file(file: &Path, from: Option<&Path>) -> Result<bool> {
    let meta = match std::fs::metadata(file) {
        Ok(meta) => meta,
        Err(_) => return Ok(false),
    };
    if meta.is_file() {
        return Ok(true);
    }
    // A folder reads as nothing at once; only what can block an `open` or a read is refused.
    if meta.is_dir() {
        return Ok(false);
    }
    let named_by = from
        .map(|f| format!(" (named by {})", f.display()))
        .unwrap_or_default();
    Err(Error::refused(format!(
        "git would read {}{named_by}, which is {}, not a regular file; git is not run",
        file.display(),
        kind(&meta)
    ))
    .with_recovery("replace it with a regular file or remove the setting that names it")
    .with_data("path", file.to_string_lossy().into_owned()))
}

fn kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    match () {
        _ if t.is_fifo() => "a FIFO",
        _ if t.is_char_device() => "a character device",
        _ if t.is_block_device() => "a block device",
        _ if t.is_socket() => "a socket",
        _ => "a special file",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_are_followed_relative_to_their_file_and_a_fifo_deep_down_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().join("config");
        std::fs::create_dir_all(dir.path().join("sub")).unwrap();
        std::fs::write(&top, "[user]\n\tname = x\n[Include]\n\tPath = sub/second\n").unwrap();
        let second = dir.path().join("sub/second");
        std::fs::write(&second, "[includeIf \"onbranch:never\"]\n\tpath = pipe\n").unwrap();
        let deadline = Instant::now() + std::time::Duration::from_secs(30);
        let mut walk = Walk {
            jail: None,
            deadline,
            worktree: None,
        };
        assert!(walk.config(&top, None, 0).is_ok());
        let fifo = dir.path().join("sub/pipe");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let refused = walk.config(&top, None, 0).unwrap_err();
        assert_eq!(refused.code, coderd_core::error::Code::Refused);
        assert!(refused.message.contains("a FIFO"), "{}", refused.message);
        assert!(refused.message.contains("named by"), "{}", refused.message);
        std::fs::write(&second, "[core]\n\teditor = vi\n").unwrap();
        assert!(!may_name_files(&second));
        assert!(may_name_files(&top));
    }
}
