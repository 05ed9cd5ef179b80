//! `git-log`: recent commits as records (hash, author, date, subject), read with a NUL-separated
//! format so no subject or name can break the parse.

use super::command::nul_records;
use super::Repo;
use coderd_core::error::{Error, Result};
use coderd_core::workspace::Workspace;
use schemars::JsonSchema;
use serde::Deserialize;

const DEFAULT_LIMIT: usize = 10;
const MAX_LIMIT: usize = 10_000;
/// Fields per commit in `FORMAT`.
const FIELDS: usize = 6;
const FORMAT: &str = "--format=%H%x00%h%x00%an%x00%ae%x00%aI%x00%s";

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogParams {
    /// Folder inside the repository (default: the primary root).
    pub dir: Option<String>,
    /// Compact rendering, one line per commit (the result is the same).
    #[serde(default)]
    pub oneline: bool,
    /// How many commits, newest first (default 10).
    pub limit: Option<usize>,
    /// Only commits that touched this file.
    pub file: Option<String>,
}

/// `git-log`'s answer: the wire's types, shared with clients.
pub use wire::answers::git::{Commit, Log};

pub fn run(state: &Workspace, p: LogParams) -> Result<Log> {
    let limit = p.limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(Error::bad_input(format!(
            "`limit` must be between 1 and {MAX_LIMIT}, got {limit}"
        ))
        .with_recovery("ask for fewer commits"));
    }
    let repo = Repo::open(state, p.dir.as_deref())?;
    let mut git = repo
        .git()
        .args(["log", "-z", "--no-color", FORMAT])
        .arg(format!("--max-count={limit}"));
    if let Some(file) = &p.file {
        let resolved = state.jail.resolve("file", file)?;
        git = git.arg("--").arg(&resolved.abs);
    }
    let output = git.output().map_err(|e| repo.error("git-log", e))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        // A repository without commits has an empty history, not a failure.
        if stderr.contains("does not have any commits") {
            return Ok(Log {
                oneline: p.oneline,
                commits: Vec::new(),
            });
        }
        return Err(repo.error(
            "git-log",
            super::command::GitError::Failed {
                code: output.status.code(),
                stderr: super::command::first_lines(&output.stderr),
            },
        ));
    }
    Ok(Log {
        oneline: p.oneline,
        commits: parse(&output.stdout),
    })
}

fn parse(bytes: &[u8]) -> Vec<Commit> {
    let fields: Vec<String> = nul_records(bytes)
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect();
    fields
        .chunks_exact(FIELDS)
        .map(|c| Commit {
            hash: c[0].trim_start_matches('\n').to_string(),
            short_hash: c[1].clone(),
            author: c[2].clone(),
            email: c[3].clone(),
            date: c[4].clone(),
            subject: c[5].clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn records_of_six_fields_become_commits() {
        let commits = super::parse(
            b"aaa\0a\0Ann\0a@x\x002026-01-01T00:00:00+00:00\0fix: it\0bbb\0b\0Bo\0b@x\0d\0s\0",
        );
        assert_eq!(commits.len(), 2);
        assert_eq!(commits[0].subject, "fix: it");
        assert_eq!(commits[1].hash, "bbb");
    }
}
