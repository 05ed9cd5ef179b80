//! The `tool` method: a ChatCLI-style tool call (`@coder` with `{"cmd": ..., "args": ...}`, the
//! CLI-style `{"cmd": "read --file main.go"}`, the atomic tools `@read`/`@search`/`@tree`/`@todo`
//! with flat args, or the raw text a model wrote) turned into one call of a method in the table.
//!
//! Normalizing is pure (`normalize`): it recovers malformed JSON (`recovery`), splits CLI-style
//! words (`words`), merges flattened keys, un-stringifies `args`, wraps a bare value into the
//! subcommand's first bare param (`Method::bare`), makes keys canonical (`keys`), and types CLI words by the method's
//! schema. Running is the method's own handler, found by name in the table, so a subcommand that
//! another subsystem adds works here the day it is registered.

use super::atomic;
use crate::agent::recovery::{self, Failure, Recovered};
use crate::agent::{quotes, words};
use crate::methods::state::State;
use crate::methods::{self, Method};
use crate::protocol::{keys, validate};
use coderd_core::error::{Error, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::sync::Arc;
use wire::argv;

/// Keys of the envelope itself; any other top-level key is an arg the model flattened.
const ENVELOPE_KEYS: &[&str] = &[
    "tool", "cmd", "command", "args", "flags", "argv", "raw", "dry_run",
];

#[derive(Deserialize, JsonSchema, Default, Debug)]
pub struct ToolParams {
    /// The tool the model called: `@coder` (default), or an atomic tool (`@read`, `@search`,
    /// `@tree`, `@todo`) whose args are flat.
    pub tool: Option<String>,
    /// The subcommand (`read`), or the whole call in CLI style (`read --file main.go --start 10`).
    pub cmd: Option<Value>,
    /// Same as `cmd` when `cmd` is absent.
    pub command: Option<Value>,
    /// The subcommand's args: an object, a string holding JSON (decoded, even twice), CLI-style
    /// flags, or a bare value for the subcommand's first bare param (`schema`'s `bare`).
    pub args: Option<Value>,
    /// More args, overriding `args` on a conflict.
    pub flags: Option<Value>,
    /// The call as words: `["read", "--file", "main.go"]`.
    pub argv: Option<Vec<Value>>,
    /// The args exactly as the model wrote them (the `args='...'` of a `<tool_call>`): JSON,
    /// possibly malformed, or CLI-style text.
    pub raw: Option<String>,
    /// Answer with the call that would run, without running it.
    #[serde(default)]
    pub dry_run: bool,
    /// Args the model put at the top level instead of under `args`.
    #[serde(flatten)]
    #[schemars(skip)]
    pub flattened: Map<String, Value>,
}

/// One method call, as the envelope understood it.
#[derive(Debug, PartialEq, Serialize)]
pub struct Call {
    pub method: String,
    pub params: Map<String, Value>,
    /// The repairs the call needed, in order (empty for well-formed calls).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recovered_by: Vec<&'static str>,
    /// Where the most aggressive repair read a bare word as a string.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub guessed: Vec<String>,
    /// An atomic tool's call: its result is kept under the tool's output cap.
    #[serde(skip)]
    pub capped: bool,
    /// Answer with the call instead of running it (`dry_run`, wherever the envelope held it).
    #[serde(skip)]
    pub dry_run: bool,
}

#[derive(Serialize)]
pub struct ToolResult {
    method: String,
    /// Whether the call only reads (for permission gates: a backend may auto-allow these).
    read_only: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    recovered_by: Vec<&'static str>,
    /// Curly quotes turned straight in model text written to a code file.
    #[serde(skip_serializing_if = "is_zero")]
    quotes_straightened: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Box<RawValue>>,
    /// The command it ran failed (`exec`/`test`: a non-zero exit, a signal, the timeout); its
    /// output is in `result`. A backend reads this instead of knowing each method's answer.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    failed: bool,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The `tool` method.
pub fn run(state: &Arc<State>, p: ToolParams) -> Result<ToolResult> {
    let mut call = normalize(p)?;
    let method = methods::find(&call.method).ok_or_else(|| unknown_subcommand(&call.method))?;
    if methods::EDITOR_ONLY.contains(&method.name) {
        return Err(Error::refused(format!(
            "`{}` is an editor's method, not an agent's",
            method.name
        ))
        .with_data("pointer", "/cmd")
        .with_recovery("edit the file; a person's unsaved changes are theirs to save"));
    }
    let straightened = quotes::straighten(state, &call.method, &mut call.params)?;
    if call.dry_run {
        return Ok(ToolResult {
            read_only: keys::hints(method).read_only,
            method: call.method,
            recovered_by: call.recovered_by,
            quotes_straightened: straightened,
            params: Some(call.params),
            result: None,
            failed: false,
        });
    }
    let result = match call.capped {
        true => atomic::run_capped(state, &call)?,
        false => method.call(state, Value::Object(call.params))?,
    };
    Ok(ToolResult {
        read_only: keys::hints(method).read_only,
        method: call.method,
        recovered_by: call.recovered_by,
        quotes_straightened: straightened,
        params: None,
        failed: command_failed(method, &result),
        result: Some(result),
    })
}

/// Whether the answer of a command method reports a failed run (`wire::answers::command::failed`).
fn command_failed(method: &Method, result: &RawValue) -> bool {
    method.answer == wire::answers::Answer::Command
        && serde_json::from_str(result.get()).is_ok_and(|v| wire::answers::command::failed(&v))
}

/// The method an envelope would run and its params, so that the server can treat a `tool` call
/// like that method (the heavy-request gate). `None` for a dry run, which runs nothing, and for an
/// envelope that does not make a call (its error comes from `run`).
pub fn inner_call(params: &Value) -> Option<(&'static Method, Value)> {
    let tool = methods::find("tool")?;
    let params = keys::canonical(tool, params.clone()).ok()?;
    let p: ToolParams = serde_json::from_value(params).ok()?;
    if p.dry_run {
        return None;
    }
    let call = normalize(p).ok().filter(|call| !call.dry_run)?;
    let method = methods::find(&call.method)?;
    Some((method, Value::Object(call.params)))
}

/// Turns an envelope into a method call, without running anything.
pub fn normalize(p: ToolParams) -> Result<Call> {
    let mut steps = Vec::new();
    let mut guessed = Vec::new();
    let asked_dry_run = p.dry_run;
    let mut envelope = match p.raw {
        Some(raw) => from_raw(&raw, p.tool.as_deref(), &mut steps, &mut guessed)?,
        None => from_fields(p),
    };
    let tool = envelope
        .get("tool")
        .and_then(Value::as_str)
        .unwrap_or("@coder")
        .trim_start_matches('@')
        .to_string();
    // An atomic tool's args are flat: a `dry_run` among them is its method's own when it has one
    // (`@exec` answers with its decision).
    let dry_run = match tool != "coder" && declares_dry_run(&tool) {
        true => asked_dry_run,
        false => take_dry_run(&mut envelope)? || asked_dry_run,
    };
    let mut call = match tool.as_str() {
        "coder" => coder_call(envelope, &mut steps, &mut guessed)?,
        _ => atomic::call(&tool, envelope, &mut steps)?,
    };
    call.recovered_by.splice(0..0, steps);
    call.guessed.splice(0..0, guessed);
    call.dry_run = dry_run;
    if call.method == "tool" {
        return Err(Error::bad_input("`tool` cannot call itself")
            .with_recovery("name the subcommand to run in `cmd`"));
    }
    refuse_guesses_for_mutations(&call)?;
    Ok(call)
}

/// The raw text of a model's args: JSON (recovered if need be) or CLI-style words.
fn from_raw(
    raw: &str,
    tool: Option<&str>,
    steps: &mut Vec<&'static str>,
    guessed: &mut Vec<String>,
) -> Result<Map<String, Value>> {
    let mut envelope = Map::new();
    if let Some(tool) = tool {
        envelope.insert("tool".into(), Value::String(tool.into()));
    }
    let trimmed = raw.trim();
    let json_like = trimmed.starts_with(['{', '[', '"', '`', '“', '&'])
        || trimmed.is_empty()
        || serde_json::from_str::<Value>(trimmed).is_ok();
    if !json_like {
        envelope.insert("cmd".into(), Value::String(trimmed.into()));
        return Ok(envelope);
    }
    match recover_text(trimmed, "the tool call", steps, guessed)? {
        Value::Object(map) if map.contains_key("raw") => {
            return Err(
                Error::bad_input("the tool call in `raw` has a `raw` of its own")
                    .with_data("pointer", "/raw")
                    .with_recovery("send the call's text once, in the outer `raw`"),
            )
        }
        Value::Object(map) => {
            let nested_tool = map.contains_key("tool");
            for (k, v) in map {
                if k == "tool" && !nested_tool {
                    continue;
                }
                envelope.insert(k, v);
            }
        }
        Value::Array(items) => {
            envelope.insert("argv".into(), Value::Array(items));
        }
        other => {
            return Err(
                Error::bad_input(format!("the tool call is {other}, not an object"))
                    .with_recovery(r#"send {"cmd": "read", "args": {"file": "main.go"}}"#),
            )
        }
    }
    Ok(envelope)
}

fn from_fields(p: ToolParams) -> Map<String, Value> {
    let mut envelope = p.flattened;
    let fields = [
        ("tool", p.tool.map(Value::String)),
        ("cmd", p.cmd),
        ("command", p.command),
        ("args", p.args),
        ("flags", p.flags),
        ("argv", p.argv.map(Value::Array)),
    ];
    for (key, value) in fields {
        if let Some(v) = value {
            envelope.insert(key.into(), v);
        }
    }
    envelope
}

/// `dry_run` wherever the envelope holds it (its own field, or a key of the raw text in any
/// spelling: `dry_run`, `dryRun`, `dry-run`): honoured, or refused when it is not a boolean, never
/// dropped. A text's `"dry_run": true` that went unread would run the call it meant to preview.
fn take_dry_run(envelope: &mut Map<String, Value>) -> Result<bool> {
    let spellings: Vec<String> = envelope
        .keys()
        .filter(|k| keys::snake_case(k) == "dry_run")
        .cloned()
        .collect();
    let mut dry_run = false;
    for key in spellings {
        match envelope.remove(&key) {
            Some(Value::Bool(asked)) => dry_run |= asked,
            Some(Value::Null) | None => {}
            Some(other) => {
                return Err(
                    Error::bad_input(format!("`{key}` must be true or false, not {other}"))
                        .with_data("pointer", format!("/{}", keys::pointer_escape(&key)))
                        .with_recovery("send \"dry_run\": true to see the call without running it"),
                )
            }
        }
    }
    Ok(dry_run)
}

fn declares_dry_run(method: &str) -> bool {
    methods::find(method)
        .is_some_and(|m| !validate::param_types(&(m.schema)().to_value(), "dry_run").is_empty())
}

/// Recovers JSON written by a model, turning a failure into C210 that says what was wrong.
pub fn recover_text(
    text: &str,
    what: &str,
    steps: &mut Vec<&'static str>,
    guessed: &mut Vec<String>,
) -> Result<Value> {
    match recovery::recover(text) {
        Ok(Recovered {
            value,
            steps: mut s,
            guessed: mut g,
        }) => {
            steps.append(&mut s);
            guessed.append(&mut g);
            Ok(value)
        }
        Err(Failure::Truncated { pointer, what: where_cut }) => Err(Error::bad_input(format!(
            "{what} is truncated at {}: it ends {where_cut}",
            if pointer.is_empty() { "/" } else { &pointer }
        ))
        .with_data("pointer", pointer)
        .with_recovery("send the whole call again; a cut payload is never completed by guessing")),
        Err(Failure::TwoValues) => Err(Error::bad_input(format!(
            "{what} holds two different JSON values; which one is meant cannot be known"
        ))
        .with_recovery("send one call per tool call")),
        Err(Failure::NotJson(why)) => Err(Error::bad_input(format!(
            "{what} is not JSON and no repair made it JSON: {why}"
        ))
        .with_recovery(r#"send {"cmd": "read", "args": {"file": "main.go"}} or CLI style "read --file main.go""#)),
        Err(Failure::TooDeep { at }) => Err(crate::protocol::depth::error(what, &at)),
    }
}

/// An `@coder` envelope: the subcommand from `cmd`/`command`/`argv`, args from the flattened
/// keys, then `args`, then `flags` (later ones win), then the CLI-style words.
fn coder_call(
    mut envelope: Map<String, Value>,
    steps: &mut Vec<&'static str>,
    guessed: &mut Vec<String>,
) -> Result<Call> {
    let (subcommand, cli_words) = subcommand_of(&mut envelope)?;
    if envelope.contains_key("cmd") {
        return Err(Error::bad_input(
            "both `argv` and `cmd` name the call; which one is meant cannot be known",
        )
        .with_data("pointer", "/cmd")
        .with_recovery("send the call once: `cmd` (with `args`) or `argv`"));
    }
    let method = methods::find(&subcommand);
    let schema = method.map(|m| (m.schema)().to_value());
    let mut params = Map::new();
    // A `command` left after `cmd` named the subcommand is an arg the model flattened (`exec`'s).
    let flattened: Map<String, Value> = envelope
        .iter()
        .filter(|(k, _)| *k == "command" || !ENVELOPE_KEYS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    merge(&mut params, flattened);
    for key in ["args", "flags"] {
        if let Some(args) = envelope.remove(key) {
            let args = args_object(&subcommand, schema.as_ref(), args, steps, guessed)?;
            merge(&mut params, args);
        }
    }
    if !cli_words.is_empty() {
        let flags = flags_from_words(&subcommand, schema.as_ref(), &cli_words, steps, guessed)?;
        for (k, v) in flags {
            params.entry(k).or_insert(v);
        }
    }
    finish(subcommand, method, params, steps)
}

/// Canonical keys, then the repairs that depend on them.
pub fn finish(
    subcommand: String,
    method: Option<&'static Method>,
    params: Map<String, Value>,
    steps: &mut Vec<&'static str>,
) -> Result<Call> {
    let mut params = match method {
        Some(m) => match keys::canonical(m, Value::Object(params))? {
            Value::Object(map) => map,
            _ => unreachable!("an object stays an object"),
        },
        None => params,
    };
    unescape_one_line_diff(&mut params, steps);
    Ok(Call {
        method: method.map_or(subcommand, |m| m.name.to_string()),
        params,
        recovered_by: Vec::new(),
        guessed: Vec::new(),
        capped: false,
        dry_run: false,
    })
}

/// The subcommand and the CLI-style words after it.
fn subcommand_of(envelope: &mut Map<String, Value>) -> Result<(String, Vec<String>)> {
    let words = if let Some(Value::Array(argv)) = envelope.remove("argv") {
        argv.into_iter()
            .map(|w| match w {
                Value::String(s) => Ok(s),
                other => Err(
                    Error::bad_input(format!("`argv` holds {other}, not a string"))
                        .with_recovery("send every word of argv as a string"),
                ),
            })
            .collect::<Result<Vec<_>>>()?
    } else {
        let cmd = match envelope.remove("cmd") {
            Some(cmd) => Some(cmd),
            None => envelope.remove("command"),
        };
        match cmd {
            Some(Value::String(text)) => words::split(&text)?,
            Some(other) => {
                return Err(Error::bad_input(format!("`cmd` is {other}, not a string"))
                    .with_recovery(r#"send {"cmd": "read", "args": {"file": "main.go"}}"#))
            }
            None => Vec::new(),
        }
    };
    let mut words = words.into_iter();
    let Some(first) = words.next().filter(|w| !w.is_empty()) else {
        return Err(
            Error::bad_input("missing `cmd`: which subcommand to run").with_recovery(format!(
                "send {{\"cmd\": \"read\", \"args\": {{...}}}}; subcommands: {}",
                methods::names().join(", ")
            )),
        );
    };
    Ok((first.trim_start_matches('@').to_string(), words.collect()))
}

/// `args` as an object, whatever form it came in.
fn args_object(
    subcommand: &str,
    schema: Option<&Value>,
    args: Value,
    steps: &mut Vec<&'static str>,
    guessed: &mut Vec<String>,
) -> Result<Map<String, Value>> {
    match args {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        Value::Array(items) => {
            let words: Vec<String> = items
                .into_iter()
                .map(|v| match v {
                    Value::String(s) => s,
                    other => other.to_string(),
                })
                .collect();
            flags_from_words(subcommand, schema, &words, steps, guessed)
        }
        Value::String(text) => string_args(subcommand, schema, &text, steps, guessed),
        other => wrap_plain(subcommand, other, steps),
    }
}

/// `args` given as a string: JSON (decoded and recovered), CLI-style flags, or a bare value.
fn string_args(
    subcommand: &str,
    schema: Option<&Value>,
    text: &str,
    steps: &mut Vec<&'static str>,
    guessed: &mut Vec<String>,
) -> Result<Map<String, Value>> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok(Map::new());
    }
    if trimmed.starts_with(['{', '[', '"', '`', '“', '&']) {
        steps.push("unstringified");
        return match recover_text(trimmed, "`args`", steps, guessed)? {
            Value::Object(map) => Ok(map),
            Value::String(s) => wrap_plain(subcommand, Value::String(s), steps),
            other => Err(
                Error::bad_input(format!("`args` decodes to {other}, not an object"))
                    .with_recovery(r#"send "args": {"file": "main.go"}"#),
            ),
        };
    }
    if words::looks_like_cli(trimmed) {
        return flags_from_words(subcommand, schema, &words::split(trimmed)?, steps, guessed);
    }
    wrap_plain(subcommand, Value::String(trimmed.to_string()), steps)
}

/// A bare value goes into the subcommand's first bare param (`read` → `file`, `search` →
/// `pattern`: the method's `bare`).
fn wrap_plain(
    subcommand: &str,
    value: Value,
    steps: &mut Vec<&'static str>,
) -> Result<Map<String, Value>> {
    let Some(field) = bare_of(subcommand).first() else {
        return Err(Error::bad_input(format!(
            "`args` of `{subcommand}` is the bare value {value}, and `{subcommand}` takes no bare value"
        ))
        .with_recovery(format!("send \"args\" as an object; see `schema {{\"method\": \"{subcommand}\"}}`")));
    };
    steps.push("wrapped_plain");
    let mut map = Map::new();
    map.insert(field.to_string(), value);
    Ok(map)
}

/// The params bare words fill, as the method table declares them (none for an unknown method).
fn bare_of(subcommand: &str) -> &'static [&'static str] {
    methods::find(subcommand).map_or(&[], |m| m.bare)
}

/// Later keys win.
fn merge(into: &mut Map<String, Value>, from: Map<String, Value>) {
    for (k, v) in from {
        into.insert(k, v);
    }
}

/// `--file main.go --start 10 --append`: flags typed by the method's schema, through the parser
/// `coder` uses too (`wire::argv`). A flag whose param is a boolean takes no value (unless
/// `true`/`false` follows); any other flag takes the next word, even one starting with `-`; a flag
/// the schema does not type is guessed. Bare words fill the method's `bare` params, in order, and
/// a leading word naming a flag is that flag (`todo list`), as on `coder`'s command line.
fn flags_from_words(
    subcommand: &str,
    schema: Option<&Value>,
    words: &[String],
    steps: &mut Vec<&'static str>,
    guessed: &mut Vec<String>,
) -> Result<Map<String, Value>> {
    let syntax = argv::Syntax {
        positional: bare_of(subcommand),
        key_of: &|name| canonical_key(subcommand, name),
        single_dash: true,
        guess_untyped: true,
        leading_verb: true,
        stdin_suffix: false,
        lists_accumulate: true,
    };
    let mut reader = Recovering { steps, guessed };
    argv::parse(words, schema.unwrap_or(&Value::Null), &syntax, &mut reader).map_err(|problem| {
        match problem {
            argv::Problem::NoValue { flag, key } => {
                Error::bad_input(format!("flag `--{flag}` has no value"))
                    .with_data("pointer", format!("/{key}"))
                    .with_recovery(format!("send `--{flag} VALUE`"))
            }
            argv::Problem::Unexpected { word, at } => Error::bad_input(format!(
                "unexpected word `{word}` (word {at} of the CLI-style args) is not a flag's value"
            ))
            .with_recovery("name it with a flag (`--file x`), and quote values that hold spaces"),
            argv::Problem::BadValue { key, raw, types } => {
                let what = types
                    .iter()
                    .filter(|t| *t != "null")
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" or ");
                let what = format!("a value of type {what}");
                Error::bad_input(format!("`--{key}` expects {what}, got `{raw}`"))
                    .with_data("pointer", format!("/{key}"))
                    .with_recovery(format!("send `--{key}` with {what}"))
            }
            argv::Problem::Reader(error) => error,
        }
    })
}

/// The envelope's reader of CLI-style words: JSON values are recovered as model-written JSON is
/// (the repairs recorded in `steps`); there is no stdin.
struct Recovering<'a> {
    steps: &'a mut Vec<&'static str>,
    guessed: &'a mut Vec<String>,
}

impl argv::Reader for Recovering<'_> {
    type Error = Error;

    fn json(&mut self, key: &str, text: &str) -> Result<Value> {
        recover_text(text, &format!("`--{key}`"), self.steps, self.guessed)
    }

    fn stdin(&mut self) -> Result<String> {
        Err(Error::bad_input("a tool call has no stdin"))
    }
}

/// The flag's param name: snake_case, then the method's param aliases.
fn canonical_key(subcommand: &str, flag: &str) -> String {
    let snake = keys::snake_case(flag).into_owned();
    methods::find(subcommand)
        .and_then(|m| keys::alias_target(m, &snake))
        .map_or(snake, str::to_string)
}

/// A unified diff sent on one line with literal `\n`s (as the CLI-style examples write it) cannot
/// be a diff; its `\n`s are newlines.
fn unescape_one_line_diff(params: &mut Map<String, Value>, steps: &mut Vec<&'static str>) {
    if let Some(Value::String(diff)) = params.get_mut("diff") {
        if !diff.contains('\n') && diff.contains("\\n") && diff.starts_with("---") {
            *diff = diff.replace("\\n", "\n");
            steps.push("escaped_newlines");
        }
    }
}

/// The most aggressive repair takes bare words as strings, and closing a cut call may drop keys
/// that followed the cut; for a subcommand that changes files neither is taken.
fn refuse_guesses_for_mutations(call: &Call) -> Result<()> {
    let closed = call.recovered_by.contains(&"closed_truncated");
    if call.guessed.is_empty() && !closed {
        return Ok(());
    }
    let mutates = methods::find(&call.method).is_none_or(|m| m.mutates);
    if !mutates {
        return Ok(());
    }
    if closed {
        return Err(Error::bad_input(format!(
            "the call to `{}` was cut before its end (its brackets had to be closed): keys after the cut may be lost; refused for a subcommand that changes files",
            call.method
        ))
        .with_recovery("send the whole call again"));
    }
    Err(Error::bad_input(format!(
        "the args of `{}` were readable only by taking bare words as strings at {}; refused for a subcommand that changes files",
        call.method,
        call.guessed.join(", ")
    ))
    .with_data("pointers", call.guessed.clone())
    .with_recovery("quote every string value in the args (valid JSON)"))
}

fn unknown_subcommand(name: &str) -> Error {
    let names = methods::names();
    let mut message = format!("unknown subcommand `{name}`");
    if let Some(best) = validate::did_you_mean(name, &names) {
        message.push_str(&format!(" (did you mean `{best}`?)"));
    }
    Error::bad_input(message).with_recovery(format!("subcommands: {}", names.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_dry_run_in_the_text_makes_no_call_for_the_server_to_gate_or_snapshot() {
        let raw = |text: &str| inner_call(&json!({ "raw": text })).map(|(m, _)| m.name);
        assert_eq!(
            raw("{'cmd': 'write', 'args': {'file': 'a', 'content': 'x'}}"),
            Some("write")
        );
        for text in [
            "{'cmd': 'write', 'args': {'file': 'a', 'content': 'x'}, 'dry_run': True}",
            r#"{"cmd": "write", "args": {"file": "a", "content": "x"}, "dryRun": true}"#,
        ] {
            assert_eq!(raw(text), None, "{text}");
        }
        // `@exec`'s flat `dry_run` is exec's own: the call is exec's decision, which runs nothing.
        let exec = json!({"tool": "@exec", "raw": "{\"cmd\": \"ls\", \"dry_run\": true}"});
        let (method, params) = inner_call(&exec).unwrap();
        assert_eq!((method.name, &params["dry_run"]), ("exec", &json!(true)));
        assert!(method.changes_nothing(&params));
    }

    #[test]
    fn every_bare_param_is_declared_and_takes_text_so_a_bare_word_stays_a_string() {
        // The shared parser types a bare word by its param's schema; the envelope has always
        // sent it as a string, which is the same as long as every bare param takes text.
        for method in methods::METHODS.iter() {
            let schema = (method.schema)().to_value();
            for field in method.bare {
                assert!(
                    schema["properties"].get(field).is_some(),
                    "{}: {field}",
                    method.name
                );
                // Untyped (`tool`'s `cmd` takes any JSON) is text too: a word is never guessed.
                let types = argv::param_types(&schema, field);
                assert!(
                    types.is_empty() || types.iter().any(|t| t == "string"),
                    "{}: {field} is {types:?}",
                    method.name
                );
            }
        }
    }
}
