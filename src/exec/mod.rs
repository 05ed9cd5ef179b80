//! Running things: `exec` (a bash command, decided by a parser and named rules, run under process
//! control) and `test` (the project's test command, detected from its files). The safety decision
//! (`parse` → `wrappers` → `rules` → `policy`) is pure: it reads only the command text, the
//! folders involved and the daemon config, so `dry_run` shows exactly what a real run would decide.
//! Running (`process`, `output`, `environment`, `sandbox`) knows nothing about the rules.

pub mod environment;
pub mod output;
pub mod parse;
pub mod policy;
pub mod process;
pub mod rules;
pub mod run;
pub mod sandbox;
pub mod test;
pub mod watchdog;
pub mod wrappers;

use crate::methods::{method, Method};
pub use policy::{ExecConfig, SandboxMode};

pub fn methods() -> Vec<Method> {
    vec![method(
        "exec",
        &[],
        "Run a bash command in a folder of the workspace (parsed and checked per simple command; \
         `dry_run` shows the decision without running).",
        true,
        run::run,
    ),
    method(
        "test",
        &[],
        "Run the project's tests (framework detected from `dir` upward), with a parsed summary \
         for cargo, go and pytest.",
        // Tests are project code: they may change or delete files, so the automatic checkpoint
        // runs first, as for `exec`.
        true,
        test::run,
    )]
}

/// What `info` says about running commands: the policy in force and whether the sandbox is
/// enforced on this kernel.
pub fn info(config: &ExecConfig) -> serde_json::Value {
    let abi = sandbox::kernel_abi();
    serde_json::json!({
        "enabled": config.enabled,
        "shell": run::shell(),
        "sandbox": config.sandbox,
        "landlock_abi": abi,
        "sandbox_enforced": config.sandbox == SandboxMode::Landlock && abi.is_some(),
        "deny": config.deny,
        "allow": config.allow,
        "rules": rules::Rule::BUILT_IN.iter().map(|r| r.name()).collect::<Vec<_>>(),
    })
}
