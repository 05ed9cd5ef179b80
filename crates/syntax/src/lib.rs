//! Structure: which language a file is in (`languages`, from the registry in `grammars/`), its
//! tree-sitter parse (`parse`, cached per document version and updated incrementally from the
//! documents store's edit events in `cache`), and its outline (`items`, from
//! `queries/<language>/outline.scm`). The methods are `outline` and `read --symbol` (`symbol`).
//!
//! The crate also holds the repository map (`map`: the tag index over a tree, its ranking and
//! rendering), and its build script makes the grammar pack and query table from the workspace's
//! `grammars/` and `queries/`.
//!
//! It stands on coderd-core alone, and knows no command, language server, edit, git, method or
//! face; it knows nothing of JSON or the wire except in its answers (`outline`, `map`).

mod cache;
pub mod dialect;
mod docs;
mod ecmascript;
pub mod grammars;
mod items;
pub mod languages;
mod lexer;
pub mod map;
pub mod outline;
mod queries;
mod recover;
mod rust_mask;
mod shell_mask;
mod skeleton;
pub mod symbol;
mod tags;
mod token_outline;
mod walk;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use tree_sitter::{Parser, Tree};

pub use cache::Cache;
pub use items::{Item, Outline};

/// What a definition is.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Function,
    Method,
    Class,
    Struct,
    Enum,
    Interface,
    /// A Java annotation type (`@interface`).
    Annotation,
    Trait,
    Impl,
    Type,
    Const,
    Var,
    Field,
    Module,
    /// A macro definition (Rust's `macro_rules!`).
    Macro,
    Heading,
    Key,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Function => "function",
            Kind::Method => "method",
            Kind::Class => "class",
            Kind::Struct => "struct",
            Kind::Enum => "enum",
            Kind::Interface => "interface",
            Kind::Annotation => "annotation",
            Kind::Trait => "trait",
            Kind::Impl => "impl",
            Kind::Type => "type",
            Kind::Const => "const",
            Kind::Var => "var",
            Kind::Field => "field",
            Kind::Module => "module",
            Kind::Macro => "macro",
            Kind::Heading => "heading",
            Kind::Key => "key",
        }
    }

    /// Kinds whose functions are methods and whose variables are fields.
    pub fn holds_members(self) -> bool {
        matches!(
            self,
            Kind::Class
                | Kind::Struct
                | Kind::Enum
                | Kind::Interface
                | Kind::Annotation
                | Kind::Trait
                | Kind::Impl
        )
    }
}

/// Gives tree-sitter's C allocations (trees, parse stacks, query cursors) to mimalloc instead of
/// glibc's malloc: a cold map builds and frees millions of small nodes on every core, and glibc
/// took a tenth of its CPU time (docs/benchmarks.md, "Cold map"). Only tree-sitter's: the Rust
/// heap stays glibc's, whose memory policy (`coderd_core::memory`) the daemon tunes. The grammars'
/// external scanners keep libc's malloc, each freeing what it allocated.
///
/// # Safety
/// Call before any tree-sitter object exists (first thing in `main`), and once: memory is freed
/// by the allocator that gave it.
pub unsafe fn allocate_with_mimalloc() {
    use libmimalloc_sys::{mi_calloc, mi_free, mi_malloc, mi_realloc};
    // SAFETY: one allocator family; mimalloc aligns as malloc does and returns null only when out
    // of memory, which tree-sitter checks; the caller guarantees no tree-sitter object exists yet.
    unsafe {
        tree_sitter::set_allocator(Some(tree_sitter::Allocator {
            malloc: mi_malloc,
            calloc: mi_calloc,
            realloc: mi_realloc,
            free: mi_free,
        }));
    }
}

thread_local! {
    static PARSER: RefCell<Parser> = RefCell::new(Parser::new());
}

/// Parses `source` in a language, reusing `old` (already `edit`ed to match) when given.
/// `None` when the language has no usable grammar.
pub fn parse(language: &languages::Language, source: &[u8], old: Option<&Tree>) -> Option<Tree> {
    let queries = queries::of(language).ok()?;
    let masked = masked(language, source);
    let (source, old) = match &masked {
        Some(masked) => (masked.as_slice(), None),
        None => (source, old),
    };
    PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        parser.set_language(&queries.language).ok()?;
        parser.set_included_ranges(&[]).ok()?;
        let tree = parser.parse(source, old)?;
        // A parse that lost the file's structure is parsed again without the damaged region.
        Some(recover::contain(&mut parser, source, tree))
    })
}

/// The source rewritten for its grammar, at the same length, when it needs it: a C file with a
/// bare macro line (a shell script or a Rust file with a form its grammar misreads) is parsed from
/// scratch, masked: whether a line is masked depends on the line before it (on the whole line),
/// which an edit elsewhere can change.
fn masked(language: &languages::Language, source: &[u8]) -> Option<Vec<u8>> {
    match language.name.as_str() {
        "c" | "cpp" => dialect::mask_macro_lines(source),
        "bash" => shell_mask::mask(source),
        "rust" => rust_mask::mask(source),
        _ => None,
    }
}

/// The map's parse of a file whose language has a lexer (`lexer::Dialect`): its tokens, lexed
/// once for the body finder, the name counter and the imports; its outline read from the tokens
/// alone when `from_tokens` and the dialect's finder is sure of the file (`token_outline`), else
/// its skeleton (function bodies left out) when it proves itself; `None` for other languages.
fn parse_for_tags(
    language: &languages::Language,
    source: &[u8],
    from_tokens: bool,
) -> Option<ForTags> {
    let dialect = lexer::Dialect::of(language)?;
    let masked = masked(language, source);
    let source = masked.as_deref().unwrap_or(source);
    let (tokens, comments) = lexer::lex_with_comments(dialect, source);
    // A masked file (`rust_mask`) is left to the parse.
    let outline = (from_tokens && masked.is_none())
        .then(|| token_outline::outline(dialect, source, &tokens, &comments))
        .flatten();
    let skeleton = match outline {
        Some(_) => None,
        // The queries are compiled on a language's first parse: not at all for a tree of Go
        // files all read from their tokens.
        None => PARSER.with(|parser| {
            let queries = queries::of(language).ok()?;
            let mut parser = parser.borrow_mut();
            parser.set_language(&queries.language).ok()?;
            skeleton::parse(dialect, &mut parser, source, &tokens, &comments)
        }),
    };
    Some(ForTags {
        outline,
        skeleton,
        tokens,
    })
}

/// `parse_for_tags`' answer.
struct ForTags {
    /// The outline read from the tokens alone (then no skeleton is parsed).
    outline: Option<token_outline::TokenOutline>,
    skeleton: Option<skeleton::Skeleton>,
    /// The masked source's tokens: at the same offsets as the source's (masking keeps lengths).
    tokens: Vec<lexer::Token>,
}

/// The outline of a source text, parsed from scratch (tests, the map's workers).
pub fn outline_of(language: &languages::Language, source: &[u8]) -> Option<Outline> {
    let queries = queries::of(language).ok()?;
    let tree = parse(language, source, None)?;
    Some(items::extract(&tree, source, queries))
}

/// The first line (1-based) of a syntax error in `source` (an ERROR or MISSING node), none when
/// it parses cleanly or the language has no grammar: what an edit by symbol checks it did not add.
pub fn first_error_line(language: &languages::Language, source: &[u8]) -> Option<usize> {
    let tree = parse(language, source, None)?;
    // A region the parse left out to contain an error (`recover`) is an error there too.
    let skipped = recover::first_skipped_line(&tree, source);
    let errors = recover::error_nodes(&tree).into_iter();
    let error = errors.map(|node| node.start_position().row + 1).min();
    skipped.into_iter().chain(error).min()
}

/// The golden outline fixtures (`tests/fixtures/structure/outline`) whose language coderd knows,
/// with it: what the crate's tests check the outline's walks on.
#[cfg(test)]
fn outline_fixtures() -> Vec<(std::path::PathBuf, &'static languages::Language)> {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/structure/outline"
    );
    let paths = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path());
    paths
        .filter_map(|path| Some((path.clone(), languages::for_path(&path, None)?)))
        .collect()
}

/// The Go and Rust files of the checkout named by the environment variable `var`, with their
/// language and bytes: what the corpus tests (`CODERD_SKELETON_CORPUS`, `CODERD_TOKEN_CORPUS`)
/// compare the map's parses on.
#[cfg(test)]
fn lexer_corpus(
    var: &str,
) -> impl Iterator<Item = (std::path::PathBuf, &'static languages::Language, Vec<u8>)> {
    let root = std::env::var(var).unwrap_or_else(|_| panic!("{var} names no checkout"));
    ignore::Walk::new(root).flatten().filter_map(|entry| {
        let path = entry.into_path();
        let language = languages::for_path(&path, None)?;
        if !matches!(language.name.as_str(), "go" | "rust") {
            return None;
        }
        let source = std::fs::read(&path).ok()?;
        Some((path, language, source))
    })
}
