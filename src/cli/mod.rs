//! `coder`, the client: finds (or starts) the workspace's daemon, sends one request, and prints the
//! answer the way a person wants to read it (or raw JSON with `--json`).

pub mod connect;
mod flags;
mod render;
mod search_text;

pub use connect::{connect, send};
pub use render::{render, write_pretty};

use clap::{Args, Parser, Subcommand};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

#[derive(Parser, Debug)]
#[command(
    name = "coder",
    version,
    about = "Client for the coderd editing daemon",
    after_help = "Every daemon method is a subcommand: `coder METHOD --param value ...` (flags are the \
method's params, dashed or snake_case; `coder METHOD --help` lists them). `coder schema` shows them all."
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
    /// Any other method, with its params as flags: `coder patch --file F --search S --replace R`.
    #[command(external_subcommand)]
    Method(Vec<String>),
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
    /// text (what coder prints without --json) or json (files and line objects).
    #[arg(long)]
    pub format: Option<String>,
}

/// A failure of the client itself (no daemon, bad arguments), as opposed to a C2xx from the daemon.
pub struct ClientError(pub String);

/// Runs the client; returns the process exit code: 0 done, 1 the daemon answered with an error,
/// 2 bad arguments, 3 no daemon or a broken answer.
pub fn run(mut cli: Cli) -> i32 {
    if let Command::Method(args) = &mut cli.command {
        let mut args = std::mem::take(args);
        let lifted = lift_client_flags(&mut args, &mut cli);
        cli.command = Command::Method(args);
        if let Err(ClientError(msg)) = lifted {
            eprintln!("coder: {msg}");
            return 2;
        }
    }
    // Arguments of the built-in subcommands are checked before any daemon is found or started.
    let builtin = match &cli.command {
        Command::Method(_) => None,
        command => match request_for(command) {
            Ok(r) => Some(r),
            Err(ClientError(msg)) => {
                eprintln!("coder: {msg}");
                return 2;
            }
        },
    };
    let stream = match connect(&cli) {
        Ok(s) => s,
        Err(ClientError(msg)) => {
            eprintln!("coder: {msg}");
            return 3;
        }
    };
    let (method, params) = match (builtin, &cli.command) {
        (Some(request), _) => request,
        (None, Command::Method(args)) => match method_request(&stream, args) {
            Ok(Some(request)) => request,
            Ok(None) => return 0,
            Err((code, msg)) => {
                eprintln!("coder: {msg}");
                return code;
            }
        },
        (None, _) => unreachable!("only Command::Method is parsed after connecting"),
    };
    let mut params = params;
    ask_for_text(&cli, &method, &mut params);
    let mutates = crate::methods::find(&method).is_some_and(|m| m.mutates);
    crate::lsp::render::apply_env_switch(mutates, &mut params);
    let mut out = BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    let sent = if method == "search" && !cli.json && params["format"] == "text" {
        connect::send_printing_text(&stream, params, &mut out)
    } else {
        send(&stream, &method, params)
    };
    let reply = match sent {
        Ok(r) => r,
        Err(ClientError(msg)) => {
            let _ = out.flush();
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
    if let Some(result) = success_result(&reply) {
        // A closed pipe (`coder ... | head`) is not an error worth a message.
        let _ = show(&mut out, &cli, &method, result);
        let _ = out.flush();
        if method == "shutdown" {
            wait_until_stopped(&stream);
        }
        return 0;
    }
    let response: Reply = match serde_json::from_slice(&reply) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("coder: the daemon's answer is not JSON: {e}");
            return 3;
        }
    };
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
        if !cli.json {
            eprint!("{}", error_details(&error["data"]));
        }
        return 1;
    }
    let Some(result) = response.result else {
        eprintln!("coder: the daemon's answer has neither result nor error");
        return 3;
    };
    let _ = show(&mut out, &cli, &method, result.get());
    let _ = out.flush();
    if method == "shutdown" {
        wait_until_stopped(&stream);
    }
    0
}

/// A search shown as text is asked for as text: the daemon renders it on its walker threads, and
/// the answer is a fifth smaller than its JSON form (unless `--format` says otherwise).
fn ask_for_text(cli: &Cli, method: &str, params: &mut Value) {
    if method == "search" && !cli.json {
        if let Some(params) = params.as_object_mut() {
            params.entry("format").or_insert_with(|| json!("text"));
        }
    }
}

/// `coder shutdown` returns once the daemon is gone (it removes its socket last, after stopping its
/// language servers), so that the next `coder` call starts a fresh daemon instead of reaching the
/// one still stopping.
fn wait_until_stopped(stream: &std::os::unix::net::UnixStream) {
    let Some(socket) = stream
        .peer_addr()
        .ok()
        .and_then(|a| a.as_pathname().map(Path::to_path_buf))
    else {
        return;
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(8);
    while socket.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The result of a success line as the daemon writes it (`{"jsonrpc":"2.0","id":1,"result":…}`),
/// sliced out without parsing, so a big answer is parsed once, by its renderer. Anything else
/// (an error, another layout) is `None` and goes through the envelope parse.
fn success_result(reply: &[u8]) -> Option<&str> {
    const HEAD: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":";
    let body = reply.strip_prefix(HEAD)?;
    let body = body
        .strip_suffix(b"\n")
        .unwrap_or(body)
        .strip_suffix(b"}")?;
    std::str::from_utf8(body).ok()
}

/// Prints a result: pretty JSON with `--json` (and for `call` and `info`), else its rendering.
fn show(out: &mut impl Write, cli: &Cli, method: &str, result: &str) -> std::io::Result<()> {
    if cli.json || matches!(cli.command, Command::Call { .. } | Command::Info) {
        write_pretty(out, result.as_bytes())
    } else {
        render(out, method, result)
    }
}

/// What an error carries beyond its message (the closest candidate of a missed search, the
/// matches of an ambiguous one, the current version of a stale file), for a person to read.
fn error_details(data: &Value) -> String {
    let mut text = String::new();
    let Some(fields) = data.as_object() else {
        return text;
    };
    for (key, value) in fields {
        match (key.as_str(), value) {
            ("code" | "recovery" | "message", _) => {}
            ("closest", Value::Object(c)) => {
                text.push_str(&format!(
                    "closest: lines {}-{} (similarity {:.2})\n{}",
                    c.get("start_line").unwrap_or(&Value::Null),
                    c.get("end_line").unwrap_or(&Value::Null),
                    c.get("similarity").and_then(Value::as_f64).unwrap_or(0.0),
                    c.get("diff").and_then(Value::as_str).unwrap_or_default()
                ));
            }
            (key, Value::String(s)) => text.push_str(&format!("{key}: {s}\n")),
            (key, value) => text.push_str(&format!("{key}: {value}\n")),
        }
    }
    text
}

/// The client's own flags (`--json`, `--verbose`, `--socket`, `--root`, `--no-start`) written after
/// a method's name are the client's, not the method's params (clap hands a method's arguments over
/// untouched).
fn lift_client_flags(args: &mut Vec<String>, cli: &mut Cli) -> Result<(), ClientError> {
    let mut kept = Vec::with_capacity(args.len());
    let mut rest = std::mem::take(args).into_iter();
    while let Some(arg) = rest.next() {
        let mut value = |name: &str| {
            rest.next()
                .ok_or_else(|| ClientError(format!("{name} needs a value")))
        };
        match arg.as_str() {
            "--json" => cli.json = true,
            "--verbose" | "-v" => cli.verbose = true,
            "--no-start" => cli.no_start = true,
            "--socket" => cli.socket = Some(value("--socket")?.into()),
            "--root" => cli.roots.push(value("--root")?.into()),
            _ => kept.push(arg),
        }
    }
    *args = kept;
    Ok(())
}

/// `coder METHOD --flag value ...`: the flags become params, typed by the method's schema, which
/// is asked of the daemon on the same connection. `Ok(None)`: help was printed.
fn method_request(
    stream: &std::os::unix::net::UnixStream,
    args: &[String],
) -> Result<Option<(String, Value)>, (i32, String)> {
    let (method, flags) = args
        .split_first()
        .expect("clap gives the subcommand's name");
    let reply = send(stream, "schema", json!({"method": method})).map_err(|e| (3, e.0))?;
    let reply: Value = serde_json::from_slice(&reply)
        .map_err(|e| (3, format!("the daemon's answer is not JSON: {e}")))?;
    if let Some(error) = reply.get("error") {
        let message = error["message"].as_str().unwrap_or("(no message)");
        let recovery = error["data"]["recovery"].as_str().unwrap_or_default();
        return Err((2, format!("error {message}\n{recovery}")));
    }
    let described = &reply["result"]["schema"];
    let canonical = reply["result"]["method"]
        .as_str()
        .unwrap_or(method)
        .to_string();
    if flags.iter().any(|f| f == "--help" || f == "-h") {
        print!("{}", flags::help(&canonical, described));
        return Ok(None);
    }
    let mut params = flags::params_from_flags(flags, described).map_err(|e| (2, e.0))?;
    absolutize_paths(&mut params);
    Ok(Some((canonical, params)))
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
        Command::Method(_) => unreachable!("methods are parsed with their schema"),
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

/// Paths typed in a shell are relative to the shell's folder, not to the workspace root: the path
/// params (`file`, `dir`, `path`, `paths`, `from`, `to`), also inside lists of objects
/// (`edits[].file`, `files[].path`, `moves[].from`), are made absolute from the current folder.
fn absolutize_paths(params: &mut Value) {
    let Ok(cwd) = std::env::current_dir() else {
        return;
    };
    absolutize_in(params, &cwd, true);
}

fn absolutize_in(params: &mut Value, cwd: &Path, top_level: bool) {
    let Value::Object(map) = params else {
        return;
    };
    for (key, value) in map.iter_mut() {
        match (key.as_str(), value) {
            ("file" | "dir" | "path" | "from" | "to", Value::String(s))
                if !s.is_empty() && !Path::new(s.as_str()).is_absolute() =>
            {
                *s = cwd.join(&*s).to_string_lossy().into_owned();
            }
            ("paths", Value::Array(items)) => {
                for item in items.iter_mut() {
                    if let Value::String(s) = item {
                        if !Path::new(s.as_str()).is_absolute() {
                            *s = cwd.join(&*s).to_string_lossy().into_owned();
                        }
                    }
                }
            }
            (_, Value::Array(items)) if top_level => {
                for item in items.iter_mut() {
                    absolutize_in(item, cwd, false);
                }
            }
            _ => {}
        }
    }
}
