//! The read side of the `coder::*` ids: `info`, `read-file`, `search`, `tree`, `list-folder`,
//! each coderd's own method with iii's params and answer shapes.

use super::{iii_error, inner, name_fields, object, some, Aliases, State};
use coderd_core::error::{Error, Result};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::path::Path;
use std::sync::Arc;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

pub fn info(state: &Arc<State>, _: NoParams) -> Result<Value> {
    inner(state, "info", json!({}), &[])
}

#[derive(Deserialize, JsonSchema, Clone)]
#[serde(deny_unknown_fields)]
pub struct ReadParams {
    /// The file: relative to the primary root, or absolute inside a root.
    path: Option<String>,
    /// A batch instead of `path`: paths, or `{path, stat, line_from, line_to}` objects, under
    /// `batch_read_budget_bytes`.
    paths: Option<Vec<Value>>,
    /// Size and total_lines only, no content.
    stat: Option<bool>,
    /// First line of a window (1-based).
    line_from: Option<u64>,
    /// Last line of a window (inclusive).
    line_to: Option<u64>,
    /// Prefix each line with its absolute number and a tab.
    numbered: Option<bool>,
    /// This call's budget for a full read (clamped to `max_read_bytes`).
    max_output_bytes: Option<u64>,
}

/// `coder::read-file`'s names for `read`'s params (a batch item's too).
const READ: Aliases = &[("path", "file"), ("line_from", "start"), ("line_to", "end")];

/// iii's read params as one object, under iii's names (`inner` renames them).
fn read_params(p: &ReadParams) -> Value {
    // iii's windows are not held to the whole-read budget (the reference worker's rule), where
    // coderd's own `read` caps a window by it: their cap is `read`'s fixed default.
    let window = p.line_from.is_some() || p.line_to.is_some();
    object(&[
        (
            "max_bytes",
            some(window.then_some(crate::read::DEFAULT_MAX_BYTES)),
        ),
        ("path", some(p.path.clone())),
        ("paths", some(p.paths.clone())),
        ("stat", some(p.stat)),
        ("line_from", some(p.line_from)),
        ("line_to", some(p.line_to)),
        ("numbered", some(p.numbered)),
        ("max_output_bytes", some(p.max_output_bytes)),
    ])
}

pub fn read_is_heavy(params: &Value) -> bool {
    match serde_json::from_value::<ReadParams>(params.clone()) {
        Ok(p) => crate::read::is_heavy(&super::to_coderd(read_params(&p), READ)),
        Err(_) => false,
    }
}

pub fn read_file(state: &Arc<State>, p: ReadParams) -> Result<Value> {
    let wire = p.path.clone().unwrap_or_default();
    let mut answer =
        inner(state, "read", read_params(&p), READ).map_err(|e| jail_error(state, &wire, e))?;
    let full =
        p.paths.is_none() && p.stat != Some(true) && p.line_from.is_none() && p.line_to.is_none();
    let cap = state.limits().max_read_bytes;
    let size = answer["size"].as_u64().unwrap_or(0);
    if full && size > cap {
        return Err(Error::too_large(format!(
            "{wire}: {size} bytes is over max_read_bytes ({cap})"
        ))
        .with_data("size", size)
        .with_data("max_read_bytes", cap)
        .with_recovery("read a window with line_from/line_to, or probe with stat: true"));
    }
    mark_utf8(&mut answer);
    if let Some(results) = answer.get_mut("results").and_then(Value::as_array_mut) {
        results.iter_mut().for_each(mark_utf8);
        results.iter_mut().for_each(budget_error);
        results
            .iter_mut()
            .for_each(|r| callers_fields(&mut r["error"]));
    }
    Ok(answer)
}

/// A batch entry's error naming the caller's fields, as a call's error does (`inner`).
fn callers_fields(error: &mut Value) {
    for key in ["message", "recovery"] {
        if let Some(text) = error.get(key).and_then(Value::as_str) {
            error[key] = json!(name_fields(text, READ));
        }
    }
}

/// A batch entry the budget left out carries iii's C213, beside coderd's `skipped`.
fn budget_error(entry: &mut Value) {
    if entry["skipped"] != json!(true) {
        return;
    }
    let message = format!(
        "{}: batch_read_budget_bytes exhausted (hint: read this file in a separate request)",
        entry["file"].as_str().unwrap_or("")
    );
    entry["error"] = json!({"code": "C213", "message": message});
}

/// iii's `is_utf8`: the content came back as text, not base64.
fn mark_utf8(answer: &mut Value) {
    if let Some(encoding) = answer.get("encoding").and_then(Value::as_str) {
        let utf8 = encoding == "text";
        answer["is_utf8"] = json!(utf8);
    }
}

/// An error of a call naming `wire`, as iii reports it: one C211 wording, and a path through a
/// dangling symlink is C215 (it may point anywhere, so it is refused as leaving the jail).
fn jail_error(state: &Arc<State>, wire: &str, e: Error) -> Error {
    if e.code == coderd_core::error::Code::NotFound
        && through_dangling_link(state.jail.primary(), wire)
    {
        return Error::outside_jail(format!(
            "{wire}: passes through a dangling symlink, whose target cannot be checked against the allowed roots"
        ))
        .with_recovery("remove or fix the symlink, or use the real path");
    }
    iii_error(wire, e)
}

/// Whether a relative wire path crosses a symlink whose target does not exist. Only names under
/// the primary root are looked at (`lstat`, never opened): this picks an error code, the jail has
/// already refused the call.
fn through_dangling_link(root: &Path, wire: &str) -> bool {
    let rel = Path::new(wire);
    if rel.is_absolute() {
        return false;
    }
    let mut at = root.to_path_buf();
    for part in rel.components() {
        at.push(part);
        let Ok(meta) = std::fs::symlink_metadata(&at) else {
            return false;
        };
        if meta.file_type().is_symlink() && std::fs::metadata(&at).is_err() {
            return true;
        }
    }
    false
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    /// A literal, or a regex with `regex: true`.
    query: String,
    #[serde(default)]
    regex: bool,
    #[serde(default)]
    ignore_case: bool,
    /// The folder to search (default: the primary root).
    path: Option<String>,
    /// Search file contents (default true).
    search_content: Option<bool>,
    /// Search paths (default true).
    search_paths: Option<bool>,
    /// Only files matching these globs.
    include_globs: Option<Vec<String>>,
    /// Leave out files matching these globs.
    exclude_globs: Option<Vec<String>>,
    /// At most this many matches (then `truncated: true`).
    max_matches: Option<u64>,
    /// Lines before each content match (at most 10).
    context_lines_before: Option<u64>,
    /// Lines after each content match (at most 10).
    context_lines_after: Option<u64>,
    /// Skip noise folders (`default_exclude_globs`; default true).
    use_default_excludes: Option<bool>,
}

/// `coder::search`'s names for `search`'s params. `query` is `pattern` or `regex` (a pattern, in
/// coderd) by the `regex` flag: the params set those two themselves.
const SEARCH: Aliases = &[
    ("path", "dir"),
    ("include_globs", "glob"),
    ("exclude_globs", "exclude"),
    ("max_matches", "max_results"),
    ("context_lines_before", "before"),
    ("context_lines_after", "after"),
    ("query", "pattern"),
];

pub fn search(state: &Arc<State>, p: SearchParams) -> Result<Value> {
    let content = p.search_content.unwrap_or(true);
    let paths = p.search_paths.unwrap_or(true);
    if !content && !paths {
        return Err(Error::bad_input(
            "`search_content` and `search_paths` are both false: nothing to search",
        )
        .with_recovery("leave one of them true (both default to true)"));
    }
    if p.query.is_empty() {
        return Err(Error::bad_input("`query` is empty").with_recovery(r#"{"query": "fn main"}"#));
    }
    let base = |target: &str| {
        let mut params = object(&[
            ("path", some(p.path.clone())),
            ("include_globs", some(p.include_globs.clone())),
            ("exclude_globs", some(p.exclude_globs.clone())),
            ("max_matches", some(p.max_matches)),
            ("use_default_excludes", some(p.use_default_excludes)),
            ("context_lines_before", some(p.context_lines_before)),
            ("context_lines_after", some(p.context_lines_after)),
        ]);
        params[if p.regex { "regex" } else { "pattern" }] = json!(p.query);
        params["ignore_case"] = json!(p.ignore_case);
        params["gitignore"] = json!(false);
        params["target"] = json!(target);
        params
    };
    let wire = p.path.clone().unwrap_or_else(|| ".".into());
    let mut out = Map::new();
    let mut truncated = false;
    let mut content_matches = Vec::new();
    if content {
        let answer =
            inner(state, "search", base("content"), SEARCH).map_err(|e| iii_error(&wire, e))?;
        truncated |= answer["truncated"].as_bool().unwrap_or(false);
        for file in answer["files"].as_array().into_iter().flatten() {
            content_matches.extend(content_hits(file));
        }
    }
    let mut path_matches = Vec::new();
    if paths {
        let mut params = base("paths");
        params.as_object_mut().map(|o| {
            o.remove("context_lines_before");
            o.remove("context_lines_after")
        });
        let answer = inner(state, "search", params, SEARCH).map_err(|e| iii_error(&wire, e))?;
        truncated |= answer["truncated"].as_bool().unwrap_or(false);
        for file in answer["files"].as_array().into_iter().flatten() {
            path_matches.push(json!({"path": file["path"]}));
        }
    }
    out.insert("content_matches".into(), Value::Array(content_matches));
    out.insert("path_matches".into(), Value::Array(path_matches));
    out.insert("truncated".into(), json!(truncated));
    Ok(Value::Object(out))
}

/// One file's lines as iii's content matches: each match with its neighbouring context lines.
fn content_hits(file: &Value) -> Vec<Value> {
    let lines: &[Value] = file["lines"].as_array().map_or(&[], Vec::as_slice);
    let number = |l: &Value| l["line"].as_i64().unwrap_or(0);
    let is_match = |l: &Value| l["match"] == json!(true);
    let mut hits = Vec::new();
    for (i, line) in lines.iter().enumerate().filter(|(_, l)| is_match(l)) {
        let at = number(line);
        // Context lines are the non-matching lines right next to this match, in order.
        let mut before: Vec<Value> = lines[..i]
            .iter()
            .rev()
            .enumerate()
            .take_while(|(k, l)| !is_match(l) && number(l) == at - 1 - *k as i64)
            .map(|(_, l)| l["text"].clone())
            .collect();
        before.reverse();
        let after: Vec<Value> = lines[i + 1..]
            .iter()
            .enumerate()
            .take_while(|(k, l)| !is_match(l) && number(l) == at + 1 + *k as i64)
            .map(|(_, l)| l["text"].clone())
            .collect();
        hits.push(json!({
            "path": file["path"],
            "line": at,
            "column": line["column"],
            "text": line["text"],
            "context_before": before,
            "context_after": after,
        }));
    }
    hits
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TreeParams {
    /// The folder at the root of the snapshot (default: the primary root).
    path: Option<String>,
    /// Levels below `path` (default: the config's `tree_default_depth`).
    max_depth: Option<usize>,
    /// Children shown per folder before it is cut (default: `tree_per_folder_limit`).
    per_folder_limit: Option<usize>,
    /// Show noise folders as childless stubs (default true); false looks inside.
    use_default_excludes: Option<bool>,
}

/// `coder::tree`'s names for `tree`'s params.
const TREE: Aliases = &[("path", "dir"), ("max_depth", "depth")];

pub fn tree(state: &Arc<State>, p: TreeParams) -> Result<Value> {
    let wire = p.path.clone().unwrap_or_else(|| ".".into());
    let params = object(&[
        ("path", some(p.path.clone())),
        ("max_depth", some(p.max_depth)),
        ("per_folder_limit", some(p.per_folder_limit)),
        ("use_default_excludes", some(p.use_default_excludes)),
        ("gitignore", Some(json!(false))),
    ]);
    let answer = inner(state, "tree", params, TREE).map_err(|e| jail_error(state, &wire, e))?;
    Ok(json!({
        "path": answer["path"],
        "root": node(&answer["tree"]),
        "truncated": answer["truncated"],
    }))
}

/// A coderd tree node as iii's: `truncated` becomes `{reason, hint}`.
fn node(n: &Value) -> Value {
    let mut out = Map::new();
    for key in ["name", "kind", "size", "non_accessible"] {
        if let Some(v) = n.get(key).filter(|v| !v.is_null()) {
            out.insert(key.into(), v.clone());
        }
    }
    out.entry("non_accessible").or_insert(json!(false));
    if let Some(children) = n.get("children").and_then(Value::as_array) {
        out.insert("children".into(), children.iter().map(node).collect());
    }
    if n["truncated"] == json!(true) {
        let (reason, hint) = match n["reason"].as_str().unwrap_or("") {
            "depth" => (
                "max_depth",
                "deeper than max_depth: call coder::tree on this folder, or raise max_depth",
            ),
            "default_exclude" => (
                "default_exclude",
                "a default_exclude_globs folder: pass use_default_excludes: false to look inside",
            ),
            "per_folder_limit" => (
                "per_folder_limit",
                "more children than per_folder_limit: page through them with coder::list-folder",
            ),
            other => (
                other,
                "cut by a budget: use coder::list-folder on this folder",
            ),
        };
        let mut cut = json!({"reason": reason, "hint": hint});
        if let Some(omitted) = n.get("omitted").filter(|v| !v.is_null()) {
            cut["omitted"] = omitted.clone();
        }
        out.insert("truncated".into(), cut);
    }
    Value::Object(out)
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    /// The folder (default: the primary root).
    path: Option<String>,
    /// The page, from 1 (default 1).
    page: Option<usize>,
    /// Entries per page (default `list_default_page_size`, capped at `list_max_page_size`).
    page_size: Option<usize>,
}

/// `coder::list-folder`'s names for `list-folder`'s params.
const LIST: Aliases = &[("path", "dir")];

pub fn list_folder(state: &Arc<State>, p: ListParams) -> Result<Value> {
    let limits = state.limits();
    let page = p.page.unwrap_or(1).max(1);
    let page_size = p
        .page_size
        .unwrap_or(limits.list_default_page_size)
        .clamp(1, limits.list_max_page_size);
    let wire = p.path.clone().unwrap_or_else(|| ".".into());
    let params = object(&[
        ("path", some(p.path.clone())),
        ("page", Some(json!(page))),
        ("page_size", Some(json!(page_size))),
    ]);
    let answer =
        inner(state, "list-folder", params, LIST).map_err(|e| jail_error(state, &wire, e))?;
    let total = answer["total"].as_u64().unwrap_or(0);
    let entries: Vec<Value> = answer["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            let mut e = e.clone();
            e["non_accessible"] = json!(e["non_accessible"] == json!(true));
            e
        })
        .collect();
    // The entries up to this page's end; past `usize::MAX` the folder has none left either.
    let has_more = page
        .checked_mul(page_size)
        .is_some_and(|shown| (shown as u64) < total);
    Ok(json!({
        "path": answer["path"],
        "entries": entries,
        "page": page,
        "page_size": page_size,
        "total": total,
        "has_more": has_more,
    }))
}
