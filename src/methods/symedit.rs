//! The edits addressed by symbol (`symedit`): `replace-symbol`, `insert-symbol`, `delete-symbol`,
//! and the reference check a delete makes first: the warm language server's references to the
//! item, else whole-word matches in the tag index (`map::lookup`), outside the item itself.

use super::state::State;
use super::{method, Method};
use crate::symedit::{self, DeleteParams, SymbolEdited};
use coderd_core::error::{Error, Result};
use coderd_lsp::navigate::{self, At};
use coderd_syntax::map::lookup;
use coderd_syntax::symbol;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;
use wire::answers::Answer;

/// What agents call the params of every symbol edit.
const ALIASES: &[(&str, &str)] = &[
    ("path", "file"),
    ("filepath", "file"),
    ("file_path", "file"),
    ("name", "symbol"),
    ("name_path", "symbol"),
];

/// And of the two that take content.
const WITH_CONTENT: &[(&str, &str)] = &[
    ("path", "file"),
    ("filepath", "file"),
    ("file_path", "file"),
    ("name", "symbol"),
    ("name_path", "symbol"),
    ("body", "content"),
];

fn dry_run(_: &Method, params: &Value) -> bool {
    params["dry_run"] == true
}

/// Each changes only the file it names and keeps its bytes first (`edit::keep`).
pub fn methods() -> Vec<Method> {
    vec![
        method(
            "replace-symbol",
            &[],
            "Replace an outline item by name (`Server.handle`, `impl Foo.bar`, `name@LINE`): its doc comment, attributes, signature and body, re-indented to its level; refused if the result would not parse (`dry_run`: the diff).",
            true,
            |s, p| symedit::replace(s, p),
        )
        .param_aliases(WITH_CONTENT),
        method(
            "insert-symbol",
            &[],
            "Insert a new item before or after an outline item (by name), at its indentation, with the file's blank lines between items (`dry_run`: the diff).",
            true,
            |s, p| symedit::insert(s, p),
        )
        .param_aliases(WITH_CONTENT)
        // It adds an item; it replaces nothing.
        .hints(crate::protocol::keys::Overrides {
            destructive: Some(false),
            ..Default::default()
        }),
        method(
            "delete-symbol",
            &[],
            "Delete an outline item (by name) with its doc comment, attributes and decorators; refused (C214, listing them) while references to it remain elsewhere, unless `force` (`dry_run`: the diff).",
            true,
            delete,
        )
        .param_aliases(ALIASES),
    ]
    .into_iter()
    .map(|m| {
        m.answers(Answer::Edit)
            .bare(&["file", "symbol"])
            .changes_only_what_it_names()
            .changes_nothing_when(dry_run)
    })
    .collect()
}

fn delete(state: &Arc<State>, p: DeleteParams) -> Result<SymbolEdited> {
    let checked = match p.force {
        true => None,
        false => Some(unreferenced(state, &p)?),
    };
    symedit::delete(state, p, checked)
}

/// The file's version in which nothing outside the item refers to it; C214 listing the places
/// (`file:line`) that do. C214, not C210: the request is sound and the edit could be made, but
/// the daemon declines it by a rule (a delete must not break what uses the item), which `force`
/// overrides.
fn unreferenced(state: &Arc<State>, p: &DeleteParams) -> Result<String> {
    let resolved = state.jail.resolve("file", &p.file)?;
    let document = state.load(&resolved)?;
    let source = document.bytes();
    let (outline, index) = symbol::locate(&state.jail, &resolved.abs, &source, &p.symbol)?;
    let item = &outline.items[index];
    let at = position(&source, item.name_bytes.start);
    let context = json!({"context": {"includeDeclaration": false}});
    let asked = state
        .lsp
        .ask(state, &resolved.abs, at, "textDocument/references", context);
    let (source_name, places): (String, Vec<(PathBuf, usize)>) = match asked {
        Some(answer) => {
            let places = navigate::places(&answer.result);
            let places = places.into_iter().map(|p| (p.path, p.line as usize));
            (answer.server, places.collect())
        }
        None => {
            let found = lookup::references(state, &state.map, &item.name)?;
            let places = found.into_iter().map(|o| (o.path, o.line));
            ("index".into(), places.collect())
        }
    };
    let own = item.extent_line..=item.end_line;
    let mut elsewhere: Vec<String> = places
        .into_iter()
        .filter(|(path, line)| *path != resolved.abs || !own.contains(line))
        // A server may answer a place outside the roots: counted, never named.
        .map(
            |(path, line)| match state.jail.resolve("references", &path.to_string_lossy()) {
                Ok(_) => format!("{}:{line}", path.display()),
                Err(_) => "a file outside what coderd may read".to_string(),
            },
        )
        .collect();
    elsewhere.dedup();
    if elsewhere.is_empty() {
        return Ok(document.version());
    }
    const SHOWN: usize = 20;
    let shown = elsewhere[..elsewhere.len().min(SHOWN)].join(", ");
    Err(Error::refused(format!(
        "`symbol`: {} is still referenced in {} places ({source_name}): {shown}{}; nothing was changed",
        outline.path_of(index),
        elsewhere.len(),
        if elsewhere.len() > SHOWN { ", …" } else { "" },
    ))
    .with_data("references", elsewhere)
    .with_data("source", source_name)
    .with_recovery("change or remove those references first, or pass `force: true` to delete it anyway"))
}

/// The 1-based line and column (UTF-16 units, as LSP counts them) of a byte offset.
fn position(source: &[u8], offset: usize) -> At {
    let before = &source[..offset.min(source.len())];
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    let line = memchr::memchr_iter(b'\n', before).count() + 1;
    let column = String::from_utf8_lossy(&before[line_start..])
        .encode_utf16()
        .count();
    At {
        line: line as u32,
        column: column as u32 + 1,
    }
}
