//! `git-branch`: branches with the current one, their commit, upstream and tracking state, read
//! with `for-each-ref` (ref names cannot hold control characters, so one line per ref is exact).

use super::Repo;
use coderd_core::error::Result;
use coderd_core::workspace::Workspace;
use schemars::JsonSchema;
use serde::Deserialize;

const FORMAT: &str = "--format=%(HEAD)%00%(refname)%00%(refname:short)%00%(objectname:short)%00\
%(upstream:short)%00%(upstream:track,nobracket)%00%(symref)%00%(contents:subject)";

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BranchParams {
    /// Folder inside the repository (default: the primary root).
    pub dir: Option<String>,
    /// Remote-tracking branches too.
    #[serde(default)]
    pub all: bool,
}

/// `git-branch`'s answer: the wire's types, shared with clients.
pub use wire::answers::git::{BranchEntry, Branches};

pub fn run(state: &Workspace, p: BranchParams) -> Result<Branches> {
    let repo = Repo::open(state, p.dir.as_deref())?;
    let mut git = repo.git().args(["for-each-ref", FORMAT, "refs/heads"]);
    if p.all {
        git = git.arg("refs/remotes");
    }
    let output = git.run().map_err(|e| repo.error("git-branch", e))?;
    let branches = parse(&output.stdout);
    let mut current = branches.iter().find(|b| b.current).map(|b| b.name.clone());
    let mut detached = false;
    if current.is_none() {
        // No branch is marked: HEAD is detached, or on a branch without commits yet.
        let head = repo
            .git()
            .args(["symbolic-ref", "--quiet", "--short", "HEAD"])
            .output()
            .map_err(|e| repo.error("git-branch", e))?;
        let name = String::from_utf8_lossy(&head.stdout).trim().to_string();
        if head.status.success() && !name.is_empty() {
            current = Some(name);
        } else {
            detached = true;
        }
    }
    Ok(Branches {
        current,
        detached,
        branches,
    })
}

fn parse(bytes: &[u8]) -> Vec<BranchEntry> {
    let text = String::from_utf8_lossy(bytes);
    text.lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split('\0').collect();
            let [head, refname, short, commit, upstream, track, symref, subject] = f[..] else {
                return None;
            };
            if !symref.is_empty() {
                return None; // `origin/HEAD` points at another branch; it is not one itself.
            }
            let (ahead, behind, gone) = tracking(track);
            Some(BranchEntry {
                name: short.to_string(),
                remote: refname.starts_with("refs/remotes/"),
                current: head == "*",
                commit: commit.to_string(),
                upstream: (!upstream.is_empty()).then(|| upstream.to_string()),
                ahead,
                behind,
                gone,
                subject: subject.to_string(),
            })
        })
        .collect()
}

/// `ahead 2, behind 1`, `gone`, or empty.
fn tracking(track: &str) -> (Option<u64>, Option<u64>, bool) {
    let (mut ahead, mut behind) = (None, None);
    for part in track.split(", ") {
        if let Some(n) = part.strip_prefix("ahead ") {
            ahead = n.parse().ok();
        } else if let Some(n) = part.strip_prefix("behind ") {
            behind = n.parse().ok();
        }
    }
    (ahead, behind, track == "gone")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_with_tracking_parse_and_symrefs_are_skipped() {
        let raw = "*\0refs/heads/main\0main\0abc\0origin/main\0ahead 2, behind 1\0\0init\n\
 \0refs/remotes/origin/HEAD\0origin\0abc\0\0\0refs/remotes/origin/main\0init\n\
 \0refs/heads/old\0old\0def\0origin/old\0gone\0\0x\n";
        let b = parse(raw.as_bytes());
        assert_eq!(b.len(), 2);
        assert!(b[0].current && b[0].ahead == Some(2) && b[0].behind == Some(1));
        assert!(b[1].gone && !b[1].current);
    }
}
