//! Unit tests of `parse`.

use super::*;

fn argvs(source: &str) -> Vec<Vec<String>> {
    parse(source, 0)
        .commands
        .iter()
        .map(|c| c.argv.iter().map(|w| w.shown()).collect())
        .collect()
}

#[test]
fn quotes_escapes_and_ansi_c_strings_resolve_to_the_value_bash_passes() {
    assert_eq!(
        argvs(r#"'r''m' -rf "/" ; r\m x; $'\x72m' y; \rm z; "r"m w"#),
        vec![
            vec!["rm", "-rf", "/"],
            vec!["rm", "x"],
            vec!["rm", "y"],
            vec!["rm", "z"],
            vec!["rm", "w"]
        ]
    );
}

#[test]
fn commands_inside_substitutions_loops_functions_and_heredocs_are_found() {
    let found = argvs(
        "echo $(a1) `a2` <(a3) >(a4); for x in $(a5); do a6; done; f() { a7; }; \
         X=$(a8) a9; cat <<EOF\n$(a10)\nEOF\n[ -f \"$(a11)\" ]; (a12) | { a13; }",
    );
    let names: Vec<&str> = found.iter().map(|a| a[0].as_str()).collect();
    for n in 1..=13 {
        assert!(
            names.contains(&format!("a{n}").as_str()),
            "a{n} in {names:?}"
        );
    }
}

#[test]
fn variables_and_substitutions_stay_unknown_pieces() {
    let script = parse(r#"rm -rf "$HOME"/x ~ ${IFS} $(pwd)/y"#, 0);
    let rm = script
        .commands
        .iter()
        .find(|c| c.name().as_deref() == Some("rm"));
    let argv = &rm.unwrap().argv;
    assert_eq!(argv[2].pieces[0], Piece::Variable("HOME".into()));
    assert_eq!(argv[3].pieces, vec![Piece::Variable("HOME".into())]);
    assert!(matches!(argv[4].pieces[0], Piece::Variable(ref v) if v == "IFS"));
    assert!(matches!(argv[5].pieces[0], Piece::Dynamic(_)));
}

#[test]
fn pipelines_number_their_stages() {
    let script = parse("curl x | tee y | sh; ls", 0);
    let c = &script.commands;
    assert_eq!((c[0].stage, c[1].stage, c[2].stage), (0, 1, 2));
    assert_eq!(c[0].pipeline, c[2].pipeline);
    assert_ne!(c[0].pipeline, c[3].pipeline);
}

#[test]
fn redirects_of_enclosing_statements_reach_every_command_inside() {
    let script = parse("{ cat a; echo b; } > /dev/sda", 0);
    assert!(script.commands.iter().all(|c| c
        .redirects
        .iter()
        .any(|r| r.writes() && r.target.text().as_deref() == Some("/dev/sda"))));
    let dup = parse("ls 2>&1", 0);
    assert!(!dup.commands[0].redirects[0].writes());
}

#[test]
fn substitutions_that_download_mark_their_word() {
    let script = parse(r#"bash -c "$(curl -fsSL https://x)""#, 0);
    let bash = script
        .commands
        .iter()
        .find(|c| c.name().as_deref() == Some("bash"));
    assert!(bash.unwrap().argv[2].downloads);
}

#[test]
fn parse_errors_are_reported_with_a_position() {
    let script = parse("echo 'unterminated", 0);
    assert!(!script.problems.is_empty());
    assert!(parse("ls -la", 0).problems.is_empty());
}

#[test]
fn words_are_expanded_as_bash_expands_them() {
    assert_eq!(
        argvs("rm -rf /u{s..s}r x{1..3} {rm,-rf} /e{t,}c \"{a,b}\""),
        vec![vec![
            "rm", "-rf", "/usr", "x1", "x2", "x3", "rm", "-rf", "/etc", "/ec", "{a,b}"
        ]]
    );
    assert_eq!(
        argvs("rm -rf /usr$'\\x00junk'"),
        vec![vec!["rm", "-rf", "/usr"]]
    );
    let script = parse("rm -rf ~+ ~- ~root/x", 0);
    let argv = &script.commands[0].argv;
    assert_eq!(argv[2].pieces, vec![Piece::Variable("PWD".into())]);
    assert_eq!(argv[3].pieces, vec![Piece::Dynamic("~-".into())]);
    assert_eq!(argv[4].pieces[0], Piece::Dynamic("~root".into()));
    let many = format!("echo {}", "{a,b}".repeat(11));
    assert!(matches!(
        parse(&many, 0).commands[0].argv[1].pieces[0],
        Piece::Dynamic(_)
    ));
    assert!(!parse("ls\0rm -rf /", 0).problems.is_empty());
}

#[test]
fn deep_nesting_is_a_problem_but_long_lists_are_not() {
    let deep = format!("echo {}x{}", "${a:-".repeat(100), "}".repeat(100));
    let problems = parse(&deep, 0).problems;
    assert!(problems[0].near.contains("deeper than 64"), "{problems:?}");
    let chain = vec!["true"; 500].join(" && ");
    let script = parse(&chain, 0);
    assert!(script.problems.is_empty());
    assert_eq!(script.commands.len(), 500);
}

#[test]
fn heredocs_and_herestrings_are_redirects_and_a_heredoc_pipe_is_a_later_stage() {
    let script = parse("cat <<'E' | sh\nrm -rf ~\nE\nbash <<< 'ls'", 0);
    let c = &script.commands;
    assert_eq!(c[0].redirects[0].operator, "<<");
    assert_eq!(
        c[0].redirects[0].target.text().as_deref(),
        Some("rm -rf ~\n")
    );
    assert_eq!(
        (c[1].name().as_deref(), c[1].pipeline, c[1].stage),
        (Some("sh"), c[0].pipeline, 1)
    );
    assert_eq!(c[2].redirects[0].operator, "<<<");
}

#[test]
fn endless_loops_that_background_are_noted() {
    for source in [
        "while true; do bash & done",
        "until false; do sh & done",
        "for ((;;)); do x & done",
    ] {
        assert_eq!(parse(source, 0).spawning_loops.len(), 1, "{source}");
    }
    for source in [
        "while true; do sleep 1; done",
        "while read f; do x \"$f\" & done < l",
        "for f in *; do gzip \"$f\" & done",
    ] {
        assert!(parse(source, 0).spawning_loops.is_empty(), "{source}");
    }
}

#[test]
fn functions_record_their_calls() {
    let script = parse(":(){ :|:& };:", 0);
    assert_eq!(script.functions[0].name, ":");
    assert!(script.functions[0].calls.contains(&":".to_string()));
    assert!(script.functions[0].spawns);
}
