//! Semantic moves: `definition`, `references`, `implementations`, `type-definition`, `hover`,
//! `callers`, `callees` and `rename`, at a file position, by a symbol's name, or by an item of a
//! file's outline. Asked of the warm language server of the file's language (`lsp::navigate`,
//! `lsp::calls`); when none answers, `definition`, `references` and `hover` come from the tag
//! index (`map::lookup`, `source: "index"`: a match by name, not a resolution), and every answer
//! that found nothing through a server says why (`unanswered`). `rename` needs a server: its
//! `WorkspaceEdit` is applied as one edit call over every file (`edit::rename`).

use super::state::State;
use super::{method, Method};
use coderd_core::error::{Error, Result};
use coderd_edit::rename::{self, TextEdit};
use coderd_edit::txn::Target;
use coderd_lsp::calls::Direction;
use coderd_lsp::navigate::{self, At, Place, Unanswered};
use coderd_lsp::GroupBy;
use coderd_syntax::map::lookup;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use wire::answers::navigate::{Call, Calls, Group, Hover, Location, Locations, Renamed};
use wire::answers::Answer;

/// Params that start at a position: `file`, `line`, `column`, `symbol`, then the method's own.
/// (A macro, not `#[serde(flatten)]`: flattening cannot be combined with `deny_unknown_fields`,
/// which names a misspelt key.)
macro_rules! at_position {
    ($(#[$meta:meta])* $name:ident { $($(#[$own_meta:meta])* $own:ident: $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Deserialize, JsonSchema, Default)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// The file (with `line`, and `column` or `symbol`; or with `symbol` alone, an item of its outline).
            #[serde(default)]
            file: Option<String>,
            /// 1-based line in `file`.
            #[serde(default)]
            line: Option<u32>,
            /// 1-based column in `line` (characters; UTF-16 units beyond the BMP).
            #[serde(default)]
            column: Option<u32>,
            /// A name: alone, its one definition in the tag index; with `file` and `line`, its place in that line; with `file` alone, the item of the file's outline it names (`Server.handle`, `impl Foo.bar`).
            #[serde(default)]
            symbol: Option<String>,
            $($(#[$own_meta])* $own: $ty,)*
        }

        impl $name {
            /// The position these params start at.
            #[allow(dead_code)] // `Position`'s own is itself
            fn position(&self) -> Position {
                Position {
                    file: self.file.clone(),
                    line: self.line,
                    column: self.column,
                    symbol: self.symbol.clone(),
                }
            }
        }
    };
}

at_position!(
    /// Where a move starts: a file position, a name in a file's line, or a symbol's definition.
    Position {}
);

at_position!(ReferencesParams {
    /// Count the definition itself among the references (default true).
    #[serde(default)]
    include_declaration: Option<bool>,
    /// `symbol`: also group the places by the outline item that holds each (`groups`).
    #[serde(default)]
    group_by: Option<GroupBy>,
});

at_position!(RenameParams {
    /// The symbol's new name.
    new_name: String,
    /// Answer the edit as a unified diff; change nothing.
    #[serde(default)]
    dry_run: bool,
});

pub fn methods() -> Vec<Method> {
    vec![
        method(
            "definition",
            &[],
            "Where the symbol at a position (or by name) is defined: from the warm language server, else the tag index (`source: index`).",
            false,
            |s, p: Position| definition(s, p),
        )
        .answers(Answer::Locations)
        .param_aliases(&[("path", "file")])
        .bare(&["file"]),
        method(
            "references",
            &[],
            "Every reference to the symbol at a position (or by name), each with its line: from the warm language server, else whole-word matches in the tag index.",
            false,
            references,
        )
        .answers(Answer::Locations)
        .param_aliases(&[("path", "file")])
        .bare(&["file"]),
        method(
            "implementations",
            &[],
            "The implementations of the interface, trait or abstract method at a position (or by name) from the warm language server; `unanswered` says why none came.",
            false,
            |s, p: Position| server_only(s, p, "textDocument/implementation"),
        )
        .answers(Answer::Locations)
        .param_aliases(&[("path", "file")])
        .bare(&["file"]),
        method(
            "type-definition",
            &[],
            "Where the type of the symbol at a position (or by name) is defined, from the warm language server; `unanswered` says why none came.",
            false,
            |s, p: Position| server_only(s, p, "textDocument/typeDefinition"),
        )
        .answers(Answer::Locations)
        .param_aliases(&[("path", "file")])
        .bare(&["file"]),
        method(
            "callers",
            &[],
            "The functions that call the function at a position (or by name), each with its calls' lines: the server's call hierarchy (incoming calls).",
            false,
            |s, p: Position| calls(s, p, Direction::Incoming),
        )
        .answers(Answer::Calls)
        .param_aliases(&[("path", "file")])
        .bare(&["file"]),
        method(
            "callees",
            &[],
            "The functions the function at a position (or by name) calls, each with its calls' lines: the server's call hierarchy (outgoing calls).",
            false,
            |s, p: Position| calls(s, p, Direction::Outgoing),
        )
        .answers(Answer::Calls)
        .param_aliases(&[("path", "file")])
        .bare(&["file"]),
        method(
            "hover",
            &[],
            "The language server's hover text (type, signature, docs) at a position; else the definition's signature from the tag index.",
            false,
            |s, p: Position| hover(s, p),
        )
        .answers(Answer::Hover)
        .param_aliases(&[("path", "file")])
        .bare(&["file"]),
        method(
            "rename",
            &[],
            "Rename a symbol through the language server: every file changed in one all-or-nothing edit (`dry_run`: the unified diff).",
            true,
            rename,
        )
        .answers(Answer::Rename)
        .param_aliases(&[("path", "file")])
        .bare(&["file"])
        .changes_nothing_when(|_, params| params["dry_run"] == true),
    ]
}

/// A resolved start: the file, the position and the name there.
struct Start {
    path: PathBuf,
    at: At,
    name: Option<String>,
}

/// Where the move starts. A file an editor holds unsaved changes to is refused (C212): its
/// positions are the buffer's, and the servers know the file on disk.
fn start(state: &State, p: &Position) -> Result<Start> {
    let start = at_position(state, p)?;
    state.documents.buffers.refuse(&start.path)?;
    Ok(start)
}

fn at_position(state: &State, p: &Position) -> Result<Start> {
    match (&p.file, p.line, p.column, &p.symbol) {
        (Some(file), Some(line), column, symbol) => {
            let path = state.jail.resolve("file", file)?.abs;
            let text = line_of(state, &path, line)?;
            let (column, name) = match (column, symbol) {
                (Some(column), _) => (column, lookup::word_at(&text, column as usize)),
                (None, Some(symbol)) => {
                    (column_of(&text, symbol, &path, line)?, Some(symbol.clone()))
                }
                (None, None) => return Err(where_missing()),
            };
            Ok(Start {
                path,
                at: At { line, column },
                name,
            })
        }
        (Some(file), None, None, Some(symbol)) => {
            let resolved = state.jail.resolve("file", file)?;
            let max = state.limits().max_read_bytes;
            let (line, column) =
                coderd_syntax::symbol::name_in_file(&state.jail, &resolved, symbol, max)?;
            let text = line_of(state, &resolved.abs, line)?;
            Ok(Start {
                at: At { line, column },
                name: lookup::word_at(&text, column as usize),
                path: resolved.abs,
            })
        }
        (None, None, None, Some(symbol)) => by_name(state, symbol),
        _ => Err(where_missing()),
    }
}

fn where_missing() -> Error {
    Error::bad_input("a position needs `file` and `line` with `column` or `symbol`, `file` with `symbol` (an outline item), or `symbol` alone")
        .with_recovery("e.g. {\"file\": \"src/lib.rs\", \"line\": 12, \"column\": 8}, {\"file\": \"src/lib.rs\", \"symbol\": \"Server.handle\"} or {\"symbol\": \"parse_config\"}")
}

/// The one definition of a name in the tag index, its name's place in its line.
fn by_name(state: &State, symbol: &str) -> Result<Start> {
    let found = lookup::definitions(state, &state.map, symbol)?;
    let first = match found.as_slice() {
        [one] => one,
        [] => {
            return Err(Error::not_found(format!(
                "no definition named `{symbol}` in the tag index"
            ))
            .with_recovery("check the name with `symbols`, or give `file`, `line` and `column`"))
        }
        many => {
            let places: Vec<String> = many
                .iter()
                .map(|d| format!("{}:{}", d.path.display(), d.line))
                .collect();
            return Err(Error::bad_input(format!(
                "`{symbol}` is defined {} times: {}",
                many.len(),
                places.join(", ")
            ))
            .with_recovery("add `file` and `line` of the one you mean"));
        }
    };
    let line = first.line as u32;
    let text = line_of(state, &first.path, line)?;
    Ok(Start {
        path: first.path.clone(),
        at: At {
            line,
            column: column_of(&text, symbol, &first.path, line)?,
        },
        name: Some(symbol.to_string()),
    })
}

fn line_of(state: &State, path: &Path, line: u32) -> Result<String> {
    let resolved = state.jail.resolve("file", &path.to_string_lossy())?;
    let document = state.load(&resolved)?;
    Ok(navigate::line_text(&document.bytes(), line))
}

/// The 1-based column (UTF-16 units) of a name's first whole-word occurrence in a line.
fn column_of(text: &str, name: &str, path: &Path, line: u32) -> Result<u32> {
    let at = text
        .match_indices(name)
        .map(|(at, _)| at)
        .find(|&at| lookup::word_at(text, text[..at].chars().count() + 1).as_deref() == Some(name))
        .ok_or_else(|| {
            Error::not_found(format!(
                "`{name}` is not in line {line} of {}",
                path.display()
            ))
            .with_recovery("read the line, or give `column`")
        })?;
    Ok(text[..at].encode_utf16().count() as u32 + 1)
}

/// Places with their lines' text, each file loaded and split once (a server may answer
/// thousands of references in one file).
fn with_text(state: &State, places: Vec<Place>) -> Vec<Location> {
    let mut files: HashMap<PathBuf, Vec<String>> = HashMap::new();
    places
        .into_iter()
        .map(|place| {
            let lines = files
                .entry(place.path.clone())
                .or_insert_with(|| lines_of(state, &place.path));
            let index = place.line.saturating_sub(1) as usize;
            location(place, lines.get(index).cloned().unwrap_or_default())
        })
        .collect()
}

fn location(place: Place, text: String) -> Location {
    Location {
        path: place.path,
        line: place.line,
        column: place.column,
        end_line: place.end_line,
        end_column: place.end_column,
        text,
    }
}

/// A file's lines as `navigate::line_text` gives them; none when the jail does not let it be read.
fn lines_of(state: &State, path: &Path) -> Vec<String> {
    let Ok(resolved) = state.jail.resolve("file", &path.to_string_lossy()) else {
        return Vec::new();
    };
    let Ok(document) = state.load(&resolved) else {
        return Vec::new();
    };
    let bytes = document.bytes();
    let lines = bytes.split(|b| *b == b'\n');
    let trimmed = lines.map(|raw| raw.strip_suffix(b"\r").unwrap_or(raw));
    trimmed
        .map(|raw| String::from_utf8_lossy(raw).into_owned())
        .collect()
}

fn located(source: String, symbol: Option<String>, locations: Vec<Location>) -> Locations {
    Locations {
        source,
        symbol,
        count: locations.len(),
        locations,
        ..Locations::default()
    }
}

fn definition(state: &Arc<State>, p: Position) -> Result<Locations> {
    let start = start(state, &p)?;
    let why = match server_places(state, &start, "textDocument/definition", json!({})) {
        Ok(answered) => return Ok(answered),
        Err(why) => why,
    };
    let name = index_name(&start, &why, "textDocument/definition")?;
    let found = lookup::definitions(state, &state.map, &name)?
        .into_iter()
        .map(|d| Location {
            text: line_of(state, &d.path, d.line as u32).unwrap_or_default(),
            path: d.path,
            line: d.line as u32,
            column: 1,
            end_line: d.end_line as u32,
            end_column: 1,
        })
        .collect();
    let mut answer = located("index".into(), Some(name), found);
    answer.unanswered = Some(why.reason("textDocument/definition"));
    Ok(answer)
}

/// The places a warm server answers `method` with at the start, each with its line's text; why
/// none did when no server answered.
fn server_places(
    state: &Arc<State>,
    start: &Start,
    method: &str,
    params: Value,
) -> std::result::Result<Locations, Unanswered> {
    let answer = (state.lsp).ask_why(state, &start.path, start.at, method, params)?;
    let found = with_text(state, navigate::places(&answer.result));
    Ok(located(answer.server, start.name.clone(), found))
}

/// A move only a server can make (`implementations`, `type-definition`): no server's answer is
/// an empty list that says why (`source: none`), never a silent one.
fn server_only(state: &Arc<State>, p: Position, method: &str) -> Result<Locations> {
    let start = start(state, &p)?;
    server_places(state, &start, method, json!({})).or_else(|why| {
        let mut answer = located("none".into(), start.name.clone(), Vec::new());
        answer.unanswered = Some(why.reason(method));
        Ok(answer)
    })
}

/// The name the index is asked for: the one at the position.
fn index_name(start: &Start, why: &Unanswered, method: &str) -> Result<String> {
    start.name.clone().ok_or_else(|| {
        Error::not_found(format!(
            "no language server answered ({}), and no name is at that position",
            why.reason(method)
        ))
        .with_recovery("point `column` at an identifier, or pass `symbol`")
    })
}

fn references(state: &Arc<State>, p: ReferencesParams) -> Result<Locations> {
    let start = start(state, &p.position())?;
    let context = json!({"context": {"includeDeclaration": p.include_declaration.unwrap_or(true)}});
    let method = "textDocument/references";
    let mut answer = match server_places(state, &start, method, context) {
        Ok(answered) => answered,
        Err(why) => {
            let name = index_name(&start, &why, method)?;
            let width = name.encode_utf16().count() as u32;
            let found = lookup::references(state, &state.map, &name)?
                .into_iter()
                .map(|o| Location {
                    path: o.path,
                    line: o.line as u32,
                    column: o.column as u32,
                    end_line: o.line as u32,
                    end_column: o.column as u32 + width,
                    text: o.text,
                })
                .collect();
            let mut answer = located("index".into(), Some(name), found);
            answer.unanswered = Some(why.reason(method));
            answer
        }
    };
    if p.group_by == Some(GroupBy::Symbol) {
        answer.groups = Some(by_symbol(state, &answer.locations));
    }
    Ok(answer)
}

/// Places grouped by the innermost outline item holding each (Serena's referencing symbols),
/// in file order; places outside every item (imports, a file's top level) form a group of
/// their own, named "".
fn by_symbol(state: &Arc<State>, locations: &[Location]) -> Vec<Group> {
    // Each file's items as (dotted name, first line, last line), in file order, parents first.
    let mut outlines: HashMap<PathBuf, Vec<(String, usize, usize)>> = HashMap::new();
    let mut groups: Vec<Group> = Vec::new();
    for place in locations {
        let items = outlines.entry(place.path.clone()).or_insert_with(|| {
            let wire = place.path.to_string_lossy();
            let parsed = coderd_syntax::outline::parse_file(state, &state.syntax, "file", &wire);
            let Ok(((_, parsed), _)) = parsed else {
                return Vec::new();
            };
            let outline = &parsed.outline;
            let items = outline.items.iter().enumerate();
            items
                .map(|(i, item)| (outline.path_of(i), item.line, item.end_line))
                .collect()
        });
        let line = place.line as usize;
        // The last item holding the line is the innermost: a child follows its parent.
        let item = (items.iter())
            .rev()
            .find(|(_, first, last)| (*first..=*last).contains(&line))
            .map(|(name, first, _)| (name.clone(), *first as u32));
        let (symbol, line) = item.unwrap_or_default();
        match groups
            .iter_mut()
            .find(|g| g.path == place.path && g.symbol == symbol)
        {
            Some(group) => group.locations.push(place.clone()),
            None => groups.push(Group {
                path: place.path.clone(),
                symbol,
                line,
                locations: vec![place.clone()],
            }),
        }
    }
    groups
}

/// `callers` and `callees`: the server's call hierarchy at the start, each call with its line.
fn calls(state: &Arc<State>, p: Position, direction: Direction) -> Result<Calls> {
    let start = start(state, &p)?;
    let found = match state.lsp.calls(state, &start.path, start.at, direction) {
        Ok(found) => found,
        Err(why) => {
            return Ok(Calls {
                source: "none".into(),
                symbol: start.name,
                unanswered: Some(why.reason("textDocument/prepareCallHierarchy")),
                ..Calls::default()
            })
        }
    };
    let calls: Vec<Call> = found
        .calls
        .into_iter()
        .map(|c| Call {
            name: c.name,
            path: c.at.path,
            line: c.at.line,
            column: c.at.column,
            sites: with_text(state, c.sites),
        })
        .collect();
    let unanswered = calls.is_empty().then(|| {
        let which = match direction {
            Direction::Incoming => "callers",
            Direction::Outgoing => "callees",
        };
        format!("{} found no {which} of {}", found.server, found.item)
    });
    Ok(Calls {
        source: found.server,
        symbol: Some(found.item),
        count: calls.len(),
        calls,
        unanswered,
    })
}

fn hover(state: &Arc<State>, p: Position) -> Result<Hover> {
    let start = start(state, &p)?;
    let method = "textDocument/hover";
    let asked = (state.lsp).ask_why(state, &start.path, start.at, method, json!({}));
    let why = match asked {
        Ok(answer) => {
            definitions_readable(state, &start)?;
            return Ok(Hover {
                source: answer.server,
                symbol: start.name,
                contents: hover_text(&answer.result["contents"]),
                unanswered: None,
            });
        }
        Err(why) => why,
    };
    let name = index_name(&start, &why, method)?;
    let found = lookup::definitions(state, &state.map, &name)?;
    let contents: Vec<String> = found
        .iter()
        .map(|d| match &d.doc {
            Some(doc) => format!("{}\n{doc}", d.signature),
            None => d.signature.clone(),
        })
        .collect();
    Ok(Hover {
        source: "index".into(),
        symbol: Some(name),
        contents: contents.join("\n\n"),
        unanswered: Some(why.reason(method)),
    })
}

/// A server's hover shows the definition's text (its doc comment, a constant's value): shown only
/// when every definition it has is a file the jail lets be read (C215 outside the roots, C211 a
/// secret). A symbol with no definition place (a keyword, a literal) is the server's own text.
fn definitions_readable(state: &Arc<State>, start: &Start) -> Result<()> {
    let asked = state.lsp.ask(
        state,
        &start.path,
        start.at,
        "textDocument/definition",
        json!({}),
    );
    let places = asked.map_or_else(Vec::new, |a| navigate::places(&a.result));
    for place in places {
        state
            .jail
            .resolve("hover", &place.path.to_string_lossy())
            .map_err(|e| e.with_prefix("the symbol is defined where coderd may not read: "))?;
    }
    Ok(())
}

/// The edits per file as LSP's `TextEdit`s, keyed by path.
fn changes(files: &[(Target, Vec<TextEdit>)]) -> Value {
    let position = |(line, character): (u32, u32)| json!({"line": line, "character": character});
    let per_file = files.iter().map(|(target, edits)| {
        let edits: Vec<Value> = edits
            .iter()
            .map(|e| json!({"range": {"start": position(e.start), "end": position(e.end)}, "newText": e.text}))
            .collect();
        (target.resolved.abs.display().to_string(), Value::Array(edits))
    });
    Value::Object(per_file.collect())
}

/// Hover contents (markup, a marked string, or a list of them) as one text.
fn hover_text(contents: &Value) -> String {
    match contents {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .map(hover_text)
            .collect::<Vec<_>>()
            .join("\n\n"),
        other => other["value"].as_str().unwrap_or_default().to_string(),
    }
}

fn rename(state: &Arc<State>, p: RenameParams) -> Result<Renamed> {
    if p.new_name.trim().is_empty() {
        return Err(Error::bad_input("`new_name` is empty").with_recovery("give the new name"));
    }
    let start = start(state, &p.position())?;
    let asked = state.lsp.ask(
        state,
        &start.path,
        start.at,
        "textDocument/rename",
        json!({"newName": p.new_name}),
    );
    let Some(answer) = asked else {
        return Err(Error::not_found(format!(
            "no language server answered a rename at {}:{}:{}",
            start.path.display(),
            start.at.line,
            start.at.column
        ))
        .with_recovery("check `info` (language_servers) and that the position is on a symbol; the tag index cannot rename"));
    };
    let mut files = Vec::new();
    for (path, edits) in navigate::workspace_edits(&answer.result)? {
        // Every file through the jail: a server may want to edit a dependency's source.
        let target = Target::new(
            "rename",
            state.jail.resolve("rename", &path.to_string_lossy())?,
        );
        let edits = edits
            .into_iter()
            .map(|e| TextEdit {
                start: e.start,
                end: e.end,
                text: e.text,
            })
            .collect();
        files.push((target, edits));
    }
    // Even a dry run: an editor applies its edits to its buffers, where they would land wrong.
    let paths = files.iter().map(|(t, _)| t.resolved.abs.as_path());
    state.documents.buffers.refuse_all(paths)?;
    let edits = files
        .iter()
        .map(|(_, e): &(Target, Vec<TextEdit>)| e.len())
        .sum();
    let mut renamed = Renamed {
        source: answer.server,
        new_name: p.new_name,
        files_changed: files.len(),
        edits,
        files: Vec::new(),
        diff: None,
        changes: None,
    };
    match p.dry_run {
        true => {
            renamed.diff = Some(rename::preview(state, &files)?);
            renamed.changes = Some(changes(&files));
        }
        false => renamed.files = rename::apply(state, &files)?,
    }
    Ok(renamed)
}
