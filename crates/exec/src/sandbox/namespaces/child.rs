//! The namespace's side of the fork: init (PID 1) sets up the view and forks the command, then
//! reaps. Between the fork and `execve` only async-signal-safe system calls run here: no
//! allocation, no locks, every path and argument prepared by the daemon beforehand.

use super::{
    clone_process, Plan, Step, FAILED_CHDIR, FAILED_EXEC, FAILED_FILTER, FAILED_FORK,
    FAILED_LIMITS, FAILED_MAPS, READY_FD, STATUS_FD,
};

use std::ffi::CStr;
use std::os::fd::RawFd;

// The new mount API (Linux 5.2, `mount_setattr` 5.12); stable kernel ABI, spelled out here.
const OPEN_TREE_CLONE: libc::c_uint = 1;

const AT_RECURSIVE: libc::c_uint = 0x8000;

const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 4;

const MOUNT_ATTR_RDONLY: u64 = 1;
const MOUNT_ATTR_NOSUID: u64 = 2;
const MOUNT_ATTR_NODEV: u64 = 4;

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

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

/// What the child reads: prepared entirely in the daemon.
pub(super) struct Context<'a> {
    pub(super) plan: &'a Plan,
    /// The daemon's descriptors for stdin, stdout, stderr, the ready pipe and the status pipe.
    pub(super) fds: [RawFd; 5],
    pub(super) program: &'a CStr,
    pub(super) argv: *const *const libc::c_char,
    pub(super) envp: *const *const libc::c_char,
    pub(super) cwd: &'a CStr,
    pub(super) linger_ms: i64,
}

/// The namespace's init. Never returns.
///
/// # Safety
/// Only in the child of `clone_process`, which must make no call that can allocate or lock.
pub(super) unsafe fn init(context: &Context) -> ! {
    reset_signals();
    // Into the run's control groups first, so that every process of the run is counted.
    for fd in &context.plan.cgroup_procs {
        if libc::write(*fd, c"0".as_ptr().cast(), 1) != 1 {
            report_failure(context.fds[3], FAILED_LIMITS);
        }
    }
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
pub(super) unsafe fn enter(plan: &Plan) -> u32 {
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
pub(super) unsafe fn report_failure(ready: RawFd, step: u32) -> ! {
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
                moved && set_attributes(path, AT_RECURSIVE, NO_SET_ID)
            }
        }
        Step::TmpFs(path, options) => {
            libc::mount(
                c"tmpfs".as_ptr(),
                path.as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                options.as_ptr().cast(),
            ) == 0
        }
        Step::MaskFile(path) => bind_file(c"/dev/null", path),
        Step::Cover { source, target } => bind_file(source, target),
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

/// Set-id programs and device files in the writable places: a file made set-id or a device
/// node made there would take effect nowhere inside, whatever the filter missed.
const NO_SET_ID: u64 = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;

unsafe fn set_read_only(path: &CStr, flags: libc::c_uint) -> bool {
    set_attributes(path, flags, MOUNT_ATTR_RDONLY)
}

unsafe fn set_attributes(path: &CStr, flags: libc::c_uint, attributes: u64) -> bool {
    let attr = MountAttr {
        attr_set: attributes,
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
    crate::sandbox::limits::apply(&context.plan.rlimits);
    if !context.plan.filter.install() {
        report_failure(READY_FD, FAILED_FILTER);
    }
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
pub(super) unsafe fn reap(command: i32, linger_ms: i64) -> (i32, bool) {
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
