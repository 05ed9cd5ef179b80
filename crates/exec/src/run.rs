//! The `exec` method: params → decision → (unless `dry_run`) a supervised run.

use super::policy::{self, Decision};
use super::rules::Places;
use super::{environment, process, sandbox};
use coderd_core::error::{Error, Result};
use coderd_core::workspace::Workspace;
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExecParams {
    /// The command, as bash source.
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

/// `exec`'s answers: the wire's types, shared with clients.
pub use wire::answers::command::{DryRun, ExecResult, RunReport};

/// What to run under supervision: a program and its arguments in a folder.
pub struct Supervised<'a> {
    pub program: &'a str,
    pub args: Vec<std::ffi::OsString>,
    pub cwd: &'a std::path::Path,
    pub timeout: Duration,
}

/// Runs a program with the daemon's process control, environment scrub, output caps and sandbox.
pub fn supervise(
    state: &Workspace,
    socket: &std::path::Path,
    job: Supervised,
    on_output: &mut dyn FnMut(process::Stream, &[u8]),
) -> Result<RunReport> {
    let limits = state.limits();
    let config = &limits.exec;
    let mut env = environment::scrubbed(std::env::vars_os(), &config.env_passthrough);
    let _slot = super::slots::take(super::slots::limit(config.max_concurrent), job.timeout)?;
    let confined = sandbox::prepare(state, socket, &config.sandbox, job.cwd)?;
    if let Some(tmp) = confined.temp_dir() {
        env.retain(|(k, _)| k != "TMPDIR");
        env.push(("TMPDIR".into(), tmp.into()));
    }
    let confinement = match (confined.landlock_child(), &confined.plan) {
        (Some(in_child), _) => process::Confinement::Landlock(in_child),
        (None, Some(plan)) => process::Confinement::Namespaces(plan),
        (None, None) => process::Confinement::None,
    };
    let budget = (limits.max_output_bytes / 2).max(2) as usize;
    let spec = process::Job {
        program: job.program,
        args: job.args,
        cwd: job.cwd,
        env,
        timeout: job.timeout,
        stream_budget: budget,
        confinement,
    };
    let outcome = process::run(&spec, on_output).map_err(|e| {
        match e
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<sandbox::namespaces::SetupError>())
        {
            Some(setup) => {
                Error::refused(format!("the namespace sandbox cannot be set up: {setup}"))
                    .with_recovery(
                        "`info` shows the sandbox in force; `exec.sandbox: off` runs unsandboxed",
                    )
            }
            None => Error::io(format!("starting `{}`: {e}", job.program)),
        }
    })?;
    let planted = confined.remove_planted();
    let masked = (!confined.masked.is_empty()).then(|| {
        format!(
            "{} secret path(s) inside the roots were masked (read as empty) for the command \
             by `non_accessible_globs`",
            confined.masked.len()
        )
    });
    let mut limits_hit = confined.limits_hit();
    let killed_by = limits_hit
        .iter()
        .position(|l| *l == "memory")
        .map(|i| limits_hit.remove(i));
    let removed = (!planted.is_empty()).then(|| {
        let shown: Vec<String> = planted.iter().map(|p| p.display().to_string()).collect();
        format!(
            "removed {} the command created: it would make git read another folder's config \
             and hooks",
            shown.join(", ")
        )
    });
    let note = match (masked, removed) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    };
    Ok(RunReport {
        killed_by: killed_by.map(Into::into),
        limits_hit: limits_hit.into_iter().map(Into::into).collect(),
        exit_code: outcome.exit_code(),
        signal: outcome.signal(),
        timed_out: outcome.timed_out,
        duration_ms: outcome.duration.as_millis() as u64,
        omitted_bytes: outcome.stdout.omitted_bytes + outcome.stderr.omitted_bytes,
        stdout_omitted_bytes: outcome.stdout.omitted_bytes,
        stderr_omitted_bytes: outcome.stderr.omitted_bytes,
        stdout: outcome.stdout.text,
        stderr: outcome.stderr.text,
        background_killed: outcome.background_killed,
        drain_truncated: outcome.drain_truncated,
        sandbox: confined.kind.name().into(),
        masked: confined.masked.iter().take(MASKED_SHOWN).cloned().collect(),
        note,
        streamed: false,
    })
}

/// Masked secrets named in an answer, at most (the note counts them all).
const MASKED_SHOWN: usize = 20;

/// The timeout a request may have: its own (at most `exec.max_timeout`) or the default.
pub fn timeout(requested: Option<u64>, default: u64, max: u64) -> Result<Duration> {
    let seconds = requested.unwrap_or(default);
    if seconds == 0 || seconds > max {
        return Err(Error::bad_input(format!(
            "`timeout`: {seconds} s is outside 1..={max} (the daemon config's `exec.max_timeout`)"
        ))
        .with_recovery(format!("ask for at most {max} seconds")));
    }
    Ok(Duration::from_secs(seconds))
}

/// The shell commands run in.
pub fn shell() -> &'static str {
    if std::path::Path::new("/bin/bash").exists() {
        "/bin/bash"
    } else {
        "/bin/sh"
    }
}

/// The folder a command runs in, checked through the jail (a directory inside a root).
pub fn working_folder(state: &Workspace, dir: Option<&str>) -> Result<PathBuf> {
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
pub fn places(state: &Workspace, cwd: PathBuf) -> Places {
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

pub fn run(state: &Workspace, socket: &std::path::Path, params: ExecParams) -> Result<ExecResult> {
    if params.cmd.trim().is_empty() {
        return Err(Error::bad_input("`cmd` is empty").with_recovery("pass the command to run"));
    }
    let limits = state.limits();
    let cwd = working_folder(state, params.dir.as_deref())?;
    let decision = policy::decide(&params.cmd, &places(state, cwd), &limits.exec);
    if params.dry_run {
        let roots: Vec<PathBuf> = state.jail.roots().iter().map(|r| r.path.clone()).collect();
        let sandbox = sandbox::describe(&limits.exec.sandbox, &roots);
        return Ok(ExecResult::Decision(decision.dry_run(sandbox)));
    }
    if !decision.allowed {
        return Err(refusal(&decision));
    }
    let timeout = timeout(
        params.timeout,
        limits.exec.default_timeout,
        limits.exec.max_timeout,
    )?;
    let cwd = working_folder(state, params.dir.as_deref())?;
    let job = Supervised {
        program: shell(),
        args: vec!["-c".into(), params.cmd.clone().into()],
        cwd: &cwd,
        timeout,
    };
    let mut stream = ProgressStream::new(params.stream, &limits);
    let report = supervise(state, socket, job, &mut |which, bytes| {
        stream.push(which, bytes)
    });
    stream.flush();
    report.map(|mut report| {
        report.streamed = stream.active();
        ExecResult::Ran(report)
    })
}

/// Output sent to the client while a command runs, as `exec/progress` notifications: batched,
/// at most ten a second, and no more bytes in total than `max_output_bytes` (the rest is in the
/// result's head and tail). Best-effort: a client that does not read fast enough misses some.
pub struct ProgressStream {
    progress: Option<coderd_core::request::Progress>,
    pending: Vec<(process::Stream, Vec<u8>)>,
    pending_bytes: usize,
    sent_bytes: u64,
    budget: u64,
    last_sent: std::time::Instant,
}

/// Time between two progress notifications.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

impl ProgressStream {
    pub fn new(enabled: bool, limits: &coderd_core::config::Limits) -> ProgressStream {
        ProgressStream {
            progress: enabled.then(coderd_core::request::current).flatten(),
            pending: Vec::new(),
            pending_bytes: 0,
            sent_bytes: 0,
            budget: limits.max_output_bytes,
            last_sent: std::time::Instant::now(),
        }
    }

    pub fn push(&mut self, which: process::Stream, bytes: &[u8]) {
        if self.progress.is_none() || self.sent_bytes + self.pending_bytes as u64 >= self.budget {
            return;
        }
        let room = (self.budget - self.sent_bytes - self.pending_bytes as u64) as usize;
        let bytes = &bytes[..bytes.len().min(room)];
        match self.pending.last_mut() {
            Some((last, buffer)) if *last == which => buffer.extend_from_slice(bytes),
            _ => self.pending.push((which, bytes.to_vec())),
        }
        self.pending_bytes += bytes.len();
        if self.last_sent.elapsed() >= PROGRESS_INTERVAL {
            self.flush();
        }
    }

    /// Whether notifications are being sent (the client asked and the server gave a channel).
    pub fn active(&self) -> bool {
        self.progress.is_some()
    }

    pub fn flush(&mut self) {
        let Some(progress) = &self.progress else {
            return;
        };
        for (which, bytes) in self.pending.drain(..) {
            let stream = match which {
                process::Stream::Stdout => "stdout",
                process::Stream::Stderr => "stderr",
            };
            let text = String::from_utf8_lossy(&bytes);
            progress.notify(
                "exec/progress",
                serde_json::json!({"stream": stream, "text": text}),
            );
        }
        self.sent_bytes += self.pending_bytes as u64;
        self.pending_bytes = 0;
        self.last_sent = std::time::Instant::now();
    }
}
