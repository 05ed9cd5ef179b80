//! `coder map` and `coder symbols`.

use serde::Deserialize;
use std::io::{self, Write};

/// `map`: the map text as it is.
pub fn render(out: &mut impl Write, result: &str) -> io::Result<()> {
    #[derive(Deserialize)]
    struct View {
        map: String,
    }
    match serde_json::from_str::<View>(result) {
        Ok(view) => out.write_all(view.map.as_bytes()),
        Err(_) => out.write_all(result.as_bytes()),
    }
}

/// `symbols`: a line a symbol, `path:line: kind signature`, like a grep hit an editor can jump
/// to; then how many more there are.
pub fn symbols(out: &mut impl std::io::Write, result: &str) -> std::io::Result<()> {
    #[derive(Deserialize)]
    struct View {
        total: usize,
        results: Vec<Hit>,
    }
    #[derive(Deserialize)]
    struct Hit {
        path: String,
        line: usize,
        kind: String,
        name: String,
        signature: Option<String>,
    }
    let view: View = serde_json::from_str(result)?;
    for hit in &view.results {
        let text = hit.signature.as_deref().unwrap_or(&hit.name);
        writeln!(out, "{}:{}: {} {}", hit.path, hit.line, hit.kind, text)?;
    }
    let more = view.total.saturating_sub(view.results.len());
    if more > 0 {
        writeln!(
            out,
            "… {more} more (raise --limit, or narrow --dir or --kind)"
        )?;
    }
    Ok(())
}
