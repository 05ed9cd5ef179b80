//! Reading a word as a path or a device: the known pieces of a word with variables and
//! substitutions as "could be anything", globs, and what the word could name.

use super::places::{Places, DEVICE, DEVICE_SAMPLES};
use crate::parse::{expand_braces, Piece, Word};
use regex::Regex;
use std::sync::LazyLock;

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
pub(super) enum PathWord {
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
pub(super) fn known_pieces(word: &Word, places: &Places) -> Vec<Option<(String, bool)>> {
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
pub(super) fn word_regex(pieces: &[Option<(String, bool)>], places: &Places) -> Regex {
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

pub(super) fn has_glob(pieces: &[Option<(String, bool)>]) -> bool {
    pieces
        .iter()
        .flatten()
        .any(|(text, glob)| *glob && text.contains(['*', '?', '[']))
}

/// The paths a fully known word names (its brace forms expanded), or `None` when it names too
/// many to list.
pub(super) fn known_paths(pieces: &[Option<(String, bool)>]) -> Option<Vec<String>> {
    let text: String = pieces.iter().flatten().map(|(t, _)| t.as_str()).collect();
    expand_braces(&text)
}

/// The longest path the kernel takes: a longer word names nothing (ENAMETOOLONG), and the
/// checks below need not look at it (they are not linear in its length).
const PATH_MAX: usize = 4096;

pub(super) fn too_long(word: &Word) -> bool {
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
pub(super) fn classify_path(word: &Word, places: &Places) -> PathWord {
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
pub(super) fn classify_device(word: &Word, places: &Places) -> PathWord {
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
