//! Builds two tables of data into the binary, so that a new language needs no Rust code:
//! - the query files under `queries/<language>/<kind>.scm` (`OUT_DIR/queries.rs`);
//! - the grammars of `grammars/grammars.toml` (`OUT_DIR/grammars.rs`): each is compiled from its
//!   crate's generated C sources into a shared object and deflated. Their parse tables are mostly
//!   zeros, so 23 MB of grammars take 2.2 MB of the binary; `src/syntax/grammars.rs` inflates
//!   and loads one the first time a file needs it.

use std::collections::HashMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

fn main() {
    let manifest = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env("OUT_DIR"));
    println!("cargo:rerun-if-changed=queries");
    println!("cargo:rerun-if-changed=grammars/grammars.toml");
    println!("cargo:rerun-if-changed=Cargo.lock");
    write_query_table(&manifest, &out);
    write_grammar_pack(&manifest, &out);
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("cargo sets {name} for build scripts"))
}

fn write_query_table(manifest: &Path, out: &Path) {
    let mut table =
        String::from("/// (language, query kind, text) for every queries/<language>/<kind>.scm.\n");
    table.push_str("pub static QUERY_FILES: &[(&str, &str, &str)] = &[\n");
    for language in sorted_entries(&manifest.join("queries")) {
        let Some(name) = language.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        for file in sorted_entries(&language) {
            if file.extension().and_then(|e| e.to_str()) != Some("scm") {
                continue;
            }
            let kind = file
                .file_stem()
                .and_then(|s| s.to_str())
                .expect("utf-8 file name");
            writeln!(
                table,
                "    ({name:?}, {kind:?}, include_str!({:?})),",
                file.display()
            )
            .expect("writing to a String");
        }
    }
    table.push_str("];\n");
    std::fs::write(out.join("queries.rs"), table).expect("writing OUT_DIR/queries.rs");
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    entries.sort();
    entries
}

/// One `[[grammar]]` of grammars/grammars.toml.
struct Grammar {
    id: String,
    package: String,
    dir: String,
    symbol: String,
}

/// Where a grammar's sources are and what its shared object became.
struct Built {
    sources: String,
    size: usize,
    deflated: PathBuf,
}

fn write_grammar_pack(manifest: &Path, out: &Path) {
    let grammars = read_grammar_table(&manifest.join("grammars/grammars.toml"));
    let packages = dependency_dirs(manifest);
    let pack_dir = out.join("grammars");
    std::fs::create_dir_all(&pack_dir).expect("creating OUT_DIR/grammars");
    let built = build_all(&grammars, &packages, &pack_dir);
    let mut table = String::from(
        "/// Every grammar of grammars/grammars.toml: its shared object, deflated.\n\
         pub static GRAMMAR_PACK: &[Packed] = &[\n",
    );
    for (grammar, built) in grammars.iter().zip(built) {
        writeln!(
            table,
            "    Packed {{ id: {:?}, symbol: {:?}, sources: {:?}, size: {}, deflated: include_bytes!({:?}) }},",
            grammar.id,
            grammar.symbol,
            built.sources,
            built.size,
            built.deflated.display()
        )
        .expect("writing to a String");
    }
    table.push_str("];\n");
    std::fs::write(out.join("grammars.rs"), table).expect("writing OUT_DIR/grammars.rs");
}

fn read_grammar_table(path: &Path) -> Vec<Grammar> {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let table: toml::Table = text
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let field = |entry: &toml::Value, key: &str| -> String {
        entry
            .get(key)
            .and_then(toml::Value::as_str)
            .unwrap_or_else(|| panic!("{}: a [[grammar]] lacks `{key}`", path.display()))
            .to_owned()
    };
    table
        .get("grammar")
        .and_then(toml::Value::as_array)
        .unwrap_or_else(|| panic!("{}: no [[grammar]] entries", path.display()))
        .iter()
        .map(|entry| Grammar {
            id: field(entry, "id"),
            package: field(entry, "crate"),
            dir: field(entry, "dir"),
            symbol: field(entry, "symbol"),
        })
        .collect()
}

/// The folder and version of each of this package's dependencies, from `cargo metadata`: the
/// one source of truth for where cargo keeps a crate (registry, vendor folder or git checkout).
/// The grammar crates are optional dependencies no feature enables, so `--all-features` is what
/// makes cargo fetch them.
fn dependency_dirs(manifest: &Path) -> HashMap<String, (PathBuf, String)> {
    let output = Command::new(env("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--all-features",
            "--locked",
        ])
        .arg("--manifest-path")
        .arg(manifest.join("Cargo.toml"))
        .output()
        .expect("running `cargo metadata`");
    assert!(
        output.status.success(),
        "`cargo metadata` failed; it fetches the grammar crates' sources the first time, so it \
         needs the crate registry (or a vendored copy):\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("`cargo metadata` prints JSON");
    let root = metadata["resolve"]["root"]
        .as_str()
        .expect("a root package");
    let nodes = metadata["resolve"]["nodes"]
        .as_array()
        .expect("resolve nodes");
    let root_node = nodes
        .iter()
        .find(|n| n["id"] == root)
        .expect("the root in the resolve");
    let dependency_ids: Vec<&str> = root_node["deps"]
        .as_array()
        .expect("deps")
        .iter()
        .filter_map(|d| d["pkg"].as_str())
        .collect();
    metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .filter(|p| {
            p["id"]
                .as_str()
                .is_some_and(|id| dependency_ids.contains(&id))
        })
        .map(|p| {
            let manifest_path = PathBuf::from(p["manifest_path"].as_str().expect("manifest_path"));
            let dir = manifest_path.parent().expect("a folder").to_path_buf();
            let version = p["version"].as_str().expect("version").to_owned();
            (p["name"].as_str().expect("name").to_owned(), (dir, version))
        })
        .collect()
}

/// Builds every grammar, as many at once as cargo gives this build jobs.
fn build_all(
    grammars: &[Grammar],
    packages: &HashMap<String, (PathBuf, String)>,
    pack_dir: &Path,
) -> Vec<Built> {
    let jobs = std::env::var("NUM_JOBS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2usize)
        .clamp(1, grammars.len().max(1));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Built>>> =
        Mutex::new((0..grammars.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(grammar) = grammars.get(index) else {
                    break;
                };
                let built = build_one(grammar, packages, pack_dir);
                results.lock().expect("no builder panicked")[index] = Some(built);
            });
        }
    });
    results
        .into_inner()
        .expect("no builder panicked")
        .into_iter()
        .map(|b| b.expect("every grammar built"))
        .collect()
}

/// Compiles one grammar into a shared object and deflates it, unless this build already did
/// (the file name carries the crate's version and the optimisation level).
fn build_one(
    grammar: &Grammar,
    packages: &HashMap<String, (PathBuf, String)>,
    pack_dir: &Path,
) -> Built {
    let (package_dir, version) = packages.get(&grammar.package).unwrap_or_else(|| {
        panic!(
            "grammar `{}`: crate `{}` is not a dependency in Cargo.toml",
            grammar.id, grammar.package
        )
    });
    // Parse tables are data and lexers are long switch statements: size is what optimising
    // buys here, and debug builds keep -O0 so that tests compile quickly.
    let opt_level = if env("OPT_LEVEL") == "0" { "0" } else { "s" };
    let stem = format!(
        "{}-{}-{}-O{opt_level}",
        grammar.id, grammar.package, version
    );
    let deflated = pack_dir.join(format!("{stem}.so.deflate"));
    let shared = pack_dir.join(format!("{stem}.so"));
    // Both are renamed into place when complete, the deflated copy last.
    if !deflated.exists() {
        compile(grammar, &package_dir.join(&grammar.dir), opt_level, &shared);
        let image = std::fs::read(&shared).expect("reading the compiled grammar");
        let packed = miniz_oxide::deflate::compress_to_vec(&image, 9);
        let partial = deflated.with_extension("partial");
        std::fs::write(&partial, packed).expect("writing the deflated grammar");
        std::fs::rename(&partial, &deflated).expect("renaming the deflated grammar");
    }
    let size = std::fs::metadata(&shared)
        .expect("the compiled grammar")
        .len() as usize;
    Built {
        sources: format!("{} {version}", grammar.package),
        size,
        deflated,
    }
}

fn compile(grammar: &Grammar, source_dir: &Path, opt_level: &str, shared: &Path) {
    let compiler = cc::Build::new()
        .opt_level_str(opt_level)
        .debug(false)
        .pic(true)
        .cargo_metadata(false)
        .get_compiler();
    let mut command = compiler.to_command();
    command
        .args(["-shared", "-std=c11", "-w", "-Wl,--gc-sections", "-Wl,-s"])
        .arg("-I")
        .arg(source_dir)
        .arg(source_dir.join("parser.c"));
    let scanner = source_dir.join("scanner.c");
    if scanner.exists() {
        command.arg(scanner);
    }
    let partial = shared.with_extension("so.partial");
    command.arg("-o").arg(&partial);
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("grammar `{}`: running {command:?}: {e}", grammar.id));
    assert!(
        output.status.success(),
        "grammar `{}`: {command:?} failed:\n{}",
        grammar.id,
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::rename(&partial, shared).expect("renaming the compiled grammar");
}
