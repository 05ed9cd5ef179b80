//! `coderd sandbox-exec -- PROGRAM ARGS...`: the daemon's own binary, started in place of a
//! language server, runs the server inside the namespace sandbox. A server lives as long as the
//! daemon wants it and talks over its stdio, so it cannot be one of `exec`'s runs: the daemon
//! starts this wrapper as it started servers before (a child that dies with it), the wrapper
//! builds the namespaces from the `Places` the daemon decided (JSON on descriptor 3, a memfd), the
//! server inherits the wrapper's stdin, stdout and stderr, and the wrapper exits with the server's
//! status (a signal as 128 + its number). Killing the wrapper kills the namespace's init (its
//! parent-death signal), and with it every process inside.

use super::limits;
use super::namespaces::{self, Exec};
use super::Places;
use std::ffi::OsString;
use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

/// The descriptor the daemon puts the places on.
pub const PLACES_FD: RawFd = 3;

/// The hidden subcommand's name.
pub const SUBCOMMAND: &str = "sandbox-exec";

/// Runs the wrapper; the process's exit code.
pub fn main(command: &[OsString]) -> i32 {
    match run(command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("coderd {SUBCOMMAND}: {e}");
            125
        }
    }
}

fn run(command: &[OsString]) -> Result<i32, String> {
    let (program, args) = command.split_first().ok_or("no program to run")?;
    let program = program.to_str().ok_or("the program's path is not UTF-8")?;
    // SAFETY: descriptor 3 is the memfd the daemon dup2'ed there for this process alone.
    let mut file = unsafe { File::from_raw_fd(PLACES_FD) };
    // The daemon wrote it through the same open file: its offset is at the end.
    file.seek(SeekFrom::Start(0))
        .map_err(|e| format!("reading the places on descriptor {PLACES_FD}: {e}"))?;
    let places: Places = serde_json::from_reader(&file)
        .map_err(|e| format!("reading the places on descriptor {PLACES_FD}: {e}"))?;
    drop(file);
    // The server's control group, made here so it is the wrapper's to keep (and a daemon's next
    // run removes it when a killed wrapper could not).
    let held = limits::Held::new(&places.limits);
    let plan = namespaces::Plan::new(&places.view(&held)).map_err(|e| e.to_string())?;
    let env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    let cwd = std::env::current_dir().map_err(|e| format!("the working folder: {e}"))?;
    let exec = Exec {
        program,
        args,
        env: &env,
        cwd: &cwd,
        // The server is the run: what it leaves behind ends with it.
        linger: Duration::ZERO,
    };
    let mut child = namespaces::spawn_inheriting(&plan, &exec)
        .map_err(|e| format!("starting {program}: {e}"))?;
    let status = child
        .wait()
        .map_err(|e| format!("waiting for {program}: {e}"))?;
    Ok(status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)))
}
