//! Commands hidden in settings: git config keys and `-c` values, tar's `--to-command` and
//! friends, environment variables that shells run, and crontab lines.

use super::launchers::split_assignment;
use super::Unwrapped;
use crate::parse::{SimpleCommand, Word};

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
pub(super) fn git_config_commands(args: &[Word]) -> Unwrapped {
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
pub(super) fn tar_commands(args: &[Word]) -> Unwrapped {
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

/// Variables whose value is a shell command some program runs, or the file of one.
pub(super) fn environment_scripts(command: &SimpleCommand) -> Vec<Unwrapped> {
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

/// The commands of a crontab: each line less its five time fields (or `@reboot`-style one).
pub(super) fn crontab_commands(table: &str) -> String {
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
