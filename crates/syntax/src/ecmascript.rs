//! The map's definitions of JavaScript, TypeScript and TSX found by code instead of the query
//! engine: the patterns of `queries/ecmascript/outline.scm` and of `queries/typescript/outline.scm`
//! and `queries/javascript/outline.scm`, each written as a check of a node and its children.
//!
//! Compiling a query costs in proportion to its grammar's parse states (TypeScript has 5,870, and
//! tree-sitter's analysis walks them for every pattern step with children), and a cold map paid it
//! once for each of JavaScript, TypeScript and TSX, about as much CPU as parsing a web UI's files.
//! The matches here are those the compiled query yields at a node (a `QueryCursor` with a start
//! depth of 0), pattern for pattern, so the outline's rules (`items`: the first pattern wins a
//! name, a scope holds locals) apply to them unchanged. The `outline` method still runs the query;
//! tests hold the two equal on the fixtures and on a corpus (`CODERD_ECMA_CORPUS`).

use super::Kind;
use tree_sitter::Node;

/// A member of the family: which patterns its `outline.scm` adds to the shared ones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ecma {
    JavaScript,
    /// TypeScript and TSX (`tsx` inherits `typescript`'s queries).
    TypeScript,
}

impl Ecma {
    pub fn of(language: &str) -> Option<Ecma> {
        match language {
            "javascript" => Some(Ecma::JavaScript),
            "typescript" | "tsx" => Some(Ecma::TypeScript),
            _ => None,
        }
    }
}

/// One match of a pattern: the item's node and kind, its name, its body (the signature is the
/// text before it), the pattern's index in the query (the first pattern wins a name), and whether
/// the pattern says `(#set! scope)`.
pub struct Match<'t> {
    pub node: Node<'t>,
    pub kind: Kind,
    pub name: Node<'t>,
    pub body: Option<Node<'t>>,
    pub pattern: usize,
    pub scope: bool,
}

/// The patterns' indices, in the order of the query's text: ecmascript's, then the member's own.
mod pattern {
    pub const FUNCTION: usize = 0;
    pub const GENERATOR: usize = 1;
    pub const CLASS: usize = 2;
    pub const METHOD: usize = 3;
    pub const LEXICAL_FUNCTION: usize = 4;
    pub const VARIABLE_FUNCTION: usize = 5;
    pub const LET: usize = 6;
    pub const CONST: usize = 7;
    pub const VAR: usize = 8;
    pub const PROPERTY_FUNCTION: usize = 9;
    pub const FUNCTION_SCOPE: usize = 10;
    pub const ARROW_SCOPE: usize = 11;
    pub const EXPORT_DEFAULT: usize = 12;
    /// JavaScript's one pattern of its own.
    pub const JS_FIELD: usize = 13;
    // TypeScript's.
    pub const SIGNATURE: usize = 13;
    pub const ABSTRACT_CLASS: usize = 14;
    pub const INTERFACE: usize = 15;
    pub const TYPE_ALIAS: usize = 16;
    pub const ENUM: usize = 17;
    pub const NAMESPACE: usize = 18;
    pub const MODULE: usize = 19;
    pub const ABSTRACT_METHOD: usize = 20;
    pub const FIELD: usize = 21;
    pub const INTERFACE_FIELD: usize = 22;
    pub const INTERFACE_METHOD: usize = 23;
    pub const CLASS_METHOD_SIGNATURE: usize = 24;
    pub const ALIAS_FIELD: usize = 25;
    pub const ALIAS_METHOD: usize = 26;
    pub const MEMBER_FIELD: usize = 27;
    pub const MEMBER_METHOD: usize = 28;
}

/// Every match rooted at `node`, as the query yields them there.
pub fn matches_at<'t>(ecma: Ecma, node: Node<'t>, found: &mut impl FnMut(Match<'t>)) {
    use pattern::*;
    let mut with_body = |kind, pattern| named_with_body(node, kind, pattern, found);
    match node.kind() {
        "function_declaration" => with_body(Kind::Function, FUNCTION),
        "generator_function_declaration" => with_body(Kind::Function, GENERATOR),
        "class_declaration" => with_body(Kind::Class, CLASS),
        "method_definition" => with_body(Kind::Method, METHOD),
        "lexical_declaration" | "variable_declaration" => declarations(node, found),
        "program" => property_functions(node, found),
        "function_expression" => found(scope(node, FUNCTION_SCOPE)),
        "arrow_function" => found(scope(node, ARROW_SCOPE)),
        "export_statement" => export_default(node, found),
        kind => match ecma {
            Ecma::JavaScript if kind == "field_definition" => {
                named_only(node, "property", Kind::Field, JS_FIELD, found)
            }
            Ecma::JavaScript => {}
            Ecma::TypeScript => typescript(node, found),
        },
    }
}

/// TypeScript's own patterns.
fn typescript<'t>(node: Node<'t>, found: &mut impl FnMut(Match<'t>)) {
    use pattern::*;
    let mut with_body = |kind, pattern| named_with_body(node, kind, pattern, found);
    match node.kind() {
        "abstract_class_declaration" => with_body(Kind::Class, ABSTRACT_CLASS),
        "interface_declaration" => with_body(Kind::Interface, INTERFACE),
        "enum_declaration" => with_body(Kind::Enum, ENUM),
        "internal_module" => with_body(Kind::Module, NAMESPACE),
        "module" => with_body(Kind::Module, MODULE),
        "function_signature" => named_only(node, "name", Kind::Function, SIGNATURE, found),
        "abstract_method_signature" => {
            named_only(node, "name", Kind::Method, ABSTRACT_METHOD, found)
        }
        "public_field_definition" => named_only(node, "name", Kind::Field, FIELD, found),
        "type_alias_declaration" => {
            named_only(node, "name", Kind::Type, TYPE_ALIAS, found);
            let value = node.child_by_field_name("value");
            if let Some(object) = value.filter(|v| v.kind() == "object_type") {
                members(object, Some(ALIAS_FIELD), ALIAS_METHOD, found);
            }
        }
        "interface_body" => members(node, Some(INTERFACE_FIELD), INTERFACE_METHOD, found),
        "class_body" => members(node, None, CLASS_METHOD_SIGNATURE, found),
        "property_signature" => {
            // `type: (type_annotation (object_type …))`: a member's own object type.
            let annotation = node.child_by_field_name("type");
            let annotation = annotation.filter(|a| a.kind() == "type_annotation");
            for object in annotation.iter().flat_map(|a| named_children(*a)) {
                if object.kind() == "object_type" {
                    members(object, Some(MEMBER_FIELD), MEMBER_METHOD, found);
                }
            }
        }
        _ => {}
    }
}

/// `(kind name: (_) @name body: (_) @body) @definition.kind`.
fn named_with_body<'t>(
    node: Node<'t>,
    kind: Kind,
    pattern: usize,
    found: &mut impl FnMut(Match<'t>),
) {
    if let (Some(name), Some(body)) = (named_field(node, "name"), named_field(node, "body")) {
        found(item(node, kind, name, Some(body), pattern));
    }
}

/// `(kind field: (_) @name) @definition.kind`.
fn named_only<'t>(
    node: Node<'t>,
    field: &str,
    kind: Kind,
    pattern: usize,
    found: &mut impl FnMut(Match<'t>),
) {
    if let Some(name) = named_field(node, field) {
        found(item(node, kind, name, None, pattern));
    }
}

/// `const`, `let` and `var` declarations: a function bound to a name, else a const or a var, one
/// match per declarator of each pattern that holds (the first wins a name).
fn declarations<'t>(node: Node<'t>, found: &mut impl FnMut(Match<'t>)) {
    use pattern::*;
    let lexical = node.kind() == "lexical_declaration";
    let is_let = lexical
        && node
            .child(0)
            .is_some_and(|c| c.kind() == "let" && !c.is_named());
    for declarator in named_children(node) {
        if declarator.kind() != "variable_declarator" {
            continue;
        }
        let name = declarator.child_by_field_name("name");
        let Some(name) = name.filter(|n| n.kind() == "identifier") else {
            continue;
        };
        let value = declarator.child_by_field_name("value");
        let function = value.is_some_and(|v| {
            matches!(
                v.kind(),
                "arrow_function" | "function_expression" | "generator_function"
            )
        });
        let mut add = |kind, pattern| found(item(node, kind, name, None, pattern));
        match (lexical, function) {
            (true, true) => add(Kind::Function, LEXICAL_FUNCTION),
            (false, true) => add(Kind::Function, VARIABLE_FUNCTION),
            _ => {}
        }
        if is_let {
            add(Kind::Var, LET);
        }
        match lexical {
            true => add(Kind::Const, CONST),
            false => add(Kind::Var, VAR),
        }
    }
}

/// `(program (expression_statement (assignment_expression left: (member_expression property:
/// (property_identifier) @name) right: [(function_expression) (arrow_function)])) @definition.function)`.
fn property_functions<'t>(program: Node<'t>, found: &mut impl FnMut(Match<'t>)) {
    for statement in named_children(program) {
        if statement.kind() != "expression_statement" {
            continue;
        }
        for assignment in named_children(statement) {
            if assignment.kind() != "assignment_expression" {
                continue;
            }
            let left = assignment.child_by_field_name("left");
            let member = left.filter(|l| l.kind() == "member_expression");
            let property = member.and_then(|m| m.child_by_field_name("property"));
            let Some(name) = property.filter(|p| p.kind() == "property_identifier") else {
                continue;
            };
            let right = assignment.child_by_field_name("right");
            if right.is_some_and(|r| matches!(r.kind(), "function_expression" | "arrow_function")) {
                let pattern = pattern::PROPERTY_FUNCTION;
                found(item(statement, Kind::Function, name, None, pattern));
            }
        }
    }
}

/// `(export_statement "default" @name value: [(function_expression) (arrow_function) (class)
/// (generator_function)]) @definition.function`.
fn export_default<'t>(node: Node<'t>, found: &mut impl FnMut(Match<'t>)) {
    let value = node.child_by_field_name("value");
    let exported = value.is_some_and(|v| {
        matches!(
            v.kind(),
            "function_expression" | "arrow_function" | "class" | "generator_function"
        )
    });
    if !exported {
        return;
    }
    let mut cursor = node.walk();
    let default = node
        .children(&mut cursor)
        .find(|c| !c.is_named() && c.kind() == "default");
    if let Some(name) = default {
        found(item(
            node,
            Kind::Function,
            name,
            None,
            pattern::EXPORT_DEFAULT,
        ));
    }
}

/// `(parent (property_signature name: (_) @name) @definition.field)` and the same of
/// `method_signature` as a method, for each such child of `parent`.
fn members<'t>(
    parent: Node<'t>,
    field: Option<usize>,
    method: usize,
    found: &mut impl FnMut(Match<'t>),
) {
    for member in named_children(parent) {
        let (kind, pattern) = match member.kind() {
            "property_signature" => match field {
                Some(pattern) => (Kind::Field, pattern),
                None => continue,
            },
            "method_signature" => (Kind::Method, method),
            _ => continue,
        };
        named_only(member, "name", kind, pattern, found);
    }
}

/// `((kind) @name (#set! scope)) @definition.function`: the node holds locals.
fn scope(node: Node, pattern: usize) -> Match {
    Match {
        scope: true,
        ..item(node, Kind::Function, node, None, pattern)
    }
}

fn item<'t>(
    node: Node<'t>,
    kind: Kind,
    name: Node<'t>,
    body: Option<Node<'t>>,
    pattern: usize,
) -> Match<'t> {
    Match {
        node,
        kind,
        name,
        body,
        pattern,
        scope: false,
    }
}

/// `field: (_)`: the child in that field when it is a named node.
fn named_field<'t>(node: Node<'t>, field: &str) -> Option<Node<'t>> {
    node.child_by_field_name(field).filter(Node::is_named)
}

fn named_children(node: Node) -> impl Iterator<Item = Node> {
    let mut cursor = node.walk();
    let children: Vec<Node> = node.named_children(&mut cursor).collect();
    children.into_iter()
}

#[cfg(test)]
mod tests {
    use crate::languages::{self, Language};
    use crate::{items, parse, queries};

    /// The map's definitions of `source` found by code and by the compiled query over the whole
    /// tree, every field of every item (bytes, name bytes and extent line too).
    fn both(language: &Language, source: &[u8]) -> (Vec<String>, Vec<String>) {
        let queries = queries::of(language).unwrap();
        let tree = parse(language, source, None).unwrap();
        let (by_code, _) = items::extract_definitions(&tree, source, queries, None, &[]);
        let by_query = items::definitions_by_query(&tree, source, queries);
        let shape = |o: &items::Outline| -> Vec<String> {
            let items = o.items.iter();
            items
                .map(|i| format!("{i:?} extent_line={}", i.extent_line))
                .collect()
        };
        (shape(&by_code), shape(&by_query))
    }

    /// Every pattern, and the forms beside them that are no item, in each language of the family.
    const CASES: &[(&str, &str)] = &[
        (
            "typescript",
            "/** Doc. */\nexport function f(a: number): string { const local = 1; return ''; }\nfunction* g() { yield 1 }\nexport class A<T> extends B implements C {\n  private x = 1;\n  static y: string;\n  #z = 2;\n  constructor(a: T) { super(); }\n  get v() { return 1 }\n  m(): void;\n  m(a?: number): void {}\n  [Symbol.iterator]() {}\n  'quoted'() {}\n}\nabstract class D { abstract m(): void; protected abstract n: number; }\nconst h = () => 1, k = 2, { l, m } = o, [p] = q;\nlet r = function () {}, s;\nvar t = function* () {}, u = 3;\nexport const w = async (x: number) => { const inner = () => 2; return inner(); };\napp.init = function init() {};\napp.other = () => {};\napp['no'] = () => {};\nthis.x = function () {};\nfunction outer() { a.b = () => 1; }\nexport default function () {}\ninterface I extends J { a: number; b?(): void; readonly c: { d: string }; (call: number): void; new (x: number): I; [k: string]: unknown; e: { f(): void; g: { h: number } }; }\ntype U = { a: number; b(): void; c: { d: string } };\ntype V = string | { a: number };\ntype W<T> = (options?: { env?: T }) => string;\nenum E { A, B = 2 }\nconst enum F { C }\nnamespace N { export const x = 1; export function y() {} namespace M { class Z {} } }\ndeclare module 'mod' { export function z(): void; }\ndeclare global { interface Window { q: number } }\nmodule Old.Dotted { }\nexport function sig(a: string): void;\nexport function sig(a: number): void;\nexport function sig(a: any) {}\nit('x', async () => { const res = 1; function helper() {} });\ndescribe('y', function () { let z = 1; });\n(function iife() { var hidden = 1; })();\n",
        ),
        (
            "typescript",
            "export default class {}\n",
        ),
        (
            "typescript",
            "export default () => 1;\nexport default async function* named() {}\nexport { a as default };\n",
        ),
        (
            "tsx",
            "import React from 'react';\n\ninterface Props { title: string; onClick(): void }\n\nexport const Button: React.FC<Props> = ({ title, onClick }) => {\n  const [state, setState] = React.useState(0);\n  return <button onClick={() => { const x = 1; onClick(); }}>{title}{`a ${state} b`}</button>;\n};\n\nexport default function App() { return <div><Button title=\"t\" onClick={() => {}} /></div>; }\nclass Old extends React.Component<Props> { state = { a: 1 }; render() { return <span/>; } }\n",
        ),
        (
            "javascript",
            "/** Doc. */\nfunction f(a) { const local = 1; }\nfunction* g() {}\nclass A extends B {\n  x = 1;\n  static y;\n  #z = () => 3;\n  'q' = 2;\n  constructor() { super(); }\n  m() {}\n  static async *n() {}\n}\nconst h = () => 1, k = 2, { l } = o;\nlet r = function () {}, s;\nvar t = function* () {}, u = 3;\napp.init = function init() {};\nmodule.exports.run = async () => {};\nexports.x = 1;\nexport default class {}\nit('x', () => { const res = 1; });\nconst C = class { m() {} };\n",
        ),
        (
            "javascript",
            "export default function () {}\nexport default function* () {}\n",
        ),
        // Cut files and errors: the same items either way.
        ("typescript", "export class A {\n  m(a: number) {\n    const x = {"),
        ("typescript", "interface I { a: number; b(\n"),
        ("typescript", "const s = `unclosed ${ a + `nested"),
        ("typescript", "function f( { }\nconst g = () => 1;\nclass {\n"),
        ("tsx", "export const A = () => <div>{(</div>;\nfunction B() {}\n"),
        ("javascript", "class A { m() { return /re}/ } }\nconst x = a / b / c;\nlet y = `${`${1}`}`"),
    ];

    #[test]
    fn definitions_by_code_equal_the_querys() {
        for (i, (name, source)) in CASES.iter().enumerate() {
            let language = languages::by_name(name).unwrap();
            let (by_code, by_query) = both(language, source.as_bytes());
            assert!(
                !by_query.is_empty() || source.len() < 60,
                "case {i}: no item"
            );
            assert_eq!(by_code, by_query, "case {i} ({name})");
        }
        // The golden fixtures too.
        let mut checked = 0;
        for (path, language) in crate::outline_fixtures() {
            if super::Ecma::of(&language.name).is_none() {
                continue;
            }
            let source = std::fs::read(&path).unwrap();
            let (by_code, by_query) = both(language, &source);
            assert!(by_query.len() > 5, "{}", path.display());
            assert_eq!(by_code, by_query, "{}", path.display());
            checked += 1;
        }
        assert_eq!(checked, 3);
    }

    /// Hostile files of the size the map tags (under 1 MiB) nesting 100,000 deep (objects, calls,
    /// arrows, arrays, blocks, namespaces, interface and type members, classes, JSX elements,
    /// template strings; closed and cut, an unclosed template and regex) are tagged: no stack
    /// overflow (`recover` walked them recursively), nothing quadratic in the nesting (items deeper
    /// than `walk::MAX_ITEM_DEPTH` are not looked for), and the items near the top still listed.
    #[test]
    fn hostile_files_are_tagged() {
        let deep = 100_000;
        let nested = |open: &str, inner: &str, close: &str, times: usize| {
            format!("{}{inner}{}", open.repeat(times), close.repeat(times))
        };
        let cases = [
            (
                "typescript",
                format!("const a={}", nested("{a:", "1", "}", deep)),
            ),
            ("typescript", nested("f(", "", ")", deep)),
            (
                "typescript",
                nested("const f=", "1", "", 1) + &"()=>".repeat(deep),
            ),
            ("typescript", nested("[", "", "]", deep)),
            ("typescript", "{".repeat(deep)),
            ("typescript", nested("namespace a{", "", "}", 60_000)),
            ("typescript", "namespace a{".repeat(80_000)),
            (
                "typescript",
                nested("interface I{a:", "1", "}", 1) + &nested("{a:", "1", "}", deep),
            ),
            (
                "typescript",
                format!("type T={}", nested("{a:", "1", "}", deep)),
            ),
            ("tsx", nested("<a>", "x", "</a>", deep)),
            ("tsx", "<a>{".repeat(deep)),
            (
                "javascript",
                format!("const s={}", nested("`${", "1", "}`", deep)),
            ),
            ("javascript", format!("const s=`{}", "${`".repeat(deep))),
            ("javascript", format!("let r={}", "/(".repeat(deep))),
        ];
        for (i, (name, source)) in cases.iter().enumerate() {
            assert!(
                source.len() < 1 << 20,
                "case {i}: the map tags no bigger file"
            );
            let language = languages::by_name(name).unwrap();
            let (tags, _) = crate::tags::tag_lexed(language, source.as_bytes()).unwrap();
            let top = tags
                .outline
                .items
                .iter()
                .filter(|i| i.parent.is_none())
                .count();
            assert!(top <= 1, "case {i}");
        }
        // The namespaces: the outer ones are items, as deep as the walk looks.
        let ns = nested("namespace a{", "", "}", 60_000);
        let language = languages::by_name("typescript").unwrap();
        let (tags, _) = crate::tags::tag_lexed(language, ns.as_bytes()).unwrap();
        let listed = tags.outline.items.len();
        assert!(
            listed > 10 && listed < crate::walk::MAX_ITEM_DEPTH,
            "{listed}"
        );
    }

    /// Over a tree named by CODERD_ECMA_CORPUS (a checkout of prometheus or hono): every
    /// JavaScript, TypeScript and TSX file's definitions by code against the query's, item for item
    /// and field for field; the items missing and extra are counted and the first difference
    /// printed.
    #[test]
    #[ignore = "needs a corpus"]
    fn definitions_by_code_equal_the_querys_on_a_corpus() {
        let root =
            std::env::var("CODERD_ECMA_CORPUS").expect("CODERD_ECMA_CORPUS names no checkout");
        let (mut files, mut items, mut missing, mut extra, mut differing) = (0, 0, 0, 0, 0);
        for entry in ignore::Walk::new(root).flatten() {
            let path = entry.into_path();
            let Some(language) = languages::for_path(&path, None) else {
                continue;
            };
            if super::Ecma::of(&language.name).is_none() {
                continue;
            }
            let Ok(source) = std::fs::read(&path) else {
                continue;
            };
            files += 1;
            let (by_code, by_query) = both(language, &source);
            items += by_query.len();
            missing += by_query.iter().filter(|i| !by_code.contains(i)).count();
            extra += by_code.iter().filter(|i| !by_query.contains(i)).count();
            if by_code != by_query {
                differing += 1;
                eprintln!("differs: {}", path.display());
                if let Some((a, b)) = by_code.iter().zip(&by_query).find(|(a, b)| a != b) {
                    eprintln!("  by code:  {a}\n  by query: {b}");
                }
            }
        }
        eprintln!(
            "{files} files, {items} items; {differing} files differ: {missing} items missing, \
             {extra} extra"
        );
        assert!(files > 0);
        assert_eq!((differing, missing, extra), (0, 0, 0));
    }
}
