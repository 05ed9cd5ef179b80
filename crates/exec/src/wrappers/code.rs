//! Programs in other languages that run commands: `python -c`, `perl -e`, awk's `system`,
//! a program read from stdin or a here-document.

use super::settings::crontab_commands;
use super::{inner, is_interpreter, is_shell, skip_options, Unwrapped};
use crate::parse::{self, SimpleCommand, Word};
use regex::Regex;
use std::sync::LazyLock;

static CODE_STRING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)""#).expect("a valid regex")
});

/// The string literals in a piece of inline code, with `\x` escapes reduced to `x`.
pub fn code_strings(code: &str) -> Vec<String> {
    CODE_STRING
        .captures_iter(code)
        .filter_map(|c| c.get(1).or_else(|| c.get(2)))
        .map(|m| {
            let mut out = String::new();
            let mut chars = m.as_str().chars();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => out.extend(chars.next()),
                    c => out.push(c),
                }
            }
            out
        })
        .collect()
}

/// The program text of an interpreter's `-c`/`-e` option (`-ne`, `-pe` and the like too).
pub fn inline_code(args: &[Word]) -> Option<String> {
    let at = args.iter().position(|w| {
        w.text().is_some_and(|t| {
            t == "-c"
                || t == "-e"
                || t == "-E"
                || t == "-r"
                || t == "--eval"
                || (t.starts_with('-') && !t.starts_with("--") && t.ends_with('e') && t.len() <= 4)
        })
    })?;
    args.get(at + 1)?.text()
}

/// Calls in inline interpreter code that hand a string or a list of words to a shell or exec.
const CODE_RUNS_COMMANDS: &[&str] = &[
    "system",
    "popen",
    "subprocess",
    "exec",
    "spawn",
    "child_process",
    "`",
    "qx",
    "%x",
    "Open3",
    "pty.",
    "shell_exec",
    "passthru",
    "proc_open",
    "Process",
    "Command",
];

static PERL_QX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bqx\s*(?:\(([^)]*)\)|\{([^}]*)\}|\[([^\]]*)\])").expect("a valid regex")
});

/// `python -c "os.system('rm -rf ~')"`, `ruby -e 'system("rm", "-rf", "/")'`: when the code runs
/// commands, each literal string in it and all of them joined as one argv are read as bash.
pub(super) fn interpreter_shell_calls(name: &str, args: &[Word]) -> Unwrapped {
    let Some(code) = inline_code(args) else {
        return Unwrapped::Nothing;
    };
    if !CODE_RUNS_COMMANDS.iter().any(|m| code.contains(m)) {
        return Unwrapped::Nothing;
    }
    let mut sources = code_strings(&code);
    // `run(["rm", "-rf", "/"])`: the words of an argv list, from wherever the list starts.
    let words: Vec<String> = sources.iter().map(|s| parse::shell_quote(s)).collect();
    for start in 0..words.len().min(16) {
        sources.push(words[start..].join(" "));
    }
    // Perl's `qx(...)` holds a command.
    sources.extend(PERL_QX.captures_iter(&code).filter_map(|c| {
        c.iter()
            .skip(1)
            .flatten()
            .next()
            .map(|m| m.as_str().to_string())
    }));
    // Perl and Ruby backticks hold a command too.
    sources.extend(code.split('`').skip(1).step_by(2).map(String::from));
    Unwrapped::MaybeScripts {
        sources,
        via: format!("{name} code"),
    }
}

pub(super) fn is_awk(name: &str) -> bool {
    matches!(name, "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk")
}

static AWK_SYSTEM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\bsystem\s*\(\s*("(?:[^"\\]|\\.)*")?\s*(\))?"#).expect("a valid regex")
});

static AWK_PIPE_TO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:^|[^|])\|&?\s*(?:("(?:[^"\\]|\\.)*")|(getline\b))?"#).expect("a valid regex")
});

static AWK_PIPE_FROM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"("(?:[^"\\]|\\.)*")\s*\|&?\s*getline"#).expect("a valid regex"));
/// `awk 'BEGIN{system("CMD")}'`, `print | "CMD"`, `"CMD" | getline`: awk runs CMD with `sh -c`.
pub(super) fn awk(args: &[Word]) -> Unwrapped {
    let Some(at) = skip_options(
        args,
        &["-F", "-v", "-f", "-i", "-l", "-E", "--file", "--include"],
    ) else {
        return Unwrapped::Nothing;
    };
    let has_file = args[..at].iter().any(|w| {
        w.text()
            .is_some_and(|t| t == "-f" || t == "--file" || t == "-E")
    });
    let program = match args.get(at) {
        Some(word) if !has_file => word,
        _ => return Unwrapped::Nothing,
    };
    let Some(code) = program.text() else {
        return Unwrapped::Nothing;
    };
    let mut sources = Vec::new();
    for captures in AWK_SYSTEM.captures_iter(&code) {
        match (captures.get(1), captures.get(2)) {
            (Some(literal), Some(_)) => sources.push(awk_string(literal.as_str())),
            _ => {
                return Unwrapped::Unreadable(
                    "awk's `system()` runs a command built at run time".into(),
                )
            }
        }
    }
    for captures in AWK_PIPE_TO.captures_iter(&code) {
        match (captures.get(1), captures.get(2)) {
            (Some(literal), _) => sources.push(awk_string(literal.as_str())),
            // `"CMD" | getline`: the command is the string before the pipe, read below.
            (None, Some(_)) => {}
            (None, None) => {
                return Unwrapped::Unreadable("awk pipes into a command built at run time".into())
            }
        }
    }
    for captures in AWK_PIPE_FROM.captures_iter(&code) {
        sources.push(awk_string(&captures[1]));
    }
    match sources.is_empty() {
        true => Unwrapped::Nothing,
        false => Unwrapped::Script {
            source: sources.join("\n"),
            via: "awk".into(),
        },
    }
}

/// An awk string literal's value (`\"` and `\\` unescaped).
fn awk_string(literal: &str) -> String {
    let inner = &literal[1..literal.len() - 1];
    inner.replace("\\\"", "\"").replace("\\\\", "\\")
}

/// A shell, interpreter or `at` reading its program from stdin: from a here-string or here-doc,
/// or from the stage before it in a pipeline. Literal text (`echo 'CMDS' | sh`) is read as the
/// program; anything else (`base64 -d | sh`, `cat /dev/tcp/... | sh`) is unreadable. Downloads
/// piped in are left to the `download-to-shell` rule.
pub(super) fn stdin_program(command: &SimpleCommand, siblings: &[SimpleCommand]) -> Unwrapped {
    let Some(name) = command.name() else {
        return Unwrapped::Nothing;
    };
    let args = &command.argv[1..];
    if !reads_program_from_stdin(&name, args) {
        return Unwrapped::Nothing;
    }
    let here = command
        .redirects
        .iter()
        .rev()
        .find(|r| r.operator == "<<" || r.operator == "<<<" || r.operator == "<");
    let text = match here {
        Some(redirect) if redirect.operator == "<" => {
            let network = redirect
                .target
                .text()
                .is_none_or(|t| t.starts_with("/dev/tcp/") || t.starts_with("/dev/udp/"));
            if network {
                return Unwrapped::Unreadable(format!(
                    "`{name}` reads its program from {}",
                    redirect.target.source
                ));
            }
            return Unwrapped::Nothing;
        }
        Some(redirect) if redirect.target.downloads => return Unwrapped::Nothing,
        Some(redirect) => match redirect.target.text() {
            Some(text) => text,
            None => {
                return Unwrapped::Unreadable(format!(
                    "`{name}` reads a program built at run time ({})",
                    redirect.target.source
                ))
            }
        },
        None if command.stage == 0 => return Unwrapped::Nothing,
        None => match piped_text(command, siblings) {
            Ok(Some(text)) => text,
            Ok(None) => return Unwrapped::Nothing,
            Err(why) => {
                return Unwrapped::Unreadable(format!("`{name}` reads its program from {why}"))
            }
        },
    };
    if name == "crontab" {
        return Unwrapped::Script {
            source: crontab_commands(&text),
            via: "crontab".into(),
        };
    }
    let runs_shell = matches!(
        name.as_str(),
        "source" | "." | "at" | "batch" | "su" | "sudo" | "doas"
    );
    match is_shell(&name) || runs_shell {
        true => Unwrapped::Script {
            source: text,
            via: format!("{name} <stdin>"),
        },
        // An interpreter's program is checked like its `-c`/`-e` one-liner.
        false => {
            let flag = if name.starts_with("python") {
                "-c"
            } else {
                "-e"
            };
            let argv = vec![
                Word::literal(&name),
                Word::literal(flag),
                Word::literal(&text),
            ];
            Unwrapped::Commands(vec![inner(command, &format!("{name} <stdin>"), &argv)])
        }
    }
}

/// The text piped into a command when the stage before it is `echo`/`printf` of literal words.
/// `Ok(None)`: a download feeds it (another rule's case). `Err`: text only known at run time.
fn piped_text(
    command: &SimpleCommand,
    siblings: &[SimpleCommand],
) -> Result<Option<String>, String> {
    let earlier = |c: &&SimpleCommand| c.pipeline == command.pipeline && c.stage < command.stage;
    if siblings
        .iter()
        .filter(earlier)
        .any(|c| c.name().is_some_and(|n| parse::is_downloader(&n)))
    {
        return Ok(None);
    }
    let feeders: Vec<&SimpleCommand> = siblings
        .iter()
        .filter(|c| c.pipeline == command.pipeline && c.stage + 1 == command.stage)
        .collect();
    let mut text = String::new();
    for feeder in &feeders {
        let name = feeder.name().unwrap_or_default();
        let words: Option<Vec<String>> = feeder.argv[1..].iter().map(|w| w.text()).collect();
        match (name.as_str(), words) {
            ("echo", Some(words)) => {
                let is_flag = |w: &String| {
                    w.len() > 1 && w.starts_with('-') && w[1..].chars().all(|c| "neE".contains(c))
                };
                let escapes = words
                    .iter()
                    .take_while(|w| is_flag(w))
                    .any(|w| w.contains('e'));
                let words: Vec<&String> = words.iter().skip_while(|w| is_flag(w)).collect();
                if escapes && words.iter().any(|w| w.contains('\\')) {
                    return Err(format!("the output of `{}`", feeder.shown()));
                }
                let words: Vec<&str> = words.iter().map(|w| w.as_str()).collect();
                text.push_str(&words.join(" "));
                text.push('\n');
            }
            ("cat", Some(words)) if words.iter().all(|w| w == "-") => {
                let here = feeder
                    .redirects
                    .iter()
                    .rev()
                    .find(|r| r.operator == "<<" || r.operator == "<<<");
                match here.and_then(|r| r.target.text()) {
                    Some(body) => text.push_str(&body),
                    None => return Err(format!("the output of `{}`", feeder.shown())),
                }
            }
            ("printf", Some(words)) if words.first().is_some_and(|f| !f.contains(['%', '\\'])) => {
                text.push_str(&words[0]);
                text.push('\n');
            }
            _ => return Err(format!("the output of `{}`", feeder.shown())),
        }
    }
    match feeders.is_empty() {
        true => Err("a pipe".into()),
        false => Ok(Some(text)),
    }
}

/// Whether a shell, interpreter or scheduler takes its program from standard input.
pub fn reads_program_from_stdin(name: &str, args: &[Word]) -> bool {
    let first = args.first().and_then(|w| w.text());
    match name {
        "source" | "." => {
            return first.is_some_and(|t| {
                matches!(
                    t.as_str(),
                    "/dev/stdin" | "-" | "/dev/fd/0" | "/proc/self/fd/0"
                )
            })
        }
        // `crontab -` (or no file) installs the table it reads from stdin.
        "crontab" => {
            let options = ["-l", "-r", "-e", "-i"];
            let lists = args
                .iter()
                .any(|w| w.text().is_some_and(|t| options.contains(&t.as_str())));
            let file = args
                .iter()
                .any(|w| w.text().is_none_or(|t| !t.starts_with('-')));
            return !lists && (!file || first.as_deref() == Some("-"));
        }
        // `su USER` and `sudo -s` / `sudo -i` without a command run a shell reading stdin.
        "su" => {
            return !args.iter().any(|w| {
                w.text().is_none_or(|t| {
                    t == "--command"
                        || (t.starts_with('-') && !t.starts_with("--") && t.contains('c'))
                })
            })
        }
        "sudo" | "doas" => {
            let options: Vec<String> = args
                .iter()
                .map_while(|w| w.text().filter(|t| t.starts_with('-')))
                .collect();
            return options.len() == args.len()
                && options.iter().any(|o| {
                    !o.starts_with("--") && (o.contains('s') || o.contains('i'))
                        || o == "--shell"
                        || o == "--login"
                });
        }
        // `at TIME` and `batch` read the commands to run from stdin unless `-f FILE` names them.
        "at" | "batch" => {
            let stdin_file = args.windows(2).any(|w| {
                w[0].text().is_some_and(|t| t == "-f")
                    && w[1].text().is_some_and(|t| t == "/dev/stdin" || t == "-")
            });
            return stdin_file
                || !args.iter().any(|w| {
                    w.text().is_some_and(|t| {
                        t.starts_with('-')
                            && t.len() > 1
                            && t[1..].contains(['f', 'l', 'r', 'd', 'c'])
                    })
                });
        }
        _ => {}
    }
    let shell = is_shell(name);
    if !shell && !is_interpreter(name) {
        return false;
    }
    for word in args {
        let Some(text) = word.text() else {
            return false;
        };
        if matches!(
            text.as_str(),
            "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"
        ) {
            return true;
        }
        if shell && text.starts_with('-') && !text.starts_with("--") && text.contains('s') {
            return true;
        }
        if text.starts_with('-') && text.len() > 1 {
            let runs_inline = ["-c", "-e", "-E", "-r", "-m", "-p"].iter().any(|flag| {
                text == *flag || (shell && !text.starts_with("--") && text.contains('c'))
            });
            if runs_inline {
                return false;
            }
            continue;
        }
        return false;
    }
    true
}
