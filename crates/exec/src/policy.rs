//! The decision for one command: parse and unwrap it, apply the built-in rules, then the daemon
//! config's `exec.deny` and `exec.allow`, each matched against every parsed simple command (its
//! argv), never against the raw string, so `ls; rm -rf ~` is two commands and an allow rule for
//! `ls *` says nothing about the second. The policy comes from the daemon config only: no request
//! field reaches this module except the command and its folder.

use super::parse::SimpleCommand;
use super::rules::{self, Places, Rule, Violation};
use super::wrappers::analyze;
pub use coderd_core::config::exec::ExecConfig;
use serde::Serialize;

/// Checks the `exec` section's rules compile, naming the bad one (the core crate holds the
/// section's shape; what its rules mean is this crate's).
pub fn validate(config: &ExecConfig) -> Result<(), String> {
    for (key, rules) in [("exec.deny", &config.deny), ("exec.allow", &config.allow)] {
        for (i, rule) in rules.iter().enumerate() {
            ArgvRule::new(rule).map_err(|e| format!("`{key}[{i}]` ({rule}): {e}"))?;
        }
    }
    if config.default_timeout == 0 || config.test_timeout == 0 || config.max_timeout == 0 {
        return Err("`exec` timeouts must be greater than 0".into());
    }
    Ok(())
}

/// One config rule: words matched one by one against argv (globs allowed in each word; the
/// command name also matches by its base name). A last word `*` matches any remaining arguments,
/// including none; without it the argv must have exactly as many words as the rule.
struct ArgvRule {
    words: Vec<globset::GlobMatcher>,
    open_ended: bool,
}

impl ArgvRule {
    fn new(text: &str) -> Result<ArgvRule, String> {
        let mut words: Vec<&str> = text.split_whitespace().collect();
        if words.is_empty() {
            return Err("an empty rule".into());
        }
        let open_ended = words.len() > 1 && words.last() == Some(&"*");
        if open_ended {
            words.pop();
        }
        let words = words
            .into_iter()
            .map(|w| {
                globset::Glob::new(w)
                    .map(|g| g.compile_matcher())
                    .map_err(|e| e.to_string())
            })
            .collect::<Result<_, _>>()?;
        Ok(ArgvRule { words, open_ended })
    }

    fn matches(&self, argv: &[String]) -> bool {
        let length_ok = match self.open_ended {
            true => argv.len() >= self.words.len(),
            false => argv.len() == self.words.len(),
        };
        length_ok
            && self
                .words
                .iter()
                .zip(argv)
                .enumerate()
                .all(|(i, (rule, arg))| {
                    rule.is_match(arg)
                        || (i == 0 && rule.is_match(arg.rsplit('/').next().unwrap_or(arg)))
                })
    }
}

/// One parsed simple command as `dry_run` shows it: the wire's type.
pub use wire::answers::command::ParsedCommand;

/// The verdict on a command.
#[derive(Serialize, Debug)]
pub struct Decision {
    pub allowed: bool,
    /// The first refusal's rule, when refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<Rule>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refusals: Vec<Violation>,
    pub commands: Vec<ParsedCommand>,
}

impl Decision {
    /// The decision as `dry_run` answers it, beside the sandbox the command would run in (the
    /// rules by name: the bytes the rules' own serialisation wrote).
    pub fn dry_run(self, sandbox: serde_json::Value) -> wire::answers::command::DryRun {
        wire::answers::command::DryRun {
            allowed: self.allowed,
            rule: self.rule.map(|r| r.name().into()),
            refusals: self
                .refusals
                .into_iter()
                .map(|v| wire::answers::command::Refusal {
                    rule: v.rule.name().into(),
                    command: v.command,
                    reason: v.reason,
                })
                .collect(),
            commands: self.commands,
            sandbox,
        }
    }
}

/// Decides whether `source` may run in `places.cwd` under `config`.
pub fn decide(source: &str, places: &Places, config: &ExecConfig) -> Decision {
    let analysis = analyze(source);
    let mut refusals = rules::check(&analysis, places);
    if !config.enabled {
        refusals.insert(
            0,
            Violation {
                rule: Rule::Disabled,
                command: source.chars().take(80).collect(),
                reason: "running commands is disabled by the daemon config (`exec.enabled`)".into(),
            },
        );
    }
    refusals.extend(config_refusals(&analysis.commands, config));
    let commands = analysis
        .commands
        .iter()
        .map(|c| ParsedCommand {
            argv: c.argv.iter().map(|w| w.shown()).collect(),
            via: c.via.clone(),
        })
        .collect();
    Decision {
        allowed: refusals.is_empty(),
        rule: refusals.first().map(|v| v.rule),
        refusals,
        commands,
    }
}

fn config_refusals(commands: &[SimpleCommand], config: &ExecConfig) -> Vec<Violation> {
    // Rules were validated when the config was loaded; a rule that fails here is skipped for
    // deny (never loosening) and counts as matching nothing for allow (never loosening either).
    let deny: Vec<(&String, ArgvRule)> = config
        .deny
        .iter()
        .filter_map(|r| ArgvRule::new(r).ok().map(|rule| (r, rule)))
        .collect();
    let allow: Vec<ArgvRule> = config
        .allow
        .iter()
        .filter_map(|r| ArgvRule::new(r).ok())
        .collect();
    let mut out = Vec::new();
    for command in commands.iter().filter(|c| !c.argv.is_empty()) {
        let argv: Vec<String> = command.argv.iter().map(|w| w.shown()).collect();
        if let Some((text, _)) = deny.iter().find(|(_, rule)| rule.matches(&argv)) {
            out.push(Violation {
                rule: Rule::ConfigDeny,
                command: command.shown(),
                reason: format!("matches the `exec.deny` rule `{text}`"),
            });
        } else if !config.allow.is_empty() && !allow.iter().any(|rule| rule.matches(&argv)) {
            out.push(Violation {
                rule: Rule::NotAllowed,
                command: command.shown(),
                reason: "matches no `exec.allow` rule".into(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn places() -> Places {
        Places {
            cwd: PathBuf::from("/work/project"),
            home: Some(PathBuf::from("/home/dev")),
            roots: vec![PathBuf::from("/work/project")],
        }
    }

    fn rule_of(source: &str, config: &ExecConfig) -> Option<&'static str> {
        decide(source, &places(), config).rule.map(Rule::name)
    }

    /// `dry_run` names rules by `Rule::name`; the decision once serialised `Rule` itself: the bytes
    /// must be the same.
    #[test]
    fn the_dry_run_answer_is_the_decision_as_it_was_serialised() {
        let config = ExecConfig {
            deny: vec!["git push *".into()],
            ..ExecConfig::default()
        };
        for source in ["ls -la", "sudo git push origin; rm -rf ~", "ls $("] {
            let decision = decide(source, &places(), &config);
            let before = serde_json::to_value(&decision).unwrap();
            let sandbox = serde_json::json!({"mode": "off"});
            let mut expected = before.as_object().unwrap().clone();
            expected.insert("sandbox".into(), sandbox.clone());
            let after = serde_json::to_value(decision.dry_run(sandbox)).unwrap();
            assert_eq!(after, serde_json::Value::Object(expected), "{source}");
        }
        for rule in
            Rule::BUILT_IN
                .iter()
                .chain(&[Rule::ConfigDeny, Rule::NotAllowed, Rule::Disabled])
        {
            assert_eq!(serde_json::to_value(rule).unwrap(), rule.name());
        }
    }

    #[test]
    fn allow_rules_match_each_simple_command_not_the_string() {
        let config = ExecConfig {
            allow: vec!["ls *".into(), "cargo test *".into()],
            ..ExecConfig::default()
        };
        assert_eq!(rule_of("ls -la", &config), None);
        assert_eq!(rule_of("ls; rm -rf ~", &config), Some("recursive-delete"));
        assert_eq!(rule_of("ls; touch x", &config), Some("not-allowed"));
        assert_eq!(rule_of("ls $(touch x)", &config), Some("not-allowed"));
        assert_eq!(rule_of("cargo test -q", &config), None);
        assert_eq!(rule_of("cargo build", &config), Some("not-allowed"));
    }

    #[test]
    fn deny_rules_see_through_wrappers_and_allow_never_loosens_the_built_in_rules() {
        let config = ExecConfig {
            deny: vec!["git push *".into()],
            allow: vec!["*".into(), "* *".into()],
            ..ExecConfig::default()
        };
        assert_eq!(
            rule_of("sudo git push origin", &config),
            Some("config-deny")
        );
        assert_eq!(rule_of("git status", &config), None);
        assert_eq!(rule_of("rm -rf /", &config), Some("recursive-delete"));
    }

    #[test]
    fn disabled_refuses_everything() {
        let config = ExecConfig {
            enabled: false,
            ..ExecConfig::default()
        };
        assert_eq!(rule_of("ls", &config), Some("disabled"));
    }

    #[test]
    fn every_folder_a_cd_may_lead_to_is_checked() {
        let config = ExecConfig::default();
        assert_eq!(
            rule_of("cd .. && rm -rf project", &config),
            Some("recursive-delete")
        );
        assert_eq!(
            rule_of("cd /; rm -rf etc", &config),
            Some("recursive-delete")
        );
        assert_eq!(
            rule_of("cd /tmp/x; rm -rf *", &config),
            Some("recursive-delete")
        );
        assert_eq!(
            rule_of("cd \"$D\" && rm -rf ../x", &config),
            Some("unresolvable")
        );
        assert_eq!(
            rule_of("cd \"$D\" && rm -rf etc", &config),
            Some("unresolvable")
        );
        assert_eq!(rule_of("cd src && rm -rf build", &config), None);
        assert_eq!(rule_of("cd \"$D\" && rm -rf build", &config), None);
    }

    #[test]
    fn system_files_processes_and_inline_code() {
        let config = ExecConfig::default();
        for (source, rule) in [
            ("> /etc/passwd", "system-file-write"),
            ("truncate -s 0 /etc/group", "system-file-write"),
            ("rm -f /bin/*", "system-file-write"),
            ("crontab -r", "system-file-write"),
            (
                "python3 -c \"open('/etc/shadow', 'w')\"",
                "system-file-write",
            ),
            (
                "python3 -c \"import shutil; shutil.rmtree('/')\"",
                "recursive-delete",
            ),
            ("rm -rf /proc/self/root/usr", "recursive-delete"),
            ("rm -rf /[u]sr", "recursive-delete"),
            ("kill -9 0", "kill-all"),
            ("pkill -9 .", "kill-all"),
            ("pkill -u root", "kill-all"),
            ("yes | xargs -P0 sh -c x", "fork-bomb"),
        ] {
            assert_eq!(rule_of(source, &config), Some(rule), "{source}");
        }
        for source in [
            ">> /etc/hosts",
            "sudo cp tool /usr/local/bin/tool",
            "truncate -s 0 app.log",
            "python3 -c \"import shutil; shutil.rmtree('build')\"",
            "pkill -f my-dev-server",
            "kill %1",
            "seq 9 | xargs -P0 echo",
        ] {
            assert_eq!(rule_of(source, &config), None, "{source}");
        }
    }

    #[test]
    fn protected_paths_depend_on_the_working_folder() {
        let config = ExecConfig::default();
        assert_eq!(rule_of("rm -rf .", &config), Some("recursive-delete"));
        assert_eq!(rule_of("rm -rf ..", &config), Some("recursive-delete"));
        assert_eq!(rule_of("rm -rf *", &config), Some("recursive-delete"));
        assert_eq!(rule_of("rm -rf target build/*", &config), None);
        assert_eq!(rule_of("rm -f *.o", &config), None);
        assert_eq!(rule_of("rm -rf \"$X\"", &config), Some("unresolvable"));
        assert_eq!(rule_of("rm -rf \"$HOME/.cache/x\"", &config), None);
    }
}
