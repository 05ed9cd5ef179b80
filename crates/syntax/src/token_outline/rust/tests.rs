use crate::items::{self, Outline};
use crate::lexer::{lex_with_comments, Dialect};
use crate::{languages, queries};

/// The outline the map's tagger gives a Rust file without the token finder: its skeleton's, or
/// its full parse's where the skeleton does not prove itself.
pub(crate) fn map_outline(source: &[u8]) -> Outline {
    let language = languages::by_name("rust").unwrap();
    let queries = queries::of(language).unwrap();
    let lexed = crate::parse_for_tags(language, source, false).unwrap();
    match &lexed.skeleton {
        Some(skeleton) => {
            let comments = &skeleton.comments;
            let tree = &skeleton.tree;
            let (mut outline, _) =
                items::extract_definitions(tree, source, queries, None, comments);
            outline.parse_errors = 0;
            outline
        }
        None => {
            let tree = crate::parse(language, source, None).unwrap();
            items::extract_definitions(&tree, source, queries, None, &[]).0
        }
    }
}

/// The token finder's outline, when it answers.
pub(crate) fn token_outline(source: &[u8]) -> Option<Outline> {
    let (tokens, comments) = lex_with_comments(Dialect::Rust, source);
    let found = crate::token_outline::outline(Dialect::Rust, source, &tokens, &comments);
    found.map(|found| found.outline)
}

/// The two outlines' differences, item for item (empty when they are the same).
pub(crate) fn differences(mine: &Outline, theirs: &Outline) -> Vec<String> {
    let (a, b) = (&mine.items, &theirs.items);
    let mut out = Vec::new();
    if mine.parse_errors != theirs.parse_errors {
        out.push(format!(
            "parse errors {} / {}",
            mine.parse_errors, theirs.parse_errors
        ));
    }
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (
            a.get(i).map(|x| format!("{x:?}")),
            b.get(i).map(|y| format!("{y:?}")),
        );
        if x != y {
            out.push(format!("#{i}:\n  tokens   {x:?}\n  skeleton {y:?}"));
        }
    }
    out
}

/// Every construct the finder reads, each answered and equal to the skeleton's outline field for
/// field (bytes, name bytes, extent line included).
#[test]
fn token_outlines_equal_the_skeletons() {
    let mut failed = Vec::new();
    for source in CASES {
        let theirs = map_outline(source.as_bytes());
        assert_eq!(theirs.parse_errors, 0, "{source}");
        let Some(mine) = token_outline(source.as_bytes()) else {
            failed.push(format!("no answer: {source}"));
            continue;
        };
        let differences = differences(&mine, &theirs);
        if !differences.is_empty() {
            failed.push(format!("{source}\n{}", differences.join("\n")));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

/// A file cut anywhere (an editor's unsaved half, a truncated read) never panics the walk.
#[test]
fn a_cut_file_never_panics() {
    for source in CASES {
        for cut in (0..=source.len()).filter(|&at| source.is_char_boundary(at)) {
            let _ = token_outline(&source.as_bytes()[..cut]);
        }
    }
}

/// The constructs the finder reads, one source each.
const CASES: [&str; 15] = [
        "fn a() {}\npub(crate) async unsafe fn b<T: Fn(u8) -> u8>(x: T) -> Vec<u8>\nwhere\n    T: Clone,\n{\n    let s = \"}\";\n}\n",
        "pub const fn c() -> u8 { 1 }\nextern \"C\" fn d() {}\nconst unsafe fn e() {}\n",
        "/// Doc of S.\n#[derive(Debug)]\n// plain\npub struct S<T> where T: Copy {\n    /// Field doc.\n    pub a: Vec<T>,\n    #[serde(skip)]\n    b: HashMap<u8, fn(u8) -> u8>, // trailing\n    /* c */ c: [u8; 4]\n}\n",
        "struct T(u8, pub String);\nstruct U;\nstruct V<T>(T) where T: Send;\nunion W { a: u8, b: u16 }\n",
        "enum E<T> {\n    /// A.\n    A,\n    B(u8),\n    C { x: u8, /// y\n y: T },\n    D = 4,\n}\n",
        "pub trait Tr: Sized + Fn(u8) where Self: Copy {\n    type Item;\n    const N: usize;\n    fn req(&self) -> u8;\n    /// Default.\n    fn def(&self) { }\n}\nunsafe trait Un {}\n",
        "impl<T> Tr for S<T> where T: Copy {\n    type Item = u8;\n    const N: usize = 1;\n    fn req(&self) -> u8 { 0 }\n}\nimpl S<u8> { pub fn new() -> Self { S } }\nunsafe impl Send for S {}\nimpl<'a, F: Fn() -> u8> dyn Tr + 'a {}\nimpl !Sync for U {}\n",
        "mod a;\npub mod b {\n    //! Inner doc.\n    use super::*;\n    pub fn f() {}\n    mod c { fn g() {} }\n}\n#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn t() {}\n}\n",
        "pub type R<T> = Result<T, Error>;\nconst X: u8 = 4;\nconst _: () = ();\npub static Y: &str = \"x\";\nstatic mut Z: *const u8 = std::ptr::null();\nconst L: [u8; 2] = [1, 2];\n",
        "#[macro_export]\nmacro_rules! m { ($x:ident) => { fn $x() {} }; }\nmacro_rules! n ( () => () );\nm!(a);\nm! { struct Hidden; }\n",
        "define! { foo, bar = \"bar\", baz }\nbitflags! { pub struct Flags: u32 { const A = 1; const B = 2; } }\nlazy_static! { static ref FOO: u8 = 1; }\nthread_local!(static TL: u8 = 1);\nimpl S { delegate! { fn a(&self); } }\n",
        "extern crate alloc;\nextern \"C\" {\n    fn ext(x: u8) -> u8;\n    static EXT: u8;\n}\nuse a::{b, c as d};\npub(crate) use e::*;\n/// Across a use.\nuse f;\nfn after_use() {}\n",
        "//! Crate doc.\n#![allow(dead_code)]\n\n/// Far.\n\nfn far() {}\n/**\n * Block doc.\n */\nfn block() {}\n//\n// Second line.\nfn empty_first() {}\n",
        "fn with_macros() { m! { a, b } struct Local; }\nconst C: S = S { a: m!{x, y} };\nstruct F { a: m![u8] }\n",
        "impl<T> From<T> for Wrapper<T> {\n    fn from(t: T) -> Self { Wrapper(t) }\n}\nimpl<T: ?Sized> Deref for Box<T> { type Target = T; }\n",
];

/// What the finder is not sure of: no answer, the file is parsed.
#[test]
fn rare_forms_are_not_answered() {
    let cases = [
        "macro m() {}\n",
        "impl S { default fn f() {} }\n",
        "fn r#type() {}\n",
        "const C: u8 = { struct Inner; 1 };\n",
        "m! { union U { a: u8 } }\n",
        "m! { const fn f() {} }\n",
        "m! { a, /* c */ b }\n",
        "unsafe extern \"C\" { fn f(); }\n",
        "auto trait A {}\n",
        "fn broken( {}\n",
        "#!/usr/bin/env rust-script\nfn main() {}\n",
        "struct S { a: u8 = 1 }\n",
        "trait A = B;\n",
        ";\n",
    ];
    for source in cases {
        assert!(token_outline(source.as_bytes()).is_none(), "{source}");
    }
}

/// The Rust files of the tree named by CODERD_TOKEN_CORPUS the finder does not answer, each with
/// the line of the sibling it could not read: what a next round would teach it.
#[test]
#[ignore = "needs a corpus"]
fn unanswered_files_of_a_corpus() {
    let corpus = crate::lexer_corpus("CODERD_TOKEN_CORPUS");
    for (path, _, source) in corpus.filter(|(_, language, _)| language.name == "rust") {
        if token_outline(&source).is_none() {
            let (tokens, comments) = lex_with_comments(Dialect::Rust, &source);
            let at = super::stopped_at(&source, &tokens, &comments);
            let line = source[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            let text = String::from_utf8_lossy(&source[at..(at + 60).min(source.len())]);
            let text = text.lines().next().unwrap_or("").to_owned();
            eprintln!("UNANSWERED {}:{line} {text:?}", path.display());
        }
    }
}

/// The references the map's tagger counts for a file the finder answers are the skeleton's, name
/// for name and use for use: in token trees, `macro_rules!` bodies, parameters' patterns, `const
/// _`, `extern crate`, primitive paths, and left-out `use` declarations.
#[test]
fn references_equal_the_skeletons() {
    let language = languages::by_name("rust").unwrap();
    let extra = [
        "m! { a, ref b, dyn C, default q, u32::MAX, Self::y }\nmacro_rules! r { ($x:ident, $($y:expr),*) => { $x + ref z } }\n",
        "fn f(S { a, ref b, c: d, .. }: S, u32: u32) -> &'static str { x }\nconst _: u32 = u32::MAX;\nextern crate self as _;\nuse std::str::FromStr;\n#[serde(default, rename = \"x\")]\nstruct T { f: std::str::Chars<'static> }\n",
    ];
    for source in CASES.iter().chain(&extra) {
        let tokens = crate::tags::tag_with(language, source.as_bytes(), true)
            .unwrap()
            .0;
        let skeleton = crate::tags::tag_with(language, source.as_bytes(), false)
            .unwrap()
            .0;
        assert!(token_outline(source.as_bytes()).is_some(), "{source}");
        assert_eq!(tokens.references, skeleton.references, "{source}");
    }
}
