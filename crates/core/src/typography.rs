//! The typographic characters models write where code has ASCII ones: curly quotes and no-break
//! spaces. One table, so the loose matching of `patch`, the straightening of model text and the
//! JSON recovery agree on the set.

/// Each typographic character and the ASCII character it stands for.
pub const TYPOGRAPHIC: &[(char, char)] = &[
    ('\u{2018}', '\''), // ‘ left single quote
    ('\u{2019}', '\''), // ’ right single quote, apostrophe
    ('\u{201A}', '\''), // ‚ single low-9 quote
    ('\u{201B}', '\''), // ‛ single high-reversed-9 quote
    ('\u{201C}', '"'),  // “ left double quote
    ('\u{201D}', '"'),  // ” right double quote
    ('\u{201E}', '"'),  // „ double low-9 quote
    ('\u{201F}', '"'),  // ‟ double high-reversed-9 quote
    ('\u{00A0}', ' '),  // no-break space
    ('\u{202F}', ' '),  // narrow no-break space
];

/// The ASCII character `c` stands for, if `c` is in the table.
pub fn ascii_of(c: char) -> Option<char> {
    TYPOGRAPHIC
        .iter()
        .find(|(typographic, _)| *typographic == c)
        .map(|(_, ascii)| *ascii)
}

/// The straight quote `c` stands for, if `c` is a curly quote. Straightening model text changes
/// quotes only: a no-break space may be meant.
pub fn straight_quote(c: char) -> Option<char> {
    ascii_of(c).filter(|ascii| *ascii != ' ')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_map_to_their_ascii_and_spaces_are_not_quotes() {
        assert_eq!(straight_quote('“'), Some('"'));
        assert_eq!(straight_quote('’'), Some('\''));
        assert_eq!(ascii_of('\u{00A0}'), Some(' '));
        assert_eq!(straight_quote('\u{00A0}'), None);
        assert_eq!(ascii_of('x'), None);
        // Every entry is 2 or 3 bytes of UTF-8 led by 0xC2 or 0xE2 (`locate` scans for those).
        for (c, _) in TYPOGRAPHIC {
            let mut buf = [0; 4];
            let bytes = c.encode_utf8(&mut buf).as_bytes();
            assert!(matches!(bytes[0], 0xC2 | 0xE2), "{c:?}");
        }
    }
}
