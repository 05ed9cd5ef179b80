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
            "The most important definitions under a folder, ranked by the reference graph, within a character budget.",
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
/// ties are to the focus files, so a map without focus reads none while answering. History is a
/// signal, not a requirement: a file in no repository, or one git cannot read, is mapped by the
/// graph alone (the reason is logged), and a bad path is the map's own error.
///
/// A map without focus (an agent's first look) reads the history of its folder's repository
/// afterwards, on a thread of its own, so that the first focus question finds it read (at 200,000
/// files the log lists every path of the commit that added them: a few hundred milliseconds). The
/// history is the same whoever reads it, so no answer changes; a focus question asked meanwhile
/// waits for that read instead of running its own.
fn map(s: &Arc<State>, p: MapParams) -> Result<MapResult> {
    if p.focus.is_empty() {
        let dir = p.dir.clone().unwrap_or_else(|| ".".to_owned());
        let result = coderd_syntax::map::run(s, &s.map, p, None);
        if result.is_ok() {
            let s = s.clone();
            let read = move || {
                if let Err(e) = s.history.read(&s, &dir) {
                    tracing::debug!(error = %e.message, "history not read ahead");
                }
            };
            let spawned = std::thread::Builder::new()
                .name("map-history".into())
                .spawn(read);
            if let Err(e) = spawned {
                tracing::debug!(error = %e, "history not read ahead");
            }
        }
        return result;
    }
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
    coderd_syntax::map::run(s, &s.map, p, history)
}
