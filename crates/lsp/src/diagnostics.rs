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
    Ok(lsp.check(state, &paths))
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
