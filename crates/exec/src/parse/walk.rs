//! The walk over the tree-sitter-bash tree: every node visited, commands collected with their
//! pipeline, redirects and the context they run in.

use super::words::{
    brace_words, decode_ansi_c, merge_literals, split_tilde, strip_quotes, unescape_double_quoted,
    unescape_unquoted,
};

use super::{
    is_downloader, Function, ParseProblem, Piece, Redirect, Script, SimpleCommand, Word, MAX_DEPTH,
};

use tree_sitter::Node;

/// Where the walk is: the pipeline stage it is in and the redirects enclosing it.
#[derive(Clone)]
pub(super) struct Context {
    pub(super) pipeline: usize,
    pub(super) stage: usize,
    pub(super) redirects: Vec<Redirect>,
}

impl Context {
    pub(super) fn fresh(next: &mut usize) -> Context {
        *next += 1;
        Context {
            pipeline: *next,
            stage: 0,
            redirects: Vec::new(),
        }
    }
}

pub(super) struct Walker<'s> {
    pub(super) source: &'s [u8],
    pub(super) script: Script,
    pub(super) next_pipeline: usize,
    pub(super) depth: usize,
}

impl<'s> Walker<'s> {
    pub(super) fn text(&self, node: Node) -> &'s str {
        node.utf8_text(self.source).unwrap_or("")
    }

    /// Every error or missing node, found with an explicit stack (the tree can be any depth).
    pub(super) fn collect_errors(&mut self, root: Node) {
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
    pub(super) fn statements(&mut self, node: Node, ctx: &Context) {
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

    pub(super) fn pipeline(&mut self, node: Node, ctx: &Context) {
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
    pub(super) fn operator(&self, node: Node) -> String {
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

    pub(super) fn push(
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
    pub(super) fn word(&mut self, node: Node) -> Word {
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

    pub(super) fn pieces(&mut self, node: Node, out: &mut Vec<Piece>) {
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
