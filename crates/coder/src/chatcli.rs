//! `coder` as ChatCLI's plugins (docs/chatcli.md): ChatCLI loads every executable of
//! `~/.chatcli/plugins/` that answers `--metadata`, runs it as `<bin> <subcommand> --flag value …`
//! in its own working folder, and reads a non-zero exit as a failed call. The same binary is
//! `@coder` under its own name and the atomic tools under `coder-read`, `coder-search`,
//! `coder-tree` and `coder-todo` (symlinks `coder chatcli install` writes): the program's name says
//! which tool it is. The argv itself is read by the one parser (`wire::argv`), as for any `coder`
//! call.

use serde_json::{json, Map, Value};
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

/// The atomic tools: ChatCLI's narrow plugins, each one method of the daemon.
pub const ATOMIC: &[&str] = &["read", "search", "tree", "todo"];

/// The entry points `install` writes: `coder` (`@coder`) and `coder-<tool>` for each atomic tool.
const PREFIX: &str = "coder-";

/// The atomic tool a program name stands for (`coder-read` → `read`), `None` for `coder` itself.
pub fn atomic_of(program: &str) -> Option<&'static str> {
    let name = Path::new(program).file_name()?.to_str()?;
    let tool = name.strip_prefix(PREFIX)?;
    ATOMIC.iter().copied().find(|t| *t == tool)
}

/// `--metadata`: what ChatCLI's plugin manager needs (`name`, `description`, `usage`,
/// `version`), for `@coder` or an atomic tool.
pub fn metadata(atomic: Option<&str>) -> Value {
    let version = env!("CARGO_PKG_VERSION");
    match atomic {
        None => json!({
            "name": "@coder",
            "description": "coderd: read, write, patch, multipatch, search, tree, outline, map, exec, test, git and checkpoints, served by a long-lived daemon that keeps files and language servers warm.",
            "usage": "@coder <read|write|patch|multipatch|tree|search|outline|map|exec|test|git-status|git-diff|git-log|git-changed|git-branch|rollback|clean|checkpoint> [--flag value ...]",
            "version": version,
        }),
        Some(tool) => json!({
            "name": format!("@{tool}"),
            "description": format!("coderd's `{tool}` as a narrow tool, flat args (JSON or --flag value)."),
            "usage": format!("@{tool} {}", example_of(tool)),
            "version": version,
        }),
    }
}

fn example_of(tool: &str) -> &'static str {
    match tool {
        "read" => r#"{"file": "main.go", "from_line": 10, "to_line": 50}"#,
        "search" => r#"{"term": "Login", "dir": "./src", "include": "*.go"}"#,
        "tree" => r#"{"dir": "./src", "depth": 3}"#,
        _ => r#"{"cmd": "list"}"#,
    }
}

/// Methods of the daemon that are not `@coder` subcommands: the daemon's own housekeeping, the
/// envelope itself, and an editor's `buffer`.
const NOT_SUBCOMMANDS: &[&str] = &["tool", "schema", "info", "shutdown", "buffer"];

/// `--schema`: ChatCLI's plugin schema (`name`, `description`, `args_format`, `subcommands` with
/// their `--flag`s), built from the daemon's `schema` answer (`methods`: name → entry).
pub fn schema(atomic: Option<&str>, methods: &Map<String, Value>) -> Value {
    let wanted = |name: &str| match atomic {
        Some(tool) => name == tool,
        None => !NOT_SUBCOMMANDS.contains(&name) && !name.contains("::"),
    };
    let subcommands: Vec<Value> = methods
        .iter()
        .filter(|(name, _)| wanted(name))
        .map(|(name, entry)| subcommand(name, entry))
        .collect();
    let meta = metadata(atomic);
    json!({
        "name": meta["name"],
        "description": meta["description"],
        "args_format": "CLI flags (`read --file main.go --start 10`), flattened from a JSON envelope as ChatCLI does: booleans bare, lists as the flag repeated, objects as JSON text",
        "subcommands": subcommands,
    })
}

fn subcommand(name: &str, entry: &Value) -> Value {
    let params = &entry["params"];
    let required: Vec<&str> = params["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let flags: Vec<Value> = params["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(key, property)| {
            let types: Vec<String> = wire::argv::param_types(params, key)
                .into_iter()
                .filter(|t| t != "null")
                .collect();
            let kind = match types.first().map(String::as_str) {
                Some("boolean") if types.len() == 1 => "bool",
                Some("integer") | Some("number") if types.len() == 1 => "int",
                Some("array") if types.len() == 1 => "array",
                _ => "string",
            };
            json!({
                "name": format!("--{}", key.replace('_', "-")),
                "type": kind,
                "description": property["description"].as_str().unwrap_or_default(),
                "required": required.contains(&key.as_str()),
            })
        })
        .collect();
    json!({
        "name": name,
        "description": entry["summary"],
        "flags": flags,
    })
}

/// Whether a successful answer reports a failed command: `exec` or `test` whose command exited
/// non-zero, died of a signal or timed out (the answer is still printed; the exit code says it
/// failed, as ChatCLI and any shell expect). A `tool` answer is judged by the call it made.
pub fn command_failed(method: &str, result: &Value) -> bool {
    match method {
        "tool" => command_failed(
            result["method"].as_str().unwrap_or_default(),
            &result["result"],
        ),
        "exec" | "test" => wire::answers::command::failed(result),
        _ => false,
    }
}

/// `coder chatcli install [--dir DIR]`: the entry points as symlinks to this binary in ChatCLI's
/// plugin folder (`$HOME/.chatcli/plugins`), and how to let ChatCLI load them.
pub fn install(args: &[String]) -> i32 {
    match install_in(args) {
        Ok(text) => {
            print!("{text}");
            0
        }
        Err(message) => {
            eprintln!("coder chatcli install: {message}");
            2
        }
    }
}

const INSTALL_USAGE: &str =
    "usage: coder chatcli install [--dir DIR]   (default DIR: $HOME/.chatcli/plugins)";

fn install_in(args: &[String]) -> Result<String, String> {
    let mut dir: Option<PathBuf> = None;
    let mut words = args.iter();
    match words.next().map(String::as_str) {
        Some("install") => {}
        _ => return Err(INSTALL_USAGE.into()),
    }
    while let Some(word) = words.next() {
        match word.as_str() {
            "--dir" => dir = Some(words.next().ok_or(INSTALL_USAGE)?.into()),
            other => return Err(format!("unexpected `{other}`\n{INSTALL_USAGE}")),
        }
    }
    let dir = match dir {
        Some(d) => d,
        None => std::env::var_os("HOME")
            .map(|h| PathBuf::from(h).join(".chatcli/plugins"))
            .ok_or("HOME is not set: give --dir")?,
    };
    let binary = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| format!("cannot find this binary: {e}"))?;
    // Private, as ChatCLI makes it: whatever lands here runs with the user's rights.
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    let names: Vec<String> = std::iter::once("coder".to_string())
        .chain(ATOMIC.iter().map(|t| format!("{PREFIX}{t}")))
        .collect();
    for name in &names {
        link(&binary, &dir.join(name))?;
    }
    Ok(instructions(&dir, &binary, &names))
}

/// A symlink at `at` to `binary`, replacing an older symlink; a regular file there is not ours
/// to replace.
fn link(binary: &Path, at: &Path) -> Result<(), String> {
    if let Ok(meta) = at.symlink_metadata() {
        if !meta.file_type().is_symlink() {
            return Err(format!(
                "{} exists and is not a symlink: move it away first",
                at.display()
            ));
        }
        std::fs::remove_file(at).map_err(|e| format!("{}: {e}", at.display()))?;
    }
    std::os::unix::fs::symlink(binary, at).map_err(|e| format!("{}: {e}", at.display()))
}

fn instructions(dir: &Path, binary: &Path, names: &[String]) -> String {
    let d = dir.display();
    let mut text = format!("installed in {d} (symlinks to {}):\n", binary.display());
    for name in names {
        let tool = atomic_of(name).map_or("@coder".to_string(), |t| format!("@{t}"));
        text.push_str(&format!("  {name:<14} {tool}\n"));
    }
    text.push_str(&format!(
        "\nChatCLI loads a plugin only when it is signed by a trusted key, or when unsigned plugins are
allowed. Either allow them (development):
  export CHATCLI_ALLOW_UNSIGNED_PLUGINS=true
or sign the binary once (Ed25519 over its SHA-256; every entry point is the same binary):
  mkdir -p ~/.chatcli/trusted-keys
  openssl genpkey -algorithm ed25519 -out ~/.chatcli/coder-signing.pem
  openssl pkey -in ~/.chatcli/coder-signing.pem -pubout -out ~/.chatcli/trusted-keys/coder.pub
  openssl dgst -sha256 -binary {b} > /tmp/coder.sha256
  openssl pkeyutl -sign -rawin -inkey ~/.chatcli/coder-signing.pem -in /tmp/coder.sha256 \\
    | base64 -w0 > {d}/coder.sig
  for n in {atomic}; do cp {d}/coder.sig {d}/$n.sig; done
Sign again after each upgrade of coder (the signature covers the binary's bytes).
Remove an entry point to keep ChatCLI's builtin tool of that name (docs/chatcli.md).
",
        b = binary.display(),
        atomic = names[1..].join(" "),
    ));
    text.push_str(KEEP_ON_CODERD);
    text
}

/// What ChatCLI needs so the work reaches coderd and reads stay unprompted (docs/chatcli.md).
/// Printed, not set: both are the user's ChatCLI settings, and writing its policy file before
/// ChatCLI first runs would replace the default rules it writes then.
const KEEP_ON_CODERD: &str = "
ChatCLI's multi-agent mode (on by default) hands delegated work to its builtin engine, which
never calls a plugin. Keep every call on coderd:
  export CHATCLI_AGENT_PARALLEL_MODE=false
A plugin cannot declare itself read-only to ChatCLI (only its builtins can), so @read, @search
and @tree would ask before each call; its policy rules allow them as its builtins were:
  /config security allow \"@read\"
  /config security allow \"@search\"
  /config security allow \"@tree\"
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_name_says_which_tool() {
        assert_eq!(
            atomic_of("/home/u/.chatcli/plugins/coder-read"),
            Some("read")
        );
        assert_eq!(atomic_of("coder-todo"), Some("todo"));
        assert_eq!(atomic_of("coder"), None);
        assert_eq!(atomic_of("coder-write"), None);
    }

    #[test]
    fn the_schema_has_chatclis_shape() {
        let methods = json!({
            "read": {"summary": "Read a file.", "params": {"type": "object", "required": ["file"],
                "properties": {"file": {"type": "string", "description": "The file."},
                    "max_bytes": {"type": ["integer", "null"]}, "numbered": {"type": "boolean"}}}},
            "shutdown": {"summary": "Stop.", "params": {}},
            "coder::read": {"summary": "Read.", "params": {}},
        });
        let methods = methods.as_object().unwrap();
        let coder = schema(None, methods);
        assert_eq!(coder["name"], "@coder");
        let subcommands = coder["subcommands"].as_array().unwrap();
        assert_eq!(subcommands.len(), 1, "{coder}");
        assert_eq!(
            subcommands[0]["flags"],
            json!([
                {"name": "--file", "type": "string", "description": "The file.", "required": true},
                {"name": "--max-bytes", "type": "int", "description": "", "required": false},
                {"name": "--numbered", "type": "bool", "description": "", "required": false},
            ])
        );
        assert_eq!(schema(Some("read"), methods)["name"], "@read");
    }

    #[test]
    fn a_failed_command_is_a_failed_call_even_inside_tool() {
        assert!(command_failed("exec", &json!({"exit_code": 3})));
        assert!(command_failed(
            "test",
            &json!({"exit_code": null, "signal": 9})
        ));
        assert!(command_failed(
            "exec",
            &json!({"exit_code": 0, "timed_out": true})
        ));
        assert!(!command_failed(
            "exec",
            &json!({"exit_code": 0, "signal": null})
        ));
        assert!(!command_failed("exec", &json!({"decision": "allow"})));
        let inner = json!({"method": "exec", "result": {"exit_code": 1}});
        assert!(command_failed("tool", &inner));
        assert!(!command_failed("read", &json!({"exit_code": 1})));
    }
}
