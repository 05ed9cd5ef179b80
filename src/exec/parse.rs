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

use tree_sitter::{Node, Parser};

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
    let language = crate::syntax::grammars::grammar("bash");
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

/// Where the walk is: the pipeline stage it is in and the redirects enclosing it.
#[derive(Clone)]
struct Context {
    pipeline: usize,
    stage: usize,
    redirects: Vec<Redirect>,
}

impl Context {
    fn fresh(next: &mut usize) -> Context {
        *next += 1;
        Context {
            pipeline: *next,
            stage: 0,
            redirects: Vec::new(),
        }
    }
}

struct Walker<'s> {
    source: &'s [u8],
    script: Script,
    next_pipeline: usize,
    depth: usize,
}

impl<'s> Walker<'s> {
    fn text(&self, node: Node) -> &'s str {
        node.utf8_text(self.source).unwrap_or("")
    }

    /// Every error or missing node, found with an explicit stack (the tree can be any depth).
    fn collect_errors(&mut self, root: Node) {
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            if node.is_error() || node.is_missing() {
                let at = node.start_position();
                let near: String = self.text(node).chars().take(40).collect();
                self.script.problems.push(ParseProblem {
                    line: at.row + 1,
                    column: at.column + 1,
                    near: if node.is_missing() {
                        format!("missing `{}`", node.kind())
                    } else {
                        near
                    },
                });
                continue;
            }
            let mut cursor = node.walk();
            let children: Vec<Node> = node
                .children(&mut cursor)
                .filter(|c| c.has_error())
                .collect();
            stack.extend(children.into_iter().rev());
        }
    }

    /// Walks any node for the commands in it.
    fn statements(&mut self, node: Node, ctx: &Context) {
        if self.depth > MAX_DEPTH {
            self.too_deep(node);
            return;
        }
        self.depth += 1;
        match node.kind() {
            "command" => self.command(node, ctx),
            "list" => self.list(node, ctx),
            "while_statement" | "c_style_for_statement" => {
                self.note_spawning_loop(node);
                self.children(node, ctx)
            }
            "pipeline" => self.pipeline(node, ctx),
            "redirected_statement" => self.redirected(node, ctx),
            "function_definition" => self.function(node, ctx),
            "declaration_command" | "unset_command" => self.declaration(node, ctx),
            "command_substitution" | "process_substitution" => {
                let inner = Context::fresh(&mut self.next_pipeline);
                self.children(node, &inner);
            }
            _ => self.children(node, ctx),
        }
        self.depth -= 1;
    }

    fn children(&mut self, node: Node, ctx: &Context) {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            self.statements(child, ctx);
        }
    }

    /// A loop that never ends and backgrounds a command each turn fills the process table.
    fn note_spawning_loop(&mut self, node: Node) {
        let condition = node
            .child_by_field_name("condition")
            .map(|c| self.text(c).trim().trim_end_matches(';').trim().to_string());
        // tree-sitter parses `until` as a `while_statement` starting with that keyword.
        let until = node.child(0).is_some_and(|k| self.text(k) == "until");
        let endless = match (node.kind(), condition.as_deref()) {
            ("c_style_for_statement", None | Some("1" | "")) => true,
            ("while_statement", Some(c)) if until => {
                matches!(c, "false" | "/bin/false" | "! true" | "! :")
            }
            ("while_statement", Some(c)) => matches!(
                c,
                "true" | ":" | "/bin/true" | "[ 1 ]" | "[[ 1 ]]" | "((1))" | "! false"
            ),
            _ => false,
        };
        let body = node
            .child_by_field_name("body")
            .map(|b| self.text(b))
            .unwrap_or("");
        if endless && backgrounds(body) {
            let shown: String = self.text(node).chars().take(80).collect();
            self.script.spawning_loops.push(shown);
        }
    }

    /// `a && b || c ...`: tree-sitter nests each operator's left side; walked as the flat list it is.
    fn list(&mut self, node: Node, ctx: &Context) {
        let mut operands = Vec::new();
        let mut current = node;
        loop {
            let mut cursor = current.walk();
            let children: Vec<Node> = current.named_children(&mut cursor).collect();
            match children.split_first() {
                Some((first, rest)) if first.kind() == "list" => {
                    operands.extend(rest.iter().rev().copied());
                    current = *first;
                }
                _ => {
                    operands.extend(children.into_iter().rev());
                    break;
                }
            }
        }
        for operand in operands.into_iter().rev() {
            self.statements(operand, ctx);
        }
    }

    fn too_deep(&mut self, node: Node) {
        let reported = self
            .script
            .problems
            .iter()
            .any(|p| p.near.starts_with("nesting deeper"));
        if reported {
            return;
        }
        let at = node.start_position();
        self.script.problems.push(ParseProblem {
            line: at.row + 1,
            column: at.column + 1,
            near: format!("nesting deeper than {MAX_DEPTH} levels"),
        });
    }

    fn pipeline(&mut self, node: Node, ctx: &Context) {
        let mut stage_ctx = Context::fresh(&mut self.next_pipeline);
        stage_ctx.redirects = ctx.redirects.clone();
        let mut cursor = node.walk();
        let stages: Vec<Node> = node.named_children(&mut cursor).collect();
        for (stage, child) in stages.into_iter().enumerate() {
            stage_ctx.stage = stage;
            self.statements(child, &stage_ctx);
        }
    }

    fn redirected(&mut self, node: Node, ctx: &Context) {
        let mut inner = ctx.clone();
        let mut cursor = node.walk();
        let mut piped = Vec::new();
        for redirect in node.children_by_field_name("redirect", &mut cursor) {
            piped.extend(self.redirect(redirect, &mut inner.redirects, ctx));
        }
        let mut cursor = node.walk();
        let bodies: Vec<Node> = node
            .named_children(&mut cursor)
            .filter(|c| !c.kind().ends_with("_redirect"))
            .collect();
        // `> /dev/sda` alone still opens (and truncates) its target: a command with no argv.
        if bodies.is_empty() {
            self.push(Vec::new(), Vec::new(), inner.redirects.clone(), &inner);
        }
        for child in bodies {
            self.statements(child, &inner);
        }
        self.later_stages(piped, ctx);
    }

    /// `cat <<EOF | sh`: tree-sitter hangs `| sh` under the heredoc; its commands are the later
    /// stages of the pipeline the redirected command starts.
    fn later_stages(&mut self, piped: Vec<Node>, ctx: &Context) {
        let mut stage = ctx.stage;
        for node in piped {
            let stages: Vec<Node> = match node.kind() {
                "pipeline" => {
                    let mut cursor = node.walk();
                    node.named_children(&mut cursor).collect()
                }
                _ => vec![node],
            };
            for child in stages {
                stage += 1;
                let mut later = ctx.clone();
                later.stage = stage;
                self.statements(child, &later);
            }
        }
    }

    /// Reads one redirect node into `into`, walking the commands inside its target or heredoc.
    /// Returns the pipeline tree-sitter hangs under a heredoc (`cat <<EOF | sh`), to be walked as
    /// the later stages of the command's pipeline.
    fn redirect<'t>(
        &mut self,
        node: Node<'t>,
        into: &mut Vec<Redirect>,
        ctx: &Context,
    ) -> Vec<Node<'t>> {
        let mut piped = Vec::new();
        match node.kind() {
            "file_redirect" => {
                let operator = self.operator(node);
                let target = match node.child_by_field_name("destination") {
                    Some(dest) => self.word(dest),
                    None => Word::literal(""),
                };
                into.push(Redirect { operator, target });
            }
            "heredoc_redirect" => {
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                // `<<'EOF'` (any quoting of the delimiter) passes the body as written.
                let quoted = children
                    .iter()
                    .find(|c| c.kind() == "heredoc_start")
                    .is_some_and(|c| self.text(*c).contains(['\'', '"', '\\']));
                for child in children {
                    match child.kind() {
                        "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                            piped.extend(self.redirect(child, into, ctx))
                        }
                        "heredoc_body" => {
                            let target = match quoted {
                                true => Word::literal(self.text(child)),
                                false => self.word(child),
                            };
                            into.push(Redirect {
                                operator: "<<".into(),
                                target,
                            });
                        }
                        "pipeline" => piped.push(child),
                        _ => {}
                    }
                }
            }
            "herestring_redirect" => {
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                for child in children {
                    let target = self.word(child);
                    into.push(Redirect {
                        operator: "<<<".into(),
                        target,
                    });
                }
            }
            _ => self.statements(node, ctx),
        }
        piped
    }

    /// The operator token of a redirect (`>`, `2>>`'s `>>`, `&>`).
    fn operator(&self, node: Node) -> String {
        let mut cursor = node.walk();
        let op = node
            .children(&mut cursor)
            .find(|c| !c.is_named())
            .map(|c| self.text(c).to_string())
            .unwrap_or_default();
        op
    }

    fn function(&mut self, node: Node, ctx: &Context) {
        let name = node
            .child_by_field_name("name")
            .map(|n| self.word(n).shown())
            .unwrap_or_default();
        let before = self.script.commands.len();
        if let Some(body) = node.child_by_field_name("body") {
            self.statements(body, ctx);
            let body_text = self.text(body);
            let calls = self.script.commands[before..]
                .iter()
                .filter_map(|c| c.name())
                .collect();
            let spawns = body_text.contains('|') || body_text.contains('&');
            self.script.functions.push(Function {
                name,
                calls,
                spawns,
            });
        }
    }

    /// `export`, `declare`, `local`, `readonly`, `typeset`, `unset`: builtins that count as commands
    /// (allow and deny rules see them), with the substitutions in their values walked.
    fn declaration(&mut self, node: Node, ctx: &Context) {
        let mut argv = Vec::new();
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        for child in children {
            if !child.is_named() {
                let keyword = self.text(child);
                if argv.is_empty() && keyword.chars().all(|c| c.is_ascii_alphabetic()) {
                    argv.push(Word::literal(keyword));
                }
                continue;
            }
            argv.push(match child.kind() {
                "variable_assignment" => self.assignment_word(child),
                _ => self.word(child),
            });
        }
        self.push(argv, Vec::new(), Vec::new(), ctx);
    }

    /// An assignment as one word (`NAME=value`), its value resolved.
    fn assignment_word(&mut self, node: Node) -> Word {
        let name = node
            .child_by_field_name("name")
            .map(|n| self.text(n).to_string())
            .unwrap_or_default();
        let mut word = match node.child_by_field_name("value") {
            Some(value) => self.word(value),
            None => Word::literal(""),
        };
        word.pieces.insert(
            0,
            Piece::Literal {
                text: format!("{name}="),
                glob: false,
            },
        );
        word.source = self.text(node).to_string();
        word
    }

    fn command(&mut self, node: Node, ctx: &Context) {
        let mut piped = Vec::new();
        let mut argv = Vec::new();
        let mut assignments = Vec::new();
        let mut redirects = ctx.redirects.clone();
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "command_name" => match child.named_child(0) {
                    Some(inner) => argv.push(self.word(inner)),
                    None => argv.push(self.word(child)),
                },
                "variable_assignment" => {
                    let name = child
                        .child_by_field_name("name")
                        .map(|n| self.text(n).to_string())
                        .unwrap_or_default();
                    let value = match child.child_by_field_name("value") {
                        Some(value) => self.word(value),
                        None => Word::literal(""),
                    };
                    assignments.push((name, value));
                }
                kind if kind.ends_with("_redirect") => {
                    piped.extend(self.redirect(child, &mut redirects, ctx))
                }
                "subshell" => self.statements(child, ctx),
                _ => argv.push(self.word(child)),
            }
        }
        if !argv.is_empty() || !assignments.is_empty() {
            self.push(argv, assignments, redirects, ctx);
        }
        self.later_stages(piped, ctx);
    }

    fn push(
        &mut self,
        argv: Vec<Word>,
        assignments: Vec<(String, Word)>,
        redirects: Vec<Redirect>,
        ctx: &Context,
    ) {
        self.script.commands.push(SimpleCommand {
            argv: argv.into_iter().flat_map(brace_words).collect(),
            assignments,
            redirects,
            pipeline: ctx.pipeline,
            stage: ctx.stage,
            via: Vec::new(),
        });
    }

    /// Resolves a word node, walking the commands inside any substitution in it.
    fn word(&mut self, node: Node) -> Word {
        let before = self.script.commands.len();
        let mut pieces = Vec::new();
        self.pieces(node, &mut pieces);
        let downloads = self.script.commands[before..]
            .iter()
            .any(|c| c.name().is_some_and(|n| is_downloader(&n)));
        Word {
            pieces: merge_literals(pieces),
            source: self.text(node).to_string(),
            downloads,
        }
    }

    fn pieces(&mut self, node: Node, out: &mut Vec<Piece>) {
        let text = self.text(node);
        if self.depth > MAX_DEPTH {
            self.too_deep(node);
            out.push(Piece::Dynamic(text.to_string()));
            return;
        }
        self.depth += 1;
        self.pieces_of(node, text, out);
        self.depth -= 1;
    }

    fn pieces_of(&mut self, node: Node, text: &'s str, out: &mut Vec<Piece>) {
        match node.kind() {
            "word" | "command_name" if node.named_child_count() == 0 => {
                let (tilde, rest) = split_tilde(text, out.is_empty());
                let tilde_only = tilde.is_some() && rest.is_empty();
                out.extend(tilde);
                if tilde_only {
                    return;
                }
                out.push(Piece::Literal {
                    text: unescape_unquoted(rest),
                    glob: true,
                });
            }
            "number" | "special_variable_name" | "extglob_pattern" | "regex" | "variable_name"
                if node.named_child_count() == 0 =>
            {
                out.push(Piece::Literal {
                    text: text.to_string(),
                    glob: true,
                })
            }
            "raw_string" => out.push(Piece::Literal {
                text: strip_quotes(text, 1).to_string(),
                glob: false,
            }),
            "ansi_c_string" => out.push(Piece::Literal {
                text: decode_ansi_c(strip_quotes(text.strip_prefix('$').unwrap_or(text), 1)),
                glob: false,
            }),
            "string_content" | "heredoc_content" => out.push(Piece::Literal {
                text: unescape_double_quoted(text),
                glob: false,
            }),
            // `{1..9}`: left as written for brace expansion to split.
            "brace_expression" => out.push(Piece::Literal {
                text: text.to_string(),
                glob: true,
            }),
            "heredoc_body" if node.named_child_count() == 0 => out.push(Piece::Literal {
                text: text.to_string(),
                glob: false,
            }),
            "string" | "translated_string" | "concatenation" | "command_name" | "heredoc_body" => {
                self.string_pieces(node, out)
            }
            "simple_expansion" | "expansion" => out.push(self.expansion(node)),
            "command_substitution" | "process_substitution" => {
                // `statements` gives the substitution a pipeline of its own.
                let outer = Context::fresh(&mut self.next_pipeline);
                self.statements(node, &outer);
                out.push(Piece::Dynamic(text.to_string()));
            }
            _ => {
                // Arithmetic, arrays, brace ranges: the value needs the shell, but the commands
                // inside still run.
                let inner = Context::fresh(&mut self.next_pipeline);
                self.children(node, &inner);
                out.push(Piece::Dynamic(text.to_string()));
            }
        }
    }

    /// The pieces of a string or concatenation; a `"..."` string keeps empty content too.
    fn string_pieces(&mut self, node: Node, out: &mut Vec<Piece>) {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        if node.kind() == "string" && children.is_empty() {
            out.push(Piece::Literal {
                text: String::new(),
                glob: false,
            });
        }
        // Text between named children of a string (e.g. a `$` that starts nothing) is literal.
        for child in children {
            self.pieces(child, out);
        }
    }

    fn expansion(&mut self, node: Node) -> Piece {
        let text = self.text(node);
        let mut cursor = node.walk();
        let named: Vec<Node> = node.named_children(&mut cursor).collect();
        let plain_name = named.len() == 1
            && named[0].kind() == "variable_name"
            && node.child_by_field_name("operator").is_none()
            && (text == format!("${}", self.text(named[0]))
                || text == format!("${{{}}}", self.text(named[0])));
        if plain_name {
            return Piece::Variable(self.text(named[0]).to_string());
        }
        for child in named {
            if child.kind() != "variable_name" {
                self.pieces(child, &mut Vec::new());
            }
        }
        Piece::Dynamic(text.to_string())
    }
}

/// Whether shell text puts a command in the background (a lone `&`, not `&&`, `>&`, `&>`, `|&`).
fn backgrounds(text: &str) -> bool {
    let bytes = text.as_bytes();
    (0..bytes.len()).any(|i| {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        bytes[i] == b'&'
            && !matches!(before, Some(b'&' | b'>' | b'<' | b'|'))
            && !matches!(bytes.get(i + 1), Some(b'&' | b'>'))
    })
}

/// Whether a command name fetches from the network.
pub fn is_downloader(name: &str) -> bool {
    matches!(
        name,
        "curl" | "wget" | "fetch" | "aria2c" | "http" | "https" | "lynx" | "links" | "nc" | "ncat"
    )
}

/// The most words one brace expansion may make before the word counts as unknown.
const MAX_BRACE_WORDS: usize = 1024;

/// A word as brace expansion splits it (`{rm,-rf,/}` is three words, `/u{s..s}r` is `/usr`);
/// braces only expand unquoted. Too many alternatives leave a word only known at run time.
fn brace_words(word: Word) -> Vec<Word> {
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

fn merge_literals(pieces: Vec<Piece>) -> Vec<Piece> {
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
fn split_tilde(text: &str, at_start: bool) -> (Option<Piece>, &str) {
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

fn strip_quotes(text: &str, n: usize) -> &str {
    if text.len() >= 2 * n {
        &text[n..text.len() - n]
    } else {
        ""
    }
}

/// An unquoted word: `\x` is `x`, a `\` before a newline joins lines.
fn unescape_unquoted(text: &str) -> String {
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
fn unescape_double_quoted(text: &str) -> String {
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
fn decode_ansi_c(text: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn argvs(source: &str) -> Vec<Vec<String>> {
        parse(source, 0)
            .commands
            .iter()
            .map(|c| c.argv.iter().map(|w| w.shown()).collect())
            .collect()
    }

    #[test]
    fn quotes_escapes_and_ansi_c_strings_resolve_to_the_value_bash_passes() {
        assert_eq!(
            argvs(r#"'r''m' -rf "/" ; r\m x; $'\x72m' y; \rm z; "r"m w"#),
            vec![
                vec!["rm", "-rf", "/"],
                vec!["rm", "x"],
                vec!["rm", "y"],
                vec!["rm", "z"],
                vec!["rm", "w"]
            ]
        );
    }

    #[test]
    fn commands_inside_substitutions_loops_functions_and_heredocs_are_found() {
        let found = argvs(
            "echo $(a1) `a2` <(a3) >(a4); for x in $(a5); do a6; done; f() { a7; }; \
             X=$(a8) a9; cat <<EOF\n$(a10)\nEOF\n[ -f \"$(a11)\" ]; (a12) | { a13; }",
        );
        let names: Vec<&str> = found.iter().map(|a| a[0].as_str()).collect();
        for n in 1..=13 {
            assert!(
                names.contains(&format!("a{n}").as_str()),
                "a{n} in {names:?}"
            );
        }
    }

    #[test]
    fn variables_and_substitutions_stay_unknown_pieces() {
        let script = parse(r#"rm -rf "$HOME"/x ~ ${IFS} $(pwd)/y"#, 0);
        let rm = script
            .commands
            .iter()
            .find(|c| c.name().as_deref() == Some("rm"));
        let argv = &rm.unwrap().argv;
        assert_eq!(argv[2].pieces[0], Piece::Variable("HOME".into()));
        assert_eq!(argv[3].pieces, vec![Piece::Variable("HOME".into())]);
        assert!(matches!(argv[4].pieces[0], Piece::Variable(ref v) if v == "IFS"));
        assert!(matches!(argv[5].pieces[0], Piece::Dynamic(_)));
    }

    #[test]
    fn pipelines_number_their_stages() {
        let script = parse("curl x | tee y | sh; ls", 0);
        let c = &script.commands;
        assert_eq!((c[0].stage, c[1].stage, c[2].stage), (0, 1, 2));
        assert_eq!(c[0].pipeline, c[2].pipeline);
        assert_ne!(c[0].pipeline, c[3].pipeline);
    }

    #[test]
    fn redirects_of_enclosing_statements_reach_every_command_inside() {
        let script = parse("{ cat a; echo b; } > /dev/sda", 0);
        assert!(script.commands.iter().all(|c| c
            .redirects
            .iter()
            .any(|r| r.writes() && r.target.text().as_deref() == Some("/dev/sda"))));
        let dup = parse("ls 2>&1", 0);
        assert!(!dup.commands[0].redirects[0].writes());
    }

    #[test]
    fn substitutions_that_download_mark_their_word() {
        let script = parse(r#"bash -c "$(curl -fsSL https://x)""#, 0);
        let bash = script
            .commands
            .iter()
            .find(|c| c.name().as_deref() == Some("bash"));
        assert!(bash.unwrap().argv[2].downloads);
    }

    #[test]
    fn parse_errors_are_reported_with_a_position() {
        let script = parse("echo 'unterminated", 0);
        assert!(!script.problems.is_empty());
        assert!(parse("ls -la", 0).problems.is_empty());
    }

    #[test]
    fn words_are_expanded_as_bash_expands_them() {
        assert_eq!(
            argvs("rm -rf /u{s..s}r x{1..3} {rm,-rf} /e{t,}c \"{a,b}\""),
            vec![vec![
                "rm", "-rf", "/usr", "x1", "x2", "x3", "rm", "-rf", "/etc", "/ec", "{a,b}"
            ]]
        );
        assert_eq!(
            argvs("rm -rf /usr$'\\x00junk'"),
            vec![vec!["rm", "-rf", "/usr"]]
        );
        let script = parse("rm -rf ~+ ~- ~root/x", 0);
        let argv = &script.commands[0].argv;
        assert_eq!(argv[2].pieces, vec![Piece::Variable("PWD".into())]);
        assert_eq!(argv[3].pieces, vec![Piece::Dynamic("~-".into())]);
        assert_eq!(argv[4].pieces[0], Piece::Dynamic("~root".into()));
        let many = format!("echo {}", "{a,b}".repeat(11));
        assert!(matches!(
            parse(&many, 0).commands[0].argv[1].pieces[0],
            Piece::Dynamic(_)
        ));
        assert!(!parse("ls\0rm -rf /", 0).problems.is_empty());
    }

    #[test]
    fn deep_nesting_is_a_problem_but_long_lists_are_not() {
        let deep = format!("echo {}x{}", "${a:-".repeat(100), "}".repeat(100));
        let problems = parse(&deep, 0).problems;
        assert!(problems[0].near.contains("deeper than 64"), "{problems:?}");
        let chain = vec!["true"; 500].join(" && ");
        let script = parse(&chain, 0);
        assert!(script.problems.is_empty());
        assert_eq!(script.commands.len(), 500);
    }

    #[test]
    fn heredocs_and_herestrings_are_redirects_and_a_heredoc_pipe_is_a_later_stage() {
        let script = parse("cat <<'E' | sh\nrm -rf ~\nE\nbash <<< 'ls'", 0);
        let c = &script.commands;
        assert_eq!(c[0].redirects[0].operator, "<<");
        assert_eq!(
            c[0].redirects[0].target.text().as_deref(),
            Some("rm -rf ~\n")
        );
        assert_eq!(
            (c[1].name().as_deref(), c[1].pipeline, c[1].stage),
            (Some("sh"), c[0].pipeline, 1)
        );
        assert_eq!(c[2].redirects[0].operator, "<<<");
    }

    #[test]
    fn endless_loops_that_background_are_noted() {
        for source in [
            "while true; do bash & done",
            "until false; do sh & done",
            "for ((;;)); do x & done",
        ] {
            assert_eq!(parse(source, 0).spawning_loops.len(), 1, "{source}");
        }
        for source in [
            "while true; do sleep 1; done",
            "while read f; do x \"$f\" & done < l",
            "for f in *; do gzip \"$f\" & done",
        ] {
            assert!(parse(source, 0).spawning_loops.is_empty(), "{source}");
        }
    }

    #[test]
    fn functions_record_their_calls() {
        let script = parse(":(){ :|:& };:", 0);
        assert_eq!(script.functions[0].name, ":");
        assert!(script.functions[0].calls.contains(&":".to_string()));
        assert!(script.functions[0].spawns);
    }
}
