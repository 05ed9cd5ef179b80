//! Generated edit cases over the real daemon: a seeded generator takes real source files of this
//! repository (in LF and CRLF), picks anchors, perturbs them the ways language models get edits
//! wrong, and sends each as a `patch` over the socket. Every case has an oracle: the exact bytes
//! expected (exact, whitespace-perturbed and replayed edits) or a refusal with the file unchanged
//! (content-perturbed anchors). The bars: zero edits at a wrong place, every byte outside the edit
//! preserved. `CODERD_GEN_CASES` sets the count (120 by default), `CODERD_GEN_SEED` the seed.

use crate::common;

use common::{Client, Daemon, Rng, Sandbox};
use serde_json::json;

const SOURCES: [(&str, &str); 3] = [
    (
        "rs",
        include_str!("../../crates/core/src/documents/splice.rs"),
    ),
    ("py", include_str!("../../scripts/bench-edit.py")),
    ("sh", include_str!("../../scripts/test.sh")),
];

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Exact,
    TrailingSpaces,
    Indented,
    OtherLineEndings,
    ContentChanged,
    Replayed,
}

const KINDS: [Kind; 6] = [
    Kind::Exact,
    Kind::TrailingSpaces,
    Kind::Indented,
    Kind::OtherLineEndings,
    Kind::ContentChanged,
    Kind::Replayed,
];

/// Lines of a text without their endings.
fn lines(text: &str) -> Vec<&str> {
    text.split('\n').map(|l| l.trim_end_matches('\r')).collect()
}

/// A 3-line window whose text, and whose whitespace-trimmed lines, occur once in the file, with
/// no blank line and no tab (so an indentation shift stays uniform).
fn anchor(source: &[&str], rng: &mut Rng) -> Option<usize> {
    let trimmed: Vec<&str> = source.iter().map(|l| l.trim()).collect();
    for _ in 0..200 {
        let at = rng.below(source.len().saturating_sub(3).max(1));
        let window = &trimmed[at..at + 3];
        if window.iter().any(|l| l.len() < 4) || source[at..at + 3].iter().any(|l| l.contains('\t'))
        {
            continue;
        }
        let occurrences = trimmed.windows(3).filter(|w| w == &window).count();
        if occurrences == 1 {
            return Some(at);
        }
    }
    None
}

struct Case {
    name: String,
    file: String,
    search: String,
    replace: String,
    /// `Some(bytes)`: the file afterwards; `None`: refused, file unchanged.
    expect: Option<String>,
    already_applied: bool,
}

fn generate(n: usize, rng: &mut Rng) -> Option<Case> {
    let (ext, source) = SOURCES[rng.below(SOURCES.len())];
    let crlf = rng.below(2) == 0;
    let eol = if crlf { "\r\n" } else { "\n" };
    let source_lines = lines(source);
    let at = anchor(&source_lines, rng)?;
    let file = source_lines.join(eol);
    let window: Vec<String> = source_lines[at..at + 3]
        .iter()
        .map(|l| l.to_string())
        .collect();
    let mut changed = window.clone();
    changed[1] = format!("{}  GEN_{n}", changed[1]);
    let clean_search = window.join(eol);
    let clean_replace = changed.join(eol);
    let clean_after = file.replacen(&clean_search, &clean_replace, 1);
    let kind = KINDS[n % KINDS.len()];
    let (search, replace, file, expect, already_applied) = match kind {
        Kind::Exact => (clean_search, clean_replace, file, Some(clean_after), false),
        Kind::TrailingSpaces => {
            let search = window
                .iter()
                .map(|l| format!("{l}  "))
                .collect::<Vec<_>>()
                .join(eol);
            (search, clean_replace, file, Some(clean_after), false)
        }
        Kind::Indented => {
            let shift = |ls: &[String]| {
                ls.iter()
                    .map(|l| format!("    {l}"))
                    .collect::<Vec<_>>()
                    .join(eol)
            };
            (
                shift(&window),
                shift(&changed),
                file,
                Some(clean_after),
                false,
            )
        }
        Kind::OtherLineEndings => {
            let other = if crlf { "\n" } else { "\r\n" };
            (
                window.join(other),
                changed.join(other),
                file,
                Some(clean_after),
                false,
            )
        }
        Kind::ContentChanged => {
            // One letter of the middle line changes: the anchor no longer exists anywhere.
            let middle = &window[1];
            let letters: Vec<usize> = middle
                .char_indices()
                .filter(|(_, c)| c.is_ascii_alphabetic())
                .map(|(i, _)| i)
                .collect();
            let i = letters[rng
                .below(letters.len().max(1))
                .min(letters.len().saturating_sub(1))];
            let c = middle.as_bytes()[i];
            let swapped = if c == b'q' { 'z' } else { 'q' };
            let mut perturbed = window.clone();
            perturbed[1] = format!("{}{swapped}{}", &middle[..i], &middle[i + 1..]);
            let search = perturbed.join(eol);
            let loose = |t: &str| {
                lines(t)
                    .iter()
                    .map(|l| l.trim().to_string())
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            if loose(&file).contains(&loose(&search)) {
                return None; // the perturbed text exists: applying it would be right, not a test
            }
            (search, clean_replace, file, None, false)
        }
        Kind::Replayed => (
            clean_search,
            clean_replace,
            clean_after.clone(),
            Some(clean_after),
            true,
        ),
    };
    Some(Case {
        name: format!("#{n} {kind:?} {ext} {}", if crlf { "crlf" } else { "lf" }),
        file,
        search,
        replace,
        expect,
        already_applied,
    })
}

#[test]
fn generated_perturbed_edits_land_exactly_or_not_at_all() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let mut client = Client::connect(&daemon.socket);
    let mut rng = Rng(env_or("CODERD_GEN_SEED", 0xC0DE_D00D));
    let total = env_or("CODERD_GEN_CASES", 120) as usize;
    let (mut run, mut recovered, mut refused, mut failures) = (0, 0, 0, Vec::new());
    let mut n = 0;
    while run < total {
        n += 1;
        let Some(case) = generate(n, &mut rng) else {
            continue;
        };
        run += 1;
        let rel = format!("gen/{n}.txt");
        sandbox.write(&rel, &case.file);
        let response = client.call(
            "patch",
            json!({"file": rel, "search": case.search, "replace": case.replace, "backup": false}),
        );
        let after = std::fs::read_to_string(sandbox.root.join(&rel)).unwrap();
        let problem = match (&case.expect, response.get("result")) {
            (Some(expected), Some(result)) if &after == expected => {
                if result["already_applied"] != json!(case.already_applied) {
                    Some(format!(
                        "already_applied should be {}: {result}",
                        case.already_applied
                    ))
                } else {
                    if result["matched_with"] != "exact" {
                        recovered += 1;
                    }
                    None
                }
            }
            (Some(_), Some(result)) => Some(format!("wrong bytes after {result}")),
            (Some(_), None) => Some(format!("refused a recoverable edit: {response}")),
            (None, None) if after == case.file => {
                refused += 1;
                None
            }
            (None, None) => Some("refused but the file changed".into()),
            (None, Some(result)) => Some(format!("applied a content-perturbed anchor: {result}")),
        };
        if let Some(problem) = problem {
            failures.push(format!(
                "{}: {problem}\n  search {:?}",
                case.name, case.search
            ));
        }
    }
    eprintln!(
        "generated: {run} cases, {recovered} recovered by a whitespace rule, {refused} refused"
    );
    assert!(
        failures.is_empty(),
        "{} of {run} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(recovered > 0 && refused > 0);
}
