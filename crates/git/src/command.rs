//! Running the git CLI, hardened against repository-controlled execution.
//!
//! A repository's config and attributes can name programs for git to run: a pager, an fsmonitor
//! hook, hooks, external diff and textconv drivers, signature checkers. coderd runs git on
//! repositories it did not write, so every call here switches those off: `-c` overrides on the
//! command line (they beat every config file), `--no-ext-diff`/`--no-textconv` where the command
//! takes them, `GIT_PAGER=cat`, no terminal prompts, and `GIT_OPTIONAL_LOCKS=0` so a read never
//! writes the user's index. Inherited `GIT_*` variables are dropped (a daemon started from a hook
//! or an alias must not act on another repository).
//!
//! The user's global and system config stay in force for the read commands (`git-status` must
//! list the same untracked files as the user's own `git status`, which depends on
//! `core.excludesFile`, `status.showUntrackedFiles` and the like); the shadow repository of
//! `checkpoint` reads no config but its own (`Isolation::Shadow`).
//!
//! Each call runs in its own process group under a deadline: at the deadline the whole group is
//! killed, so a hung git (or anything it started) never outlives the call. Output is read
//! concurrently and capped, with the omitted byte count kept exactly.

use super::repository::Pinned;
use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Overrides that switch off every program a repository's config could make git run.
const HARDENING: &[&str] = &[
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "color.ui=false",
    "log.showSignature=false",
    "diff.external=",
    "core.sshCommand=false",
    "credential.helper=",
    "gpg.program=false",
    "gpg.ssh.program=false",
    "gpg.x509.program=false",
    "core.askPass=false",
    // Submodules are never entered: `diff.submodule=diff` and a status summary would run git
    // inside them, under configs the filter blanking never saw.
    "diff.submodule=short",
    "status.submoduleSummary=false",
    "submodule.recurse=false",
];

/// Which configuration a call may read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Isolation {
    /// The user's system, global and repository config (overridden by `HARDENING`).
    User,
    /// No system or global config: the shadow repository's own config file only.
    Shadow,
}

/// One git invocation being built.
pub struct Git {
    command: Command,
    input: Option<Vec<u8>>,
    stdout_cap: usize,
    /// Whether git is stopped at the cap rather than read to its end (`stdout_head`).
    stop_at_cap: bool,
    deadline: Instant,
}

/// What a finished git call produced.
#[derive(Debug)]
pub struct Output {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    /// Bytes of stdout over the cap, read and dropped (after `stdout_head`: above zero when git
    /// had more to write, not how much).
    pub omitted: u64,
    pub stderr: Vec<u8>,
}

#[derive(Debug)]
pub enum GitError {
    /// No `git` on PATH.
    NotInstalled,
    /// The deadline passed; the process group was killed.
    TimedOut(Duration),
    /// git ran and failed; its stderr (trimmed) says why.
    Failed {
        code: Option<i32>,
        stderr: String,
    },
    Io(std::io::Error),
}

impl std::fmt::Display for GitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GitError::NotInstalled => write!(f, "git is not installed (not found on PATH)"),
            GitError::TimedOut(after) => write!(f, "git timed out after {} ms", after.as_millis()),
            GitError::Failed { code, stderr } => match code {
                Some(code) => write!(f, "git failed (exit {code}): {stderr}"),
                None => write!(f, "git was killed by a signal: {stderr}"),
            },
            GitError::Io(e) => write!(f, "running git: {e}"),
        }
    }
}

impl Git {
    /// `git` in `dir`, hardened, with the given config isolation and a deadline.
    pub fn new(dir: &Path, isolation: Isolation, deadline: Instant) -> Git {
        let mut command = Command::new("git");
        command.current_dir(dir);
        for (name, _) in std::env::vars_os() {
            if name.as_encoded_bytes().starts_with(b"GIT_") {
                command.env_remove(name);
            }
        }
        command
            .env("GIT_PAGER", "cat")
            .env("PAGER", "cat")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("GIT_NO_REPLACE_OBJECTS", "1")
            .env("LC_ALL", "C")
            .env("TERM", "dumb")
            .arg("--no-pager");
        if isolation == Isolation::Shadow {
            command
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null");
        }
        for setting in HARDENING {
            command.arg("-c").arg(setting);
        }
        Git {
            command,
            input: None,
            stdout_cap: usize::MAX,
            stop_at_cap: false,
            deadline,
        }
    }

    /// Runs on `repo` and on nothing else: explicit `--git-dir` and `--work-tree` (git searches
    /// for no repository, and ignores `core.worktree`), `GIT_CEILING_DIRECTORIES` at the root's
    /// parent for anything that would still search, and `safe.directory` for exactly this
    /// repository (command-line config counts as protected), so a root owned by another user
    /// still works without trusting every repository on the machine.
    pub fn pinned(self, repo: &Pinned) -> Git {
        let setting = |path: &Path| {
            let mut setting = OsString::from("safe.directory=");
            setting.push(path);
            setting
        };
        let option = |name: &str, path: &Path| {
            let mut option = OsString::from(name);
            option.push(path);
            option
        };
        self.env("GIT_CEILING_DIRECTORIES", &repo.ceiling)
            .arg("-c")
            .arg(setting(&repo.work_tree))
            .arg("-c")
            .arg(setting(&repo.git_dir))
            .arg(option("--git-dir=", &repo.git_dir))
            .arg(option("--work-tree=", &repo.work_tree))
    }

    /// On no repository at all (for `git config --get` of the user's own settings): git finds
    /// none, so it reads only the system and global config.
    pub fn no_repository(self) -> Git {
        self.env("GIT_DIR", "/dev/null")
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Git {
        self.command.arg(arg);
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Git
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command.args(args);
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Git {
        self.command.env(key, value);
        self
    }

    /// Bytes written to git's stdin (then closed); without it stdin is `/dev/null`.
    pub fn input(mut self, bytes: Vec<u8>) -> Git {
        self.input = Some(bytes);
        self
    }

    /// Keeps at most `cap` bytes of stdout; the rest is read, counted and dropped.
    pub fn stdout_cap(mut self, cap: usize) -> Git {
        self.stdout_cap = cap;
        self
    }

    /// Keeps the first `cap` bytes of stdout and then stops git (its process group is killed): for
    /// a listing of which only the head matters, so that git does not write the rest.
    pub fn stdout_head(mut self, cap: usize) -> Git {
        self.stdout_cap = cap;
        self.stop_at_cap = true;
        self
    }

    /// Runs git and returns its output whatever the exit status (for commands whose exit status
    /// is an answer, like `diff --quiet`).
    pub fn output(mut self) -> Result<Output, GitError> {
        use std::os::unix::process::CommandExt;
        let started = Instant::now();
        self.command
            .stdin(match self.input {
                Some(_) => Stdio::piped(),
                None => Stdio::null(),
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        // A git left running by a daemon killed with SIGKILL would go on writing the snapshot
        // store's index while the next daemon uses it; it dies with this thread instead, which
        // waits for it below.
        let daemon = std::process::id() as libc::pid_t;
        // SAFETY: `die_with` makes only async-signal-safe calls and allocates nothing.
        unsafe {
            self.command
                .pre_exec(move || coderd_core::children::die_with(daemon));
        }
        let mut child = self.command.spawn().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => GitError::NotInstalled,
            _ => GitError::Io(e),
        })?;
        let watchdog = Watchdog::start(child.id(), self.deadline);
        let writer = self.input.take().and_then(|bytes| {
            let mut stdin = child.stdin.take()?;
            Some(std::thread::spawn(move || {
                // A git that exits early closes the pipe; that is not our error to report.
                let _ = stdin.write_all(&bytes);
            }))
        });
        let (stdout, omitted, stderr) = read_both(&mut child, self.stdout_cap, self.stop_at_cap);
        let status = child.wait().map_err(GitError::Io)?;
        if let Some(writer) = writer {
            let _ = writer.join();
        }
        if watchdog.stop() {
            return Err(GitError::TimedOut(started.elapsed()));
        }
        Ok(Output {
            status,
            stdout,
            omitted,
            stderr,
        })
    }

    /// Runs git; a non-zero exit is `GitError::Failed` with git's own message.
    pub fn run(self) -> Result<Output, GitError> {
        let output = self.output()?;
        if output.status.success() {
            return Ok(output);
        }
        Err(GitError::Failed {
            code: output.status.code(),
            stderr: first_lines(&output.stderr),
        })
    }
}

/// The first lines of git's stderr: enough to say why, without a usage screen.
pub fn first_lines(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text.trim().lines().take(3).collect();
    lines.join("\n")
}

/// Reads stdout (capped) and stderr (capped at 64 KiB) concurrently until both close; with `stop`,
/// stdout only up to the cap, and then git is killed.
fn read_both(child: &mut Child, cap: usize, stop: bool) -> (Vec<u8>, u64, Vec<u8>) {
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let errors = std::thread::spawn(move || read_capped(&mut stderr, 64 * 1024, false));
    let (out, omitted) = read_capped(&mut stdout, cap, stop);
    if omitted > 0 && stop {
        kill_group(child.id());
    }
    let (err, _) = errors.join().unwrap_or_default();
    (out, omitted, err)
}

/// Reads to the end, keeping `cap` bytes; with `stop`, only until a byte past the cap is read.
fn read_capped(from: &mut impl Read, cap: usize, stop: bool) -> (Vec<u8>, u64) {
    let mut kept = Vec::new();
    let mut omitted = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let room = cap.saturating_sub(kept.len()).min(n);
        kept.extend_from_slice(&buf[..room]);
        omitted += (n - room) as u64;
        if stop && omitted > 0 {
            break;
        }
    }
    (kept, omitted)
}

/// Kills the process group at the deadline unless stopped first.
struct Watchdog {
    stop: mpsc::Sender<()>,
    fired: std::thread::JoinHandle<bool>,
}

impl Watchdog {
    fn start(pid: u32, deadline: Instant) -> Watchdog {
        let (stop, stopped) = mpsc::channel::<()>();
        let fired = std::thread::spawn(move || {
            let wait = deadline.saturating_duration_since(Instant::now());
            match stopped.recv_timeout(wait) {
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    kill_group(pid);
                    true
                }
                _ => false,
            }
        });
        Watchdog { stop, fired }
    }

    /// Whether the deadline fired (and the group was killed) before the call finished.
    fn stop(self) -> bool {
        let _ = self.stop.send(());
        self.fired.join().unwrap_or(false)
    }
}

fn kill_group(pid: u32) {
    let Some(pid) = rustix::process::Pid::from_raw(pid as i32) else {
        return;
    };
    // The group's leader is git itself (process_group(0)), so its pid names the group.
    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
}

/// Splits NUL-terminated output (`-z`) into its records.
pub fn nul_records(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes
        .strip_suffix(b"\0")
        .unwrap_or(bytes)
        .split(|b| *b == 0)
        .filter(move |_| !bytes.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_records_split_and_ignore_the_final_terminator() {
        let records: Vec<&[u8]> = nul_records(b"a\0b c\0").collect();
        assert_eq!(records, vec![&b"a"[..], &b"b c"[..]]);
        assert_eq!(nul_records(b"").count(), 0);
    }

    #[test]
    fn a_deadline_kills_the_process_group() {
        let dir = tempfile::tempdir().unwrap();
        // `git -c alias.x='!sleep 30' x` would be refused by our own hardening only if aliases were
        // blocked; here the child is a shell that outlives the deadline.
        let started = Instant::now();
        let result = Git::new(
            dir.path(),
            Isolation::Shadow,
            Instant::now() + Duration::from_millis(300),
        )
        .args(["-c", "alias.wait=!sleep 30", "wait"])
        .output();
        assert!(matches!(result, Err(GitError::TimedOut(_))), "{result:?}");
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
