//! The git read methods (see `git`).

use super::{method, Method};
use coderd_git::{branch, diff, log, status, ChangedParams, DirParams, Repo};

pub fn methods() -> Vec<Method> {
    vec![
        method(
            "git-status",
            &[],
            "Branch, upstream and every changed path with its index and work-tree state.",
            false,
            |s, p: DirParams| status::status(&Repo::open(s, p.dir.as_deref())?),
        )
        .answers(wire::answers::Answer::GitStatus)
        .bare(&["dir"]),
        method(
            "git-diff",
            &[],
            "The unified diff of pending changes (work tree, or --staged), bounded by max_output_bytes.",
            false,
            |s, p| diff::run(s, p),
        )
        .answers(wire::answers::Answer::GitDiff)
        .param_aliases(&[("path", "file")])
        .bare(&["file", "dir"]),
        method(
            "git-log",
            &[],
            "Recent commits: hash, author, date, subject.",
            false,
            |s, p| log::run(s, p),
        )
        .answers(wire::answers::Answer::GitLog)
        // ChatCLI's `git-log --path`.
        .param_aliases(&[("path", "file")])
        .bare(&["file", "dir"]),
        method(
            "git-changed",
            &[],
            "The changed files, each once (renames with their origin); --staged for the index only.",
            false,
            |s, p: ChangedParams| status::changed(&Repo::open(s, p.dir.as_deref())?, p.staged),
        )
        .answers(wire::answers::Answer::GitChanged)
        .bare(&["dir"]),
        method(
            "git-branch",
            &[],
            "Local branches (--all: and remote ones), the current one, upstreams and tracking.",
            false,
            |s, p| branch::run(s, p),
        )
        .answers(wire::answers::Answer::GitBranch)
        .bare(&["dir"]),
    ]
}
