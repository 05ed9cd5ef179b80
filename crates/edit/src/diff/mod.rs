//! Unified diffs as LLMs write them: parsed leniently, applied as search/replace.
//!
//! Each hunk becomes "context+removed lines → context+added lines", located as whole lines with
//! the same whitespace ladder as `locate` (line content exact, trailing whitespace, indentation,
//! typography). Hunk header numbers only break ties between equal candidates (nearest to the
//! hint plus the offset the previous hunk was found at); hunks may come in any order but must not
//! overlap. Removed lines always have to match; the only context that may be dropped is blank
//! context at the end of a hunk. Context lines are never rewritten: only the removed lines' bytes
//! are spliced, and added lines take the EOL of the line they replace (or follow).
//!
//! Line endings are not part of a diff line (the diff's own CR is stripped), so a LF diff applies
//! to a CRLF file with `matched_with: "exact"`.

mod apply;
mod parse;

pub use apply::plan_file;
pub use parse::{new_file_bytes, parse};

/// One file's part of a diff. A `None` path is `/dev/null` (creation or deletion).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilePatch {
    pub old_path: Option<String>,
    pub new_path: Option<String>,
    pub hunks: Vec<Hunk>,
}

/// A hunk's body; the header's counts are not kept (they are recounted from the body).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    /// The header's old start line (1-based), when it had one.
    pub old_start_hint: Option<usize>,
    pub lines: Vec<HunkLine>,
    pub no_newline_old: bool,
    pub no_newline_new: bool,
}

/// A hunk line's text, without its prefix and newline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HunkLine {
    Context(Vec<u8>),
    Removed(Vec<u8>),
    Added(Vec<u8>),
}

impl HunkLine {
    fn in_old(&self) -> Option<&[u8]> {
        match self {
            HunkLine::Context(t) | HunkLine::Removed(t) => Some(t),
            HunkLine::Added(_) => None,
        }
    }
    fn in_new(&self) -> Option<&[u8]> {
        match self {
            HunkLine::Context(t) | HunkLine::Added(t) => Some(t),
            HunkLine::Removed(_) => None,
        }
    }
}

#[cfg(test)]
mod tests;
