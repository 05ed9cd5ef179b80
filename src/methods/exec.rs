//! Running things: `exec` and `test` (see `exec`).

use super::{method, Method};

pub fn methods() -> Vec<Method> {
    vec![
        method(
            "exec",
            &[],
            "Run a bash command in a folder of the workspace (parsed and checked per simple command; \
             `dry_run` shows the decision without running).",
            true,
            |s, p| crate::exec::run::run(s, &s.socket, p),
        ),
        method(
            "test",
            &[],
            "Run the project's tests (framework detected from `dir` upward), with a parsed summary \
             for cargo, go and pytest.",
            // Tests are project code: they may change or delete files, so the automatic checkpoint
            // runs first, as for `exec`.
            true,
            |s, p| crate::exec::test::run(s, &s.socket, p),
        ),
    ]
}
