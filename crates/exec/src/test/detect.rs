//! Which test command a folder uses: the markers are looked for in the folder, then each parent
//! up to the workspace root, and the nearest folder with any marker decides. Within one folder
//! the order below decides (a Go module inside a Node repository tests as Go there).

use std::path::{Path, PathBuf};

/// Test frameworks by the name the result reports: the wire's type.
pub use wire::answers::command::Framework;

/// A detected test command: the framework, the argv, and the folder it runs in.
#[derive(Debug)]
pub struct Detected {
    pub framework: Framework,
    pub argv: Vec<String>,
    pub folder: PathBuf,
}

/// Marker files, for the "nothing detected" message.
pub const LOOKED_FOR: &str = "go.mod, Cargo.toml, pyproject.toml, pytest.ini, setup.cfg, tox.ini, \
     package.json, pom.xml, build.gradle(.kts), Makefile with a `test:` target, *.csproj/*.sln, \
     mix.exs, Gemfile with spec/";

/// What a `pattern` selects, as ChatCLI's `test` means it: a glob of test files (a wildcard and a
/// file extension in its last part: `*_test.go`, `tests/test_*.py`) selects files; anything else
/// (`TestLogin`, `Test.*Login`, `^TestA$`) is a filter of test names, the framework's own.
#[derive(Debug, PartialEq)]
pub enum Selection<'a> {
    All,
    Names(&'a str),
    /// A glob of test files: its folder part (relative to `dir`, maybe empty) and its file name.
    Files {
        folder: &'a str,
        name: &'a str,
    },
}

impl<'a> Selection<'a> {
    pub fn of(pattern: Option<&'a str>) -> Selection<'a> {
        let Some(pattern) = pattern else {
            return Selection::All;
        };
        let (folder, name) = pattern.rsplit_once('/').unwrap_or(("", pattern));
        let wild = pattern.contains(['*', '?', '[']);
        let extension = name.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty() && !ext.is_empty() && ext.chars().all(|c| c.is_ascii_alphanumeric())
        });
        match wild && extension {
            true => Selection::Files { folder, name },
            false => Selection::Names(pattern),
        }
    }

    /// The name filter the framework's command gets.
    pub fn names(&self) -> Option<&'a str> {
        match self {
            Selection::Names(names) => Some(names),
            _ => None,
        }
    }
}

/// Narrows a detected command to what `start` and the selection name, as ChatCLI runs its tests
/// in `--dir`: Go tests the packages under `start` (`./pkg/...`, or the folders a file glob
/// names: Go runs whole packages), pytest the folder or the files a glob names (`-o
/// python_files=`). Other frameworks run their project's tests (their marker's folder: a crate, a
/// package.json), and take no file glob.
pub fn scope(detected: &mut Detected, start: &Path, selection: &Selection) -> Result<(), String> {
    let rel = start
        .strip_prefix(&detected.folder)
        .unwrap_or(Path::new(""));
    let rel = rel.to_string_lossy().into_owned();
    let folder = match selection {
        Selection::Files { folder, .. } => *folder,
        _ => "",
    };
    if folder.starts_with('/') || folder.split('/').any(|c| c == "..") {
        return Err(format!(
            "the glob's folder `{folder}` must stay below `dir`"
        ));
    }
    let joined = [rel.as_str(), folder]
        .iter()
        .filter(|p| !p.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("/");
    match (detected.framework, selection) {
        (Framework::Go, _) => {
            // The literal folders, then `...` for everything below (a `**` or any wildcard).
            let literal: Vec<&str> = joined
                .split('/')
                .take_while(|c| !c.is_empty() && !c.contains(['*', '?', '[']))
                .collect();
            let below = literal.len() < joined.split('/').filter(|c| !c.is_empty()).count()
                || !matches!(selection, Selection::Files { .. })
                || folder.is_empty();
            let mut packages = std::iter::once(".")
                .chain(literal)
                .collect::<Vec<_>>()
                .join("/");
            if below {
                packages.push_str("/...");
            }
            for word in detected.argv.iter_mut().filter(|w| w.as_str() == "./...") {
                word.clone_from(&packages);
            }
        }
        (Framework::Pytest, _) => {
            if let Selection::Files { name, .. } = selection {
                detected
                    .argv
                    .extend(["-o".into(), format!("python_files={name}")]);
            }
            if !joined.is_empty() {
                detected.argv.push(joined);
            }
        }
        (framework, Selection::Files { .. }) => {
            return Err(format!(
                "a glob of test files selects go packages or pytest files; {framework:?} takes \
                 a test name filter"
            ))
        }
        _ => {}
    }
    Ok(())
}

/// Looks from `start` up to `root` (inclusive) for a test setup; `pattern` narrows the tests.
pub fn detect(start: &Path, root: &Path, pattern: Option<&str>) -> Option<Detected> {
    let mut folder = start.to_path_buf();
    loop {
        if let Some(found) = detect_in(&folder, pattern) {
            return Some(found);
        }
        if folder == root || !folder.pop() || !folder.starts_with(root) {
            return None;
        }
    }
}

fn detect_in(folder: &Path, pattern: Option<&str>) -> Option<Detected> {
    let has = |name: &str| folder.join(name).is_file();
    let argv = |framework: Framework, words: &[&str], filter: &[&str]| {
        let mut argv: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        if let Some(pattern) = pattern {
            argv.extend(filter.iter().map(|f| f.replace("{}", pattern)));
        }
        Some(Detected {
            framework,
            argv,
            folder: folder.to_path_buf(),
        })
    };
    if has("go.mod") {
        return argv(
            Framework::Go,
            &["go", "test", "-v", "./..."],
            &["-run", "{}"],
        );
    }
    if has("Cargo.toml") {
        return argv(Framework::Cargo, &["cargo", "test"], &["{}"]);
    }
    if ["pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini"]
        .iter()
        .any(|m| has(m))
    {
        return argv(
            Framework::Pytest,
            &["python3", "-m", "pytest", "-q"],
            &["-k", "{}"],
        );
    }
    if has("package.json") {
        return node(folder, pattern);
    }
    if has("pom.xml") {
        return argv(Framework::Maven, &["mvn", "-q", "test"], &["-Dtest={}"]);
    }
    if has("build.gradle") || has("build.gradle.kts") {
        let gradle = if has("gradlew") {
            "./gradlew"
        } else {
            "gradle"
        };
        return argv(Framework::Gradle, &[gradle, "test"], &["--tests", "{}"]);
    }
    if has("Makefile") && makefile_has_test_target(&folder.join("Makefile")) {
        return argv(Framework::Make, &["make", "test"], &["TEST={}"]);
    }
    if has_extension(folder, &["csproj", "sln"]) {
        return argv(Framework::Dotnet, &["dotnet", "test"], &["--filter", "{}"]);
    }
    if has("mix.exs") {
        return argv(Framework::Mix, &["mix", "test"], &["--only", "test:{}"]);
    }
    if has("Gemfile") && folder.join("spec").is_dir() {
        return argv(
            Framework::Rspec,
            &["bundle", "exec", "rspec"],
            &["-e", "{}"],
        );
    }
    None
}

/// The package manager (by lockfile) running the `test` script, with the name filter of the
/// runner the script uses (jest and vitest `-t`, mocha `--grep`, node's `--test-name-pattern`).
fn node(folder: &Path, pattern: Option<&str>) -> Option<Detected> {
    let has = |name: &str| folder.join(name).is_file();
    let (framework, program) = if has("pnpm-lock.yaml") {
        (Framework::Pnpm, "pnpm")
    } else if has("yarn.lock") {
        (Framework::Yarn, "yarn")
    } else if has("bun.lockb") || has("bun.lock") {
        (Framework::Bun, "bun")
    } else {
        (Framework::Npm, "npm")
    };
    let mut argv = vec![program.to_string()];
    argv.push(
        if framework == Framework::Bun {
            "run"
        } else {
            "test"
        }
        .into(),
    );
    if framework == Framework::Bun {
        argv.push("test".into());
    }
    if let Some(pattern) = pattern {
        let script = test_script(&folder.join("package.json")).unwrap_or_default();
        if framework == Framework::Npm {
            argv.push("--".into());
        }
        if script.contains("mocha") {
            argv.extend(["--grep".to_string(), pattern.to_string()]);
        } else if script.contains("node --test") || script.contains("node  --test") {
            argv.push(format!("--test-name-pattern={pattern}"));
        } else {
            argv.extend(["-t".to_string(), pattern.to_string()]);
        }
    }
    Some(Detected {
        framework,
        argv,
        folder: folder.to_path_buf(),
    })
}

fn test_script(package_json: &Path) -> Option<String> {
    let text = std::fs::read_to_string(package_json).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value["scripts"]["test"].as_str().map(String::from)
}

fn makefile_has_test_target(makefile: &Path) -> bool {
    std::fs::read_to_string(makefile).is_ok_and(|text| {
        text.lines()
            .any(|l| l.starts_with("test:") || l.starts_with("test ::"))
    })
}

fn has_extension(folder: &Path, extensions: &[&str]) -> bool {
    std::fs::read_dir(folder).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            e.path()
                .extension()
                .is_some_and(|x| extensions.iter().any(|want| x == *want))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for file in files {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let content = match *file {
                "Makefile" => "test:\n\techo ok\n",
                "package.json" => r#"{"scripts": {"test": "vitest run"}}"#,
                _ => "",
            };
            std::fs::write(path, content).unwrap();
        }
        dir
    }

    fn detected(files: &[&str], start: &str, pattern: Option<&str>) -> Option<(Framework, String)> {
        let dir = fixture(files);
        let start = dir.path().join(start);
        std::fs::create_dir_all(&start).unwrap();
        detect(&start, dir.path(), pattern).map(|d| (d.framework, d.argv.join(" ")))
    }

    #[test]
    fn each_marker_maps_to_its_command_and_filter() {
        let cases: &[(&[&str], Framework, &str)] = &[
            (&["go.mod"], Framework::Go, "go test -v ./... -run X"),
            (&["Cargo.toml"], Framework::Cargo, "cargo test X"),
            (
                &["pyproject.toml"],
                Framework::Pytest,
                "python3 -m pytest -q -k X",
            ),
            (&["tox.ini"], Framework::Pytest, "python3 -m pytest -q -k X"),
            (&["package.json"], Framework::Npm, "npm test -- -t X"),
            (
                &["package.json", "pnpm-lock.yaml"],
                Framework::Pnpm,
                "pnpm test -t X",
            ),
            (
                &["package.json", "yarn.lock"],
                Framework::Yarn,
                "yarn test -t X",
            ),
            (&["pom.xml"], Framework::Maven, "mvn -q test -Dtest=X"),
            (
                &["build.gradle.kts"],
                Framework::Gradle,
                "gradle test --tests X",
            ),
            (&["Makefile"], Framework::Make, "make test TEST=X"),
            (&["App.csproj"], Framework::Dotnet, "dotnet test --filter X"),
            (&["mix.exs"], Framework::Mix, "mix test --only test:X"),
            (
                &["Gemfile", "spec/a_spec.rb"],
                Framework::Rspec,
                "bundle exec rspec -e X",
            ),
        ];
        for (files, framework, command) in cases {
            assert_eq!(
                detected(files, ".", Some("X")),
                Some((*framework, command.to_string())),
                "{files:?}"
            );
        }
    }

    /// `dir` and `pattern` as ChatCLI means them: the tests of that folder, and a glob of test
    /// files as the files (packages for Go); a name filter stays the framework's filter.
    #[test]
    fn dir_and_a_glob_of_test_files_narrow_the_run_as_chatcli_means_them() {
        let cases: &[(&str, &str, Option<&str>, &str)] = &[
            ("go.mod", ".", None, "go test -v ./..."),
            ("go.mod", "pkg", None, "go test -v ./pkg/..."),
            ("go.mod", "pkg", Some("*_test.go"), "go test -v ./pkg/..."),
            ("go.mod", ".", Some("api/*_test.go"), "go test -v ./api"),
            (
                "go.mod",
                "pkg",
                Some("api/**/*_test.go"),
                "go test -v ./pkg/api/...",
            ),
            (
                "go.mod",
                "pkg",
                Some("TestLogin"),
                "go test -v ./pkg/... -run TestLogin",
            ),
            (
                "go.mod",
                ".",
                Some("Test.*Login"),
                "go test -v ./... -run Test.*Login",
            ),
            ("pyproject.toml", ".", None, "python3 -m pytest -q"),
            (
                "pyproject.toml",
                "tests",
                None,
                "python3 -m pytest -q tests",
            ),
            (
                "pyproject.toml",
                "tests",
                Some("test_*.py"),
                "python3 -m pytest -q -o python_files=test_*.py tests",
            ),
            (
                "pyproject.toml",
                ".",
                Some("test_login"),
                "python3 -m pytest -q -k test_login",
            ),
            ("Cargo.toml", "src", Some("parse"), "cargo test parse"),
        ];
        for (marker, start, pattern, command) in cases {
            let dir = fixture(&[marker]);
            let from = dir.path().join(start);
            std::fs::create_dir_all(&from).unwrap();
            let selection = Selection::of(*pattern);
            let mut found = detect(&from, dir.path(), selection.names()).unwrap();
            scope(&mut found, &from, &selection).unwrap();
            assert_eq!(
                found.argv.join(" "),
                *command,
                "{marker} {start} {pattern:?}"
            );
            assert_eq!(found.folder, dir.path(), "runs where the marker is");
        }
        // No glob for a framework that cannot select files, and none that climbs out of `dir`.
        for (marker, pattern) in [("Cargo.toml", "*_test.rs"), ("go.mod", "../*_test.go")] {
            let dir = fixture(&[marker]);
            let selection = Selection::of(Some(pattern));
            let mut found = detect(dir.path(), dir.path(), selection.names()).unwrap();
            assert!(
                scope(&mut found, dir.path(), &selection).is_err(),
                "{pattern}"
            );
        }
    }

    #[test]
    fn the_nearest_folder_with_a_marker_wins_and_the_walk_stops_at_the_root() {
        assert_eq!(
            detected(&["Cargo.toml", "tools/go.mod"], "tools/sub", None).map(|d| d.0),
            Some(Framework::Go)
        );
        assert_eq!(
            detected(&["Cargo.toml"], "crates/a/src", None).map(|d| d.0),
            Some(Framework::Cargo)
        );
        assert_eq!(detected(&["README.md"], "a", None), None);
    }
}
