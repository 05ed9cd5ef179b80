//! The `exec` method: params → decision → (unless `dry_run`) a supervised run.

use super::policy::{self, Decision};
use super::rules::Places;
use crate::error::{Error, Result};
use crate::state::State;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExecParams {
    /// The command, as bash source.
    #[serde(alias = "command")]
    pub cmd: String,
    /// The folder it runs in, inside the workspace (default: the primary root).
    pub dir: Option<String>,
    /// Seconds before the command's process group is stopped (default `exec.default_timeout`).
    pub timeout: Option<u64>,
    /// Decide without running: allowed or refused, the rule, the parsed simple commands.
    #[serde(default)]
    pub dry_run: bool,
    /// Send output as `exec/progress` notifications while the command runs.
    #[serde(default)]
    pub stream: bool,
}

#[derive(Serialize)]
#[serde(untagged)]
pub enum ExecResult {
    Decision(Decision),
}

/// The folder a command runs in, checked through the jail (a directory inside a root).
pub fn working_folder(state: &State, dir: Option<&str>) -> Result<PathBuf> {
    let wire = dir.unwrap_or(".");
    let resolved = state.jail.resolve("dir", wire)?;
    let meta = state.jail.metadata(&resolved)?;
    if !meta.is_dir() {
        return Err(Error::bad_input(format!("`dir`: {wire} is not a folder"))
            .with_recovery("name a folder of the workspace (or leave `dir` out)"));
    }
    Ok(resolved.abs)
}

/// The folders a decision needs.
pub fn places(state: &State, cwd: PathBuf) -> Places {
    Places {
        cwd,
        home: std::env::var_os("HOME").map(PathBuf::from),
        roots: state.jail.roots().iter().map(|r| r.path.clone()).collect(),
    }
}

/// The refusal of a decided command as a C214 naming the rule and the simple command.
pub fn refusal(decision: &Decision) -> Error {
    let first = &decision.refusals[0];
    let rule = first.rule;
    let mut error = Error::refused(format!(
        "refused by rule `{}`: `{}`: {}",
        rule.name(),
        first.command,
        first.reason
    ))
    .with_recovery(rule.recovery())
    .with_data("rule", rule.name())
    .with_data("command", first.command.clone());
    if let Ok(all) = serde_json::to_value(&decision.refusals) {
        error = error.with_data("refusals", all);
    }
    error
}

pub fn run(state: &Arc<State>, params: ExecParams) -> Result<ExecResult> {
    if params.cmd.trim().is_empty() {
        return Err(Error::bad_input("`cmd` is empty").with_recovery("pass the command to run"));
    }
    let limits = state.limits();
    let cwd = working_folder(state, params.dir.as_deref())?;
    let decision = policy::decide(&params.cmd, &places(state, cwd), &limits.exec);
    if params.dry_run {
        return Ok(ExecResult::Decision(decision));
    }
    if !decision.allowed {
        return Err(refusal(&decision));
    }
    Err(Error::refused("running commands is not implemented yet").with_recovery("use dry_run"))
}
