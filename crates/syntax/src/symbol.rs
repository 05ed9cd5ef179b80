//! `read --symbol`: finding one item of a file's outline by its (dotted) name, for a read of
//! exactly its lines with its doc comment and decorators.
//!
//! A name matches an item when it is the item's name or `kind name` (`impl Foo`); a dotted name
//! matches when its last part matches the item and the rest matches the item's parents, nearest
//! first (`Server.handle`, `impl Foo.bar`). The path need not start at the top level. An impl is
//! also named by its signature (`impl fmt::Debug for IndexExpr.fmt`), a method whose type lives in
//! another file by that type's name (`Appender.Commit`), and `@LINE` picks, among the items named,
//! the one whose lines hold LINE (`IndexExpr.fmt@120`).

use super::items::{Item, Outline};
use super::languages::Language;
use super::Kind;
use coderd_core::error::{Error, Result};
use coderd_core::jail::{Jail, Resolved};
use std::io::Read;
use std::path::Path;

/// Lines of the item `symbol` names in a resolved file: (first line with its leading doc comment
/// and decorators, last line), 1-based inclusive.
pub fn lines_in_file(
    jail: &Jail,
    resolved: &Resolved,
    symbol: &str,
    max_bytes: u64,
) -> Result<(u64, u64)> {
    let (item, _) = item_in_file(jail, resolved, symbol, max_bytes)?;
    Ok((item.extent_line as u64, item.end_line as u64))
}

/// Where the name of the item `symbol` names stands in a resolved file: its 1-based line and
/// 1-based column in UTF-16 units (a language server's position of the item).
pub fn name_in_file(
    jail: &Jail,
    resolved: &Resolved,
    symbol: &str,
    max_bytes: u64,
) -> Result<(u32, u32)> {
    let (item, source) = item_in_file(jail, resolved, symbol, max_bytes)?;
    let before = &source[..item.name_bytes.start.min(source.len())];
    let line_start = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let column = String::from_utf8_lossy(&before[line_start..])
        .encode_utf16()
        .count()
        + 1;
    Ok((line as u32, column as u32))
}

/// The item `symbol` names in a resolved file, and the file's bytes.
fn item_in_file(
    jail: &Jail,
    resolved: &Resolved,
    symbol: &str,
    max_bytes: u64,
) -> Result<(Item, Vec<u8>)> {
    let (mut file, meta) = jail.open_file(resolved)?;
    if meta.len() > max_bytes {
        return Err(Error::too_large(format!(
            "{} is {} bytes; a symbol read parses at most {max_bytes}",
            resolved.abs.display(),
            meta.len()
        ))
        .with_recovery("read a line window instead: `start` and `end`"));
    }
    let mut source = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut source)
        .map_err(|e| Error::from_io(&e, &resolved.abs))?;
    let (mut outline, index) = locate(jail, &resolved.abs, &source, symbol)?;
    Ok((outline.items.swap_remove(index), source))
}

/// The language of a file coderd can outline; C210 (with the way to read it instead) when none.
pub fn language(jail: &Jail, path: &Path, source: &[u8]) -> Result<&'static Language> {
    let projects = super::dialect::Projects::default();
    super::dialect::language_of(jail, &projects, path, source).ok_or_else(|| {
        Error::bad_input(format!(
            "`symbol`: {} is in no language coderd can outline",
            path.display()
        ))
        .with_recovery("address it by lines or text instead (`read` with `start`/`end`, `patch`)")
    })
}

/// The one resolver of symbol names (`read --symbol`, the symbol edits): a file's outline and
/// the index of the item `symbol` names in it (see `find`).
pub fn locate(jail: &Jail, path: &Path, source: &[u8], symbol: &str) -> Result<(Outline, usize)> {
    let language = language(jail, path, source)?;
    let outline = super::outline_of(language, source).ok_or_else(|| {
        Error::bad_input(format!("`symbol`: no grammar for {}", language.name)).with_recovery(
            "address it by lines or text instead (`read` with `start`/`end`, `patch`)",
        )
    })?;
    let index = find(&outline, symbol)?;
    Ok((outline, index))
}

/// The one item `symbol` names; C211 listing the candidates when several match (no one item has
/// that name), or the top-level names when none does.
pub fn find(outline: &Outline, symbol: &str) -> Result<usize> {
    let (symbol, line) = at_line(symbol.trim());
    let matches: Vec<usize> = (0..outline.items.len())
        .filter(|&i| matches_path(outline, i, symbol))
        .filter(|&i| {
            line.is_none_or(|l| (outline.items[i].line..=outline.items[i].end_line).contains(&l))
        })
        .collect();
    match matches.as_slice() {
        [one] => Ok(*one),
        [] => {
            let top: Vec<String> = outline
                .items
                .iter()
                .filter(|item| item.parent.is_none())
                .map(|item| item.name.clone())
                .collect();
            Err(
                Error::not_found(format!("`symbol`: no item named {symbol}"))
                    .with_data("top_level", top.clone())
                    .with_recovery(format!(
                        "top-level names: {}; nested items are named Parent.child",
                        top.join(", ")
                    )),
            )
        }
        several => {
            let candidates: Vec<String> = several
                .iter()
                .map(|&i| {
                    let item = &outline.items[i];
                    match item.kind {
                        // Its qualified path starts with its signature, `impl …`.
                        Kind::Impl => {
                            format!("{} (line {})", qualified_path(outline, i), item.line)
                        }
                        kind => format!(
                            "{} {} (line {})",
                            kind.as_str(),
                            qualified_path(outline, i),
                            item.line
                        ),
                    }
                })
                .collect();
            Err(
                Error::not_found(format!("`symbol`: {symbol} names {} items", several.len()))
                    .with_data("candidates", candidates.clone())
                    .with_recovery(format!(
                        "name one of them with its parents (dotted), a part's kind (`impl Foo`) or \
                         signature (`impl fmt::Debug for Foo.fmt`), or add its line (`Foo.fmt@{}`): {}",
                        outline.items[several[0]].line,
                        candidates.join("; ")
                    )),
            )
        }
    }
}

/// `Foo.fmt@120` → (`Foo.fmt`, line 120): the item among those named whose lines hold 120.
fn at_line(symbol: &str) -> (&str, Option<usize>) {
    match symbol.rsplit_once('@') {
        Some((path, line)) if !path.is_empty() => match line.trim().parse() {
            Ok(line) => (path.trim_end(), Some(line)),
            Err(_) => (symbol, None),
        },
        _ => (symbol, None),
    }
}

/// Whether `path` names the item: its name, `kind name`, or (for an impl, whose name is its type)
/// its signature with or without generics (`impl fmt::Debug for IndexExpr`), after its parents'
/// names the same way, dotted; the first part may be a parent by name declared in another file.
fn matches_path(outline: &Outline, index: usize, path: &str) -> bool {
    let item = &outline.items[index];
    let own = own_names(item);
    if own.iter().any(|n| n == path) {
        return true;
    }
    own.iter().any(|own| {
        let Some(rest) = path
            .strip_suffix(own.as_str())
            .and_then(|r| r.strip_suffix('.'))
        else {
            return false;
        };
        match (item.parent, &item.parent_name) {
            (Some(parent), _) => matches_path(outline, parent, rest),
            (None, Some(name)) => rest == name,
            (None, None) => false,
        }
    })
}

/// The ways a part of a dotted path may name an item.
fn own_names(item: &Item) -> Vec<String> {
    let mut names = vec![
        item.name.clone(),
        format!("{} {}", item.kind.as_str(), item.name),
    ];
    if item.kind == Kind::Impl {
        names.push(item.signature.clone());
        names.push(without_generics(&item.signature));
    }
    names
}

/// `impl<T: Debug> fmt::Debug for Foo<T>` → `impl fmt::Debug for Foo`.
fn without_generics(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '<' => depth += 1,
            '>' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The dotted path that names an item alone among impls of one type: impls by their signature.
fn qualified_path(outline: &Outline, index: usize) -> String {
    let mut parts = Vec::new();
    let mut at = Some(index);
    let mut top = index;
    while let Some(i) = at {
        let item = &outline.items[i];
        parts.push(match item.kind {
            Kind::Impl => without_generics(&item.signature),
            _ => item.name.clone(),
        });
        top = i;
        at = item.parent;
    }
    if let Some(name) = &outline.items[top].parent_name {
        parts.push(name.clone());
    }
    parts.reverse();
    parts.join(".")
}
