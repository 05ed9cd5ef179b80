//! The compiled queries of each language. The texts are `queries/<language>/<kind>.scm`, built into
//! the binary by crates/syntax/build.rs; each language's queries are compiled on first use and kept.
//!
//! `outline.scm` captures: `@definition.<kind>` on the item, `@name` (several names give several
//! items of one span, like Go's `a, b = 1, 2`), optional `@body` (the signature is the item's text
//! before it), `@signature` (the signature is this node's text), `@receiver` (the name of the type a
//! method belongs to when it is declared outside it) and `@doc` (a docstring inside the item).
//! When one node matches several patterns, the first pattern wins for each name; a pattern with
//! `(#set! exclusive)` wins its node alone (other patterns' names there are dropped), and one with
//! `(#set! skip)` as well makes the node no item (recovery patterns for what the parser misread);
//! `(#set! scope)` makes it no item whose contents are local, as a function's are;
//! `(#set! name "N")` names the item N (the `@name` capture still places it).
//!
//! `tags.scm` captures `@reference` on every name that refers to a definition elsewhere. The map's
//! definitions are the outline's items and what `tags.scm`'s patterns with `@definition.<kind>` and
//! `@name` captures (as in `outline.scm`) find: names a file defines where its language declares no
//! item (a Rust macro call's list), which `outline` does not list.

use super::docs::DocMarkers;
use super::ecmascript::Ecma;
use super::grammars::grammar;
use super::languages::{self, Language};
use super::Kind;
use std::collections::HashMap;
use std::sync::{LazyLock, OnceLock};
use tree_sitter::Query;

include!(concat!(env!("OUT_DIR"), "/queries.rs"));

/// What a capture of the outline query stands for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Role {
    Definition(Kind),
    Name,
    Body,
    Signature,
    Receiver,
    Doc,
    /// Captures used only by predicates.
    Other,
}

pub struct Queries {
    pub language: tree_sitter::Language,
    /// The map's definitions: `outline.scm`, with `tags.scm`'s `@definition` patterns when it has
    /// some (names defined where the language declares no item, as by a Rust macro call's list).
    /// Compiled at once, but for a language whose definitions are found by code (`by_code`): there
    /// only `outline` runs it.
    definitions: OnFirstUse<OutlineQuery>,
    /// JavaScript, TypeScript, TSX: the map's definitions found by code (`ecmascript`) at the
    /// nodes of the kinds the query's patterns start at, not by the query engine.
    pub by_code: Option<(Ecma, KindSet)>,
    /// `outline.scm` alone (the items of `outline`) when it is not `definitions`.
    outline_only: Option<OnFirstUse<OutlineQuery>>,
    /// `tags.scm`'s `@reference` patterns.
    tags: Option<OnFirstUse<Query>>,
    /// When `tags.scm`'s references are only `(kind) @reference` patterns: those kinds, as a set
    /// over the grammar's kind ids. The tagger then walks the tree instead of running the query
    /// engine (same captures, several times faster).
    pub reference_set: Option<KindSet>,
    /// The language's comment markers, stripped from an item's doc.
    pub doc_markers: DocMarkers,
}

/// A query compiled when first asked for. Compiling queries was 8% of a cold map's CPU, and a
/// cold map never runs two of Rust's four: the outline's own query (the map runs it with
/// `tags.scm`'s definitions) and the references query (the tagger walks their kinds). Each is a
/// subset of patterns already compiled by `of`, or checked by this module's test, so it compiles
/// later too; were it not to, it is left out (with a warning) rather than a panic.
struct OnFirstUse<T> {
    text: String,
    compiled: OnceLock<Option<T>>,
}

impl<T> OnFirstUse<T> {
    fn new(text: String) -> OnFirstUse<T> {
        OnFirstUse {
            text,
            compiled: OnceLock::new(),
        }
    }

    /// Already compiled (a query `of` needs at once, its errors reported there).
    fn compiled(text: String, query: T) -> OnFirstUse<T> {
        OnFirstUse {
            text,
            compiled: OnceLock::from(Some(query)),
        }
    }

    fn get(&self, compile: impl FnOnce(&str) -> Result<T, String>) -> Option<&T> {
        let compiled = self.compiled.get_or_init(|| {
            compile(&self.text)
                .map_err(|e| tracing::warn!("a query left out: {e}"))
                .ok()
        });
        compiled.as_ref()
    }
}

/// A compiled query of definitions (`@definition.<kind>`, `@name`, …).
pub struct OutlineQuery {
    pub query: Query,
    /// The role of each capture, by capture index.
    pub roles: Vec<Role>,
    /// The kinds the patterns start at, when every pattern starts at a named kind: the query then
    /// runs only at nodes of these kinds outside function bodies instead of over the whole tree
    /// (same items; the query engine's cost was most of the outline's).
    pub roots: Option<KindSet>,
}

impl Queries {
    /// The query of the map's definitions (see `definitions`).
    pub fn definitions(&self) -> Option<&OutlineQuery> {
        let language = &self.language;
        self.definitions.get(|text| outline_query(language, text))
    }

    /// `outline.scm`'s query: the items of `outline`.
    pub fn outline(&self) -> Option<&OutlineQuery> {
        let Some(own) = &self.outline_only else {
            return self.definitions();
        };
        let language = &self.language;
        own.get(|text| outline_query(language, text))
            .or_else(|| self.definitions())
    }

    /// `tags.scm`'s `@reference` patterns, when it has some.
    pub fn tags(&self) -> Option<&Query> {
        let language = &self.language;
        self.tags
            .as_ref()?
            .get(|text| Query::new(language, text).map_err(|e| e.to_string()))
    }
}

/// A set of node kinds by kind id: every id of a kind's name counts (a grammar may alias one name
/// to several ids).
pub struct KindSet(Vec<bool>);

impl KindSet {
    fn new(language: &tree_sitter::Language, names: &[String]) -> KindSet {
        let ids = (0..language.node_kind_count() as u16).map(|id| {
            language.node_kind_is_named(id)
                && language
                    .node_kind_for_id(id)
                    .is_some_and(|kind| names.iter().any(|n| n == kind))
        });
        KindSet(ids.collect())
    }

    pub fn contains(&self, kind_id: u16) -> bool {
        self.0.get(kind_id as usize).copied().unwrap_or(false)
    }
}

type Compiled = OnceLock<Result<Queries, String>>;

static COMPILED: LazyLock<HashMap<&'static str, Compiled>> = LazyLock::new(|| {
    languages::all()
        .iter()
        .map(|l| (l.name.as_str(), OnceLock::new()))
        .collect()
});

/// The text of `queries/<language>/<kind>.scm`, when the file exists, after its `; inherits:`.
pub fn text(language: &str, kind: &str) -> Option<String> {
    let own = QUERY_FILES
        .iter()
        .find(|(l, k, _)| *l == language && *k == kind)
        .map(|(_, _, text)| *text)?;
    let first_line = own.lines().next().unwrap_or("");
    match first_line.strip_prefix("; inherits:").map(str::trim) {
        Some(base) if base != language => Some(text(base, kind)? + "\n" + own),
        _ => Some(own.to_owned()),
    }
}

/// Whether a registry language has a built-in grammar and an outline query, without loading the
/// grammar (for listing what can be outlined; `of` says whether they also compile, and every
/// language's do, by a unit test).
pub fn available(language: &Language) -> bool {
    super::grammars::is_built_in(&language.grammar)
        && QUERY_FILES
            .iter()
            .any(|(l, k, _)| *l == language.name && *k == "outline")
}

/// The compiled queries of a registry language; the error names what is missing or wrong.
pub fn of(language: &Language) -> Result<&'static Queries, String> {
    let slot = COMPILED
        .get(language.name.as_str())
        .ok_or_else(|| format!("{} is not in the language registry", language.name))?;
    slot.get_or_init(|| compile(language))
        .as_ref()
        .map_err(Clone::clone)
}

fn compile(language: &Language) -> Result<Queries, String> {
    let ts_language = grammar(&language.grammar)?;
    let outline_text = text(&language.name, "outline")
        .ok_or_else(|| format!("queries/{}/outline.scm is missing", language.name))?;
    let (references, definitions) = match text(&language.name, "tags") {
        Some(t) => split_tags(&t),
        None => (None, String::new()),
    };
    // A family whose definitions are found by code compiles its query only for `outline`: a
    // cold map of a web UI paid ~0.1 s of CPU compiling JavaScript's, TypeScript's and TSX's.
    let ecma = Ecma::of(&language.name).filter(|_| definitions.is_empty());
    let by_code = match ecma {
        Some(ecma) => Some((
            ecma,
            KindSet::new(
                &ts_language,
                &text_roots(&outline_text)
                    .map_err(|e| format!("queries/{}/outline.scm: {e}", language.name))?,
            ),
        )),
        None => None,
    };
    let (definitions, outline_only) = match (ecma, definitions.is_empty()) {
        (Some(_), _) => (OnFirstUse::new(outline_text), None),
        (None, true) => {
            let query = outline_query(&ts_language, &outline_text)
                .map_err(|e| format!("queries/{}/outline.scm: {e}", language.name))?;
            (OnFirstUse::compiled(outline_text, query), None)
        }
        (None, false) => {
            let text = outline_text.clone() + "\n" + &definitions;
            let query = outline_query(&ts_language, &text).map_err(|e| {
                format!("queries/{0}/outline.scm with tags.scm: {e}", language.name)
            })?;
            (
                OnFirstUse::compiled(text, query),
                Some(OnFirstUse::new(outline_text)),
            )
        }
    };
    let reference_set = references
        .as_deref()
        .and_then(simple_kinds)
        .map(|k| KindSet::new(&ts_language, &k));
    let tags = match (references, &reference_set) {
        (Some(t), Some(_)) => Some(OnFirstUse::new(t)),
        (Some(t), None) => Some(OnFirstUse::compiled(
            t.clone(),
            Query::new(&ts_language, &t)
                .map_err(|e| format!("queries/{}/tags.scm: {e}", language.name))?,
        )),
        (None, _) => None,
    };
    Ok(Queries {
        language: ts_language,
        definitions,
        by_code,
        outline_only,
        tags,
        reference_set,
        doc_markers: DocMarkers::of(language),
    })
}

fn outline_query(language: &tree_sitter::Language, text: &str) -> Result<OutlineQuery, String> {
    let query = Query::new(language, text).map_err(|e| e.to_string())?;
    let roles = query
        .capture_names()
        .iter()
        .map(|name| role_of(name))
        .collect::<Result<Vec<_>, _>>()?;
    let starts = (0..query.pattern_count()).map(|i| query.start_byte_for_pattern(i));
    let roots = pattern_roots(starts, text).map(|r| KindSet::new(language, &r));
    Ok(OutlineQuery {
        query,
        roles,
        roots,
    })
}

/// `tags.scm`'s text as its `@reference` patterns (`None` when it has none) and its
/// `@definition` patterns (empty when none), each pattern's text kept whole. Split by its text, not
/// by compiling it: the compiled query would be thrown away, and Rust's costs a cold map more than
/// its outline query does. A query that does not compile fails where its parts are compiled.
fn split_tags(text: &str) -> (Option<String>, String) {
    let (mut references, mut definitions) = (String::new(), String::new());
    for pattern in patterns(text) {
        let code: String = pattern
            .lines()
            .filter(|l| !l.trim_start().starts_with(';'))
            .collect::<Vec<_>>()
            .join("\n");
        let into = match code.contains("@definition.") {
            true => &mut definitions,
            false => &mut references,
        };
        into.push_str(code.trim());
        into.push('\n');
    }
    ((!references.is_empty()).then_some(references), definitions)
}

/// A query's text cut into its patterns: each starts at a `(` or `[` outside any other (a
/// pattern's captures and quantifiers follow it; comments and strings are skipped), and runs to
/// the next one's start, the comments before it included (as tree-sitter's own pattern offsets
/// cut it).
fn patterns(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let (mut starts, mut depth, mut at) = (Vec::new(), 0usize, 0);
    while at < bytes.len() {
        match bytes[at] {
            b';' => {
                at = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
                continue;
            }
            b'"' => {
                at += 1;
                while at < bytes.len() && bytes[at] != b'"' {
                    at += if bytes[at] == b'\\' { 2 } else { 1 };
                }
            }
            b'(' | b'[' => {
                if depth == 0 {
                    starts.push(at);
                }
                depth += 1;
            }
            b')' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    let ends = starts.iter().skip(1).copied().chain([text.len()]);
    starts.iter().zip(ends).map(|(&s, e)| &text[s..e]).collect()
}

/// The kinds the patterns of a query's text start at, found without compiling it (`patterns`
/// cuts it where tree-sitter starts each pattern); an error when one starts otherwise.
fn text_roots(text: &str) -> Result<Vec<String>, String> {
    let starts = patterns(text)
        .into_iter()
        .map(|p| p.as_ptr() as usize - text.as_ptr() as usize);
    pattern_roots(starts, text).ok_or_else(|| "a pattern starts at no node kind".to_owned())
}

/// The node kind each pattern of a query starts at (`(kind ...)`, or `((kind ...) (#pred ...))`),
/// given where each pattern starts in its text, or `None` when a pattern starts otherwise (an
/// alternation, a wildcard, a string, a grouped sequence of nodes).
fn pattern_roots(starts: impl Iterator<Item = usize>, text: &str) -> Option<Vec<String>> {
    static ROOT: LazyLock<regex::Regex> =
        LazyLock::new(|| regex::Regex::new(r"^\(([A-Za-z]\w*)[\s)]").expect("a valid regex"));
    let mut roots: Vec<String> = starts
        .map(|start| {
            let at = text.get(start..)?;
            let node = match at.strip_prefix('(') {
                Some(group) if group.trim_start().starts_with('(') => {
                    one_node_with_predicates(group)?
                }
                _ => at,
            };
            Some(ROOT.captures(node)?[1].to_owned())
        })
        .collect::<Option<_>>()?;
    roots.sort();
    roots.dedup();
    Some(roots)
}

/// The inside of a group `(` … `)` (from after its opening parenthesis) when it holds one node and
/// predicates only (`(#eq? …)`, `(#set! …)`): that node's text; `None` for a sequence of nodes.
fn one_node_with_predicates(group: &str) -> Option<&str> {
    let group = group.trim_start();
    let mut elements = Vec::new();
    let (mut depth, mut start, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for (i, c) in group.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '(' | '[' => {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
            }
            ')' | ']' if depth == 0 => break,
            ')' | ']' => {
                depth -= 1;
                if depth == 0 {
                    elements.push(&group[start..=i]);
                }
            }
            _ => {}
        }
    }
    let (node, predicates) = elements.split_first()?;
    predicates
        .iter()
        .all(|p| p.starts_with("(#"))
        .then_some(*node)
}

/// The node kinds of a query made only of `(kind) @reference` and `[(a) (b)] @reference`
/// patterns (comments aside); `None` for anything richer.
fn simple_kinds(text: &str) -> Option<Vec<String>> {
    static SIMPLE: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"^(\s*(\(\w+\)|\[(\s*\(\w+\))+\s*\])\s*@reference)*\s*$")
            .expect("a valid regex")
    });
    static KIND: LazyLock<regex::Regex> =
        LazyLock::new(|| regex::Regex::new(r"\((\w+)\)").expect("a valid regex"));
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with(';'))
        .collect::<Vec<_>>()
        .join("\n");
    if !SIMPLE.is_match(&code) {
        return None;
    }
    let mut kinds: Vec<String> = KIND.captures_iter(&code).map(|c| c[1].to_owned()).collect();
    kinds.sort();
    kinds.dedup();
    Some(kinds)
}

fn role_of(capture: &str) -> Result<Role, String> {
    if let Some(kind) = capture.strip_prefix("definition.") {
        let kind: Kind = serde_json::from_value(serde_json::Value::String(kind.to_owned()))
            .map_err(|_| format!("unknown item kind in capture @{capture}"))?;
        return Ok(Role::Definition(kind));
    }
    Ok(match capture {
        "name" => Role::Name,
        "body" => Role::Body,
        "signature" => Role::Signature,
        "receiver" => Role::Receiver,
        "doc" => Role::Doc,
        _ if capture.starts_with('_') => Role::Other,
        _ => return Err(format!("unknown capture @{capture}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The patterns cut from a query's text start where tree-sitter's compiled query says, for
    /// every query file.
    #[test]
    fn patterns_are_cut_where_tree_sitter_starts_them() {
        let mut checked = 0;
        for language in languages::all() {
            let Ok(ts_language) = grammar(&language.grammar) else {
                continue;
            };
            for kind in ["outline", "tags"] {
                let Some(text) = text(&language.name, kind) else {
                    continue;
                };
                let query = Query::new(&ts_language, &text).unwrap();
                let cut: Vec<usize> = patterns(&text)
                    .iter()
                    .map(|p| p.as_ptr() as usize - text.as_ptr() as usize)
                    .collect();
                let compiled: Vec<usize> = (0..query.pattern_count())
                    .map(|i| query.start_byte_for_pattern(i))
                    .collect();
                assert_eq!(cut, compiled, "queries/{}/{kind}.scm", language.name);
                checked += 1;
            }
        }
        assert!(checked >= 20, "only {checked} query files checked");
    }

    /// Every language in the registry has a grammar and an outline query that compiles with it,
    /// and its tags query (when it has one) compiles too.
    #[test]
    fn every_language_has_queries_that_compile() {
        let mut problems = Vec::new();
        for language in languages::all() {
            if available(language) != of(language).is_ok() {
                problems.push(format!(
                    "{}: `available` disagrees with `of`",
                    language.name
                ));
            }
            match of(language) {
                // The queries compiled on first use compile.
                Ok(q) if q.outline().is_none_or(|o| o.query.pattern_count() == 0) => {
                    problems.push(format!("queries/{}/outline.scm: no pattern", language.name))
                }
                Ok(q)
                    if q.tags().is_none()
                        && !matches!(
                            language.name.as_str(),
                            "json" | "yaml" | "toml" | "markdown"
                        ) =>
                {
                    problems.push(format!("queries/{}/tags.scm is missing", language.name))
                }
                Ok(_) => {}
                Err(e) => problems.push(e),
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
