//! Running things: `exec` (a bash command, decided by a parser and named rules, run under process
//! control) and `test` (the project's test command, detected from its files). The safety decision
//! (`parse` → `wrappers` → `rules` → `policy`) is pure: it reads only the command text, the
//! folders involved and the daemon config, so `dry_run` shows exactly what a real run would decide.
//! Running (`process`, `output`, `environment`, `sandbox`) knows nothing about the rules.

pub mod parse;
pub mod policy;
pub mod rules;
pub mod run;
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
    )]
}
