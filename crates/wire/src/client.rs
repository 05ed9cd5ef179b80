//! The client side of the socket: finding the daemon (`--socket`, `$CODERD_SOCKET`, the registry
//! of live daemons, the workspace's default socket), starting one when none answers, and sending
//! one request as a newline-delimited JSON-RPC frame, reading its one-line answer (after any
//! progress notifications). Used by `coder` and by the daemon's MCP face.

use crate::paths::default_socket_path;
use crate::registry;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How a client finds its daemon: the choices of `coder`'s global flags.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// A socket named by the user (`--socket`).
    pub socket: Option<PathBuf>,
    /// Workspace root(s) for a daemon this client starts (`--root`).
    pub roots: Vec<PathBuf>,
    /// Fail instead of starting a daemon when none answers.
    pub no_start: bool,
    /// Say on stderr which daemon was used and why.
    pub verbose: bool,
}

/// A failure of the client itself (no daemon, a broken answer, bad arguments), as opposed to a
/// C2xx from the daemon.
#[derive(Debug)]
pub struct ClientError(pub String);

/// How long `coder` waits for a daemon it started to answer.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// The workspace a started daemon serves: `--root`, else the enclosing git top level, else the cwd.
fn workspace_roots(cli: &Options) -> Vec<PathBuf> {
    if !cli.roots.is_empty() {
        return cli
            .roots
            .iter()
            .map(|r| std::fs::canonicalize(r).unwrap_or(r.clone()))
            .collect();
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
    let top = cwd
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(&cwd);
    vec![top.to_path_buf()]
}

/// `--socket`, else `$CODERD_SOCKET`, with where it came from.
fn named_socket(cli: &Options) -> Option<(PathBuf, &'static str)> {
    if let Some(socket) = &cli.socket {
        return Some((socket.clone(), "--socket"));
    }
    std::env::var_os("CODERD_SOCKET")
        .filter(|s| !s.is_empty())
        .map(|s| (PathBuf::from(s), "$CODERD_SOCKET"))
}

/// Finds the daemon to talk to, in this order: a socket named by `--socket` or `$CODERD_SOCKET`;
/// a live daemon in the registry whose roots hold the current folder (the deepest such root wins;
/// with `--root`, one whose primary root is that root); the workspace's default socket. When none
/// answers, starts `coderd` for the workspace on the chosen socket (unless `--no-start`).
pub fn connect(cli: &Options) -> Result<UnixStream, ClientError> {
    let say = |msg: String| {
        if cli.verbose {
            eprintln!("coder: {msg}");
        }
    };
    let roots = workspace_roots(cli);
    let socket = match named_socket(cli) {
        Some((socket, from)) => {
            say(format!("socket {} (from {from})", socket.display()));
            socket
        }
        None => {
            if let Some(stream) = connect_registered(cli, &roots, &say) {
                return Ok(stream);
            }
            let socket = default_socket_path(&roots[0]);
            say(format!(
                "socket {} (the default socket of workspace {})",
                socket.display(),
                roots[0].display()
            ));
            socket
        }
    };
    if let Ok(stream) = UnixStream::connect(&socket) {
        say(format!("connected to the daemon on {}", socket.display()));
        return Ok(stream);
    }
    if cli.no_start {
        return Err(ClientError(format!(
            "no coderd answers on {} (--no-start given)",
            socket.display()
        )));
    }
    let mut child = start_daemon(&roots, &socket)?;
    say(format!(
        "no daemon answered: started coderd (pid {}) for {} on {} (log: {})",
        child.id(),
        roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        socket.display(),
        log_path(&socket).display()
    ));
    let mut deadline = Instant::now() + START_TIMEOUT;
    let mut exited = false;
    loop {
        match UnixStream::connect(&socket) {
            Ok(stream) => return Ok(stream),
            Err(e) if Instant::now() > deadline => {
                let why = if exited {
                    "coderd exited"
                } else {
                    "coderd does not answer"
                };
                return Err(ClientError(format!(
                    "{why} on {}: {e}\n{}",
                    socket.display(),
                    log_tail(&log_path(&socket))
                )));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
        // A daemon that exits lost a start race (another one will answer) or could not start:
        // wait a moment for the other one, not the whole timeout.
        if !exited && child.try_wait().ok().flatten().is_some() {
            exited = true;
            deadline = deadline.min(Instant::now() + Duration::from_secs(1));
        }
    }
}

/// A live daemon from the registry for this folder (or, with `--root`, for that primary root).
/// Stale entries met on the way are removed (and mentioned with `--verbose`).
fn connect_registered(
    cli: &Options,
    roots: &[PathBuf],
    say: &impl Fn(String),
) -> Option<UnixStream> {
    let (dir, lookup) = if cli.roots.is_empty() {
        let cwd = std::env::current_dir().ok()?;
        let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
        let lookup = registry::find(&cwd, |_| true);
        (cwd, lookup)
    } else {
        let primary = roots[0].clone();
        let lookup = registry::find(&primary, |e| e.roots.first() == Some(&primary));
        (primary, lookup)
    };
    for (path, why) in &lookup.removed {
        say(format!(
            "removed stale registry entry {} ({why})",
            path.display()
        ));
    }
    let (entry, root) = lookup.found?;
    match UnixStream::connect(&entry.socket) {
        Ok(stream) => {
            say(format!(
                "socket {} (from the registry: coderd pid {} serves {}, which holds {})",
                entry.socket.display(),
                entry.pid,
                root.display(),
                dir.display()
            ));
            Some(stream)
        }
        Err(e) => {
            say(format!(
                "registry entry for pid {} names {}, which does not answer: {e}",
                entry.pid,
                entry.socket.display()
            ));
            None
        }
    }
}

/// The last lines of the daemon's log, for a start that failed.
fn log_tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(5)..].join("\n");
    format!("last lines of {}:\n{tail}", log.display())
}

/// The daemon's log: the socket's path plus `.log` (never the socket path itself, whatever its
/// extension: `with_extension` would turn `x.log` into `x.log`).
fn log_path(socket: &Path) -> PathBuf {
    let mut path = socket.as_os_str().to_owned();
    path.push(".log");
    PathBuf::from(path)
}

/// How long a daemon a client started stays up with no client connected (its `--idle-exit`).
pub const STARTED_IDLE_EXIT_SECS: u64 = 1800;

/// The `coderd` a client starts: the one beside the client's own binary, else `coderd` on `$PATH`.
pub fn daemon_exe() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.join("coderd")))
        .filter(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from("coderd"))
}

/// Starts `coderd` detached (its own process group, output to a log file beside the socket).
fn start_daemon(roots: &[PathBuf], socket: &Path) -> Result<std::process::Child, ClientError> {
    use std::os::unix::process::CommandExt;
    let exe = daemon_exe();
    if let Some(dir) = socket.parent() {
        let _ = crate::paths::create_private_dir(dir);
    }
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log_path(socket))
        .map_err(|e| {
            ClientError(format!(
                "cannot open the daemon log {}: {e}",
                log_path(socket).display()
            ))
        })?;
    let mut cmd = std::process::Command::new(&exe);
    for root in roots {
        cmd.arg("--root").arg(root);
    }
    // A daemon a client starts stops when no client has used it for a while (the daemon's
    // `idle_exit_secs`); `$CODERD_IDLE_EXIT_SECS` in the client's environment sets it, 0 never.
    let idle_exit = std::env::var("CODERD_IDLE_EXIT_SECS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(STARTED_IDLE_EXIT_SECS);
    cmd.arg("--idle-exit")
        .arg(idle_exit.to_string())
        .arg("--socket")
        .arg(socket)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(log)
        .process_group(0);
    cmd.spawn()
        .map_err(|e| ClientError(format!("cannot start {}: {e}", exe.display())))
}

/// Sends one request and reads its one-line answer. Requests on a connection are sent one at a
/// time, so the answer read is this request's.
pub fn send(stream: &UnixStream, method: &str, params: Value) -> Result<Vec<u8>, ClientError> {
    send_with(stream, method, params, |reader, reply| {
        reader.read_until(b'\n', reply).map(drop)
    })
}

/// `send` with the reading of each line left to `read_line` (a search's text printed as it
/// arrives, for one).
pub fn send_with(
    stream: &UnixStream,
    method: &str,
    mut params: Value,
    mut read_line: impl FnMut(&mut BufReader<&UnixStream>, &mut Vec<u8>) -> std::io::Result<()>,
) -> Result<Vec<u8>, ClientError> {
    let mut request = json!({"jsonrpc": "2.0", "id": 1, "method": method});
    apply_client_env(method, &mut params);
    request["params"] = params;
    let mut writer = stream;
    let mut line = request.to_string();
    line.push('\n');
    writer
        .write_all(line.as_bytes())
        .map_err(|e| ClientError(format!("sending the request: {e}")))?;
    let mut reply = Vec::new();
    let mut reader = BufReader::with_capacity(256 * 1024, stream);
    loop {
        reply.clear();
        read_line(&mut reader, &mut reply)
            .map_err(|e| ClientError(format!("reading the response: {e}")))?;
        // Notifications (`exec/progress` with `stream: true`) come before the response.
        if !show_progress(&reply) {
            break;
        }
    }
    if reply.is_empty() {
        return Err(ClientError(
            "the daemon closed the connection without answering".into(),
        ));
    }
    Ok(reply)
}

/// What the client's environment asks of every request: `CODER_SESSION` names the `todo`
/// session (unless the params name one). (Automatic snapshots are the daemon's config alone: a
/// request cannot switch them off.)
fn apply_client_env(method: &str, params: &mut Value) {
    if method == "todo" && params.is_object() && params.get("session").is_none() {
        if let Some(session) = std::env::var("CODER_SESSION")
            .ok()
            .filter(|s| !s.is_empty())
        {
            params["session"] = json!(session);
        }
    }
}

/// If `line` is an `exec/progress` notification, writes its text to stdout or stderr as it
/// arrives and returns true; any other line (the response) returns false.
pub fn show_progress(line: &[u8]) -> bool {
    if !line.starts_with(br#"{"jsonrpc":"2.0","method":"#) {
        return false;
    }
    let Ok(note) = serde_json::from_slice::<Value>(line) else {
        return false;
    };
    let text = note["params"]["text"].as_str().unwrap_or_default();
    let _ = match note["params"]["stream"].as_str() {
        Some("stderr") => std::io::stderr().write_all(text.as_bytes()),
        _ => std::io::stdout().write_all(text.as_bytes()),
    };
    let _ = std::io::stdout().flush();
    true
}
