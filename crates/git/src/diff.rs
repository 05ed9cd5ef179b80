//! `git-diff`: the unified diff of pending changes, bounded by `max_output_bytes`, plus a per-file
//! summary (`--numstat`). Files that are secrets by the workspace policy are named in `withheld`
//! and excluded from the text: a diff would otherwise print their content.

use super::command::nul_records;
use super::{Repo, WirePath};
use coderd_core::error::Result;
use coderd_core::workspace::Workspace;
use schemars::JsonSchema;
use serde::Deserialize;
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffParams {
    /// Folder inside the repository (default: the primary root).
    pub dir: Option<String>,
    /// Only this file (inside the jail).
    pub file: Option<String>,
    /// The staged changes (index against HEAD) instead of the work tree's.
    #[serde(default)]
    pub staged: bool,
    /// Lines of context around each change (default 3).
    pub context: Option<u32>,
}

/// `git-diff`'s answer: the wire's types, shared with clients.
pub use wire::answers::git::{Diff, FileStat};

pub fn run(state: &Workspace, p: DiffParams) -> Result<Diff> {
    let repo = Repo::open(state, p.dir.as_deref())?;
    let mut pathspec: Vec<OsString> = Vec::new();
    if let Some(file) = &p.file {
        let resolved = state.jail.resolve("file", file)?;
        let rel = pathdiff(&resolved.rel, &repo.dir.rel);
        pathspec.push(magic("literal", rel.as_os_str().as_bytes()));
    }
    let base = |git: super::command::Git| {
        // Submodules are compared by commit only: a dirty check would run git inside them.
        let git = git.args([
            "diff",
            "--relative",
            "-M",
            "--no-color",
            "--ignore-submodules=dirty",
        ]);
        if p.staged {
            git.arg("--cached")
        } else {
            git
        }
    };
    let numstat = base(repo.git_without_filters("git-diff")?)
        .args(["--numstat", "-z", "--"])
        .args(&pathspec)
        .run()
        .map_err(|e| repo.error("git-diff", e))?;
    let files = parse_numstat(&numstat.stdout);
    let withheld: Vec<WirePath> = files
        .iter()
        .flat_map(|f| std::iter::once(&f.path).chain(f.orig_path.as_ref()))
        .filter(|path| repo.is_non_accessible(&path.bytes))
        .cloned()
        .collect();
    // Excluded by their exact bytes: a lossy rendering of a name that is not UTF-8 would
    // name no file, and the secret would be in the diff.
    for path in &withheld {
        pathspec.push(magic("exclude,literal", &path.bytes));
    }
    let cap = state.limits().max_output_bytes as usize;
    let patch = base(repo.git_without_filters("git-diff")?)
        .args(["--no-ext-diff", "--no-textconv"])
        .arg(format!("--unified={}", p.context.unwrap_or(3)))
        .arg("--")
        .args(&pathspec)
        .stdout_cap(cap)
        .run()
        .map_err(|e| repo.error("git-diff", e))?;
    Ok(Diff {
        staged: p.staged,
        files,
        diff: String::from_utf8_lossy(&patch.stdout).into_owned(),
        truncated: patch.omitted > 0,
        omitted_bytes: patch.omitted,
        withheld,
    })
}

/// A pathspec with magic (`:(literal)name`), the name as its exact bytes.
fn magic(words: &str, name: &[u8]) -> OsString {
    let mut spec = format!(":({words})").into_bytes();
    spec.extend_from_slice(name);
    OsString::from_vec(spec)
}

/// `path` relative to `base` (both root-relative; `base` is an ancestor or the paths diverge).
fn pathdiff(path: &std::path::Path, base: &std::path::Path) -> std::path::PathBuf {
    if let Ok(inside) = path.strip_prefix(base) {
        return inside.to_path_buf();
    }
    let ups = base.components().count();
    let mut out = std::path::PathBuf::new();
    for _ in 0..ups {
        out.push("..");
    }
    out.join(path)
}

/// `--numstat -z`: `added\tremoved\tpath\0`, or for a rename `added\tremoved\t\0old\0new\0`;
/// `-\t-\t` marks a binary file.
fn parse_numstat(bytes: &[u8]) -> Vec<FileStat> {
    let mut files = Vec::new();
    let mut records = nul_records(bytes);
    while let Some(record) = records.next() {
        let mut parts = record.splitn(3, |b| *b == b'\t');
        let (Some(added), Some(removed), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let number = |s: &[u8]| std::str::from_utf8(s).ok()?.parse::<u64>().ok();
        let (path, orig_path) = if path.is_empty() {
            let orig = records.next().unwrap_or_default();
            let new = records.next().unwrap_or_default();
            (WirePath::new(new), Some(WirePath::new(orig)))
        } else {
            (WirePath::new(path), None)
        };
        files.push(FileStat {
            path,
            orig_path,
            added: number(added),
            removed: number(removed),
            binary: added == b"-",
        });
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numstat_with_renames_and_binaries_parses() {
        let files = parse_numstat(b"1\t2\ta b\0-\t-\tbin\0\x30\t0\t\0old\0new\0");
        assert_eq!(files.len(), 3);
        assert_eq!(files[0].path.text, "a b");
        assert_eq!((files[0].added, files[0].removed), (Some(1), Some(2)));
        assert!(files[1].binary && files[1].added.is_none());
        assert_eq!(files[2].path.text, "new");
        assert_eq!(files[2].orig_path.as_ref().unwrap().text, "old");
    }

    #[test]
    fn relative_paths_climb_out_of_the_base() {
        use std::path::Path;
        assert_eq!(pathdiff(Path::new("a/b"), Path::new("a")), Path::new("b"));
        assert_eq!(
            pathdiff(Path::new("c"), Path::new("a/b")),
            Path::new("../../c")
        );
    }
}
