//! `coder`, the client: finds (or starts) the workspace's daemon, sends one request, and prints the
//! answer the way a person wants to read it (or raw JSON with `--json`).
//!
//! The client knows no method: every `coder METHOD --flag value ...` is typed by the method's JSON
//! Schema, asked of the daemon on the same connection (`wire::argv`), and `coder --help` lists the
//! methods the daemon serves. It depends only on the wire crate, so it stays small and starts
//! fast; the renderings of answers (`render`) read their JSON, not daemon types.

mod args;
pub mod chatcli;
mod flags;
pub mod render;

pub use args::{Cli, Command};
pub use render::{render, write_pretty};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::io::{BufWriter, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use wire::answers::Answer;
use wire::client::{self, ClientError};

/// Runs the client as `program` (its name says which ChatCLI tool it is: `coder` is `@coder`,
/// `coder-read` is `@read`, see `chatcli`), on its arguments without the program name.
pub fn run_as(program: &str, mut args: Vec<String>) -> i32 {
    let Some(tool) = chatcli::atomic_of(program) else {
        return run(args);
    };
    match args.first().map(String::as_str) {
        Some("--metadata") | Some("--schema") => {}
        // The tool's words follow its name, as if it were a method: `@read {"file": "x"}`.
        _ => args.insert(0, format!("@{tool}")),
    }
    run_for(Some(tool), args)
}

/// Runs the client on its arguments (without the program name); returns the process exit code:
/// 0 done, 1 the call failed (the daemon answered with an error, or an `exec`/`test` whose
/// command failed, its output printed), 2 bad arguments, 3 no daemon or a broken answer.
pub fn run(args: Vec<String>) -> i32 {
    run_for(None, args)
}

fn run_for(atomic: Option<&str>, args: Vec<String>) -> i32 {
    let cli = match args::parse(args) {
        Ok(cli) => cli,
        Err(ClientError(msg)) => {
            eprintln!("coder: {msg}");
            return 2;
        }
    };
    match &cli.command {
        Command::Version => {
            println!("coder {}", env!("CARGO_PKG_VERSION"));
            return 0;
        }
        Command::Help => return args::help(&cli),
        Command::Metadata => {
            println!("{}", chatcli::metadata(atomic));
            return 0;
        }
        Command::Chatcli(words) => return chatcli::install(words),
        _ => {}
    }
    // `call`'s params are checked before any daemon is found or started.
    let called = match &cli.command {
        Command::Call { method, params } => match call_params(params.as_deref()) {
            Ok(p) => Some((method.clone(), p)),
            Err(ClientError(msg)) => {
                eprintln!("coder: {msg}");
                return 2;
            }
        },
        _ => None,
    };
    let stream = match client::connect(&cli.target) {
        Ok(s) => s,
        Err(ClientError(msg)) => {
            eprintln!("coder: {msg}");
            return 3;
        }
    };
    if matches!(cli.command, Command::Schema) {
        return plugin_schema(&stream, atomic);
    }
    let (method, mut params, mutates, answer) = match (called, &cli.command) {
        (Some((method, params)), _) => {
            let mutates =
                autodiag_off() && described(&stream, &method).is_ok_and(|d| d["mutates"] == true);
            // `call` prints JSON.
            (method, params, mutates, Answer::Json)
        }
        (None, Command::Method(args)) => match method_request(&stream, args) {
            Ok(Some(request)) => request,
            Ok(None) => return 0,
            Err((code, msg)) => {
                eprintln!("coder: {msg}");
                return code;
            }
        },
        (None, _) => unreachable!("help and version return before connecting"),
    };
    ask_for_text(&cli, &method, &mut params);
    if method != "tool" {
        render::diagnostics::apply_env_switch(mutates, &mut params);
    }
    let mut out = BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    let sent = if method == "search" && !cli.json && params["format"] == "text" {
        client::send_with(&stream, "search", params, |reader, reply| {
            *reply = render::search_text::stream_reply(reader, &mut out)?;
            Ok(())
        })
    } else {
        client::send(&stream, &method, params)
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
        let _ = show(&mut out, &cli, &method, mutates, answer, result);
        let _ = out.flush();
        if method == "shutdown" {
            wait_until_stopped(&stream);
        }
        return exit_code_of(&method, result);
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
    let _ = show(&mut out, &cli, &method, mutates, answer, result.get());
    let _ = out.flush();
    if method == "shutdown" {
        wait_until_stopped(&stream);
    }
    exit_code_of(&method, result.get())
}

/// 1 when the answer reports a failed command (`chatcli::command_failed`), else 0.
fn exit_code_of(method: &str, result: &str) -> i32 {
    if !matches!(method, "exec" | "test" | "tool") {
        return 0;
    }
    let result: Value = serde_json::from_str(result).unwrap_or_default();
    match chatcli::command_failed(method, &result) {
        true => {
            eprintln!("coder: the command failed (see its exit code above)");
            1
        }
        false => 0,
    }
}

/// `coder --schema`: ChatCLI's plugin schema from the daemon's.
fn plugin_schema(stream: &UnixStream, atomic: Option<&str>) -> i32 {
    let methods = client::send(stream, "schema", json!({}))
        .ok()
        .and_then(|reply| serde_json::from_slice::<Value>(&reply).ok())
        .and_then(|mut reply| match reply["result"]["methods"].take() {
            Value::Object(methods) => Some(methods),
            _ => None,
        });
    match methods {
        Some(methods) => {
            println!("{}", chatcli::schema(atomic, &methods));
            0
        }
        None => {
            eprintln!("coder: the daemon did not answer `schema`");
            3
        }
    }
}

/// `coder call METHOD [PARAMS]`: the params as a JSON object (default `{}`).
fn call_params(text: Option<&str>) -> Result<Value, ClientError> {
    match text {
        Some(text) => serde_json::from_str(text)
            .map_err(|e| ClientError(format!("params are not valid JSON: {e}"))),
        None => Ok(json!({})),
    }
}

/// Whether `CODER_AUTODIAG` turns off the diagnostics of edits (`call` then asks whether its
/// method edits; other methods know from their schema).
fn autodiag_off() -> bool {
    wire::switches::var_is_off("CODER_AUTODIAG")
}

/// A method's entry in the daemon's `schema` (summary, aliases, mutates, params), or the
/// daemon's error as (exit code, message).
fn described(stream: &UnixStream, method: &str) -> Result<Value, (i32, String)> {
    let reply = client::send(stream, "schema", json!({"method": method})).map_err(|e| (3, e.0))?;
    let mut reply: Value = serde_json::from_slice(&reply)
        .map_err(|e| (3, format!("the daemon's answer is not JSON: {e}")))?;
    if let Some(error) = reply.get("error") {
        // The message carries the recovery hint already.
        let message = error["message"].as_str().unwrap_or("(no message)");
        return Err((2, format!("error {message}")));
    }
    let mut result = reply["result"].take();
    let mut entry = result["schema"].take();
    entry["method"] = result["method"].take();
    Ok(entry)
}

/// A search shown as text is asked for as text: the daemon renders it on its walker threads, and
/// the answer is a fifth smaller than its JSON form (unless `--format` says otherwise).
/// The same for a search sent through `tool` (`@search`, or `@coder`'s `search`), whose resolved
/// envelope holds the params under `args`.
fn ask_for_text(cli: &Cli, method: &str, params: &mut Value) {
    if cli.json {
        return;
    }
    let params = match method {
        "search" => params.as_object_mut(),
        "tool" if params["cmd"] == "search" || params["tool"] == "@search" => {
            params["args"].as_object_mut()
        }
        _ => None,
    };
    if let Some(params) = params {
        params.entry("format").or_insert_with(|| json!("text"));
    }
}

/// `coder shutdown` returns once the daemon is gone (it removes its socket last, after stopping its
/// language servers), so that the next `coder` call starts a fresh daemon instead of reaching the
/// one still stopping.
fn wait_until_stopped(stream: &UnixStream) {
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

/// Prints a result: pretty JSON with `--json` (and for `call` and `info`), else its rendering, by
/// the kind of answer the method's entry declares (`answer`; for `tool`, the call it made).
fn show(
    out: &mut impl Write,
    cli: &Cli,
    method: &str,
    mutates: bool,
    answer: Answer,
    result: &str,
) -> std::io::Result<()> {
    let raw = matches!(cli.command, Command::Call { .. }) || method == "info";
    if cli.json || raw {
        write_pretty(out, result.as_bytes())
    } else if method == "tool" {
        // The envelope's answer is shown as the call it made, from the call's own bytes (a
        // search's renderer reads its keys in the daemon's order).
        #[derive(Deserialize)]
        struct Made<'a> {
            #[serde(borrow)]
            result: Option<&'a RawValue>,
        }
        match serde_json::from_str::<Made>(result) {
            Ok(Made { result: Some(r) }) => render(out, answer, mutates, r.get()),
            _ => write_pretty(out, result.as_bytes()),
        }
    } else {
        render(out, answer, mutates, result)
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

/// A request to send: the method, its params, whether it edits, and the kind of its answer.
type Request = (String, Value, bool, Answer);

/// The kind of answer a method's entry declares (`schema`'s `answer`); JSON when it says none.
fn answer_of(described: &Value) -> Answer {
    serde_json::from_value(described["answer"].clone()).unwrap_or_default()
}

/// `coder METHOD --flag value ...`: the flags become params, typed by the method's schema, which
/// is asked of the daemon on the same connection. `Ok(None)`: help was printed.
fn method_request(stream: &UnixStream, args: &[String]) -> Result<Option<Request>, (i32, String)> {
    let (method, flags) = args.split_first().expect("a method is named");
    if let Some(tool) = method.strip_prefix('@') {
        let envelope = atomic_envelope(stream, tool, flags)?;
        return Ok(Some(tool_request(stream, envelope)));
    }
    // ChatCLI passes `{"cmd": "read --file x"}` as the one word `read --file x`, and a call
    // without a subcommand as its JSON: both are the envelope's to read.
    if flags.is_empty() && method.trim_start().starts_with('{') {
        return Ok(Some(tool_request(stream, json!({"raw": method}))));
    }
    if flags.is_empty() && method.contains(char::is_whitespace) {
        return Ok(Some(tool_request(stream, json!({"cmd": method}))));
    }
    let described = described(stream, method)?;
    let canonical = described["method"].as_str().unwrap_or(method).to_string();
    if flags.iter().any(|f| f == "--help" || f == "-h") {
        print!("{}", wire::argv::help(&canonical, &described));
        return Ok(None);
    }
    let mut params = flags::params_from_flags(flags, &described).map_err(|e| (2, e.0))?;
    if canonical == "tool" {
        return Ok(Some(tool_request(stream, params)));
    }
    absolutize_paths(&mut params);
    let mutates = described["mutates"] == true;
    Ok(Some((canonical, params, mutates, answer_of(&described))))
}

/// An atomic tool's words (`coder-read`): one JSON object, as ChatCLI passes flat args, or
/// `--flag value` words typed by the tool's method.
fn atomic_envelope(
    stream: &UnixStream,
    tool: &str,
    words: &[String],
) -> Result<Value, (i32, String)> {
    let name = format!("@{tool}");
    match words {
        [] => Ok(json!({"tool": name})),
        [text] if text.trim_start().starts_with('{') => Ok(json!({"tool": name, "raw": text})),
        _ => {
            let described = described(stream, tool)?;
            let params = flags::params_from_flags(words, &described).map_err(|e| (2, e.0))?;
            Ok(json!({"tool": name, "args": params}))
        }
    }
}

/// A `tool` envelope whose relative paths resolve from the current folder, as every `coder`
/// call's do: the daemon's dry run names the call and its canonical params, whose paths are then
/// made absolute, and the call is sent as that. An envelope the dry run refuses is sent as it
/// is, to be refused again and reported the usual way.
fn tool_request(stream: &UnixStream, envelope: Value) -> Request {
    // A dry run asked for (in any spelling, anywhere in the envelope) is sent untouched: its
    // answer is the call, which must not be run here.
    let text = envelope.to_string().to_ascii_lowercase();
    if ["dry_run", "dryrun", "dry-run"]
        .iter()
        .any(|k| text.contains(k))
    {
        return ("tool".into(), envelope, false, Answer::Json);
    }
    let mut dry = envelope.clone();
    dry["dry_run"] = json!(true);
    let call = client::send(stream, "tool", dry)
        .ok()
        .and_then(|reply| serde_json::from_slice::<Value>(&reply).ok())
        .map(|mut reply| reply["result"].take())
        .filter(|call| call["method"].is_string() && call["params"].is_object());
    let Some(mut call) = call else {
        return ("tool".into(), envelope, false, Answer::Json);
    };
    let mut mutates = call["read_only"] == false;
    let mut params = call["params"].take();
    absolutize_paths(&mut params);
    let inner = described(stream, call["method"].as_str().unwrap_or_default()).ok();
    // CODER_AUTODIAG=off reaches the call the envelope makes, when that call edits files.
    if autodiag_off() {
        mutates = inner.as_ref().is_some_and(|d| d["mutates"] == true);
        render::diagnostics::apply_env_switch(mutates, &mut params);
    }
    let answer = inner.as_ref().map_or(Answer::Json, answer_of);
    let atomic = envelope["tool"]
        .as_str()
        .filter(|t| t.trim_start_matches('@') != "coder");
    let resolved = match atomic {
        Some(tool) => json!({"tool": tool, "args": params}),
        None => json!({"cmd": call["method"], "args": params}),
    };
    ("tool".into(), resolved, mutates, answer)
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
