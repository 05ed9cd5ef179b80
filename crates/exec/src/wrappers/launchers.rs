//! Wrappers that run an argv they were given: privilege and session launchers (`sudo`, `runuser`,
//! `setpriv`, `systemd-run`, `ssh`), `env`, `flock`, `watch`, `coproc`, and the deferred
//! commands of `trap` and `alias`.

use super::scripts::{dash_c_string, joined_script, script_from};
use super::{inner, is_assignment, skip_options, Unwrapped};
use crate::parse::{Piece, SimpleCommand, Word};

pub(super) const SYSTEMD_RUN_VALUES: &[&str] = &[
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

pub(super) const SETPRIV_VALUES: &[&str] = &[
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
pub(super) fn runuser(command: &SimpleCommand, args: &[Word]) -> Unwrapped {
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
pub(super) fn coproc(command: &SimpleCommand, args: &[Word]) -> Unwrapped {
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
pub(super) fn trap(args: &[Word]) -> Unwrapped {
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
pub(super) fn alias(args: &[Word]) -> Unwrapped {
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
pub(super) fn split_assignment(word: &Word) -> Option<(String, Word)> {
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

/// `ssh [options] HOST CMD ...`: the remote shell runs the joined words.
pub(super) fn ssh(args: &[Word]) -> Unwrapped {
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
    joined_script(rest, "ssh", || {
        "`ssh` runs a remote command built at run time".into()
    })
}

pub(super) fn env(command: &SimpleCommand, args: &[Word]) -> Unwrapped {
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

pub(super) fn sudo(command: &SimpleCommand, name: &str, args: &[Word]) -> Unwrapped {
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

/// `flock [options] FILE CMD ARGS` or `flock [options] FILE -c CMD`.
pub(super) fn flock(command: &SimpleCommand, args: &[Word]) -> Unwrapped {
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
pub(super) fn watch(args: &[Word]) -> Unwrapped {
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
