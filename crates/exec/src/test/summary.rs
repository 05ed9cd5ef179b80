//! Test summaries read from the whole output as it streams (not from the capped text): counts of
//! passed, failed and skipped tests, and each failing test with its first failure lines, for
//! cargo, go (`-v`) and pytest (`-q`). Memory is bounded: at most `MAX_FAILURES` failures of
//! `MAX_LINES` lines each are kept.

use super::detect::Framework;
use regex::Regex;
use std::sync::LazyLock;

const MAX_FAILURES: usize = 50;
const MAX_LINES: usize = 5;
/// Longest line kept in a failure's lines.
const MAX_LINE_CHARS: usize = 300;

/// A run's counts and failures: the wire's types, shared with clients.
pub use wire::answers::command::{Failure, Summary};

/// Feeds output bytes in any chunking and parses complete lines.
pub struct Parser {
    framework: Framework,
    partial: Vec<u8>,
    summary: Summary,
    /// The failure whose detail lines are being collected.
    collecting: Option<usize>,
    /// Cargo: inside the `failures:` section.
    in_failures: bool,
    /// Go: the log lines of the test running now, kept until it passes or fails.
    pending: Vec<String>,
}

static CARGO_RESULT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored").expect("valid")
});
static CARGO_FAILED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^test (\S+) \.\.\. FAILED$").expect("valid"));
static CARGO_HEADER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^---- (\S+) stdout ----$").expect("valid"));
static GO_RESULT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^--- (PASS|FAIL|SKIP): (\S+)").expect("valid"));
static PYTEST_COUNTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(\d+) (passed|failed|skipped|error|errors|xfailed|xpassed)").expect("valid")
});
static PYTEST_FINAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^=*\s*\d+ \w+.* in [\d.]+s").expect("valid"));
static PYTEST_FAILED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(FAILED|ERROR) (\S+)(?: - (.*))?$").expect("valid"));

impl Parser {
    /// A parser for the frameworks with a summary; `None` for the others.
    pub fn for_framework(framework: Framework) -> Option<Parser> {
        matches!(
            framework,
            Framework::Cargo | Framework::Go | Framework::Pytest
        )
        .then(|| Parser {
            framework,
            partial: Vec::new(),
            summary: Summary::default(),
            collecting: None,
            in_failures: false,
            pending: Vec::new(),
        })
    }

    pub fn feed(&mut self, bytes: &[u8]) {
        self.partial.extend_from_slice(bytes);
        while let Some(newline) = memchr::memchr(b'\n', &self.partial) {
            let line: Vec<u8> = self.partial.drain(..=newline).collect();
            let text = String::from_utf8_lossy(&line[..line.len() - 1]);
            self.line(text.trim_end_matches('\r'));
        }
        // A line longer than this is never a summary line; keep memory bounded.
        if self.partial.len() > 64 * 1024 {
            self.partial.clear();
        }
    }

    pub fn finish(mut self) -> Summary {
        if !self.partial.is_empty() {
            let rest = String::from_utf8_lossy(&std::mem::take(&mut self.partial)).into_owned();
            self.line(&rest);
        }
        self.summary
    }

    fn line(&mut self, line: &str) {
        match self.framework {
            Framework::Cargo => self.cargo(line),
            Framework::Go => self.go(line),
            Framework::Pytest => self.pytest(line),
            _ => {}
        }
    }

    fn add_failure(&mut self, name: &str, first_line: Option<&str>) {
        if let Some(i) = self.summary.failures.iter().position(|f| f.name == name) {
            self.collecting = Some(i);
            return;
        }
        if self.summary.failures.len() >= MAX_FAILURES {
            self.collecting = None;
            return;
        }
        let lines = first_line.map(|l| vec![clip(l)]).unwrap_or_default();
        self.summary.failures.push(Failure {
            name: name.to_string(),
            lines,
        });
        self.collecting = Some(self.summary.failures.len() - 1);
    }

    fn collect(&mut self, line: &str) {
        let Some(i) = self.collecting else { return };
        let failure = &mut self.summary.failures[i];
        if !line.trim().is_empty() && failure.lines.len() < MAX_LINES {
            failure.lines.push(clip(line.trim()));
        }
    }

    fn cargo(&mut self, line: &str) {
        if let Some(c) = CARGO_RESULT.captures(line) {
            self.summary.passed += c[1].parse::<u64>().unwrap_or(0);
            self.summary.failed += c[2].parse::<u64>().unwrap_or(0);
            self.summary.skipped += c[3].parse::<u64>().unwrap_or(0);
            self.in_failures = false;
            self.collecting = None;
        } else if let Some(c) = CARGO_FAILED.captures(line) {
            let name = c[1].to_string();
            self.add_failure(&name, None);
            self.collecting = None;
        } else if line == "failures:" {
            self.in_failures = true;
            self.collecting = None;
        } else if let Some(c) = CARGO_HEADER.captures(line) {
            let name = c[1].to_string();
            self.add_failure(&name, None);
        } else if self.in_failures && line.starts_with("stack backtrace:") {
            self.collecting = None;
        } else if self.in_failures {
            self.collect(line);
        }
    }

    fn go(&mut self, line: &str) {
        if line.starts_with("=== RUN") {
            self.pending.clear();
            self.collecting = None;
        } else if let Some(c) = GO_RESULT.captures(line) {
            let name = c[2].to_string();
            match &c[1] {
                "PASS" => self.summary.passed += 1,
                "SKIP" => self.summary.skipped += 1,
                _ => {
                    self.summary.failed += 1;
                    self.add_failure(&name, None);
                    // `go test -v` prints a test's log lines before its `--- FAIL` line.
                    for pending in std::mem::take(&mut self.pending) {
                        self.collect(&pending);
                    }
                    return;
                }
            }
            self.collecting = None;
        } else if line.starts_with("    ") {
            if self.collecting.is_some() {
                self.collect(line);
            } else if self.pending.len() < MAX_LINES {
                self.pending.push(clip(line));
            }
        } else {
            self.collecting = None;
        }
    }

    fn pytest(&mut self, line: &str) {
        if let Some(c) = PYTEST_FAILED.captures(line) {
            let name = c[2].to_string();
            self.add_failure(&name, c.get(3).map(|m| m.as_str()));
            self.collecting = None;
        } else if PYTEST_FINAL.is_match(line) {
            for c in PYTEST_COUNTS.captures_iter(line) {
                let n = c[1].parse::<u64>().unwrap_or(0);
                match &c[2] {
                    "passed" | "xpassed" => self.summary.passed += n,
                    "failed" | "error" | "errors" => self.summary.failed += n,
                    _ => self.summary.skipped += n,
                }
            }
        }
    }
}

fn clip(line: &str) -> String {
    line.chars().take(MAX_LINE_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(framework: Framework, text: &str) -> Summary {
        let mut parser = Parser::for_framework(framework).unwrap();
        // Odd chunk sizes: lines split across chunks must still parse.
        for chunk in text.as_bytes().chunks(7) {
            parser.feed(chunk);
        }
        parser.finish()
    }

    #[test]
    fn cargo_counts_add_up_across_binaries_and_failures_keep_their_panic_line() {
        let out = "running 2 tests\ntest a::ok ... ok\ntest a::bad ... FAILED\n\nfailures:\n\n\
                   ---- a::bad stdout ----\n\nthread 'a::bad' panicked at src/lib.rs:3:5:\n\
                   assertion failed: 1 == 2\n\nfailures:\n    a::bad\n\n\
                   test result: FAILED. 1 passed; 1 failed; 2 ignored; 0 measured\n\
                   test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured\n";
        let s = parse(Framework::Cargo, out);
        assert_eq!((s.passed, s.failed, s.skipped), (4, 1, 2));
        assert_eq!(s.failures.len(), 1);
        assert_eq!(s.failures[0].name, "a::bad");
        assert!(
            s.failures[0].lines[0].contains("panicked at"),
            "{:?}",
            s.failures
        );
    }

    #[test]
    fn go_verbose_results_are_counted_and_failures_keep_their_log_lines() {
        let out = concat!(
            "=== RUN   TestOk\n--- PASS: TestOk (0.00s)\n=== RUN   TestBad\n",
            "    x_test.go:9: want 2, got 1\n--- FAIL: TestBad (0.00s)\n",
            "--- SKIP: TestLater (0.00s)\nFAIL\n"
        );
        let s = parse(Framework::Go, out);
        assert_eq!((s.passed, s.failed, s.skipped), (1, 1, 1));
        assert_eq!(s.failures[0].name, "TestBad");
        assert_eq!(s.failures[0].lines, vec!["x_test.go:9: want 2, got 1"]);
    }

    #[test]
    fn pytest_reads_the_final_line_and_the_short_summary() {
        let out = "..F.s\n=== short test summary info ===\n\
                   FAILED tests/test_a.py::test_bad - assert 1 == 2\n\
                   1 failed, 3 passed, 1 skipped in 0.05s\n";
        let s = parse(Framework::Pytest, out);
        assert_eq!((s.passed, s.failed, s.skipped), (3, 1, 1));
        assert_eq!(s.failures[0].name, "tests/test_a.py::test_bad");
        assert_eq!(s.failures[0].lines, vec!["assert 1 == 2"]);
    }
}
