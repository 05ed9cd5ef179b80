//! Commands' answers (`Answer::Command`): `exec`'s run or `dry_run` decision and `test`'s run,
//! built by coderd-exec and rendered by `coder` from these fields.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// How a supervised run ended, as the wire shows it (`exec`'s answer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// The command's exit status; `None` when a signal ended it.
    pub exit_code: Option<i32>,
    /// The signal that ended it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// The timeout ended it.
    pub timed_out: bool,
    /// How long it ran.
    pub duration_ms: u64,
    /// Its standard output (head and tail when over the budget).
    pub stdout: String,
    /// Its standard error, likewise.
    pub stderr: String,
    /// Bytes of output (both streams) left out between the head and the tail.
    pub omitted_bytes: u64,
    /// Of those, standard output's.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stdout_omitted_bytes: u64,
    /// Of those, standard error's.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stderr_omitted_bytes: u64,
    /// Processes the command left in the background holding its output were ended.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub background_killed: bool,
    /// Output pipes still open after the final bounded read were dropped.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub drain_truncated: bool,
    /// The sandbox that ran it: `namespaces`, `landlock` or `off`.
    pub sandbox: Cow<'static, str>,
    /// Secrets inside the roots (by `non_accessible_globs`) the command saw empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub masked: Vec<String>,
    /// What the sandbox did that the output may show (secrets read as empty files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The limit of `exec.sandbox.limits` that ended the run: `memory` (the kernel's
    /// out-of-memory killer ran in the run's control group).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub killed_by: Option<Cow<'static, str>>,
    /// Limits the run reached without being ended by them (`pids`: a fork was refused).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub limits_hit: Vec<Cow<'static, str>>,
    /// The output was also sent as `exec/progress` notifications (the CLI then does not repeat it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub streamed: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// An `exec` `dry_run` answer: the decision, and the sandbox the command would run in (the mode
/// in force and where it could write).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DryRun {
    /// Whether it would run.
    pub allowed: bool,
    /// The first refusal's rule, when refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<Cow<'static, str>>,
    /// Every refusal, in source order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refusals: Vec<Refusal>,
    /// Every simple command it could run.
    pub commands: Vec<ParsedCommand>,
    /// The sandbox's description (as `info` shows it).
    pub sandbox: serde_json::Value,
}

/// A refused simple command: which rule, which command, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Refusal {
    /// The rule's name (`recursive-delete`, `config-deny`, ...).
    pub rule: Cow<'static, str>,
    /// The simple command as parsed (its argv joined), or the source near a parse error.
    pub command: String,
    /// Why.
    pub reason: String,
}

/// One parsed simple command as `dry_run` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParsedCommand {
    /// Its words.
    pub argv: Vec<String>,
    /// The wrappers or shell strings it was found through (`sudo`, `bash -c`, `find -exec`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub via: Vec<String>,
}

/// `exec`'s answer: the decision (`dry_run`), or the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ExecResult {
    /// `dry_run`: what would happen.
    Decision(DryRun),
    /// The command ran.
    Ran(RunReport),
}

/// `test`'s answer: the detected command and its run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    /// The framework detected.
    pub framework: Framework,
    /// The command run, as argv.
    pub command: Vec<String>,
    /// The folder it ran in.
    pub folder: String,
    /// How it ended.
    #[serde(flatten)]
    pub run: RunReport,
    /// Passed, failed, skipped and the failing tests (cargo, go and pytest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
}

/// Test frameworks by the name the result reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Framework {
    /// `go test`.
    Go,
    /// `cargo test`.
    Cargo,
    /// `pytest`.
    Pytest,
    /// `npm test`.
    Npm,
    /// `pnpm test`.
    Pnpm,
    /// `yarn test`.
    Yarn,
    /// `bun test`.
    Bun,
    /// `mvn test`.
    Maven,
    /// `gradle test`.
    Gradle,
    /// `make test`.
    Make,
    /// `dotnet test`.
    Dotnet,
    /// `mix test`.
    Mix,
    /// `rspec`.
    Rspec,
}

/// The tests' counts and the failing ones, parsed from the output.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Summary {
    /// Tests passed.
    pub passed: u64,
    /// Tests failed.
    pub failed: u64,
    /// Tests skipped or ignored.
    pub skipped: u64,
    /// The failing tests (the first 50).
    pub failures: Vec<Failure>,
}

/// One failing test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// Its name as the framework prints it.
    pub name: String,
    /// The first lines that say why it failed.
    pub lines: Vec<String>,
}

/// Whether a command's answer (`Answer::Command`: `exec`'s or `test`'s) reports a failed run: an
/// exit code other than 0, a signal, or the timeout. A decision (`dry_run`) is no failure. The
/// one rule every face reads: MCP's `isError`, the `tool` envelope's `failed`, the exit status of
/// `coder` as ChatCLI's plugin.
pub fn failed(answer: &serde_json::Value) -> bool {
    answer["exit_code"].as_i64().is_some_and(|code| code != 0)
        || !answer["signal"].is_null()
        || answer["timed_out"] == true
}

/// Any command's answer, as a client reads it (`test`'s first: it carries a run's fields too).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum CommandAnswer {
    /// `test`.
    Test(TestResult),
    /// `exec`, run or decided.
    Exec(ExecResult),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run() -> RunReport {
        RunReport {
            exit_code: Some(0),
            signal: None,
            timed_out: false,
            duration_ms: 5,
            stdout: "ok\n".into(),
            stderr: String::new(),
            omitted_bytes: 3,
            stdout_omitted_bytes: 3,
            stderr_omitted_bytes: 0,
            background_killed: false,
            drain_truncated: false,
            sandbox: "namespaces".into(),
            masked: vec![],
            note: None,
            killed_by: Some("memory".into()),
            limits_hit: vec!["pids".into()],
            streamed: false,
        }
    }

    /// Each command's answer as the daemon writes it (the bytes of the types before they moved
    /// here: field order, skipped fields, the flattened decision and run), read back as its shape.
    #[test]
    fn each_command_answer_keeps_its_bytes_and_reads_back_as_its_shape() {
        let ran = r#""exit_code":0,"timed_out":false,"duration_ms":5,"stdout":"ok\n","stderr":"","omitted_bytes":3,"stdout_omitted_bytes":3,"sandbox":"namespaces","killed_by":"memory","limits_hit":["pids"]"#;
        let exec = ExecResult::Ran(run());
        let text = serde_json::to_string(&exec).unwrap();
        assert_eq!(text, format!("{{{ran}}}"));
        let back: CommandAnswer = serde_json::from_str(&text).unwrap();
        assert_eq!(back, CommandAnswer::Exec(exec));

        let test = TestResult {
            framework: Framework::Cargo,
            command: vec!["cargo".into(), "test".into()],
            folder: "/w".into(),
            run: run(),
            summary: Some(Summary {
                passed: 1,
                failed: 1,
                skipped: 0,
                failures: vec![Failure {
                    name: "a::b".into(),
                    lines: vec!["panicked".into()],
                }],
            }),
        };
        let text = serde_json::to_string(&test).unwrap();
        assert_eq!(
            text,
            format!(
                r#"{{"framework":"cargo","command":["cargo","test"],"folder":"/w",{ran},"summary":{{"passed":1,"failed":1,"skipped":0,"failures":[{{"name":"a::b","lines":["panicked"]}}]}}}}"#
            )
        );
        let back: CommandAnswer = serde_json::from_str(&text).unwrap();
        assert_eq!(back, CommandAnswer::Test(test));

        let decision = ExecResult::Decision(DryRun {
            allowed: false,
            rule: Some("config-deny".into()),
            refusals: vec![Refusal {
                rule: "config-deny".into(),
                command: "rm x".into(),
                reason: "denied".into(),
            }],
            commands: vec![ParsedCommand {
                argv: vec!["rm".into(), "x".into()],
                via: vec!["sudo".into()],
            }],
            sandbox: serde_json::json!({"mode": "off"}),
        });
        let text = serde_json::to_string(&decision).unwrap();
        assert_eq!(
            text,
            r#"{"allowed":false,"rule":"config-deny","refusals":[{"rule":"config-deny","command":"rm x","reason":"denied"}],"commands":[{"argv":["rm","x"],"via":["sudo"]}],"sandbox":{"mode":"off"}}"#
        );
        let back: CommandAnswer = serde_json::from_str(&text).unwrap();
        assert_eq!(back, CommandAnswer::Exec(decision));
    }
}
