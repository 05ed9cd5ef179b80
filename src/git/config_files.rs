//! The files git will read before it answers, checked before it runs.
//!
//! git opens its config files, their `include.path`/`includeIf.*.path` targets, the files
//! `core.excludesFile`/`core.attributesFile` name and `info/exclude`/`info/attributes` with a
//! plain blocking `open`. A repository can name a FIFO or a device there, and git then hangs
//! until the call's deadline (and an automatic checkpoint with it). So every such file is
//! checked first: a FIFO, a device or a socket there refuses the call, naming it (a folder reads
//! as nothing and is let through).
//!
//! The repository is found the way git finds it (`.git` folder or `gitdir:` file, walking up),
//! without running git, since git reads the repository's config even to say where it is. Each
//! config file, once checked, is read by git itself (`--no-includes`, one file), so its include
//! targets are the values git's own parser sees, as bytes.

use super::command::{nul_records, Git, GitError, Isolation};
use crate::error::{Error, Result};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Config keys whose values are files git reads (lowercase, as `--get-regexp` matches them).
const FILE_KEYS: &str =
    r"^(include\.path|includeif\..*\.path|core\.excludesfile|core\.attributesfile)$";

/// Nested includes deeper than this are refused (git itself stops at 10).
const MAX_DEPTH: usize = 10;

/// Checks every file git would read for a command run in `dir` with `isolation`.
pub fn check(dir: &Path, isolation: Isolation, deadline: Instant) -> Result<()> {
    let mut configs: Vec<PathBuf> = Vec::new();
    if isolation == Isolation::User {
        configs.push(PathBuf::from("/etc/gitconfig"));
        configs.extend(global_configs());
    }
    if let Some(repo) = find_repository(dir) {
        for git_dir in [&repo.git_dir, &repo.common_dir] {
            configs.push(git_dir.join("config"));
            configs.push(git_dir.join("config.worktree"));
            check_file(&git_dir.join("info/exclude"), None)?;
            check_file(&git_dir.join("info/attributes"), None)?;
        }
    }
    for config in configs {
        check_config(&config, None, 0, deadline)?;
    }
    Ok(())
}

/// The user's global config files, as git looks for them (`GIT_CONFIG_GLOBAL` is never passed).
fn global_configs() -> Vec<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let xdg = crate::paths::config_home();
    let mut files: Vec<PathBuf> = xdg.map(|x| x.join("git/config")).into_iter().collect();
    files.extend(home.map(|h| h.join(".gitconfig")));
    files
}

/// Checks one config file, then every file it names, recursively.
fn check_config(file: &Path, from: Option<&Path>, depth: usize, deadline: Instant) -> Result<()> {
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
    // No repository around: git would read (and could hang on) the config of one it found.
    let listed = Git::new(Path::new("/"), Isolation::Shadow, deadline)
        .env("GIT_DIR", "/dev/null")
        .args(["config", "-z", "--no-includes", "--file"])
        .arg(file)
        .args(["--get-regexp", FILE_KEYS])
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
        if key.starts_with(b"include") {
            check_config(&named, Some(file), depth + 1, deadline)?;
        } else {
            check_file(&named, Some(file))?;
        }
    }
    Ok(())
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
    ["include", "excludesfile", "attributesfile"]
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

/// Where a work tree's repository is.
struct Repository {
    git_dir: PathBuf,
    /// The shared repository of a linked work tree (`commondir`); else `git_dir` again.
    common_dir: PathBuf,
}

/// The repository holding `dir`, found as git finds it: the nearest `.git` upward, a folder or a
/// `gitdir: PATH` file.
fn find_repository(dir: &Path) -> Option<Repository> {
    let git_dir = dir.ancestors().find_map(|folder| {
        let dot_git = folder.join(".git");
        let meta = std::fs::metadata(&dot_git).ok()?;
        if meta.is_dir() {
            return Some(dot_git);
        }
        if !meta.is_file() {
            return None;
        }
        let text = std::fs::read(&dot_git).ok()?;
        let named = text.strip_prefix(b"gitdir:")?.trim_ascii();
        Some(folder.join(OsStr::from_bytes(named)))
    })?;
    let common_dir = match std::fs::read(git_dir.join("commondir")) {
        Ok(text) => git_dir.join(OsStr::from_bytes(text.trim_ascii())),
        Err(_) => git_dir.clone(),
    };
    Some(Repository {
        git_dir,
        common_dir,
    })
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
        assert!(check_config(&top, None, 0, deadline).is_ok());
        let fifo = dir.path().join("sub/pipe");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let refused = check_config(&top, None, 0, deadline).unwrap_err();
        assert_eq!(refused.code, crate::error::Code::Refused);
        assert!(refused.message.contains("a FIFO"), "{}", refused.message);
        assert!(refused.message.contains("named by"), "{}", refused.message);
        std::fs::write(&second, "[core]\n\teditor = vi\n").unwrap();
        assert!(!may_name_files(&second));
        assert!(may_name_files(&top));
    }

    #[test]
    fn a_gitdir_file_and_a_commondir_are_followed() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main/.git");
        let linked = main.join("worktrees/wt");
        std::fs::create_dir_all(&linked).unwrap();
        std::fs::write(linked.join("commondir"), "../..\n").unwrap();
        let work = dir.path().join("wt/src");
        std::fs::create_dir_all(&work).unwrap();
        let gitdir = format!("gitdir: {}\n", linked.display());
        std::fs::write(dir.path().join("wt/.git"), gitdir).unwrap();
        let repo = find_repository(&work).unwrap();
        assert_eq!(repo.git_dir, linked);
        assert_eq!(repo.common_dir, linked.join("../.."));
    }
}
