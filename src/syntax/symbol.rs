//! `read --symbol`: finding one item of a file's outline by its (dotted) name, for a read of
//! exactly its lines with its doc comment and decorators.
//!
//! A name matches an item when it is the item's name or `kind name` (`impl Foo`); a dotted name
//! matches when its last part matches the item and the rest matches the item's parents, nearest
//! first (`Server.handle`, `impl Foo.bar`). The path need not start at the top level.

use super::items::Outline;
use crate::error::{Error, Result};
use crate::jail::{Jail, Resolved};
use std::io::Read;

/// Lines of the item `symbol` names in a resolved file: (first line with its leading doc comment
/// and decorators, last line), 1-based inclusive.
pub fn lines_in_file(
    jail: &Jail,
    resolved: &Resolved,
    symbol: &str,
    max_bytes: u64,
) -> Result<(u64, u64)> {
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
    let projects = super::dialect::Projects::default();
    let language = super::dialect::language_of(jail, &projects, &resolved.abs, &source)
        .ok_or_else(|| {
            Error::bad_input(format!(
                "`symbol`: {} is in no language coderd can outline",
                resolved.abs.display()
            ))
            .with_recovery("read a line window instead: `start` and `end`")
        })?;
    let outline = super::outline_of(language, &source).ok_or_else(|| {
        Error::bad_input(format!("`symbol`: no grammar for {}", language.name))
            .with_recovery("read a line window instead: `start` and `end`")
    })?;
    let index = find(&outline, symbol)?;
    let item = &outline.items[index];
    Ok((item.extent_line as u64, item.end_line as u64))
}

/// The one item `symbol` names; C210 listing the candidates when several match, C211 listing the
/// top-level names when none does.
pub fn find(outline: &Outline, symbol: &str) -> Result<usize> {
    let symbol = symbol.trim();
    let matches: Vec<usize> = (0..outline.items.len())
        .filter(|&i| matches_path(outline, i, symbol))
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
                    format!(
                        "{} {} (line {})",
                        item.kind.as_str(),
                        outline.path_of(i),
                        item.line
                    )
                })
                .collect();
            Err(
                Error::bad_input(format!("`symbol`: {symbol} names {} items", several.len()))
                    .with_data("candidates", candidates.clone())
                    .with_recovery(format!(
                        "name one of them with its parents (dotted) or its kind (`impl Foo`): {}",
                        candidates.join("; ")
                    )),
            )
        }
    }
}

fn matches_path(outline: &Outline, index: usize, path: &str) -> bool {
    let item = &outline.items[index];
    let kinded = format!("{} {}", item.kind.as_str(), item.name);
    if path == item.name || path == kinded {
        return true;
    }
    let Some(parent) = item.parent else {
        return false;
    };
    [item.name.as_str(), kinded.as_str()].iter().any(|own| {
        path.strip_suffix(own)
            .and_then(|rest| rest.strip_suffix('.'))
            .is_some_and(|rest| matches_path(outline, parent, rest))
    })
}
