//! Ties from the repository's history: the files that changed together with a focus file in past
//! commits are what its next change needs (evolutionary coupling), whether or not a name ties them.
//! The commits come from the caller (the git layer reads them, `coderd_git::history`); this module
//! only weighs them, so the same history gives the same ties in every process.
//!
//! Beside the plain share of the focus file's commits (docs/benchmarks.md, "The history lever"):
//! - recency: a commit's say halves every `HALF_LIFE` commits back from HEAD, so of two files that
//!   changed with the focus file equally often, the one that did lately is first;
//! - the strongest: the `TOP` files that changed with the focus file most count `TOP_TIMES` more,
//!   so they stand beside the strongest name ties instead of behind them;
//! - weighed once per (HEAD, focus files, file set) (`History::ties`): a warm map pays none of it.

use super::index::FileTags;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, MutexGuard};

/// The repository's recent commits as the map weighs them, and where the weighed ties are kept.
pub struct History<'a> {
    /// The commit HEAD named when the log was read: ties weighed under another HEAD are not reused.
    pub head: &'a str,
    /// Newest first, each the paths it changed relative to the workspace root (as `FileTags::rel`).
    pub commits: &'a [Vec<String>],
    pub memo: &'a Memo,
}

/// Files tied to the focus files, by index, with how strongly.
pub type Ties = Vec<(usize, f64)>;

/// The ties weighed so far, by (HEAD, commits, focus files, file set).
#[derive(Default)]
pub struct Memo(Mutex<HashMap<u64, Ties>>);

/// Ties kept at most: a map's focus follows the agent's task; a few hundred covers a session.
const MEMO_ENTRIES: usize = 256;

impl Memo {
    fn held(&self) -> MutexGuard<'_, HashMap<u64, Ties>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl History<'_> {
    /// `ties` for these files (a snapshot, `fingerprint` naming its paths and versions), weighed
    /// once: the key holds HEAD, so a HEAD that moved weighs them anew even if no file changed.
    pub fn ties(&self, files: &[Arc<FileTags>], focus: &[usize], fingerprint: u64) -> Ties {
        let mut hasher = std::hash::DefaultHasher::new();
        (self.head, self.commits.len(), focus, fingerprint).hash(&mut hasher);
        let key = hasher.finish();
        if let Some(ties) = self.memo.held().get(&key) {
            return ties.clone();
        }
        let ties = ties(files, focus, self.commits);
        let mut memo = self.memo.held();
        if memo.len() >= MEMO_ENTRIES {
            memo.clear();
        }
        memo.insert(key, ties.clone());
        ties
    }
}

/// Per file of `files` (sorted by path), how strongly it changed together with the focus files:
/// over the commits that changed a focus file, each other listed file of the commit gets a share
/// that shrinks with how many listed files the commit changed (a commit of two files ties them
/// more than one of twenty) and with the commit's age, and the sum is over the weight of all such
/// commits, so a file that changed with the focus file every time is near 1 however often that
/// was. Files of the history that are not listed (another language, tests, removed) take no share.
/// `commits` are the repository's recent commits, newest first.
pub fn ties(
    files: &[Arc<FileTags>],
    focus: &[usize],
    commits: &[Vec<String>],
) -> Vec<(usize, f64)> {
    if focus.is_empty() {
        return Vec::new();
    }
    let focus_paths: Vec<&str> = focus.iter().map(|&f| files[f].rel.as_str()).collect();
    let mut own = Weighed::new(files.len());
    let mut listed = Vec::new();
    for (age, commit) in commits.iter().enumerate() {
        // Most commits never touch the focus file: they are passed over without a lookup.
        if !commit.iter().any(|p| focus_paths.contains(&p.as_str())) {
            continue;
        }
        listed.clear();
        listed.extend(
            commit
                .iter()
                .filter_map(|path| files.binary_search_by(|f| f.rel.as_str().cmp(path)).ok()),
        );
        listed.sort_unstable();
        listed.dedup();
        own.add(&listed, 0.5f64.powf(age as f64 / HALF_LIFE));
    }
    let mut ties: Vec<(usize, f64)> = own
        .strength()
        .enumerate()
        .filter(|&(f, s)| s > 0.0 && !focus.contains(&f))
        .collect();
    let mut strongest: Vec<usize> = (0..ties.len()).collect();
    strongest.sort_unstable_by(|&a, &b| ties[b].1.total_cmp(&ties[a].1).then(a.cmp(&b)));
    for &at in strongest.iter().take(TOP) {
        ties[at].1 *= TOP_TIMES;
    }
    ties
}

/// Commits' shares summed per file, and the weight of the commits summed.
struct Weighed {
    shares: Vec<f64>,
    total: f64,
}

impl Weighed {
    fn new(n: usize) -> Weighed {
        Weighed {
            shares: vec![0.0; n],
            total: 0.0,
        }
    }

    /// One commit of `listed` files (sorted, distinct), its say `weight`.
    fn add(&mut self, listed: &[usize], weight: f64) {
        self.total += weight;
        if listed.len() < 2 {
            return;
        }
        let share = weight * ((listed.len() - 1) as f64).powf(-SIZE_EXPONENT);
        for &f in listed {
            self.shares[f] += share;
        }
    }

    /// Each file's share of all the commits' weight.
    fn strength(&self) -> impl Iterator<Item = f64> + '_ {
        let total = if self.total > 0.0 { self.total } else { 1.0 };
        self.shares.iter().map(move |s| s / total)
    }
}

/// How fast a commit's share falls with its size: 1/(n-1)^this for a commit of n listed files
/// (0.5 over 1 on the tuning repositories: a commit of five files still says a good deal).
const SIZE_EXPONENT: f64 = 0.5;
/// Commits back from HEAD after which a commit's say is half: 3,000 (the default window, whose
/// last commit counts half the newest) over 500 and 1,500, which lost on the tuning set, where
/// stronger decay lost more (docs/benchmarks.md): near a tie-breaker between equal counts.
const HALF_LIFE: f64 = 3000.0;
/// The strongest co-changed files and how much more they count: 3 and 3 over 5 and 3, and over
/// none, on the tuning set (docs/benchmarks.md).
const TOP: usize = 3;
const TOP_TIMES: f64 = 3.0;
