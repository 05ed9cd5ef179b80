//! The golden corpora (`tests/corpus/<language>/`: real files of public projects, unchanged, each
//! folder with its licence; tests/corpus/SOURCES.md names their sources) outlined and checked
//! under the item notion of docs/structure.md: an item is a definition outside function bodies,
//! placed on its name's line. Two tests, each printing its table (docs/structure.md, "Golden
//! corpora": `cargo test --test it corpus:: -- --nocapture`; `CORPUS_DIFF=1` lists the differences):
//!
//! - against Universal Ctags (`/usr/bin/ctags`, scripts/install-test-tools.sh): what ctags lists
//!   that the notion leaves out (imports, packages, parameters, locals, Rust enum variants,
//!   JavaScript object-literal properties, Ruby accessors) is dropped per language, and so are
//!   coderd's kinds ctags has no notion of (Bash variables, Ruby's `class << self`). Where ctags
//!   itself is wrong, each of its errors is read in the file and listed with its cause (`errata`).
//!   Rust and TypeScript are left out: ctags 5.9 stops early in both (26 tags of `similar`'s 121
//!   items; no `#private` members, 37 of 97); their oracles are `syn` (tests/it/crosscheck.rs) and
//!   the TypeScript compiler.
//! - against a second parser: the TypeScript compiler's (TypeScript, JavaScript), `shfmt`'s
//!   (Bash), clang's AST and preprocessor (C, C++), javac's (Java), Ripper (Ruby), php-ast (PHP),
//!   PyYAML's (YAML), toml_edit's (TOML).
//!   Python's `ast`, `go/ast` and `syn` are
//!   tests/it/crosscheck.rs, over these corpora too.
//!
//! Precision and recall of (file, name, line) pairs must be at least each check's `floor` (0.99).

use coderd_syntax::{dialect, languages, outline_of};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

/// One language's check: its corpus folder, ctags' name for it, the ctags kinds outside coderd's
/// item notion, coderd's kinds outside ctags' notion (`parent.kind` for a kind under another,
/// `kind name` for one name of a kind), ctags' errors read by eye, and the floor its scores must
/// hold.
struct Check {
    folder: &'static str,
    ctags: &'static str,
    drop_theirs: &'static [&'static str],
    drop_ours: &'static [&'static str],
    errata: &'static [Erratum],
    floor: f64,
}

/// Tags ctags gets wrong for one reason, read by eye in the files: (file, name, line) of tags it
/// gives that are no definitions (`wrong`) and of definitions it misses (`missed`). Corrected
/// before scoring; an erratum ctags no longer makes fails the test, so the list cannot go stale.
struct Erratum {
    why: &'static str,
    wrong: &'static [(&'static str, &'static str, usize)],
    missed: &'static [(&'static str, &'static str, usize)],
}

const CHECKS: &[Check] = &[
    Check {
        folder: "c",
        ctags: "C",
        drop_theirs: &["header", "macroparam", "local", "parameter", "label"],
        drop_ours: &[],
        errata: &[],
        floor: 0.99,
    },
    Check {
        folder: "cpp",
        ctags: "C++",
        drop_theirs: &[
            "header",
            "macroparam",
            "local",
            "parameter",
            "label",
            "using",
        ],
        drop_ours: &[],
        errata: &[
            Erratum {
                why: "a macro call at file scope (`GTEST_DECLARE_bool_(death_test_use_fork);`) read as a function",
                wrong: &[
                    ("gmock-spec-builders.cc", "GTEST_DEFINE_STATIC_MUTEX_", 70),
                    ("gtest-internal-inl.h", "GTEST_DECLARE_bool_", 74),
                ],
                missed: &[],
            },
            Erratum {
                why: "a field whose type starts with `::` (`::std::string first_used_test;`)",
                wrong: &[],
                missed: &[
                    ("gmock-spec-builders.cc", "first_used_test_suite", 472),
                    ("gmock-spec-builders.cc", "first_used_test", 473),
                ],
            },
        ],
        floor: 0.99,
    },
    Check {
        folder: "python",
        ctags: "Python",
        drop_theirs: &["namespace", "module", "unknown", "local", "parameter"],
        drop_ours: &[],
        errata: &[],
        floor: 0.99,
    },
    Check {
        folder: "go",
        ctags: "Go",
        drop_theirs: &[
            "package",
            "packageName",
            "unknown",
            "receiver",
            "anonMember",
        ],
        drop_ours: &[],
        errata: &[],
        floor: 0.99,
    },
    Check {
        folder: "java",
        ctags: "Java",
        drop_theirs: &["package", "local"],
        // Methods of an enum constant's body are items (under the constant); ctags skips them.
        drop_ours: &["const.method"],
        errata: &[],
        floor: 0.99,
    },
    Check {
        folder: "ruby",
        ctags: "Ruby",
        drop_theirs: &["library", "alias", "accessor"],
        // `class << self` opens the singleton class: ctags tags the methods in it, not it.
        drop_ours: &["class self"],
        errata: &[],
        floor: 0.99,
    },
    Check {
        folder: "php",
        ctags: "PHP",
        drop_theirs: &["local", "alias"],
        drop_ours: &[],
        errata: &[],
        floor: 0.99,
    },
    Check {
        folder: "kotlin",
        ctags: "Kotlin",
        drop_theirs: &["package"],
        drop_ours: &[],
        errata: &[],
        floor: 0.99,
    },
    Check {
        folder: "csharp",
        ctags: "C#",
        drop_theirs: &["local", "enumerator"],
        drop_ours: &[],
        // Universal Ctags 5.9's C# parser predates C# 10 and 12, and reads expression bodies
        // (`=> …`) and nullable parameters poorly.
        errata: &[
            Erratum {
                why: "a file-scoped namespace (`namespace Polly.Retry;`, C# 10): ctags tags block namespaces only",
                wrong: &[],
                missed: &[
                    ("BreakDurationGeneratorArguments.cs", "Polly.CircuitBreaker", 3),
                    ("CircuitBreakerManualControl.cs", "Polly.CircuitBreaker", 1),
                    ("CircuitState.cs", "Polly.CircuitBreaker", 1),
                    ("DelayBackoffType.cs", "Polly", 1),
                    ("DelegatingComponent.cs", "Polly.Utils.Pipeline", 4),
                    ("HedgingExecutionContext.cs", "Polly.Hedging.Utils", 3),
                    ("IOutcomeArguments.cs", "Polly.Utils", 1),
                    ("Outcome.TResult.cs", "Polly", 5),
                    ("ResilienceContext.cs", "Polly", 3),
                    ("ResilienceContextPool.cs", "Polly", 1),
                    ("ResiliencePipelineRegistry.TResult.cs", "Polly.Registry", 3),
                    ("RetryEngine.cs", "Polly.Retry", 2),
                    ("RetryHelper.cs", "Polly.Retry", 1),
                ],
            },
            Erratum {
                why: "a constructor or method with an expression body (`public C(bool isIsolated) => _isolated = isIsolated;`): missed, its parameter read as a field",
                wrong: &[
                    ("CircuitBreakerManualControl.cs", "isIsolated", 27),
                    ("DelegatingComponent.cs", "component", 13),
                    ("HedgingExecutionContext.cs", "context", 32),
                    ("RetryHelper.cs", "delay", 14),
                ],
                missed: &[
                    ("CircuitBreakerManualControl.cs", "CircuitBreakerManualControl", 27),
                    ("DelegatingComponent.cs", "DelegatingComponent", 13),
                    ("HedgingExecutionContext.cs", "Initialize", 32),
                    ("RetryHelper.cs", "IsValidDelay", 14),
                ],
            },
            Erratum {
                why: "a parameter of a nullable generic type (`internal Outcome(TResult? result)`, `bool TryGetResult(out TResult? result)`)",
                wrong: &[],
                missed: &[
                    ("Outcome.TResult.cs", "Outcome", 19),
                    ("Outcome.TResult.cs", "TryGetResult", 66),
                ],
            },
            Erratum {
                why: "a class with a primary constructor (C# 12, `class RegistrationDisposable(… owner, …) : IDisposable`) read as a method: its members are missed",
                wrong: &[],
                missed: &[
                    ("CircuitBreakerManualControl.cs", "_owner", 122),
                    ("CircuitBreakerManualControl.cs", "_onIsolate", 123),
                    ("CircuitBreakerManualControl.cs", "_onReset", 124),
                    ("CircuitBreakerManualControl.cs", "Dispose", 126),
                ],
            },
            Erratum {
                why: "a positional `record struct` (C# 10, `public readonly record struct ExecutionInfo<TResult>(…);`)",
                wrong: &[],
                missed: &[("HedgingExecutionContext.cs", "ExecutionInfo", 11)],
            },
        ],
        floor: 0.99,
    },
    Check {
        folder: "bash",
        ctags: "Sh",
        drop_theirs: &["heredoc", "alias", "script"],
        // Universal Ctags 5.9's shell parser tags no variables (`shfmt` checks them below).
        drop_ours: &["var"],
        errata: &[],
        floor: 0.99,
    },
    Check {
        folder: "markdown",
        ctags: "Markdown",
        drop_theirs: &[],
        drop_ours: &[],
        errata: &[],
        floor: 0.99,
    },
    Check {
        folder: "json",
        ctags: "JSON",
        drop_theirs: &[],
        drop_ours: &[],
        errata: &[],
        floor: 0.99,
    },
    Check {
        folder: "javascript",
        ctags: "JavaScript",
        drop_theirs: &["property"],
        drop_ours: &[],
        errata: &[
            Erratum {
                why: "`app.set = function set(setting, val) {` at top level, untagged where every other `app.x = function x` is tagged",
                wrong: &[],
                missed: &[("application.js", "set", 351)],
            },
            Erratum {
                why: "`app[method] = function (path) {` inside the `methods.forEach` callback: a computed property in a function body",
                wrong: &[("application.js", "app", 472)],
                missed: &[],
            },
        ],
        floor: 0.99,
    },
];

type Pairs = BTreeMap<(String, String, usize), usize>;

/// A second parser: the pairs it finds in files, and the lines it sees of each file when that is
/// not all of them (a compiler skips the `#if` branches not taken).
type Parser = fn(&[PathBuf]) -> (Pairs, Lines);

/// Ranges of lines (first, last) per file.
type Lines = BTreeMap<String, Vec<(usize, usize)>>;

fn corpus_files(folder: &str) -> Vec<PathBuf> {
    let dir = Path::new(MANIFEST).join("tests/corpus").join(folder);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| {
            !p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("LICENSE")
        })
        .collect();
    files.sort();
    files
}

/// Lines inside function and method bodies, per file (after the line of the name): what ctags tags
/// there (a struct local to a function, a variable of a nested block) is outside the notion.
type Bodies = BTreeMap<String, Vec<(usize, usize)>>;

fn ours(check: &Check, files: &[PathBuf], bodies: &mut Bodies) -> Pairs {
    let mut pairs = Pairs::new();
    for path in files {
        let source = std::fs::read(path).unwrap();
        let first_line = source.split(|&b| b == b'\n').next();
        let mut language = languages::for_path(path, first_line).unwrap();
        if language.name == "c" && dialect::cpp_content(&source) {
            language = languages::by_name("cpp").unwrap();
        }
        let outline = outline_of(language, &source).unwrap();
        for item in &outline.items {
            if matches!(item.kind.as_str(), "function" | "method") {
                let spans = bodies.entry(file_name(path)).or_default();
                spans.push((item.line, item.end_line));
            }
            let kind = item.kind.as_str();
            let under = item.parent.map(|p| outline.items[p].kind.as_str());
            let nested = under.map(|p| format!("{p}.{kind}"));
            let named = format!("{kind} {}", item.name);
            if check.drop_ours.contains(&kind)
                || check.drop_ours.contains(&named.as_str())
                || nested.is_some_and(|n| check.drop_ours.contains(&n.as_str()))
            {
                continue;
            }
            let key = (file_name(path), name_key(&item.name), item.line);
            pairs.insert(key, 1);
        }
    }
    pairs
}

/// Names compared without whitespace (`operator ()` and `operator()`) and without PHP's `$`
/// (coderd names a property as it is written, `$container`; ctags `container`).
fn name_key(name: &str) -> String {
    let name = name.strip_prefix('$').unwrap_or(name);
    name.split_whitespace().collect()
}

fn theirs(check: &Check, files: &[PathBuf], bodies: &Bodies) -> Pairs {
    let out = Command::new("ctags")
        .args(["--output-format=json", "--fields=+nK", "-f", "-"])
        .arg(format!("--language-force={}", check.ctags))
        // C's prototypes and extern declarations are items (ctags leaves them out by default).
        .args(
            ["C", "C++"]
                .contains(&check.ctags)
                .then(|| format!("--kinds-{}=+px", check.ctags)),
        )
        .args(files)
        .output()
        .expect("ctags runs (scripts/install-test-tools.sh installs universal-ctags)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut pairs = Pairs::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let tag: serde_json::Value = serde_json::from_str(line).unwrap();
        let kind = tag["kind"].as_str().unwrap_or("");
        // A JSON file's items are its top-level object's keys; ctags tags nested keys too.
        let nested_key = check.ctags == "JSON" && tag.get("scope").is_some();
        if tag["_type"] != "tag" || check.drop_theirs.contains(&kind) || nested_key {
            continue;
        }
        let (file, name) = (
            file_name(Path::new(tag["path"].as_str().unwrap())),
            tag["name"].as_str().unwrap(),
        );
        let line = tag["line"].as_u64().unwrap() as usize;
        let in_body = bodies
            .get(&file)
            .is_some_and(|spans| spans.iter().any(|&(from, to)| from < line && line <= to));
        // A lambda's contents are locals, as a function body's are (Kotlin's `{ i -> … }` in a
        // property's initializer); anonymous types and functions have no name to outline.
        let scope = tag["scope"].as_str().unwrap_or("");
        if in_body
            || scope.contains("<lambda>")
            || ["__anon", "AnonymousFunction", "<lambda>"]
                .iter()
                .any(|anonymous| name.starts_with(anonymous))
        {
            continue;
        }
        // ctags may tag one name twice (`app.init = function init` as a class and a function).
        let key = (file, name_key(name), line);
        pairs.insert(key, 1);
    }
    pairs
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// (matched, ours, theirs) over distinct (file, name, line) keys, and the differences each way.
fn score(ours: &Pairs, theirs: &Pairs) -> (usize, usize, usize, Vec<String>) {
    let total = |m: &Pairs| m.values().sum::<usize>();
    let matched = ours
        .iter()
        .map(|(k, n)| (*n).min(*theirs.get(k).unwrap_or(&0)))
        .sum();
    let mut diff = Vec::new();
    for (k, n) in ours {
        if theirs.get(k).unwrap_or(&0) < n {
            diff.push(format!("  only ours: {k:?}"));
        }
    }
    for (k, n) in theirs {
        if ours.get(k).unwrap_or(&0) < n {
            diff.push(format!("  only theirs: {k:?} x{n}"));
        }
    }
    (matched, total(ours), total(theirs), diff)
}

/// The TypeScript compiler's view of files (tests/crosscheck/ts_outline.js), as pairs.
fn typescript_compiler(files: &[PathBuf]) -> (Pairs, Lines) {
    script_rows("node", &[], "ts_outline.js", files)
}

/// Bash as `shfmt -tojson` (mvdan.cc/sh's parser, Debian's `shfmt`) parses it: functions outside
/// functions, and the variables a top-level statement assigns (`A=1`, `export B=2`, `readonly
/// C=3`, `declare -a D=()`; not `export E` nor `F=1 cmd`, which give the script no variable).
fn shell_parser(files: &[PathBuf]) -> (Pairs, Lines) {
    let mut pairs = Pairs::new();
    for path in files {
        let out = Command::new("shfmt")
            .arg("-tojson")
            .stdin(std::fs::File::open(path).unwrap())
            .output()
            .expect("shfmt runs (scripts/install-test-tools.sh installs it)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let tree: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut add = |name: &serde_json::Value| {
            let key = (
                file_name(path),
                name["Value"].as_str().unwrap().to_owned(),
                name["ValuePos"]["Line"].as_u64().unwrap() as usize,
            );
            pairs.insert(key, 1);
        };
        shell_functions(&tree, &mut add);
        for statement in tree["Stmts"].as_array().into_iter().flatten() {
            let command = &statement["Cmd"];
            let assigns = match command["Type"].as_str() {
                Some("CallExpr") if command["Args"].is_null() => &command["Assigns"],
                Some("DeclClause") => &command["Args"],
                _ => continue,
            };
            for assign in assigns.as_array().into_iter().flatten() {
                if !assign["Name"].is_null() && assign["Naked"] != true {
                    add(&assign["Name"]);
                }
            }
        }
    }
    (pairs, Lines::new())
}

/// The names of the function declarations in a shell syntax tree, not those inside a function.
fn shell_functions(node: &serde_json::Value, add: &mut impl FnMut(&serde_json::Value)) {
    match node {
        serde_json::Value::Object(fields) if node["Type"] == "FuncDecl" => add(&fields["Name"]),
        serde_json::Value::Object(fields) => {
            fields.values().for_each(|v| shell_functions(v, add));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| shell_functions(v, add)),
        _ => {}
    }
}

/// C as clang's AST has it (tests/crosscheck/clang_outline.py), with the headers of the project the
/// corpus comes from: tree-sitter, the crate this one builds with (its folder from `cargo metadata`).
fn clang_c(files: &[PathBuf]) -> (Pairs, Lines) {
    let metadata = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["metadata", "--format-version=1", "--offline"])
        .current_dir(MANIFEST)
        .output()
        .expect("cargo metadata runs");
    let metadata: serde_json::Value = serde_json::from_slice(&metadata.stdout).unwrap();
    let manifest = (metadata["packages"].as_array().unwrap().iter())
        .find(|p| p["name"] == "tree-sitter")
        .and_then(|p| p["manifest_path"].as_str())
        .expect("tree-sitter is a dependency");
    let crate_dir = Path::new(manifest).parent().unwrap();
    let includes = [crate_dir.join("src"), crate_dir.join("include")];
    clang("c", &includes, files)
}

/// C++ as clang's AST has it, with the googletest headers of Debian's libgtest-dev and
/// libgmock-dev (scripts/install-test-tools.sh): an older version than the corpus, which differs
/// only inside function bodies (errors there leave the declarations whole).
fn clang_cpp(files: &[PathBuf]) -> (Pairs, Lines) {
    clang("c++", &[], files)
}

fn clang(language: &str, includes: &[PathBuf], files: &[PathBuf]) -> (Pairs, Lines) {
    // The script's arguments: the language, `-I DIR` per folder, then the files.
    let mut args = vec![PathBuf::from(language)];
    for dir in includes {
        args.extend([PathBuf::from("-I"), dir.clone()]);
    }
    args.extend(files.iter().cloned());
    script_rows("python3", &[], "clang_outline.py", &args)
}

/// Java as javac's parser reads it (tests/crosscheck/JavaOutline.java, run from source by the
/// JDK scripts/install-test-tools.sh installs).
fn javac_parser(files: &[PathBuf]) -> (Pairs, Lines) {
    let exports = [
        "--add-exports",
        "jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED",
    ];
    script_rows("java", &exports, "JavaOutline.java", files)
}

/// Ruby as Ripper, Ruby's own parser, reads it (tests/crosscheck/rb_outline.rb).
fn ruby_parser(files: &[PathBuf]) -> (Pairs, Lines) {
    script_rows("ruby", &[], "rb_outline.rb", files)
}

/// PHP as PHP's own parser reads it (tests/crosscheck/php_outline.php, with Debian's php-ast).
fn php_parser(files: &[PathBuf]) -> (Pairs, Lines) {
    script_rows("php", &[], "php_outline.php", files)
}

/// YAML as PyYAML's composer reads it (tests/crosscheck/yaml_outline.py).
fn yaml_parser(files: &[PathBuf]) -> (Pairs, Lines) {
    script_rows("python3", &[], "yaml_outline.py", files)
}

/// TOML as toml_edit reads it: the keys before the first table and every table header (`[a.b]`,
/// `[[a]]`), named as written, each on the line of its name.
fn toml_parser(files: &[PathBuf]) -> (Pairs, Lines) {
    let mut pairs = Pairs::new();
    for path in files {
        let text = std::fs::read_to_string(path).unwrap();
        let document = toml_edit::ImDocument::parse(text.as_str()).unwrap();
        let mut add = |name: String, span: Option<std::ops::Range<usize>>| {
            let start = span.expect("a parsed document keeps positions").start;
            let line = text[..start].matches('\n').count() + 1;
            pairs.insert((file_name(path), name_key(&name), line), 1);
        };
        let root = document.as_table();
        for (name, item) in root.iter() {
            if item.is_value() {
                let span = root.key(name).unwrap().span();
                add(as_written(&text, root, name), span);
            }
        }
        toml_headers(&text, root, &mut Vec::new(), &mut add);
    }
    (pairs, Lines::new())
}

/// A key of a table as the document writes it (`'cfg(unix)'`, not a re-rendered `"cfg(unix)"`).
fn as_written(text: &str, table: &toml_edit::Table, name: &str) -> String {
    let key = table.key(name).unwrap();
    match key.span() {
        Some(span) => text[span].to_owned(),
        None => key.display_repr().into_owned(),
    }
}

/// The headers of the tables under `table` (whose header path is `path`), in the document.
fn toml_headers(
    text: &str,
    table: &toml_edit::Table,
    path: &mut Vec<String>,
    add: &mut impl FnMut(String, Option<std::ops::Range<usize>>),
) {
    for (name, item) in table.iter() {
        path.push(as_written(text, table, name));
        match item {
            toml_edit::Item::Table(inner) => {
                if !inner.is_implicit() && !inner.is_dotted() {
                    add(path.join("."), inner.span());
                }
                toml_headers(text, inner, path, add);
            }
            toml_edit::Item::ArrayOfTables(array) => {
                for inner in array.iter() {
                    add(path.join("."), inner.span());
                    toml_headers(text, inner, path, add);
                }
            }
            _ => {}
        }
        path.pop();
    }
}

/// The rows a script of tests/crosscheck prints for files, run by `interpreter`.
fn script_rows(
    interpreter: &str,
    args: &[&str],
    script: &str,
    files: &[PathBuf],
) -> (Pairs, Lines) {
    let path = Path::new(MANIFEST).join("tests/crosscheck").join(script);
    let out = Command::new(interpreter)
        .args(args)
        .arg(path)
        .args(files)
        .output()
        .unwrap_or_else(|e| {
            panic!("{interpreter} (scripts/install-test-tools.sh; typescript for node: scripts/install-language-servers.sh): {e}")
        });
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    rows_to_pairs(&out.stdout)
}

/// Rows printed as JSON lists `[path, kind, name, line]`, as pairs; and `[path, "lines", first,
/// last]`, the lines the parser saw.
fn rows_to_pairs(stdout: &[u8]) -> (Pairs, Lines) {
    let (mut pairs, mut lines) = (Pairs::new(), Lines::new());
    for line in String::from_utf8_lossy(stdout).lines() {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        let file = file_name(Path::new(row[0].as_str().unwrap()));
        if row[1] == "lines" {
            let (first, last) = (row[2].as_u64().unwrap(), row[3].as_u64().unwrap());
            let ranges = lines.entry(file).or_default();
            ranges.push((first as usize, last as usize));
            continue;
        }
        let name = name_key(row[2].as_str().unwrap());
        pairs.insert((file, name, row[3].as_u64().unwrap() as usize), 1);
    }
    (pairs, lines)
}

/// Our pairs on lines the second parser did not see, taken out of `ours`: how many.
fn unseen(ours: &mut Pairs, lines: &Lines) -> usize {
    let before = ours.len();
    ours.retain(|(file, _, line), _| {
        lines
            .get(file)
            .is_none_or(|ranges| ranges.iter().any(|&(a, b)| a <= *line && *line <= b))
    });
    before - ours.len()
}

/// ctags' tags corrected by the check's errata; an erratum ctags no longer makes is an error.
fn correct(check: &Check, theirs: &mut Pairs) -> Result<(), String> {
    for erratum in check.errata {
        let key =
            |&(file, name, line): &(&str, &str, usize)| (file.to_owned(), name_key(name), line);
        let stale = erratum
            .wrong
            .iter()
            .find(|tag| theirs.remove(&key(tag)).is_none())
            .or_else(|| (erratum.missed.iter()).find(|tag| theirs.insert(key(tag), 1).is_some()));
        if let Some((file, name, line)) = stale {
            return Err(format!(
                "{}: ctags no longer errs on {file}:{line} `{name}` ({}): remove it from the errata",
                check.folder, erratum.why
            ));
        }
    }
    Ok(())
}

/// One row of a scores table, and the differences when a score is below `floor`.
fn row(
    label: &str,
    files: usize,
    ours: &Pairs,
    theirs: &Pairs,
    floor: f64,
) -> (String, Option<String>) {
    let (matched, n_ours, n_theirs, diff) = score(ours, theirs);
    let precision = matched as f64 / n_ours.max(1) as f64;
    let recall = matched as f64 / n_theirs.max(1) as f64;
    let line = format!(
        "| {label} | {files} | {n_ours} | {n_theirs} | {matched} | {:.1}% | {:.1}% |",
        precision * 100.0,
        recall * 100.0
    );
    if std::env::var_os("CORPUS_DIFF").is_some() {
        println!("{label}:\n{}", diff.join("\n"));
    }
    let failure = (precision < floor || recall < floor).then(|| {
        let first: Vec<String> = diff.into_iter().take(12).collect();
        format!(
            "{label}: precision {precision:.4} recall {recall:.4} below {floor}\n{}",
            first.join("\n")
        )
    });
    (line, failure)
}

const HEADER: &str = "| corpus | files | coderd items | oracle's | matched | precision | recall |\n|---|---|---|---|---|---|---|";

/// Each corpus with a second parser checked against it: TypeScript and JavaScript against the
/// TypeScript compiler's parser (ctags 5.9 stops early in the TypeScript files), Bash against
/// `shfmt`'s, C and C++ against clang's AST and preprocessor (in the one configuration it
/// compiles), Java against javac's, Ruby against its own (Ripper), PHP against its own (php-ast),
/// YAML against PyYAML's, TOML against toml_edit's.
#[test]
fn every_corpus_outlines_as_its_second_parser_parses_it() {
    let parsers: [(&str, &str, Parser); 11] = [
        ("typescript", "tsc", typescript_compiler),
        ("hono", "tsc", typescript_compiler),
        ("javascript", "tsc", typescript_compiler),
        ("bash", "shfmt", shell_parser),
        ("c", "clang", clang_c),
        ("cpp", "clang", clang_cpp),
        ("java", "javac", javac_parser),
        ("ruby", "Ripper", ruby_parser),
        ("php", "php-ast", php_parser),
        ("yaml", "PyYAML", yaml_parser),
        ("toml", "toml_edit", toml_parser),
    ];
    let mut table = vec![HEADER.to_owned()];
    let mut failures = Vec::new();
    for (folder, parser, parse) in parsers {
        let files = corpus_files(folder);
        let check = Check {
            folder,
            ctags: "",
            drop_theirs: &[],
            drop_ours: &[],
            errata: &[],
            floor: 0.99,
        };
        let mut ours = ours(&check, &files, &mut Bodies::new());
        let (theirs, lines) = parse(&files);
        let label = match unseen(&mut ours, &lines) {
            0 => format!("{folder} ({parser})"),
            n => format!("{folder} ({parser}; {n} items in `#if` branches not compiled)"),
        };
        let (line, failure) = row(&label, files.len(), &ours, &theirs, check.floor);
        table.push(line);
        failures.extend(failure);
    }
    println!("{}", table.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_corpus_outlines_as_ctags_tags_it() {
    let mut table = vec![HEADER.to_owned()];
    let mut failures = Vec::new();
    for check in CHECKS {
        let files = corpus_files(check.folder);
        let mut bodies = Bodies::new();
        let ours = ours(check, &files, &mut bodies);
        let mut theirs = theirs(check, &files, &bodies);
        let (as_is, _, _, _) = score(&ours, &theirs);
        let as_is = (
            as_is as f64 / ours.len().max(1) as f64 * 100.0,
            as_is as f64 / theirs.len().max(1) as f64 * 100.0,
        );
        if let Err(stale) = correct(check, &mut theirs) {
            failures.push(stale);
        }
        let errata: usize = (check.errata.iter())
            .map(|e| e.wrong.len() + e.missed.len())
            .sum();
        let label = match errata {
            0 => format!("{} (ctags)", check.folder),
            n => format!(
                "{} (ctags, {n} errata; as is {:.1}% / {:.1}%)",
                check.folder, as_is.0, as_is.1
            ),
        };
        let (line, failure) = row(&label, files.len(), &ours, &theirs, check.floor);
        table.push(line);
        failures.extend(failure);
    }
    println!("{}", table.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The files of the recovery corpus the grammars read with errors (`specialization.rs`'s forms
/// are masked before parsing, so it parses clean): the test fails if one stops carrying them.
const WITH_PARSE_ERRORS: &[&str] = &["macros.rs", "types.ts"];

/// Files whose parse breaks (tests/corpus/recovery: hono's `types.ts`, which
/// tree-sitter-typescript 0.23.2 loses from its first interface call signature whose `<` opens its
/// own line, and Rust's rare forms: `macro_rules ! T_`, `default const`, macros 2.0) outline as
/// their own compilers parse them: the TypeScript compiler, syn. The parse leaves the damaged
/// regions out (crates/syntax/src/recover.rs), so the declarations after them are found.
#[test]
fn declarations_after_a_parse_error_are_found() {
    let files = corpus_files("recovery");
    let check = Check {
        folder: "recovery",
        ctags: "",
        drop_theirs: &[],
        drop_ours: &[],
        errata: &[],
        floor: 0.99,
    };
    for name in WITH_PARSE_ERRORS {
        let path = files.iter().find(|p| file_name(p) == *name).unwrap();
        let language = languages::for_path(path, None).unwrap();
        let outline = outline_of(language, &std::fs::read(path).unwrap()).unwrap();
        assert!(outline.parse_errors > 0, "{name} parses without errors now");
    }
    let ours = ours(&check, &files, &mut Bodies::new());
    let is = |ext: &str| -> Vec<PathBuf> {
        (files.iter())
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .cloned()
            .collect()
    };
    let (mut theirs, _) = typescript_compiler(&is("ts"));
    for (_, path, name, line) in crate::crosscheck::syn_rows(&is("rs")) {
        theirs.insert((file_name(Path::new(&path)), name_key(&name), line), 1);
    }
    let (line, failure) = row(
        "recovery (tsc, syn)",
        files.len(),
        &ours,
        &theirs,
        check.floor,
    );
    println!("{HEADER}\n{line}");
    assert!(failure.is_none(), "{}", failure.unwrap_or_default());
}
