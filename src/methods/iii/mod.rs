//! The `coder::*` ids: exactly the semantics of iii's `coder` worker (its params, its answer
//! shapes, its per-entry batches), over coderd's own methods.
//!
//! Each entry translates iii's params into the coderd method it stands for, calls that method's
//! handler from the table, and reshapes the answer. The batch verbs (`create-file`,
//! `update-file`, `delete-file`, `move`) run one coderd call per entry, so each entry is its own
//! transaction: a good entry commits beside a bad one, whose `{code, message}` is reported in its
//! `results[]` slot (iii's partial success). coderd's own names keep their all-or-nothing
//! transactions. `batch.rs` holds the batch verbs, `views.rs` the read side.

mod base_dir;
mod batch;
mod views;

use super::state::State;
use super::Method;
use coderd_core::error::{Code, Error, Result};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

/// The `coder::*` ids: found by `methods::find` and described by `schema` beside coderd's own
/// methods, but not listed with them (`info`, MCP tools, `coder --help`): they are iii's surface,
/// registered with the engine by `coderd iii`.
pub static METHODS: std::sync::LazyLock<Vec<Method>> = std::sync::LazyLock::new(methods);

fn methods() -> Vec<Method> {
    vec![
        entry(
            "coder::info",
            "iii: discover the jail: canonical roots, caps, budgets, globs.",
            false,
            views::info,
        ),
        entry(
            "coder::read-file",
            "iii: read a file (stat probe, line window, full read under max_output_bytes, or a paths[] batch); over max_read_bytes is C213.",
            false,
            views::read_file,
        )
        .heavy(|_, params| views::read_is_heavy(params))
        .warms_servers(),
        entry(
            "coder::search",
            "iii: search contents and/or paths: content_matches[] and path_matches[], truncated instead of an error.",
            false,
            views::search,
        )
        .heavy(super::always),
        entry(
            "coder::tree",
            "iii: a recursive snapshot under `root`; cut folders carry truncated {reason, hint}.",
            false,
            views::tree,
        )
        .heavy(super::always),
        entry(
            "coder::list-folder",
            "iii: one folder, by page (page, page_size, has_more); entries flag non_accessible.",
            false,
            views::list_folder,
        ),
        entry(
            "coder::create-file",
            "iii: create files; one result per entry, each its own transaction (partial success), unlike coderd's all-or-nothing `create-file`.",
            true,
            batch::create_file,
        ),
        entry(
            "coder::update-file",
            "iii: line ops and regex replaces; one result per file, each its own transaction (partial success), unlike coderd's all-or-nothing `update-file`.",
            true,
            batch::update_file,
        ),
        entry(
            "coder::delete-file",
            "iii: delete paths; one result per path (a missing path is removed: false), unlike coderd's all-or-nothing `delete-file`.",
            true,
            batch::delete_file,
        ),
        entry(
            "coder::move",
            "iii: move or rename entries; one result per entry, unlike coderd's all-or-nothing `move`.",
            true,
            batch::move_entries,
        ),
    ]
}

/// A `coder::*` entry: no `diagnostics` switch (iii's schemas do not have one) and no language
/// server warming; a mutating one still gets the automatic checkpoint before it. Every one takes
/// the worker's `base_dir` (see `base_dir`).
fn entry<P, R>(
    name: &'static str,
    summary: &'static str,
    mutates: bool,
    handler: fn(&Arc<State>, P) -> Result<R>,
) -> Method
where
    P: DeserializeOwned + JsonSchema + 'static,
    R: Serialize + 'static,
{
    let plain = super::method(name, &[], summary, mutates, handler);
    let call = plain.call;
    Method {
        schema: base_dir::schema::<P>,
        diagnostics_after: false,
        call: Box::new(move |entry, state, params| {
            call(entry, state, base_dir::apply(state, name, params)?)
        }),
        ..plain
    }
}

/// The params of a `coder::*` entry that coderd's method names differently, as `(iii, coderd)`
/// pairs: `inner` renames the params on the way in and the fields an error names on the way out,
/// so the caller reads the names it sent. A batch verb adds its entry's index
/// (`("files[2]", "moves[0]")`: each entry is a one-entry coderd call).
pub type Aliases<'a> = &'a [(&'a str, &'a str)];

/// Calls coderd's own method `name` with iii's `params` through the table (its handler alone:
/// the `coder::*` entry around it already took the checkpoint), and parses its answer.
fn inner(state: &Arc<State>, name: &str, params: Value, aliases: Aliases) -> Result<Value> {
    let method = super::find(name).ok_or_else(|| super::unknown(name))?;
    // Made canonical as every call's params are (the method's own param aliases).
    let params = crate::protocol::keys::canonical(method, to_coderd(params, aliases))
        .map_err(|e| callers_fields(e, aliases))?;
    let raw = (method.call)(method, state, params).map_err(|e| callers_fields(e, aliases))?;
    serde_json::from_str(raw.get())
        .map_err(|e| Error::io(format!("reading the answer of `{name}`: {e}")))
}

/// iii's params under coderd's names, at every level (a batch's items are named like the call).
fn to_coderd(params: Value, aliases: Aliases) -> Value {
    match params {
        Value::Object(o) => Value::Object(
            o.into_iter()
                .map(|(k, v)| {
                    let key = aliases.iter().find(|(iii, _)| *iii == k).map(|(_, c)| *c);
                    (key.map_or(k, str::to_string), to_coderd(v, aliases))
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(|v| to_coderd(v, aliases)).collect()),
        other => other,
    }
}

/// An error of coderd's method naming the caller's fields: its message and hint.
fn callers_fields(mut e: Error, aliases: Aliases) -> Error {
    e.message = name_fields(&e.message, aliases);
    e.recovery = e.recovery.map(|r| name_fields(&r, aliases));
    e
}

/// `text` with coderd's field names made iii's, wherever coderd's messages name a field: between
/// backticks (`depth`, `moves[0].to`), as the leading path of a batch error (`files[0].ops[1]: …`),
/// and as the `"key":` of an example call.
pub fn name_fields(text: &str, aliases: Aliases) -> String {
    let indexed = |head: &str| {
        head.contains('[')
            && head
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_[].".contains(c))
    };
    if let Some((head, rest)) = text.split_once(": ").filter(|(head, _)| indexed(head)) {
        return format!(
            "{}: {}",
            field_path(head, aliases),
            name_fields(rest, aliases)
        );
    }
    let spans = text.split('`').enumerate().map(|(i, part)| match i % 2 {
        1 => field_path(part, aliases),
        _ => aliases.iter().fold(part.to_string(), |t, (iii, coderd)| {
            t.replace(&format!("\"{coderd}\":"), &format!("\"{iii}\":"))
        }),
    });
    spans.collect::<Vec<_>>().join("`")
}

/// A field path (`moves[0].to`) under iii's names, segment by segment.
fn field_path(path: &str, aliases: Aliases) -> String {
    let segments: Vec<String> = path.split('.').map(|s| segment(s, aliases)).collect();
    segments.join(".")
}

/// One segment of a field path (`moves[0]`, `to`) under iii's name.
fn segment(s: &str, aliases: Aliases) -> String {
    let iii = |name: &str| aliases.iter().find(|(_, c)| *c == name).map(|(i, _)| *i);
    if let Some(whole) = iii(s) {
        return whole.to_string();
    }
    let (name, index) = s.split_at(s.find('[').unwrap_or(s.len()));
    iii(name).map_or_else(|| s.to_string(), |name| format!("{name}{index}"))
}

/// A failed entry of a batch, as iii reports it.
#[derive(Serialize, JsonSchema)]
pub struct EntryError {
    pub code: String,
    pub message: String,
}

/// An error as iii words it: `wire` (the path the caller sent) first, and for C211 one message
/// whether the path is missing or denied by policy, so the answer is no existence oracle.
pub fn iii_error(wire: &str, e: Error) -> Error {
    match e.code {
        Code::NotFound => Error::not_found(not_found_message(wire)).with_recovery(
            "check the path with coder::list-folder; coder::info lists the non_accessible_globs",
        ),
        _ => e,
    }
}

/// The one C211 wording of the `coder::*` ids.
pub fn not_found_message(wire: &str) -> String {
    format!("{wire}: no such file or directory, or non-accessible by workspace policy")
}

impl EntryError {
    pub fn of(wire: &str, e: Error) -> EntryError {
        let e = iii_error(wire, e);
        let message = match &e.recovery {
            Some(hint) => format!("{} (hint: {hint})", e.message),
            None => e.message.clone(),
        };
        EntryError {
            code: e.code.as_str().to_string(),
            message,
        }
    }
}

/// A JSON object from pairs, leaving out the `None`s.
fn object(pairs: &[(&str, Option<Value>)]) -> Value {
    let map = pairs
        .iter()
        .filter_map(|(k, v)| v.clone().map(|v| (k.to_string(), v)))
        .collect();
    Value::Object(map)
}

fn some<T: Into<Value>>(v: Option<T>) -> Option<Value> {
    v.map(Into::into)
}
