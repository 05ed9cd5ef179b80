//! The language-server definitions: the built-in ones (`data/servers.toml`, compiled into the
//! binary and parsed once), the `Registry` in force once the config's `lsp.servers` and
//! `lsp.languages` are applied, and where a server's command is found (PATH, then the folder the
//! install script fills).

pub use coderd_core::config::lsp::{PullVia, ServerDef, Trust};
use coderd_core::config::LspConfig;
use coderd_syntax::languages::{self, Language};
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ServersFile {
    server: Vec<ServerDef>,
}

static SERVERS: LazyLock<Vec<ServerDef>> = LazyLock::new(|| {
    let file: ServersFile = toml::from_str(include_str!("../../../data/servers.toml"))
        .expect("data/servers.toml is checked by the servers_parse test");
    file.server
});

/// Every built-in server, in file order.
pub fn built_in() -> &'static [ServerDef] {
    &SERVERS
}

/// The servers in force: the built-in definitions, each replaced by a config server of the same
/// name, then the config's new ones; and which of them serve each language.
#[derive(Debug, Default)]
pub struct Registry {
    trust: Trust,
    defs: Vec<Arc<ServerDef>>,
    by_language: HashMap<String, Vec<Arc<ServerDef>>>,
}

impl Registry {
    /// Applies the config to the built-in servers. A language's servers are the ones
    /// `lsp.languages` names for it, else every server in force that lists the language and is
    /// not `opt_in` (built-in ones in file order, then the config's). Errors name the config key.
    /// Under `lsp.trust: untrusted` every definition has its `untrusted` table merged in (so a
    /// change of trust is a change of definition: its running instances are replaced).
    pub fn new(config: &LspConfig) -> Result<Registry, String> {
        let mut registry = Registry::defined(config)?;
        registry.trust = config.trust;
        if config.trust == Trust::Untrusted {
            for def in registry.defs.iter_mut() {
                *def = Arc::new(untrusted(def));
            }
            for chosen in registry.by_language.values_mut() {
                for def in chosen.iter_mut() {
                    *def = Arc::new(untrusted(def));
                }
            }
        }
        Ok(registry)
    }

    fn defined(config: &LspConfig) -> Result<Registry, String> {
        let mut defs: Vec<Arc<ServerDef>> = built_in().iter().cloned().map(Arc::new).collect();
        for (i, server) in config.servers.iter().enumerate() {
            check_server(i, server)?;
            if config.servers[..i].iter().any(|s| s.name == server.name) {
                return Err(format!(
                    "`lsp.servers[{i}]`: a second server named `{}`",
                    server.name
                ));
            }
            match defs.iter().position(|d| d.name == server.name) {
                Some(j) => defs[j] = Arc::new(server.clone()),
                None => defs.push(Arc::new(server.clone())),
            }
        }
        if let Some(unknown) = config
            .languages
            .keys()
            .find(|l| languages::by_name(l).is_none())
        {
            return Err(format!(
                "`lsp.languages.{unknown}`: no language is named so"
            ));
        }
        let mut by_language = HashMap::new();
        for language in languages::all() {
            let chosen = match config.languages.get(&language.name) {
                Some(names) => chosen_servers(&language.name, names, &defs)?,
                None => default_servers(language, &defs),
            };
            by_language.insert(language.name.clone(), chosen);
        }
        Ok(Registry {
            trust: Trust::Trusted,
            defs,
            by_language,
        })
    }

    /// Every server in force: the built-in ones in file order, then the config's new ones.
    pub fn all(&self) -> &[Arc<ServerDef>] {
        &self.defs
    }

    /// The servers to run for a language, in order.
    pub fn for_language(&self, language: &Language) -> &[Arc<ServerDef>] {
        self.by_language
            .get(&language.name)
            .map_or(&[], Vec::as_slice)
    }

    pub fn by_name(&self, name: &str) -> Option<&Arc<ServerDef>> {
        self.defs.iter().find(|d| d.name == name)
    }

    /// The `lsp.trust` the definitions were made for.
    pub fn trust(&self) -> Trust {
        self.trust
    }

    /// Whether `def` is a built-in definition (as this trust level has it).
    pub fn is_built_in(&self, def: &ServerDef) -> bool {
        built_in().iter().any(|b| match self.trust {
            Trust::Trusted => b == def,
            Trust::Untrusted => untrusted(b) == *def,
        })
    }

    /// What this trust level switched off in `def`, in words.
    pub fn switched_off<'a>(&self, def: &'a ServerDef) -> &'a [String] {
        match (self.trust, &def.untrusted) {
            (Trust::Untrusted, Some(overlay)) => &overlay.switched_off,
            _ => &[],
        }
    }
}

/// A definition with its `untrusted` table merged in.
fn untrusted(def: &ServerDef) -> ServerDef {
    let mut def = def.clone();
    let Some(overlay) = def.untrusted.clone() else {
        return def;
    };
    merge(
        &mut def.initialization_options,
        overlay.initialization_options,
    );
    merge(&mut def.settings, overlay.settings);
    def.env.extend(overlay.env);
    if overlay.no_checks {
        def.check_progress = None;
    }
    def
}

/// `overlay` merged into `base`, objects key by key, anything else replaced.
fn merge(base: &mut Option<Value>, overlay: Option<Value>) {
    fn into(base: &mut Value, overlay: Value) {
        match (base, overlay) {
            (Value::Object(base), Value::Object(overlay)) => {
                for (key, value) in overlay {
                    into(base.entry(key).or_insert(Value::Null), value);
                }
            }
            (base, overlay) => *base = overlay,
        }
    }
    if let Some(overlay) = overlay {
        into(base.get_or_insert(Value::Null), overlay);
    }
}

fn check_server(i: usize, server: &ServerDef) -> Result<(), String> {
    if server.name.trim().is_empty() {
        return Err(format!("`lsp.servers[{i}].name` is empty"));
    }
    if server.command.trim().is_empty() {
        return Err(format!("`lsp.servers[{i}].command` is empty"));
    }
    if server.languages.is_empty() {
        return Err(format!(
            "`lsp.servers[{i}].languages` is empty: name the languages `{}` serves",
            server.name
        ));
    }
    if server.project_only && server.root_markers.is_empty() {
        return Err(format!(
            "`lsp.servers[{i}].project_only` needs `root_markers`: the files that make a project"
        ));
    }
    for (k, language) in server.languages.iter().enumerate() {
        if languages::by_name(language).is_none() {
            return Err(format!(
                "`lsp.servers[{i}].languages[{k}]`: no language is named `{language}`"
            ));
        }
    }
    Ok(())
}

/// The servers `lsp.languages` names for a language, each defined (built in or in `lsp.servers`).
fn chosen_servers(
    language: &str,
    names: &[String],
    defs: &[Arc<ServerDef>],
) -> Result<Vec<Arc<ServerDef>>, String> {
    names
        .iter()
        .enumerate()
        .map(|(k, name)| {
            defs.iter()
                .find(|d| &d.name == name)
                .cloned()
                .ok_or_else(|| {
                    let known: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
                    format!(
                    "`lsp.languages.{language}[{k}]`: no server is named `{name}` (defined: {})",
                    known.join(", ")
                )
                })
        })
        .collect()
}

/// A language's servers when the config does not choose them: those that list it and are not
/// `opt_in`, in the order of `defs` (a config server replacing a built-in one takes its place).
fn default_servers(language: &Language, defs: &[Arc<ServerDef>]) -> Vec<Arc<ServerDef>> {
    defs.iter()
        .filter(|d| !d.opt_in && d.languages.contains(&language.name))
        .cloned()
        .collect()
}

/// The folder `scripts/install-language-servers.sh` installs into; its `bin/` is searched after PATH.
pub fn install_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CODERD_SERVERS_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    Some(wire::paths::data_dir()?.join("servers"))
}

/// The executable to start: the command itself when it has a slash, else the first match in
/// `$CODERD_SERVERS_PATH` (default `$PATH`), then in the install folder's `bin/`. `None` means
/// the server is unavailable. (Test daemons set both to empty folders: a rustup proxy in PATH
/// would otherwise start rust-analyzer for every `.rs` fixture they edit.)
pub fn executable(def: &ServerDef) -> Option<PathBuf> {
    let command = Path::new(&def.command);
    if def.command.contains('/') {
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

    fn by_name(name: &str) -> Option<&'static ServerDef> {
        built_in().iter().find(|s| s.name == name)
    }

    #[test]
    fn servers_parse_and_serve_known_languages() {
        assert!(built_in().len() >= 6);
        for def in built_in() {
            assert!(!def.install.is_empty(), "{}: no install hint", def.name);
            for language in &def.languages {
                assert!(
                    languages::by_name(language).is_some(),
                    "{}: no language is named {language}",
                    def.name
                );
            }
        }
        // The link is written once, in data/servers.toml: python's servers are those that list
        // it, ty (opt-in) left out until `lsp.languages` names it.
        let registry = Registry::new(&LspConfig::default()).unwrap();
        assert_eq!(names(&registry, "python"), ["pyright", "ruff"]);
        let chosen = Registry::new(&config("languages: {python: [ty]}")).unwrap();
        assert_eq!(names(&chosen, "python"), ["ty"]);
    }

    fn config(yaml: &str) -> LspConfig {
        serde_norway::from_str(yaml).unwrap()
    }

    fn names(registry: &Registry, language: &str) -> Vec<String> {
        let language = languages::by_name(language).unwrap();
        registry
            .for_language(language)
            .iter()
            .map(|d| d.name.clone())
            .collect()
    }

    #[test]
    fn config_servers_add_replace_and_choose() {
        let registry = Registry::new(&config(
            "servers:\n\
             - {name: ruby-lsp, command: ruby-lsp, languages: [ruby]}\n\
             - {name: ruff, command: /opt/ruff, args: [server], languages: [python]}\n\
             languages: {go: [], c: [clangd, ruby-lsp]}",
        ))
        .unwrap();
        assert_eq!(names(&registry, "ruby"), ["ruby-lsp"]);
        assert_eq!(names(&registry, "python"), ["pyright", "ruff"]);
        assert_eq!(registry.by_name("ruff").unwrap().command, "/opt/ruff");
        assert!(names(&registry, "go").is_empty());
        assert_eq!(names(&registry, "c"), ["clangd", "ruby-lsp"]);
        assert_eq!(names(&registry, "rust"), ["rust-analyzer"]);
        assert_eq!(registry.all().len(), built_in().len() + 1);
    }

    #[test]
    fn config_server_errors_name_the_key() {
        let cases = [
            ("servers: [{name: x, command: x, languages: [cobol]}]", "`lsp.servers[0].languages[0]`"),
            ("servers: [{name: x, command: '', languages: [go]}]", "`lsp.servers[0].command`"),
            ("servers: [{name: x, command: x, languages: []}]", "`lsp.servers[0].languages`"),
            (
                "servers: [{name: x, command: x, languages: [go], project_only: true}]",
                "`lsp.servers[0].project_only`",
            ),
            (
                "servers: [{name: x, command: x, languages: [go]}, {name: x, command: y, languages: [go]}]",
                "`lsp.servers[1]`",
            ),
            ("languages: {go: [gopls, nope]}", "`lsp.languages.go[1]`"),
            ("languages: {cobol: []}", "`lsp.languages.cobol`"),
        ];
        for (yaml, key) in cases {
            let err = Registry::new(&config(yaml)).unwrap_err();
            assert!(err.contains(key), "{yaml}: {err}");
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

    #[test]
    fn untrusted_tables_merge_into_the_definitions_and_trusted_leaves_them() {
        let untrusted = Registry::new(&LspConfig::default()).unwrap();
        let ra = untrusted.by_name("rust-analyzer").unwrap();
        let options = ra.initialization_options.as_ref().unwrap();
        assert_eq!(options["checkOnSave"], json!(false));
        assert_eq!(options["cargo"]["buildScripts"]["enable"], json!(false));
        assert_eq!(options["procMacro"]["enable"], json!(false));
        assert_eq!(options["cachePriming"]["enable"], json!(false), "kept");
        assert_eq!(
            ra.setting(Some("rust-analyzer.procMacro.enable")),
            json!(false)
        );
        assert_eq!(ra.check_progress, None);
        assert_eq!(ra.env["CARGO_NET_OFFLINE"], "true");
        assert!(untrusted.is_built_in(ra));
        assert!(!untrusted.switched_off(ra).is_empty());
        let gopls = untrusted.by_name("gopls").unwrap();
        assert_eq!(gopls.env["GOTOOLCHAIN"], "local");
        assert_eq!(gopls.env["CGO_ENABLED"], "0");
        let rust = languages::by_name("rust").unwrap();
        assert_eq!(*untrusted.for_language(rust)[0], **ra);

        let trusted = Registry::new(&config("trust: trusted")).unwrap();
        let ra = trusted.by_name("rust-analyzer").unwrap();
        assert_eq!(**ra, *by_name("rust-analyzer").unwrap());
        assert!(ra.check_progress.is_some());
        assert!(trusted.switched_off(ra).is_empty());
        assert!(trusted.is_built_in(ra));
        let tsls = trusted.by_name("typescript-language-server").unwrap();
        assert!(tsls.bundled_typescript, "trusted or not");
    }
}
