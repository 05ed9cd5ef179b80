//! The environment a command gets: the daemon's own, minus anything that looks like a secret
//! (names containing KEY, SECRET, TOKEN, PASSWORD, CREDENTIAL, and `AWS_*`) unless the config's
//! `exec.env_passthrough` names it, minus variables that make bash run code on its own
//! (`BASH_ENV`, `ENV`) or inject libraries (`LD_PRELOAD`, `LD_LIBRARY_PATH`'s audit cousins), and
//! with the settings that keep tools from waiting for a terminal that is not there.

use std::ffi::OsString;

/// Parts of a name that mark a variable as a secret (compared upper-cased).
const SECRET_MARKERS: &[&str] = &["KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL"];

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

/// Whether a variable name looks like it holds a secret.
pub fn is_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.starts_with("AWS_") || SECRET_MARKERS.iter().any(|m| upper.contains(m))
}

/// The environment for a child, from `vars` (the daemon's environment).
pub fn scrubbed(
    vars: impl Iterator<Item = (OsString, OsString)>,
    passthrough: &[String],
) -> Vec<(OsString, OsString)> {
    let mut out: Vec<(OsString, OsString)> = vars
        .filter(|(name, _)| {
            let name = name.to_string_lossy();
            let excepted = passthrough.iter().any(|p| p == name.as_ref());
            !NEVER_PASSED.contains(&name.as_ref()) && (excepted || !is_secret(&name))
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
            ],
            &["NPM_TOKEN"],
        );
        assert!(got.contains(&"PATH".to_string()));
        assert!(got.contains(&"NPM_TOKEN".to_string()));
        for dropped in [
            "OPENAI_API_KEY",
            "github_token",
            "AWS_REGION",
            "DB_PASSWORD",
            "MY_SECRET",
            "BASH_ENV",
        ] {
            assert!(!got.contains(&dropped.to_string()), "{dropped}");
        }
        assert_eq!(got.iter().filter(|n| *n == "TERM").count(), 1);
    }
}
