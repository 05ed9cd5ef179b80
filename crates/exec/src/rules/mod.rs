//! The built-in rules: catastrophic commands that are refused whatever the config says. Each rule
//! has a name (reported in C214 and by `dry_run`) and looks at one simple command at a time (its
//! argv, redirects and pipeline position), after wrappers are unwrapped, so no spelling of the
//! command escapes it: not flag order, quoting, escapes, absolute paths, wrappers, substitutions or
//! shell strings. A word the rule needs but cannot know (a variable, a substitution) is treated as
//! "could be anything": if it could name a protected path or a disk, the command is refused as
//! unresolvable, with a hint to write it plainly.

use super::parse::{SimpleCommand, Word};
use super::wrappers::{Analysis, FIND_EXEC_NARROWED};
use serde::Serialize;

mod destructive;
mod path_words;
mod places;
mod processes;
mod system_files;

use destructive::{
    dd, destination, device_operands, find_delete, mv, recursive_permissions, rm, rsync_delete,
    tar_file,
};
use path_words::{classify_device, PathWord};
use places::working_folders;
pub use places::Places;
use processes::{download_to_shell, inline_fork_bomb, kill, kill_by_name, xargs_bomb};
use system_files::{classify_system_file, interpreter_code, system_write};

/// A built-in or configured rule, by the name C214 reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// `rm -r`, `find -delete`, `mv` of `/`, `/*`, `~`, a system folder, a root or its ancestor.
    RecursiveDelete,
    /// Writes to a block device or a kernel interface (`dd of=`, `>`, `tee`, `cp`, `tar -f`).
    DeviceWrite,
    /// `mkfs*`, `wipefs`, `blkdiscard`, partition table writes, volume removal.
    FormatDisk,
    /// A function that calls itself in a pipe or in the background; `fork` in an inline loop.
    ForkBomb,
    /// `chmod`/`chown`/`chgrp -R` of a protected path.
    RecursivePermissions,
    /// `kill -9 -1` (every process), `kill 1`, `killall5`.
    KillAll,
    /// shutdown, reboot, halt, poweroff, `init 0`, `systemctl reboot`.
    Shutdown,
    /// Overwriting, truncating or deleting a system file (`> /etc/passwd`, `truncate`,
    /// `rm -f /bin/*`, `echo ... > /proc/sys/...`), `crontab -r`.
    SystemFileWrite,
    /// A download piped or substituted into a shell or interpreter.
    DownloadToShell,
    /// A command name, shell string or dangerous argument only known at run time.
    Unresolvable,
    /// The command does not parse as bash.
    ParseError,
    /// A command matched by `exec.deny` in the daemon config.
    ConfigDeny,
    /// `exec.allow` is set and a command matches none of its rules.
    NotAllowed,
    /// `exec.enabled` is false.
    Disabled,
}

impl Rule {
    /// The rules no config can turn off.
    pub const BUILT_IN: &'static [Rule] = &[
        Rule::RecursiveDelete,
        Rule::DeviceWrite,
        Rule::FormatDisk,
        Rule::ForkBomb,
        Rule::RecursivePermissions,
        Rule::KillAll,
        Rule::Shutdown,
        Rule::SystemFileWrite,
        Rule::DownloadToShell,
        Rule::Unresolvable,
        Rule::ParseError,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Rule::RecursiveDelete => "recursive-delete",
            Rule::DeviceWrite => "device-write",
            Rule::FormatDisk => "format-disk",
            Rule::ForkBomb => "fork-bomb",
            Rule::RecursivePermissions => "recursive-permissions",
            Rule::KillAll => "kill-all",
            Rule::Shutdown => "shutdown",
            Rule::SystemFileWrite => "system-file-write",
            Rule::DownloadToShell => "download-to-shell",
            Rule::Unresolvable => "unresolvable",
            Rule::ParseError => "parse-error",
            Rule::ConfigDeny => "config-deny",
            Rule::NotAllowed => "not-allowed",
            Rule::Disabled => "disabled",
        }
    }

    /// What the caller can do about a refusal by this rule.
    pub fn recovery(self) -> &'static str {
        match self {
            Rule::Unresolvable => {
                "write the command plainly: literal command names and literal paths for deletes \
                 and writes (no variables or substitutions there); run scripts from files"
            }
            Rule::ParseError => "fix the shell syntax (quotes, brackets, heredoc ends) and retry",
            Rule::ConfigDeny | Rule::NotAllowed | Rule::Disabled => {
                "the daemon's config (`exec` section) decides this; no request field can change it"
            }
            Rule::DownloadToShell => {
                "download to a file, read it, then run it as a separate step"
            }
            Rule::RecursiveDelete | Rule::RecursivePermissions => {
                "name the folders to change inside the workspace (e.g. `rm -rf target`), never \
                 `/`, `~`, a system folder or a workspace root"
            }
            _ => "this command is refused by the daemon's safety rules; no request field changes that",
        }
    }
}

/// A refused command: which rule, which simple command, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Violation {
    pub rule: Rule,
    /// The simple command as parsed (its argv joined), or the source near a parse error.
    pub command: String,
    pub reason: String,
}

/// Every violation in an analysed command, in source order.
pub fn check(analysis: &Analysis, places: &Places) -> Vec<Violation> {
    let mut out = Vec::new();
    for problem in &analysis.problems {
        out.push(Violation {
            rule: Rule::ParseError,
            command: problem.near.clone(),
            reason: format!(
                "the command does not parse as bash at line {}, column {} (near `{}`)",
                problem.line, problem.column, problem.near
            ),
        });
    }
    for function in &analysis.functions {
        if function.spawns && function.calls.contains(&function.name) {
            out.push(Violation {
                rule: Rule::ForkBomb,
                command: format!("{}() {{ ... }}", function.name),
                reason: format!(
                    "function `{}` calls itself in a pipe or in the background (a fork bomb)",
                    function.name
                ),
            });
        }
    }
    for shown in &analysis.spawning_loops {
        out.push(Violation {
            rule: Rule::ForkBomb,
            command: shown.clone(),
            reason: "an endless loop starts a background process on every turn (a fork bomb)"
                .into(),
        });
    }
    for (command, why) in &analysis.unreadable {
        let downloads = command.argv.iter().any(|w| w.downloads)
            || command.redirects.iter().any(|r| r.target.downloads);
        let rule = match downloads {
            true => Rule::DownloadToShell,
            false => Rule::Unresolvable,
        };
        out.push(Violation {
            rule,
            command: command.shown(),
            reason: why.clone(),
        });
    }
    let folders: Vec<Places> = working_folders(analysis, places)
        .iter()
        .map(|cwd| places.with_cwd(cwd.as_ref()))
        .collect();
    let mut seen = std::collections::HashSet::new();
    for command in &analysis.commands {
        let mut found = Vec::new();
        for here in &folders {
            check_command(command, analysis, here, &mut found);
        }
        // One refusal per rule and command, whichever folder showed it first.
        for violation in found {
            if seen.insert((violation.rule, violation.command.clone())) {
                out.push(violation);
            }
        }
    }
    out
}

fn violation(rule: Rule, command: &SimpleCommand, reason: String) -> Violation {
    Violation {
        rule,
        command: command.shown(),
        reason,
    }
}

fn check_command(
    command: &SimpleCommand,
    analysis: &Analysis,
    places: &Places,
    out: &mut Vec<Violation>,
) {
    for redirect in command.redirects.iter().filter(|r| r.writes()) {
        if redirect.truncates() && classify_system_file(&redirect.target, places).is_some() {
            out.push(violation(
                Rule::SystemFileWrite,
                command,
                format!(
                    "`{}` truncates the system file {}",
                    redirect.operator, redirect.target.source
                ),
            ));
        }
        match classify_device(&redirect.target, places) {
            PathWord::Protected(p, _) => out.push(violation(
                Rule::DeviceWrite,
                command,
                format!("redirects output into {p}"),
            )),
            PathWord::Unknown(p) => out.push(violation(
                Rule::Unresolvable,
                command,
                format!("redirects output to a target only known at run time: {p}"),
            )),
            PathWord::Safe => {}
        }
    }
    let Some(first) = command.argv.first() else {
        return;
    };
    let Some(name) = command.name() else {
        out.push(violation(
            Rule::Unresolvable,
            command,
            format!(
                "the command name `{}` is only known at run time",
                first.source
            ),
        ));
        return;
    };
    let args = &command.argv[1..];
    // A name-filtered `find -exec` acts on what it finds, not on a workspace root it starts in.
    let narrowed = command.via.last().map(String::as_str) == Some(FIND_EXEC_NARROWED);
    let found = match name.as_str() {
        "rm" => rm(args, places, narrowed),
        "find" => find_delete(args, places),
        "mv" => mv(args, places),
        "chmod" | "chown" | "chgrp" => recursive_permissions(args, places),
        "dd" => dd(args, places),
        "tee" | "shred" => device_operands(args, places, &[]),
        "rsync" => rsync_delete(args, places).or_else(|| destination(args, places)),
        "cp" | "install" | "ln" => destination(args, places),
        "tar" => tar_file(args, places),
        "kill" => kill(args),
        "pkill" | "killall" | "pgrep" if name != "pgrep" => kill_by_name(&name, args),
        "xargs" => xargs_bomb(command, args, analysis),
        _ => named_rules(&name, args, places),
    };
    if let Some((rule, reason)) = found {
        out.push(violation(rule, command, reason));
    }
    let system =
        system_write(&name, args, places).or_else(|| interpreter_code(&name, args, places));
    if let Some((rule, reason)) = system {
        out.push(violation(rule, command, reason));
    }
    if let Some(reason) = download_to_shell(command, &name, analysis) {
        out.push(violation(Rule::DownloadToShell, command, reason));
    }
    if let Some(reason) = inline_fork_bomb(&name, args) {
        out.push(violation(Rule::ForkBomb, command, reason));
    }
}

type Found = Option<(Rule, String)>;

/// Rules decided by the command name (and a few arguments) alone.
fn named_rules(name: &str, args: &[Word], places: &Places) -> Found {
    let texts: Vec<String> = args.iter().filter_map(|w| w.text()).collect();
    let has = |options: &[&str]| texts.iter().any(|t| options.contains(&t.as_str()));
    let format = |what: &str| Some((Rule::FormatDisk, format!("`{name}` {what}")));
    match name {
        _ if name.starts_with("mkfs") => format("creates a file system, erasing what was there"),
        "mke2fs" | "mkswap" | "mkdosfs" | "mkntfs" | "mkexfatfs" => {
            format("creates a file system, erasing what was there")
        }
        "wipefs" | "blkdiscard" => format("erases a disk's signatures or blocks"),
        "sgdisk" if has(&["-Z", "--zap-all", "-o", "--clear", "-z", "--zap"]) => {
            format("erases a partition table")
        }
        "parted" if has(&["mklabel", "mkpart", "rm", "resizepart", "mkfs"]) => {
            format("rewrites a partition table")
        }
        "fdisk" | "sfdisk" | "gdisk" | "cfdisk"
            if !has(&[
                "-l",
                "--list",
                "-d",
                "--dump",
                "-s",
                "--show-size",
                "-V",
                "--verify",
            ]) =>
        {
            device_operands(args, places, &[])
                .map(|(_, what)| (Rule::FormatDisk, format!("`{name}` edits {what}")))
        }
        "cryptsetup" if has(&["luksFormat", "erase", "luksErase"]) => {
            format("erases an encrypted volume's keys")
        }
        "pvremove" | "vgremove" | "lvremove" => format("removes a volume"),
        "zpool" if has(&["destroy", "labelclear"]) => format("destroys a pool"),
        "zfs" if has(&["destroy"]) => format("destroys a data set"),
        "badblocks" if has(&["-w"]) => format("overwrites a disk with test patterns"),
        "killall5" => Some((Rule::KillAll, "`killall5` signals every process".into())),
        "shutdown" | "reboot" | "halt" | "poweroff" => {
            Some((Rule::Shutdown, format!("`{name}` stops the machine")))
        }
        "init" | "telinit" if has(&["0", "6", "s", "S", "1"]) => {
            Some((Rule::Shutdown, format!("`{name}` changes the run level")))
        }
        "systemctl" | "loginctl"
            if has(&[
                "poweroff",
                "reboot",
                "halt",
                "kexec",
                "emergency",
                "rescue",
                "soft-reboot",
                "rescue.target",
                "emergency.target",
                "poweroff.target",
                "reboot.target",
                "halt.target",
            ]) =>
        {
            Some((
                Rule::Shutdown,
                format!("`{name}` stops or reboots the machine"),
            ))
        }
        _ => None,
    }
}
