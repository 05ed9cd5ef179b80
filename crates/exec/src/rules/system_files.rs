//! Rules for writes to system and login files, and code in other languages that deletes or writes
//! them.

use super::destructive::split_options;
use super::path_words::{
    classify_device, classify_path, has_glob, known_paths, known_pieces, too_long, word_regex,
    PathWord,
};

use super::places::Places;
use super::{Found, Rule};
use crate::parse::{Piece, Word};
use crate::wrappers::{code_strings, inline_code, is_interpreter};
use regex::Regex;
use std::sync::LazyLock;

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
pub(super) fn classify_system_file(word: &Word, places: &Places) -> Option<String> {
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
pub(super) fn system_write(name: &str, args: &[Word], places: &Places) -> Found {
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
pub(super) fn interpreter_code(name: &str, args: &[Word], places: &Places) -> Found {
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
