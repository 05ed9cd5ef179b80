//! The structure of one file: `outline` (see `syntax`).

use super::{method, Method};

pub fn methods() -> Vec<Method> {
    vec![method(
        "outline",
        &[],
        "A file's skeleton: its definitions with kind, signature, lines, nesting and doc line.",
        false,
        |s, p| coderd_syntax::outline::run(s, &s.syntax, p),
    )
    .answers(wire::answers::Answer::Outline)
    .param_aliases(&[
        ("path", "file"),
        ("filepath", "file"),
        ("file_path", "file"),
    ])
    .bare(&["file"])
    .warms_servers()]
}
