//! Structure: which language a file is in (`languages`, from the registry in `grammars/`), and
//! later its tree-sitter parse, outline and tags.

pub mod languages;
