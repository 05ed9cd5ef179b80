//! Ties from the repository's history: the files that changed together with a focus file in past
//! commits are what its next change needs (evolutionary coupling), whether or not a name ties them.
//! The commits come from the caller (the git layer reads them, `coderd_git::history`); this module
//! only weighs them, so the same history gives the same ties in every process.
//!
//! Three rules over the plain count of commits shared with the focus file:
//! - recency: a commit's say halves every `HALF_LIFE` commits back from HEAD, so what changed with
//!   the focus file lately outranks what changed with it years ago;
//! - the folder: a focus file with few commits of its own (new, or rarely changed) borrows the
//!   co-changes of the other files in its folder, fading as its own commits add up;
//! - weighed once per (HEAD, focus files, file set): a warm map with a new question reuses them.

use super::index::FileTags;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

/// The repository's recent commits as the map weighs them, and where the weighed ties are kept.
pub struct History<'a> {
    /// The commit HEAD named when the log was read: ties weighed under another HEAD are not reused.
    pub head: &'a str,
    /// Newest first, each the paths it changed relative to the workspace root (as `FileTags::rel`).
    pub commits: &'a [Vec<String>],
    pub memo: &'a Memo,
}

/// The ties weighed so far, by (HEAD, commits, focus files, file set).
#[derive(Default)]
pub struct Memo(Mutex<HashMap<u64, Arc<Vec<(usize, f64)>>>>);

impl Memo {
    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Vec<(usize, f64)>>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Ties kept at most: a map's focus changes with the agent's task, a few hundred covers a session.
const MEMO_ENTRIES: usize = 256;

impl History<'_> {
    /// `ties` for these files (a snapshot, `fingerprint` naming it), weighed once.
    pub fn ties(&self, files: &[Arc<FileTags>], focus: &[usize], fingerprint: u64) -> Vec<(usize, f64)> {
        let mut hasher = std::hash::DefaultHasher::new();
        (self.head, self.commits.len(), focus, fingerprint).hash(&mut hasher);
        let key = hasher.finish();
        if let Some(ties) = self.memo.held().get(&key) {
            return ties.as_ref().clone();
        }
        let ties = ties(files, focus, self.commits);
        let mut memo = self.memo.held();
        if memo.len() >= MEMO_ENTRIES {
            memo.clear();
        }
        memo.insert(key, Arc::new(ties.clone()));
        ties
    }
}

/// Per file of `files` (sorted by path), how strongly it changed together with the focus files:
/// over the commits that changed a focus file, each other listed file of the commit gets a share
/// that shrinks with how many listed files the commit changed (a commit of two files ties them
/// more than one of twenty) and with the commit's age, and the sum is over the weight of all such
/// commits, so a file that changed with the focus file every time is near 1 however often that
/// was. A focus file with few commits adds its folder's co-changes (`FOLDER`). Files of the history
/// that are not listed (another language, tests, removed) take no share.
pub fn ties(
    files: &[Arc<FileTags>],
    focus: &[usize],
    commits: &[Vec<String>],
) -> Vec<(usize, f64)> {
    if focus.is_empty() {
        return Vec::new();
    }
    let folders: Vec<&str> = focus.iter().map(|&f| folder(&files[f].rel)).collect();
    let mut own = Weighed::new(files.len());
    let mut near = Weighed::new(files.len());
    let mut listed = Vec::new();
    let mut changes = vec![0u32; files.len()];
    let half_life = half_life();
    for (age, commit) in commits.iter().enumerate() {
        listed.clear();
        listed.extend(commit.iter().filter_map(|path| {
            files
                .binary_search_by(|f| f.rel.as_str().cmp(path))
                .ok()
        }));
        listed.sort_unstable();
        listed.dedup();
        for &f in &listed {
            changes[f] += 1;
        }
        let weight = 0.5f64.powf(age as f64 / half_life);
        if listed.iter().any(|f| focus.contains(f)) {
            own.add(&listed, weight);
        } else if listed
            .iter()
            .any(|&f| folders.contains(&folder(&files[f].rel)))
        {
            near.add(&listed, weight);
        }
    }
    // The folder speaks for a focus file as much as `FEW` commits of its own would.
    let borrowed = if (own.commits as f64) < knob("CODERD_TUNE_MAXOWN", 1e9) {
        folder_weight() * few() / (few() + own.commits as f64)
    } else {
        0.0
    };
    let single = if own.commits >= 3 { single() } else { 1.0 };
    let scale = co_scale();
    let prior = prior();
    let mut out: Vec<(usize, f64)> = own
        .strength(1.0)
        .zip(near.strength(borrowed))
        .zip(&own.counts)
        .enumerate()
        .map(|(f, ((a, b), &n))| {
            let s = scale * (if n == 1 { single * a } else { a } + b);
            (f, s * (1.0 + prior * (1.0 + changes[f] as f64).ln()))
        })
        .filter(|&(f, s)| s > 0.0 && !focus.contains(&f))
        .collect();
    let (top, top_x) = (knob("CODERD_TUNE_TOP", 0.0) as usize, knob("CODERD_TUNE_TOPX", 1.0));
    if top > 0 {
        let mut order: Vec<usize> = (0..out.len()).collect();
        order.sort_by(|&a, &b| out[b].1.total_cmp(&out[a].1).then(a.cmp(&b)));
        for &i in order.iter().take(top) {
            out[i].1 *= top_x;
        }
    }
    out
}

/// Commits' shares summed per file, and the weight of the commits summed.
struct Weighed {
    shares: Vec<f64>,
    total: f64,
    commits: usize,
    counts: Vec<u32>,
}

impl Weighed {
    fn new(n: usize) -> Weighed {
        Weighed {
            shares: vec![0.0; n],
            total: 0.0,
            commits: 0,
            counts: vec![0; n],
        }
    }

    /// One commit of `listed` files (sorted, distinct), its say `weight`.
    fn add(&mut self, listed: &[usize], weight: f64) {
        self.commits += 1;
        self.total += weight;
        if listed.len() < 2 {
            return;
        }
        let share = weight * ((listed.len() - 1) as f64).powf(-SIZE_EXPONENT);
        for &f in listed {
            self.shares[f] += share;
            self.counts[f] += 1;
        }
    }

    /// Each file's share of all the commits' weight, times `scale`.
    fn strength(&self, scale: f64) -> impl Iterator<Item = f64> + '_ {
        let total = if self.total > 0.0 { self.total } else { 1.0 };
        self.shares.iter().map(move |s| scale * s / total)
    }
}

/// A file's folder, as the index's relative paths write it (`""` at the top).
fn folder(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// How fast a commit's share falls with its size: 1/(n-1)^this for a commit of n listed files
/// (0.5 over 1 on the tuning repositories: a commit of five files still says a good deal).
const SIZE_EXPONENT: f64 = 0.5;

fn knob(name: &str, default: f64) -> f64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
fn half_life() -> f64 {
    knob("CODERD_TUNE_HALF_LIFE", f64::INFINITY)
}
fn folder_weight() -> f64 {
    knob("CODERD_TUNE_FOLDER", 0.0)
}
fn few() -> f64 {
    knob("CODERD_TUNE_FEW", 2.0)
}
fn single() -> f64 {
    knob("CODERD_TUNE_SINGLE", 1.0)
}
fn co_scale() -> f64 {
    knob("CODERD_TUNE_SCALE", 1.0)
}
fn prior() -> f64 {
    knob("CODERD_TUNE_PRIOR", 0.0)
}
