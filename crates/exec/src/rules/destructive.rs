//! Rules for commands that destroy files or disks: recursive deletes, moves over protected
//! places, recursive permission changes, raw writes to devices.

use super::path_words::{classify_device, classify_path, has_glob, known_pieces, PathWord};
use super::places::Places;
use super::{Found, Rule};
use crate::parse::{Piece, Word};
use crate::wrappers::find_start_paths;

/// Splits arguments into (options, operands) the GNU way: options anywhere until `--`.
pub(super) fn split_options(args: &[Word]) -> (Vec<String>, Vec<&Word>) {
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

pub(super) fn rm(args: &[Word], places: &Places, narrowed: bool) -> Found {
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
pub(super) fn rsync_delete(args: &[Word], places: &Places) -> Found {
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

pub(super) fn find_delete(args: &[Word], places: &Places) -> Found {
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
pub(super) fn mv(args: &[Word], places: &Places) -> Found {
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

pub(super) fn recursive_permissions(args: &[Word], places: &Places) -> Found {
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

pub(super) fn dd(args: &[Word], places: &Places) -> Found {
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
pub(super) fn device_operands(args: &[Word], places: &Places, _skip: &[&str]) -> Found {
    let (_, operands) = split_options(args);
    operands.into_iter().find_map(|w| device_finding(w, places))
}

/// The destination of `cp`/`install`/`rsync`/`ln`: `-t DIR` or the last operand.
pub(super) fn destination(args: &[Word], places: &Places) -> Found {
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

pub(super) fn tar_file(args: &[Word], places: &Places) -> Found {
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
