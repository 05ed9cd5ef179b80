//! ChatCLI's atomic tools (`@read`, `@search`, `@tree`, `@todo`): flat args (no `cmd`/`args`
//! envelope), every alias of their methods (each entry's `param_aliases`), and a per-tool output cap applied
//! as a budget: a result over it is cut to fit and says so (`truncated`, `truncation_note`)
//! rather than failing. Any other method can be called the same flat way (`@write`, `@outline`).

use super::envelope::{self, Call};
use crate::methods::state::State;
use crate::methods::{self, Method};
use coderd_core::error::{Error, Result};
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// Output caps in characters of the result, per atomic tool (ChatCLI's numbers).
pub const CAPS: &[(&str, usize)] = &[("read", 80_000), ("search", 60_000), ("tree", 50_000)];

/// The cap of an atomic tool, if it has one.
pub fn cap_of(method: &str) -> Option<usize> {
    CAPS.iter().find(|(m, _)| *m == method).map(|(_, c)| *c)
}

/// A flat call of the method named by the tool (`@read` → `read`). An inner `args` object is
/// unwrapped; `@todo`'s `cmd` stays a param (its subcommand).
pub fn call(
    tool: &str,
    mut envelope: Map<String, Value>,
    steps: &mut Vec<&'static str>,
) -> Result<Call> {
    envelope.remove("tool");
    let method = methods::find(tool);
    let mut params = Map::new();
    let inner = envelope.remove("args");
    for (k, v) in envelope {
        params.insert(k, v);
    }
    match inner {
        Some(Value::Object(args)) => params.extend(args),
        Some(Value::String(text)) => {
            let mut guessed = Vec::new();
            match envelope::recover_text(&text, "`args`", steps, &mut guessed)? {
                Value::Object(args) => params.extend(args),
                other => {
                    return Err(Error::bad_input(format!(
                        "`args` of @{tool} is {other}, not an object"
                    ))
                    .with_recovery("send the args as a flat object"))
                }
            }
        }
        Some(Value::Null) | None => {}
        Some(other) => {
            return Err(
                Error::bad_input(format!("`args` of @{tool} is {other}, not an object"))
                    .with_recovery("send the args as a flat object"),
            )
        }
    }
    subcommand_as_flag(method, &mut params);
    let mut call = envelope::finish(tool.to_string(), method, params, steps)?;
    if call.method == "read" {
        cap_read(&mut call.params);
    }
    call.capped = cap_of(&call.method).is_some();
    Ok(call)
}

/// `@todo {"cmd": "mark", ...}`: a tool whose subcommands are boolean params of its method
/// (`todo`'s `write`/`mark`/`list`) gets `"mark": true` for `"cmd": "mark"`.
fn subcommand_as_flag(method: Option<&Method>, params: &mut Map<String, Value>) {
    let (Some(method), Some(Value::String(sub))) = (method, params.get("cmd")) else {
        return;
    };
    let schema = (method.schema)().to_value();
    let types = crate::protocol::validate::param_types(&schema, sub);
    if types.iter().any(|t| t == "boolean")
        && crate::protocol::validate::param_types(&schema, "cmd").is_empty()
    {
        let sub = sub.clone();
        params.remove("cmd");
        params.insert(sub, Value::Bool(true));
    }
}

/// `@read`'s cap is `max_bytes`: the read itself stops at a line boundary with `next_start`.
fn cap_read(params: &mut Map<String, Value>) {
    let cap = cap_of("read").unwrap_or(usize::MAX) as u64;
    let asked = params
        .get("max_bytes")
        .and_then(Value::as_u64)
        .unwrap_or(cap);
    params.insert("max_bytes".into(), json!(asked.min(cap)));
}

/// Runs an atomic tool's call and keeps its result under the tool's cap: a search drops whole
/// files from the end, a tree is asked again for fewer entries. Either way the result says it was
/// cut and by which cap.
pub fn run_capped(state: &Arc<State>, call: &Call) -> Result<Box<RawValue>> {
    let method = methods::find(&call.method).ok_or_else(|| methods::unknown(&call.method))?;
    let result = method.call(state, Value::Object(call.params.clone()))?;
    let Some(cap) = cap_of(&call.method) else {
        return Ok(result);
    };
    if result.get().len() <= cap {
        return Ok(result);
    }
    match call.method.as_str() {
        "search" => cap_search(result, cap),
        "tree" => cap_tree(state, call, &result, cap),
        _ => Ok(result),
    }
}

fn note(cap: usize, tool: &str) -> String {
    format!("output cut to fit @{tool}'s cap of {cap} characters; narrow the request (dir, glob, depth) to see the rest")
}

fn cap_search(result: Box<RawValue>, cap: usize) -> Result<Box<RawValue>> {
    let mut value: Value =
        serde_json::from_str(result.get()).map_err(|e| Error::io(e.to_string()))?;
    if let Some(text) = value.get("text").and_then(Value::as_str) {
        return cap_search_text(text.to_owned(), value, cap);
    }
    if !value.get("files").is_some_and(Value::is_array) {
        return Ok(result);
    }
    value["truncated"] = json!(true);
    value["truncated_reason"] = json!("output_cap");
    value["truncation_note"] = json!(note(cap, "search"));
    value["files_dropped"] = json!(0);
    let mut size = value.to_string().len();
    let mut dropped = 0;
    // Files are dropped from the end (the order the search reported them) until the result fits;
    // the size is re-measured at the end because the count itself takes a few characters.
    while size > cap {
        let Some(last) = value["files"].as_array_mut().and_then(Vec::pop) else {
            break;
        };
        size = size.saturating_sub(last.to_string().len() + 1);
        dropped += 1;
        if size <= cap {
            value["files_dropped"] = json!(dropped);
            size = value.to_string().len();
        }
    }
    value["files_dropped"] = json!(dropped);
    serde_json::value::to_raw_value(&value).map_err(|e| Error::io(e.to_string()))
}

/// A text answer (`format: "text"`) is cut after its last whole line that fits.
fn cap_search_text(text: String, mut value: Value, cap: usize) -> Result<Box<RawValue>> {
    value["truncated"] = json!(true);
    value["truncated_reason"] = json!("output_cap");
    value["truncation_note"] = json!(note(cap, "search"));
    value["text"] = json!("");
    let room = cap.saturating_sub(value.to_string().len());
    // Escaping can only grow the text, so `room` bytes of it is the most that can fit.
    let mut end = text.len().min(room);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    loop {
        end = text[..end].rfind('\n').map_or(0, |i| i + 1);
        value["text"] = json!(text[..end]);
        if end == 0 || value.to_string().len() <= cap {
            break;
        }
        end -= 1;
    }
    serde_json::value::to_raw_value(&value).map_err(|e| Error::io(e.to_string()))
}

/// Asks the tree again with `max_entries` scaled down by how far over the cap it was (a few
/// rounds at most).
fn cap_tree(
    state: &Arc<State>,
    call: &Call,
    first: &RawValue,
    cap: usize,
) -> Result<Box<RawValue>> {
    let method = methods::find("tree").ok_or_else(|| methods::unknown("tree"))?;
    let mut result = first.to_owned();
    for _ in 0..4 {
        let value: Value =
            serde_json::from_str(result.get()).map_err(|e| Error::io(e.to_string()))?;
        let entries = value
            .get("entries")
            .and_then(Value::as_u64)
            .unwrap_or(1)
            .max(1);
        let scaled = (entries as f64 * cap as f64 / result.get().len() as f64 * 0.9) as u64;
        let mut params = call.params.clone();
        params.insert("max_entries".into(), json!(scaled.max(1)));
        result = method.call(state, Value::Object(params))?;
        if result.get().len() <= cap {
            break;
        }
    }
    let mut value: Value =
        serde_json::from_str(result.get()).map_err(|e| Error::io(e.to_string()))?;
    value["truncated"] = json!(true);
    value["truncation_note"] = json!(note(cap, "tree"));
    serde_json::value::to_raw_value(&value).map_err(|e| Error::io(e.to_string()))
}
