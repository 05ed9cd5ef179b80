//! `coder`, the client: finds (or starts) the workspace's daemon, sends one request, and prints the
//! answer the way a person wants to read it (or raw JSON with `--json`).

use crate::protocol::default_socket_path;
use crate::registry;
use clap::{Args, Parser, Subcommand};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long `coder` waits for a daemon it started to answer.
const START_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Parser, Debug)]
#[command(
    name = "coder",
    version,
    about = "Client for the coderd editing daemon"
)]
pub struct Cli {
    /// Socket of the daemon (else $CODERD_SOCKET, else a live daemon from the registry whose roots
    /// hold the current folder, else the workspace's default socket).
    #[arg(long, global = true)]
    pub socket: Option<PathBuf>,
    /// Print the raw JSON result (or error) instead of the human rendering.
    #[arg(long, global = true)]
    pub json: bool,
    /// Workspace root(s) for a daemon this client starts (default: the git top level, else the cwd).
    #[arg(long = "root", global = true)]
    pub roots: Vec<PathBuf>,
    /// Fail instead of starting a daemon when none answers.
    #[arg(long, global = true)]
    pub no_start: bool,
    /// Say on stderr which daemon (socket) was used and why: --socket, $CODERD_SOCKET, the
    /// registry of live daemons, the workspace's default socket, or a daemon started now.
    #[arg(long, short = 'v', global = true)]
    pub verbose: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Read a file: a line window, head/tail, base64, a stat probe, or a batch (--paths).
    Read(ReadArgs),
    /// A nested view of a folder.
    Tree(TreeArgs),
    /// One folder, paginated.
    ListFolder(ListArgs),
    /// Search file contents (or paths) for a literal or a regex.
    Search(SearchArgs),
    /// What the daemon serves: roots, budgets, globs, methods.
    Info,
    /// Stop the daemon.
    Shutdown,
    /// Send any request: `coder call METHOD '{"param": ...}'`.
    Call {
        method: String,
        /// Params as a JSON object (default `{}`).
        params: Option<String>,
    },
}

#[derive(Args, Debug, Serialize)]
pub struct ReadArgs {
    /// The file (also accepted positionally).
    #[arg(long)]
    pub file: Option<String>,
    /// The file, positionally (same as --file).
    #[arg(conflicts_with = "file", value_name = "FILE")]
    #[serde(skip)]
    pub path: Option<String>,
    /// First line to read (1-based).
    #[arg(long)]
    pub start: Option<u64>,
    /// Last line to read (inclusive).
    #[arg(long)]
    pub end: Option<u64>,
    /// Read the first N lines.
    #[arg(long)]
    pub head: Option<u64>,
    /// Read the last N lines.
    #[arg(long)]
    pub tail: Option<u64>,
    /// Cap on the content returned (default 200000).
    #[arg(long)]
    pub max_bytes: Option<u64>,
    /// text or base64.
    #[arg(long)]
    pub encoding: Option<String>,
    /// Prefix each line with its line number.
    #[arg(long)]
    pub numbered: bool,
    /// Size, line count, mtime and sha256 instead of content.
    #[arg(long)]
    pub stat: bool,
    /// Byte offset, with --encoding base64.
    #[arg(long)]
    pub offset: Option<u64>,
    /// Byte count, with --encoding base64.
    #[arg(long)]
    pub length: Option<u64>,
    /// Batch mode: read several files under one budget.
    #[arg(long, num_args = 1..)]
    pub paths: Vec<String>,
}

#[derive(Args, Debug, Serialize)]
pub struct TreeArgs {
    /// Folder to show (default: the primary root).
    #[arg(long)]
    pub dir: Option<String>,
    /// Only files matching this glob (repeatable), and the folders leading to them.
    #[arg(long)]
    pub glob: Vec<String>,
    /// Cap on the entries in the whole tree (default 2000).
    #[arg(long)]
    pub max_entries: Option<usize>,
    /// Levels to descend, 1 to 20 (default from the config, 4).
    #[arg(long)]
    pub depth: Option<usize>,
    /// Leave out what matches this glob (repeatable).
    #[arg(long)]
    pub exclude: Vec<String>,
    /// Stub out noise folders like .git and node_modules (default true).
    #[arg(long)]
    pub use_default_excludes: Option<bool>,
    /// Honor .gitignore and .ignore files (default true).
    #[arg(long)]
    pub gitignore: Option<bool>,
    /// Show dotfiles (default true).
    #[arg(long)]
    pub hidden: Option<bool>,
}

#[derive(Args, Debug, Serialize)]
pub struct ListArgs {
    /// Folder to list (default: the primary root).
    #[arg(long)]
    pub dir: Option<String>,
    /// Entries per page (default 100, at most list_max_page_size).
    #[arg(long)]
    pub page_size: Option<usize>,
    /// Continue after this name (the previous page's next_cursor).
    #[arg(long)]
    pub cursor: Option<String>,
}

#[derive(Args, Debug, Serialize)]
pub struct SearchArgs {
    /// The text (or, with --regex, the regex) to look for.
    #[arg(long)]
    pub pattern: Option<String>,
    /// The pattern, positionally (same as --pattern).
    #[arg(conflicts_with = "pattern", value_name = "PATTERN")]
    #[serde(skip)]
    pub positional: Option<String>,
    /// Treat the pattern as a regex (default: literal text).
    #[arg(long)]
    pub regex: bool,
    /// Folder (or single file) to search (default: the primary root).
    #[arg(long)]
    pub dir: Option<String>,
    /// Only files matching this glob (repeatable).
    #[arg(long)]
    pub glob: Vec<String>,
    /// Skip files matching this glob (repeatable).
    #[arg(long)]
    pub exclude: Vec<String>,
    /// sensitive, insensitive or smart.
    #[arg(long)]
    pub case: Option<String>,
    /// Match whole words only.
    #[arg(long)]
    pub word: bool,
    /// Stop after this many matches (default 100).
    #[arg(long)]
    pub max_results: Option<usize>,
    /// Lines of context around each match (default 2, at most 10).
    #[arg(long)]
    pub context: Option<usize>,
    /// Lines of context before each match.
    #[arg(long)]
    pub before: Option<usize>,
    /// Lines of context after each match.
    #[arg(long)]
    pub after: Option<usize>,
    /// List the files that match, not the lines.
    #[arg(long)]
    pub paths_only: bool,
    /// content (default) or paths.
    #[arg(long)]
    pub target: Option<String>,
    /// Clip longer lines around the match.
    #[arg(long)]
    pub max_line_bytes: Option<usize>,
    /// Honor .gitignore and .ignore files (default true).
    #[arg(long)]
    pub gitignore: Option<bool>,
    /// Search dotfiles (default true).
    #[arg(long)]
    pub hidden: Option<bool>,
}

/// A failure of the client itself (no daemon, bad arguments), as opposed to a C2xx from the daemon.
pub struct ClientError(pub String);

/// Runs the client; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    let (method, mut params) = match request_for(&cli.command) {
        Ok(r) => r,
        Err(ClientError(msg)) => {
            eprintln!("coder: {msg}");
            return 2;
        }
    };
    let mutates = crate::methods::find(&method).is_some_and(|m| m.mutates);
    crate::lsp::render::apply_env_switch(mutates, &mut params);
    let reply = match connect(&cli).and_then(|stream| send(stream, &method, params)) {
        Ok(r) => r,
        Err(ClientError(msg)) => {
            eprintln!("coder: {msg}");
            return 3;
        }
    };
    // The envelope is parsed down to the raw bytes of its result: the result itself is rendered
    // from borrowed views of those bytes, never built into a tree of values first.
    #[derive(Deserialize)]
    struct Reply<'a> {
        #[serde(borrow)]
        result: Option<&'a RawValue>,
        error: Option<Value>,
    }
    let response: Reply = match serde_json::from_slice(&reply) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("coder: the daemon's answer is not JSON: {e}");
            return 3;
        }
    };
    let mut out = BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    if let Some(error) = response.error {
        if cli.json {
            let _ = writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&error).unwrap_or_default()
            );
            let _ = out.flush();
        }
        eprintln!(
            "coder: error {}",
            error["message"].as_str().unwrap_or("(no message)")
        );
        return 1;
    }
    let Some(result) = response.result else {
        eprintln!("coder: the daemon's answer has neither result nor error");
        return 3;
    };
    // A closed pipe (`coder ... | head`) is not an error worth a message.
    let _ = if cli.json || matches!(cli.command, Command::Call { .. } | Command::Info) {
        write_pretty(&mut out, result.get().as_bytes())
    } else {
        render(&mut out, &method, result)
    };
    let _ = out.flush();
    0
}

/// Pretty-prints JSON text as it streams by (two-space indent, `"key": value`, the layout of
/// `serde_json::to_string_pretty`), without parsing it into values: keys stay in the daemon's order.
pub fn write_pretty(out: &mut impl Write, json: &[u8]) -> std::io::Result<()> {
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    let mut start = 0;
    let newline = |out: &mut dyn Write, depth: usize| -> std::io::Result<()> {
        out.write_all(b"\n")?;
        for _ in 0..depth {
            out.write_all(b"  ")?;
        }
        Ok(())
    };
    let mut i = 0;
    while i < json.len() {
        let b = json[i];
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                out.write_all(&json[start..=i])?;
                let close = if b == b'{' { b'}' } else { b']' };
                if json.get(i + 1) == Some(&close) {
                    out.write_all(&[close])?;
                    i += 1;
                } else {
                    depth += 1;
                    newline(out, depth)?;
                }
                start = i + 1;
            }
            b'}' | b']' => {
                out.write_all(&json[start..i])?;
                depth = depth.saturating_sub(1);
                newline(out, depth)?;
                out.write_all(&[b])?;
                start = i + 1;
            }
            b',' => {
                out.write_all(&json[start..=i])?;
                newline(out, depth)?;
                start = i + 1;
            }
            b':' => {
                out.write_all(&json[start..i])?;
                out.write_all(b": ")?;
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.write_all(&json[start..])?;
    out.write_all(b"\n")
}

fn request_for(command: &Command) -> Result<(String, Value), ClientError> {
    let (method, mut params) = match command {
        Command::Read(a) => {
            let mut p = params_of(a);
            if let Some(path) = &a.path {
                p["file"] = json!(path);
            }
            ("read", p)
        }
        Command::Tree(a) => ("tree", params_of(a)),
        Command::ListFolder(a) => ("list-folder", params_of(a)),
        Command::Search(a) => {
            let mut p = params_of(a);
            if let Some(pattern) = &a.positional {
                p["pattern"] = json!(pattern);
            }
            ("search", p)
        }
        Command::Info => ("info", json!({})),
        Command::Shutdown => ("shutdown", json!({})),
        Command::Call { method, params } => {
            let p = match params {
                Some(text) => serde_json::from_str(text)
                    .map_err(|e| ClientError(format!("params are not valid JSON: {e}")))?,
                None => json!({}),
            };
            return Ok((method.clone(), p));
        }
    };
    absolutize_paths(&mut params);
    Ok((method.to_string(), params))
}

/// A subcommand's flags as params. Flags left unset (null, or an empty list) are not sent, so the
/// daemon's defaults apply.
fn params_of<T: Serialize>(args: &T) -> Value {
    let mut value = serde_json::to_value(args).unwrap_or_default();
    if let Value::Object(map) = &mut value {
        map.retain(|_, v| !v.is_null() && v.as_array().is_none_or(|a| !a.is_empty()));
    }
    value
}

/// Paths typed in a shell are relative to the shell's folder, not to the workspace root.
fn absolutize_paths(params: &mut Value) {
    let Ok(cwd) = std::env::current_dir() else {
        return;
    };
    let fix = |v: &mut Value| {
        if let Some(s) = v.as_str() {
            if !s.is_empty() && !Path::new(s).is_absolute() {
                *v = json!(cwd.join(s).to_string_lossy());
            }
        }
    };
    for key in ["file", "dir"] {
        if let Some(v) = params.get_mut(key) {
            fix(v);
        }
    }
    if let Some(Value::Array(items)) = params.get_mut("paths") {
        items.iter_mut().for_each(fix);
    }
}

/// The workspace a started daemon serves: `--root`, else the enclosing git top level, else the cwd.
fn workspace_roots(cli: &Cli) -> Vec<PathBuf> {
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
fn named_socket(cli: &Cli) -> Option<(PathBuf, &'static str)> {
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
fn connect(cli: &Cli) -> Result<UnixStream, ClientError> {
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
fn connect_registered(cli: &Cli, roots: &[PathBuf], say: &impl Fn(String)) -> Option<UnixStream> {
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

fn log_path(socket: &Path) -> PathBuf {
    socket.with_extension("log")
}

/// Starts `coderd` detached (its own process group, output to a log file beside the socket).
fn start_daemon(roots: &[PathBuf], socket: &Path) -> Result<std::process::Child, ClientError> {
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.join("coderd")))
        .filter(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from("coderd"));
    if let Some(dir) = socket.parent() {
        let _ = crate::protocol::create_private_dir(dir);
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
    cmd.arg("--socket")
        .arg(socket)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(log)
        .process_group(0);
    cmd.spawn()
        .map_err(|e| ClientError(format!("cannot start {}: {e}", exe.display())))
}

fn send(stream: UnixStream, method: &str, params: Value) -> Result<Vec<u8>, ClientError> {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut writer = &stream;
    let mut line = request.to_string();
    line.push('\n');
    writer
        .write_all(line.as_bytes())
        .map_err(|e| ClientError(format!("sending the request: {e}")))?;
    let mut reply = Vec::new();
    BufReader::with_capacity(256 * 1024, &stream)
        .read_until(b'\n', &mut reply)
        .map_err(|e| ClientError(format!("reading the response: {e}")))?;
    if reply.is_empty() {
        return Err(ClientError(
            "the daemon closed the connection without answering".into(),
        ));
    }
    Ok(reply)
}

/// Human rendering of a result. Search, plain reads and trees are rendered from borrowed views of
/// the reply's bytes; the small answers (stat, batch, list-folder) go through `Value`.
pub fn render(out: &mut impl Write, method: &str, result: &RawValue) -> std::io::Result<()> {
    let text = result.get();
    let value = || serde_json::from_str::<Value>(text).unwrap_or_default();
    match method {
        "search" => match serde_json::from_str::<SearchView>(text) {
            Ok(view) => render_search(out, &view),
            Err(_) => write_pretty(out, text.as_bytes()),
        },
        "tree" => match serde_json::from_str::<TreeView>(text) {
            Ok(view) => render_tree(out, &view.tree, "", true, true),
            Err(_) => write_pretty(out, text.as_bytes()),
        },
        "read" => match serde_json::from_str::<TextView>(text) {
            Ok(view) => render_text(out, &view),
            Err(_) => {
                let result = value();
                if result.get("results").is_some() {
                    render_batch(out, &result)
                } else {
                    render_read(out, &result)
                }
            }
        },
        "list-folder" => render_list(out, &value()),
        m if crate::methods::find(m).is_some_and(|m| m.mutates) => {
            write_pretty(out, text.as_bytes())?;
            crate::lsp::render::write_block(out, text)
        }
        _ => write_pretty(out, text.as_bytes()),
    }
}

/// A text read, borrowed from the reply (`content` is copied only when it holds escapes). Stat,
/// base64 and batch answers lack `start`, so they do not decode as this.
#[derive(Deserialize)]
struct TextView<'a> {
    #[serde(borrow)]
    content: Cow<'a, str>,
    truncated: bool,
    truncated_reason: Option<&'a str>,
    start: u64,
    end: u64,
    total_lines: Option<u64>,
    next_start: Option<u64>,
}

fn render_text(out: &mut impl Write, r: &TextView) -> std::io::Result<()> {
    out.write_all(r.content.as_bytes())?;
    if r.truncated {
        out.flush()?;
        let or_unknown = |n: Option<u64>| n.map_or("?".to_string(), |n| n.to_string());
        eprintln!(
            "\n[truncated ({}): lines {}-{} of {}; continue with --start {}]",
            r.truncated_reason.unwrap_or("?"),
            r.start,
            r.end,
            or_unknown(r.total_lines),
            or_unknown(r.next_start),
        );
    }
    Ok(())
}

fn render_read(out: &mut impl Write, r: &Value) -> std::io::Result<()> {
    if r.get("sha256").is_some() {
        for key in [
            "path",
            "size",
            "total_lines",
            "line_ending",
            "binary",
            "mtime_ms",
            "sha256",
        ] {
            writeln!(out, "{key}: {}", plain(&r[key]))?;
        }
        return Ok(());
    }
    write!(out, "{}", r["content"].as_str().unwrap_or(""))?;
    if r["truncated"] == true {
        let next = if r["encoding"] == "base64" {
            format!("--offset {}", plain(&r["next_offset"]))
        } else {
            format!("--start {}", plain(&r["next_start"]))
        };
        eprintln!(
            "\n[truncated ({}): lines {}-{} of {}; continue with {next}]",
            plain(&r["truncated_reason"]),
            plain(&r["start"]),
            plain(&r["end"]),
            plain(&r["total_lines"])
        );
    }
    Ok(())
}

fn render_batch(out: &mut impl Write, r: &Value) -> std::io::Result<()> {
    for item in r["results"].as_array().into_iter().flatten() {
        let name = item
            .get("path")
            .or(item.get("file"))
            .map(plain)
            .unwrap_or_default();
        writeln!(out, "==> {name} <==")?;
        if let Some(e) = item.get("error") {
            writeln!(out, "error {}: {}", plain(&e["code"]), plain(&e["message"]))?;
        } else if item["skipped"] == true {
            writeln!(out, "(skipped: {})", plain(&item["reason"]))?;
        } else {
            render_read(out, item)?;
        }
    }
    Ok(())
}

#[derive(Deserialize)]
struct TreeView<'a> {
    #[serde(borrow)]
    tree: NodeView<'a>,
}

#[derive(Deserialize)]
struct NodeView<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    kind: &'a str,
    #[serde(default)]
    non_accessible: bool,
    reason: Option<&'a str>,
    omitted: Option<u64>,
    #[serde(borrow, default)]
    children: Vec<NodeView<'a>>,
}

fn render_tree(
    out: &mut impl Write,
    node: &NodeView,
    prefix: &str,
    last: bool,
    top: bool,
) -> std::io::Result<()> {
    let (branch, child_prefix) = match (top, last) {
        (true, _) => ("", String::new()),
        (false, true) => ("└── ", format!("{prefix}    ")),
        (false, false) => ("├── ", format!("{prefix}│   ")),
    };
    write!(out, "{prefix}{branch}{}", node.name)?;
    match node.kind {
        "dir" => write!(out, "/")?,
        "symlink" => write!(out, "@")?,
        _ => {}
    }
    if node.non_accessible {
        write!(out, "  [non-accessible]")?;
    }
    if let Some(reason) = node.reason {
        write!(out, "  [{reason}]")?;
    }
    if let Some(n) = node.omitted {
        write!(out, "  (+{n} more)")?;
    }
    writeln!(out)?;
    for (i, child) in node.children.iter().enumerate() {
        render_tree(
            out,
            child,
            &child_prefix,
            i + 1 == node.children.len(),
            false,
        )?;
    }
    Ok(())
}

fn render_list(out: &mut impl Write, r: &Value) -> std::io::Result<()> {
    for e in r["entries"].as_array().into_iter().flatten() {
        let flag = if e["non_accessible"] == true {
            "  [non-accessible]"
        } else {
            ""
        };
        let size = e.get("size").map(plain).unwrap_or_default();
        writeln!(
            out,
            "{:<8}{:>12}  {}{flag}",
            plain(&e["kind"]),
            size,
            plain(&e["name"])
        )?;
    }
    if let Some(cursor) = r["next_cursor"].as_str() {
        eprintln!("[more: --cursor {cursor:?}]");
    }
    Ok(())
}

#[derive(Deserialize)]
struct SearchView<'a> {
    #[serde(borrow)]
    files: Vec<FileView<'a>>,
    truncated: bool,
    truncated_reason: Option<&'a str>,
}

#[derive(Deserialize)]
struct FileView<'a> {
    #[serde(borrow)]
    path: Cow<'a, str>,
    #[serde(borrow)]
    lines: Option<Vec<LineView<'a>>>,
}

#[derive(Deserialize)]
struct LineView<'a> {
    line: Option<u64>,
    #[serde(rename = "match")]
    is_match: bool,
    #[serde(borrow)]
    text: Cow<'a, str>,
}

fn render_search(out: &mut impl Write, r: &SearchView) -> std::io::Result<()> {
    for file in &r.files {
        let path = &file.path;
        let Some(lines) = &file.lines else {
            writeln!(out, "{path}")?;
            continue;
        };
        let mut previous: Option<u64> = None;
        for line in lines {
            let n = line.line.unwrap_or(0);
            if previous.is_some_and(|p| n > p + 1) {
                out.write_all(b"--\n")?;
            }
            let sep = if line.is_match { ':' } else { '-' };
            writeln!(out, "{path}{sep}{n}{sep}{}", line.text)?;
            previous = Some(n);
        }
    }
    if r.truncated {
        out.flush()?;
        eprintln!("[truncated: {}]", r.truncated_reason.unwrap_or("?"));
    }
    Ok(())
}

fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "?".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_printing_matches_serde_json_without_parsing() {
        let raw = r#"{"a":[1,{"b":"x,{y}:\"z\\"}],"c":{},"d":[],"e":null}"#;
        let mut out = Vec::new();
        write_pretty(&mut out, raw.as_bytes()).unwrap();
        let value: Value = serde_json::from_str(raw).unwrap();
        let expected = serde_json::to_string_pretty(&value).unwrap() + "\n";
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }
}
