//! Tags for the map: a file's definitions (its outline) and the names it refers to (from
//! `queries/<language>/tags.scm`), with how often each is used.

use super::items::{self, Outline};
use super::languages::Language;
use super::lexer::{Dialect, Token};
use super::queries::KindSet;
use super::skeleton::{count_names, names, Skeleton};
use super::token_outline::TokenOutline;
use super::{parse, queries};
use foldhash::{HashMap, HashSet};
use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Query, QueryCursor, Tree};

/// One file's definitions and references.
pub struct Tags {
    pub outline: Outline,
    /// Referenced names and their use counts, sorted by name.
    pub references: Vec<(String, u32)>,
}

/// Parses a source text and tags it, `None` when the language has no grammar or queries; with the
/// file's tokens when its language has a lexer (`lexer::lex`): the map's imports read them
/// instead of lexing the file once more. A file whose outline its tokens give (`token_outline`)
/// is not parsed at all.
pub fn tag_lexed(language: &Language, source: &[u8]) -> Option<(Tags, Option<Vec<Token>>)> {
    tag_with(language, source, true)
}

/// `tag_lexed`, the outline read from the tokens alone only when `from_tokens` (the tests compare
/// it with the skeleton's).
pub(crate) fn tag_with(
    language: &Language,
    source: &[u8],
    from_tokens: bool,
) -> Option<(Tags, Option<Vec<Token>>)> {
    let Some(lexed) = super::parse_for_tags(language, source, from_tokens) else {
        let queries = queries::of(language).ok()?;
        let tree = parse(language, source, None)?;
        return Some((tag_tree(language, queries, &tree, None, &[], source), None));
    };
    // Most files: their skeleton, and their bodies' names from the lexer (see `skeleton`).
    if let Some(found) = lexed.outline {
        let tags = tag_tokens(language, found, &lexed.tokens, source);
        return Some((tags, Some(lexed.tokens)));
    }
    let queries = queries::of(language).ok()?;
    let tags = match &lexed.skeleton {
        Some(skeleton) => {
            let tree = &skeleton.tree;
            tag_tree(
                language,
                queries,
                tree,
                Some(skeleton),
                &lexed.tokens,
                source,
            )
        }
        None => {
            let tree = parse(language, source, None)?;
            tag_tree(language, queries, &tree, None, &lexed.tokens, source)
        }
    };
    Some((tags, Some(lexed.tokens)))
}

/// The tags of an outline read from the tokens: every name among them is a reference, as in a
/// skeleton's bodies (`count_names`), but the definitions' own and those the tags query would not
/// count (`TokenOutline::unreferenced`), and the keywords it would (`TokenOutline::referenced`).
fn tag_tokens(language: &Language, found: TokenOutline, tokens: &[Token], source: &[u8]) -> Tags {
    let TokenOutline {
        outline,
        unreferenced,
        referenced,
    } = found;
    let names_of_items = outline.items.iter().map(|i| i.name_bytes.start);
    let definitions: HashSet<usize> = names_of_items.chain(unreferenced).collect();
    let mut counts: HashMap<&[u8], u32> = HashMap::default();
    if let Some(dialect) = Dialect::of(language) {
        let all = names(dialect, source, tokens, 0..source.len());
        for name in all.chain(referenced) {
            if !definitions.contains(&name.start) {
                *counts.entry(&source[name]).or_default() += 1;
            }
        }
    }
    Tags {
        outline,
        references: sorted(counts),
    }
}

/// The references counted, sorted by name.
fn sorted(counts: HashMap<&[u8], u32>) -> Vec<(String, u32)> {
    let mut references: Vec<(String, u32)> = counts
        .into_iter()
        .filter_map(|(name, n)| Some((std::str::from_utf8(name).ok()?.to_owned(), n)))
        .collect();
    references.sort();
    references
}

/// The tags of a parse: `tree`, or `skeleton`'s tree whose bodies were left out and whose bodies'
/// names are counted from `tokens`.
fn tag_tree(
    language: &Language,
    queries: &queries::Queries,
    tree: &Tree,
    skeleton: Option<&Skeleton>,
    tokens: &[Token],
    source: &[u8],
) -> Tags {
    // The references of a simple `tags.scm` are found on the outline's own walk of the tree.
    let mut referenced: Vec<std::ops::Range<usize>> = Vec::new();
    let mut keep = |node: Node| referenced.push(node.byte_range());
    let also =
        (queries.reference_set.as_ref()).map(|kinds| (kinds, &mut keep as &mut dyn FnMut(Node)));
    let left_out = skeleton.map_or(&[][..], |s| &s.comments[..]);
    let (mut outline, walked) = items::extract_definitions(tree, source, queries, also, left_out);
    if skeleton.is_some() {
        // A skeleton is kept only when its tree has no error (`skeleton::parse`): all the outline
        // counted are its left-out ranges, gaps in its included ranges, which it takes for regions
        // a parse skipped to contain an error (`recover::skipped`).
        outline.parse_errors = 0;
    }
    let definitions: HashSet<usize> = outline.items.iter().map(|i| i.name_bytes.start).collect();
    let mut counts: HashMap<&[u8], u32> = HashMap::default();
    let mut count = |range: std::ops::Range<usize>| {
        if !definitions.contains(&range.start) {
            *counts.entry(&source[range]).or_default() += 1;
        }
    };
    match (walked, &queries.reference_set, queries.tags()) {
        (true, _, _) => referenced.into_iter().for_each(&mut count),
        (false, Some(kinds), _) => walk_kinds(tree, kinds, &mut |n| count(n.byte_range())),
        (false, None, Some(query)) => {
            run_query(tree, query, source, &mut |n| count(n.byte_range()))
        }
        (false, None, None) => {}
    }
    if let (Some(dialect), Some(skeleton)) = (Dialect::of(language), skeleton) {
        for body in &skeleton.bodies {
            count_names(dialect, source, tokens, body.clone(), &mut |name| {
                *counts.entry(name).or_default() += 1;
            });
        }
    }
    Tags {
        outline,
        references: sorted(counts),
    }
}

/// Every named node of the given kinds, in document order.
fn walk_kinds<'t>(tree: &'t Tree, kinds: &KindSet, found: &mut impl FnMut(Node<'t>)) {
    // Never skips a subtree: references are wanted everywhere, inside functions too.
    super::walk::roots(
        tree,
        usize::MAX,
        |k| kinds.contains(k),
        |node| {
            found(node);
            false
        },
    );
}

/// Every `@reference` capture of a query, each node once.
fn run_query<'t>(tree: &'t Tree, query: &Query, source: &[u8], found: &mut impl FnMut(Node<'t>)) {
    let mut cursor = QueryCursor::new();
    let mut captures = cursor.captures(query, tree.root_node(), source);
    let mut last = None;
    while let Some((m, index)) = captures.next() {
        let node = m.captures()[*index].node;
        if last != Some(node.id()) {
            last = Some(node.id());
            found(node);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::languages;

    /// A skeleton's tags against the full parse's: the same items, and the references as a
    /// (missing, extra) count of uses.
    fn compare(language: &Language, source: &[u8]) -> Option<(usize, usize, usize)> {
        let queries = queries::of(language).unwrap();
        let lexed = crate::parse_for_tags(language, source, false)?;
        let skeleton = lexed.skeleton.as_ref()?;
        let tokens = &lexed.tokens;
        let fast = tag_tree(
            language,
            queries,
            &skeleton.tree,
            Some(skeleton),
            tokens,
            source,
        );
        let full_tree = parse(language, source, None).unwrap();
        let full = tag_tree(language, queries, &full_tree, None, tokens, source);
        // Where the full parse has errors in a body the skeleton (which leaves bodies out) has none,
        // and its outline may be the better one: nothing to compare.
        if full.outline.parse_errors > 0 {
            return Some((0, 0, 0));
        }
        let shape = |t: &Tags| -> Vec<String> {
            let items = t.outline.items.iter();
            items.map(|i| format!("{i:?}")).collect()
        };
        assert_eq!(shape(&fast), shape(&full));
        let fast_refs: HashMap<&str, u32> = fast
            .references
            .iter()
            .map(|(n, c)| (n.as_str(), *c))
            .collect();
        let full_refs: HashMap<&str, u32> = full
            .references
            .iter()
            .map(|(n, c)| (n.as_str(), *c))
            .collect();
        let (mut missing, mut extra, mut total) = (0, 0, 0);
        for (name, &n) in &full_refs {
            let got = fast_refs.get(name).copied().unwrap_or(0);
            missing += n.saturating_sub(got) as usize;
            total += n as usize;
        }
        for (name, &n) in &fast_refs {
            let want = full_refs.get(name).copied().unwrap_or(0);
            extra += n.saturating_sub(want) as usize;
        }
        Some((missing, extra, total))
    }

    /// The skeleton serves the Go and Rust fixtures: the same outline as the full parse, and all
    /// but a few uses the same (the lexer's noise: Go package names in types, Rust shorthand
    /// fields).
    #[test]
    fn skeleton_tags_match_the_full_parse() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/structure/outline"
        );
        for name in ["sample.go", "sample.rs"] {
            let path = std::path::Path::new(dir).join(name);
            let language = languages::for_path(&path, None).unwrap();
            let source = std::fs::read(&path).unwrap();
            let (missing, extra, total) = compare(language, &source).expect(name);
            assert!(
                missing + extra <= total / 50,
                "{name}: {missing} missing, {extra} extra of {total}"
            );
        }
    }

    /// The same over a tree named by CODERD_SKELETON_CORPUS (a checkout of prometheus or
    /// rust-analyzer): how often the skeleton serves a file with bodies, and how far its uses are
    /// from the full parse's.
    #[test]
    #[ignore = "needs a corpus"]
    fn skeleton_tags_match_the_full_parse_on_a_corpus() {
        let (mut files, mut served, mut missing, mut extra, mut total) = (0, 0, 0, 0, 0);
        // tree-sitter's lexer scans the included ranges at each token: their number matters.
        let (mut ranges, mut comments) = (0, 0);
        for (path, language, source) in crate::lexer_corpus("CODERD_SKELETON_CORPUS") {
            let dialect = Dialect::of(language).unwrap();
            let tokens = crate::lexer::lex(dialect, &source);
            if crate::skeleton::bodies(dialect, &source, &tokens).is_empty() {
                continue;
            }
            // The imports read from the tagger's tokens are those of the imports' own lexing.
            let lexed = crate::parse_for_tags(language, &source, false).unwrap();
            let name = language.name.as_str();
            assert_eq!(
                crate::map::imports::imports_lexed(name, "x", &source, Some(&lexed.tokens)),
                crate::map::imports::imports(name, "x", &source),
                "{}",
                path.display()
            );
            files += 1;
            if let Some(skeleton) = &lexed.skeleton {
                ranges += skeleton.tree.included_ranges().len();
                comments += skeleton.comments.len();
            }
            if let Some((m, e, t)) = compare(language, &source) {
                served += 1;
                (missing, extra, total) = (missing + m, extra + e, total + t);
            } else {
                eprintln!("full parse: {}", path.display());
            }
        }
        eprintln!(
            "{served}/{files} files served; uses: {missing} missing, {extra} extra of {total}; \
             {ranges} included ranges, {comments} comments left out"
        );
        assert!(served * 10 >= files * 9);
        assert!((missing + extra) * 20 <= total);
    }

    /// Comments left out of the skeleton's parse still lead their items: the same docs and extent
    /// lines as the full parse's, item for item, for each way a comment can sit (a doc run with
    /// attributes, a blank line after a Rust doc comment, a trailing comment, a comment touching a
    /// token or inside a macro call, which stay in the parse; a Go declaration of one spec, whose
    /// doc comment leads the declaration, not the spec).
    #[test]
    fn left_out_comments_lead_items_as_the_trees_do() {
        let cases = [
            (
                "rust",
                "//! Crate doc.\n\nmod a;\n/// Doc of b.\n#[derive(Debug)]\n// plain\n#[cfg(x)]\npub struct B { /// field\n x: u8, // trailing\n /* c */ y: u8 }\n\n/// Far.\n\nfn c() { 1 }\nm! { // in a macro\n d, }\nfn e(a: u8/* touching */) {}\nimpl B {\n    /** Block doc. */\n    fn f(&self) {}\n}\n",
                8,
                &["Crate doc.", "Doc of b.", "c", "Far.", "Block doc."][..],
            ),
            (
                "go",
                "// Package p.\npackage p\n\n// A is.\n//\n// More.\ntype A struct {\n\t// X doc.\n\tX int // trailing\n}\n\n/* B\n * block */\nfunc B() { x() }\n\n// Far.\n\nvar C = 1\n\n// D is.\nconst D = 2\n\nvar (\n\t// E is.\n\tE = 3\n)\n\nfunc (a *A) M(/*touching*/) {}\n",
                10,
                &["A is.", "X doc.", "B", "D is.", "E is."],
            ),
        ];
        for (name, source, left_out, docs) in cases {
            let language = languages::by_name(name).unwrap();
            let lexed = crate::parse_for_tags(language, source.as_bytes(), false).unwrap();
            let skeleton = lexed.skeleton.as_ref().expect(name);
            assert_eq!(skeleton.comments.len(), left_out, "{name}");
            let (tags, _) = tag_lexed(language, source.as_bytes()).unwrap();
            let (queries, tree) = (queries::of(language).unwrap(), full_parse(language, source));
            let (full, _) =
                items::extract_definitions(&tree, source.as_bytes(), queries, None, &[]);
            let shape = |items: &[items::Item]| format!("{items:#?}");
            assert_eq!(shape(&tags.outline.items), shape(&full.items), "{name}");
            let found: Vec<_> = full.items.iter().filter_map(|i| i.doc.as_deref()).collect();
            assert_eq!(found, docs, "{name}");
        }
    }

    fn full_parse(language: &Language, source: &str) -> Tree {
        parse(language, source.as_bytes(), None).unwrap()
    }

    /// A skeleton's left-out bodies are no parse errors: a clean file counts none, and a file with
    /// an error (parsed in full) counts what the outline of a full parse counts. (An error inside
    /// a body the skeleton leaves out is not seen: the tag index holds no body.)
    #[test]
    fn parse_errors_count_only_real_errors() {
        let cases = [
            (
                "rust",
                "fn a() { let x = 1; }\nimpl T { fn b(&self) -> u8 { 2 } }\n",
                true,
            ),
            (
                "go",
                "package p\n\nfunc A() { x := 1; _ = x }\n\nvar t = []int{1, 2}\n",
                true,
            ),
            (
                "rust",
                "fn a() { let x = 1; }\nfn b( { }\nfn c() { 3 }\n",
                false,
            ),
            (
                "go",
                "package p\n\nfunc A( { x := 1 }\n\nfunc B() { return }\n",
                false,
            ),
        ];
        for (name, source, clean) in cases {
            let language = languages::by_name(name).unwrap();
            let lexed = crate::parse_for_tags(language, source.as_bytes(), false).unwrap();
            assert_eq!(lexed.skeleton.is_some(), clean, "{name}: {source:?}");
            let (tags, _) = tag_lexed(language, source.as_bytes()).unwrap();
            let full = crate::outline_of(language, source.as_bytes()).unwrap();
            assert_eq!(tags.outline.parse_errors, full.parse_errors, "{source:?}");
            assert_eq!(tags.outline.parse_errors == 0, clean, "{source:?}");
        }
    }

    /// The references found on the outline's walk are those a walk of their own finds, in the same
    /// order, and the outline is the one found without them, on every golden fixture.
    #[test]
    fn references_on_the_outlines_walk_equal_their_own_walk() {
        let mut checked = 0;
        for (path, language) in crate::outline_fixtures() {
            let queries = queries::of(language).unwrap();
            let Some(kinds) = &queries.reference_set else {
                continue;
            };
            let source = std::fs::read(&path).unwrap();
            let tree = parse(language, &source, None).unwrap();
            let (mut fused, mut alone) = (Vec::new(), Vec::new());
            let mut keep = |n: Node| fused.push(n.byte_range());
            let (outline, walked) =
                items::extract_definitions(&tree, &source, queries, Some((kinds, &mut keep)), &[]);
            let (plain, _) = items::extract_definitions(&tree, &source, queries, None, &[]);
            walk_kinds(&tree, kinds, &mut |n| alone.push(n.byte_range()));
            assert!(walked, "{}", path.display());
            assert!(!fused.is_empty(), "{}", path.display());
            assert_eq!(fused, alone, "{}", path.display());
            assert_eq!(
                format!("{:?}", outline.items),
                format!("{:?}", plain.items),
                "{}",
                path.display()
            );
            checked += 1;
        }
        assert!(checked >= 12, "only {checked} fixtures checked");
    }

    /// The tree walk finds exactly what the query engine captures, on every golden fixture of a
    /// language whose tags query is simple.
    #[test]
    fn walking_simple_tags_equals_running_the_query() {
        let mut checked = 0;
        for (path, language) in crate::outline_fixtures() {
            let queries = queries::of(language).unwrap();
            let (Some(kinds), Some(query)) = (&queries.reference_set, queries.tags()) else {
                continue;
            };
            let source = std::fs::read(&path).unwrap();
            let tree = parse(language, &source, None).unwrap();
            let (mut walked, mut queried) = (Vec::new(), Vec::new());
            walk_kinds(&tree, kinds, &mut |n| walked.push(n.byte_range()));
            run_query(&tree, query, &source, &mut |n| queried.push(n.byte_range()));
            assert!(!walked.is_empty(), "{}", path.display());
            assert_eq!(walked, queried, "{}", path.display());
            checked += 1;
        }
        assert!(checked >= 12, "only {checked} fixtures checked");
    }
}
