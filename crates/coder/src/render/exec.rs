//! `coder exec` and `coder test`: the output as the command printed it, then one status line,
//! from the answer's types (`wire::answers::command`, the ones the daemon builds).

use std::io::{self, Write};
use wire::answers::command::{CommandAnswer, DryRun, ExecResult, RunReport, Summary};

/// Human rendering of an `exec` or `test` result (or a `dry_run` decision) for the CLI: the
/// output as the command printed it, then one status line; an answer of no command's shape is
/// shown as JSON.
pub fn render(out: &mut impl Write, text: &str) -> io::Result<()> {
    let Ok(answer) = serde_json::from_str::<CommandAnswer>(text) else {
        return super::write_pretty(out, text.as_bytes());
    };
    match answer {
        CommandAnswer::Exec(ExecResult::Decision(decision)) => dry_run(out, &decision),
        CommandAnswer::Exec(ExecResult::Ran(run)) => ran(out, &run, None),
        CommandAnswer::Test(test) => ran(out, &test.run, test.summary.as_ref()),
    }
}

fn dry_run(out: &mut impl Write, decision: &DryRun) -> io::Result<()> {
    for command in &decision.commands {
        let argv = serde_json::to_string(&command.argv).unwrap_or_default();
        writeln!(out, "  {argv}")?;
    }
    for refusal in &decision.refusals {
        let (rule, command, reason) = (&refusal.rule, &refusal.command, &refusal.reason);
        writeln!(out, "refused by `{rule}`: `{command}`: {reason}")?;
    }
    writeln!(
        out,
        "{}",
        if decision.allowed {
            "allowed"
        } else {
            "refused"
        }
    )
}

fn ran(out: &mut impl Write, run: &RunReport, summary: Option<&Summary>) -> io::Result<()> {
    // Output already shown as it streamed is not repeated.
    if !run.streamed {
        out.write_all(run.stdout.as_bytes())?;
        out.write_all(run.stderr.as_bytes())?;
    }
    if let Some(summary) = summary {
        for failure in &summary.failures {
            writeln!(out, "FAILED {}", failure.name)?;
        }
        writeln!(
            out,
            "[{} passed, {} failed, {} skipped]",
            summary.passed, summary.failed, summary.skipped
        )?;
    }
    let ending = match (run.timed_out, run.signal, run.exit_code) {
        (true, _, _) => "timed out".to_string(),
        (_, Some(signal), _) => format!("killed by signal {signal}"),
        (_, _, Some(code)) => format!("exit {code}"),
        (_, _, None) => "exit null".to_string(),
    };
    writeln!(out, "[{ending}, {} ms]", run.duration_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(answer: &str) -> String {
        let mut out = Vec::new();
        render(&mut out, answer).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn each_command_shape_renders_from_its_fields() {
        let run = r#""exit_code":1,"timed_out":false,"duration_ms":7,"stdout":"out\n","stderr":"err\n","omitted_bytes":0,"sandbox":"off""#;
        let cases = [
            (format!("{{{run}}}"), "out\nerr\n[exit 1, 7 ms]\n".to_string()),
            (
                format!(r#"{{{run},"streamed":true,"signal":9}}"#),
                "[killed by signal 9, 7 ms]\n".into(),
            ),
            (
                format!(
                    r#"{{"framework":"cargo","command":["cargo","test"],"folder":"/w",{run},"summary":{{"passed":2,"failed":1,"skipped":0,"failures":[{{"name":"t::a","lines":[]}}]}}}}"#
                ),
                "out\nerr\nFAILED t::a\n[2 passed, 1 failed, 0 skipped]\n[exit 1, 7 ms]\n".into(),
            ),
            (
                r#"{"allowed":false,"rule":"config-deny","refusals":[{"rule":"config-deny","command":"rm x","reason":"denied"}],"commands":[{"argv":["rm","x"]}],"sandbox":{}}"#.into(),
                "  [\"rm\",\"x\"]\nrefused by `config-deny`: `rm x`: denied\nrefused\n".into(),
            ),
        ];
        for (answer, expected) in cases {
            assert_eq!(rendered(&answer), expected, "{answer}");
        }
    }
}
