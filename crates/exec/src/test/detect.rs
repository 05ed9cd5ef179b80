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
