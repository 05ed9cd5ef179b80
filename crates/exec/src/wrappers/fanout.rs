//! Commands run once per input: `xargs`, `parallel` and `find -exec`, with the markers they
//! substitute and the input they read.

use super::{inner, skip_options, Unwrapped};
use crate::parse::{Piece, SimpleCommand, Word};

pub(super) fn xargs(
    command: &SimpleCommand,
    args: &[Word],
    siblings: &[SimpleCommand],
) -> Unwrapped {
    const WITH_VALUE: &[&str] = &[
        "-I",
        "-d",
        "-n",
        "-L",
        "-P",
        "-s",
        "-E",
        "-a",
        "--delimiter",
        "--max-args",
        "--max-lines",
        "--max-procs",
        "--max-chars",
        "--eof",
        "--arg-file",
        "--replace",
    ];
    let mut replace: Option<String> = None;
    let mut i = 0;
    while i < args.len() {
        let Some(text) = args[i].text() else { break };
        if text == "--" {
            i += 1;
            break;
        }
        if !text.starts_with('-') || text == "-" {
            break;
        }
        if text == "-I" || text == "--replace" {
            replace = args.get(i + 1).and_then(|w| w.text());
        } else if let Some(attached) = text.strip_prefix("-I").filter(|s| !s.is_empty()) {
            replace = Some(attached.to_string());
        } else if text == "-i" || text.starts_with("--replace=") {
            replace = Some(text.split_once('=').map_or("{}", |(_, r)| r).to_string());
        }
        i += if WITH_VALUE.contains(&text.as_str()) {
            2
        } else {
            1
        };
    }
    let mut argv: Vec<Word> = if i < args.len() {
        args[i..].to_vec()
    } else {
        vec![Word::literal("echo")]
    };
    let input = xargs_input(command, siblings);
    match replace {
        Some(marker) if !marker.is_empty() => {
            for word in argv.iter_mut().skip(1) {
                *word = replace_marker(word, &marker, &input);
            }
        }
        Some(_) => {}
        None => argv.push(input),
    }
    Unwrapped::Commands(vec![inner(command, "xargs", &argv)])
}

/// A word with each `MARKER` in its literal text replaced by xargs' input (`~/%` → home, then
/// the input).
fn replace_marker(word: &Word, marker: &str, input: &Word) -> Word {
    if !word.source.contains(marker) {
        return word.clone();
    }
    if word.text().is_some_and(|t| t == marker) {
        return input.clone();
    }
    let mut pieces = Vec::new();
    for piece in &word.pieces {
        let Piece::Literal { text, glob } = piece else {
            pieces.push(piece.clone());
            continue;
        };
        for (i, part) in text.split(marker).enumerate() {
            if i > 0 {
                pieces.extend(input.pieces.iter().cloned());
            }
            pieces.push(Piece::Literal {
                text: part.to_string(),
                glob: *glob,
            });
        }
    }
    Word {
        pieces,
        source: word.source.clone(),
        downloads: word.downloads || input.downloads,
    }
}

/// What xargs reads: unknown, except that `find START ... | xargs` yields entries under START (so
/// `find / | xargs rm -f` is `rm -f /*`); a name test (`-name x`) narrows it to entries so named.
fn xargs_input(command: &SimpleCommand, siblings: &[SimpleCommand]) -> Word {
    let feeders: Vec<&SimpleCommand> = siblings
        .iter()
        .filter(|c| c.pipeline == command.pipeline && c.stage + 1 == command.stage)
        .collect();
    let unknown = Word::unknown("<xargs input>");
    let [feeder] = feeders.as_slice() else {
        return unknown;
    };
    if feeder.name().as_deref() != Some("find") {
        return unknown;
    }
    let args = &feeder.argv[1..];
    let starts = find_start_paths(args);
    let [start] = starts.as_slice() else {
        return unknown;
    };
    let Some(start) = start.text() else {
        return unknown;
    };
    let base = format!("{}/", start.trim_end_matches('/'));
    match find_name_filter(args) {
        Some(pattern) => Word {
            pieces: vec![
                Piece::Literal {
                    text: base,
                    glob: false,
                },
                Piece::Dynamic("<found by find>".into()),
                Piece::Literal {
                    text: format!("/{pattern}"),
                    glob: true,
                },
            ],
            source: "<xargs input>".into(),
            downloads: false,
        },
        None => Word {
            pieces: vec![Piece::Literal {
                text: format!("{base}*"),
                glob: true,
            }],
            source: "<xargs input>".into(),
            downloads: false,
        },
    }
}

/// The pattern of a `find` name test that narrows what it finds (`-name '*.pyc'`; not `-name '*'`).
pub fn find_name_filter(args: &[Word]) -> Option<String> {
    args.windows(2).find_map(|pair| {
        let test = pair[0].text()?;
        let pattern = pair[1].text()?;
        let narrows = matches!(
            test.as_str(),
            "-name" | "-iname" | "-path" | "-ipath" | "-regex"
        ) && !pattern.trim_matches(|c| c == '*' || c == '.').is_empty();
        narrows.then_some(pattern)
    })
}

/// `parallel CMD ARGS ::: INPUTS`: the command runs with each input appended.
pub(super) fn parallel(command: &SimpleCommand, args: &[Word]) -> Unwrapped {
    let Some(at) = skip_options(args, &["-j", "--jobs", "-S", "--sshlogin"]) else {
        return Unwrapped::Nothing;
    };
    let end = args
        .iter()
        .position(|w| w.text().is_some_and(|t| t.starts_with(":::")))
        .unwrap_or(args.len());
    if at >= end {
        return Unwrapped::Nothing;
    }
    let inputs: Vec<Word> = match end < args.len() {
        true => args[end + 1..].to_vec(),
        false => vec![Word::unknown("<parallel input>")],
    };
    let commands = inputs
        .into_iter()
        .map(|input| {
            let mut argv = args[at..end].to_vec();
            argv.push(input);
            inner(command, "parallel", &argv)
        })
        .collect();
    Unwrapped::Commands(commands)
}

/// The start paths of a `find` command: the operands before its first expression word.
pub fn find_start_paths(args: &[Word]) -> Vec<Word> {
    let mut i = 0;
    // Leading options -H -L -P -D debugopts -Olevel.
    while let Some(text) = args.get(i).and_then(|w| w.text()) {
        match text.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            t if t.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let starts: Vec<Word> = args[i.min(args.len())..]
        .iter()
        .take_while(|w| {
            w.text()
                .is_none_or(|t| !(t.starts_with('-') || t == "(" || t == "!" || t == ","))
        })
        .cloned()
        .collect();
    if starts.is_empty() {
        vec![Word::literal(".")]
    } else {
        starts
    }
}

/// How a command run by `find -exec` is marked when a name test narrows what find yields.
pub const FIND_EXEC_NARROWED: &str = "find -name … -exec";

/// `find ... -exec CMD {} ;` runs CMD once per found path, the start paths among them.
pub(super) fn find_exec(command: &SimpleCommand, args: &[Word]) -> Unwrapped {
    let starts = find_start_paths(args);
    let mut commands = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let is_exec = args[i]
            .text()
            .is_some_and(|t| matches!(t.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"));
        if !is_exec {
            i += 1;
            continue;
        }
        let end = args[i + 1..]
            .iter()
            .position(|w| w.text().is_some_and(|t| t == ";" || t == "+"))
            .map_or(args.len(), |p| i + 1 + p);
        let template = &args[i + 1..end];
        if !template.is_empty() {
            for start in &starts {
                let argv: Vec<Word> = template
                    .iter()
                    .map(|w| substitute_braces(w, start))
                    .collect();
                // The rules let a name-filtered find act on a workspace root, as with -delete.
                let via = match find_name_filter(args) {
                    Some(_) => FIND_EXEC_NARROWED,
                    None => "find -exec",
                };
                commands.push(inner(command, via, &argv));
            }
        }
        i = end + 1;
    }
    if commands.is_empty() {
        Unwrapped::Nothing
    } else {
        Unwrapped::Commands(commands)
    }
}

/// `{}` in a `find -exec` word stands for the found path.
fn substitute_braces(word: &Word, path: &Word) -> Word {
    match (word.text(), path.text()) {
        (Some(text), Some(path_text)) if text.contains("{}") => {
            Word::literal(&text.replace("{}", &path_text))
        }
        (Some(text), None) if text.contains("{}") => path.clone(),
        _ => word.clone(),
    }
}
