//! The grammar table: one line per tree-sitter grammar, named by the `grammar` field of the
//! language registry. This is the only Rust a new language needs.

use tree_sitter::Language;

/// The tree-sitter language of a grammar id, or `None` for an id no crate provides.
pub fn grammar(id: &str) -> Option<Language> {
    let language_fn = match id {
        "bash" => tree_sitter_bash::LANGUAGE,
        "c" => tree_sitter_c::LANGUAGE,
        "c_sharp" => tree_sitter_c_sharp::LANGUAGE,
        "cpp" => tree_sitter_cpp::LANGUAGE,
        "go" => tree_sitter_go::LANGUAGE,
        "java" => tree_sitter_java::LANGUAGE,
        "javascript" => tree_sitter_javascript::LANGUAGE,
        "json" => tree_sitter_json::LANGUAGE,
        "kotlin" => tree_sitter_kotlin_ng::LANGUAGE,
        "markdown" => tree_sitter_md::LANGUAGE,
        "php" => tree_sitter_php::LANGUAGE_PHP,
        "python" => tree_sitter_python::LANGUAGE,
        "ruby" => tree_sitter_ruby::LANGUAGE,
        "rust" => tree_sitter_rust::LANGUAGE,
        "toml" => tree_sitter_toml_ng::LANGUAGE,
        "tsx" => tree_sitter_typescript::LANGUAGE_TSX,
        "typescript" => tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
        "yaml" => tree_sitter_yaml::LANGUAGE,
        _ => return None,
    };
    Some(language_fn.into())
}
