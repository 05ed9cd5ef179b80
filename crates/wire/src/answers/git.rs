//! The git methods' answers (`Answer::GitStatus`, `GitDiff`, `GitLog`, `GitChanged`,
//! `GitBranch`), built by coderd-git and rendered by `coder` from these fields.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A path as git printed it: bytes, shown as UTF-8 (lossy when they are not UTF-8, in which case
/// the answer carries the exact bytes beside it as base64). On the wire it is the text alone, so
/// a client reads back the text's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitPath {
    /// The bytes git printed.
    pub bytes: Vec<u8>,
    /// Those bytes as UTF-8, lossy.
    pub text: String,
}

impl GitPath {
    /// The path of `bytes`.
    pub fn new(bytes: &[u8]) -> GitPath {
        GitPath {
            bytes: bytes.to_vec(),
            text: String::from_utf8_lossy(bytes).into_owned(),
        }
    }
}

impl Serialize for GitPath {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for GitPath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Ok(GitPath {
            bytes: text.as_bytes().to_vec(),
            text,
        })
    }
}

/// What happened to a path on one side (index or work tree), as porcelain's X and Y letters say.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// `.` (or a space)
    Unmodified,
    /// `M`
    Modified,
    /// `T`
    TypeChanged,
    /// `A`
    Added,
    /// `D`
    Deleted,
    /// `R`
    Renamed,
    /// `C`
    Copied,
    /// `U`
    Unmerged,
    /// `?`
    Untracked,
    /// `!`
    Ignored,
}

/// `git-status`'s answer.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Status {
    /// The branch and its upstream.
    pub branch: Branch,
    /// Each changed path.
    pub entries: Vec<Entry>,
    /// Nothing changed.
    pub clean: bool,
}

/// One path of `git-status`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Entry {
    /// The path, relative to the work tree.
    pub path: GitPath,
    /// The path's exact bytes (base64) when they are not UTF-8; `path` is then a lossy rendering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_base64: Option<String>,
    /// The path before a rename or copy (staged renames only: git sees work-tree renames as a
    /// deletion and an untracked file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orig_path: Option<GitPath>,
    /// The two porcelain letters, e.g. `RM` or `??` (`.` for unmodified).
    pub code: String,
    /// The change staged.
    pub index: Change,
    /// The change in the work tree.
    pub worktree: Change,
    /// A secret by the workspace policy: listed, but `git-diff` never shows its content.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub non_accessible: bool,
}

/// The branch `git-status` reports.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Branch {
    /// The current branch; absent when HEAD is detached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// The commit HEAD names; absent before the first commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oid: Option<String>,
    /// HEAD names no branch.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub detached: bool,
    /// The branch it tracks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream: Option<String>,
    /// Commits not in the upstream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ahead: Option<u64>,
    /// Commits of the upstream not here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behind: Option<u64>,
}

/// `git-changed`'s answer.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ChangedFiles {
    /// Only files with staged changes (`--staged`).
    pub staged_only: bool,
    /// Each file once.
    pub files: Vec<Changed>,
}

/// One changed file for `git-changed`: which sides it changed on.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Changed {
    /// The path, relative to the work tree.
    pub path: GitPath,
    /// The exact bytes (base64) when they are not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_base64: Option<String>,
    /// The path before a staged rename or copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orig_path: Option<GitPath>,
    /// The two porcelain letters.
    pub code: String,
    /// Changed in the index.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub staged: bool,
    /// Changed in the work tree.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unstaged: bool,
    /// Not tracked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub untracked: bool,
}

/// `git-diff`'s answer.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Diff {
    /// The index against HEAD (`--staged`), else the work tree against the index.
    pub staged: bool,
    /// Per-file counts.
    pub files: Vec<FileStat>,
    /// The unified diff (lossy UTF-8), cut at `max_output_bytes`.
    pub diff: String,
    /// The diff was cut.
    pub truncated: bool,
    /// Bytes of diff left out after the cut.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub omitted_bytes: u64,
    /// Changed files whose content is not shown: non-accessible by the workspace policy.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub withheld: Vec<GitPath>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One file's counts in `git-diff`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct FileStat {
    /// The path, relative to the work tree.
    pub path: GitPath,
    /// The path before a rename.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orig_path: Option<GitPath>,
    /// Lines added; absent for binary files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added: Option<u64>,
    /// Lines removed; absent for binary files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed: Option<u64>,
    /// A binary file.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub binary: bool,
}

/// `git-log`'s answer.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Log {
    /// The caller asked for one line per commit.
    pub oneline: bool,
    /// Newest first.
    pub commits: Vec<Commit>,
}

/// One commit of `git-log`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Commit {
    /// The full hash.
    pub hash: String,
    /// The abbreviated hash.
    pub short_hash: String,
    /// The author's name.
    pub author: String,
    /// The author's email.
    pub email: String,
    /// Author date, ISO 8601 with its offset.
    pub date: String,
    /// The first line of the message.
    pub subject: String,
}

/// `git-branch`'s answer.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Branches {
    /// The current branch (also before its first commit); absent when HEAD is detached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<String>,
    /// HEAD names no branch.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub detached: bool,
    /// Local branches, then remote ones.
    pub branches: Vec<BranchEntry>,
}

/// One branch of `git-branch`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct BranchEntry {
    /// Its short name.
    pub name: String,
    /// A remote-tracking branch.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub remote: bool,
    /// The branch HEAD names.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub current: bool,
    /// Its commit, abbreviated.
    pub commit: String,
    /// The branch it tracks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream: Option<String>,
    /// Commits not in the upstream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ahead: Option<u64>,
    /// Commits of the upstream not here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behind: Option<u64>,
    /// The upstream branch no longer exists.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gone: bool,
    /// Its commit's subject.
    pub subject: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each git answer as the daemon writes it (the bytes of the types before they moved here),
    /// read back as the same value; a path that is not UTF-8 goes as its lossy text.
    #[test]
    fn each_git_answer_keeps_its_bytes_and_reads_back() {
        fn pinned<T: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(
            answer: T,
            expected: &str,
        ) {
            let text = serde_json::to_string(&answer).unwrap();
            assert_eq!(text, expected);
            assert_eq!(serde_json::from_str::<T>(&text).unwrap(), answer);
        }
        let status = Status {
            branch: Branch {
                head: Some("main".into()),
                upstream: Some("origin/main".into()),
                ahead: Some(1),
                ..Branch::default()
            },
            entries: vec![Entry {
                path: GitPath::new(b"b.rs"),
                path_base64: None,
                orig_path: Some(GitPath::new(b"a.rs")),
                code: "R.".into(),
                index: Change::Renamed,
                worktree: Change::Unmodified,
                non_accessible: false,
            }],
            clean: false,
        };
        pinned(
            status,
            r#"{"branch":{"head":"main","upstream":"origin/main","ahead":1},"entries":[{"path":"b.rs","orig_path":"a.rs","code":"R.","index":"renamed","worktree":"unmodified"}],"clean":false}"#,
        );
        let changed = ChangedFiles {
            staged_only: false,
            files: vec![Changed {
                path: GitPath::new(b"n.txt"),
                path_base64: None,
                orig_path: None,
                code: "??".into(),
                staged: false,
                unstaged: false,
                untracked: true,
            }],
        };
        pinned(
            changed,
            r#"{"staged_only":false,"files":[{"path":"n.txt","code":"??","untracked":true}]}"#,
        );
        let diff = Diff {
            staged: true,
            files: vec![FileStat {
                path: GitPath::new(b"x.bin"),
                orig_path: None,
                added: None,
                removed: None,
                binary: true,
            }],
            diff: "d\n".into(),
            truncated: true,
            omitted_bytes: 9,
            withheld: vec![GitPath::new(b".env")],
        };
        pinned(
            diff,
            r#"{"staged":true,"files":[{"path":"x.bin","binary":true}],"diff":"d\n","truncated":true,"omitted_bytes":9,"withheld":[".env"]}"#,
        );
        let log = Log {
            oneline: true,
            commits: vec![Commit {
                hash: "abc123".into(),
                short_hash: "abc".into(),
                author: "A".into(),
                email: "a@x".into(),
                date: "2026-01-01T00:00:00+00:00".into(),
                subject: "s".into(),
            }],
        };
        pinned(
            log,
            r#"{"oneline":true,"commits":[{"hash":"abc123","short_hash":"abc","author":"A","email":"a@x","date":"2026-01-01T00:00:00+00:00","subject":"s"}]}"#,
        );
        let branches = Branches {
            current: None,
            detached: true,
            branches: vec![BranchEntry {
                name: "origin/main".into(),
                remote: true,
                current: false,
                commit: "abc".into(),
                upstream: Some("x".into()),
                ahead: None,
                behind: Some(2),
                gone: true,
                subject: "s".into(),
            }],
        };
        pinned(
            branches,
            r#"{"detached":true,"branches":[{"name":"origin/main","remote":true,"commit":"abc","upstream":"x","behind":2,"gone":true,"subject":"s"}]}"#,
        );
        let lossy = GitPath::new(b"caf\xe9");
        assert_eq!(serde_json::to_string(&lossy).unwrap(), "\"caf\u{fffd}\"");
    }
}
