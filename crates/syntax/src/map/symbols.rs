//! `symbols`: where is X defined? Definitions across a folder from the map's tag index, matched
//! exactly, then by prefix, then as a fuzzy subsequence (each case-sensitive before insensitive),
//! shorter names and shallower items first, then by path and line.

use crate::Kind;
use coderd_core::error::{Error, Result};
use coderd_core::workspace::Workspace;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const DEFAULT_LIMIT: usize = 50;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SymbolsParams {
    /// The name (or part of it) to find.
    pub query: String,
    /// Only definitions of this kind.
    #[serde(default)]
    pub kind: Option<Kind>,
    /// The folder to search (default: the workspace root).
    #[serde(default)]
    pub dir: Option<String>,
    /// At most this many results (default 50).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Include test files and folders.
    #[serde(default)]
    pub include_tests: bool,
}

#[derive(Serialize)]
pub struct Symbol {
    pub path: String,
    pub line: usize,
    pub end_line: usize,
    pub kind: Kind,
    pub name: String,
    /// The dotted path of its parents (`Server` for `Server.handle`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    pub signature: String,
    /// How it matched: `exact`, `prefix` or `fuzzy`.
    #[serde(rename = "match")]
    pub matched: &'static str,
}

#[derive(Serialize)]
pub struct SymbolsResult {
    pub query: String,
    pub total: usize,
    pub truncated: bool,
    pub results: Vec<Symbol>,
}

/// How well a name matches, best first; `None` for no match.
fn match_class(name: &str, query: &str, query_lower: &str) -> Option<(u8, &'static str)> {
    let lower = name.to_lowercase();
    if name == query {
        Some((0, "exact"))
    } else if lower == query_lower {
        Some((1, "exact"))
    } else if name.starts_with(query) {
        Some((2, "prefix"))
    } else if lower.starts_with(query_lower) {
        Some((3, "prefix"))
    } else if is_subsequence(&lower, query_lower) {
        Some((4, "fuzzy"))
    } else {
        None
    }
}

fn is_subsequence(haystack: &str, needle: &str) -> bool {
    let mut chars = haystack.chars();
    needle.chars().all(|c| chars.any(|h| h == c))
}

pub fn run(state: &Workspace, cache: &super::MapCache, p: SymbolsParams) -> Result<SymbolsResult> {
    let query = p.query.trim().to_owned();
    if query.is_empty() {
        return Err(Error::bad_input("`query` is empty")
            .with_recovery("give a name or part of one, e.g. {\"query\": \"Server\"}"));
    }
    let dir = state.jail.resolve("dir", p.dir.as_deref().unwrap_or("."))?;
    let snapshot = cache.snapshot(state, &dir, p.include_tests)?;
    let query_lower = query.to_lowercase();
    let mut found = Vec::new();
    for (f, file) in snapshot.files.iter().enumerate() {
        for (i, item) in file.tags.outline.items.iter().enumerate() {
            if p.kind.is_some_and(|k| k != item.kind) {
                continue;
            }
            if let Some((class, how)) = match_class(&item.name, &query, &query_lower) {
                let depth = file.item_facts[i].depth as usize;
                found.push((class, item.name.len(), depth, f, i, how));
            }
        }
    }
    // Files are sorted by path, so (file index, item index) orders by path, then position.
    found.sort_by_key(|&(class, len, depth, f, i, _)| (class, len, depth, f, i));
    let total = found.len();
    let limit = p.limit.unwrap_or(DEFAULT_LIMIT).max(1);
    let results = found
        .into_iter()
        .take(limit)
        .map(|(_, _, _, f, i, how)| {
            let file = &snapshot.files[f];
            let outline = &file.tags.outline;
            let item = &outline.items[i];
            Symbol {
                path: file.rel.clone(),
                line: item.line,
                end_line: item.end_line,
                kind: item.kind,
                name: item.name.clone(),
                parent: match item.parent {
                    Some(p) => Some(outline.path_of(p)),
                    None => item.parent_name.clone(),
                },
                signature: item.signature.clone(),
                matched: how,
            }
        })
        .collect();
    Ok(SymbolsResult {
        query,
        total,
        truncated: total > limit,
        results,
    })
}
