//! Child processes that end with the daemon. A daemon killed with SIGKILL runs no clean-up, so a
//! child it leaves running (a language server, a git writing the snapshot store) would outlive it
//! and compete with the next daemon. Each such child asks the kernel for SIGKILL when its parent
//! goes (`PR_SET_PDEATHSIG`). That signal fires when the *thread* that forked the child ends, so
//! callers fork from a thread that outlives the child: language servers from one long-lived
//! spawner thread (`lsp::spawn`), git from the thread that waits for it (`git::command`).

use std::io;

/// Run in a forked child before exec: asks for SIGKILL when the forking thread ends, and exits if
/// the daemon `daemon` is already gone. Only async-signal-safe calls (prctl, getppid, _exit), no
/// allocation.
pub fn die_with(daemon: libc::pid_t) -> io::Result<()> {
    // SAFETY: plain system calls on the calling process.
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
            return Err(io::Error::last_os_error());
        }
        // The daemon died before the signal was asked for: nobody would send it.
        if libc::getppid() != daemon {
            libc::_exit(1);
        }
    }
    Ok(())
}
