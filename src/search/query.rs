//! A search's params turned into a validated query once (parse, then apply): the mode, the
//! target, case handling and the compiled matcher. After this nothing re-checks the raw params.

use super::{SearchParams, DEFAULT_CONTEXT, DEFAULT_MAX_RESULTS, MAX_CONTEXT};
use coderd_core::config::Limits;
use coderd_core::error::{Error, Result};
use coderd_core::memory::Policy;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Default)]
#[serde(rename_all = "lowercase")]
pub(super) enum Format {
    #[default]
    Json,
    Text,
}

#[derive(Deserialize, JsonSchema, Debug)]
#[serde(untagged)]
pub(super) enum RegexField {
    Flag(bool),
    Pattern(String),
}

#[derive(Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(super) enum Case {
    Sensitive,
    Insensitive,
    Smart,
}

#[derive(Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Default)]
#[serde(rename_all = "lowercase")]
pub(super) enum Target {
    #[default]
    Content,
    Paths,
}

/// A request, validated.
pub(super) struct Query {
    pub(super) pattern: String,
    pub(super) regex: bool,
    pub(super) case: Case,
    pub(super) word: bool,
    pub(super) max_results: usize,
    pub(super) before: usize,
    pub(super) after: usize,
    pub(super) paths_only: bool,
    pub(super) target: Target,
    pub(super) format: Format,
    pub(super) max_line_bytes: usize,
    pub(super) budget: usize,
    /// grep-searcher's heap limit: a file with a longer line is skipped (memory policy).
    pub(super) heap_limit: usize,
    pub(super) threads: usize,
}

impl Query {
    pub(super) fn from_params(p: &SearchParams, limits: &Limits, policy: &Policy) -> Result<Query> {
        let (pattern, regex) = match (&p.pattern, &p.regex) {
            (Some(_), Some(RegexField::Pattern(_))) => {
                return Err(Error::bad_input(
                    "give the pattern once: `pattern` or `regex`, not both",
                ))
            }
            (None, Some(RegexField::Pattern(r))) => (r.clone(), true),
            (Some(pat), flag) => (pat.clone(), matches!(flag, Some(RegexField::Flag(true)))),
            (None, _) => {
                return Err(Error::bad_input(
                    "missing field `pattern` (or `term`, `query`, `regex`)",
                )
                .with_recovery(r#"{"pattern": "fn main", "dir": "src"}"#))
            }
        };
        if pattern.is_empty() {
            return Err(Error::bad_input("`pattern` is empty"));
        }
        if regex && p.literal == Some(true) {
            return Err(Error::bad_input("`literal: true` contradicts regex mode"));
        }
        let context = p.context.unwrap_or(DEFAULT_CONTEXT);
        let (before, after) = (p.before.unwrap_or(context), p.after.unwrap_or(context));
        if before.max(after) > MAX_CONTEXT {
            return Err(Error::bad_input(format!(
                "context is at most {MAX_CONTEXT} lines each side"
            )));
        }
        let insensitive = p.ignore_case == Some(true) || p.case_sensitive == Some(false);
        let case = match (p.case, insensitive) {
            (Some(c), _) => c,
            (None, true) => Case::Insensitive,
            (None, false) => Case::Sensitive,
        };
        let max_results = p.max_results.unwrap_or(DEFAULT_MAX_RESULTS);
        if max_results == 0 {
            return Err(Error::bad_input("`max_results` must be at least 1"));
        }
        Ok(Query {
            pattern,
            regex,
            case,
            word: p.word.unwrap_or(false),
            max_results: max_results.min(limits.search_default_max_matches),
            before,
            after,
            paths_only: p.paths_only.unwrap_or(false),
            target: p.target.unwrap_or_default(),
            format: p.format.unwrap_or_default(),
            max_line_bytes: p
                .max_line_bytes
                .unwrap_or(limits.search_default_max_line_bytes)
                .max(16),
            budget: limits.search_response_budget_bytes,
            heap_limit: policy.search_heap_limit_bytes as usize,
            threads: policy.search_threads,
        })
    }

    pub(super) fn matcher(&self) -> Result<RegexMatcher> {
        RegexMatcherBuilder::new()
            .fixed_strings(!self.regex)
            .case_insensitive(self.case == Case::Insensitive)
            .case_smart(self.case == Case::Smart)
            .word(self.word)
            .line_terminator(Some(b'\n'))
            .build(&self.pattern)
            .map_err(|e| {
                Error::bad_input(format!("`pattern` is not a valid regex: {e}"))
                    .with_recovery("escape the metacharacters, or search literally (drop `regex`)")
            })
    }
}
