//! Credentials inside text: URLs that carry userinfo (`https://bot:TOKEN@github.com/…`,
//! `redis://:pw@cache`, a Sentry DSN's `https://key@…`) and the shapes of well-known tokens.
//! The environment scrubber drops variables that carry one (`exec::environment`); answers that
//! show a git config (`read` of `.git/config`, the sandbox's copy of it) mask the URLs' userinfo.
//!
//! An `ssh://` login name alone (`ssh://git@github.com/…`) names an account and authenticates
//! nothing: it is neither a credential nor masked.

use regex::{Captures, Regex};
use std::borrow::Cow;
use std::path::Path;
use std::sync::LazyLock;

/// What a masked userinfo reads as.
pub const MASK: &str = "***";

/// A URL's scheme and userinfo, up to the `@` that ends it.
static USERINFO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"([A-Za-z][A-Za-z0-9+.-]*)://([^/?#@\s]*)@").expect("valid regex")
});

/// Tokens recognizable by their shape alone.
static TOKEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\b(?:[sr]k_(?:live|test)_[A-Za-z0-9]{8,}|gh[pousr]_[A-Za-z0-9]{20,}",
        r"|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{8,}",
        r"|(?:AKIA|ASIA)[A-Z0-9]{16}",
        r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)"
    ))
    .expect("valid regex")
});

/// Whether a URL's userinfo is a credential: anything but an ssh login name alone.
fn is_credential(captures: &Captures) -> bool {
    let login_only =
        captures[1].to_ascii_lowercase().ends_with("ssh") && !captures[2].contains(':');
    !login_only
}

/// Whether a value carries a credential: a URL with userinfo (a user alone or an empty one
/// included), or a well-known token shape (`sk_live_`, `ghp_`, `github_pat_`, `xoxb-`, `AKIA…`,
/// a JWT).
pub fn carries_credentials(value: &str) -> bool {
    TOKEN.is_match(value) || USERINFO.captures_iter(value).any(|c| is_credential(&c))
}

/// The text with every URL's userinfo replaced by `***` (`https://***@github.com/org/repo`);
/// borrowed when there is none.
pub fn mask_url_credentials(text: &str) -> Cow<'_, str> {
    USERINFO.replace_all(text, |c: &Captures| match is_credential(c) {
        true => format!("{}://{MASK}@", &c[1]),
        false => c[0].to_string(),
    })
}

/// Whether a root-relative path is a git config file, whose remote URLs may carry credentials:
/// a `config` file inside a `.git` folder (the repository's own, a worktree's, a submodule's).
pub fn is_git_config(rel: &Path) -> bool {
    rel.file_name().is_some_and(|name| name == "config")
        && rel
            .parent()
            .is_some_and(|dir| dir.components().any(|c| c.as_os_str() == ".git"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_userinfo_is_masked_and_an_ssh_login_is_kept() {
        for (text, masked) in [
            (
                "\turl = https://bot:ghp_x@github.com/org/repo.git\n",
                "\turl = https://***@github.com/org/repo.git\n",
            ),
            ("url = https://TOKEN@host/r", "url = https://***@host/r"),
            ("redis://:pw@cache:6379", "redis://***@cache:6379"),
            ("ssh://git@github.com/org/r", "ssh://git@github.com/org/r"),
            ("ssh://git:pw@host/r", "ssh://***@host/r"),
            ("git@github.com:org/r.git", "git@github.com:org/r.git"),
            ("https://example.com/a@b", "https://example.com/a@b"),
        ] {
            assert_eq!(mask_url_credentials(text), masked, "{text}");
        }
    }

    #[test]
    fn git_config_files_are_known_by_their_place() {
        for (rel, is) in [
            (".git/config", true),
            ("sub/.git/config", true),
            (".git/worktrees/w/config", true),
            (".git/modules/m/config", true),
            ("config", false),
            ("crates/core/src/config", false),
            (".git", false),
        ] {
            assert_eq!(is_git_config(Path::new(rel)), is, "{rel}");
        }
    }
}
