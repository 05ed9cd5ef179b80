//! The git read methods: `git-status`, `git-diff`, `git-log`, `git-changed`, `git-branch`.
//!
//! They run the git CLI (`command`), hardened against repository-controlled execution, and parse
//! its `-z` output into typed results; the client (`coder`) renders those as the familiar text.
//! The CLI rather than `gix`: status on a 10k-file tree is git's own fast path (untracked cache,
//! preloaded index), and the measurement in docs/benchmarks.md shows the daemon's call within the bar of
//! `git status --porcelain` run as a process. Paths in results are relative to `dir` (default:
//! the primary root), and only the part of the repository under `dir` is reported. The repository
//! is found inside the roots only (`repository`): a workspace inside a larger repository has none.
//!
//! The crate also holds the checkpoints (`checkpoint`: the workspace's snapshots in a shadow
//! repository, and the edits' `Keeper`). It stands on coderd-core and coderd-edit (restoring is an
//! edit); it knows no syntax, language server, command, method or face.

pub mod branch;
pub mod checkpoint;
mod command;
mod config_files;
pub mod diff;
pub mod history;
pub mod log;
mod repository;
pub mod status;

use coderd_core::error::{Code, Error, Result};
use coderd_core::jail::{lexical_normalize, Jail, Resolved};
use coderd_core::workspace::Workspace;
use command::{Git, GitError, Isolation};
use repository::Pinned;
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long one git read may run before its process group is killed.
const READ_DEADLINE: Duration = Duration::from_secs(60);

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DirParams {
    /// Folder inside the repository (default: the primary root).
    pub dir: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangedParams {
    /// Folder inside the repository (default: the primary root).
    pub dir: Option<String>,
    /// Only files with staged changes.
    #[serde(default)]
    pub staged: bool,
}

/// A repository folder that passed the jail, the repository pinned inside the roots, and how to
/// run git there.
pub struct Repo<'a> {
    pub jail: &'a Jail,
    pub dir: Resolved,
    pub pinned: Pinned,
}

impl<'a> Repo<'a> {
    /// Resolves `dir` through the jail (default: the primary root).
    pub fn open(state: &'a Workspace, dir: Option<&str>) -> Result<Repo<'a>> {
        let jail = &state.jail;
        let wire = dir.unwrap_or_else(|| jail.primary().to_str().unwrap_or("."));
        let resolved = jail.resolve("dir", wire)?;
        if !jail.metadata(&resolved)?.is_dir() {
            return Err(Error::bad_input(format!(
                "`dir`: {} is not a folder",
                resolved.abs.display()
            ))
            .with_recovery("pass the repository's folder, or leave `dir` out"));
        }
        let Some(mut pinned) = repository::find(jail, &resolved)? else {
            return Err(Error::not_found(format!(
                "{} is not a git repository (no `.git` between it and its workspace root)",
                resolved.abs.display()
            ))
            .with_recovery(
                "pass `dir` inside a repository, or run `git init` there; a repository above a \
                 root is outside the jail (make its top folder a root to use it)",
            ));
        };
        // A FIFO or device among the files git reads would hang the call until its deadline; a
        // path the repository's config names outside the roots would show what the jail hides.
        config_files::check(
            jail,
            Some(&mut pinned),
            Isolation::User,
            Instant::now() + READ_DEADLINE,
        )?;
        Ok(Repo {
            jail,
            dir: resolved,
            pinned,
        })
    }

    /// A hardened git command in the folder, with the read deadline.
    pub fn git(&self) -> Git {
        Git::new(
            &self.dir.abs,
            Isolation::User,
            Instant::now() + READ_DEADLINE,
        )
        .pinned(&self.pinned)
    }

    /// `git()` for commands that read work-tree files (status, diff): git may run a repository's
    /// clean/smudge filter programs (`filter.<driver>.*`, chosen by `.gitattributes`) on them.
    /// Every filter driver the config defines is blanked for the call (an empty command is no
    /// filter), which costs one `git config` listing. Driver names are bytes, as git reads them.
    /// Submodules are never entered (`--ignore-submodules=dirty` by the callers), so their own
    /// configs, which this listing does not see, are never read.
    pub fn git_without_filters(&self, method: &str) -> Result<Git> {
        use std::os::unix::ffi::OsStringExt;
        let mut git = self.git();
        for driver in self.filter_drivers(method)? {
            for (key, value) in [
                ("clean", ""),
                ("smudge", ""),
                ("process", ""),
                ("required", "false"),
            ] {
                let mut setting = b"filter.".to_vec();
                setting.extend_from_slice(&driver);
                setting.extend_from_slice(format!(".{key}={value}").as_bytes());
                git = git.arg("-c").arg(std::ffi::OsString::from_vec(setting));
            }
        }
        Ok(git)
    }

    /// The names of the filter drivers the config (all levels, includes followed) defines. A
    /// failed listing fails the call: running git without knowing them could run them.
    fn filter_drivers(&self, method: &str) -> Result<Vec<Vec<u8>>> {
        let listed = self
            .git()
            .args(["config", "-z", "--name-only", "--get-regexp", r"^filter\."])
            .output()
            .map_err(|e| self.error(method, e))?;
        let mut drivers = Vec::new();
        for key in command::nul_records(&listed.stdout) {
            let Some(rest) = key.strip_prefix(b"filter.") else {
                continue;
            };
            let Some(dot) = memchr::memrchr(b'.', rest) else {
                continue;
            };
            let driver = &rest[..dot];
            // `-c` splits at the first `=`: such a name could not be switched off.
            if driver.contains(&b'=') {
                return Err(Error::refused(format!(
                    "{method}: the filter driver {:?} has `=` in its name and cannot be \
                     switched off; git is not run",
                    String::from_utf8_lossy(driver)
                ))
                .with_recovery("rename the filter driver in the repository's config"));
            }
            drivers.push(driver.to_vec());
        }
        drivers.sort();
        drivers.dedup();
        Ok(drivers)
    }

    /// Whether a path git reported (relative to `dir`) is a secret by the jail's policy: by its
    /// name, or by its identity (a secret renamed or hard-linked under this name).
    pub fn is_non_accessible(&self, rel: &[u8]) -> bool {
        use std::os::unix::ffi::OsStrExt;
        let joined = self.dir.rel.join(std::ffi::OsStr::from_bytes(rel));
        let normal = lexical_normalize(&Path::new("/").join(joined));
        let in_root = normal.strip_prefix("/").unwrap_or(&normal);
        let root = &self.jail.roots()[self.dir.root].path;
        self.jail.is_non_accessible(in_root) || self.jail.is_secret(&root.join(in_root))
    }

    /// The wire error for a failed git call in this repository.
    pub fn error(&self, method: &str, error: GitError) -> Error {
        let shown = self.dir.abs.display();
        match error {
            GitError::NotInstalled => Error::new(Code::NotFound, "git is not installed")
                .with_recovery("install git (e.g. `apt-get install git`) and retry"),
            GitError::Failed { stderr, .. }
                if stderr.to_ascii_lowercase().contains("not a git repository") =>
            {
                Error::not_found(format!("{shown} is not a git repository"))
                    .with_recovery("pass `dir` inside a repository, or run `git init` there")
            }
            GitError::TimedOut(after) => Error::new(
                Code::TimedOut,
                format!("{method}: git did not finish in {} s", after.as_secs()),
            )
            .with_recovery("narrow the request (a `file`, a smaller `limit`) and retry"),
            other => Error::io(format!("{method} in {shown}: {other}")),
        }
    }
}

/// A path as git printed it: the wire's type (the text on the wire, the bytes kept for git).
pub use wire::answers::git::GitPath as WirePath;

/// A path's exact bytes as base64, only when its text is not them.
pub fn path_base64(path: &WirePath) -> Option<String> {
    use base64::Engine;
    std::str::from_utf8(&path.bytes)
        .is_err()
        .then(|| base64::engine::general_purpose::STANDARD.encode(&path.bytes))
}
