//! The map's config: how much of the repository's history its ranking reads (see
//! `coderd_git::history`).

use serde::{Deserialize, Serialize};

/// More history than this costs a log of seconds and says little more about the next change.
pub const MAX_HISTORY_COMMITS: usize = 100_000;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MapConfig {
    /// The last this many commits from HEAD (merges left out) tie files that changed together;
    /// 0 turns the history off (the map ranks by the reference graph alone).
    pub history_commits: usize,
    /// A commit that changed more files than this (a mass rename, a formatting pass, a vendored
    /// update) ties none of them.
    pub history_max_files: usize,
}

impl Default for MapConfig {
    fn default() -> Self {
        MapConfig {
            history_commits: 3000,
            history_max_files: 30,
        }
    }
}
