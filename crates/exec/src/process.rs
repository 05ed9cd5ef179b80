//! One supervised run of a command. The child starts a session of its own (`setsid`, so its whole
//! process tree is one group the daemon can signal), reads `/dev/null`, has no terminal, and writes
//! into two pipes that one loop polls together, so neither fills up while the other is read.
//!
//! Ending is bounded at every step. On timeout the group gets SIGTERM, then after a grace period
//! SIGKILL, repeated until no process of the group is left. When the shell exits but something
//! it started in the background still holds the pipes, the daemon waits briefly for them to close
//! and then ends that group too. Whatever is still open after a short final drain (a process that
//! left the group with its own `setsid`) is dropped: the call never waits on it.

use super::output::{Capture, Captured};
use super::sandbox::{landlock, namespaces};
use std::ffi::OsString;
use std::fs::File;
use std::io::{ErrorKind, Read};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(2);
/// How long pipes may stay open after the shell exited before the group is ended.
const LINGER: Duration = Duration::from_millis(500);
/// How long the pipes are read after the group was killed.
const FINAL_DRAIN: Duration = Duration::from_millis(500);
/// Upper bound on SIGKILL rounds while waiting for the group to empty.
const KILL_ROUNDS: usize = 100;

/// What to run and under which bounds.
pub struct Job<'a> {
    pub program: &'a str,
    pub args: Vec<OsString>,
    pub cwd: &'a Path,
    pub env: Vec<(OsString, OsString)>,
    pub timeout: Duration,
    /// Bytes kept per stream (head + tail).
    pub stream_budget: usize,
    pub confinement: Confinement<'a>,
}

/// What the child is confined by (see `sandbox`).
pub enum Confinement<'a> {
    None,
    /// A Landlock ruleset (and the filter and limits) the child applies before `exec`.
    Landlock(landlock::InChild),
    /// Namespaces of its own, with the view the plan describes.
    Namespaces(&'a namespaces::Plan),
}

/// The supervised process: the shell itself, or the init of the namespaces it runs in (which
/// reports the shell's status as its own).
enum Running {
    Plain(Child),
    Jailed(namespaces::Child),
}

impl Running {
    fn id(&self) -> u32 {
        match self {
            Running::Plain(child) => child.id(),
            Running::Jailed(child) => child.id(),
        }
    }

    fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        match self {
            Running::Plain(child) => child.try_wait(),
            Running::Jailed(child) => child.try_wait(),
        }
    }

    fn wait(&mut self) -> std::io::Result<ExitStatus> {
        match self {
            Running::Plain(child) => child.wait(),
            Running::Jailed(child) => child.wait(),
        }
    }

    /// A descriptor that turns readable when `try_wait` has an answer: a pidfd of the shell, or
    /// the sandbox's status pipe.
    fn exit_fd(&self) -> Option<OwnedFd> {
        match self {
            Running::Plain(child) => pidfd(child.id() as i32),
            Running::Jailed(child) => child.status_fd().ok(),
        }
    }

    /// The namespace ended processes the command left running.
    fn ended_leftovers(&self) -> bool {
        matches!(self, Running::Jailed(child) if child.leftovers)
    }
}

/// Which pipe a chunk came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// How a run ended.
pub struct Outcome {
    pub status: Option<ExitStatus>,
    pub timed_out: bool,
    /// Processes left holding the pipes after the shell exited were ended.
    pub background_killed: bool,
    /// The pipes were still open after the final drain and were dropped unread.
    pub drain_truncated: bool,
    pub duration: Duration,
    pub stdout: Captured,
    pub stderr: Captured,
}

impl Outcome {
    pub fn exit_code(&self) -> Option<i32> {
        self.status.and_then(|s| s.code())
    }

    pub fn signal(&self) -> Option<i32> {
        self.status.and_then(|s| s.signal())
    }
}

/// Runs `job`, calling `on_output` with each chunk read (for streaming), and returns how it ended.
pub fn run(job: &Job, on_output: &mut dyn FnMut(Stream, &[u8])) -> std::io::Result<Outcome> {
    let started = Instant::now();
    let (child, stdout, stderr) = spawn(job)?;
    let pgid = child.id() as i32;
    // A plain child announced itself before exec (`watchdog::announce`); a sandbox's init dies
    // with the daemon's thread (`PR_SET_PDEATHSIG`). Told again here all the same: a set ignores
    // the repeat.
    super::watchdog::track(pgid);
    let pipes = Pipes::new(stdout, stderr, job.stream_budget).map(|mut pipes| {
        pipes.exit = child.exit_fd();
        pipes
    });
    let outcome = pipes.and_then(|pipes| supervise(job, started, child, pipes, pgid, on_output));
    super::watchdog::untrack(pgid);
    outcome
}

/// Reads the child's output until it ends (or its deadline ends it), then its group's leftovers.
fn supervise(
    job: &Job,
    started: Instant,
    mut child: Running,
    mut pipes: Pipes,
    pgid: i32,
    on_output: &mut dyn FnMut(Stream, &[u8]),
) -> std::io::Result<Outcome> {
    let deadline = started + job.timeout;
    let mut status = None;
    let mut timed_out = false;
    let mut background_killed = false;
    // Phase 1: the shell runs, until it exits or the deadline passes.
    while status.is_none() {
        let now = Instant::now();
        if now >= deadline {
            timed_out = true;
            break;
        }
        pipes.poll_once((deadline - now).min(Duration::from_millis(50)), on_output);
        status = child.try_wait()?;
    }
    pipes.exit = None;
    if timed_out {
        status = end_group(&mut child, pgid, &mut pipes, on_output)?;
    } else {
        // Phase 2: the shell is gone; give what it started a moment to close the pipes.
        let linger_until = Instant::now() + LINGER;
        while pipes.open() && Instant::now() < linger_until {
            pipes.poll_once(Duration::from_millis(20), on_output);
        }
        if pipes.open() {
            background_killed = true;
            end_group(&mut child, pgid, &mut pipes, on_output)?;
        }
    }
    // Phase 3: read what is left, for a bounded time.
    let drain_until = Instant::now() + FINAL_DRAIN;
    while pipes.open() && Instant::now() < drain_until {
        pipes.poll_once(Duration::from_millis(20), on_output);
    }
    let drain_truncated = pipes.open();
    let (stdout, stderr) = pipes.finish();
    Ok(Outcome {
        status,
        timed_out,
        background_killed: background_killed || child.ended_leftovers(),
        drain_truncated,
        duration: started.elapsed(),
        stdout,
        stderr,
    })
}

/// Starts the child and hands back its output pipes.
fn spawn(job: &Job) -> std::io::Result<(Running, Option<File>, Option<File>)> {
    if let Confinement::Namespaces(plan) = job.confinement {
        let exec = namespaces::Exec {
            program: job.program,
            args: &job.args,
            env: &job.env,
            cwd: job.cwd,
            linger: LINGER,
        };
        let spawned = namespaces::spawn(plan, &exec)?;
        return Ok((
            Running::Jailed(spawned.child),
            Some(spawned.stdout),
            Some(spawned.stderr),
        ));
    }
    let mut child = spawn_plain(job)?;
    let stdout = child.stdout.take().map(|p| File::from(OwnedFd::from(p)));
    let stderr = child.stderr.take().map(|p| File::from(OwnedFd::from(p)));
    Ok((Running::Plain(child), stdout, stderr))
}

fn spawn_plain(job: &Job) -> std::io::Result<Child> {
    let mut command = Command::new(job.program);
    command
        .args(&job.args)
        .current_dir(job.cwd)
        .env_clear()
        .envs(job.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let landlock = match &job.confinement {
        Confinement::Landlock(in_child) => Some(in_child.clone()),
        _ => None,
    };
    let watchdog = super::watchdog::announce_fd();
    // SAFETY: the closure only makes async-signal-safe system calls (setsid, write, setrlimit,
    // prctl, landlock_restrict_self, seccomp) between fork and exec; it allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            if let Some(fd) = watchdog {
                super::watchdog::announce(fd);
            }
            let no_core = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &no_core);
            if let Some(in_child) = &landlock {
                in_child.enter()?;
            }
            Ok(())
        });
    }
    command.spawn()
}

/// SIGTERM to the group, a grace period, then SIGKILL until the group is empty. Reaps the shell.
fn end_group(
    child: &mut Running,
    pgid: i32,
    pipes: &mut Pipes,
    on_output: &mut dyn FnMut(Stream, &[u8]),
) -> std::io::Result<Option<ExitStatus>> {
    let mut status = child.try_wait()?;
    signal_group(pgid, libc::SIGTERM);
    let grace_until = Instant::now() + GRACE;
    while Instant::now() < grace_until {
        pipes.poll_once(Duration::from_millis(20), on_output);
        if status.is_none() {
            status = child.try_wait()?;
        }
        if status.is_some() && !group_alive(pgid) {
            return Ok(status);
        }
    }
    for _ in 0..KILL_ROUNDS {
        signal_group(pgid, libc::SIGKILL);
        pipes.poll_once(Duration::from_millis(20), on_output);
        if status.is_none() {
            status = child.try_wait()?;
        }
        if status.is_some() && !group_alive(pgid) {
            break;
        }
    }
    if status.is_none() {
        status = Some(child.wait()?);
    }
    Ok(status)
}

fn signal_group(pgid: i32, signal: i32) {
    // SAFETY: kill(2) with a negative pid signals the group the child created with setsid.
    unsafe {
        libc::kill(-pgid, signal);
    }
}

/// Whether any live process of the group is left. Zombies do not count: orphans are reaped by
/// init, which may take its time, and a zombie holds no pipe and runs no code.
pub fn group_alive(pgid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence and permission.
    let result = unsafe { libc::kill(-pgid, 0) };
    if result != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH) {
        return false;
    }
    live_members(pgid)
}

/// Scans `/proc` for a member of the group that is not a zombie.
fn live_members(pgid: i32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return true;
    };
    let wanted = pgid.to_string();
    entries.flatten().any(|entry| {
        let name = entry.file_name();
        if !name.as_encoded_bytes().iter().all(u8::is_ascii_digit) {
            return false;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            return false;
        };
        // After the command name: state, ppid, pgrp.
        let Some(close) = stat.rfind(')') else {
            return false;
        };
        let mut fields = stat[close + 1..].split_whitespace();
        let state = fields.next();
        let pgrp = fields.nth(1);
        pgrp == Some(wanted.as_str()) && state != Some("Z") && state != Some("X")
    })
}

/// The two output pipes, non-blocking, read by `poll(2)`.
struct Pipes {
    stdout: Option<File>,
    stderr: Option<File>,
    out_capture: Capture,
    err_capture: Capture,
    buffer: Vec<u8>,
    /// Readable when the child's status is known (`Running::exit_fd`), while it runs: polled with
    /// the pipes, so that the end is seen at once even when the output closed first.
    exit: Option<OwnedFd>,
}

impl Pipes {
    fn new(stdout: Option<File>, stderr: Option<File>, budget: usize) -> std::io::Result<Pipes> {
        for fd in [
            stdout.as_ref().map(|p| p.as_raw_fd()),
            stderr.as_ref().map(|p| p.as_raw_fd()),
        ]
        .into_iter()
        .flatten()
        {
            set_nonblocking(fd)?;
        }
        Ok(Pipes {
            stdout,
            stderr,
            out_capture: Capture::new(budget),
            err_capture: Capture::new(budget),
            buffer: vec![0; 64 * 1024],
            exit: None,
        })
    }

    fn open(&self) -> bool {
        self.stdout.is_some() || self.stderr.is_some()
    }

    /// Waits up to `timeout` for output and reads whatever is there.
    fn poll_once(&mut self, timeout: Duration, on_output: &mut dyn FnMut(Stream, &[u8])) {
        let mut fds: Vec<libc::pollfd> = Vec::with_capacity(3);
        let mut which = Vec::with_capacity(2);
        if let Some(p) = &self.stdout {
            fds.push(pollfd(p.as_raw_fd()));
            which.push(Stream::Stdout);
        }
        if let Some(p) = &self.stderr {
            fds.push(pollfd(p.as_raw_fd()));
            which.push(Stream::Stderr);
        }
        if let Some(exit) = &self.exit {
            fds.push(pollfd(exit.as_raw_fd()));
        } else if fds.is_empty() {
            std::thread::sleep(timeout);
            return;
        }
        let millis = timeout.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: `fds` is a valid array of `fds.len()` pollfd structs.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, millis) };
        if ready <= 0 {
            return;
        }
        for (fd, stream) in fds.iter().zip(which) {
            if fd.revents != 0 {
                self.read_available(stream, on_output);
            }
        }
    }

    fn read_available(&mut self, stream: Stream, on_output: &mut dyn FnMut(Stream, &[u8])) {
        loop {
            let result = match stream {
                Stream::Stdout => self.stdout.as_mut().map(|p| p.read(&mut self.buffer)),
                Stream::Stderr => self.stderr.as_mut().map(|p| p.read(&mut self.buffer)),
            };
            match result {
                Some(Ok(0)) | None => return self.close(stream),
                Some(Ok(n)) => {
                    let chunk = &self.buffer[..n];
                    match stream {
                        Stream::Stdout => self.out_capture.push(chunk),
                        Stream::Stderr => self.err_capture.push(chunk),
                    }
                    on_output(stream, chunk);
                }
                Some(Err(e)) if e.kind() == ErrorKind::WouldBlock => return,
                Some(Err(e)) if e.kind() == ErrorKind::Interrupted => continue,
                Some(Err(_)) => return self.close(stream),
            }
        }
    }

    fn close(&mut self, stream: Stream) {
        match stream {
            Stream::Stdout => self.stdout = None,
            Stream::Stderr => self.stderr = None,
        }
    }

    fn finish(self) -> (Captured, Captured) {
        (self.out_capture.finish(), self.err_capture.finish())
    }
}

/// A descriptor that becomes readable when the process `pid` exits (Linux 5.3); none on older
/// kernels, where the loop polls its pipes with a timeout as before.
fn pidfd(pid: i32) -> Option<OwnedFd> {
    // SAFETY: pidfd_open returns a new descriptor we own, or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as RawFd;
    // SAFETY: a fresh descriptor owned by nobody else.
    (fd >= 0).then(|| unsafe { std::os::fd::FromRawFd::from_raw_fd(fd) })
}

fn pollfd(fd: RawFd) -> libc::pollfd {
    libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    }
}

fn set_nonblocking(fd: RawFd) -> std::io::Result<()> {
    // SAFETY: fcntl on a pipe fd this process owns.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}
