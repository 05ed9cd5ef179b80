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
use std::ffi::{CStr, CString, OsString};
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::Duration;

// The new mount API (Linux 5.2, `mount_setattr` 5.12); stable kernel ABI, spelled out here.
const OPEN_TREE_CLONE: libc::c_uint = 1;
const AT_RECURSIVE: libc::c_uint = 0x8000;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 4;
const MOUNT_ATTR_RDONLY: u64 = 1;

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// Fixed descriptor numbers in the init process, once it has moved its pipes there.
const READY_FD: RawFd = 3;
const STATUS_FD: RawFd = 4;

/// Pseudo step numbers for the failures that are not mount steps.
const FAILED_MAPS: u32 = u32::MAX - 3;
const FAILED_CHDIR: u32 = u32::MAX - 2;
const FAILED_FORK: u32 = u32::MAX - 1;
const FAILED_EXEC: u32 = u32::MAX;

/// Device files bound into the fresh `/dev`.
const DEVICES: [&CStr; 6] = [
    c"/dev/null",
    c"/dev/zero",
    c"/dev/full",
    c"/dev/random",
    c"/dev/urandom",
    c"/dev/tty",
];
const DEV_LINKS: [(&CStr, &CStr); 4] = [
    (c"/proc/self/fd", c"/dev/fd"),
    (c"/proc/self/fd/0", c"/dev/stdin"),
    (c"/proc/self/fd/1", c"/dev/stdout"),
    (c"/proc/self/fd/2", c"/dev/stderr"),
];

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
}

/// The places of a view, as the daemon decided them.
pub struct View<'a> {
    pub writable: &'a [PathBuf],
    pub masked_files: &'a [PathBuf],
    pub masked_dirs: &'a [PathBuf],
    pub network: bool,
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
        })
    }

    pub fn new(view: &View) -> io::Result<Plan> {
        let mut plan = Plan::empty(view.network)?;
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
        for (slot, path) in view.writable.iter().enumerate() {
            let step = Step::Place {
                slot,
                path: c_path(path)?,
            };
            plan.push(step, format!("bind {} writable", path.display()));
        }
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
        plan.push(Step::Dev, "a minimal /dev".into());
        plan.push(Step::Proc, "a fresh /proc".into());
        if !view.network {
            plan.push(Step::LoopbackUp, "bring up the loopback interface".into());
        }
        Ok(plan)
    }

    fn push(&mut self, step: Step, shown: String) {
        self.steps.push(step);
        self.shown.push(shown);
    }

    fn describe(&self, step: u32) -> String {
        match step {
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

/// Starts `exec` inside the view `plan` describes.
pub fn spawn(plan: &Plan, exec: &Exec) -> io::Result<Spawned> {
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
    let (stdout_r, stdout_w) = pipe()?;
    let (stderr_r, stderr_w) = pipe()?;
    let (ready_r, ready_w) = pipe()?;
    let (status_r, status_w) = pipe()?;
    let stdin = File::open("/dev/null")?;
    let context = Context {
        plan,
        fds: [
            stdin.as_raw_fd(),
            stdout_w.as_raw_fd(),
            stderr_w.as_raw_fd(),
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
    drop((stdout_w, stderr_w, ready_w, status_w, stdin));
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
    Ok(Spawned {
        child: Child {
            pid,
            status,
            done: None,
            reaped: false,
            leftovers: false,
        },
        stdout: File::from(stdout_r),
        stderr: File::from(stderr_r),
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

/// What the child reads: prepared entirely in the daemon.
struct Context<'a> {
    plan: &'a Plan,
    /// The daemon's descriptors for stdin, stdout, stderr, the ready pipe and the status pipe.
    fds: [RawFd; 5],
    program: &'a CStr,
    argv: *const *const libc::c_char,
    envp: *const *const libc::c_char,
    cwd: &'a CStr,
    linger_ms: i64,
}

/// The namespace's init. Never returns.
///
/// # Safety
/// Only in the child of `clone_process`, which must make no call that can allocate or lock.
unsafe fn init(context: &Context) -> ! {
    reset_signals();
    // The pipes at fixed numbers 0..=4, every other descriptor of the daemon closed.
    let mut moved = [-1; 5];
    for (i, fd) in context.fds.iter().enumerate() {
        moved[i] = libc::fcntl(*fd, libc::F_DUPFD, 16);
        if moved[i] < 0 {
            report_failure(context.fds[3], FAILED_FORK);
        }
    }
    for (i, fd) in moved.iter().enumerate() {
        libc::dup2(*fd, i as RawFd);
    }
    libc::syscall(libc::SYS_close_range, 5u32, u32::MAX, 0u32);
    libc::fcntl(READY_FD, libc::F_SETFD, libc::FD_CLOEXEC);
    libc::fcntl(STATUS_FD, libc::F_SETFD, libc::FD_CLOEXEC);
    libc::setsid();
    let no_core = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    libc::setrlimit(libc::RLIMIT_CORE, &no_core);
    // The daemon's thread that started us waits for the run; if it dies, so does the namespace.
    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    let failed = enter(context.plan);
    if failed != u32::MAX {
        report_failure(READY_FD, failed);
    }
    if libc::chdir(context.cwd.as_ptr()) != 0 {
        report_failure(READY_FD, FAILED_CHDIR);
    }
    let command = clone_process(0);
    if command == 0 {
        run_command(context);
    }
    if command < 0 {
        report_failure(READY_FD, FAILED_FORK);
    }
    for fd in 0..=READY_FD {
        libc::close(fd);
    }
    let (status, leftovers) = reap(command, context.linger_ms);
    let mut report = [0u8; 5];
    report[..4].copy_from_slice(&status.to_ne_bytes());
    report[4] = leftovers as u8;
    libc::write(STATUS_FD, report.as_ptr().cast(), report.len());
    libc::_exit(0)
}

/// Maps the ids and runs the plan's steps; the number of the failed step, or `u32::MAX`.
unsafe fn enter(plan: &Plan) -> u32 {
    if !write_file(c"/proc/self/setgroups", c"deny")
        || !write_file(c"/proc/self/uid_map", &plan.uid_map)
        || !write_file(c"/proc/self/gid_map", &plan.gid_map)
    {
        return FAILED_MAPS;
    }
    // The daemon's memory is in this process: nobody may read it through /proc or ptrace.
    libc::prctl(libc::PR_SET_DUMPABLE, 0);
    for (i, step) in plan.steps.iter().enumerate() {
        if !run_step(plan, step) {
            return i as u32;
        }
    }
    u32::MAX
}

/// Writes `step` and errno to the ready pipe and exits.
unsafe fn report_failure(ready: RawFd, step: u32) -> ! {
    let errno = *libc::__errno_location();
    let mut report = [0u8; 8];
    report[..4].copy_from_slice(&step.to_ne_bytes());
    report[4..].copy_from_slice(&errno.to_ne_bytes());
    libc::write(ready, report.as_ptr().cast(), report.len());
    libc::_exit(125)
}

unsafe fn reset_signals() {
    for signal in 1..=64 {
        if signal != libc::SIGKILL && signal != libc::SIGSTOP {
            libc::signal(signal, libc::SIG_DFL);
        }
    }
    let mut none: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut none);
    libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
}

unsafe fn write_file(path: &CStr, text: &CStr) -> bool {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return false;
    }
    let bytes = text.to_bytes();
    let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
    libc::close(fd);
    written == bytes.len() as isize
}

unsafe fn run_step(plan: &Plan, step: &Step) -> bool {
    match step {
        Step::Private => {
            libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ) == 0
        }
        Step::Clone { slot, path } => {
            let fd = open_tree(libc::AT_FDCWD, path, OPEN_TREE_CLONE | AT_RECURSIVE);
            plan.slots[*slot].set(fd);
            // A writable place that is gone since the daemon looked is left out.
            fd >= 0 || *libc::__errno_location() == libc::ENOENT
        }
        Step::ReadOnly => set_read_only(c"/", AT_RECURSIVE),
        Step::Place { slot, path } => {
            let fd = plan.slots[*slot].get();
            fd < 0 || {
                let moved = move_mount(fd, path);
                libc::close(fd);
                moved
            }
        }
        Step::MaskFile(path) => bind_file(c"/dev/null", path),
        Step::MaskDir(path) => {
            empty_tmpfs(path, libc::MS_RDONLY) || *libc::__errno_location() == libc::ENOENT
        }
        Step::Dev => make_dev(),
        Step::Proc => {
            libc::mount(
                c"proc".as_ptr(),
                c"/proc".as_ptr(),
                c"proc".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                std::ptr::null(),
            ) == 0
        }
        Step::LoopbackUp => loopback_up(),
    }
}

unsafe fn bind_file(source: &CStr, target: &CStr) -> bool {
    let done = libc::mount(
        source.as_ptr(),
        target.as_ptr(),
        std::ptr::null(),
        libc::MS_BIND,
        std::ptr::null(),
    ) == 0;
    // A file deleted since the daemon looked needs no mask.
    done || *libc::__errno_location() == libc::ENOENT
}

unsafe fn empty_tmpfs(path: &CStr, flags: libc::c_ulong) -> bool {
    libc::mount(
        c"tmpfs".as_ptr(),
        path.as_ptr(),
        c"tmpfs".as_ptr(),
        flags | libc::MS_NOSUID | libc::MS_NODEV,
        c"mode=0755,size=1m".as_ptr().cast(),
    ) == 0
}

unsafe fn open_tree(dirfd: RawFd, path: &CStr, flags: libc::c_uint) -> RawFd {
    libc::syscall(
        libc::SYS_open_tree,
        dirfd,
        path.as_ptr(),
        flags | libc::O_CLOEXEC as libc::c_uint,
    ) as RawFd
}

unsafe fn move_mount(fd: RawFd, target: &CStr) -> bool {
    libc::syscall(
        libc::SYS_move_mount,
        fd,
        c"".as_ptr(),
        libc::AT_FDCWD,
        target.as_ptr(),
        MOVE_MOUNT_F_EMPTY_PATH,
    ) == 0
}

unsafe fn set_read_only(path: &CStr, flags: libc::c_uint) -> bool {
    let attr = MountAttr {
        attr_set: MOUNT_ATTR_RDONLY,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    libc::syscall(
        libc::SYS_mount_setattr,
        libc::AT_FDCWD,
        path.as_ptr(),
        flags,
        &attr as *const MountAttr,
        std::mem::size_of::<MountAttr>(),
    ) == 0
}

/// A tmpfs on `/dev` holding the harmless devices (bound from the real ones), the usual links, a
/// writable `/dev/shm` and a private `/dev/pts`; then read-only.
unsafe fn make_dev() -> bool {
    let mut devices = [-1; DEVICES.len()];
    for (slot, device) in devices.iter_mut().zip(DEVICES) {
        *slot = open_tree(libc::AT_FDCWD, device, OPEN_TREE_CLONE);
    }
    if !empty_tmpfs(c"/dev", libc::MS_NOEXEC) {
        return false;
    }
    for (fd, device) in devices.iter().zip(DEVICES) {
        if *fd < 0 {
            continue;
        }
        let file = libc::open(
            device.as_ptr(),
            libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
            0o666,
        );
        if file < 0 {
            return false;
        }
        libc::close(file);
        let moved = move_mount(*fd, device);
        libc::close(*fd);
        if !moved {
            return false;
        }
    }
    for (target, link) in DEV_LINKS {
        libc::symlink(target.as_ptr(), link.as_ptr());
    }
    libc::mkdir(c"/dev/shm".as_ptr(), 0o1777);
    if !empty_tmpfs(c"/dev/shm", 0) {
        return false;
    }
    libc::chmod(c"/dev/shm".as_ptr(), 0o1777);
    // Pseudo-terminals of its own, for tools that open one (`script`, `pty.openpty`); best
    // effort: a kernel that refuses leaves them out.
    libc::mkdir(c"/dev/pts".as_ptr(), 0o755);
    let pts = libc::mount(
        c"devpts".as_ptr(),
        c"/dev/pts".as_ptr(),
        c"devpts".as_ptr(),
        libc::MS_NOSUID | libc::MS_NOEXEC,
        c"newinstance,ptmxmode=0666,mode=0620".as_ptr().cast(),
    ) == 0;
    if pts {
        libc::symlink(c"pts/ptmx".as_ptr(), c"/dev/ptmx".as_ptr());
    }
    set_read_only(c"/dev", 0)
}

/// The new network namespace's loopback, up: tools that talk to themselves over 127.0.0.1 work.
unsafe fn loopback_up() -> bool {
    let socket = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
    if socket < 0 {
        return false;
    }
    let mut request: libc::ifreq = std::mem::zeroed();
    for (dst, src) in request.ifr_name.iter_mut().zip(b"lo\0") {
        *dst = *src as libc::c_char;
    }
    let ok = libc::ioctl(socket, libc::SIOCGIFFLAGS, &mut request) == 0 && {
        request.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
        libc::ioctl(socket, libc::SIOCSIFFLAGS, &request) == 0
    };
    libc::close(socket);
    ok
}

/// PID 2: no capabilities, no way to gain any, then the program.
unsafe fn run_command(context: &Context) -> ! {
    for capability in 0..64 {
        libc::prctl(libc::PR_CAPBSET_DROP, capability);
    }
    libc::prctl(
        libc::PR_CAP_AMBIENT,
        libc::PR_CAP_AMBIENT_CLEAR_ALL,
        0,
        0,
        0,
    );
    let header = CapHeader {
        version: 0x2008_0522,
        pid: 0,
    };
    let data = [CapData::default(); 2];
    libc::syscall(libc::SYS_capset, &header, data.as_ptr());
    libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    libc::execve(context.program.as_ptr(), context.argv, context.envp);
    report_failure(READY_FD, FAILED_EXEC)
}

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// Waits for the command, then at most `linger_ms` for the rest; the command's wait status and
/// whether anything was still running.
unsafe fn reap(command: i32, linger_ms: i64) -> (i32, bool) {
    let mut status = 0;
    loop {
        let mut raw = 0;
        let pid = libc::waitpid(-1, &mut raw, 0);
        if pid == command {
            status = raw;
            break;
        }
        if pid < 0 && *libc::__errno_location() != libc::EINTR {
            break;
        }
    }
    let deadline = now_ms() + linger_ms;
    loop {
        let mut raw = 0;
        let pid = libc::waitpid(-1, &mut raw, libc::WNOHANG);
        if pid > 0 {
            continue;
        }
        if pid < 0 {
            return (status, false);
        }
        if now_ms() >= deadline {
            return (status, true);
        }
        let pause = libc::timespec {
            tv_sec: 0,
            tv_nsec: 10_000_000,
        };
        libc::nanosleep(&pause, std::ptr::null_mut());
    }
}

unsafe fn now_ms() -> i64 {
    let mut now: libc::timespec = std::mem::zeroed();
    libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now);
    now.tv_sec * 1000 + now.tv_nsec / 1_000_000
}
