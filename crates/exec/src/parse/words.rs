//! Static word resolution: quotes, escapes, `$'...'`, tildes and brace expansion turned into the
//! text bash would pass.

use super::{Piece, Word};

/// The most words one brace expansion may make before the word counts as unknown.
const MAX_BRACE_WORDS: usize = 1024;

/// A word as brace expansion splits it (`{rm,-rf,/}` is three words, `/u{s..s}r` is `/usr`);
/// braces only expand unquoted. Too many alternatives leave a word only known at run time.
pub(super) fn brace_words(word: Word) -> Vec<Word> {
    let mut text = String::new();
    for piece in &word.pieces {
        match piece {
            Piece::Literal {
                text: t,
                glob: true,
            } => text.push_str(t),
            Piece::Literal {
                text: t,
                glob: false,
            } if !t.contains(['{', '}', ',']) => text.push_str(t),
            _ => return vec![word],
        }
    }
    if !text.contains('{') {
        return vec![word];
    }
    let glob = word.pieces.iter().any(
        |p| matches!(p, Piece::Literal { glob: true, text } if text.contains(['*', '?', '['])),
    );
    match expand_braces(&text) {
        Some(words) if words.len() == 1 && words[0] == text => vec![word],
        Some(words) => words
            .into_iter()
            .map(|text| Word {
                pieces: vec![Piece::Literal { text, glob }],
                source: word.source.clone(),
                downloads: word.downloads,
            })
            .collect(),
        None => vec![Word {
            pieces: vec![Piece::Dynamic(word.source.clone())],
            ..word
        }],
    }
}

/// Bash brace expansion of every form: `{a,b}`, `{a,{b,c}}`, `{1..9..2}`, `{a..z}`, `x{,}`,
/// groups in sequence. `None` when it would make more than `MAX_BRACE_WORDS` words.
pub fn expand_braces(text: &str) -> Option<Vec<String>> {
    // Each group is found by a scan from its `{`: a word with more groups than the words it may
    // make is only known at run time, which also keeps the scans linear.
    if text.matches('{').count() > MAX_BRACE_WORDS {
        return None;
    }
    let mut pending = vec![text.to_string()];
    let mut done = Vec::new();
    while let Some(current) = pending.pop() {
        match first_brace_group(&current) {
            None => done.push(current),
            Some((open, close, alternatives)) => {
                if alternatives.len() + pending.len() + done.len() > MAX_BRACE_WORDS {
                    return None;
                }
                let (prefix, suffix) = (&current[..open], &current[close + 1..]);
                for alternative in alternatives.iter().rev() {
                    pending.push(format!("{prefix}{alternative}{suffix}"));
                }
            }
        }
    }
    Some(done)
}

/// The first `{...}` bash would expand: its bounds and alternatives.
fn first_brace_group(text: &str) -> Option<(usize, usize, Vec<String>)> {
    let bytes = text.as_bytes();
    for open in (0..bytes.len()).filter(|&i| bytes[i] == b'{') {
        let mut depth = 0;
        let mut commas = Vec::new();
        let mut close = None;
        for (i, &b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(i);
                        break;
                    }
                }
                b',' if depth == 1 => commas.push(i),
                _ => {}
            }
        }
        let close = close?;
        let inner = &text[open + 1..close];
        if !commas.is_empty() {
            let mut bounds = vec![open];
            bounds.extend(&commas);
            bounds.push(close);
            let alternatives = bounds
                .windows(2)
                .map(|w| text[w[0] + 1..w[1]].to_string())
                .collect();
            return Some((open, close, alternatives));
        }
        if let Some(sequence) = brace_sequence(inner) {
            return Some((open, close, sequence));
        }
    }
    None
}

/// `1..5`, `10..1..3`, `a..e`: a bash sequence expression's values (bounded).
fn brace_sequence(inner: &str) -> Option<Vec<String>> {
    let parts: Vec<&str> = inner.split("..").collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    let step: i64 = match parts.get(2) {
        Some(s) => s.parse::<i64>().ok()?.checked_abs()?.max(1),
        None => 1,
    };
    let (from, to, letters) = match (parts[0].parse::<i64>(), parts[1].parse::<i64>()) {
        (Ok(a), Ok(b)) => (a, b, false),
        _ => {
            let single = |s: &str| {
                let mut chars = s.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) if c.is_ascii_alphabetic() => Some(c as i64),
                    _ => None,
                }
            };
            (single(parts[0])?, single(parts[1])?, true)
        }
    };
    let count = from.abs_diff(to) / step as u64 + 1;
    if count > MAX_BRACE_WORDS as u64 {
        return Some(vec![String::new(); MAX_BRACE_WORDS + 1]);
    }
    let direction = if to >= from { step } else { -step };
    Some(
        (0..count as i64)
            .map(|k| from + k * direction)
            .map(|v| match letters {
                true => char::from_u32(v as u32)
                    .map(String::from)
                    .unwrap_or_default(),
                false => v.to_string(),
            })
            .collect(),
    )
}

pub(super) fn merge_literals(pieces: Vec<Piece>) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::with_capacity(pieces.len());
    for piece in pieces {
        if let (
            Some(Piece::Literal { text, glob }),
            Piece::Literal {
                text: more,
                glob: more_glob,
            },
        ) = (out.last_mut(), &piece)
        {
            if *glob == *more_glob || more.is_empty() || text.is_empty() {
                text.push_str(more);
                *glob = *glob || *more_glob;
                continue;
            }
        }
        out.push(piece);
    }
    out
}

/// A tilde prefix at the start of a word, as bash expands it: `~` is the home folder, `~+` the
/// working folder, `~-` the previous one, `~user` that user's home (only known at run time).
pub(super) fn split_tilde(text: &str, at_start: bool) -> (Option<Piece>, &str) {
    let Some(after) = text.strip_prefix('~').filter(|_| at_start) else {
        return (None, text);
    };
    let end = after.find('/').unwrap_or(after.len());
    let (prefix, rest) = after.split_at(end);
    let piece = match prefix {
        "" => Piece::Variable("HOME".into()),
        "+" => Piece::Variable("PWD".into()),
        "-" => Piece::Dynamic("~-".into()),
        user if user
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')) =>
        {
            Piece::Dynamic(format!("~{user}"))
        }
        _ => return (None, text),
    };
    (Some(piece), rest)
}

pub(super) fn strip_quotes(text: &str, n: usize) -> &str {
    if text.len() >= 2 * n {
        &text[n..text.len() - n]
    } else {
        ""
    }
}

/// An unquoted word: `\x` is `x`, a `\` before a newline joins lines.
pub(super) fn unescape_unquoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(next) => out.push(next),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Inside `"..."` only `\$`, `` \` ``, `\"`, `\\` and `\newline` are escapes.
pub(super) fn unescape_double_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => out.push(chars.next().unwrap_or('\\')),
                Some('\n') => {
                    chars.next();
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `$'...'`: the C escapes bash decodes (`\xHH`, `\NNN`, `\uHHHH`, `\n`, ...).
pub(super) fn decode_ansi_c(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let digits = |from: usize, radix: u32, max: usize| -> (u32, usize) {
        let mut value = 0u32;
        let mut n = 0;
        while n < max {
            match chars.get(from + n).and_then(|c| c.to_digit(radix)) {
                Some(d) => value = value * radix + d,
                None => break,
            }
            n += 1;
        }
        (value, n)
    };
    while i < chars.len() {
        if chars[i] != '\\' || i + 1 == chars.len() {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let escape = chars[i + 1];
        i += 2;
        let simple = match escape {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'e' | 'E' => Some('\x1b'),
            'f' => Some('\x0c'),
            'v' => Some('\x0b'),
            '\\' | '\'' | '"' | '?' => Some(escape),
            _ => None,
        };
        if let Some(c) = simple {
            out.push(c);
            continue;
        }
        let (value, used) = match escape {
            'x' => digits(i, 16, 2),
            'u' => digits(i, 16, 4),
            'U' => digits(i, 16, 8),
            '0'..='7' => {
                let (v, n) = digits(i - 1, 8, 3);
                (v, n.saturating_sub(1))
            }
            _ => {
                out.push('\\');
                out.push(escape);
                continue;
            }
        };
        i += used;
        // Bash strings end at a NUL byte: `$'/usr\x00junk'` is `/usr`.
        if value == 0 {
            break;
        }
        out.push(char::from_u32(value).unwrap_or('\u{fffd}'));
    }
    out
}
