//! The bounds of what the map holds for a question (`map_max_files`, `map_max_tags`): the tags
//! counted, the listings kept within them, the errors that name them, and a refusal past
//! `map_max_tags` kept until something below its folder changes.

use super::{rel_of, Inner, Listing};
use crate::map::index::FileTags;
use crate::map::watch::Changes;
use coderd_core::error::Error;
use coderd_core::jail::Resolved;
use std::path::PathBuf;
use std::sync::Arc;

/// A question refused past `map_max_tags` after a whole walk, answered again as it was while
/// nothing below its folder changed: asking again would walk and tag up to the limit once more for
/// the same answer. The walk watched every folder it entered, so a change below it ends this, as
/// do a watcher that lost track (a new epoch) and other limits. (Past `map_max_files` the walk
/// stops early, leaving folders unwatched: that refusal is not kept.)
pub(super) struct Refusal {
    question: Question,
    answer: Error,
}

/// What a refusal answered: a folder, with its tests or without, under these limits
/// (`[map_watch_max_folders, map_max_files, map_max_tags]`) and the watcher's epoch.
#[derive(PartialEq)]
pub(super) struct Question {
    pub(super) dir: PathBuf,
    pub(super) include_tests: bool,
    pub(super) limits: [u64; 3],
    pub(super) epoch: u64,
}

impl Inner {
    /// Forgets the refusal kept once anything below its folder changed or the watcher lost track.
    pub(super) fn forget_refusal_after(&mut self, changes: &Changes, broken: bool) {
        let changed = |r: &Refusal| {
            let below = |p: &PathBuf| p.starts_with(&r.question.dir);
            broken || changes.overflow || changes.paths.iter().any(below)
        };
        if self.refused.as_ref().is_some_and(changed) {
            self.refused = None;
        }
    }

    /// The refusal kept, when it answered this very question.
    pub(super) fn refused_again(&self, question: &Question) -> Option<Error> {
        let refusal = self.refused.as_ref().filter(|r| r.question == *question)?;
        tracing::debug!(dir = %question.dir.display(), "map refused again, nothing changed");
        Some(refusal.answer.clone())
    }

    /// Keeps a refusal past `map_max_tags` when the watcher covered the walk behind it throughout.
    pub(super) fn remember(&mut self, question: Question, answer: &Error, cap: u64) {
        let watched = question.epoch == self.watch.epoch() && self.watch.broken(cap).is_none();
        if watched && past_max_tags(answer) {
            let answer = answer.clone();
            self.refused = Some(Refusal { question, answer });
        }
    }
}

impl Listing {
    /// Whether this listing's files are all another's: below its folder, or of the same folder
    /// with no more tags (the later of two alike).
    pub(super) fn within(&self, other: &Listing, later: bool) -> bool {
        match self.dir.abs == other.dir.abs {
            true => self.tags < other.tags || self.tags == other.tags && later,
            false => self.dir.abs.starts_with(&other.dir.abs),
        }
    }

    /// Whether a walk with tests that `refusal` ended may fit without them: past `map_max_files`
    /// it counted the test files, past `map_max_tags` only if it counted test files' tags.
    pub(super) fn may_fit_without_tests(&self, refusal: &Error) -> bool {
        !past_max_tags(refusal) || self.test_tags_counted
    }
}

/// The tags the listings hold together, each file once: a listing within another's counts none.
pub(super) fn together(listings: &[Listing]) -> u64 {
    let counted = |(i, l): &(usize, &Listing)| {
        !(listings.iter().enumerate()).any(|(j, other)| j != *i && l.within(other, j > *i))
    };
    (listings.iter().enumerate())
        .filter(counted)
        .map(|(_, l)| l.tags)
        .sum()
}

/// The tags these files hold (`FileTags::tag_count`).
pub(super) fn tag_count<'a>(files: impl Iterator<Item = &'a Option<Arc<FileTags>>>) -> u64 {
    files.flatten().map(|t| t.tag_count()).sum()
}

/// The limits' config keys: what a refusal names, and what `past_max_tags` reads back from one.
const MAX_FILES: &str = "map_max_files";
const MAX_TAGS: &str = "map_max_tags";

pub(super) fn too_many_tags(dir: &Resolved, max_tags: u64) -> Error {
    let what = format!("{max_tags} tags (outline items and names used)");
    past(
        dir,
        MAX_TAGS,
        &what,
        "every tag in memory (100–350 bytes a tag)",
    )
}

pub(super) fn too_many(dir: &Resolved, max_files: u64) -> Error {
    let what = format!("{max_files} source files");
    past(
        dir,
        MAX_FILES,
        &what,
        "every file's tags in memory (about 2.5 KiB a file)",
    )
}

/// The refusal of a folder holding more than `what`, over the limit `key`, for what the map keeps.
fn past(dir: &Resolved, key: &str, what: &str, keeps: &str) -> Error {
    let shown = match rel_of(dir) {
        rel if rel.is_empty() => ".".to_owned(),
        rel => rel,
    };
    Error::too_large(format!(
        "`{shown}` holds more than {what}, over {key}: the map keeps {keeps}"
    ))
    .with_recovery(format!(
        "map a folder below it (`dir`), or raise {key} in the config (memory grows with it)"
    ))
    .with_data("limit", key)
}

/// Whether an error is a refusal past `map_max_tags`.
pub(super) fn past_max_tags(error: &Error) -> bool {
    error.data.get("limit").and_then(|l| l.as_str()) == Some(MAX_TAGS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn listing(rel: &str, tests: bool, tags: u64) -> Listing {
        let dir = Resolved {
            abs: Path::new("/r").join(rel),
            root: 0,
            rel: rel.into(),
        };
        Listing {
            tags,
            ..Listing::new(&dir, tests)
        }
    }

    /// Listings held together count each file once: one below another's folder counts none, and
    /// of two of the same folder (with tests and without) only the one with more tags counts.
    #[test]
    fn listings_together_count_a_folder_within_another_once() {
        type Held<'a> = &'a [(&'a str, bool, u64)];
        let cases: &[(Held, u64)] = &[
            (&[("", true, 100), ("a", true, 30)], 100),
            (&[("a", true, 30), ("", true, 100)], 100),
            (&[("a", true, 30), ("b", true, 20)], 50),
            (&[("ab", true, 30), ("a", true, 20)], 50),
            (&[("a", false, 30), ("a", true, 40)], 40),
            (&[("a", true, 30), ("a", false, 30)], 30),
            (&[("a", true, 30), ("a/b", true, 10), ("c", false, 5)], 35),
        ];
        for (listings, expected) in cases {
            let held: Vec<Listing> = (listings.iter())
                .map(|&(r, t, n)| listing(r, t, n))
                .collect();
            assert_eq!(together(&held), *expected, "{listings:?}");
        }
    }
}
