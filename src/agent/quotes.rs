//! Typographic quotes in model-written code. Models sometimes write `“` for `"` and `’` for `'`,
//! which breaks code. The text the model supplies for a code file (write `content`, patch and
//! multipatch `replace`) has them turned straight, but only when the file it goes into contains
//! none: a file that already holds curly quotes (an i18n string, a doc comment) may mean them.
//! The rest of the file is never touched, and prose files (markdown, unknown types) never are.

use coderd_core::error::Result;
use coderd_core::typography::straight_quote;
use coderd_core::workspace::Workspace;
use coderd_syntax::languages;
use serde_json::{Map, Value};
use std::io::Read;
use std::path::Path;

/// Straightens curly quotes in the model text of a write/patch/multipatch call; returns how many
/// were replaced.
pub fn straighten(
    state: &Workspace,
    method: &str,
    params: &mut Map<String, Value>,
) -> Result<usize> {
    if params.get("encoding").is_some_and(|e| e == "base64") {
        return Ok(0);
    }
    match method {
        "write" => Ok(in_field(state, params, "content")),
        "patch" => Ok(in_field(state, params, "replace")),
        "multipatch" => {
            let Some(Value::Array(edits)) = params.get_mut("edits") else {
                return Ok(0);
            };
            Ok(edits
                .iter_mut()
                .filter_map(Value::as_object_mut)
                .filter(|e| !e.get("encoding").is_some_and(|x| x == "base64"))
                .map(|e| in_field(state, e, "replace"))
                .sum())
        }
        _ => Ok(0),
    }
}

fn in_field(state: &Workspace, params: &mut Map<String, Value>, field: &str) -> usize {
    let Some(file) = params
        .get("file")
        .and_then(Value::as_str)
        .map(str::to_string)
    else {
        return 0;
    };
    let Some(Value::String(text)) = params.get_mut(field) else {
        return 0;
    };
    if !has_curly(text) || !is_code(Path::new(&file)) || file_has_curly(state, &file) {
        return 0;
    }
    let (straight, count) = straighten_text(text);
    *text = straight;
    count
}

fn has_curly(text: &str) -> bool {
    text.contains(|c| straight_quote(c).is_some())
}

/// Code: a file of a language the registry knows, except markdown.
fn is_code(path: &Path) -> bool {
    languages::for_path(path, None).is_some_and(|l| l.name != "markdown")
}

/// Whether the target file already holds curly quotes. A file that cannot be read (new, or not
/// readable) holds none; the method itself reports what is wrong with the path.
fn file_has_curly(state: &Workspace, wire: &str) -> bool {
    let Ok(resolved) = state.jail.resolve("file", wire) else {
        return false;
    };
    let Ok((mut file, _)) = state.jail.open_file(&resolved) else {
        return false;
    };
    let mut bytes = Vec::new();
    if file.read_to_end(&mut bytes).is_err() {
        return false;
    }
    has_curly(&String::from_utf8_lossy(&bytes))
}

/// The text with curly quotes straight, and how many were replaced.
pub fn straighten_text(text: &str) -> (String, usize) {
    let mut count = 0;
    let out = text
        .chars()
        .map(|c| match straight_quote(c) {
            Some(straight) => {
                count += 1;
                straight
            }
            None => c,
        })
        .collect();
    (out, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curly_quotes_become_straight_and_are_counted() {
        assert_eq!(
            straighten_text("fmt.Println(“hi”, ‘x’)"),
            ("fmt.Println(\"hi\", 'x')".to_string(), 4)
        );
    }

    #[test]
    fn only_code_files_count() {
        assert!(is_code(Path::new("main.go")));
        assert!(!is_code(Path::new("README.md")));
        assert!(!is_code(Path::new("notes.txt")));
    }
}
