//! Rules for commands that take the machine's processes down: killing everything, fork bombs,
//! piping a download into a shell.

use super::{Found, Rule};
use crate::parse::{is_downloader, Piece, SimpleCommand, Word};
use crate::wrappers::{is_interpreter, is_shell, reads_program_from_stdin, Analysis};
use regex::Regex;

pub(super) fn kill(args: &[Word]) -> Found {
    let mut signal_given = false;
    let mut pids_only = false;
    let mut i = 0;
    while i < args.len() {
        let word = &args[i];
        i += 1;
        let Some(text) = word.text() else {
            // `$!` (the last background job) and `$$` (the shell itself) are always one process.
            let special =
                matches!(word.pieces.as_slice(), [Piece::Dynamic(d)] if d == "$!" || d == "$$");
            if !special {
                return Some((
                    Rule::Unresolvable,
                    format!(
                        "`kill` of a process only known at run time ({})",
                        word.source
                    ),
                ));
            }
            continue;
        };
        if !pids_only {
            match text.as_str() {
                "--" => {
                    pids_only = true;
                    continue;
                }
                "-l" | "-L" | "--list" | "--table" => return None,
                "-s" | "-n" | "--signal" => {
                    signal_given = true;
                    i += 1;
                    continue;
                }
                t if t.starts_with('-') && !signal_given => {
                    signal_given = true;
                    continue;
                }
                _ => {}
            }
        }
        if text == "-1" || text == "1" {
            return Some((
                Rule::KillAll,
                format!("`kill {text}` signals every process (or init)"),
            ));
        }
        if text == "0" || text == "-0" {
            return Some((
                Rule::KillAll,
                "`kill 0` signals every process of the group, the daemon's commands among them"
                    .into(),
            ));
        }
    }
    None
}

pub(super) fn download_to_shell(
    command: &SimpleCommand,
    name: &str,
    analysis: &Analysis,
) -> Option<String> {
    let args = &command.argv[1..];
    let runs_programs = is_shell(name) || is_interpreter(name) || name == "source" || name == ".";
    if runs_programs && args.iter().any(|w| w.downloads) {
        return Some(format!("`{name}` runs a download given as its argument"));
    }
    let stdin_download = command
        .redirects
        .iter()
        .any(|r| r.operator.starts_with('<') && r.target.downloads);
    if !reads_program_from_stdin(name, args) {
        return None;
    }
    if stdin_download {
        return Some(format!("`{name}` reads a download as its program"));
    }
    let fed_by_download = analysis.commands.iter().any(|c| {
        c.pipeline == command.pipeline
            && c.stage < command.stage
            && c.name().is_some_and(|n| is_downloader(&n))
    });
    fed_by_download.then(|| format!("a download is piped into `{name}`"))
}

/// `perl -e 'fork while fork'`, `python -c 'while 1: os.fork()'` and the like.
pub(super) fn inline_fork_bomb(name: &str, args: &[Word]) -> Option<String> {
    if !is_interpreter(name) {
        return None;
    }
    let code = args.iter().filter_map(|w| w.text()).find(|t| {
        let t = t.as_str();
        t.contains("fork") || t.contains("Process.spawn") || t.contains("child_process")
    })?;
    let loops = [
        "while",
        "for",
        "loop",
        "until",
        "each",
        "times",
        "repeat",
        "setInterval",
    ]
    .iter()
    .any(|k| code.contains(k));
    loops.then(|| format!("`{name}` runs inline code that forks in a loop"))
}

/// Process names a kill-by-pattern must not be able to match all of.
const PROCESS_SAMPLES: &[&str] = &[
    "systemd",
    "init",
    "sshd",
    "bash",
    "dbus-daemon",
    "cron",
    "coderd",
    "Xorg",
    "kthreadd",
    "journald",
];

/// `pkill`/`killall` of everything (`pkill .`, `pkill -v x`, `killall -r .`) or of another
/// user's processes (`pkill -u root`).
pub(super) fn kill_by_name(name: &str, args: &[Word]) -> Found {
    let kill_all = |what: String| Some((Rule::KillAll, what));
    let mut regex_names = name == "pkill";
    let mut pattern = None;
    let mut i = 0;
    while i < args.len() {
        let Some(text) = args[i].text() else {
            i += 1;
            continue;
        };
        i += 1;
        let value = |i: usize| args.get(i).and_then(|w| w.text());
        match text.as_str() {
            "-v" | "--inverse" => {
                return kill_all(format!(
                    "`{name} -v` signals every process but the named ones"
                ))
            }
            "-r" | "--regexp" if name == "killall" => regex_names = true,
            "-u" | "-U" | "--euid" | "--uid" | "--user" => {
                // A user only known at run time (`$USER`) is taken as the caller's own.
                let users = value(i);
                i += 1;
                // Root's processes are the system's, whoever asks.
                let others = |u: &str| u == "root" || u == "0" || !is_current_user(u);
                if let Some(users) = users.filter(|u| u.split(',').any(others)) {
                    return kill_all(format!(
                        "`{name} -u {users}` signals another user's processes"
                    ));
                }
            }
            "-s" | "--signal" | "-t" | "--terminal" | "-g" | "--pgroup" | "-G" | "--group"
            | "-P" | "--parent" | "-F" | "--pidfile" | "--ns" | "--nslist" | "-o"
            | "--older-than" | "-y" | "--younger-than" | "-Z" | "--context" => i += 1,
            t if t.starts_with('-') && t.len() > 1 => {}
            t => {
                pattern.get_or_insert(t.to_string());
            }
        }
    }
    let pattern = pattern?;
    let matches_all = match regex_names {
        true => Regex::new(&pattern)
            .is_ok_and(|re| PROCESS_SAMPLES.iter().filter(|s| re.is_match(s)).count() >= 3),
        false => pattern.is_empty(),
    };
    matches_all.then(|| {
        (
            Rule::KillAll,
            format!("`{name} {pattern}` matches every process"),
        )
    })
}

/// Whether a user name or id is the daemon's own user.
fn is_current_user(user: &str) -> bool {
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    if user.parse::<u32>().is_ok_and(|id| id == uid) {
        return true;
    }
    ["USER", "LOGNAME"]
        .iter()
        .any(|var| std::env::var(var).is_ok_and(|name| name == user))
}

/// `yes | xargs -P0 CMD`: endless input run with no limit on parallel processes.
pub(super) fn xargs_bomb(command: &SimpleCommand, args: &[Word], analysis: &Analysis) -> Found {
    let texts: Vec<String> = args.iter().filter_map(|w| w.text()).collect();
    let unlimited = texts
        .windows(2)
        .any(|w| (w[0] == "-P" || w[0] == "--max-procs") && w[1] == "0")
        || texts.iter().any(|t| t == "-P0" || t == "--max-procs=0");
    let endless_input = analysis.commands.iter().any(|c| {
        c.pipeline == command.pipeline
            && c.stage < command.stage
            && c.name().is_some_and(|n| n == "yes")
    });
    (unlimited && endless_input).then(|| {
        (
            Rule::ForkBomb,
            "`xargs -P0` runs endless input with no limit on processes (a fork bomb)".into(),
        )
    })
}
