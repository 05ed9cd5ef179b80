//! The `test` method: detect the project's test command from the folder upward (`detect`), check
//! it against the exec policy like any command, run it under the same supervision as `exec`, and
//! read a summary from the whole output as it streams (`summary`).

pub mod detect;
pub mod summary;

use super::parse::shell_quote;
use super::policy;
use super::run::{self, Supervised};
use coderd_core::error::{Error, Result};
use coderd_core::workspace::Workspace;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TestParams {
    /// Where to start looking for the project (default: the primary root); the nearest folder
    /// upward with a marker file decides.
    pub dir: Option<String>,
    /// Which tests: a glob of test files (`*_test.go`, `tests/test_*.py`: Go runs the packages
    /// it names, pytest the files), else a filter of test names (`-run`, a cargo filter, `-k`,
    /// `-t`, `--tests`, ...). Go and pytest run only the tests below `dir`.
    pub pattern: Option<String>,
    /// Seconds before the run is stopped (default `exec.test_timeout`, at most `exec.max_timeout`).
    pub timeout: Option<u64>,
    /// Send output as `exec/progress` notifications while the tests run.
    #[serde(default)]
    pub stream: bool,
}

/// `test`'s answer: the wire's type, shared with clients.
pub use wire::answers::command::TestResult;

pub fn run(state: &Workspace, socket: &std::path::Path, params: TestParams) -> Result<TestResult> {
    let limits = state.limits();
    let start = run::working_folder(state, params.dir.as_deref())?;
    let root = state
        .jail
        .roots()
        .iter()
        .map(|r| r.path.clone())
        .filter(|r| start.starts_with(r))
        .max_by_key(|r| r.as_os_str().len())
        .unwrap_or_else(|| start.clone());
    if params
        .pattern
        .as_deref()
        .is_some_and(|p| p.is_empty() || p.starts_with('-'))
    {
        return Err(Error::bad_input("`pattern` is empty or starts with `-`")
            .with_recovery("pass a test name or part of one"));
    }
    let selection = detect::Selection::of(params.pattern.as_deref());
    let mut detected = detect::detect(&start, &root, selection.names()).ok_or_else(|| {
        Error::not_found(format!(
            "no test setup found from {} up to the workspace root",
            start.display()
        ))
        .with_recovery(format!("looked for {}", detect::LOOKED_FOR))
    })?;
    detect::scope(&mut detected, &start, &selection).map_err(|e| {
        Error::bad_input(format!("`pattern`: {e}"))
            .with_recovery("pass a test name, or omit `pattern` to run every test below `dir`")
    })?;
    let timeout = run::timeout(
        params.timeout,
        limits.exec.test_timeout,
        limits.exec.max_timeout,
    )?;
    let shown: Vec<String> = detected.argv.iter().map(|a| shell_quote(a)).collect();
    let places = run::places(state, detected.folder.clone());
    let decision = policy::decide(&shown.join(" "), &places, &limits.exec);
    if !decision.allowed {
        return Err(run::refusal(&decision));
    }
    let mut parser = summary::Parser::for_framework(detected.framework);
    let mut stream = run::ProgressStream::new(params.stream, &limits);
    let job = Supervised {
        program: &detected.argv[0],
        args: detected.argv[1..].iter().map(Into::into).collect(),
        cwd: &detected.folder,
        timeout,
    };
    let report = run::supervise(state, socket, job, &mut |which, bytes| {
        if let Some(parser) = parser.as_mut() {
            parser.feed(bytes);
        }
        stream.push(which, bytes);
    })
    .map_err(|e| match e.code {
        coderd_core::error::Code::Io => e.with_recovery(format!(
            "is `{}` installed and on the daemon's PATH?",
            detected.argv[0]
        )),
        _ => e,
    })?;
    stream.flush();
    let mut report = report;
    report.streamed = stream.active();
    Ok(TestResult {
        framework: detected.framework,
        folder: detected.folder.display().to_string(),
        command: detected.argv,
        run: report,
        summary: parser.map(summary::Parser::finish),
    })
}
