//! The daemon's answers as LSP types: an `outline` as nested document symbols and folding ranges,
//! `symbols` as workspace symbols, a `diagnostics` report as published diagnostics. Pure
//! functions over the answers' JSON, so they are tested without a daemon.
//!
//! The daemon counts lines from 1 and knows items by line; LSP counts from 0, and columns in
//! UTF-16 units. A symbol's name is placed in its line when the editor's text is at hand.

use lsp_types::{
    Diagnostic, DiagnosticSeverity, DocumentSymbol, FoldingRange, FoldingRangeKind, Location,
    NumberOrString, Position, Range, SymbolInformation, SymbolKind, Uri,
};
use serde::Deserialize;
use serde_json::Value;

/// One item of an `outline` (or `symbols`, or `map` with `items`) answer.
#[derive(Deserialize, Debug, Clone)]
pub struct Item {
    pub kind: String,
    pub name: String,
    #[serde(default)]
    pub signature: String,
    pub line: u32,
    pub end_line: u32,
    #[serde(default)]
    pub parent: Option<Value>,
    #[serde(default)]
    pub path: Option<String>,
}

/// The LSP kind of a daemon item kind.
pub fn symbol_kind(kind: &str) -> SymbolKind {
    match kind {
        "function" => SymbolKind::FUNCTION,
        "method" => SymbolKind::METHOD,
        "class" => SymbolKind::CLASS,
        "struct" => SymbolKind::STRUCT,
        "enum" => SymbolKind::ENUM,
        "interface" | "trait" => SymbolKind::INTERFACE,
        "impl" => SymbolKind::OBJECT,
        "type" => SymbolKind::TYPE_PARAMETER,
        "const" => SymbolKind::CONSTANT,
        "var" => SymbolKind::VARIABLE,
        "field" => SymbolKind::FIELD,
        "module" => SymbolKind::MODULE,
        "heading" => SymbolKind::STRING,
        "key" => SymbolKind::KEY,
        _ => SymbolKind::NULL,
    }
}

/// Columns in UTF-16 units, as LSP counts them by default.
fn utf16_len(text: &str) -> u32 {
    text.encode_utf16().count() as u32
}

/// The range of a name on its (0-based) line: where the name first appears in the line's text,
/// else the line's start.
fn name_range(lines: &[&str], line: u32, name: &str) -> Range {
    let text = lines.get(line as usize).copied().unwrap_or("");
    let start = match text.find(name).filter(|_| !name.is_empty()) {
        Some(at) => utf16_len(&text[..at]),
        None => 0,
    };
    let end = start
        + if start == 0 && !text.contains(name) {
            0
        } else {
            utf16_len(name)
        };
    Range::new(Position::new(line, start), Position::new(line, end))
}

/// An item's whole range: its first line's start to its last line's end.
fn item_range(lines: &[&str], item: &Item) -> Range {
    let (first, last) = (item.line.saturating_sub(1), item.end_line.saturating_sub(1));
    let end = match lines.get(last as usize) {
        Some(text) => Position::new(last, utf16_len(text)),
        None => Position::new(last + 1, 0),
    };
    Range::new(Position::new(first, 0), end)
}

/// How deep document symbols nest: deeper items are listed beside their parent at this depth
/// (building and sending the symbols recurses, and a hostile file nests a hundred thousand deep).
const MAX_SYMBOL_NESTING: usize = 64;

/// An outline's items (parents first, `parent` the index of the enclosing item) as nested symbols.
pub fn document_symbols(items: &[Item], text: &str) -> Vec<DocumentSymbol> {
    let lines: Vec<&str> = text.lines().collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); items.len()];
    let mut top = Vec::new();
    // Where each item hangs, and how deep: past MAX_SYMBOL_NESTING beside its parent.
    let mut placed: Vec<(Option<usize>, usize)> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let parent = item.parent.as_ref().and_then(Value::as_u64);
        let place = match parent.map(|p| p as usize).filter(|&p| p < i) {
            Some(p) if placed[p].1 < MAX_SYMBOL_NESTING => (Some(p), placed[p].1 + 1),
            Some(p) => placed[p],
            None => (None, 0),
        };
        placed.push(place);
        match place.0 {
            Some(p) => children[p].push(i),
            None => top.push(i),
        }
    }
    top.iter()
        .map(|&i| document_symbol(items, &children, &lines, i))
        .collect()
}

fn document_symbol(
    items: &[Item],
    children: &[Vec<usize>],
    lines: &[&str],
    i: usize,
) -> DocumentSymbol {
    let item = &items[i];
    let range = item_range(lines, item);
    let mut selection = name_range(lines, item.line.saturating_sub(1), &item.name);
    if selection.end > range.end {
        selection = Range::new(range.start, range.start);
    }
    let nested: Vec<DocumentSymbol> = children[i]
        .iter()
        .map(|&c| document_symbol(items, children, lines, c))
        .collect();
    #[allow(deprecated)]
    DocumentSymbol {
        name: item.name.clone(),
        detail: (!item.signature.is_empty()).then(|| item.signature.clone()),
        kind: symbol_kind(&item.kind),
        tags: None,
        deprecated: None,
        range,
        selection_range: selection,
        children: (!nested.is_empty()).then_some(nested),
    }
}

/// Every item spanning more than one line folds (the same trees as the outline).
pub fn folding_ranges(items: &[Item]) -> Vec<FoldingRange> {
    items
        .iter()
        .filter(|item| item.end_line > item.line)
        .map(|item| FoldingRange {
            start_line: item.line - 1,
            start_character: None,
            end_line: item.end_line - 1,
            end_character: None,
            kind: Some(FoldingRangeKind::Region),
            collapsed_text: Some(item.name.clone()),
        })
        .collect()
}

/// A `symbols` hit as a workspace symbol, at the file `uri`.
pub fn symbol_information(item: &Item, uri: Uri) -> SymbolInformation {
    let line = item.line.saturating_sub(1);
    #[allow(deprecated)]
    SymbolInformation {
        name: item.name.clone(),
        kind: symbol_kind(&item.kind),
        tags: None,
        deprecated: None,
        location: Location::new(
            uri,
            Range::new(Position::new(line, 0), Position::new(line, 0)),
        ),
        container_name: item
            .parent
            .as_ref()
            .and_then(Value::as_str)
            .map(str::to_owned),
    }
}

/// One file's findings of a `diagnostics` report as LSP diagnostics.
pub fn diagnostics(file: &Value) -> Vec<Diagnostic> {
    let items = file["items"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    items.iter().filter_map(diagnostic).collect()
}

fn diagnostic(item: &Value) -> Option<Diagnostic> {
    let line = item["line"].as_u64()?.saturating_sub(1) as u32;
    let column = item["column"].as_u64().unwrap_or(1).saturating_sub(1) as u32;
    let severity = match item["severity"].as_str()? {
        "error" => DiagnosticSeverity::ERROR,
        "warning" => DiagnosticSeverity::WARNING,
        "information" => DiagnosticSeverity::INFORMATION,
        _ => DiagnosticSeverity::HINT,
    };
    let at = Position::new(line, column);
    Some(Diagnostic {
        range: Range::new(at, at),
        severity: Some(severity),
        code: item["code"]
            .as_str()
            .map(|c| NumberOrString::String(c.into())),
        source: item["server"].as_str().map(|s| format!("coderd: {s}")),
        message: item["message"].as_str()?.to_string(),
        ..Diagnostic::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn items(value: Value) -> Vec<Item> {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn an_outline_nests_and_names_are_placed_in_their_lines() {
        let text =
            "struct Point {\n    x: i32,\n}\n\nimpl Point {\n    fn norm(&self) -> i32 { 0 }\n}\n";
        let outline = items(json!([
            {"kind": "struct", "name": "Point", "signature": "struct Point", "line": 1, "end_line": 3},
            {"kind": "field", "name": "x", "line": 2, "end_line": 2, "parent": 0},
            {"kind": "impl", "name": "Point", "line": 5, "end_line": 7},
            {"kind": "method", "name": "norm", "line": 6, "end_line": 6, "parent": 2},
        ]));
        let symbols = document_symbols(&outline, text);
        assert_eq!(symbols.len(), 2);
        assert_eq!(
            symbols[0].selection_range,
            Range::new(Position::new(0, 7), Position::new(0, 12))
        );
        assert_eq!(symbols[0].range.end, Position::new(2, 1));
        let norm = &symbols[1].children.as_ref().unwrap()[0];
        assert_eq!(norm.kind, SymbolKind::METHOD);
        assert_eq!(norm.selection_range.start, Position::new(5, 7));
        let folds = folding_ranges(&outline);
        let spans: Vec<(u32, u32)> = folds.iter().map(|f| (f.start_line, f.end_line)).collect();
        assert_eq!(spans, [(0, 2), (4, 6)]);
    }

    /// A chain of items nested deeper than MAX_SYMBOL_NESTING is cut there: the deeper items
    /// hang beside their parent at that depth, none is lost, and nothing recurses past it.
    #[test]
    fn a_deep_chain_of_items_nests_only_so_deep() {
        let deep = 10_000usize;
        let chain: Vec<Value> = (0..deep)
            .map(|i| json!({"kind": "module", "name": format!("m{i}"), "line": i + 1, "end_line": 2 * deep - i, "parent": i.checked_sub(1)}))
            .collect();
        let symbols = document_symbols(&items(Value::Array(chain)), "");
        let (mut level, mut at, mut total) = (0, &symbols, 0);
        loop {
            total += at.len();
            match at.last().and_then(|s| s.children.as_ref()) {
                Some(children) => (level, at) = (level + 1, children),
                None => break,
            }
        }
        assert_eq!(level, MAX_SYMBOL_NESTING);
        assert_eq!(total, deep);
        assert_eq!(at.last().unwrap().name, format!("m{}", deep - 1));
    }

    #[test]
    fn findings_become_zero_based_diagnostics() {
        let file = json!({"items": [
            {"severity": "error", "line": 3, "column": 9, "code": "E0308", "message": "mismatched types", "server": "rust-analyzer", "new": true}
        ]});
        let found = diagnostics(&file);
        assert_eq!(found[0].range.start, Position::new(2, 8));
        assert_eq!(found[0].severity, Some(DiagnosticSeverity::ERROR));
        assert_eq!(found[0].message, "mismatched types");
    }
}
