//! The built-in rules: catastrophic commands that are refused whatever the config says. Each rule
//! has a name (reported in C214 and by `dry_run`) and looks at one simple command at a time (its
//! argv, redirects and pipeline position), after wrappers are unwrapped, so no spelling of the
//! command escapes it: not flag order, quoting, escapes, absolute paths, wrappers, substitutions or
//! shell strings. A word the rule needs but cannot know (a variable, a substitution) is treated as
//! "could be anything": if it could name a protected path or a disk, the command is refused as
//! unresolvable, with a hint to write it plainly.

use super::parse::{is_downloader, Piece, SimpleCommand, Word};
use super::wrappers::{find_start_paths, is_shell, Analysis};
use regex::Regex;
use serde::Serialize;
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

/// A built-in or configured rule, by the name C214 reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
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

/// The folders a decision needs: where the command runs, the home folder, the workspace roots.
pub struct Places {
    pub cwd: PathBuf,
    pub home: Option<PathBuf>,
    pub roots: Vec<PathBuf>,
}

/// Top-level folders whose recursive deletion breaks the machine.
const SYSTEM_FOLDERS: &[&str] = &[
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/opt",
    "/proc",
    "/root",
    "/run",
    "/sbin",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/tmp",
    "/snap",
    "/mnt",
    "/media",
    "/usr/bin",
    "/usr/lib",
    "/usr/lib64",
    "/usr/local",
    "/usr/sbin",
    "/usr/share",
    "/usr/include",
    "/usr/libexec",
    "/var/lib",
    "/var/log",
];

/// Block devices and kernel interfaces that must never be written.
static DEVICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^/dev/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk|dm-\d|md\d|loop\d|mapper/|nbd\d|zd\d|rbd\d|bcache\d|sr\d|root$|mem$|kmem$|port$)|^/proc/sysrq-trigger$|^/sys/firmware/efi/efivars",
    )
    .expect("a valid regex")
});

/// Examples of device paths, tried against a pattern for a word only known at run time.
const DEVICE_SAMPLES: &[&str] = &[
    "/dev/sda",
    "/dev/nvme0n1",
    "/dev/vda",
    "/dev/mmcblk0",
    "/dev/disk/by-id/x",
    "/dev/mapper/root",
    "/proc/sysrq-trigger",
];

impl Places {
    /// Paths whose deletion (recursive) is catastrophic: `/`, system folders, the home folder
    /// and its ancestors, each workspace root and its ancestors.
    fn protected(&self) -> Vec<String> {
        let mut out: Vec<String> = SYSTEM_FOLDERS.iter().map(|s| s.to_string()).collect();
        out.push("/".into());
        let mut add_with_ancestors = |path: &Path| {
            for ancestor in path.ancestors() {
                out.push(ancestor.to_string_lossy().into_owned());
            }
        };
        if let Some(home) = &self.home {
            add_with_ancestors(home);
        }
        for root in &self.roots {
            add_with_ancestors(root);
        }
        out.sort();
        out.dedup();
        out
    }

    fn absolute(&self, text: &str) -> PathBuf {
        normalize(&self.cwd.join(text))
    }
}

/// `..` and `.` applied lexically (rm does not follow symlinks in the paths it is given).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            _ => {}
        }
    }
    out
}

/// What a path word can be.
enum PathWord {
    /// Every value it can take is harmless.
    Safe,
    /// It names (or a glob in it matches) a protected path: the description, and that path.
    Protected(String, String),
    /// It is only known at run time and could name a protected path.
    Unknown(String),
}

/// A word with the variables the daemon knows substituted; `None` pieces are unknown.
fn known_pieces(word: &Word, places: &Places) -> Vec<Option<(String, bool)>> {
    word.pieces
        .iter()
        .map(|piece| match piece {
            Piece::Literal { text, glob } => Some((text.clone(), *glob)),
            Piece::Variable(name) if name == "HOME" => places
                .home
                .as_ref()
                .map(|h| (h.to_string_lossy().into_owned(), false)),
            Piece::Variable(name) if name == "PWD" => {
                Some((places.cwd.to_string_lossy().into_owned(), false))
            }
            _ => None,
        })
        .collect()
}

/// A regex for every value the word can take: unknown pieces match anything, globs match
/// within a path component. Relative words are anchored at the working folder.
fn word_regex(pieces: &[Option<(String, bool)>], places: &Places) -> Regex {
    let mut pieces: Vec<Option<(String, bool)>> = pieces
        .iter()
        .filter(|p| !matches!(p, Some((text, _)) if text.is_empty()))
        .cloned()
        .collect();
    // A glob with every piece known (`./*`, `../*`) is anchored after `.` and `..` are applied.
    if pieces.iter().all(Option::is_some) {
        let glob = has_glob(&pieces);
        let text: String = pieces.iter().flatten().map(|(t, _)| t.as_str()).collect();
        let abs = places.absolute(&text).to_string_lossy().into_owned();
        pieces = vec![Some((abs, glob))];
    }
    let mut pattern = String::from("^");
    let relative = matches!(pieces.first(), Some(Some((text, _))) if !text.starts_with('/'));
    if relative {
        pattern.push_str(&regex::escape(&places.cwd.to_string_lossy()));
        pattern.push('/');
    }
    for piece in &pieces {
        match piece {
            None => pattern.push_str(".*"),
            Some((text, glob)) => {
                for c in text.chars() {
                    match c {
                        '*' | '?' | '[' if *glob => pattern.push_str("[^/]*"),
                        _ => pattern.push_str(&regex::escape(&c.to_string())),
                    }
                }
            }
        }
    }
    pattern.push_str("/*$");
    Regex::new(&pattern).unwrap_or_else(|_| Regex::new(".*").expect("a valid regex"))
}

fn has_glob(pieces: &[Option<(String, bool)>]) -> bool {
    pieces
        .iter()
        .flatten()
        .any(|(text, glob)| *glob && text.contains(['*', '?', '[']))
}

/// Whether a word used as a delete (or chmod) target can name a protected path.
fn classify_path(word: &Word, places: &Places) -> PathWord {
    let protected = places.protected();
    let pieces = known_pieces(word, places);
    let unknown = pieces.iter().any(Option::is_none);
    if !unknown && !has_glob(&pieces) {
        let text: String = pieces.iter().flatten().map(|(t, _)| t.as_str()).collect();
        for expanded in expand_braces(&text) {
            let abs = places.absolute(&expanded);
            let shown = abs.to_string_lossy().into_owned();
            if protected.contains(&shown) {
                return PathWord::Protected(shown.clone(), shown);
            }
        }
        return PathWord::Safe;
    }
    let regex = word_regex(&pieces, places);
    let hit = protected.iter().find(|p| regex.is_match(p));
    // A glob that takes every entry of a protected folder (`~/*`, `/*`, `*` in a root) empties it.
    let empties = || {
        protected
            .iter()
            .find(|p| regex.is_match(&format!("{}/coderd-probe-entry", p.trim_end_matches('/'))))
    };
    match (hit.or_else(empties), unknown) {
        (Some(p), false) => {
            PathWord::Protected(format!("{} (matches {p})", word.source), p.clone())
        }
        (Some(p), true) => PathWord::Unknown(format!("{} could be {p}", word.source)),
        (None, _) => PathWord::Safe,
    }
}

/// `{a,b}` alternatives, expanded as bash would (one level per brace pair, nested handled by
/// recursion). Text without a comma inside braces is kept as is.
fn expand_braces(text: &str) -> Vec<String> {
    let Some(open) = text.find('{') else {
        return vec![text.to_string()];
    };
    let mut depth = 0;
    let mut close = None;
    let mut commas = Vec::new();
    for (i, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            ',' if depth == 1 => commas.push(open + i),
            _ => {}
        }
    }
    let (Some(close), false) = (close, commas.is_empty()) else {
        return vec![text.to_string()];
    };
    let mut bounds = vec![open];
    bounds.extend(&commas);
    bounds.push(close);
    let (prefix, suffix) = (&text[..open], &text[close + 1..]);
    bounds
        .windows(2)
        .flat_map(|w| expand_braces(&format!("{prefix}{}{suffix}", &text[w[0] + 1..w[1]])))
        .collect()
}

/// Whether a word used as a write target can be a block device or kernel interface.
fn classify_device(word: &Word, places: &Places) -> PathWord {
    let pieces = known_pieces(word, places);
    let unknown = pieces.iter().any(Option::is_none);
    if !unknown && !has_glob(&pieces) {
        let text: String = pieces.iter().flatten().map(|(t, _)| t.as_str()).collect();
        let abs = places.absolute(&text);
        let shown = abs.to_string_lossy();
        return match DEVICE.is_match(&shown) {
            true => PathWord::Protected(shown.to_string(), shown.into_owned()),
            false => PathWord::Safe,
        };
    }
    let regex = word_regex(&pieces, places);
    match (DEVICE_SAMPLES.iter().find(|s| regex.is_match(s)), unknown) {
        (Some(s), false) => {
            PathWord::Protected(format!("{} (matches {s})", word.source), s.to_string())
        }
        (Some(s), true) => PathWord::Unknown(format!("{} could be {s}", word.source)),
        (None, _) => PathWord::Safe,
    }
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
    for (command, why) in &analysis.unreadable {
        let rule = match command.argv.iter().any(|w| w.downloads) {
            true => Rule::DownloadToShell,
            false => Rule::Unresolvable,
        };
        out.push(Violation {
            rule,
            command: command.shown(),
            reason: why.clone(),
        });
    }
    for command in &analysis.commands {
        check_command(command, analysis, places, &mut out);
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
    let found = match name.as_str() {
        "rm" => rm(args, places),
        "find" => find_delete(args, places),
        "mv" => mv(args, places),
        "chmod" | "chown" | "chgrp" => recursive_permissions(args, places),
        "dd" => dd(args, places),
        "tee" | "shred" => device_operands(args, places, &[]),
        "cp" | "install" | "rsync" | "ln" => destination(args, places),
        "tar" => tar_file(args, places),
        "kill" => kill(args),
        _ => named_rules(&name, args, places),
    };
    if let Some((rule, reason)) = found {
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

/// Splits arguments into (options, operands) the GNU way: options anywhere until `--`.
fn split_options(args: &[Word]) -> (Vec<String>, Vec<&Word>) {
    let mut options = Vec::new();
    let mut operands = Vec::new();
    let mut done = false;
    for word in args {
        match word.text() {
            Some(t) if !done && t == "--" => done = true,
            Some(t) if !done && t.starts_with('-') && t.len() > 1 => options.push(t),
            _ => operands.push(word),
        }
    }
    (options, operands)
}

fn is_recursive(options: &[String]) -> bool {
    options.iter().any(|o| {
        o == "--recursive"
            || o == "--no-preserve-root"
            || (!o.starts_with("--") && (o.contains('r') || o.contains('R')))
    })
}

fn rm(args: &[Word], places: &Places) -> Found {
    let (options, targets) = split_options(args);
    let recursive = is_recursive(&options);
    for target in targets {
        let is_glob = has_glob(&known_pieces(target, places));
        match classify_path(target, places) {
            // Without -r only `rm /*` does harm: it takes `/bin`, `/lib` on merged-usr systems.
            PathWord::Protected(p, matched) if recursive || (is_glob && matched == "/") => {
                return Some((Rule::RecursiveDelete, format!("deletes {p}")))
            }
            PathWord::Unknown(p) if recursive => {
                return Some((
                    Rule::Unresolvable,
                    format!("deletes recursively a path only known at run time: {p}"),
                ))
            }
            _ => {}
        }
    }
    None
}

fn find_delete(args: &[Word], places: &Places) -> Found {
    let deletes = args
        .iter()
        .any(|w| w.text().is_some_and(|t| t == "-delete"));
    if !deletes {
        return None;
    }
    // `find . -name '*.pyc' -delete` in a workspace root deletes only what its name test picks;
    // under `/`, home or a system folder any `-delete` is refused.
    let narrowed = args.windows(2).any(|pair| {
        let test = pair[0].text().unwrap_or_default();
        let pattern = pair[1].text().unwrap_or_default();
        matches!(
            test.as_str(),
            "-name" | "-iname" | "-path" | "-ipath" | "-regex"
        ) && !pattern.is_empty()
            && !pattern.trim_matches(|c| c == '*' || c == '.').is_empty()
    });
    for start in find_start_paths(args) {
        match classify_path(&start, places) {
            PathWord::Protected(_, matched)
                if narrowed
                    && places
                        .roots
                        .iter()
                        .any(|r| r.as_os_str() == matched.as_str()) => {}
            PathWord::Protected(p, _) => {
                return Some((Rule::RecursiveDelete, format!("`find -delete` under {p}")))
            }
            PathWord::Unknown(p) => {
                return Some((
                    Rule::Unresolvable,
                    format!("`find -delete` under a path only known at run time: {p}"),
                ))
            }
            PathWord::Safe => {}
        }
    }
    None
}

/// Moving a protected folder away is deleting it from where everything expects it.
fn mv(args: &[Word], places: &Places) -> Found {
    let (options, operands) = split_options(args);
    let has_target_dir = options
        .iter()
        .any(|o| o == "-t" || o.starts_with("--target-directory"));
    let sources = match has_target_dir {
        true => &operands[..],
        false => &operands[..operands.len().saturating_sub(1)],
    };
    for source in sources {
        if let PathWord::Protected(p, _) = classify_path(source, places) {
            return Some((Rule::RecursiveDelete, format!("moves {p} away")));
        }
    }
    destination(args, places)
}

fn recursive_permissions(args: &[Word], places: &Places) -> Found {
    let (options, operands) = split_options(args);
    if !is_recursive(&options) {
        return None;
    }
    let by_reference = options.iter().any(|o| o.starts_with("--reference"));
    let targets = operands.iter().skip(usize::from(!by_reference));
    for target in targets {
        match classify_path(target, places) {
            PathWord::Protected(p, _) => {
                return Some((
                    Rule::RecursivePermissions,
                    format!("changes permissions or owners of everything under {p}"),
                ))
            }
            PathWord::Unknown(p) => {
                return Some((
                    Rule::Unresolvable,
                    format!(
                        "changes permissions recursively under a path only known at run time: {p}"
                    ),
                ))
            }
            PathWord::Safe => {}
        }
    }
    None
}

fn device_finding(word: &Word, places: &Places) -> Found {
    match classify_device(word, places) {
        PathWord::Protected(p, _) => Some((Rule::DeviceWrite, format!("writes to {p}"))),
        PathWord::Unknown(p) => Some((
            Rule::Unresolvable,
            format!("writes to a target only known at run time: {p}"),
        )),
        PathWord::Safe => None,
    }
}

fn dd(args: &[Word], places: &Places) -> Found {
    args.iter().find_map(|word| {
        let first = match word.pieces.first() {
            Some(Piece::Literal { text, .. }) => text,
            _ => return None,
        };
        let value = first.strip_prefix("of=")?;
        let mut target = word.clone();
        target.pieces[0] = Piece::Literal {
            text: value.to_string(),
            glob: true,
        };
        device_finding(&target, places)
    })
}

/// Any operand naming a device (`tee /dev/sda`, `shred /dev/nvme0n1`).
fn device_operands(args: &[Word], places: &Places, _skip: &[&str]) -> Found {
    let (_, operands) = split_options(args);
    operands.into_iter().find_map(|w| device_finding(w, places))
}

/// The destination of `cp`/`install`/`rsync`/`ln`: `-t DIR` or the last operand.
fn destination(args: &[Word], places: &Places) -> Found {
    if let Some(i) = args.iter().position(|w| {
        w.text()
            .is_some_and(|t| t == "-t" || t == "--target-directory")
    }) {
        return args.get(i + 1).and_then(|w| device_finding(w, places));
    }
    let (_, operands) = split_options(args);
    if operands.len() < 2 {
        return None;
    }
    device_finding(operands[operands.len() - 1], places)
}

fn tar_file(args: &[Word], places: &Places) -> Found {
    let texts: Vec<Option<String>> = args.iter().map(|w| w.text()).collect();
    let creates = texts.iter().flatten().any(|t| {
        t.starts_with("--create")
            || t.starts_with("--append")
            || t.starts_with("--update")
            || (!t.starts_with("--") && (t.contains('c') || t.contains('r') || t.contains('u')))
    });
    if !creates {
        return None;
    }
    for (i, text) in texts.iter().enumerate() {
        let Some(text) = text else { continue };
        if let Some(file) = text.strip_prefix("--file=") {
            return device_finding(&Word::literal(file), places);
        }
        let short_cluster = !text.starts_with("--") && text.trim_start_matches('-').ends_with('f');
        if short_cluster && (text.starts_with('-') || i == 0) || text == "--file" {
            return args.get(i + 1).and_then(|w| device_finding(w, places));
        }
    }
    None
}

fn kill(args: &[Word]) -> Found {
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
    }
    None
}

/// Interpreters that read a program from standard input when given none.
fn is_interpreter(name: &str) -> bool {
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

/// Whether a shell or interpreter takes its program from standard input.
fn reads_program_from_stdin(name: &str, args: &[Word]) -> bool {
    let shell = is_shell(name);
    if !shell && !is_interpreter(name) {
        return false;
    }
    for word in args {
        let Some(text) = word.text() else {
            return false;
        };
        if text == "-" || text == "/dev/stdin" {
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

fn download_to_shell(command: &SimpleCommand, name: &str, analysis: &Analysis) -> Option<String> {
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
fn inline_fork_bomb(name: &str, args: &[Word]) -> Option<String> {
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
