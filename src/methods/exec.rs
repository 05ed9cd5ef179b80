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
            |s, p| coderd_exec::run::run(s, &s.socket, p),
        )
        .answers(wire::answers::Answer::Command)
        .param_aliases(&[("command", "cmd")])
        // A command may reach the network and anything the sandbox leaves open.
        .hints(crate::protocol::keys::Overrides { open_world: Some(true), ..Default::default() })
        .bare(&["cmd", "dir"])
        // `dry_run` only reports the decision.
        .changes_nothing_when(|exec, params| {
            crate::protocol::keys::canonical(exec, params.clone())
                .is_ok_and(|p| p.get("dry_run") == Some(&serde_json::Value::Bool(true)))
        }),
        method(
            "test",
            &[],
            "Run the project's tests (framework detected from `dir` upward), with a parsed summary \
             for cargo, go and pytest.",
            // Tests are project code: they may change or delete files, so the automatic checkpoint
            // runs first, as for `exec`.
            true,
            |s, p| coderd_exec::test::run(s, &s.socket, p),
        )
        .answers(wire::answers::Answer::Command)
        .param_aliases(&[("path", "dir"), ("directory", "dir")])
        // It runs the project's code, as `exec` runs a command.
        .hints(crate::protocol::keys::Overrides { open_world: Some(true), ..Default::default() })
        // `test sub` tests `sub/`: a bare word says where, as for `tree` or `map`; a name filter
        // is `--pattern`. A word misread as a folder fails C211 naming it, where a misread filter
        // would quietly run no test.
        .bare(&["dir"]),
    ]
}
