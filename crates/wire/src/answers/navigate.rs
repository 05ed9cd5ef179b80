//! The semantic moves' answers (`definition`, `references`, `implementations`,
//! `type-definition`, `hover`, `callers`, `callees`, `rename`): places with their line's text, as the daemon
//! builds them and `coder` renders them (`file:line: text`). Each says which server answered (or
//! `index`, the tag index's match by name) and, when it found nothing, why (`unanswered`): an
//! empty list is never silent.

use super::edit::FileResult;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A place with its line's text (1-based; the end exclusive).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The file, absolute.
    pub path: PathBuf,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (UTF-16 units).
    pub column: u32,
    /// The end's line.
    pub end_line: u32,
    /// The end's column, exclusive.
    pub end_column: u32,
    /// The line's text.
    pub text: String,
}

/// The places a move found.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct Locations {
    /// The server that answered, `index`, or `none`.
    pub source: String,
    /// The name at the position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// How many places.
    pub count: usize,
    /// The places, sorted by file and position.
    pub locations: Vec<Location>,
    /// With `group_by: symbol`: the places by the outline item that holds each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<Group>>,
    /// Why no server answered (no server, a server lacking the capability, still indexing, an
    /// empty answer): present whenever the list is the index's or empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unanswered: Option<String>,
}

/// The places inside one outline item of a file (`references`' `group_by: symbol`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The file.
    pub path: PathBuf,
    /// The item's dotted name (`Server.handle`); empty for places outside every item.
    pub symbol: String,
    /// The item's first line (0 for places outside every item).
    pub line: u32,
    /// The places inside the item.
    pub locations: Vec<Location>,
}

/// `callers` or `callees`: the functions that call the item, or that it calls.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct Calls {
    /// The server that answered, or `none`.
    pub source: String,
    /// The item the calls are of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// How many functions.
    pub count: usize,
    /// The functions, by place.
    pub calls: Vec<Call>,
    /// Why no server answered, or that it found no calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unanswered: Option<String>,
}

/// One calling or called function: its name's place, and each call with its line.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// The function's name.
    pub name: String,
    /// Its file.
    pub path: PathBuf,
    /// Its name's line.
    pub line: u32,
    /// Its name's column.
    pub column: u32,
    /// Each call, with its line: in the caller's file.
    pub sites: Vec<Location>,
}

/// `hover`: the server's text (markdown) at a position.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct Hover {
    /// The server that answered, or `index`.
    pub source: String,
    /// The name at the position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// The text, markdown as the server wrote it.
    pub contents: String,
    /// Why no server answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unanswered: Option<String>,
}

/// `rename`'s answer: the files the server's edit changed, or, with `dry_run`, the unified diff
/// (which `coder` prints as it is) and the server's edits per file.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct Renamed {
    /// The server that answered.
    pub source: String,
    /// The symbol's new name.
    pub new_name: String,
    /// How many files the edit changes.
    pub files_changed: usize,
    /// How many text edits over them.
    pub edits: usize,
    /// The files changed (not with `dry_run`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileResult>,
    /// With `dry_run`: the unified diff of the edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// With `dry_run`: the server's edits per file (LSP ranges, 0-based), for an editor to apply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<serde_json::Value>,
}
