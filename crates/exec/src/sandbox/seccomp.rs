//! The system calls a sandboxed program may not make, as a seccomp filter installed just before
//! `execve` (after `no_new_privs`, so it needs no privilege and no child can drop it):
//!
//! - **No Unix-domain sockets of its own.** A pathname socket is reached by its path, and a
//!   read-only mount does not stop a `connect`: another coderd's socket, an agent's, a desktop
//!   bus. So `socket(AF_UNIX, …)` fails (`EACCES`), and so does a datagram `socketpair` (its
//!   ends can still `sendto` a path); stream and seqpacket pairs, already connected to each
//!   other, stay (pipes between a program's own processes). With `network: false` only the
//!   families a network namespace confines (IPv4, IPv6, netlink) are left: no `AF_VSOCK` to the
//!   host, no packet sockets.
//! - **No set-id bits.** `chmod`, `fchmod`, `fchmodat(2)`, `open`/`openat`/`creat` and `mknod(at)`
//!   with `S_ISUID` or `S_ISGID` in the mode fail (`EPERM`): a file made set-id inside the roots
//!   would run with its owner's rights (root's, for a daemon run as root) outside the sandbox.
//!   `openat2`, whose mode sits in a struct a filter cannot read, answers `ENOSYS`, which callers
//!   treat as an old kernel and fall back to `openat`.
//! - **No `io_uring`**: its submissions make socket and open calls no filter sees (`ENOSYS`).
//! - System calls of another ABI (32-bit `int 0x80`, x32) answer `ENOSYS`: their numbers differ
//!   and 32-bit `socketcall` hides the socket family.

use libc::sock_filter;

/// `AUDIT_ARCH_*` of the architecture this daemon was built for.
#[cfg(target_arch = "x86_64")]
const NATIVE_ARCH: u32 = 0xc000_003e;
#[cfg(target_arch = "aarch64")]
const NATIVE_ARCH: u32 = 0xc000_00b7;

/// Offsets in `struct seccomp_data`.
const NR: u32 = 0;
const ARCH: u32 = 4;
const fn arg(index: u32) -> u32 {
    16 + 8 * index
}

const SET_ID_BITS: u32 = libc::S_ISUID | libc::S_ISGID;

const ALLOW: u32 = libc::SECCOMP_RET_ALLOW;
const fn fail(errno: i32) -> u32 {
    libc::SECCOMP_RET_ERRNO | (errno as u32 & libc::SECCOMP_RET_DATA)
}

/// The filter of one sandbox, built in the daemon; installed in the child without allocating.
pub struct Filter {
    program: Vec<sock_filter>,
}

impl Filter {
    /// The filter for a run with or without a network of its own.
    pub fn new(network: bool) -> Filter {
        let mut program = vec![
            load(ARCH),
            jump_eq(NATIVE_ARCH, 1, 0),
            ret(fail(libc::ENOSYS)),
            load(NR),
        ];
        if cfg!(target_arch = "x86_64") {
            const X32_SYSCALL_BIT: u32 = 0x4000_0000;
            program.push(jump(libc::BPF_JGE, X32_SYSCALL_BIT, 0, 1));
            program.push(ret(fail(libc::ENOSYS)));
        }
        program.extend(rule(libc::SYS_socket, socket_family(network)));
        program.extend(rule(libc::SYS_socketpair, socketpair_type()));
        program.extend(rule(
            libc::SYS_io_uring_setup,
            vec![ret(fail(libc::ENOSYS))],
        ));
        program.extend(rule(libc::SYS_openat2, vec![ret(fail(libc::ENOSYS))]));
        for (call, mode_arg) in mode_calls() {
            program.extend(rule(call, no_set_id(mode_arg)));
        }
        program.push(ret(ALLOW));
        Filter { program }
    }

    /// Installs the filter on the calling thread (and what it executes).
    ///
    /// # Safety
    /// Async-signal-safe: one `prctl`, no allocation. `no_new_privs` must be set already.
    pub unsafe fn install(&self) -> bool {
        let program = libc::sock_fprog {
            len: self.program.len() as u16,
            filter: self.program.as_ptr().cast_mut(),
        };
        libc::prctl(
            libc::PR_SET_SECCOMP,
            libc::SECCOMP_MODE_FILTER,
            &program as *const libc::sock_fprog,
        ) == 0
    }
}

/// The calls that take a file mode, and which argument holds it.
fn mode_calls() -> Vec<(libc::c_long, u32)> {
    let mut calls = vec![
        (libc::SYS_fchmod, 1),
        (libc::SYS_fchmodat, 2),
        (libc::SYS_openat, 3),
        (libc::SYS_mknodat, 2),
    ];
    // fchmodat2 (Linux 6.6) has the same number on every architecture.
    const SYS_FCHMODAT2: libc::c_long = 452;
    calls.push((SYS_FCHMODAT2, 2));
    #[cfg(target_arch = "x86_64")]
    calls.extend([
        (libc::SYS_chmod, 1),
        (libc::SYS_open, 2),
        (libc::SYS_creat, 1),
        (libc::SYS_mknod, 1),
    ]);
    calls
}

/// `body` for system call `call`: skipped for every other number (the number stays loaded).
fn rule(call: libc::c_long, body: Vec<sock_filter>) -> Vec<sock_filter> {
    let mut block = vec![jump_eq(call as u32, 0, body.len() as u8)];
    block.extend(body);
    block
}

/// `EACCES` for `AF_UNIX`; without a network, `EAFNOSUPPORT` for anything but IPv4, IPv6 and
/// netlink. (Every body ends in a return, so none needs the number loaded again.)
fn socket_family(network: bool) -> Vec<sock_filter> {
    let mut body = vec![load(arg(0)), jump_eq(libc::AF_UNIX as u32, 0, 1)];
    body.push(ret(fail(libc::EACCES)));
    if !network {
        let confined = [libc::AF_INET, libc::AF_INET6, libc::AF_NETLINK];
        for (i, family) in confined.iter().enumerate() {
            let to_allow = (confined.len() - i) as u8;
            body.push(jump_eq(*family as u32, to_allow, 0));
        }
        body.push(ret(fail(libc::EAFNOSUPPORT)));
    }
    body.push(ret(ALLOW));
    body
}

/// A datagram pair's ends can send to any path: `EACCES`; stream and seqpacket pairs pass.
fn socketpair_type() -> Vec<sock_filter> {
    vec![
        load(arg(1)),
        alu_and(0xf),
        jump_eq(libc::SOCK_DGRAM as u32, 0, 1),
        ret(fail(libc::EACCES)),
        ret(ALLOW),
    ]
}

/// `EPERM` when the mode in argument `index` has a set-id bit.
fn no_set_id(index: u32) -> Vec<sock_filter> {
    vec![
        load(arg(index)),
        jump(libc::BPF_JSET, SET_ID_BITS, 0, 1),
        ret(fail(libc::EPERM)),
        ret(ALLOW),
    ]
}

fn load(offset: u32) -> sock_filter {
    statement(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, offset)
}

fn alu_and(mask: u32) -> sock_filter {
    const BPF_ALU: u32 = 0x04;
    const BPF_AND: u32 = 0x50;
    statement(BPF_ALU | BPF_AND | libc::BPF_K, mask)
}

fn ret(value: u32) -> sock_filter {
    statement(libc::BPF_RET | libc::BPF_K, value)
}

fn jump_eq(value: u32, if_true: u8, if_false: u8) -> sock_filter {
    jump(libc::BPF_JEQ, value, if_true, if_false)
}

fn jump(test: u32, value: u32, if_true: u8, if_false: u8) -> sock_filter {
    sock_filter {
        code: (libc::BPF_JMP | test | libc::BPF_K) as u16,
        jt: if_true,
        jf: if_false,
        k: value,
    }
}

fn statement(code: u32, k: u32) -> sock_filter {
    sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `f` in a forked child with the filter installed; its exit code.
    fn in_child(network: bool, f: fn() -> i32) -> i32 {
        let filter = Filter::new(network);
        // SAFETY: the child only makes system calls and exits.
        unsafe {
            let pid = libc::fork();
            if pid == 0 {
                libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
                if !filter.install() {
                    libc::_exit(99);
                }
                libc::_exit(f());
            }
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0);
            libc::WEXITSTATUS(status)
        }
    }

    fn errno() -> i32 {
        std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
    }

    #[test]
    fn unix_sockets_and_set_id_modes_are_refused_and_the_rest_passes() {
        // SAFETY (each closure): plain system calls whose results are checked.
        let unix = in_child(true, || unsafe {
            (libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0) < 0 && errno() == libc::EACCES)
                as i32
        });
        assert_eq!(unix, 1, "AF_UNIX socket refused with EACCES");
        let inet = in_child(true, || unsafe {
            (libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0) >= 0) as i32
        });
        assert_eq!(inet, 1, "an IPv4 socket is still allowed");
        let pair = in_child(true, || unsafe {
            let mut fds = [0; 2];
            let stream = libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM, 0, fds.as_mut_ptr());
            let dgram = libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
                0,
                fds.as_mut_ptr(),
            );
            (stream == 0 && dgram < 0) as i32
        });
        assert_eq!(pair, 1, "stream pairs allowed, datagram pairs refused");
        let vsock = in_child(false, || unsafe {
            const AF_VSOCK: i32 = 40;
            (libc::socket(AF_VSOCK, libc::SOCK_STREAM, 0) < 0 && errno() == libc::EAFNOSUPPORT)
                as i32
        });
        assert_eq!(vsock, 1, "no vsock without a network");
        let modes = in_child(true, || unsafe {
            // A path that does not exist: without the filter the answer is ENOENT, never a change.
            let dir = c"/nonexistent-coderd-seccomp-test";
            let setuid = libc::chmod(dir.as_ptr(), 0o4755) < 0 && errno() == libc::EPERM;
            let setgid = libc::fchmodat(libc::AT_FDCWD, dir.as_ptr(), 0o2755, 0) < 0
                && errno() == libc::EPERM;
            let uring = libc::syscall(libc::SYS_io_uring_setup, 1, std::ptr::null_mut::<u8>()) < 0
                && errno() == libc::ENOSYS;
            (setuid && setgid && uring) as i32
        });
        assert_eq!(modes, 1, "set-id modes and io_uring refused");
    }
}
