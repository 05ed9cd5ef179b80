//! The language servers' method: `diagnostics` (see `lsp`; the diagnostics attached to mutating
//! calls are applied in `Method::call`).

use super::{method, Method};

pub fn methods() -> Vec<Method> {
    vec![method(
        "diagnostics",
        &[],
        "The current, settled language-server diagnostics of files (or a folder's files), without editing.",
        false,
        |s, p| coderd_lsp::diagnostics(&s.lsp, s, p),
    )
    .answers(wire::answers::Answer::Diagnostics)
    .bare(&["dir"])]
}
