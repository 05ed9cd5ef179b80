//! The environment a command gets: the daemon's own, minus anything that looks like a secret
//! unless the config's `exec.env_passthrough` names it, minus variables that make bash run code on
//! its own (`BASH_ENV`, `ENV`) or inject libraries (`LD_PRELOAD`, `LD_LIBRARY_PATH`'s audit
//! cousins), and with the settings that keep tools from waiting for a terminal that is not there.
//!
//! A secret by name: KEY, SECRET, TOKEN, PASSWORD, PASSWD, CREDENTIAL, WEBHOOK or JWT anywhere in
//! it; a word (between `_`) PASS, PWD, PW or DSN, or one ending in PASS (`PGPASS`, not `BYPASS`);
//! `AWS_*`, `GH_*` and `VAULT_*`; a last word `PAT` (`GITLAB_PAT`); a word starting with AUTH but
//! AUTHOR (`DOCKER_AUTH_CONFIG`, `SSH_AUTH_SOCK`, `NPM_AUTHORIZATION`, not `GIT_AUTHOR_NAME`).
//! `PWD` itself (the shell's folder) is not one. A secret by value: a URL with userinfo, a user
//! alone or an empty one included (`redis://:pw@cache`, `https://key@sentry.io/1`; an `ssh://`
//! login name without a password is not a credential), and the shapes of well-known tokens
//! (`sk_live_`, `ghp_`, `github_pat_`, `glpat-`, `xoxb-`, `AKIA…`, a JWT).

use coderd_core::credentials::carries_credentials;
use std::ffi::OsString;

/// Parts of a name that mark a variable as a secret (compared upper-cased).
const SECRET_MARKERS: &[&str] = &[
    "KEY",
    "SECRET",
    "TOKEN",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "WEBHOOK",
    "JWT",
];

/// Whole words (between `_`) that mark a variable as a secret: short password spellings and DSNs
/// (a Sentry DSN carries its key).
const SECRET_WORDS: &[&str] = &["PASS", "PWD", "PW", "DSN"];

/// Words ending in PASS that are not passwords.
const NOT_PASSWORDS: &[&str] = &["BYPASS", "COMPASS"];

/// Variables never passed, whatever their name says.
const NEVER_PASSED: &[&str] = &["BASH_ENV", "ENV", "LD_PRELOAD", "LD_AUDIT", "CODERD_SOCKET"];

/// Set for every command: no colours, no pagers, no prompts.
pub const FIXED: &[(&str, &str)] = &[
    ("TERM", "dumb"),
    ("PAGER", "cat"),
    ("GIT_PAGER", "cat"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("NO_COLOR", "1"),
    ("DEBIAN_FRONTEND", "noninteractive"),
];

/// Name prefixes of credential families (cloud keys, the GitHub CLI's tokens, Vault's ids).
const SECRET_PREFIXES: &[&str] = &["AWS_", "GH_", "VAULT_"];

/// Whether a variable name looks like it holds a secret.
pub fn is_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    let words: Vec<&str> = upper.split('_').collect();
    let auth = |w: &&str| w.starts_with("AUTH") && !matches!(*w, "AUTHOR" | "AUTHORS");
    let password =
        |w: &&str| SECRET_WORDS.contains(w) || (w.ends_with("PASS") && !NOT_PASSWORDS.contains(w));
    upper != "PWD"
        && (SECRET_PREFIXES.iter().any(|p| upper.starts_with(p))
            || SECRET_MARKERS.iter().any(|m| upper.contains(m))
            || words.last() == Some(&"PAT")
            || words.iter().any(auth)
            || words.iter().any(password))
}

/// The environment for a child, from `vars` (the daemon's environment).
pub fn scrubbed(
    vars: impl Iterator<Item = (OsString, OsString)>,
    passthrough: &[String],
) -> Vec<(OsString, OsString)> {
    let mut out: Vec<(OsString, OsString)> = vars
        .filter(|(name, value)| {
            let name = name.to_string_lossy();
            let excepted = passthrough.iter().any(|p| p == name.as_ref());
            let secret = is_secret(&name) || carries_credentials(&value.to_string_lossy());
            !NEVER_PASSED.contains(&name.as_ref()) && (excepted || !secret)
        })
        .filter(|(name, _)| !FIXED.iter().any(|(fixed, _)| name == fixed))
        .collect();
    out.extend(
        FIXED
            .iter()
            .map(|(name, value)| (OsString::from(name), OsString::from(value))),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(vars: &[(&str, &str)], passthrough: &[&str]) -> Vec<String> {
        let vars = vars
            .iter()
            .map(|(n, v)| (OsString::from(n), OsString::from(v)));
        let passthrough: Vec<String> = passthrough.iter().map(|s| s.to_string()).collect();
        scrubbed(vars, &passthrough)
            .into_iter()
            .map(|(n, _)| n.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn secrets_are_dropped_unless_passed_through_and_terminal_settings_are_fixed() {
        let got = names(
            &[
                ("PATH", "/bin"),
                ("OPENAI_API_KEY", "x"),
                ("github_token", "x"),
                ("AWS_REGION", "x"),
                ("DB_PASSWORD", "x"),
                ("MY_SECRET", "x"),
                ("NPM_TOKEN", "x"),
                ("BASH_ENV", "x"),
                ("TERM", "xterm"),
                ("DATABASE_URL", "postgres://app:hunter2@db.internal/prod"),
                ("HTTPS_PROXY", "http://me:pa55@proxy:3128"),
                ("REPO_URL", "https://github.com/org/repo.git"),
                ("GIT_REMOTE", "ssh://git@github.com/org/repo"),
                ("GITLAB_PAT", "x"),
                ("AZURE_DEVOPS_EXT_PAT", "x"),
                ("PATH_EXTRA", "x"),
                ("DOCKER_AUTH_CONFIG", "{}"),
                ("SSH_AUTH_SOCK", "/tmp/ssh-x/agent.1"),
                ("BASIC_AUTH", "x"),
                ("NPM_AUTHORIZATION", "x"),
                ("GIT_AUTHOR_NAME", "Dev"),
                ("GIT_AUTHOR_EMAIL", "dev@example.com"),
                ("GH_HOST", "github.example.com"),
                ("GH_ENTERPRISE_TOKEN", "x"),
                ("GITHUB_TOKEN", "x"),
                ("PWD", "/ws"),
                ("OLDPWD", "/"),
                ("BYPASS_CACHE", "1"),
                ("DB_PASS", "x"),
                ("MYSQL_PWD", "x"),
                ("PGPASS", "x"),
                ("DB_PW", "x"),
                ("DOCKER_PASS", "x"),
                ("JWT", "x"),
                ("VAULT_ROLE_ID", "x"),
                ("SENTRY_DSN", "x"),
                ("SLACK_WEBHOOK_URL", "x"),
                ("STRIPE_SK", "sk_live_51Habcdefgh"),
                ("CI_BOT", "ghp_abcdefghijklmnopqrstuvwx"),
                ("FINE_GRAINED", "github_pat_11ABCDEFG0123456789_abcdef"),
                ("SLACK_BOT", "xoxb-1234-5678-abcdef"),
                ("AWS_ID_COPY", "AKIAIOSFODNN7EXAMPLE"),
                ("SESSION", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig"),
                ("ERRORS_AT", "https://abc123@o1.ingest.sentry.io/1"),
                ("REDIS_URL", "redis://:pw@cache:6379"),
                ("CLONE_FROM", "https://bot:ghs_x@github.com/org/repo"),
                ("HOMEPAGE", "https://example.com/a@b"),
            ],
            &["NPM_TOKEN"],
        );
        for kept in [
            "PATH",
            "NPM_TOKEN",
            "REPO_URL",
            "GIT_REMOTE",
            "PATH_EXTRA",
            "GIT_AUTHOR_NAME",
            "GIT_AUTHOR_EMAIL",
            "PWD",
            "OLDPWD",
            "BYPASS_CACHE",
            "HOMEPAGE",
        ] {
            assert!(got.contains(&kept.to_string()), "{kept} kept");
        }
        for dropped in [
            "OPENAI_API_KEY",
            "github_token",
            "AWS_REGION",
            "DB_PASSWORD",
            "MY_SECRET",
            "BASH_ENV",
            "DATABASE_URL",
            "HTTPS_PROXY",
            "GITLAB_PAT",
            "AZURE_DEVOPS_EXT_PAT",
            "DOCKER_AUTH_CONFIG",
            "SSH_AUTH_SOCK",
            "BASIC_AUTH",
            "NPM_AUTHORIZATION",
            "GH_HOST",
            "GH_ENTERPRISE_TOKEN",
            "GITHUB_TOKEN",
            "DB_PASS",
            "MYSQL_PWD",
            "PGPASS",
            "DB_PW",
            "DOCKER_PASS",
            "JWT",
            "VAULT_ROLE_ID",
            "SENTRY_DSN",
            "SLACK_WEBHOOK_URL",
            "STRIPE_SK",
            "CI_BOT",
            "FINE_GRAINED",
            "SLACK_BOT",
            "AWS_ID_COPY",
            "SESSION",
            "ERRORS_AT",
            "REDIS_URL",
            "CLONE_FROM",
        ] {
            assert!(!got.contains(&dropped.to_string()), "{dropped}");
        }
        assert_eq!(got.iter().filter(|n| *n == "TERM").count(), 1);
    }
}
