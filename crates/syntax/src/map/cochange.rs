//! Ties from the repository's history: the files that changed together with a focus file in past
//! commits are what its next change needs (evolutionary coupling), whether or not a name ties them.
//! The commits come from the caller (the git layer reads them, `coderd_git::history`); this module
//! only weighs them, so the same history gives the same ties in every process.

use super::index::FileTags;
use std::collections::HashMap;
use std::sync::Arc;

/// Per file of `files` (sorted by path), how strongly it changed together with the focus files:
/// over the commits that changed a focus file, each other listed file of the commit gets a share
/// that shrinks with how many listed files the commit changed (a commit of two files ties them
/// more than one of twenty), and the sum is over as many such commits as the focus files had, so a
/// file that changed with the focus file every time is near 1 however often that was. Files of the
/// history that are not listed (another language, tests, removed) take no share.
/// `commits` are the repository's recent commits, newest first, each the paths it changed relative
/// to the workspace root (as `FileTags::rel`).
pub fn ties(
    files: &[Arc<FileTags>],
    focus: &[usize],
    commits: &[Vec<String>],
) -> Vec<(usize, f64)> {
    if focus.is_empty() {
        return Vec::new();
    }
    let index: HashMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.rel.as_str(), i))
        .collect();
    let mut strength = vec![0.0; files.len()];
    let mut focus_commits = 0usize;
    let mut listed = Vec::new();
    for commit in commits {
        listed.clear();
        listed.extend(commit.iter().filter_map(|path| index.get(path.as_str())));
        if !listed.iter().any(|f| focus.contains(f)) {
            continue;
        }
        focus_commits += 1;
        listed.sort_unstable();
        listed.dedup();
        if listed.len() < 2 {
            continue;
        }
        let share = ((listed.len() - 1) as f64).powf(-SIZE_EXPONENT);
        for &f in &listed {
            strength[f] += share;
        }
    }
    let total = focus_commits.max(1) as f64;
    strength
        .iter()
        .enumerate()
        .filter(|&(f, s)| *s > 0.0 && !focus.contains(&f))
        .map(|(f, s)| (f, s / total))
        .collect()
}

/// How fast a commit's share falls with its size: 1/(n-1)^this for a commit of n listed files
/// (0.5 over 1 on the tuning repositories: a commit of five files still says a good deal).
const SIZE_EXPONENT: f64 = 0.5;
