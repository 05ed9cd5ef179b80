//! What tree-sitter-bash (0.25) misreads in valid Bash, rewritten before parsing at the same
//! length, so every position and line holds:
//!
//! - a test of two words, `[ "$(osx_version)" "$@" ]` (the operator comes from `"$@"`): the
//!   grammar wants an operator between them, and its recovery swallows the closing `}` and every
//!   function after it (20 of python-build's). Its brackets become spaces: a command, as Bash
//!   reads the words.
//! - a line of several assignments, `IFS=: DIRS=(a b)`: the grammar reads them as the prefix of a
//!   command still to come, so the next lines' assignments join it and none is a variable. The
//!   space between them becomes `;` (for a line of assignments only, Bash assigns each in turn).

use std::sync::LazyLock;

/// The source with those forms rewritten; `None` when it has none.
pub fn mask(source: &[u8]) -> Option<Vec<u8>> {
    let mut masked: Option<Vec<u8>> = None;
    for test in TWO_WORD_TEST.captures_iter(source) {
        let out = masked.get_or_insert_with(|| source.to_vec());
        for bracket in [test.get(1), test.get(2)].into_iter().flatten() {
            out[bracket.range()].fill(b' ');
        }
    }
    for line in ASSIGNMENTS_LINE.find_iter(source) {
        let out = masked.get_or_insert_with(|| source.to_vec());
        for next in ASSIGNMENT.find_iter(line.as_bytes()).skip(1) {
            // The blank before each assignment after the first (`A=1 B=2` → `A=1;B=2`).
            out[line.start() + next.start() - 1] = b';';
        }
    }
    masked
}

/// A word of a test: a double- or single-quoted string, or a run without blanks and brackets.
const WORD: &str = r#"(?:"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s\[\]"'!-][^\s\[\]]*)"#;

/// `[ WORD WORD ]` as a command (after a line start, `;`, `&&`, `||`, `!`, `(` or `{`); a first
/// word starting with `-` or `!` is a unary test the grammar reads well.
static TWO_WORD_TEST: LazyLock<regex::bytes::Regex> = LazyLock::new(|| {
    let pattern = format!(r"(?m)(?:^|[;&|!({{])[ \t]*(\[)[ \t]+{WORD}[ \t]+{WORD}[ \t]+(\])");
    regex::bytes::Regex::new(&pattern).expect("a valid regex")
});

/// An assignment's value: quoted strings, an array without nested parentheses, or a plain word.
const VALUE: &str =
    r#"(?:"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|\$'(?:[^'\\\n]|\\.)*'|\([^()\n]*\)|[^\s;&|()"'`]+)*"#;

/// One assignment, `NAME=VALUE`.
static ASSIGNMENT: LazyLock<regex::bytes::Regex> = LazyLock::new(|| {
    regex::bytes::Regex::new(&format!(r"[A-Za-z_][A-Za-z0-9_]*={VALUE}")).expect("a valid regex")
});

/// A line of two or more assignments and nothing else.
static ASSIGNMENTS_LINE: LazyLock<regex::bytes::Regex> = LazyLock::new(|| {
    let one = ASSIGNMENT.as_str();
    let pattern = format!(r"(?m)^[ \t]*{one}(?:[ \t]+{one})+[ \t]*$");
    regex::bytes::Regex::new(&pattern).expect("a valid regex")
});

#[cfg(test)]
mod tests {
    use super::mask;

    fn masked(source: &str) -> String {
        String::from_utf8(mask(source.as_bytes()).unwrap_or_else(|| source.into())).unwrap()
    }

    #[test]
    fn a_two_word_test_becomes_a_command() {
        assert_eq!(
            masked("  [ $# -eq 0 ] || [ \"$(osx_version)\" \"$@\" ]\n"),
            "  [ $# -eq 0 ] ||   \"$(osx_version)\" \"$@\"  \n"
        );
        // Unary and binary tests, and `[[ … ]]`, are left as they are.
        for kept in [
            "[ -n \"$x\" ]\n",
            "[ ! -f x ]\n",
            "[ a = b ]\n",
            "[[ a b ]]\n",
        ] {
            assert_eq!(masked(kept), kept);
        }
    }

    #[test]
    fn a_line_of_assignments_becomes_statements() {
        assert_eq!(
            masked("IFS=: DIRS=($A ${B:-x}/share)\nIFS=\"$OLD\"\n"),
            "IFS=:;DIRS=($A ${B:-x}/share)\nIFS=\"$OLD\"\n"
        );
        assert_eq!(
            masked("IFS=$'\\n' scripts=(`hooks install`)\n"),
            "IFS=$'\\n';scripts=(`hooks install`)\n"
        );
        // A command's environment prefix is left as it is.
        for kept in ["A=1 B=2 make all\n", "A=\"x y\"\n", "local a=1 b=2\n"] {
            assert_eq!(masked(kept), kept);
        }
    }
}
