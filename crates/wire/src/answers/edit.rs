//! The edits' answers (`Answer::Edit`): what each edit method reports, built by coderd-edit and
//! rendered by `coder` from these fields. Each method answers with one of these shapes;
//! [`EditAnswer`] is the client's view of any of them.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::path::PathBuf;

/// One file's part of an edit's answer (`write` and `rollback` answer with one alone).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileResult {
    /// The file, as an absolute path.
    pub path: PathBuf,
    /// Its size after the edit.
    pub bytes: u64,
    /// The new version (empty for a deleted file).
    pub version: String,
    /// The documents store's revision of the file.
    pub revision: u64,
    /// Lines added, as `git diff --numstat` counts them.
    pub lines_added: usize,
    /// Lines removed, likewise.
    pub lines_removed: usize,
    /// The file did not exist before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created: bool,
    /// Nothing needed changing: the content already was what the call asked for.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unchanged: bool,
    /// The edit removed the file (a diff to `/dev/null`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deleted: bool,
    /// The `.bak` copy of the old content `write` left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup: Option<PathBuf>,
    /// A dry run (`dry_run`): the unified diff the call would make to the file; nothing was
    /// written, and `version` is the file's current one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// `create-file`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FilesResult {
    /// The files, in the order the call named them.
    pub files: Vec<FileResult>,
}

/// `patch` with `search`/`replace`: the file and how the text was found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Replaced {
    /// The file changed.
    #[serde(flatten)]
    pub file: FileResult,
    /// How the search text matched: `exact`, or the whitespace rule that found it.
    pub matched_with: Cow<'static, str>,
    /// The file already held the replacement and not the search text: nothing was changed.
    pub already_applied: bool,
    /// 1-based line ranges (in the file before the edit) of each replaced region.
    pub lines: Vec<(usize, usize)>,
}

/// `patch`'s answer: a search/replace, or a unified diff over its files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PatchResult {
    /// A search/replace in one file.
    Replace(Replaced),
    /// A unified diff over one or more files.
    Diff {
        /// The files the diff touched.
        files: Vec<FileResult>,
        /// Every hunk was already in place: nothing was changed.
        already_applied: bool,
    },
}

/// `multipatch`'s answer: the files, and each edit's outcome in the order given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MultipatchResult {
    /// The files, in the order the call named them.
    pub files: Vec<FileResult>,
    /// Each edit, in the order given.
    pub edits: Vec<EditOutcome>,
}

/// One `multipatch` edit: where and how its search text matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EditOutcome {
    /// The file the edit was in.
    pub file: PathBuf,
    /// How the search text matched: `exact`, or the whitespace rule that found it.
    pub matched_with: Cow<'static, str>,
    /// The file already held the replacement and not the search text: nothing was changed.
    pub already_applied: bool,
    /// 1-based line ranges (in the file before the edit) of each replaced region.
    pub lines: Vec<(usize, usize)>,
}

/// `replace-symbol`, `insert-symbol`, `delete-symbol`: the item the name resolved to and the file
/// (or, with `dry_run`, the diff the edit would make).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SymbolEdited {
    /// The file changed; none for a dry run.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub file: Option<FileResult>,
    /// The item's dotted path (`Server.handle`), as the outline names it.
    pub symbol: String,
    /// Its lines before the edit, with its doc comment, attributes and decorators (1-based).
    pub lines: (usize, usize),
    /// With `dry_run`: the edit as a unified diff; nothing was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// `update-file`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UpdateResult {
    /// The files, in the order the call named them.
    pub files: Vec<UpdatedFile>,
}

/// One file `update-file` changed, with the windows its ops wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UpdatedFile {
    /// The file changed.
    #[serde(flatten)]
    pub file: FileResult,
    /// Lines in the file after the ops.
    pub new_line_count: usize,
    /// What each op wrote, with context.
    pub echoes: Vec<Echo>,
    /// The echoes were cut to their byte budget.
    pub echoes_truncated: bool,
}

/// A post-apply view of what one `update-file` op wrote, in the new file's numbering.
///
/// For a line op, `start_line..=end_line` is the block of lines the op wrote, and `lines` adds up
/// to 2 lines of context each side. When the op wrote no line (a removal, or empty content) the
/// block is empty: `end_line` is `start_line` minus one and `start_line` is the line after the gap.
/// For a replace op there is one echo per match site (the first 5): `start_line..=end_line` is the
/// site's post-replace region and `lines` holds its first and last line. `elided` counts the
/// lines of the window not shown (the gap in the `line` numbers).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Echo {
    /// Index of the op in `ops`.
    pub op: usize,
    /// Which op wrote it.
    pub kind: EchoKind,
    /// First line the op wrote (or, for an empty block, the line after the gap).
    pub start_line: usize,
    /// Last line the op wrote; `start_line - 1` for an empty block.
    pub end_line: usize,
    /// The echoed lines, in order, each with its line number.
    pub lines: Vec<EchoLine>,
    /// Lines of the window left out of `lines` (windows over 20 lines keep the first and last 8;
    /// replace sites over 2 lines keep the first and last).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elided: Option<usize>,
    /// Replace ops only: how many matches the op replaced in all (sites beyond 5 are not echoed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacements: Option<usize>,
}

/// Which op an echo belongs to (the op's `op` tag).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EchoKind {
    /// `insert`.
    Insert,
    /// `remove`.
    Remove,
    /// `update_lines`.
    UpdateLines,
    /// `replace` (a regex).
    Replace,
}

/// One echoed line of the new file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EchoLine {
    /// 1-based line number in the new file.
    pub line: usize,
    /// The line without its EOL, as UTF-8 (invalid bytes shown as U+FFFD).
    pub text: String,
    /// True when `text` was cut at 1 KiB.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clipped: bool,
}

/// `delete-file`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeleteResult {
    /// The entries, in the order given.
    pub deleted: Vec<Deleted>,
}

/// One entry deleted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Deleted {
    /// The file, as an absolute path.
    pub path: PathBuf,
    /// `file`, `dir` or `symlink`.
    pub kind: Cow<'static, str>,
}

/// `move`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveResult {
    /// The entries, in the order given.
    pub moved: Vec<Moved>,
}

/// One entry moved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Moved {
    /// Where it was.
    pub from: PathBuf,
    /// Where it is.
    pub to: PathBuf,
    /// `rename` within a root; `copy` (then delete) across roots.
    pub how: Cow<'static, str>,
}

/// `clean`'s answer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CleanResult {
    /// Backups coderd wrote under the folder, removed (`force`).
    pub removed: Vec<PathBuf>,
    /// Backups coderd wrote under the folder, removed by `force` (the listing without it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub would_remove: Vec<PathBuf>,
    /// Backups removed (0 without `force`).
    pub count: usize,
    /// `.bak` files under the folder that coderd did not write (or that changed since): kept.
    /// The first of them; `kept_not_ours_total` counts them all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept_not_ours: Vec<PathBuf>,
    /// How many `.bak` files were kept as not coderd's.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub kept_not_ours_total: usize,
    /// Backups coderd wrote whose bytes exist nowhere else and could not be kept in the
    /// checkpoint store (over `checkpoint_max_file_bytes`, or checkpoints off): not removed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept_only_copy: Vec<PathBuf>,
    /// What to do next, when nothing was removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Any edit method's answer, as a client reads it: the shapes tried from the most specific (a
/// shape whose fields are a superset of another's comes first).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum EditAnswer {
    /// `replace-symbol`, `insert-symbol`, `delete-symbol`.
    Symbol(SymbolEdited),
    /// `update-file`.
    Update(UpdateResult),
    /// `multipatch`.
    Multipatch(MultipatchResult),
    /// `patch`.
    Patch(PatchResult),
    /// `create-file`.
    Files(FilesResult),
    /// `write`, `rollback`.
    File(FileResult),
    /// `move`.
    Move(MoveResult),
    /// `delete-file`.
    Delete(DeleteResult),
    /// `clean`.
    Clean(CleanResult),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether a client read an answer as the shape it was written as.
    type Shape = fn(&EditAnswer) -> bool;

    fn file(path: &str) -> FileResult {
        FileResult {
            path: path.into(),
            bytes: 12,
            version: "v1".into(),
            revision: 3,
            lines_added: 2,
            lines_removed: 1,
            created: false,
            unchanged: false,
            deleted: false,
            backup: None,
            diff: None,
        }
    }

    /// Each edit's answer as the daemon writes it (the bytes of the types before they moved here:
    /// field order, skipped fields), and the shape a client reads it back as.
    #[test]
    fn each_edit_answer_keeps_its_bytes_and_reads_back_as_its_shape() {
        let created = FileResult {
            created: true,
            backup: Some("/w/a.rs.bak".into()),
            ..file("/w/a.rs")
        };
        let replaced = Replaced {
            file: file("/w/b.rs"),
            matched_with: "exact".into(),
            already_applied: false,
            lines: vec![(4, 5)],
        };
        let echo = Echo {
            op: 0,
            kind: EchoKind::UpdateLines,
            start_line: 1,
            end_line: 1,
            lines: vec![EchoLine {
                line: 1,
                text: "x".into(),
                clipped: false,
            }],
            elided: None,
            replacements: Some(1),
        };
        let one = r#""path":"/w/b.rs","bytes":12,"version":"v1","revision":3,"lines_added":2,"lines_removed":1"#;
        let cases: Vec<(String, String, Shape)> = vec![
            (
                serde_json::to_string(&SymbolEdited { file: Some(file("/w/b.rs")), symbol: "A.f".into(), lines: (3, 9), diff: None }).unwrap(),
                format!(r#"{{{one},"symbol":"A.f","lines":[3,9]}}"#),
                |a| matches!(a, EditAnswer::Symbol(s) if s.file.is_some() && s.lines == (3, 9)),
            ),
            (
                serde_json::to_string(&SymbolEdited { file: None, symbol: "A.f".into(), lines: (3, 9), diff: Some("-x\n".into()) }).unwrap(),
                r#"{"symbol":"A.f","lines":[3,9],"diff":"-x\n"}"#.into(),
                |a| matches!(a, EditAnswer::Symbol(s) if s.file.is_none() && s.diff.is_some()),
            ),
            (
                serde_json::to_string(&created).unwrap(),
                r#"{"path":"/w/a.rs","bytes":12,"version":"v1","revision":3,"lines_added":2,"lines_removed":1,"created":true,"backup":"/w/a.rs.bak"}"#.into(),
                |a| matches!(a, EditAnswer::File(f) if f.created),
            ),
            (
                serde_json::to_string(&PatchResult::Replace(replaced.clone())).unwrap(),
                format!(r#"{{{one},"matched_with":"exact","already_applied":false,"lines":[[4,5]]}}"#),
                |a| matches!(a, EditAnswer::Patch(PatchResult::Replace(r)) if r.lines == [(4, 5)]),
            ),
            (
                serde_json::to_string(&PatchResult::Diff { files: vec![file("/w/b.rs")], already_applied: true }).unwrap(),
                format!(r#"{{"files":[{{{one}}}],"already_applied":true}}"#),
                |a| matches!(a, EditAnswer::Patch(PatchResult::Diff { already_applied: true, .. })),
            ),
            (
                serde_json::to_string(&MultipatchResult {
                    files: vec![file("/w/b.rs")],
                    edits: vec![EditOutcome { file: "/w/b.rs".into(), matched_with: "indentation".into(), already_applied: false, lines: vec![(1, 1)] }],
                }).unwrap(),
                format!(r#"{{"files":[{{{one}}}],"edits":[{{"file":"/w/b.rs","matched_with":"indentation","already_applied":false,"lines":[[1,1]]}}]}}"#),
                |a| matches!(a, EditAnswer::Multipatch(m) if m.edits[0].matched_with == "indentation"),
            ),
            (
                serde_json::to_string(&UpdateResult {
                    files: vec![UpdatedFile { file: file("/w/b.rs"), new_line_count: 7, echoes: vec![echo.clone()], echoes_truncated: false }],
                }).unwrap(),
                format!(r#"{{"files":[{{{one},"new_line_count":7,"echoes":[{{"op":0,"kind":"update_lines","start_line":1,"end_line":1,"lines":[{{"line":1,"text":"x"}}],"replacements":1}}],"echoes_truncated":false}}]}}"#),
                |a| matches!(a, EditAnswer::Update(u) if u.files[0].echoes[0].replacements == Some(1)),
            ),
            (
                serde_json::to_string(&FilesResult { files: vec![file("/w/b.rs")] }).unwrap(),
                format!(r#"{{"files":[{{{one}}}]}}"#),
                |a| matches!(a, EditAnswer::Files(f) if f.files.len() == 1),
            ),
            (
                serde_json::to_string(&MoveResult { moved: vec![Moved { from: "/w/a".into(), to: "/w/b".into(), how: "rename".into() }] }).unwrap(),
                r#"{"moved":[{"from":"/w/a","to":"/w/b","how":"rename"}]}"#.into(),
                |a| matches!(a, EditAnswer::Move(m) if m.moved[0].how == "rename"),
            ),
            (
                serde_json::to_string(&DeleteResult { deleted: vec![Deleted { path: "/w/d".into(), kind: "dir".into() }] }).unwrap(),
                r#"{"deleted":[{"path":"/w/d","kind":"dir"}]}"#.into(),
                |a| matches!(a, EditAnswer::Delete(d) if d.deleted[0].kind == "dir"),
            ),
            (
                serde_json::to_string(&CleanResult { would_remove: vec!["/w/a.bak".into()], note: Some("pass `force`".into()), ..CleanResult::default() }).unwrap(),
                r#"{"removed":[],"would_remove":["/w/a.bak"],"count":0,"note":"pass `force`"}"#.into(),
                |a| matches!(a, EditAnswer::Clean(c) if c.would_remove.len() == 1),
            ),
        ];
        for (written, expected, shape) in cases {
            assert_eq!(written, expected);
            let read: EditAnswer = serde_json::from_str(&written).unwrap();
            assert!(shape(&read), "{written} read as {read:?}");
        }
    }
}
