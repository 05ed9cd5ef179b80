//! Shell strings run as scripts: `eval`, `sh -c`, a script operand, and `-c` strings of other
//! wrappers.

use super::Unwrapped;
use crate::parse::Word;

pub(super) fn script_from(word: Option<&Word>, via: &str) -> Unwrapped {
    let Some(word) = word else {
        return Unwrapped::Nothing;
    };
    match word.text() {
        Some(source) => Unwrapped::Script {
            source,
            via: via.to_string(),
        },
        None => Unwrapped::Unreadable(format!(
            "the script given to `{via}` is built at run time ({})",
            word.source
        )),
    }
}

pub(super) fn eval(args: &[Word]) -> Unwrapped {
    if args.is_empty() {
        return Unwrapped::Nothing;
    }
    joined_script(args, "eval", || {
        format!(
            "`eval` runs text built at run time ({})",
            args.iter()
                .map(|w| w.source.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        )
    })
}

/// The words joined by spaces, as the script `via` runs (`eval`, `ssh`'s remote shell); with
/// `unreadable`'s message when a word is only known at run time.
pub(super) fn joined_script(
    words: &[Word],
    via: &str,
    unreadable: impl FnOnce() -> String,
) -> Unwrapped {
    let texts: Option<Vec<String>> = words.iter().map(|w| w.text()).collect();
    match texts {
        Some(texts) => Unwrapped::Script {
            source: texts.join(" "),
            via: via.into(),
        },
        None => Unwrapped::Unreadable(unreadable()),
    }
}

/// `sh -c SCRIPT`, `bash -ec SCRIPT`, `zsh -lc SCRIPT`: the script is parsed as bash.
pub(super) fn shell_c(args: &[Word], name: &str) -> Unwrapped {
    let mut has_c = false;
    let mut i = 0;
    while i < args.len() {
        let Some(text) = args[i].text() else { break };
        if text == "--" {
            i += 1;
            break;
        }
        let is_option = (text.starts_with('-') || text.starts_with('+')) && text.len() > 1;
        if !is_option {
            break;
        }
        if !text.starts_with("--") && text.contains('c') {
            has_c = true;
        }
        let takes_value = matches!(
            text.as_str(),
            "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file"
        );
        i += if takes_value { 2 } else { 1 };
    }
    if !has_c {
        return Unwrapped::Nothing;
    }
    script_from(args.get(i), &format!("{name} -c"))
}

/// `bash <(...)`, `source <(...)`: a script file that is the output of commands, known only when
/// they run. A download there is the `download-to-shell` rule's (it sees the word).
pub(super) fn script_operand(args: &[Word], name: &str) -> Unwrapped {
    let operand = args
        .iter()
        .find(|w| w.text().is_none_or(|t| !t.starts_with('-') || t == "-"));
    match operand {
        Some(word) if word.source.starts_with("<(") || word.source.starts_with("$(") => {
            Unwrapped::Unreadable(format!(
                "`{name}` runs a script made at run time ({})",
                word.source
            ))
        }
        _ => Unwrapped::Nothing,
    }
}

/// `su -c CMD`, `runuser -c CMD`, `script -c CMD` (also in a cluster: `script -qc CMD`).
pub(super) fn dash_c_string(args: &[Word], name: &str) -> Unwrapped {
    for (i, word) in args.iter().enumerate() {
        let Some(text) = word.text() else { continue };
        let cluster = text.starts_with('-') && !text.starts_with("--") && text.ends_with('c');
        if cluster || text == "--command" {
            return script_from(args.get(i + 1), &format!("{name} -c"));
        }
        if let Some(inline) = text.strip_prefix("--command=") {
            return script_from(Some(&Word::literal(inline)), &format!("{name} -c"));
        }
    }
    Unwrapped::Nothing
}
