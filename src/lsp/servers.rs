//! The language-server definitions: `grammars/servers.toml`, compiled into the binary and parsed
//! once, and where their commands are found (PATH, then the folder the install script fills).

use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

/// One `[[server]]` of `grammars/servers.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerDef {
    pub name: String,
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    pub languages: Vec<String>,
    #[serde(default)]
    pub root_markers: Vec<String>,
    #[serde(default)]
    pub initialization_options: Option<Value>,
    /// What `workspace/configuration` is answered with.
    #[serde(default)]
    pub settings: Option<Value>,
    pub install: String,
    /// How to get a document's current diagnostics besides the LSP ways (see `tsserver`).
    #[serde(default)]
    pub pull: Option<PullVia>,
    /// The server reports whether it has loaded its workspace (`experimental/serverStatus`,
    /// `quiescent`): it counts as busy from its start until it says so, since its first answers
    /// can come before any loading progress opens and would read as "clean".
    #[serde(default)]
    pub quiescent_status: bool,
    /// A publish stamped with a document's version is the whole set for that version (clangd
    /// publishes once per build): it is current at once, without the quiet period that guards
    /// servers publishing a version in several steps.
    #[serde(default)]
    pub final_publish: bool,
}

/// A server-specific way to ask for a document's current diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PullVia {
    /// typescript-language-server's `typescript.tsserverRequest` command.
    TsserverRequest,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ServersFile {
    server: Vec<ServerDef>,
}

static SERVERS: LazyLock<Vec<ServerDef>> = LazyLock::new(|| {
    let file: ServersFile = toml::from_str(include_str!("../../grammars/servers.toml"))
        .expect("grammars/servers.toml is checked by the servers_parse test");
    file.server
});

/// Every defined server, in file order.
pub fn all() -> &'static [ServerDef] {
    &SERVERS
}

pub fn by_name(name: &str) -> Option<&'static ServerDef> {
    SERVERS.iter().find(|s| s.name == name)
}

/// The servers a language lists, in its order (names without a definition are skipped; the
/// registry test refuses them).
pub fn for_language(language: &crate::syntax::languages::Language) -> Vec<&'static ServerDef> {
    language.servers.iter().filter_map(|n| by_name(n)).collect()
}

/// The folder `scripts/install-language-servers.sh` installs into; its `bin/` is searched after PATH.
pub fn install_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CODERD_SERVERS_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let data = match std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME")?).join(".local/share"),
    };
    Some(data.join("coderd/servers"))
}

impl ServerDef {
    /// The executable to start: the command itself when it has a slash, else the first match in
    /// `$CODERD_SERVERS_PATH` (default `$PATH`), then in the install folder's `bin/`. `None` means
    /// the server is unavailable. (Test daemons set both to empty folders: a rustup proxy in PATH
    /// would otherwise start rust-analyzer for every `.rs` fixture they edit.)
    pub fn executable(&self) -> Option<PathBuf> {
        let command = Path::new(&self.command);
        if self.command.contains('/') {
            return is_executable(command).then(|| command.to_path_buf());
        }
        let path = std::env::var_os("CODERD_SERVERS_PATH")
            .or_else(|| std::env::var_os("PATH"))
            .unwrap_or_default();
        std::env::split_paths(&path)
            .chain(install_dir().map(|d| d.join("bin")))
            .map(|dir| dir.join(command))
            .find(|candidate| is_executable(candidate) && !is_empty_rustup_proxy(candidate))
    }

    /// The answer to one `workspace/configuration` item: the settings under its dotted `section`
    /// (null when absent), or all of them.
    pub fn setting(&self, section: Option<&str>) -> Value {
        let Some(settings) = &self.settings else {
            return Value::Null;
        };
        let Some(section) = section.filter(|s| !s.is_empty()) else {
            return settings.clone();
        };
        section
            .split('.')
            .try_fold(settings, |value, key| value.get(key))
            .cloned()
            .unwrap_or(Value::Null)
    }
}

/// Whether `candidate` is a rustup proxy (the `rustup` binary under another name, as in
/// ~/.cargo/bin) for a component no installed toolchain has: it only prints "Unknown binary", so
/// the server counts as unavailable rather than crashing at every start.
fn is_empty_rustup_proxy(candidate: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Some(dir) = candidate.parent() else {
        return false;
    };
    let same_file = match (
        std::fs::metadata(candidate),
        std::fs::metadata(dir.join("rustup")),
    ) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    };
    if !same_file {
        return false;
    }
    let rustup_home = std::env::var_os("RUSTUP_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".rustup")));
    let Some(toolchains) = rustup_home.map(|h| h.join("toolchains")) else {
        return false;
    };
    let Some(name) = candidate.file_name() else {
        return false;
    };
    let installed = std::fs::read_dir(toolchains)
        .into_iter()
        .flatten()
        .flatten()
        .any(|toolchain| is_executable(&toolchain.path().join("bin").join(name)));
    !installed
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn servers_parse_and_every_language_names_defined_servers_that_serve_it() {
        assert!(all().len() >= 6);
        for language in crate::syntax::languages::all() {
            for name in &language.servers {
                let def = by_name(name)
                    .unwrap_or_else(|| panic!("{}: unknown server {name}", language.name));
                assert!(
                    def.languages.contains(&language.name),
                    "{name} does not list {}",
                    language.name
                );
            }
        }
    }

    #[test]
    fn configuration_sections_pick_dotted_paths() {
        let pyright = by_name("pyright").unwrap();
        assert_eq!(
            pyright.setting(Some("python.analysis.diagnosticMode")),
            json!("openFilesOnly")
        );
        assert_eq!(pyright.setting(Some("python.nothing")), Value::Null);
        assert!(pyright.setting(None).get("python").is_some());
        assert_eq!(
            by_name("gopls").unwrap().setting(Some("gopls")),
            Value::Null
        );
    }
}
