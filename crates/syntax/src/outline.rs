//! `outline`: one file's skeleton from the parse cache, and its rendering as an indented list with
//! line numbers.

use super::cache::ParseMode;
use super::{languages, Item};
use coderd_core::error::{Error, Result};
use coderd_core::workspace::Workspace;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutlineParams {
    /// The file to outline.
    pub file: String,
}

#[derive(Serialize)]
pub struct OutlineResult {
    pub path: String,
    pub language: String,
    pub version: String,
    /// How the tree was obtained: `cached`, `incremental` or `full`.
    pub parse: ParseMode,
    pub parse_errors: usize,
    pub items: Vec<Item>,
}

/// The parts of an outline result the CLI renders, as they arrive on the wire.
pub fn run(state: &Workspace, syntax: &super::Cache, p: OutlineParams) -> Result<OutlineResult> {
    let (parsed, mode) = parse_file(state, syntax, "file", &p.file)?;
    Ok(OutlineResult {
        path: parsed.0.display().to_string(),
        language: parsed.1.language.name.clone(),
        version: parsed.1.version.clone(),
        parse: mode,
        parse_errors: parsed.1.outline.parse_errors,
        items: parsed.1.outline.items.clone(),
    })
}

/// Loads a file through the jail and the documents store and returns its (cached) parse.
pub fn parse_file(
    state: &Workspace,
    syntax: &super::Cache,
    field: &str,
    wire: &str,
) -> Result<((std::path::PathBuf, Arc<super::cache::Parsed>), ParseMode)> {
    let resolved = state.jail.resolve(field, wire)?;
    let limits = state.limits();
    let doc = state.documents.load(
        &state.jail,
        &resolved,
        limits.max_write_bytes,
        limits.documents_max_bytes,
    )?;
    let source = doc.text.to_bytes();
    let projects = super::dialect::Projects::default();
    let language = super::dialect::language_of(&state.jail, &projects, &resolved.abs, &source)
        .ok_or_else(|| unknown_language(field, wire))?;
    let (parsed, mode) = syntax.get(&doc, language).ok_or_else(|| {
        // A language the registry knows whose grammar or queries failed (a grammar that could
        // not be loaded, say) is named with the reason, not listed as unknown.
        match super::queries::of(language) {
            Err(reason) => Error::io(format!("`{field}`: {wire}: {reason}")),
            Ok(_) => unknown_language(field, wire),
        }
    })?;
    Ok(((resolved.abs.clone(), parsed), mode))
}

fn unknown_language(field: &str, wire: &str) -> Error {
    let known: Vec<String> = languages::all()
        .iter()
        .filter(|l| super::queries::available(l))
        .flat_map(|l| l.extensions.iter().map(|e| format!(".{e}")))
        .collect();
    Error::bad_input(format!(
        "`{field}`: {wire} is in no language coderd can outline"
    ))
    .with_recovery(format!(
        "outline a file with one of these extensions: {}; or read it",
        known.join(" ")
    ))
}
