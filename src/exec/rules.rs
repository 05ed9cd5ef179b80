//! The built-in rules: catastrophic commands that are refused whatever the config says. Each rule
//! has a name (reported in C214 and by `dry_run`) and looks at one simple command at a time (its
//! argv, redirects and pipeline position), after wrappers are unwrapped, so no spelling of the
//! command escapes it: not flag order, quoting, escapes, absolute paths, wrappers, substitutions or
//! shell strings. A word the rule needs but cannot know (a variable, a substitution) is treated as
//! "could be anything": if it could name a protected path or a disk, the command is refused as
//! unresolvable, with a hint to write it plainly.

use super::parse::{expand_braces, is_downloader, Piece, SimpleCommand, Word};
use super::wrappers::{
    code_strings, find_start_paths, inline_code, is_interpreter, is_shell,
    reads_program_from_stdin, Analysis, FIND_EXEC_NARROWED,
};
use regex::Regex;
use serde::Serialize;
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

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
    /// Whether `path` (as the rules print it) is one of the workspace roots.
    fn is_root(&self, path: &str) -> bool {
        self.roots.iter().any(|r| r.as_os_str() == path)
    }

    /// Paths whose deletion (recursive) is catastrophic: `/`, system folders, the home folder
    /// and its ancestors, each workspace root and its ancestors.
    fn protected(&self) -> Vec<String> {
        let mut out: Vec<String> = SYSTEM_FOLDERS.iter().map(|s| s.to_string()).collect();
        out.push("/".into());
        // What a pattern or variable under `/proc/PID/` could reach: `/` itself.
        out.push("/proc/1/root".into());
        out.push("/proc/1/cwd".into());
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

    /// Whether the working folder is known (a `cd "$X"` earlier in the command makes it not).
    fn cwd_known(&self) -> bool {
        self.cwd.is_absolute()
    }

    fn absolute(&self, text: &str) -> PathBuf {
        normalize(&self.cwd.join(text))
    }

    /// The same places with another working folder (`None`: only known at run time).
    fn with_cwd(&self, cwd: Option<&PathBuf>) -> Places {
        Places {
            cwd: cwd.cloned().unwrap_or_default(),
            home: self.home.clone(),
            roots: self.roots.clone(),
        }
    }
}

/// The most working folders a command's `cd`s are followed into before the rest count as unknown.
const MAX_WORKING_FOLDERS: usize = 16;

/// Every folder a command of the analysis may run in: the request's folder and each `cd`,
/// `pushd` target reached from any of them. A `cd` may fail or sit in a subshell, a loop or a
/// branch, so the folders before it stay possible too: `cd /tmp/x; rm -rf *` is checked in both.
fn working_folders(analysis: &Analysis, places: &Places) -> Vec<Option<PathBuf>> {
    let mut folders = vec![Some(places.cwd.clone())];
    for command in &analysis.commands {
        let Some(name) = command.name() else { continue };
        if name != "cd" && name != "pushd" {
            continue;
        }
        let operand = command.argv[1..]
            .iter()
            .find(|w| w.text().is_none_or(|t| !t.starts_with('-') || t == "-"));
        let reached: Vec<Option<PathBuf>> = folders
            .iter()
            .map(|from| cd_target(operand, from.as_ref(), places))
            .collect();
        for folder in reached {
            if !folders.contains(&folder) {
                folders.push(folder);
            }
        }
        if folders.len() > MAX_WORKING_FOLDERS {
            folders.truncate(MAX_WORKING_FOLDERS);
            folders.push(None);
            break;
        }
    }
    folders
}

/// Where `cd OPERAND` leads from `from` (`None`: only known at run time).
fn cd_target(operand: Option<&Word>, from: Option<&PathBuf>, places: &Places) -> Option<PathBuf> {
    let Some(operand) = operand else {
        return places.home.clone();
    };
    let here = places.with_cwd(from);
    let pieces = known_pieces(operand, &here);
    let text: Option<String> = pieces
        .iter()
        .map(|p| p.as_ref().map(|(t, _)| t.as_str()))
        .collect();
    let text = text.filter(|t| t != "-" && !has_glob(&pieces))?;
    match (text.starts_with('/'), from) {
        (true, _) => Some(normalize(Path::new(&text))),
        (false, Some(from)) => Some(normalize(&from.join(&text))),
        (false, None) => None,
    }
}

/// `..` and `.` applied lexically (rm does not follow symlinks in the paths it is given), and
/// `/proc/PID/root` (`/proc/PID/cwd`, `/proc/PID/task/TID/...`) seen as the `/` it reaches.
fn normalize(path: &Path) -> PathBuf {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                parts.pop();
            }
            Component::Normal(name) => parts.push(name),
            _ => {}
        }
        if is_proc_root(&parts) {
            parts.clear();
        }
    }
    let mut out = PathBuf::from("/");
    out.extend(parts);
    out
}

/// `proc/X/root`, `proc/X/cwd`, `proc/X/task/Y/root`, `proc/X/task/Y/cwd`.
fn is_proc_root(parts: &[&std::ffi::OsStr]) -> bool {
    let last = parts.last().is_some_and(|p| *p == "root" || *p == "cwd");
    last && parts[0] == "proc" && (parts.len() == 3 || (parts.len() == 5 && parts[2] == "task"))
}

/// A relative path as bash would pass it with `.` dropped; `None` when it climbs out (`..`)
/// or names the folder itself, which only a known working folder can resolve.
fn relative_inside(text: &str) -> Option<String> {
    let mut parts = Vec::new();
    for part in text.split('/') {
        match part {
            "" | "." => {}
            ".." => return None,
            _ => parts.push(part),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
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

/// `/proc/PID/root/...` with a PID only known at run time (`/proc/$$/root/usr`) still reaches `/`.
static PROC_ROOT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^/proc/[^/]+/(?:task/[^/]+/)?(?:root|cwd)(?:/|$)").expect("a valid regex")
});

/// A word with the variables the daemon knows substituted; `None` pieces are unknown.
fn known_pieces(word: &Word, places: &Places) -> Vec<Option<(String, bool)>> {
    let pieces = substituted(word, places);
    // The shape of the word with one NUL for each unknown piece, to find a `/proc/X/root` prefix.
    let shape: String = pieces
        .iter()
        .map(|p| p.as_ref().map_or("\0", |(t, _)| t.as_str()))
        .collect();
    let Some(prefix) = PROC_ROOT.find(&shape) else {
        return pieces;
    };
    let mut cut = prefix.end();
    let mut out = vec![Some(("/".to_string(), false))];
    for piece in pieces {
        let len = piece.as_ref().map_or(1, |(t, _)| t.len());
        if cut >= len {
            cut -= len;
            continue;
        }
        out.push(piece.map(|(t, g)| (t[cut..].to_string(), g)));
        cut = 0;
    }
    out
}

fn substituted(word: &Word, places: &Places) -> Vec<Option<(String, bool)>> {
    word.pieces
        .iter()
        .map(|piece| match piece {
            Piece::Literal { text, glob } => Some((text.clone(), *glob)),
            Piece::Variable(name) if name == "HOME" => places
                .home
                .as_ref()
                .map(|h| (h.to_string_lossy().into_owned(), false)),
            Piece::Variable(name) if name == "PWD" && places.cwd_known() => {
                Some((places.cwd.to_string_lossy().into_owned(), false))
            }
            _ => None,
        })
        .collect()
}

/// A regex for every value the word can take: unknown pieces match anything, globs match
/// within a path component (`*`, `?`, `[...]` as any one character). Relative words are
/// anchored at the working folder, or anywhere when it is unknown.
fn word_regex(pieces: &[Option<(String, bool)>], places: &Places) -> Regex {
    let mut pieces: Vec<Option<(String, bool)>> = pieces
        .iter()
        .filter(|p| !matches!(p, Some((text, _)) if text.is_empty()))
        .cloned()
        .collect();
    let relative = matches!(pieces.first(), Some(Some((text, _))) if !text.starts_with('/'));
    // A glob with every piece known (`./*`, `../*`) is anchored after `.` and `..` are applied.
    if pieces.iter().all(Option::is_some) && (!relative || places.cwd_known()) {
        let glob = has_glob(&pieces);
        let text: String = pieces.iter().flatten().map(|(t, _)| t.as_str()).collect();
        let abs = places.absolute(&text).to_string_lossy().into_owned();
        pieces = vec![Some((abs, glob))];
    }
    let relative = matches!(pieces.first(), Some(Some((text, _))) if !text.starts_with('/'));
    let mut pattern = String::from("^");
    if relative && places.cwd_known() {
        pattern.push_str(&regex::escape(&places.cwd.to_string_lossy()));
        pattern.push('/');
    } else if relative {
        pattern.push_str("(?:.*/)?");
    }
    for piece in &pieces {
        match piece {
            None => pattern.push_str(".*"),
            Some((text, true)) => pattern.push_str(&glob_regex(text)),
            Some((text, false)) => pattern.push_str(&regex::escape(text)),
        }
    }
    pattern.push_str("/*$");
    Regex::new(&pattern).unwrap_or_else(|_| Regex::new(".*").expect("a valid regex"))
}

/// An unquoted glob as a regex over one path: `*` any run within a component, `?` and a bracket
/// expression (`[u]`, `[!a-z]`) any one character (wider than bash, never narrower).
fn glob_regex(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' => out.push_str("[^/]*"),
            '?' => out.push_str("[^/]"),
            '[' => {
                // The closing `]` (a `]` first in the set, after `!` or `^`, is literal).
                let mut j = i + 1;
                if matches!(chars.get(j), Some('!' | '^')) {
                    j += 1;
                }
                if chars.get(j) == Some(&']') {
                    j += 1;
                }
                match chars[j.min(chars.len())..].iter().position(|&c| c == ']') {
                    Some(end) => {
                        out.push_str("[^/]");
                        i = j + end;
                    }
                    None => out.push_str(&regex::escape("[")),
                }
            }
            c => out.push_str(&regex::escape(&c.to_string())),
        }
        i += 1;
    }
    out
}

fn has_glob(pieces: &[Option<(String, bool)>]) -> bool {
    pieces
        .iter()
        .flatten()
        .any(|(text, glob)| *glob && text.contains(['*', '?', '[']))
}

/// The paths a fully known word names (its brace forms expanded), or `None` when it names too
/// many to list.
fn known_paths(pieces: &[Option<(String, bool)>]) -> Option<Vec<String>> {
    let text: String = pieces.iter().flatten().map(|(t, _)| t.as_str()).collect();
    expand_braces(&text)
}

/// The longest path the kernel takes: a longer word names nothing (ENAMETOOLONG), and the
/// checks below need not look at it (they are not linear in its length).
const PATH_MAX: usize = 4096;

fn too_long(word: &Word) -> bool {
    word.pieces
        .iter()
        .map(|p| match p {
            Piece::Literal { text, .. } => text.len(),
            _ => 0,
        })
        .sum::<usize>()
        > PATH_MAX
}

/// Whether a word used as a delete (or chmod) target can name a protected path.
fn classify_path(word: &Word, places: &Places) -> PathWord {
    if too_long(word) {
        return PathWord::Safe;
    }
    let protected = places.protected();
    let pieces = known_pieces(word, places);
    let unknown = pieces.iter().any(Option::is_none);
    let relative = matches!(pieces.first(), Some(Some((t, _))) if !t.starts_with('/'));
    if !unknown && !has_glob(&pieces) {
        let Some(paths) = known_paths(&pieces) else {
            return PathWord::Unknown(format!("{} (too many brace alternatives)", word.source));
        };
        for path in paths {
            if relative && !places.cwd_known() {
                // Relative to a folder only known at run time: `etc` could be `/etc`.
                let Some(inside) = relative_inside(&path) else {
                    return PathWord::Unknown(format!("{path} in a folder only known at run time"));
                };
                if let Some(p) = protected
                    .iter()
                    .find(|p| p.ends_with(&format!("/{inside}")))
                {
                    return PathWord::Unknown(format!("{path} could be {p}"));
                }
                continue;
            }
            let shown = places.absolute(&path).to_string_lossy().into_owned();
            if protected.contains(&shown) {
                return PathWord::Protected(shown.clone(), shown);
            }
        }
        return PathWord::Safe;
    }
    // `..` after a part only known at run time (`~-/..`, `$D/..`) can climb anywhere.
    let climbs = unknown
        && pieces
            .iter()
            .flatten()
            .any(|(t, _)| t.split('/').any(|part| part == ".."));
    if climbs {
        return PathWord::Unknown(format!(
            "{} climbs out of a path only known at run time",
            word.source
        ));
    }
    if relative && !places.cwd_known() {
        let text: String = pieces.iter().flatten().map(|(t, _)| t.as_str()).collect();
        if relative_inside(&text).is_none() {
            return PathWord::Unknown(format!(
                "{} in a folder only known at run time",
                word.source
            ));
        }
    }
    let regex = word_regex(&pieces, places);
    let hit = protected.iter().find(|p| regex.is_match(p));
    // A glob that takes every entry of a protected folder (`~/*`, `/*`, `*` in a root) empties it.
    let empties = || {
        protected
            .iter()
            .find(|p| regex.is_match(&format!("{}/coderd-probe-entry", p.trim_end_matches('/'))))
    };
    let unknown = unknown || !places.cwd_known() && relative;
    match (hit.or_else(empties), unknown) {
        (Some(p), false) => {
            PathWord::Protected(format!("{} (matches {p})", word.source), p.clone())
        }
        (Some(p), true) => PathWord::Unknown(format!("{} could be {p}", word.source)),
        (None, _) => PathWord::Safe,
    }
}

/// Whether a word used as a write target can be a block device or kernel interface.
fn classify_device(word: &Word, places: &Places) -> PathWord {
    if too_long(word) {
        return PathWord::Safe;
    }
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

fn rm(args: &[Word], places: &Places, narrowed: bool) -> Found {
    let (options, targets) = split_options(args);
    let recursive = is_recursive(&options);
    for target in targets {
        let is_glob = has_glob(&known_pieces(target, places));
        match classify_path(target, places) {
            PathWord::Protected(_, matched) if narrowed && places.is_root(&matched) => {}
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

/// `rsync --delete SRC DEST` makes DEST a copy of SRC: everything else in DEST is deleted.
fn rsync_delete(args: &[Word], places: &Places) -> Found {
    let (options, operands) = split_options(args);
    let deletes = options.iter().any(|o| {
        o.starts_with("--delete") || o.starts_with("--del") || o == "--remove-source-files"
    });
    let target = operands.last().filter(|_| deletes && operands.len() >= 2)?;
    match classify_path(target, places) {
        PathWord::Protected(p, _) => Some((
            Rule::RecursiveDelete,
            format!("`rsync --delete` deletes what is in {p} and not in the source"),
        )),
        PathWord::Unknown(p) => Some((
            Rule::Unresolvable,
            format!("`rsync --delete` into a path only known at run time: {p}"),
        )),
        PathWord::Safe => None,
    }
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
            PathWord::Protected(_, matched) if narrowed && places.is_root(&matched) => {}
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

/// Files whose loss or overwriting breaks the system: what is directly in `/etc` and its
/// security folders, programs and libraries, the boot folder, kernel settings, package
/// databases. (`/usr/local` and `/etc/apt/sources.list.d`-style folders are where installs go.)
static SYSTEM_FILE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^/(etc/[^/]+|etc/(pam\.d|sudoers\.d|ssh|security|default|systemd|init\.d|cron[^/]*|ld\.so\.conf\.d|profile\.d|network)/.+",
        r"|boot/.+|(usr/)?(s?bin|lib|lib32|lib64|libx32|libexec)/.+",
        r"|proc/sys/.+|sys/.+|var/lib/(dpkg|rpm|apt|pacman)/.+|var/spool/cron/.+)$"
    ))
    .expect("a valid regex")
});

/// Examples of system files, tried against a glob (`/bin/*`, `/etc/pass?d`).
const SYSTEM_FILE_SAMPLES: &[&str] = &[
    "/etc/passwd",
    "/etc/shadow",
    "/etc/sudoers",
    "/etc/fstab",
    "/etc/pam.d/common-auth",
    "/bin/sh",
    "/usr/bin/env",
    "/usr/lib/libc.so.6",
    "/lib/x86_64-linux-gnu/libc.so.6",
    "/usr/lib/x86_64-linux-gnu/libc.so.6",
    "/usr/lib64/libc.so.6",
    "/sbin/init",
    "/boot/vmlinuz",
    "/proc/sys/kernel/panic",
    "/sys/kernel/mm/x",
    "/var/lib/dpkg/status",
];

/// The system file a write target names, if any. A target only known at run time is not
/// assumed to be one (`> "$LOG"` is everyday); a glob that can match one is.
fn classify_system_file(word: &Word, places: &Places) -> Option<String> {
    if too_long(word) {
        return None;
    }
    let pieces = known_pieces(word, places);
    if pieces.iter().any(Option::is_none) {
        return None;
    }
    let relative = matches!(pieces.first(), Some(Some((t, _))) if !t.starts_with('/'));
    if relative && !places.cwd_known() {
        return None;
    }
    if !has_glob(&pieces) {
        let paths = known_paths(&pieces)?;
        return paths.into_iter().find_map(|path| {
            let abs = places.absolute(&path).to_string_lossy().into_owned();
            (SYSTEM_FILE.is_match(&abs) || is_login_file(&abs, places)).then_some(abs)
        });
    }
    let regex = word_regex(&pieces, places);
    SYSTEM_FILE_SAMPLES
        .iter()
        .find(|s| regex.is_match(s))
        .map(|s| format!("{} (matches {s})", word.source))
}

/// The files in the home folder a login reads (`~/.bashrc`, `~/.ssh/authorized_keys`, ...).
fn is_login_file(abs: &str, places: &Places) -> bool {
    const LOGIN_FILES: &[&str] = &[
        ".bashrc",
        ".bash_profile",
        ".profile",
        ".zshrc",
        ".zprofile",
        ".bash_login",
        ".ssh/authorized_keys",
        ".ssh/config",
        ".ssh/id_rsa",
        ".ssh/id_ed25519",
    ];
    let Some(home) = places
        .home
        .as_ref()
        .map(|h| h.to_string_lossy().into_owned())
    else {
        return false;
    };
    abs.strip_prefix(home.trim_end_matches('/'))
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|rest| LOGIN_FILES.contains(&rest))
}

/// Commands that overwrite, truncate or delete a system file.
fn system_write(name: &str, args: &[Word], places: &Places) -> Found {
    let (options, operands) = split_options(args);
    let has = |short: char, long: &str| {
        options
            .iter()
            .any(|o| o == long || (!o.starts_with("--") && o.contains(short)))
    };
    let first_system = |words: &[&Word]| words.iter().find_map(|w| classify_system_file(w, places));
    let what = match name {
        "crontab" if has('r', "--remove") => {
            return Some((
                Rule::SystemFileWrite,
                "`crontab -r` deletes the user's crontab".into(),
            ))
        }
        "truncate" => {
            let values = ["-s", "--size", "-r", "--reference"];
            let targets: Vec<&Word> = args
                .iter()
                .enumerate()
                .filter(|(i, w)| {
                    let value = *i > 0
                        && args[i - 1]
                            .text()
                            .is_some_and(|t| values.contains(&t.as_str()));
                    !value && w.text().is_none_or(|t| !t.starts_with('-'))
                })
                .map(|(_, w)| w)
                .collect();
            first_system(&targets).map(|p| format!("`truncate` empties {p}"))
        }
        "tee" if !has('a', "--append") => {
            first_system(&operands).map(|p| format!("`tee` overwrites {p}"))
        }
        "rm" | "shred" | "unlink" => {
            first_system(&operands).map(|p| format!("`{name}` deletes {p}"))
        }
        "sed" | "perl"
            if options.iter().any(|o| {
                o.starts_with("-i")
                    || o.starts_with("--in-place")
                    || (name == "perl" && o.starts_with("-p") && o.contains('i'))
            }) =>
        {
            first_system(&operands).map(|p| format!("`{name} -i` rewrites {p}"))
        }
        "mv" => first_system(&operands).map(|p| format!("`mv` moves or replaces {p}")),
        // `chmod 000 /etc/passwd`, `chmod -x /bin/chmod`: the file stays, but nothing can use it.
        "chmod" | "chown" | "chgrp" => {
            let by_reference = options.iter().any(|o| o.starts_with("--reference"));
            let targets: Vec<&Word> = operands
                .iter()
                .skip(usize::from(!by_reference))
                .copied()
                .collect();
            let mode_as_option = args.iter().any(|w| {
                w.text().is_some_and(|t| {
                    t.starts_with('-')
                        && t.len() > 1
                        && t[1..].chars().all(|c| "rwxXst".contains(c))
                })
            });
            let targets = if mode_as_option && name == "chmod" {
                operands.clone()
            } else {
                targets
            };
            // A login file's owner may well tighten its mode (`chmod 600 ~/.ssh/config`).
            first_system(&targets)
                .filter(|p| !is_login_file(p, places))
                .map(|p| format!("`{name}` changes who can use {p}"))
        }
        "cp" | "install" | "ln" | "rsync" => {
            let last = operands.last().filter(|_| operands.len() >= 2).copied();
            last.and_then(|w| classify_system_file(w, places))
                .map(|p| format!("`{name}` overwrites {p}"))
        }
        "dd" => args.iter().find_map(|w| {
            let text = w.text()?;
            let target = text.strip_prefix("of=")?;
            classify_system_file(&Word::literal(target), places)
                .map(|p| format!("`dd` overwrites {p}"))
        }),
        _ => None,
    };
    what.map(|reason| (Rule::SystemFileWrite, reason))
}

/// Calls in inline interpreter code that delete, or write files.
const CODE_DELETES: &[&str] = &[
    "rmtree",
    "remove_tree",
    "rm_rf",
    "rm_r",
    "rmdir",
    "unlink",
    "rmSync",
    "rmdirSync",
    "removeSync",
    "remove_dir_all",
    "os.remove",
    "FileUtils.rm",
    "fs.rm",
    "File.delete",
    "Dir.delete",
    "removedirs",
    "rimraf",
    "emptyDir",
    "delete_tree",
    "remove_dir",
    "remove_entry",
    ".rm(",
    ".remove(",
];
const CODE_WRITES: &[&str] = &[
    "open(",
    "write_text",
    "write_bytes",
    "writeFileSync",
    "File.write",
    "File.open",
    "truncate",
    "IO.write",
    "writeFile",
    "copyfile",
    "shutil.copy",
    "shutil.move",
    "rename",
    "os.replace",
];
/// How inline code names the home folder without writing it.
const CODE_HOME: &[&str] = &[
    "Path.home()",
    "homedir()",
    "Dir.home",
    "ENV['HOME']",
    "ENV[\"HOME\"]",
    "$ENV{HOME}",
    "environ['HOME']",
    "environ[\"HOME\"]",
    "getenv('HOME')",
    "getenv(\"HOME\")",
    "process.env.HOME",
    "expanduser(\"~\")",
    "expanduser('~')",
];

/// `python -c`, `perl -e`, `ruby -e`, `node -e`: a statement that deletes or writes with a
/// literal protected path (`shutil.rmtree('/')`, `open('/etc/passwd', 'w')`). Shell calls in
/// the code are read by the wrappers; anything else runs as the code says (the sandbox's job).
fn interpreter_code(name: &str, args: &[Word], places: &Places) -> Found {
    if !is_interpreter(name) {
        return None;
    }
    let code = inline_code(args)?;
    for statement in code.split([';', '\n']) {
        let deletes = CODE_DELETES.iter().any(|m| statement.contains(m));
        let writes = CODE_WRITES.iter().any(|m| statement.contains(m));
        if !deletes && !writes {
            continue;
        }
        let mut paths: Vec<Word> = code_strings(statement)
            .iter()
            .map(|s| path_word(s))
            .collect();
        if CODE_HOME.iter().any(|m| statement.contains(m)) {
            paths.push(path_word("~"));
        }
        for path in &paths {
            if deletes {
                if let PathWord::Protected(p, _) = classify_path(path, places) {
                    return Some((Rule::RecursiveDelete, format!("`{name}` code deletes {p}")));
                }
            }
            if let Some(p) = classify_system_file(path, places) {
                return Some((
                    Rule::SystemFileWrite,
                    format!("`{name}` code writes or deletes {p}"),
                ));
            }
            if writes {
                if let PathWord::Protected(p, _) = classify_device(path, places) {
                    return Some((Rule::DeviceWrite, format!("`{name}` code writes to {p}")));
                }
            }
        }
    }
    None
}

/// A path written in code as a word bash would see (`~` and `~/x` are the home folder).
fn path_word(text: &str) -> Word {
    match text.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => Word {
            pieces: vec![
                Piece::Variable("HOME".into()),
                Piece::Literal {
                    text: rest.to_string(),
                    glob: false,
                },
            ],
            source: text.to_string(),
            downloads: false,
        },
        _ => Word::literal(text),
    }
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
fn kill_by_name(name: &str, args: &[Word]) -> Found {
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
fn xargs_bomb(command: &SimpleCommand, args: &[Word], analysis: &Analysis) -> Found {
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
