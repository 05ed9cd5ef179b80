//! Running things: `exec` (a bash command, decided by a parser and named rules, run under process
//! control) and `test` (the project's test command, detected from its files). The safety decision
//! (`parse` → `wrappers` → `rules` → `policy`) is pure: it reads only the command text, the
//! folders involved and the daemon config, so `dry_run` shows exactly what a real run would decide.
//! Running (`process`, `output`, `environment`, `sandbox`) knows nothing about the rules.
//!
//! The crate stands on coderd-core and coderd-syntax (the Bash grammar); it knows no language
//! server, edit, git, method or face. Its sandbox is also where coderd-lsp runs servers.

pub mod environment;
mod output;
mod parse;
pub mod policy;
mod process;
mod rules;
pub mod run;
pub mod sandbox;
mod slots;
pub mod test;
pub mod watchdog;
mod wrappers;

pub use policy::ExecConfig;

/// What `info` says about running commands: the policy in force and the sandbox commands get on
/// this machine (`sandbox.in_force`, or `sandbox.refused` saying why none can be had).
pub fn info(config: &ExecConfig, roots: &[std::path::PathBuf]) -> serde_json::Value {
    serde_json::json!({
        "enabled": config.enabled,
        "max_concurrent": slots::limit(config.max_concurrent),
        "shell": run::shell(),
        "sandbox": sandbox::describe(&config.sandbox, roots),
        "deny": config.deny,
        "allow": config.allow,
        "rules": rules::Rule::BUILT_IN.iter().map(|r| r.name()).collect::<Vec<_>>(),
    })
}
