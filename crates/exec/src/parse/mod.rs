//! Bash source → every simple command it could run. The command is parsed with tree-sitter-bash
//! and walked whole: lists, pipelines, subshells, loops, conditionals, function bodies, heredoc
//! bodies, and the commands inside `$(...)`, backticks, `<(...)` and `>(...)` wherever they
//! appear (arguments, assignments, redirect targets, `for` lists, test expressions). Nothing is
//! skipped because it looks harmless: the walk visits every node it does not know as a generic
//! container, so a construct the walk has no case for still has its inner commands found.
//!
//! Words are resolved statically: quotes, `\` escapes, `$'...'` and concatenations become the
//! text bash would pass; anything that needs the running shell (`$VAR`, `$(...)`, `$((...))`)
//! stays an explicit unknown piece, so the rules can ask "could this be `/`?" instead of guessing.

use tree_sitter::Parser;

mod walk;
mod words;

use walk::{Context, Walker};
pub use words::expand_braces;

/// One piece of a word after quote removal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Text bash passes as written (quotes and escapes removed). `glob` when it came unquoted, so
    /// `*`, `?` and `[` in it are patterns.
    Literal { text: String, glob: bool },
    /// `$NAME` or `${NAME}`: known only when the rules know the variable (HOME, PWD).
    Variable(String),
    /// Anything only the running shell knows: `$(...)`, `${X:-y}`, `$1`, `$((...))`.
    Dynamic(String),
}

/// A shell word: its pieces, its source text, and whether a substitution inside it downloads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    pub pieces: Vec<Piece>,
    pub source: String,
    /// A `$(...)` or `<(...)` inside runs curl, wget or the like: its value is a download.
    pub downloads: bool,
}

impl Word {
    pub fn literal(text: &str) -> Word {
        Word {
            pieces: vec![Piece::Literal {
                text: text.to_string(),
                glob: false,
            }],
            source: text.to_string(),
            downloads: false,
        }
    }

    /// A word whose value comes from outside the command (xargs' standard input, ...).
    pub fn unknown(source: &str) -> Word {
        Word {
            pieces: vec![Piece::Dynamic(source.to_string())],
            source: source.to_string(),
            downloads: false,
        }
    }

    /// The value, when every piece is literal.
    pub fn text(&self) -> Option<String> {
        let mut out = String::new();
        for piece in &self.pieces {
            match piece {
                Piece::Literal { text, .. } => out.push_str(text),
                _ => return None,
            }
        }
        Some(out)
    }

    pub fn is_static(&self) -> bool {
        self.text().is_some()
    }

    /// The value, or the source text when it is not static (for messages and config rules).
    pub fn shown(&self) -> String {
        self.text().unwrap_or_else(|| self.source.clone())
    }
}

/// A redirect attached to a command: its operator and target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirect {
    pub operator: String,
    pub target: Word,
}

impl Redirect {
    /// Whether the redirect writes to its target (`>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>&FILE`).
    pub fn writes(&self) -> bool {
        let op = self.operator.as_str();
        let to_fd = op.ends_with('&') && self.target.text().is_some_and(|t| is_fd_number(&t));
        op.contains('>') && !to_fd
    }
}

impl Redirect {
    /// Whether the redirect empties its target before writing (`>`, `>|`, `&>`, not `>>`).
    pub fn truncates(&self) -> bool {
        self.writes() && !self.operator.contains(">>") && !self.operator.starts_with('<')
    }
}

fn is_fd_number(text: &str) -> bool {
    text == "-" || (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
}

/// One simple command as bash would run it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimpleCommand {
    pub argv: Vec<Word>,
    /// `NAME=value` prefixes.
    pub assignments: Vec<(String, Word)>,
    /// Its own redirects and those of enclosing redirected statements.
    pub redirects: Vec<Redirect>,
    /// Which pipeline it is a stage of and at which position (commands outside pipelines get a
    /// pipeline of their own, stage 0).
    pub pipeline: usize,
    pub stage: usize,
    /// How it was reached when it is not a plain command: `sudo`, `bash -c`, `find -exec`, ...
    pub via: Vec<String>,
}

impl SimpleCommand {
    /// The command name with a path stripped (`/bin/rm` → `rm`), when static.
    pub fn name(&self) -> Option<String> {
        let text = self.argv.first()?.text()?;
        Some(match text.rsplit_once('/') {
            Some((_, base)) if !base.is_empty() => base.to_string(),
            _ => text,
        })
    }

    /// The argv as one line for messages: static words as their value, others as written.
    pub fn shown(&self) -> String {
        self.argv
            .iter()
            .map(|w| shell_quote(&w.shown()))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Quotes a word for display only when it needs quoting.
pub fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%^~*?{}[]$".contains(&b) || b >= 0x80);
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// A function defined in the script: its name and the names its body calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    /// Static command names called anywhere in the body.
    pub calls: Vec<String>,
    /// The body pipes or backgrounds something (`|`, `&`): together with a self-call, a fork bomb.
    pub spawns: bool,
}

/// Something in the source the walk cannot see through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseProblem {
    pub line: usize,
    pub column: usize,
    pub near: String,
}

/// Everything found in one piece of bash source.
#[derive(Debug, Default)]
pub struct Script {
    pub commands: Vec<SimpleCommand>,
    pub functions: Vec<Function>,
    pub problems: Vec<ParseProblem>,
    /// Endless loops that start a background process on every turn (`while :; do sh & done`).
    pub spawning_loops: Vec<String>,
}

/// Nesting deeper than this many syntax levels (`${a:-${a:-...}}`, `$( $( ... ) )`, subshells in
/// subshells) is refused as a parse error rather than walked without bound: the walk is recursive,
/// and a request must not be able to exhaust the daemon's stack. Lists (`a && b && ...`) are flat.
pub const MAX_DEPTH: usize = 64;

/// Parses bash source and collects its simple commands. `first_pipeline` numbers pipelines so
/// that scripts parsed from strings inside a command keep numbers apart from their parent's.
pub fn parse(source: &str, first_pipeline: usize) -> Script {
    let mut parser = Parser::new();
    let language = coderd_syntax::grammars::grammar("bash");
    let loaded = language.is_ok_and(|l| parser.set_language(&l).is_ok());
    // Without the grammar nothing can be read, so the command is refused as unreadable.
    let tree = if loaded {
        parser.parse(source, None)
    } else {
        None
    };
    // A NUL cannot reach bash (argv strings end there): refused rather than guessed at.
    if let Some(at) = source.find('\0') {
        let before = &source[..at];
        return Script {
            problems: vec![ParseProblem {
                line: before.matches('\n').count() + 1,
                column: before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1,
                near: "a NUL byte".into(),
            }],
            ..Script::default()
        };
    }
    let Some(tree) = tree else {
        return Script {
            problems: vec![ParseProblem {
                line: 1,
                column: 1,
                near: source.chars().take(40).collect(),
            }],
            ..Script::default()
        };
    };
    let mut walker = Walker {
        source: source.as_bytes(),
        script: Script::default(),
        next_pipeline: first_pipeline,
        depth: 0,
    };
    let root = tree.root_node();
    if root.has_error() {
        walker.collect_errors(root);
    }
    let top = Context::fresh(&mut walker.next_pipeline);
    walker.statements(root, &top);
    walker.script
}

/// Whether a command name fetches from the network.
pub fn is_downloader(name: &str) -> bool {
    matches!(
        name,
        "curl" | "wget" | "fetch" | "aria2c" | "http" | "https" | "lynx" | "links" | "nc" | "ncat"
    )
}

#[cfg(test)]
mod tests;
