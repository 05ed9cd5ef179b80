//! Commands that run other commands. `sudo rm -rf /` runs `rm`, `find / -exec rm -rf {} +` runs
//! `rm` on `/`, `bash -c 'rm -rf /'` runs a whole script: each wrapper here is unwrapped into the
//! command it runs (options skipped by the wrapper's own rules), and shell strings (`sh -c`,
//! `eval`, `su -c`, `watch`, `env -S`) are parsed again as bash. A wrapper whose inner command
//! or script only exists at run time is reported as unreadable, never passed over.

use super::parse::{self, Function, ParseProblem, Piece, SimpleCommand, Word};

mod code;
mod fanout;
mod launchers;
mod scripts;
mod settings;

use code::{awk, interpreter_shell_calls, is_awk, stdin_program};
pub use code::{code_strings, inline_code, reads_program_from_stdin};
use fanout::{find_exec, parallel, xargs};
pub use fanout::{find_start_paths, FIND_EXEC_NARROWED};
use launchers::{
    alias, coproc, env, flock, runuser, ssh, sudo, trap, watch, SETPRIV_VALUES, SYSTEMD_RUN_VALUES,
};
use scripts::{dash_c_string, eval, script_operand, shell_c};
use settings::{environment_scripts, git_config_commands, tar_commands};

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

#[cfg(test)]
mod tests;
