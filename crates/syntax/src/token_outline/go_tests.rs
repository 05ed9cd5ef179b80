//! The Go finder (`go`) against the skeleton's outline, construct by construct.

use super::tests::{both, shape};

fn go() -> &'static crate::languages::Language {
    crate::languages::by_name("go").unwrap()
}

/// Each construct's outline from the tokens is the skeleton's, item for item and field for
/// field (docs, extent lines, byte ranges included).
#[test]
fn token_outlines_are_the_skeletons() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/structure/outline/sample.go"
    );
    let fixture = std::fs::read_to_string(fixture).unwrap();
    let cases = [
        fixture.as_str(),
        // Functions: generic, without a body, a struct type in a result, a comment before the body.
        "package p\n\n// F does.\n//\n// More.\nfunc F[T any, U comparable](a, b T, c ...U) (x int, err error) {\n\treturn 0, nil\n}\n\nfunc asm(x int) int\n\nfunc S() struct{ A int } { return struct{ A int }{} }\n\nfunc C() /* c */ {}\n\nfunc Long(\n\ta int,\n\tb string,\n) error {\n\treturn nil\n}\n",
        // Methods: every receiver form, their type declared here or elsewhere, before or after.
        "package p\n\nfunc (t T) A() {}\n\ntype T struct{}\n\nfunc (t *T) B() {}\n\nfunc (T) C() {}\n\nfunc (*T) D() {}\n\nfunc (g G[K, V]) E() {}\n\nfunc (g *G[K, V]) F() {}\n\nfunc (o *Other) G() error { return nil }\n\ntype G[K comparable, V any] map[K]V\n",
        // Types: single and grouped, aliases, arrays, generics, docs per spec.
        "package p\n\n// A doc.\ntype A int\n\ntype (\n\t// B doc.\n\tB = A\n\n\tC [4]int\n\tD [N]string\n\tE[T any] []T\n\t// F doc.\n\tF struct{ X, Y int }\n)\n\ntype G[T interface{ ~int | ~string }] struct {\n\tV T\n}\n\ntype H func(a int) (b error)\n\ntype I <-chan struct{}\n\ntype J map[string]*struct {\n\tK int\n}\n",
        // Struct fields: embedded, tagged, nested, several names, arrays, docs and trailing comments.
        "package p\n\n// S is.\ntype S struct {\n\t*Embedded\n\tpkg.Qualified\n\tGeneric[int]\n\tTagged `json:\"t\"`\n\n\t// A doc.\n\tA, B int `json:\"a\"` // trailing\n\tC    [4]byte\n\tD    []struct {\n\t\t// E doc.\n\t\tE string\n\t}\n\tF func(int) error\n\tG map[string]interface {\n\t\tM()\n\t}\n\tH chan<- int; I int\n\t/* J\n\t * block */\n\tJ struct{}\n}\n",
        // Interfaces: methods over lines, embedded, type sets.
        "package p\n\ntype I interface {\n\t// M doc.\n\tM(a int) (int,\n\t\terror)\n\tio.Reader\n\tReader\n\t~int | ~string\n\tN() interface{ O() }\n}\n",
        // Const and var: grouped, iota, several names, typed, values over lines, literals.
        "package p\n\n// A doc.\nconst A = 1\n\nconst (\n\tB Kind = iota // b\n\tC\n\t// D doc.\n\tD, E = \"d\", `e\ne`\n)\n\nvar (\n\tF = []int{\n\t\t1,\n\t}\n\tG, H int\n\tI = f(\n\t\t1, 2,\n\t)\n\tJ = 1 +\n\t\t2\n\tK struct{ L int }\n\tM = struct{ N int }{1}\n\t_ = x\n)\n\nvar _ I = (*T)(nil)\n\nvar f = func() int {\n\ttype local struct{ X int }\n\treturn 1\n}()\n\nvar O = map[string]T{\"a\": {}}\n",
        // Package names, which the tags query does not count: the clause's, the imports', a
        // qualified type's (in a signature, a field, a composite literal, `new` and `make`); a
        // package-level call's or value's package is an identifier it counts.
        "package p\n\nimport (\n\tm \"metrics\"\n\t. \"dot\"\n)\n\nvar (\n\tc = m.NewCounter(m.Opts{Name: m.Name})\n\tt = make(map[reflect.Type]string, n.Size)\n\tq = new(sync.Mutex)\n\tl = []m.Label{}\n\tv = m.Default\n)\n\ntype S struct {\n\tsync.Mutex\n\tC m.Counter\n}\n\nfunc F(a m.A, b [m.N]int) (m.B, error) { return m.B{}, nil }\n",
        // Comments: far, touching, blocks, before and after, a file ending without a newline.
        "// Package p.\npackage p\n\nimport (\n\t\"fmt\" // why\n\tx \"y\"\n)\n\nimport z \"z\"\n\n// Far.\n\nfunc A() {}\n\n/* B */ func B() {}\n\nfunc C() {} // trailing\n// D doc.\nfunc D() {}\n\n// E\n/* E2 */\nvar E = 1",
    ];
    for source in cases {
        let (tokens, skeleton) = both(go(), source.as_bytes());
        let tokens = tokens.unwrap_or_else(|| panic!("not answered: {source}"));
        assert!(!skeleton.outline.items.is_empty(), "{source}");
        assert_eq!(shape(&tokens), shape(&skeleton), "{source}");
        // The names the tags query counts, package names left out as it leaves them out.
        assert_eq!(tokens.references, skeleton.references, "{source}");
    }
}

/// A file cut anywhere (an editor's half-written file) gets an answer or `None`, never a panic.
#[test]
fn cut_files_never_panic() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/structure/outline/sample.go"
    );
    let source = std::fs::read(fixture).unwrap();
    for cut in 0..source.len() {
        let source = &source[..cut];
        let (tokens, comments) = crate::lexer::lex_with_comments(crate::lexer::Dialect::Go, source);
        super::go::outline(source, &tokens, &comments);
    }
}

/// What the finder is not sure of is left to the parse.
#[test]
fn unusual_files_are_left_to_the_parse() {
    let cases = [
        // No package clause, a statement at the top level, an unclosed body.
        "func A() {}\n",
        "package p\n\nx := 1\n",
        "package p\n\nfunc A() {\n",
        // A receiver the outline's query does not match (its body's locals would be items).
        "package p\n\nfunc ((T)) M() { var x = 1 }\n",
        // A struct type with fields inside a parameter list or a type argument.
        "package p\n\ntype F func(struct{ A int })\n",
        "package p\n\ntype G List[struct{ A int }]\n",
        // Two declarations on one line.
        "package p\n\nfunc A() {}; func B() {}\n",
        // A body's brace on the next line.
        "package p\n\nvar x = y +\n",
    ];
    for source in cases {
        let tokens = crate::lexer::lex_with_comments(crate::lexer::Dialect::Go, source.as_bytes());
        let found = super::go::outline(source.as_bytes(), &tokens.0, &tokens.1);
        assert!(found.is_none(), "{source}");
    }
}
