//! Compiles the query files under `queries/<language>/<kind>.scm` into the binary as a table, so a
//! new language needs no Rust code for its queries: dropping the files in is enough.

use std::fmt::Write;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let queries = manifest.join("queries");
    println!("cargo:rerun-if-changed=queries");
    let mut table =
        String::from("/// (language, query kind, text) for every queries/<language>/<kind>.scm.\n");
    table.push_str("pub static QUERY_FILES: &[(&str, &str, &str)] = &[\n");
    for language in sorted_entries(&queries) {
        let Some(name) = language
            .file_name()
            .and_then(|n| n.to_str())
            .map(str::to_owned)
        else {
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
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it")).join("queries.rs");
    std::fs::write(out, table).expect("writing OUT_DIR/queries.rs");
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    entries.sort();
    entries
}
