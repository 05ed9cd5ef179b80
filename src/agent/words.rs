//! The CLI-style form of a tool call (`read --file main.go --start 10`): splitting it into words,
//! then words into a subcommand and params.
//!
//! Splitting follows the shell closely enough for what models write: whitespace separates words
//! outside quotes; single quotes keep everything literally; inside double quotes a backslash
//! escapes only `"`, `\`, `$` and `` ` `` (so `\n` stays two characters, as in sh); outside quotes a
//! backslash escapes any character. A newline inside quotes stays. An unbalanced quote or a
//! trailing backslash is C210 naming the character position. This is never used to decide whether
//! a command is safe to run; it only reads flags.

use coderd_core::error::{Error, Result};
pub use wire::argv::Word;

/// Splits CLI-style text into words.
pub fn split(text: &str) -> Result<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars().enumerate().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some((_, '\'')) => break,
                        Some((_, ch)) => word.push(ch),
                        None => return Err(unbalanced('\'', at)),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        Some((_, '\\')) => match chars.next() {
                            Some((_, ch @ ('"' | '\\' | '$' | '`'))) => word.push(ch),
                            Some((_, ch)) => {
                                word.push('\\');
                                word.push(ch);
                            }
                            None => return Err(unbalanced('"', at)),
                        },
                        Some((_, ch)) => word.push(ch),
                        None => return Err(unbalanced('"', at)),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some((_, ch)) => word.push(ch),
                    None => {
                        return Err(Error::bad_input(format!(
                            "the CLI-style args end with a lone backslash at character {at}"
                        ))
                        .with_recovery("remove it, or quote the value"))
                    }
                }
            }
            _ => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

fn unbalanced(quote: char, at: usize) -> Error {
    Error::bad_input(format!(
        "unbalanced {quote} in the CLI-style args: the quote at character {at} is never closed"
    ))
    .with_recovery(r#"close the quote, or send JSON args ({"cmd": ..., "args": {...}})"#)
}

/// A word after the subcommand, read as `coder` reads its command line (`wire::argv`), with
/// single-dash flags (`-cmd`) allowed, as models write them.
pub fn classify(word: &str) -> Word<'_> {
    wire::argv::classify(word, true)
}

/// Whether a plain string is CLI-style args rather than a bare value: a flag after the first
/// word, or a first word that is itself a flag (`--file a.go`).
pub fn looks_like_cli(text: &str) -> bool {
    let Ok(words) = split(text) else {
        return false;
    };
    words
        .iter()
        .any(|w| matches!(classify(w), Word::Flag { .. }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_escapes_and_newlines() {
        assert_eq!(
            split(r#"patch --search "fmt.Println(\"old\")" --replace 'it''s' a\ b"#).unwrap(),
            [
                "patch",
                "--search",
                "fmt.Println(\"old\")",
                "--replace",
                "its",
                "a b"
            ]
        );
        assert_eq!(split("a \"x\ny\"").unwrap(), ["a", "x\ny"]);
        assert_eq!(split(r#""a\nb""#).unwrap(), [r"a\nb"]);
    }

    #[test]
    fn an_unbalanced_quote_names_its_position() {
        let e = split(r#"write --content "abc"#).unwrap_err();
        assert!(e.message.contains("character 16"), "{e}");
        assert!(split("a b\\").is_err());
    }

    #[test]
    fn flags_and_values() {
        assert_eq!(
            classify("--file"),
            Word::Flag {
                name: "file",
                value: None
            }
        );
        assert_eq!(
            classify("-cmd"),
            Word::Flag {
                name: "cmd",
                value: None
            }
        );
        assert_eq!(
            classify("--max-bytes=5"),
            Word::Flag {
                name: "max-bytes",
                value: Some("5")
            }
        );
        assert_eq!(classify("--- a/main.go"), Word::Value("--- a/main.go"));
        assert_eq!(classify("-5"), Word::Value("-5"));
    }
}
