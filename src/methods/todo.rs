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
    )
    .answers(wire::answers::Answer::Todo)
    // It writes the session's plan (under the data folder, not the workspace): not read-only,
    // and `--write` replaces the plan; the same call twice leaves the same plan.
    .hints(crate::protocol::keys::Overrides {
        read_only: Some(false),
        idempotent: Some(true),
        ..Default::default()
    })]
}
