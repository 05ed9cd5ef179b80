//! The process groups of running commands end with the daemon, even a daemon killed by SIGKILL.
//!
//! Each `exec` runs in a session of its own, so that a timeout can end its whole tree; for the
//! same reason, nothing the kernel does when the daemon dies reaches that tree (`PR_SET_PDEATHSIG`
//! would end the shell alone, not what it started). So the daemon starts one small watchdog, its
//! own binary as `coderd watchdog`, and tells it each group as it starts (`+PGID`) and ends
//! (`-PGID`) over a pipe only the daemon writes. When the pipe closes (the daemon exited, however
//! it went) the watchdog sends SIGKILL to every group still listed, then exits.

use std::collections::BTreeSet;
use std::io::{BufRead, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// The pipe to the watchdog; `None` when it could not be started (commands still run, and a
/// daemon that is killed then leaves them running, as before the watchdog existed).
static WATCHDOG: OnceLock<Option<Mutex<ChildStdin>>> = OnceLock::new();

fn pipe() -> Option<&'static Mutex<ChildStdin>> {
    WATCHDOG.get_or_init(start).as_ref()
}

fn start() -> Option<Mutex<ChildStdin>> {
    let started = Command::new("/proc/self/exe")
        .arg("watchdog")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Its own group: a signal to the daemon's group (Ctrl-C in a terminal) leaves it to
        // notice the pipe closing and clean up.
        .process_group(0)
        .spawn();
    match started {
        Ok(mut child) => {
            let stdin = child.stdin.take()?;
            // Reaped by nobody while the daemon lives; it exits only after the daemon has.
            std::mem::forget(child);
            Some(Mutex::new(stdin))
        }
        Err(e) => {
            tracing::warn!(
                "exec watchdog not started ({e}): commands of a killed daemon would outlive it"
            );
            None
        }
    }
}

/// The watchdog's pipe, for a child to announce itself between fork and exec (`announce`): the
/// daemon's own `track` comes after the spawn returns, and a daemon killed in between would leave
/// that group unknown to the watchdog, running on. Starts the watchdog if need be.
pub fn announce_fd() -> Option<RawFd> {
    let pipe = pipe()?;
    Some(pipe.lock().unwrap_or_else(|e| e.into_inner()).as_raw_fd())
}

/// In the child, after `setsid` and before exec: `+PGID` (its own pid) on the watchdog's pipe.
/// Async-signal-safe: digits on the stack and one `write(2)`, atomic for a line this short.
///
/// # Safety
/// Only between fork and exec, with `fd` from `announce_fd`.
pub unsafe fn announce(fd: RawFd) {
    let mut line = [0u8; 16];
    let mut end = line.len();
    end -= 1;
    line[end] = b'\n';
    let mut pid = libc::getpid().unsigned_abs();
    loop {
        end -= 1;
        line[end] = b'0' + (pid % 10) as u8;
        pid /= 10;
        if pid == 0 {
            break;
        }
    }
    end -= 1;
    line[end] = b'+';
    libc::write(fd, line[end..].as_ptr().cast(), line.len() - end);
}

/// Tells the watchdog that the group `pgid` started.
pub fn track(pgid: i32) {
    send(&format!("+{pgid}\n"));
}

/// Tells the watchdog that the group `pgid` is gone.
pub fn untrack(pgid: i32) {
    send(&format!("-{pgid}\n"));
}

fn send(line: &str) {
    if let Some(pipe) = pipe() {
        let mut stdin = pipe.lock().unwrap_or_else(|e| e.into_inner());
        let _ = stdin.write_all(line.as_bytes());
    }
}

/// The watchdog's life (`coderd watchdog`): keep the list from stdin until it closes, then end
/// every group on it.
pub fn watch(input: impl BufRead) {
    let mut groups = BTreeSet::new();
    for line in input.lines() {
        let Ok(line) = line else { break };
        let (sign, number) = line.split_at(line.len().min(1));
        let Ok(pgid) = number.parse::<i32>() else {
            continue;
        };
        // Only real groups: 0 and 1 would mean "my group" and "every process" to kill(2).
        if pgid <= 1 {
            continue;
        }
        match sign {
            "+" => groups.insert(pgid),
            "-" => groups.remove(&pgid),
            _ => false,
        };
    }
    for pgid in groups {
        // SAFETY: kill(2) with a negative pid signals the group `pgid` (> 1, checked above).
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}
