//! The namespace sandbox: each command runs in a user + mount + PID (and, with
//! `exec.sandbox.network: false`, network) namespace of its own, bubblewrap's approach without its
//! binary. The daemon forks once with `clone(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID ...)`; that
//! child is the namespace's init (PID 1). It maps its own uid and gid, builds the view of the file
//! system (every mount read-only, the writable places bound read-write on top, secrets masked, the
//! daemon's folders hidden, a minimal `/dev`, a fresh `/proc`), forks the command (PID 2), and
//! reaps until the command exits. It then waits at most `linger` for what the command left
//! running, reports the command's wait status over a pipe and exits; the kernel ends everything
//! still in the namespace when its init exits.
//!
//! Everything the child needs is prepared in the daemon (paths as C strings, argv, envp): between
//! the fork and `execve` the daemon's copy runs only async-signal-safe system calls, since the
//! daemon is multi-threaded and another thread may hold the allocator's lock.
//!
//! The command runs without capabilities (bounding set emptied, `no_new_privs`), so it cannot
//! undo the mounts from inside: unmounting a mask needs `CAP_SYS_ADMIN` in this namespace, and in
//! a namespace it creates itself the mounts it inherits are locked.

use std::cell::Cell;
use std::ffi::{CString, OsString};
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::Duration;

mod child;

use super::seccomp::Filter;

use child::{enter, init, report_failure, Context};

/// Fixed descriptor numbers in the init process, once it has moved its pipes there.
const READY_FD: RawFd = 3;
const STATUS_FD: RawFd = 4;

/// Pseudo step numbers for the failures that are not mount steps.
const FAILED_LIMITS: u32 = u32::MAX - 5;
const FAILED_FILTER: u32 = u32::MAX - 4;
const FAILED_MAPS: u32 = u32::MAX - 3;
const FAILED_CHDIR: u32 = u32::MAX - 2;
const FAILED_FORK: u32 = u32::MAX - 1;
const FAILED_EXEC: u32 = u32::MAX;

/// One step of building the view, run in order by the namespace's init.
enum Step {
    /// Nothing mounted here propagates back to the machine.
    Private,
    /// A detached copy of the mounts at a writable place, taken while they are still writable.
    Clone {
        slot: usize,
        path: CString,
    },
    /// Every mount read-only.
    ReadOnly,
    /// The copy put back at its place, on top of the read-only view.
    Place {
        slot: usize,
        path: CString,
    },
    /// `/dev/null` bound over a file (a secret, the daemon's socket).
    MaskFile(CString),
    /// An empty read-only tmpfs over a folder (a secret folder, the daemon's data folders).
    MaskDir(CString),
    /// A writable tmpfs of a given size over a folder (the run's private `$TMPDIR`): options.
    TmpFs(CString, CString),
    /// A file bound over another: a git config's copy with its URLs' credentials masked.
    Cover {
        source: CString,
        target: CString,
    },
    Dev,
    Proc,
    LoopbackUp,
}

/// What a sandboxed command sees: built once per run in the daemon, used in its child.
pub struct Plan {
    steps: Vec<Step>,
    /// What each step is, for an error naming the one that failed.
    shown: Vec<String>,
    slots: Vec<Cell<RawFd>>,
    uid_map: CString,
    gid_map: CString,
    network: bool,
    /// What the command may not call (installed just before `execve`).
    filter: Filter,
    /// The `cgroup.procs` of the run's control groups, which the init joins first.
    pub(super) cgroup_procs: Vec<RawFd>,
    /// Resource limits of the command, when no control group holds the run.
    rlimits: Vec<(libc::__rlimit_resource_t, libc::rlim_t)>,
}

/// The places of a view, as the daemon decided them.
pub struct View<'a> {
    pub writable: &'a [PathBuf],
    /// Places inside the writable ones that stay read-only (a repository's hooks and config,
    /// `git_dirs.rs`): bound over them once they are placed.
    pub read_only: &'a [PathBuf],
    pub masked_files: &'a [PathBuf],
    pub masked_dirs: &'a [PathBuf],
    /// Files shown in place of others: (the copy, the file it covers).
    pub covered: &'a [(PathBuf, PathBuf)],
    pub network: bool,
    /// The private temp folder and the size of the tmpfs mounted on it.
    pub temp: Option<(&'a Path, u64)>,
    pub cgroup_procs: Vec<RawFd>,
    pub rlimits: Vec<(libc::__rlimit_resource_t, libc::rlim_t)>,
}

impl Plan {
    /// Nothing but the uid and gid maps: this user's ids, the same inside as outside.
    fn empty(network: bool) -> io::Result<Plan> {
        let map = |id: u32| CString::new(format!("{id} {id} 1"));
        Ok(Plan {
            steps: Vec::new(),
            shown: Vec::new(),
            slots: Vec::new(),
            uid_map: map(rustix::process::geteuid().as_raw())?,
            gid_map: map(rustix::process::getegid().as_raw())?,
            network,
            filter: Filter::new(network),
            cgroup_procs: Vec::new(),
            rlimits: Vec::new(),
        })
    }

    pub fn new(view: &View) -> io::Result<Plan> {
        let mut plan = Plan::empty(view.network)?;
        plan.cgroup_procs = view.cgroup_procs.clone();
        plan.rlimits = view.rlimits.clone();
        plan.push(Step::Private, "private mounts".into());
        for (slot, path) in view.writable.iter().enumerate() {
            plan.slots.push(Cell::new(-1));
            let step = Step::Clone {
                slot,
                path: c_path(path)?,
            };
            plan.push(step, format!("copy the mounts at {}", path.display()));
        }
        plan.push(Step::ReadOnly, "make every mount read-only".into());
        let read_only = plan.clone_read_only(view.read_only)?;
        for (slot, path) in view.writable.iter().enumerate() {
            let step = Step::Place {
                slot,
                path: c_path(path)?,
            };
            plan.push(step, format!("bind {} writable", path.display()));
        }
        plan.place_read_only(view.read_only, read_only)?;
        for path in view.masked_files {
            plan.push(
                Step::MaskFile(c_path(path)?),
                format!("mask {}", path.display()),
            );
        }
        for path in view.masked_dirs {
            plan.push(
                Step::MaskDir(c_path(path)?),
                format!("mask {}", path.display()),
            );
        }
        for (source, target) in view.covered {
            let step = Step::Cover {
                source: c_path(source)?,
                target: c_path(target)?,
            };
            plan.push(step, format!("cover {}", target.display()));
        }
        // Last over the private temp folder: the covers above are bound from copies in it.
        if let Some((temp, size)) = view.temp {
            let options = CString::new(super::limits::tmpfs_options(size))?;
            plan.push(
                Step::TmpFs(c_path(temp)?, options),
                format!("a tmpfs of {size} bytes on {}", temp.display()),
            );
        }
        plan.push(Step::Dev, "a minimal /dev".into());
        plan.push(Step::Proc, "a fresh /proc".into());
        if !view.network {
            plan.push(Step::LoopbackUp, "bring up the loopback interface".into());
        }
        Ok(plan)
    }

    /// Copies of `paths` taken after every mount turned read-only, so the copies are read-only
    /// too; their first slot.
    fn clone_read_only(&mut self, paths: &[PathBuf]) -> io::Result<usize> {
        let first = self.slots.len();
        for (i, path) in paths.iter().enumerate() {
            self.slots.push(Cell::new(-1));
            let step = Step::Clone {
                slot: first + i,
                path: c_path(path)?,
            };
            self.push(step, format!("copy {} read-only", path.display()));
        }
        Ok(first)
    }

    /// The read-only copies put back over the writable places that hold them.
    fn place_read_only(&mut self, paths: &[PathBuf], first: usize) -> io::Result<()> {
        for (i, path) in paths.iter().enumerate() {
            let step = Step::Place {
                slot: first + i,
                path: c_path(path)?,
            };
            self.push(step, format!("bind {} read-only", path.display()));
        }
        Ok(())
    }

    fn push(&mut self, step: Step, shown: String) {
        self.steps.push(step);
        self.shown.push(shown);
    }

    fn describe(&self, step: u32) -> String {
        match step {
            FAILED_LIMITS => "joining the run's control group".into(),
            FAILED_FILTER => "installing the system-call filter".into(),
            FAILED_MAPS => "writing the uid and gid maps".into(),
            FAILED_CHDIR => "entering the working folder".into(),
            FAILED_FORK => "starting the command".into(),
            n => self
                .shown
                .get(n as usize)
                .cloned()
                .unwrap_or_else(|| format!("step {n}")),
        }
    }
}

fn c_path(path: &Path) -> io::Result<CString> {
    Ok(CString::new(path.as_os_str().as_bytes())?)
}

/// The sandbox could not be built for this run (as opposed to the program not starting).
#[derive(Debug)]
pub struct SetupError(pub String);

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SetupError {}

/// What to run inside.
pub struct Exec<'a> {
    pub program: &'a str,
    pub args: &'a [OsString],
    pub env: &'a [(OsString, OsString)],
    pub cwd: &'a Path,
    /// How long the init waits for what the command left running after it exited.
    pub linger: Duration,
}

/// A started sandbox: its init process and the command's output pipes.
pub struct Spawned {
    pub child: Child,
    pub stdout: File,
    pub stderr: File,
}

/// The namespace's init, as the daemon sees it. The run is over when the init reports the
/// command's status (or dies without a report: it was killed); the init's own exit, which tears
/// the namespaces down, is waited for off the request's path (`reap_later`).
pub struct Child {
    pid: i32,
    status: File,
    done: Option<ExitStatus>,
    reaped: bool,
    /// Processes were still running when the command exited and were ended with the namespace.
    pub leftovers: bool,
}

impl Child {
    pub fn id(&self) -> u32 {
        self.pid as u32
    }

    /// A descriptor readable once the status is known (the report, or the pipe's end).
    pub fn status_fd(&self) -> io::Result<OwnedFd> {
        Ok(self.status.try_clone()?.into())
    }

    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        if let Some(status) = self.done {
            return Ok(Some(status));
        }
        let mut report = [0u8; 5];
        let status = match self.status.read(&mut report) {
            Ok(5) => {
                self.leftovers = report[4] != 0;
                let raw = i32::from_ne_bytes([report[0], report[1], report[2], report[3]]);
                ExitStatus::from_raw(raw)
            }
            // The pipe ended without a report: the init was killed; its status is the answer.
            Ok(_) => self.reap()?,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                ) =>
            {
                return Ok(None)
            }
            Err(e) => return Err(e),
        };
        self.done = Some(status);
        Ok(Some(status))
    }

    pub fn wait(&mut self) -> io::Result<ExitStatus> {
        loop {
            if let Some(status) = self.try_wait()? {
                return Ok(status);
            }
            let mut fd = libc::pollfd {
                fd: self.status.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            unsafe { libc::poll(&mut fd, 1, 100) };
        }
    }

    fn reap(&mut self) -> io::Result<ExitStatus> {
        let mut raw = 0;
        loop {
            // SAFETY: waitpid on our own child with a valid status pointer.
            let pid = unsafe { libc::waitpid(self.pid, &mut raw, 0) };
            if pid == self.pid {
                self.reaped = true;
                return Ok(ExitStatus::from_raw(raw));
            }
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if !self.reaped {
            reap_later(self.pid);
        }
    }
}

/// Waits for an init's exit on a thread of its own, so that tearing its namespaces down (a few
/// ms, more on a busy machine) is not part of the answer's time.
fn reap_later(pid: i32) {
    use std::sync::mpsc::{channel, Sender};
    use std::sync::{Mutex, OnceLock};
    static REAPER: OnceLock<Option<Mutex<Sender<i32>>>> = OnceLock::new();
    let reaper = REAPER.get_or_init(|| {
        let (send, receive) = channel::<i32>();
        let started = std::thread::Builder::new()
            .name("sandbox-reaper".into())
            .spawn(move || receive.into_iter().for_each(wait_for));
        started.ok().map(|_| Mutex::new(send))
    });
    let sent = reaper.as_ref().is_some_and(|send| {
        send.lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(pid)
            .is_ok()
    });
    if !sent {
        wait_for(pid);
    }
}

/// Blocks until the child `pid` has exited, and reaps it.
fn wait_for(pid: i32) {
    let mut raw = 0;
    // SAFETY: waitpid on a child of this process, with a valid status pointer.
    while unsafe { libc::waitpid(pid, &mut raw, 0) } < 0
        && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
    {
        continue;
    }
}

/// Starts `exec` inside the view `plan` describes, its output on pipes, its input `/dev/null`.
pub fn spawn(plan: &Plan, exec: &Exec) -> io::Result<Spawned> {
    let (stdout_r, stdout_w) = pipe()?;
    let (stderr_r, stderr_w) = pipe()?;
    let stdin = File::open("/dev/null")?;
    let stdio = [
        stdin.as_raw_fd(),
        stdout_w.as_raw_fd(),
        stderr_w.as_raw_fd(),
    ];
    let child = start(plan, exec, stdio)?;
    Ok(Spawned {
        child,
        stdout: File::from(stdout_r),
        stderr: File::from(stderr_r),
    })
}

/// Starts `exec` inside the view `plan` describes with this process's own stdin, stdout and
/// stderr (the `sandbox-exec` wrapper, whose stdio are the daemon's pipes to a language server).
pub fn spawn_inheriting(plan: &Plan, exec: &Exec) -> io::Result<Child> {
    start(plan, exec, [0, 1, 2])
}

/// The fork into the namespaces, with `stdio` as the command's descriptors 0, 1 and 2.
fn start(plan: &Plan, exec: &Exec, stdio: [RawFd; 3]) -> io::Result<Child> {
    let program = resolve_program(exec.program, exec.env)?;
    let program = c_path(&program)?;
    let mut argv = vec![CString::new(exec.program)?];
    for arg in exec.args {
        argv.push(CString::new(arg.as_bytes())?);
    }
    let envp: Vec<CString> = exec
        .env
        .iter()
        .map(|(k, v)| {
            let mut pair = k.as_bytes().to_vec();
            pair.push(b'=');
            pair.extend_from_slice(v.as_bytes());
            CString::new(pair)
        })
        .collect::<Result<_, _>>()?;
    let argv_ptrs = null_terminated(&argv);
    let envp_ptrs = null_terminated(&envp);
    let cwd = c_path(exec.cwd)?;
    let (ready_r, ready_w) = pipe()?;
    let (status_r, status_w) = pipe()?;
    let context = Context {
        plan,
        fds: [
            stdio[0],
            stdio[1],
            stdio[2],
            ready_w.as_raw_fd(),
            status_w.as_raw_fd(),
        ],
        program: &program,
        argv: argv_ptrs.as_ptr(),
        envp: envp_ptrs.as_ptr(),
        cwd: &cwd,
        linger_ms: exec.linger.as_millis() as i64,
    };
    let mut flags = libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWPID;
    if !plan.network {
        flags |= libc::CLONE_NEWNET;
    }
    let pid = clone_process(flags);
    if pid == 0 {
        // SAFETY: this is the child of a fork; `init` makes only async-signal-safe calls.
        unsafe { init(&context) }
    }
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    drop((ready_w, status_w));
    // Until the command's exec closes it (or the init reports a failure and exits).
    let mut report = Vec::new();
    File::from(ready_r).read_to_end(&mut report)?;
    let status = File::from(status_r);
    if report.len() >= 8 {
        let step = u32::from_ne_bytes([report[0], report[1], report[2], report[3]]);
        let errno = i32::from_ne_bytes([report[4], report[5], report[6], report[7]]);
        let mut raw = 0;
        // SAFETY: reaping our own child, which is exiting.
        unsafe { libc::waitpid(pid, &mut raw, 0) };
        let cause = io::Error::from_raw_os_error(errno);
        if step == FAILED_EXEC {
            return Err(cause);
        }
        return Err(io::Error::other(SetupError(format!(
            "{}: {cause}",
            plan.describe(step)
        ))));
    }
    set_nonblocking(status.as_raw_fd())?;
    Ok(Child {
        pid,
        status,
        done: None,
        reaped: false,
        leftovers: false,
    })
}

/// Whether this kernel lets this user build the sandbox: a child in new namespaces maps its ids,
/// makes the mounts read-only and mounts a `/proc`, then exits. The answer is the reason when not.
pub fn probe() -> Result<(), String> {
    let mut plan = Plan::empty(true).map_err(|e| e.to_string())?;
    plan.push(Step::Private, "private mounts".into());
    plan.push(Step::ReadOnly, "make every mount read-only".into());
    plan.push(Step::Proc, "a fresh /proc".into());
    let (ready_r, ready_w) = pipe().map_err(|e| e.to_string())?;
    let ready = ready_w.as_raw_fd();
    let pid = clone_process(libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWPID);
    if pid == 0 {
        // SAFETY: the child of a fork; only async-signal-safe calls, then _exit.
        unsafe {
            let step = enter(&plan);
            if step != u32::MAX {
                report_failure(ready, step);
            }
            libc::_exit(0);
        }
    }
    if pid < 0 {
        return Err(format!(
            "creating user namespaces: {}",
            io::Error::last_os_error()
        ));
    }
    drop(ready_w);
    let mut report = Vec::new();
    let _ = File::from(ready_r).read_to_end(&mut report);
    let mut raw = 0;
    // SAFETY: reaping our own child.
    unsafe { libc::waitpid(pid, &mut raw, 0) };
    if report.len() >= 8 {
        let step = u32::from_ne_bytes([report[0], report[1], report[2], report[3]]);
        let errno = i32::from_ne_bytes([report[4], report[5], report[6], report[7]]);
        return Err(format!(
            "{}: {}",
            plan.describe(step),
            io::Error::from_raw_os_error(errno)
        ));
    }
    Ok(())
}

/// Searches `PATH` (the command's) the way `execvp` would, here in the daemon, since the child
/// may not allocate. The view inside has the same paths, read-only.
fn resolve_program(program: &str, env: &[(OsString, OsString)]) -> io::Result<PathBuf> {
    if program.contains('/') {
        return Ok(PathBuf::from(program));
    }
    let path = env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    for dir in std::env::split_paths(&path) {
        let candidate = dir.join(program);
        if rustix::fs::access(&candidate, rustix::fs::Access::EXEC_OK).is_ok()
            && candidate.is_file()
        {
            return Ok(candidate);
        }
    }
    Err(io::Error::from_raw_os_error(libc::ENOENT))
}

fn null_terminated(strings: &[CString]) -> Vec<*const libc::c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two descriptors we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both are fresh descriptors owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor this process owns.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// A fork (`clone` without a new stack) into the given namespaces. Raw, without the C library's
/// `fork` bookkeeping, which takes locks another thread of the daemon may hold.
fn clone_process(namespaces: libc::c_int) -> i32 {
    let flags = (namespaces | libc::SIGCHLD) as libc::c_ulong;
    // SAFETY: clone with a null stack behaves like fork; the child returns 0 on a copy of this
    // stack and runs only async-signal-safe code (see `init`).
    unsafe { libc::syscall(libc::SYS_clone, flags, 0usize, 0usize, 0usize, 0usize) as i32 }
}
