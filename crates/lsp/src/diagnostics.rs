//! The `diagnostics` method's side of the language servers: the current, settled findings of
//! files, or of a folder's files whose language has servers, without editing.

use super::report::Report;
use super::Lsp;
use coderd_core::error::{Error, Result};
use coderd_core::workspace::Workspace;
use coderd_syntax::languages;
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::PathBuf;

/// Files the `diagnostics` method checks at most for one `dir`.
const MAX_DIR_FILES: usize = 200;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiagnosticsParams {
    /// Files to check.
    #[serde(default)]
    files: Vec<String>,
    /// A folder: its files of languages with servers are checked (at most 200).
    dir: Option<String>,
    /// `symbol`: name on each finding the outline item holding it (`symbol`), to group them by
    /// function, method or class.
    #[serde(default)]
    group_by: Option<GroupBy>,
}

/// How places (`references`) or findings (`diagnostics`) are grouped.
#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    /// By the innermost outline item (function, method, class) that holds each one.
    Symbol,
}

pub fn diagnostics(lsp: &Lsp, state: &Workspace, p: DiagnosticsParams) -> Result<Report> {
    if p.files.is_empty() && p.dir.is_none() {
        return Err(Error::bad_input("`files` or `dir` is required")
            .with_recovery("pass `files: [\"src/main.go\"]` or `dir: \"src\"`"));
    }
    let mut paths = Vec::new();
    for (i, wire) in p.files.iter().enumerate() {
        let field = format!("files[{i}]");
        let resolved = state.jail.resolve(&field, wire)?;
        state
            .jail
            .metadata(&resolved)
            .map_err(|e| e.with_prefix(format_args!("`{field}`: ")))?;
        paths.push(resolved.abs);
    }
    if let Some(dir) = &p.dir {
        let resolved = state.jail.resolve("dir", dir)?;
        paths.extend(files_with_servers(lsp, state, &resolved));
    }
    let mut report = lsp.check(state, &paths);
    if p.group_by == Some(GroupBy::Symbol) {
        name_symbols(state, &mut report);
    }
    Ok(report)
}

/// Names each finding's innermost outline item, from the file's current text (the one the
/// findings are of).
fn name_symbols(state: &Workspace, report: &mut Report) {
    for file in &mut report.files {
        let Some(document) = super::current_document(state, &file.path) else {
            continue;
        };
        let Some(language) = super::language_of(&document) else {
            continue;
        };
        let Some(outline) = coderd_syntax::outline_of(language, &document.bytes()) else {
            continue;
        };
        for item in &mut file.items {
            let line = item.line as usize;
            // The last item holding the line is the innermost: a child follows its parent.
            let holding = (0..outline.items.len()).rev().find(|&i| {
                let it = &outline.items[i];
                (it.line..=it.end_line).contains(&line)
            });
            item.symbol = holding.map(|i| outline.path_of(i));
        }
    }
}

/// The files under a folder whose language has servers, by the jail's walking policy.
fn files_with_servers(
    lsp: &Lsp,
    state: &Workspace,
    dir: &coderd_core::jail::Resolved,
) -> Vec<PathBuf> {
    let registry = lsp.registry();
    state
        .jail
        .walk_builder(dir, true, false)
        .build()
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
        .map(|entry| entry.into_path())
        .filter(|path| {
            state.jail.locate(path).is_some_and(|r| {
                !state.jail.is_non_accessible(&r.rel) && !state.jail.is_default_excluded(&r.rel)
            }) && state.jail.holds_entry(path)
        })
        .filter(|path| {
            languages::for_path(path, None).is_some_and(|l| !registry.for_language(l).is_empty())
        })
        .take(MAX_DIR_FILES)
        .collect()
}
