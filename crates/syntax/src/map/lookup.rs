//! Definitions and references by name from the tag index: what `definition`, `references` and
//! `hover` answer (marked `source: "index"`) when no language server does. A definition is an
//! outline item of that exact name; a reference is a whole-word occurrence of the name in a file
//! whose tags refer to it (or define it), so comments and strings count too: it is a name
//! match, not a resolution.

use super::index::Snapshot;
use super::MapCache;
use crate::Kind;
use coderd_core::error::Result;
use coderd_core::jail::Resolved;
use coderd_core::workspace::Workspace;
use std::path::PathBuf;

/// A definition by name.
pub struct Definition {
    pub path: PathBuf,
    pub line: usize,
    pub end_line: usize,
    pub kind: Kind,
    pub signature: String,
    pub doc: Option<String>,
}

/// A whole-word occurrence: 1-based line and column (in characters).
pub struct Occurrence {
    pub path: PathBuf,
    pub line: usize,
    pub column: usize,
    pub text: String,
}

/// The first root's snapshot, tests included: what a lookup reads. A root past `map_max_files` or
/// `map_max_tags` is refused as the map refuses it, but the map's way out (a folder below) is
/// not a lookup's, which reads every file: its error says what is.
fn whole_root(state: &Workspace, cache: &MapCache) -> Result<(Resolved, Snapshot)> {
    let dir = state.jail.resolve("dir", ".")?;
    let snapshot = cache.snapshot(state, &dir, true).map_err(|error| {
        let Some(limit) = error.data.get("limit").and_then(|l| l.as_str()) else {
            return error;
        };
        let recovery = format!(
            "a lookup by name reads the whole root's tag index: raise {limit} in the config \
             (memory grows with it), or set up the file's language server (docs/lsp.md), which \
             answers first"
        );
        error.with_recovery(recovery)
    })?;
    Ok((dir, snapshot))
}

/// Every outline item named exactly `name` under the workspace's first root.
pub fn definitions(state: &Workspace, cache: &MapCache, name: &str) -> Result<Vec<Definition>> {
    let (dir, snapshot) = whole_root(state, cache)?;
    let mut found = Vec::new();
    for file in snapshot.files.iter() {
        for item in file.tags.outline.items.iter().filter(|i| i.name == name) {
            found.push(Definition {
                path: dir.abs.join(&file.rel),
                line: item.line,
                end_line: item.end_line,
                kind: item.kind,
                signature: item.signature.clone(),
                doc: item.doc.clone(),
            });
        }
    }
    Ok(found)
}

/// Every whole-word occurrence of `name` in the files that refer to it or define it.
pub fn references(state: &Workspace, cache: &MapCache, name: &str) -> Result<Vec<Occurrence>> {
    let (dir, snapshot) = whole_root(state, cache)?;
    let limits = state.limits();
    let mut found = Vec::new();
    for file in snapshot.files.iter() {
        let tags = &file.tags;
        let refers = tags
            .references
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .is_ok();
        if !refers && !tags.outline.items.iter().any(|i| i.name == name) {
            continue;
        }
        let Ok(resolved) = state
            .jail
            .resolve("file", &dir.abs.join(&file.rel).to_string_lossy())
        else {
            continue;
        };
        let Ok(document) = state.documents.load(
            &state.jail,
            &resolved,
            limits.max_write_bytes,
            limits.documents_max_bytes,
        ) else {
            continue;
        };
        let text = String::from_utf8_lossy(&document.bytes()).into_owned();
        for (n, line) in text.lines().enumerate() {
            for column in whole_words(line, name) {
                found.push(Occurrence {
                    path: resolved.abs.clone(),
                    line: n + 1,
                    column,
                    text: line.to_string(),
                });
            }
        }
    }
    Ok(found)
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The 1-based character columns where `name` occurs in `line` as a whole word.
fn whole_words(line: &str, name: &str) -> Vec<usize> {
    let mut columns = Vec::new();
    for (at, _) in line.match_indices(name) {
        let before = line[..at].chars().next_back();
        let after = line[at + name.len()..].chars().next();
        if !before.is_some_and(is_word) && !after.is_some_and(is_word) {
            columns.push(line[..at].chars().count() + 1);
        }
    }
    columns
}

/// The identifier at a 1-based character column of a line, if the column is on one.
pub fn word_at(line: &str, column: usize) -> Option<String> {
    let chars: Vec<char> = line.chars().collect();
    let at = column.checked_sub(1)?;
    if !chars.get(at).copied().is_some_and(is_word) {
        return None;
    }
    let start = (0..at)
        .rev()
        .take_while(|&i| is_word(chars[i]))
        .last()
        .unwrap_or(at);
    let end = (at..chars.len())
        .take_while(|&i| is_word(chars[i]))
        .last()?
        + 1;
    Some(chars[start..end].iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_only_and_the_word_under_a_column() {
        assert_eq!(
            whole_words("total(totals, total_x) + total", "total"),
            [1, 26]
        );
        assert_eq!(word_at("let sum = total(x);", 12).as_deref(), Some("total"));
        assert_eq!(word_at("let sum = total(x);", 11).as_deref(), Some("total"));
        assert_eq!(word_at("let sum = total(x);", 16), None);
    }
}
