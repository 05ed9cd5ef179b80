//! A language server's root for a file: the outermost project that holds the file, so one server
//! serves a whole workspace (a Cargo workspace's member crates, a `go.work`'s modules, a Python
//! monorepo) rather than one process per crate or module.
//!
//! Walking up from the file's folder to its workspace root, a folder with one of the markers is a
//! candidate, and the outermost one that holds the file wins. What "holds" means follows the
//! build tools: Cargo's search for a workspace stops at the first `Cargo.toml` with a
//! `[workspace]` table (an outer `Cargo.toml` without one is another package, not a parent); a
//! Go module ends at its nearest `go.mod` (an outer module does not hold a nested one), and the
//! first `go.work` above holds the file only when it `use`s a folder holding it. Other markers
//! (`pyproject.toml`, `package.json`, `compile_commands.json`, ...) hold everything below them.

use crate::servers::ServerDef;
use coderd_core::workspace::Workspace;
use coderd_syntax::languages::Language;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The root of a server for a file: the outermost project holding it by the server's markers,
/// else by the language's, else the workspace root.
pub fn root_for(state: &Workspace, def: &ServerDef, language: &Language, path: &Path) -> PathBuf {
    marker_root(state, &def.root_markers, path)
        .or_else(|| marker_root(state, &language.root_markers, path))
        .or_else(|| workspace_root(state, path))
        .unwrap_or_else(|| path.parent().unwrap_or(path).to_path_buf())
}

/// For a `project_only` server, the root of the file's project: the outermost project within
/// the workspace root, or the workspace root itself when a marker lies above it (a workspace
/// rooted at a crate's `src/`: rust-analyzer looks for `Cargo.toml` in the parents of its root);
/// `None` outside any project.
pub fn project_root(state: &Workspace, def: &ServerDef, path: &Path) -> Option<PathBuf> {
    marker_root(state, &def.root_markers, path).or_else(|| {
        let root = workspace_root(state, path)?;
        // Outside the jail, but only whether a marker file exists, and only for the server,
        // which reads there itself; nothing of it reaches a caller.
        let above = root
            .ancestors()
            .skip(1)
            .any(|dir| def.root_markers.iter().any(|m| dir.join(m).is_file()));
        above.then_some(root)
    })
}

/// The workspace root (`--root`) the file lies in.
pub fn workspace_root(state: &Workspace, path: &Path) -> Option<PathBuf> {
    let resolved = state.jail.locate(path)?;
    Some(state.jail.roots()[resolved.root].path.clone())
}

/// What has been decided, per build tool, walking up: a tool whose search has ended adds no
/// candidate any more.
#[derive(Default)]
struct Walk {
    cargo_package: bool,
    cargo_done: bool,
    go_module: Option<PathBuf>,
    go_work_done: bool,
}

/// The outermost folder holding one of `markers` that holds the file, from the file's folder up
/// to its workspace root.
fn marker_root(state: &Workspace, markers: &[String], path: &Path) -> Option<PathBuf> {
    let root = workspace_root(state, path)?;
    let mut walk = Walk::default();
    let mut found = None;
    let mut dir = path.parent();
    while let Some(folder) = dir.filter(|d| d.starts_with(&root)) {
        let mut holds = false;
        for marker in markers {
            let Some(text) = read_marker(state, &folder.join(marker)) else {
                continue;
            };
            holds |= walk.holds(marker, folder, path, text.as_deref().unwrap_or(""));
        }
        if holds {
            found = Some(folder.to_path_buf());
        }
        dir = folder.parent();
    }
    found
}

impl Walk {
    /// Whether `marker` (present in `folder`, with `text`) makes `folder` a project holding `file`.
    fn holds(&mut self, marker: &str, folder: &Path, file: &Path, text: &str) -> bool {
        match marker {
            "Cargo.toml" => {
                if self.cargo_done {
                    return false;
                }
                let workspace = is_cargo_workspace(text);
                let nearest = !self.cargo_package;
                self.cargo_package = true;
                self.cargo_done = workspace;
                nearest || workspace
            }
            "go.mod" => match self.go_module {
                Some(_) => false,
                None => {
                    self.go_module = Some(folder.to_path_buf());
                    true
                }
            },
            "go.work" => {
                if std::mem::replace(&mut self.go_work_done, true) {
                    return false;
                }
                let module = self.go_module.as_deref().unwrap_or(file);
                go_work_uses(text).iter().any(|used| {
                    module.starts_with(coderd_core::jail::lexical_normalize(&folder.join(used)))
                })
            }
            _ => true,
        }
    }
}

/// Whether a `Cargo.toml` text declares a workspace: a `[workspace]` table or one of its
/// sub-tables (`[workspace.dependencies]`), each a line of its own as Cargo writes them.
fn is_cargo_workspace(text: &str) -> bool {
    text.lines().any(|line| {
        let table = line
            .trim()
            .strip_prefix('[')
            .and_then(|r| r.split(']').next());
        table.is_some_and(|t| {
            let t = t.trim();
            t == "workspace" || t.starts_with("workspace.")
        })
    })
}

/// The folders a `go.work` file `use`s: `use ./a` and `use ( ./a \n ./b )`.
fn go_work_uses(text: &str) -> Vec<String> {
    let mut uses = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("").trim();
        if in_block {
            match line {
                ")" => in_block = false,
                "" => {}
                dir => uses.push(dir.trim_matches('"').to_string()),
            }
        } else if let Some(rest) = line.strip_prefix("use") {
            match rest.trim() {
                "(" => in_block = true,
                dir if !dir.is_empty() && rest.starts_with([' ', '\t']) => {
                    uses.push(dir.trim_matches('"').to_string())
                }
                _ => {}
            }
        }
    }
    uses
}

/// Whether a marker file is there (`None` when not, or not visible in the jail), with its text
/// when what it holds depends on it (`Cargo.toml`, `go.work`; at most 64 KiB).
fn read_marker(state: &Workspace, path: &Path) -> Option<Option<String>> {
    let resolved = state.jail.locate(path)?;
    let needs_text = path.ends_with("Cargo.toml") || path.ends_with("go.work");
    if !needs_text {
        return state.jail.metadata(&resolved).ok().map(|_| None);
    }
    let (file, _) = state.jail.open_file(&resolved).ok()?;
    let mut bytes = Vec::new();
    file.take(64 * 1024).read_to_end(&mut bytes).ok()?;
    Some(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_work_use_directives_are_read_in_both_forms() {
        let text = "go 1.22\n\nuse ./a\nuse (\n\t./b // the second\n\t\"./c\"\n)\n";
        assert_eq!(go_work_uses(text), ["./a", "./b", "./c"]);
        assert!(go_work_uses("module x\nuser y\n").is_empty());
    }

    #[test]
    fn a_workspace_is_its_table_or_a_sub_table() {
        assert!(is_cargo_workspace(
            "[package]\nname='a'\n\n[workspace]\nmembers=[]\n"
        ));
        assert!(is_cargo_workspace("[workspace.dependencies]\n"));
        assert!(!is_cargo_workspace("[package]\nworkspace = '..'\n"));
        assert!(!is_cargo_workspace("[workspaces]\n"));
    }
}
