//! The outline checked against each language's own parser: Python's `ast` (python3, run here),
//! Go's `go/ast` (tests/crosscheck/go_outline, built here) and Rust's `syn`. Precision and recall
//! of (file, name, line) must be at least 0.99 for every kind.
//!
//! Corpora: the fixtures, plus real code found on the machine (Python's standard library, Go's
//! net/http, this repository's Rust), plus any folder named in `CROSSCHECK_PYTHON`, `CROSSCHECK_GO`
//! or `CROSSCHECK_RUST` (the benchmark script points them at fetched repositories).

use coderd_syntax::{languages, outline_of};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");
const BAR: f64 = 0.99;

/// (kind, path, name, line) of every definition one side found.
type Rows = Vec<(String, String, String, usize)>;

fn files_under(dir: &Path, ext: &str, recursive: bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy();
        if path.is_dir()
            && recursive
            && !name.starts_with('.')
            && name != "target"
            && name != "testdata"
            // rust-analyzer's parser test data: deliberately odd syntax that syn rejects or
            // reads differently (`safe static` in extern blocks, ...).
            && name != "test_data"
        {
            files_under(&path, ext, recursive, out);
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
}

fn corpus(ext: &str, env: &str, extra: &[(PathBuf, bool)]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    files_under(
        &Path::new(MANIFEST).join("tests/fixtures/structure/outline"),
        ext,
        false,
        &mut files,
    );
    // The golden corpora (tests/it/corpus.rs checks them against ctags).
    let golden = match ext {
        "py" => "python",
        "rs" => "rust",
        other => other,
    };
    files_under(
        &Path::new(MANIFEST).join("tests/corpus").join(golden),
        ext,
        false,
        &mut files,
    );
    for (dir, recursive) in extra {
        files_under(dir, ext, *recursive, &mut files);
    }
    if let Some(dir) = std::env::var_os(env) {
        files_under(Path::new(&dir), ext, true, &mut files);
    }
    files
}

fn ours(files: &[PathBuf], kinds: &[&str]) -> Rows {
    let mut rows = Rows::new();
    for path in files {
        let source = std::fs::read(path).unwrap();
        let language = languages::for_path(path, None).unwrap();
        let outline = outline_of(language, &source).unwrap();
        for item in &outline.items {
            if kinds.contains(&item.kind.as_str()) {
                rows.push((
                    item.kind.as_str().to_owned(),
                    path.display().to_string(),
                    item.name.split_whitespace().collect(),
                    item.line,
                ));
            }
        }
    }
    rows
}

/// Rows printed as JSON lists `[path, kind, name, line]` (or `["skip", path]` for files the
/// reference parser refused), and the skipped paths.
fn parse_rows(stdout: &[u8]) -> (Rows, BTreeSet<String>) {
    let mut rows = Rows::new();
    let mut skipped = BTreeSet::new();
    for line in String::from_utf8_lossy(stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v[0] == "skip" {
            skipped.insert(v[1].as_str().unwrap().to_owned());
            continue;
        }
        rows.push((
            v[1].as_str().unwrap().to_owned(),
            v[0].as_str().unwrap().to_owned(),
            v[2].as_str().unwrap().to_owned(),
            v[3].as_u64().unwrap() as usize,
        ));
    }
    (rows, skipped)
}

/// Precision and recall per kind; fails listing the first differences of every kind below the bar.
fn compare(language: &str, ours: Rows, theirs: Rows) {
    let count = |rows: &Rows| {
        let mut m: BTreeMap<(String, String, String, usize), usize> = BTreeMap::new();
        for r in rows {
            *m.entry(r.clone()).or_default() += 1;
        }
        m
    };
    let (ours, theirs) = (count(&ours), count(&theirs));
    let kinds: BTreeSet<&String> = ours.keys().chain(theirs.keys()).map(|k| &k.0).collect();
    let mut report = Vec::new();
    let mut failed = false;
    for kind in kinds {
        let of_kind = |m: &BTreeMap<(String, String, String, usize), usize>| {
            m.iter()
                .filter(|(k, _)| &k.0 == kind)
                .map(|(k, n)| (k.clone(), *n))
                .collect::<BTreeMap<_, _>>()
        };
        let (o, t) = (of_kind(&ours), of_kind(&theirs));
        let total = |m: &BTreeMap<_, usize>| m.values().sum::<usize>();
        let matched: usize = o
            .iter()
            .map(|(k, n)| (*n).min(*t.get(k).unwrap_or(&0)))
            .sum();
        let precision = matched as f64 / total(&o).max(1) as f64;
        let recall = matched as f64 / total(&t).max(1) as f64;
        report.push(format!(
            "{language} {kind}: ours {} theirs {} precision {precision:.4} recall {recall:.4}",
            total(&o),
            total(&t)
        ));
        if precision < BAR || recall < BAR {
            failed = true;
            let extra: Vec<_> = o.keys().filter(|k| !t.contains_key(*k)).take(8).collect();
            let missing: Vec<_> = t.keys().filter(|k| !o.contains_key(*k)).take(8).collect();
            report.push(format!(
                "  only ours: {extra:?}\n  only theirs: {missing:?}"
            ));
        }
    }
    println!("{}", report.join("\n"));
    assert!(!failed, "{}", report.join("\n"));
}

fn command_output(cmd: &mut Command) -> Vec<u8> {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("running {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn python_outline_matches_the_ast_module() {
    let stdlib = command_output(Command::new("python3").args([
        "-c",
        "import os, json; print(os.path.dirname(os.path.dirname(json.__file__)))",
    ]));
    let stdlib = PathBuf::from(String::from_utf8(stdlib).unwrap().trim());
    let files = corpus("py", "CROSSCHECK_PYTHON", &[(stdlib, false)]);
    let script = Path::new(MANIFEST).join("tests/crosscheck/py_outline.py");
    let (theirs, skipped) = parse_rows(&command_output(
        Command::new("python3").arg(script).args(&files),
    ));
    let files: Vec<PathBuf> = files
        .into_iter()
        .filter(|f| !skipped.contains(&f.display().to_string()))
        .collect();
    compare(
        "python",
        ours(&files, &["function", "method", "class", "var", "field"]),
        theirs,
    );
}

#[test]
fn go_outline_matches_go_ast() {
    let goroot = command_output(Command::new("go").args(["env", "GOROOT"]));
    let goroot = PathBuf::from(String::from_utf8(goroot).unwrap().trim());
    let files = corpus(
        "go",
        "CROSSCHECK_GO",
        &[(goroot.join("src/net/http"), false)],
    );
    let bin = tempfile::tempdir().unwrap();
    let exe = bin.path().join("go_outline");
    command_output(
        Command::new("go")
            .args(["build", "-o"])
            .arg(&exe)
            .arg(".")
            .current_dir(Path::new(MANIFEST).join("tests/crosscheck/go_outline")),
    );
    let (theirs, skipped) = parse_rows(&command_output(Command::new(&exe).args(&files)));
    let files: Vec<PathBuf> = files
        .into_iter()
        .filter(|f| !skipped.contains(&f.display().to_string()))
        .collect();
    let kinds = [
        "function",
        "method",
        "struct",
        "interface",
        "type",
        "const",
        "var",
        "field",
    ];
    compare("go", ours(&files, &kinds), theirs);
}

#[test]
fn rust_outline_matches_syn() {
    let root = Path::new(MANIFEST);
    let files = corpus(
        "rs",
        "CROSSCHECK_RUST",
        &[
            (root.join("src"), true),
            (root.join("crates"), true),
            (root.join("tests"), true),
        ],
    );
    let mut theirs = Rows::new();
    let mut parsed = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let Ok(file) = syn::parse_file(&text) else {
            continue;
        };
        let mut visitor = SynOutline {
            path: path.display().to_string(),
            rows: &mut theirs,
        };
        visitor.items(&file.items, false);
        parsed.push(path.clone());
    }
    let kinds = [
        "function", "method", "struct", "enum", "trait", "impl", "type", "const", "var", "module",
        "field", "macro",
    ];
    compare("rust", ours(&parsed, &kinds), theirs);
}

/// syn's items of Rust files as (kind, path, name, line) rows: tests/it/corpus.rs scores its
/// recovery corpus (files the grammar reads with errors) with them.
pub(crate) fn syn_rows(files: &[PathBuf]) -> Rows {
    let mut rows = Rows::new();
    for path in files {
        let text = std::fs::read_to_string(path).unwrap();
        let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut visitor = SynOutline {
            path: path.display().to_string(),
            rows: &mut rows,
        };
        visitor.items(&file.items, false);
    }
    rows
}

/// syn's view under coderd's rules: items outside function bodies; functions inside impls and
/// traits are methods; named fields of structs, unions and enum variants are fields.
struct SynOutline<'a> {
    path: String,
    rows: &'a mut Rows,
}

impl SynOutline<'_> {
    fn push(&mut self, kind: &str, name: String, span: proc_macro2::Span) {
        self.rows
            .push((kind.to_owned(), self.path.clone(), name, span.start().line));
    }

    fn fields(&mut self, fields: &syn::Fields) {
        if let syn::Fields::Named(named) = fields {
            for f in &named.named {
                let ident = f.ident.as_ref().unwrap();
                self.push("field", ident.to_string(), ident.span());
            }
        }
    }

    /// Items declared in a const or static initializer block (`const _: () = { impl … };`): not
    /// inside a function, so they are part of the outline.
    fn block_items(&mut self, expr: &syn::Expr) {
        if let syn::Expr::Block(block) = expr {
            let items: Vec<syn::Item> = block
                .block
                .stmts
                .iter()
                .filter_map(|s| match s {
                    syn::Stmt::Item(item) => Some(item.clone()),
                    _ => None,
                })
                .collect();
            self.items(&items, false);
        }
    }

    fn items(&mut self, items: &[syn::Item], _in_module: bool) {
        use syn::Item;
        for item in items {
            match item {
                Item::Fn(f) => self.push("function", f.sig.ident.to_string(), f.sig.ident.span()),
                Item::Struct(s) => {
                    self.push("struct", s.ident.to_string(), s.ident.span());
                    self.fields(&s.fields);
                }
                Item::Union(u) => {
                    self.push("struct", u.ident.to_string(), u.ident.span());
                    for f in &u.fields.named {
                        let ident = f.ident.as_ref().unwrap();
                        self.push("field", ident.to_string(), ident.span());
                    }
                }
                Item::Enum(e) => {
                    self.push("enum", e.ident.to_string(), e.ident.span());
                    for v in &e.variants {
                        self.fields(&v.fields);
                    }
                }
                Item::Trait(t) => {
                    self.push("trait", t.ident.to_string(), t.ident.span());
                    for ti in &t.items {
                        match ti {
                            syn::TraitItem::Fn(f) => {
                                self.push("method", f.sig.ident.to_string(), f.sig.ident.span())
                            }
                            syn::TraitItem::Type(ty) => {
                                self.push("type", ty.ident.to_string(), ty.ident.span())
                            }
                            syn::TraitItem::Const(c) => {
                                self.push("const", c.ident.to_string(), c.ident.span())
                            }
                            _ => {}
                        }
                    }
                }
                Item::Impl(i) => {
                    let ty = &i.self_ty;
                    let name: String = quote::quote!(#ty).to_string().split_whitespace().collect();
                    self.push("impl", name, i.impl_token.span);
                    for ii in &i.items {
                        match ii {
                            syn::ImplItem::Fn(f) => {
                                self.push("method", f.sig.ident.to_string(), f.sig.ident.span())
                            }
                            syn::ImplItem::Type(ty) => {
                                self.push("type", ty.ident.to_string(), ty.ident.span())
                            }
                            syn::ImplItem::Const(c) => {
                                self.push("const", c.ident.to_string(), c.ident.span())
                            }
                            _ => {}
                        }
                    }
                }
                Item::Type(t) => self.push("type", t.ident.to_string(), t.ident.span()),
                Item::Macro(m) if m.mac.path.is_ident("macro_rules") => {
                    if let Some(ident) = &m.ident {
                        self.push("macro", ident.to_string(), ident.span());
                    }
                }
                Item::Const(c) => {
                    if c.ident != "_" {
                        self.push("const", c.ident.to_string(), c.ident.span());
                    }
                    self.block_items(&c.expr);
                }
                Item::Static(s) => {
                    self.push("var", s.ident.to_string(), s.ident.span());
                    self.block_items(&s.expr);
                }
                Item::Mod(m) => {
                    self.push("module", m.ident.to_string(), m.ident.span());
                    if let Some((_, content)) = &m.content {
                        self.items(content, true);
                    }
                }
                Item::ForeignMod(f) => {
                    for fi in &f.items {
                        match fi {
                            syn::ForeignItem::Fn(f) => {
                                self.push("function", f.sig.ident.to_string(), f.sig.ident.span())
                            }
                            syn::ForeignItem::Static(s) => {
                                self.push("var", s.ident.to_string(), s.ident.span())
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

/// Prints the syntax tree of `$CODERD_DUMP` (a development aid: `cargo test --test it
/// crosscheck::dump_tree -- --ignored --nocapture`).
#[test]
#[ignore]
fn dump_tree() {
    let path = PathBuf::from(std::env::var_os("CODERD_DUMP").unwrap());
    let source = std::fs::read(&path).unwrap();
    let language = match std::env::var("CODERD_DUMP_LANG") {
        Ok(name) => languages::by_name(&name).unwrap(),
        Err(_) => languages::for_path(&path, None).unwrap(),
    };
    let tree = coderd_syntax::parse(language, &source, None).unwrap();
    let mut cursor = tree.walk();
    let mut depth = 0;
    loop {
        let node = cursor.node();
        if node.is_named() {
            let field = cursor
                .field_name()
                .map(|f| format!("{f}: "))
                .unwrap_or_default();
            let text = String::from_utf8_lossy(&source[node.byte_range()]);
            let text: String = text.chars().take(40).collect();
            println!("{}{field}{} {:?}", "  ".repeat(depth), node.kind(), text);
        }
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return;
            }
            depth -= 1;
        }
    }
}
