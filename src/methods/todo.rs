//! Per-session plans: `todo` (see `todo`).

use super::{method, Method};

pub fn methods() -> Vec<Method> {
    vec![method(
        "todo",
        &[],
        "The task plan of a session: --write with todos (replaces it), --mark --id N --status S, \
         --list (default).",
        false,
        |s, p| crate::todo::run(&s.todos, p),
    )]
}
