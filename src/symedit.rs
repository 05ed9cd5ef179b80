//! Edits addressed by symbol: `replace-symbol`, `insert-symbol`, `delete-symbol`. The name is
//! resolved as `read --symbol` resolves it (`syntax::symbol::locate`), in the very bytes the edit
//! replaces (under the call's locks); the lines are planned by `edit::symbol` and committed by
//! `edit::txn`, the path `patch` takes: exact or refused, all or nothing, versions, the replaced
//! bytes kept for checkpoints. A result with a syntax error where the file had none is refused
//! (C210) unless `force`. `delete-symbol`'s reference check asks the language servers, so it is
//! the method's (`methods::symedit`), which pins the version it checked.

use coderd_core::error::{Error, Result};
use coderd_core::jail::Jail;
use coderd_core::workspace::Workspace;
use coderd_edit::splice::{self, Splice};
use coderd_edit::symbol::{self as lines, Span, Where};
use coderd_edit::txn::{self, Options};
use coderd_edit::write::target;
use coderd_syntax::symbol;
use coderd_syntax::Outline;
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::Path;
pub use wire::answers::edit::SymbolEdited;

/// The params every symbol edit takes, then the method's own. (A macro, not `#[serde(flatten)]`:
/// flattening cannot be combined with `deny_unknown_fields`, which names a misspelt key.)
macro_rules! symbol_params {
    ($(#[$meta:meta])* $name:ident { $($(#[$own_meta:meta])* $own:ident: $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// The file.
            pub file: String,
            /// The item, named as `read --symbol` names it: `Server.handle`, `impl Foo.bar`,
            /// `fmt@120` (the one whose lines hold line 120).
            pub symbol: String,
            $($(#[$own_meta])* pub $own: $ty,)*
            /// Refuse (C212) unless the file is still at this version (the `version` of a `read`).
            pub expect_version: Option<String>,
            /// The client's session (an `@LINE` name is refused, C212, if its read is outdated).
            pub session: Option<String>,
            /// Keep the previous content as `<file>.bak` (default true).
            pub backup: Option<bool>,
            /// Answer the edit as a unified diff; change nothing.
            #[serde(default)]
            pub dry_run: bool,
            /// Make the edit even if the result has a syntax error the file did not have
            /// (and, for `delete-symbol`, while references to the item remain).
            #[serde(default)]
            pub force: bool,
        }

        impl $name {
            fn call<'a>(&'a self, method: &'static str, op: Op<'a>) -> Call<'a> {
                Call {
                    method,
                    file: &self.file,
                    symbol: &self.symbol,
                    op,
                    expect_version: self.expect_version.clone(),
                    session: self.session.clone(),
                    backup: self.backup,
                    dry_run: self.dry_run,
                    force: self.force,
                }
            }
        }
    };
}

symbol_params!(
    /// `replace-symbol`'s params.
    ReplaceParams {
        /// The item's new text (doc comment, attributes, signature, body), at column 0 or any
        /// common indentation: it lands at the item's.
        content: String,
    }
);

symbol_params!(
    /// `insert-symbol`'s params.
    InsertParams {
        /// `before` or `after` the item.
        #[serde(rename = "where")]
        side: Where,
        /// The new item's text, at column 0 or any common indentation: it lands at the item's.
        content: String,
    }
);

symbol_params!(
    /// `delete-symbol`'s params.
    DeleteParams {}
);

/// What a symbol edit does to the item's lines.
#[derive(Clone, Copy)]
enum Op<'a> {
    Replace(&'a str),
    Insert(Where, &'a str),
    Delete,
}

/// One symbol edit, whichever method asked for it.
struct Call<'a> {
    method: &'static str,
    file: &'a str,
    symbol: &'a str,
    op: Op<'a>,
    expect_version: Option<String>,
    session: Option<String>,
    backup: Option<bool>,
    dry_run: bool,
    force: bool,
}

pub fn replace(ws: &Workspace, p: ReplaceParams) -> Result<SymbolEdited> {
    run(ws, p.call("replace-symbol", Op::Replace(&p.content)))
}

pub fn insert(ws: &Workspace, p: InsertParams) -> Result<SymbolEdited> {
    run(ws, p.call("insert-symbol", Op::Insert(p.side, &p.content)))
}

/// `checked`: the version in which the method found no reference to the item elsewhere; the
/// edit is refused (C212) if the file is no longer at it.
pub fn delete(ws: &Workspace, p: DeleteParams, checked: Option<String>) -> Result<SymbolEdited> {
    let mut call = p.call("delete-symbol", Op::Delete);
    call.expect_version = call.expect_version.or(checked);
    run(ws, call)
}

fn run(ws: &Workspace, call: Call) -> Result<SymbolEdited> {
    let mut t = target(ws, "file", call.file)?;
    t.expect_version = call.expect_version.clone();
    let path = t.resolved.abs.clone();
    let opts = Options {
        must_exist: true,
        // A name with `@LINE` is a line number: refused if the session's read is outdated.
        line_numbers: call.symbol.contains('@'),
        method: call.method,
        ..Options::backed_up(call.session.clone(), None, call.backup, call.dry_run)
    };
    let mut planned = None;
    let mut files = txn::run(ws, vec![t], &opts, |draft| {
        let (splice, answer) = plan(&ws.jail, &path, draft.current(&path)?, &call)?;
        draft.splice(&path, vec![splice])?;
        planned = Some(answer);
        Ok(())
    })?;
    let mut answer = planned.expect("planned");
    let mut file = files.remove(0);
    // A dry run answers the diff alone: nothing was written, so there is no file to report.
    match call.dry_run {
        true => answer.diff = file.diff.take(),
        false => answer.file = Some(file),
    }
    Ok(answer)
}

/// The splice the call makes of `source`, and its answer without the file.
fn plan(jail: &Jail, path: &Path, source: &[u8], call: &Call) -> Result<(Splice, SymbolEdited)> {
    let (outline, index) = symbol::locate(jail, path, source, call.symbol)?;
    let side = match call.op {
        Op::Insert(side, _) => side,
        _ => Where::After,
    };
    let span = span(&outline, index, source, side)?;
    let splice = match call.op {
        Op::Replace(content) => lines::replace(source, &span, content)?,
        Op::Insert(side, content) => lines::insert(source, &span, side, content)?,
        Op::Delete => lines::delete(source, &span),
    };
    if !call.force && outline.parse_errors == 0 {
        let language = symbol::language(jail, path, source)?;
        let new = splice::apply(source, std::slice::from_ref(&splice));
        if let Some(line) = coderd_syntax::first_error_line(language, &new) {
            return Err(Error::bad_input(format!(
                "{}: the edit would leave a syntax error at line {line} of the result, which parses cleanly now; nothing was changed",
                path.display()
            ))
            .with_data("error_line", line)
            .with_recovery("fix the content (`dry_run` shows the result as a diff), or pass `force: true` to write it anyway"));
        }
    }
    let answer = SymbolEdited {
        file: None,
        symbol: outline.path_of(index),
        lines: (span.first, span.last),
        diff: None,
    };
    Ok((splice, answer))
}

/// The item's lines, and the gap to its sibling on `side` (else the other side; 1 without one).
/// C210 when another item shares its lines: a symbol edit changes whole lines.
fn span(outline: &Outline, index: usize, source: &[u8], side: Where) -> Result<Span> {
    let item = &outline.items[index];
    let (first, last) = (item.extent_line, item.end_line);
    // Another item on the item's lines, unless it is one of its own or holds it from a line of
    // its own (a Python class ends with its last method's line; a Go method nests under its
    // type, declared elsewhere: no line in common at all).
    let shared = (0..outline.items.len()).find(|&j| {
        let other = &outline.items[j];
        let meets = other.extent_line <= last && other.end_line >= first;
        let around = holds(outline, j, index) && other.line < first && other.end_line >= last;
        meets && !around && !holds(outline, index, j)
    });
    if let Some(j) = shared {
        return Err(Error::bad_input(format!(
            "`symbol`: {} shares its lines with {}; an edit by symbol changes whole lines",
            outline.path_of(index),
            outline.path_of(j)
        ))
        .with_recovery("edit it with `patch` (search/replace) instead"));
    }
    let siblings = || {
        (0..outline.items.len()).filter(|&j| j != index && outline.items[j].parent == item.parent)
    };
    let prev = siblings()
        .filter(|&j| outline.items[j].end_line < first)
        .max_by_key(|&j| outline.items[j].end_line);
    let next = siblings()
        .filter(|&j| outline.items[j].extent_line > last)
        .min_by_key(|&j| outline.items[j].extent_line);
    let before = prev.map(|j| lines::blank_lines_before(source, first, outline.items[j].end_line));
    let after = next.map(|j| lines::blank_lines_after(source, last, outline.items[j].extent_line));
    let gap = match side {
        Where::Before => before.or(after),
        Where::After => after.or(before),
    };
    Ok(Span {
        first,
        last,
        head: item.line,
        gap: gap.unwrap_or(1),
        has_next: next.is_some(),
    })
}

/// Whether item `outer` holds item `inner` (is one of its parents), or is it.
fn holds(outline: &Outline, outer: usize, inner: usize) -> bool {
    let mut at = Some(inner);
    while let Some(i) = at {
        if i == outer {
            return true;
        }
        at = outline.items[i].parent;
    }
    false
}
