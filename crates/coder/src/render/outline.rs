//! `coder outline`: the path, then one line per item, indented by nesting.

use serde::Deserialize;
use std::io::{self, Write};

#[derive(Deserialize)]
struct OutlineView {
    path: String,
    language: String,
    parse_errors: usize,
    items: Vec<ItemView>,
}

#[derive(Deserialize)]
struct ItemView {
    signature: String,
    line: usize,
    parent: Option<usize>,
}

/// The rendering: the path, then one line per item, indented by nesting.
pub fn render(out: &mut impl Write, result: &str) -> io::Result<()> {
    let Ok(r) = serde_json::from_str::<OutlineView>(result) else {
        return out.write_all(result.as_bytes());
    };
    let errors = match r.parse_errors {
        0 => String::new(),
        n => format!(", {n} parse errors"),
    };
    writeln!(out, "{} ({}{errors})", r.path, r.language)?;
    let items = &r.items;
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); items.len()];
    let mut stack = Vec::new();
    for (i, item) in items.iter().enumerate().rev() {
        match item.parent.filter(|&p| p < items.len()) {
            Some(p) => children[p].push(i),
            None => stack.push((i, 0)),
        }
    }
    while let Some((i, depth)) = stack.pop() {
        let item = &items[i];
        let indent = 2 * depth.min(MAX_INDENT);
        writeln!(out, "{:>6}  {:indent$}{}", item.line, "", item.signature)?;
        // Pushed last first, so that they pop in file order.
        stack.extend(children[i].iter().map(|&c| (c, depth + 1)));
    }
    Ok(())
}

/// How many levels the lines are indented at most: a hostile file nesting a hundred thousand
/// deep would otherwise print gigabytes of spaces.
const MAX_INDENT: usize = 32;
