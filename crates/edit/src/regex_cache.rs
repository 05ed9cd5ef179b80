//! Compiled `update-file` replace patterns, kept by pattern: an agent re-sends the same replace
//! op across calls (and retries), and compiling costs more than running it on a typical file.

use regex::bytes::{Regex, RegexBuilder};
use std::collections::HashMap;
use std::sync::Mutex;

/// Patterns kept; past it the cache starts over (patterns are small, compiled programs are not).
const CAPACITY: usize = 64;

type Cache = HashMap<(String, bool), Regex>;
static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

/// The compiled `pattern` (`.` matching `\n` when `dot_matches_newline`), from the cache when it
/// was compiled before. Errors are not kept: a bad pattern is rare and cheap to reject again.
pub fn compiled(pattern: &str, dot_matches_newline: bool) -> Result<Regex, regex::Error> {
    let key = (pattern.to_string(), dot_matches_newline);
    if let Some(re) = lock().as_ref().and_then(|c| c.get(&key)) {
        // A `Regex` clone shares the compiled program.
        return Ok(re.clone());
    }
    let re = RegexBuilder::new(pattern)
        .dot_matches_new_line(dot_matches_newline)
        .build()?;
    let mut cache = lock();
    let cache = cache.get_or_insert_with(HashMap::new);
    if cache.len() >= CAPACITY {
        cache.clear();
    }
    cache.insert(key, re.clone());
    Ok(re)
}

fn lock() -> std::sync::MutexGuard<'static, Option<Cache>> {
    CACHE.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_pattern_same_program_flags_apart() {
        let a = compiled("a.b", false).unwrap();
        let b = compiled("a.b", false).unwrap();
        assert_eq!(a.as_str(), b.as_str());
        assert!(!a.is_match(b"a\nb"));
        assert!(compiled("a.b", true).unwrap().is_match(b"a\nb"));
        assert!(compiled("(", false).is_err());
    }
}
