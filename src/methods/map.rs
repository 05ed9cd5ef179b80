//! The structure of a tree: `map` and `symbols` (see `map`).

use super::{method, Method};

pub fn methods() -> Vec<Method> {
    vec![
        method(
            "map",
            &[],
            "The most important definitions under a folder, ranked by the reference graph, within a character budget.",
            false,
            |s, p| coderd_syntax::map::run(s, &s.map, p),
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
