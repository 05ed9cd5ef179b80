//! `git-status` and `git-changed`: one `git status --porcelain=v2 -z --branch` parsed into
//! entries with their index and work-tree states. Porcelain v2 with `-z` is the only status
//! format that carries renames and odd names (spaces, newlines, quotes, non-UTF-8) exactly.

use super::command::nul_records;
use super::{Repo, WirePath};
use coderd_core::error::Result;

/// `git-status`'s and `git-changed`'s answers: the wire's types, shared with clients.
pub use wire::answers::git::{Branch, Change, Changed, ChangedFiles, Entry, Status};

/// A porcelain letter's change.
fn change_from_letter(letter: u8) -> Change {
    match letter {
        b'M' => Change::Modified,
        b'T' => Change::TypeChanged,
        b'A' => Change::Added,
        b'D' => Change::Deleted,
        b'R' => Change::Renamed,
        b'C' => Change::Copied,
        b'U' => Change::Unmerged,
        b'?' => Change::Untracked,
        b'!' => Change::Ignored,
        _ => Change::Unmodified,
    }
}

/// Runs and parses `git status` in the repository.
pub fn status(repo: &Repo) -> Result<Status> {
    let output = repo
        .git_without_filters("git-status")?
        .args([
            "status",
            "--porcelain=v2",
            "-z",
            "--branch",
            "--untracked-files=all",
            // A submodule's new commits are listed; its work tree is not entered (git would run
            // `git status` inside it, under its own config and filters).
            "--ignore-submodules=dirty",
            "--",
            ".",
        ])
        .run()
        .map_err(|e| repo.error("git-status", e))?;
    let mut status = parse(&output.stdout);
    for entry in &mut status.entries {
        entry.non_accessible = repo.is_non_accessible(&entry.path.bytes);
    }
    Ok(status)
}

/// Parses porcelain v2 `-z` output. Lines it does not know are skipped (newer git may add some).
pub fn parse(bytes: &[u8]) -> Status {
    let mut branch = Branch::default();
    let mut entries = Vec::new();
    let mut records = nul_records(bytes);
    while let Some(record) = records.next() {
        let fields = |n: usize| record.splitn(n, |b| *b == b' ').collect::<Vec<&[u8]>>();
        match record.first() {
            Some(b'#') => read_header(&mut branch, record),
            Some(b'1') => {
                let f = fields(9);
                if let [_, xy, _, _, _, _, _, _, path] = f[..] {
                    entries.push(entry(xy, path, None));
                }
            }
            Some(b'2') => {
                let f = fields(10);
                if let [_, xy, _, _, _, _, _, _, _, path] = f[..] {
                    let orig = records.next().unwrap_or_default();
                    entries.push(entry(xy, path, Some(orig)));
                }
            }
            Some(b'u') => {
                let f = fields(11);
                if let [_, xy, _, _, _, _, _, _, _, _, path] = f[..] {
                    entries.push(entry(xy, path, None));
                }
            }
            Some(b'?') | Some(b'!') => {
                let letter = &record[..1];
                let xy = [letter, letter].concat();
                entries.push(entry(&xy, &record[2.min(record.len())..], None));
            }
            _ => {}
        }
    }
    let clean = entries.is_empty();
    Status {
        branch,
        entries,
        clean,
    }
}

fn entry(xy: &[u8], path: &[u8], orig: Option<&[u8]>) -> Entry {
    let x = xy.first().copied().unwrap_or(b'.');
    let y = xy.get(1).copied().unwrap_or(b'.');
    let path = WirePath::new(path);
    Entry {
        path_base64: super::path_base64(&path),
        path,
        orig_path: orig.map(WirePath::new),
        code: String::from_utf8_lossy(&[x, y]).into_owned(),
        index: change_from_letter(x),
        worktree: change_from_letter(y),
        non_accessible: false,
    }
}

fn read_header(branch: &mut Branch, record: &[u8]) {
    let text = String::from_utf8_lossy(record);
    let mut words = text.split(' ');
    let (Some("#"), Some(key)) = (words.next(), words.next()) else {
        return;
    };
    let rest: Vec<&str> = words.collect();
    let value = rest.join(" ");
    match key {
        "branch.oid" if value != "(initial)" => branch.oid = Some(value),
        "branch.head" if value == "(detached)" => branch.detached = true,
        "branch.head" => branch.head = Some(value),
        "branch.upstream" => branch.upstream = Some(value),
        "branch.ab" => {
            for part in rest {
                let number = |s: &str| s.parse::<u64>().ok();
                if let Some(n) = part.strip_prefix('+') {
                    branch.ahead = number(n);
                } else if let Some(n) = part.strip_prefix('-') {
                    branch.behind = number(n);
                }
            }
        }
        _ => {}
    }
}

/// `git-changed`: the status entries as a file list, each path once (renames carry their origin).
pub fn changed(repo: &Repo, staged_only: bool) -> Result<ChangedFiles> {
    let status = status(repo)?;
    let files = status
        .entries
        .into_iter()
        .filter(|e| e.index != Change::Ignored)
        .map(|e| Changed {
            path_base64: e.path_base64,
            staged: !matches!(e.index, Change::Unmodified | Change::Untracked),
            unstaged: !matches!(e.worktree, Change::Unmodified | Change::Untracked),
            untracked: e.index == Change::Untracked,
            path: e.path,
            orig_path: e.orig_path,
            code: e.code,
        })
        .filter(|c| !staged_only || c.staged)
        .collect();
    Ok(ChangedFiles { staged_only, files })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn porcelain_v2_renames_odd_names_and_headers_parse() {
        let raw = b"# branch.oid abc\0# branch.head main\0# branch.upstream origin/main\0\
# branch.ab +2 -1\0\
1 .M N... 100644 100644 100644 a b with space\0\
2 RM N... 100644 100644 100644 a b R100 new\nline\0old name\0\
u UU N... 100644 100644 100644 100644 a b c conflict\0\
? caf\xc3\xa9\0? bad\xff\0";
        let status = parse(raw);
        assert_eq!(status.branch.head.as_deref(), Some("main"));
        assert_eq!(status.branch.ahead, Some(2));
        assert_eq!(status.branch.behind, Some(1));
        let paths: Vec<&str> = status
            .entries
            .iter()
            .map(|e| e.path.text.as_str())
            .collect();
        assert_eq!(
            paths,
            ["with space", "new\nline", "conflict", "café", "bad\u{fffd}"]
        );
        assert_eq!(status.entries[1].index, Change::Renamed);
        assert_eq!(
            status.entries[1].orig_path.as_ref().unwrap().text,
            "old name"
        );
        assert_eq!(status.entries[2].index, Change::Unmerged);
        assert!(status.entries[4].path_base64.is_some());
        assert!(status.entries[3].path_base64.is_none());
    }

    #[test]
    fn a_detached_head_and_an_initial_commit_parse() {
        let status = parse(b"# branch.oid (initial)\0# branch.head (detached)\0");
        assert!(status.branch.detached);
        assert!(status.branch.oid.is_none() && status.branch.head.is_none());
        assert!(status.clean);
    }
}
