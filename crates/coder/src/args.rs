//! `coder`'s own arguments: the global options (which daemon, how to print) and the method named.
//! The method's flags are not parsed here: they are typed by the method's schema once the daemon
//! is reached (`wire::argv`). No argument-parsing library: a handful of options do not need one,
//! and the client must start in a few milliseconds.

use serde_json::{json, Value};
use std::path::PathBuf;
use wire::client::{self, ClientError, Options};

/// What the command line asks.
#[derive(Debug, Default)]
pub struct Cli {
    /// Which daemon to talk to (`--socket`, `--root`, `--no-start`, `--verbose`).
    pub target: Options,
    /// Print the raw JSON result (or error) instead of the human rendering.
    pub json: bool,
    /// The command.
    pub command: Command,
}

/// The command after the global options.
#[derive(Debug, Default)]
pub enum Command {
    /// `coder --help`, `coder help`, or nothing at all.
    #[default]
    Help,
    /// `coder --version`.
    Version,
    /// `coder --metadata`: ChatCLI's plugin probe (`chatcli.rs`).
    Metadata,
    /// `coder --schema`: ChatCLI's plugin schema, from the daemon's.
    Schema,
    /// `coder chatcli install ...`.
    Chatcli(Vec<String>),
    /// `coder call METHOD [PARAMS]`: any request, params as JSON.
    Call {
        /// The method.
        method: String,
        /// Its params as a JSON object (default `{}`).
        params: Option<String>,
    },
    /// `coder METHOD --flag value ...`: the method's name, then its flags.
    Method(Vec<String>),
}

const USAGE: &str = "coder: the client of the coderd editing daemon

usage: coder [OPTIONS] METHOD [--flag VALUE | VALUE] ...
         a method's flags are its params (dashed or snake_case), typed by its schema;
         a leading value fills its main param (`coder read FILE`, `coder search PATTERN`)
       coder METHOD --help                    the method's flags
       coder call METHOD ['{\"param\": ...}']   any request, params as JSON

";

const OPTIONS: &str = "\
options (before or after the method):
  --socket PATH   the daemon's socket (else $CODERD_SOCKET, else a live daemon from the registry
                  whose roots hold the current folder, else the workspace's default socket)
  --root DIR      workspace root(s) for a daemon this client starts (repeatable; default: the
                  git top level, else the current folder)
  --json          print the raw JSON result (or error) instead of the human rendering
  --no-start      fail instead of starting a daemon when none answers
  -v, --verbose   say on stderr which daemon (socket) was used and why
  -h, --help      this help; `coder METHOD --help` lists a method's flags
  -V, --version   the client's version
  --metadata      ChatCLI's plugin probe (name, description, usage, version); --schema its schema
                  (`coder chatcli install` makes coder ChatCLI's @coder: docs/chatcli.md)
";

/// Reads the command line (without the program name).
pub fn parse(args: Vec<String>) -> Result<Cli, ClientError> {
    let mut cli = Cli::default();
    let mut words = Vec::with_capacity(args.len());
    let mut rest = args.into_iter();
    let mut named_help = false;
    while let Some(arg) = rest.next() {
        // Everything from the method's name on is the method's, except the client's own options.
        let before_method = words.is_empty();
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => {
                (name.to_string(), Some(value.to_string()))
            }
            _ => (arg.clone(), None),
        };
        let mut value = |flag: &str| match inline.clone() {
            Some(v) => Ok(v),
            None => rest
                .next()
                .ok_or_else(|| ClientError(format!("{flag} needs a value"))),
        };
        match name.as_str() {
            "--json" => cli.json = true,
            "--verbose" | "-v" => cli.target.verbose = true,
            "--no-start" => cli.target.no_start = true,
            "--socket" => cli.target.socket = Some(PathBuf::from(value("--socket")?)),
            "--root" => cli.target.roots.push(PathBuf::from(value("--root")?)),
            "--help" | "-h" if before_method => named_help = true,
            "--version" | "-V" if before_method => {
                cli.command = Command::Version;
                return Ok(cli);
            }
            "--metadata" if before_method => {
                cli.command = Command::Metadata;
                return Ok(cli);
            }
            "--schema" if before_method => {
                cli.command = Command::Schema;
                return Ok(cli);
            }
            flag if before_method && flag.starts_with('-') => {
                return Err(ClientError(format!(
                    "unknown option `{flag}` (the method's flags follow its name)\n\n{OPTIONS}"
                )))
            }
            _ => words.push(arg),
        }
    }
    cli.command = match words.first().map(String::as_str) {
        None => Command::Help,
        _ if named_help && words.len() == 1 => {
            words.push("--help".into());
            Command::Method(words)
        }
        Some("help") if words.len() == 1 => Command::Help,
        Some("help") => Command::Method(vec![words[1].clone(), "--help".into()]),
        Some("chatcli") => Command::Chatcli(words[1..].to_vec()),
        Some("call") => {
            let mut words = words.into_iter().skip(1);
            let method = words.next().ok_or_else(|| {
                ClientError("usage: coder call METHOD ['{\"param\": ...}']".into())
            })?;
            let params = words.next();
            if let Some(extra) = words.next() {
                return Err(ClientError(format!(
                    "unexpected argument `{extra}`: coder call METHOD ['{{\"param\": ...}}']"
                )));
            }
            Command::Call { method, params }
        }
        Some(_) => Command::Method(words),
    };
    if named_help && !matches!(cli.command, Command::Method(_)) {
        cli.command = Command::Help;
    }
    Ok(cli)
}

/// `coder --help`: how to call, the options, and every method with its summary (from `schema`).
/// The help never starts a daemon: the daemon that answers for this workspace lists its methods,
/// else the `coderd` a call would start does (`coderd schema`, no daemon needed).
pub fn help(cli: &Cli) -> i32 {
    let mut text = String::from(USAGE);
    text.push_str(OPTIONS);
    let target = Options {
        no_start: true,
        verbose: false,
        ..cli.target.clone()
    };
    let from_daemon = client::connect(&target).ok().and_then(|stream| {
        let reply = client::send(&stream, "schema", json!({})).ok()?;
        let reply: Value = serde_json::from_slice(&reply).ok()?;
        let socket = stream
            .peer_addr()
            .ok()
            .and_then(|a| a.as_pathname().map(|p| p.display().to_string()))
            .unwrap_or_default();
        let methods = reply["result"]["methods"].as_object()?.clone();
        Some((format!("from the daemon on {socket}"), methods))
    });
    match from_daemon.or_else(offline_methods) {
        Some((source, methods)) => {
            text.push_str(&format!("\nmethods ({source}):\n"));
            let width = methods.keys().map(String::len).max().unwrap_or(0);
            for (name, described) in &methods {
                let summary = described["summary"].as_str().unwrap_or_default();
                let summary = summary.split(". ").next().unwrap_or(summary);
                text.push_str(&format!("  {name:<width$}  {summary}\n"));
            }
        }
        None => text.push_str(&format!(
            "\nmethods: no coderd answers for this workspace and {} cannot list them.\n\
Any call starts one (`coder info`), as does `coderd --root DIR`; then `coder --help` lists every\n\
method with its summary.\n",
            client::daemon_exe().display()
        )),
    }
    print!("{text}");
    0
}

/// The methods as the `coderd` a call would start describes them (`coderd schema`), with no
/// daemon running.
fn offline_methods() -> Option<(String, serde_json::Map<String, Value>)> {
    let exe = client::daemon_exe();
    let out = std::process::Command::new(&exe)
        .arg("schema")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let described: Value = serde_json::from_slice(&out.stdout).ok()?;
    let methods = described["methods"].as_object()?.clone();
    let source = format!(
        "from {}; no daemon is running for this workspace",
        exe.display()
    );
    Some((source, methods))
}
