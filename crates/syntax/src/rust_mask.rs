//! Valid Rust that tree-sitter-rust (0.24.2, the newest on crates.io) does not know, rewritten
//! before parsing at the same length, so every position and line holds:
//!
//! - `macro_rules ! T_ {…}` (blanks before the `!`): the grammar's keyword is `macro_rules!` as
//!   one token, so the definition became a broken macro call and no item. The blanks move after
//!   the `!`.
//! - `default const N: u32 = 4;` and `default type T = u8;` in an impl (specialization): the
//!   grammar knows `default fn` only, so the item was lost. `default` becomes blanks.
//!
//! A `macro m() {}` (macros 2.0) has no same-length form the grammar reads: `recover` contains it.

use std::sync::LazyLock;

/// The source with those forms rewritten; `None` when it has none.
pub fn mask(source: &[u8]) -> Option<Vec<u8>> {
    let mut masked: Option<Vec<u8>> = None;
    for found in MACRO_RULES.captures_iter(source) {
        let (Some(blanks), Some(bang)) = (found.get(1), found.get(2)) else {
            continue;
        };
        let out = masked.get_or_insert_with(|| source.to_vec());
        out[blanks.start()] = b'!';
        out[blanks.start() + 1..=bang.start()].fill(b' ');
    }
    // The regex starts at every line, so it reads the whole file byte by byte: it runs only where
    // a `default` is followed by blanks and `const` or `type` (rare; `Default::default()` is not).
    let candidate = memchr::memmem::find_iter(source, b"default").any(|at| {
        let after = &source[at + b"default".len()..];
        let blanks = after
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        let item = &after[blanks..];
        blanks > 0 && (item.starts_with(b"const") || item.starts_with(b"type"))
    });
    if !candidate {
        return masked;
    }
    for found in DEFAULT_ITEM.captures_iter(source) {
        let Some(keyword) = found.get(1) else {
            continue;
        };
        masked.get_or_insert_with(|| source.to_vec())[keyword.range()].fill(b' ');
    }
    masked
}

/// `macro_rules` then blanks (captured) then `!` (captured), at a line's start or after `pub`.
static MACRO_RULES: LazyLock<regex::bytes::Regex> = LazyLock::new(|| {
    regex::bytes::Regex::new(r"(?m)(?:^|[\s;{}])macro_rules([ \t]+)(!)").expect("a valid regex")
});

/// `default` (captured) before `const` or `type` at the start of an item.
static DEFAULT_ITEM: LazyLock<regex::bytes::Regex> = LazyLock::new(|| {
    regex::bytes::Regex::new(
        r"(?m)^[ \t]*(?:pub(?:\([^)\n]*\))?[ \t]+)?(default)[ \t]+(?:const|type)[ \t]",
    )
    .expect("a valid regex")
});

#[cfg(test)]
mod tests {
    use super::mask;

    #[test]
    fn rare_forms_are_rewritten_at_the_same_length() {
        // (source, masked; `None` when left as is)
        let cases = [
            ("macro_rules ! T_ {}", Some("macro_rules!  T_ {}")),
            ("pub macro_rules  ! M {}", Some("pub macro_rules!   M {}")),
            ("macro_rules! ok {}", None),
            (
                "    default const N: u32 = 4;",
                Some("            const N: u32 = 4;"),
            ),
            ("    default type T = u8;", Some("            type T = u8;")),
            ("    default fn f() {}", None),
            ("let default_const = 1;", None),
        ];
        for (source, want) in cases {
            let got = mask(source.as_bytes()).map(|m| String::from_utf8(m).unwrap());
            assert_eq!(got.as_deref(), want, "{source:?}");
            if let Some(got) = got {
                assert_eq!(got.len(), source.len());
            }
        }
    }
}
