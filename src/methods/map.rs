//! The structure of a tree: `map` and `symbols` (see `map`).

use super::state::State;
use super::{method, Method};
use coderd_core::error::Result;
use coderd_syntax::map::cochange::History;
use coderd_syntax::map::{MapParams, MapResult};
use std::sync::Arc;

pub fn methods() -> Vec<Method> {
    vec![
        method(
            "map",
            &[],
            "The most important definitions under a folder, ranked by the reference graph, within a character budget; the next files by rank are named after them.",
            false,
            map,
        )
        .answers(wire::answers::Answer::Map)
        .param_aliases(&[("path", "dir"), ("directory", "dir")])
        .bare(&["dir"])
        .heavy(super::always),
        method(
            "symbols",
            &[],
            "Where is X defined? Definitions across the tree by name: exact, prefix, then fuzzy.",
            false,
            |s, p| coderd_syntax::map::symbols::run(s, &s.map, p),
        )
        .answers(wire::answers::Answer::Symbols)
        .bare(&["query", "dir"])
        .heavy(super::always),
    ]
}

/// The map, with the recent history of the repository holding the (first) focus file: its
/// ties are to the focus files, so a map without focus reads none. History is a signal, not a
/// requirement: a file in no repository, or one git cannot read, is mapped by the graph alone (the
/// reason is logged), and a bad path is the map's own error.
fn map(s: &Arc<State>, p: MapParams) -> Result<MapResult> {
    let history = match p.focus.first().map(|focus| s.history.read(s, focus)) {
        Some(Ok(history)) => history,
        Some(Err(e)) => {
            tracing::debug!(error = %e.message, "map without history");
            None
        }
        None => None,
    };
    let history = history.as_ref().map(|h| History {
        head: &h.head,
        commits: &h.commits,
        memo: &s.co_changed,
    });
    // From the first map on, the unsteered question is ranked again after each change, before
    // it is asked (`coderd_syntax::map::ahead`).
    coderd_syntax::map::ahead::keep_ready(s, |s| &s.map);
    coderd_syntax::map::run(s, &s.map, p, history)
}
