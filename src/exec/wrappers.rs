//! Commands that run other commands. `sudo rm -rf /` runs `rm`, `find / -exec rm -rf {} +` runs
//! `rm` on `/`, `bash -c 'rm -rf /'` runs a whole script: each wrapper here is unwrapped into the
//! command it runs (options skipped by the wrapper's own rules), and shell strings (`sh -c`,
//! `eval`, `su -c`, `watch`, `env -S`) are parsed again as bash. A wrapper whose inner command
//! or script only exists at run time is reported as unreadable, never passed over.

use super::parse::{self, Function, ParseProblem, Piece, SimpleCommand, Word};

/// How deep shell strings may nest (`bash -c "sh -c '...'"`) before the command is refused.
const MAX_SCRIPT_DEPTH: usize = 8;

/// Every simple command a source could run, after unwrapping and re-parsing.
#[derive(Debug, Default)]
pub struct Analysis {
    pub commands: Vec<SimpleCommand>,
    pub functions: Vec<Function>,
    pub problems: Vec<ParseProblem>,
    /// Commands that run something the parser cannot see (a script built at run time).
    pub unreadable: Vec<(SimpleCommand, String)>,
}

/// Parses `source` and unwraps every command in it.
pub fn analyze(source: &str) -> Analysis {
    let mut analysis = Analysis::default();
    let mut next_pipeline = 0;
    add_script(
        &mut analysis,
        source,
        &Outer::default(),
        0,
        &mut next_pipeline,
    );
    analysis
}

/// What a command parsed from a string inherits from the command that held the string.
#[derive(Default, Clone)]
struct Outer {
    via: Vec<String>,
    redirects: Vec<parse::Redirect>,
}

fn add_script(
    analysis: &mut Analysis,
    source: &str,
    outer: &Outer,
    depth: usize,
    next_pipeline: &mut usize,
) {
    let script = parse::parse(source, *next_pipeline);
    *next_pipeline = script
        .commands
        .iter()
        .map(|c| c.pipeline)
        .max()
        .unwrap_or(*next_pipeline)
        + 1_000;
    analysis.problems.extend(script.problems);
    analysis.functions.extend(script.functions);
    for mut command in script.commands {
        command.via.splice(0..0, outer.via.iter().cloned());
        command.redirects.extend(outer.redirects.iter().cloned());
        add_command(analysis, command, depth, next_pipeline);
    }
}

fn add_command(
    analysis: &mut Analysis,
    command: SimpleCommand,
    depth: usize,
    next_pipeline: &mut usize,
) {
    let unwrapped = unwrap(&command);
    analysis.commands.push(command.clone());
    match unwrapped {
        Unwrapped::Nothing => {}
        Unwrapped::Commands(inner) => {
            for inner in inner {
                add_command(analysis, inner, depth, next_pipeline);
            }
        }
        Unwrapped::Script { source, via } if depth < MAX_SCRIPT_DEPTH => {
            let mut outer = Outer {
                via: command.via.clone(),
                redirects: command.redirects.clone(),
            };
            outer.via.push(via);
            add_script(analysis, &source, &outer, depth + 1, next_pipeline);
        }
        Unwrapped::Script { .. } => analysis.unreadable.push((
            command,
            format!("shell strings nest deeper than {MAX_SCRIPT_DEPTH} levels"),
        )),
        Unwrapped::Unreadable(why) => analysis.unreadable.push((command, why)),
    }
}

/// What a wrapper runs.
enum Unwrapped {
    Nothing,
    Commands(Vec<SimpleCommand>),
    Script { source: String, via: String },
    Unreadable(String),
}

/// The command(s) a wrapper runs, if `command` is a wrapper.
fn unwrap(command: &SimpleCommand) -> Unwrapped {
    let Some(name) = command.name() else {
        return Unwrapped::Nothing;
    };
    let args = &command.argv[1..];
    let inner_at = |at: Option<usize>| match at {
        Some(at) if at < args.len() => {
            Unwrapped::Commands(vec![inner(command, &name, &args[at..])])
        }
        _ => Unwrapped::Nothing,
    };
    match name.as_str() {
        "env" => env(command, args),
        "sudo" | "doas" | "pkexec" | "run0" => sudo(command, &name, args),
        "nohup" | "setsid" | "unbuffer" | "fakeroot" | "proxychains" | "proxychains4"
        | "torsocks" | "catchsegv" | "chronic" | "nocache" | "eatmydata" | "firejail" => {
            inner_at(skip_options(args, &[]))
        }
        "time" => inner_at(skip_options(args, &["-f", "-o", "--format", "--output"])),
        "nice" => inner_at(skip_options(args, &["-n", "--adjustment"])),
        "ionice" => inner_at(skip_options(args, &["-c", "-n", "--class", "--classdata"])),
        "stdbuf" => inner_at(skip_options(args, &["-i", "-o", "-e"])),
        "strace" | "ltrace" => inner_at(skip_options(
            args,
            &[
                "-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-O", "-P", "-S", "-X",
            ],
        )),
        "command" | "builtin" => {
            let lookup = args
                .iter()
                .map_while(|a| a.text().filter(|t| t.starts_with('-')))
                .any(|t| t.contains('v') || t.contains('V'));
            if lookup {
                return Unwrapped::Nothing;
            }
            inner_at(skip_options(args, &[]))
        }
        "exec" => inner_at(skip_options(args, &["-a"])),
        "timeout" => {
            inner_at(skip_options(args, &["-s", "-k", "--signal", "--kill-after"]).map(|at| at + 1))
        }
        "chrt" | "taskset" => inner_at(skip_options(args, &[]).map(|at| at + 1)),
        "chroot" => inner_at(skip_options(args, &["--userspec", "--groups"]).map(|at| at + 1)),
        "busybox" => inner_at(Some(0)),
        "xargs" => xargs(command, args),
        "parallel" => parallel(command, args),
        "find" => find_exec(command, args),
        "eval" => eval(args),
        "su" | "runuser" | "script" => dash_c_string(args, &name),
        "flock" => flock(command, args),
        "watch" => watch(args),
        _ if is_shell(&name) => shell_c(args, &name),
        _ => Unwrapped::Nothing,
    }
}

/// The command a wrapper runs: the remaining words, with the wrapper's context.
fn inner(outer: &SimpleCommand, wrapper: &str, argv: &[Word]) -> SimpleCommand {
    let mut inner = outer.clone();
    inner.argv = argv.to_vec();
    inner.assignments.clear();
    inner.via.push(wrapper.to_string());
    inner
}

/// Shells whose `-c` takes a script and which read a script from stdin without one.
pub fn is_shell(name: &str) -> bool {
    matches!(
        name,
        "sh" | "bash"
            | "zsh"
            | "dash"
            | "ksh"
            | "mksh"
            | "ash"
            | "yash"
            | "posh"
            | "fish"
            | "rbash"
    )
}

/// The index of the first operand after options. `with_value` lists options that take the next
/// word as their value (`--name=value` forms carry it inline). `--` ends the options.
fn skip_options(args: &[Word], with_value: &[&str]) -> Option<usize> {
    let mut i = 0;
    while i < args.len() {
        let Some(text) = args[i].text() else {
            return Some(i);
        };
        if text == "--" {
            return Some(i + 1);
        }
        if !text.starts_with('-') || text == "-" {
            return Some(i);
        }
        let takes_value = with_value.contains(&text.as_str()) && !text.contains('=');
        i += if takes_value { 2 } else { 1 };
    }
    None
}

fn is_assignment(word: &Word) -> bool {
    match word.pieces.first() {
        Some(Piece::Literal { text, .. }) => text.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }),
        _ => false,
    }
}

fn env(command: &SimpleCommand, args: &[Word]) -> Unwrapped {
    let mut i = 0;
    while i < args.len() {
        let Some(text) = args[i].text() else { break };
        if text == "--" {
            i += 1;
            break;
        }
        if let Some(split) = text
            .strip_prefix("--split-string=")
            .or_else(|| text.strip_prefix("-S").filter(|s| !s.is_empty()))
        {
            let rest: Vec<String> = args[i + 1..].iter().map(|w| w.source.clone()).collect();
            return Unwrapped::Script {
                source: format!("{split} {}", rest.join(" ")),
                via: "env -S".into(),
            };
        }
        if text == "-S" || text == "--split-string" {
            let Some(split) = args.get(i + 1) else {
                return Unwrapped::Nothing;
            };
            let Some(split) = split.text() else {
                return Unwrapped::Unreadable("the string of `env -S` is built at run time".into());
            };
            let rest: Vec<String> = args[i + 2..].iter().map(|w| w.source.clone()).collect();
            return Unwrapped::Script {
                source: format!("{split} {}", rest.join(" ")),
                via: "env -S".into(),
            };
        }
        if text.starts_with('-') && text != "-" {
            let takes_value = matches!(text.as_str(), "-u" | "-C" | "--unset" | "--chdir");
            i += if takes_value { 2 } else { 1 };
            continue;
        }
        if !is_assignment(&args[i]) {
            break;
        }
        i += 1;
    }
    if i >= args.len() {
        return Unwrapped::Nothing;
    }
    Unwrapped::Commands(vec![inner(command, "env", &args[i..])])
}

fn sudo(command: &SimpleCommand, name: &str, args: &[Word]) -> Unwrapped {
    const WITH_VALUE: &[&str] = &[
        "-u",
        "-g",
        "-h",
        "-p",
        "-C",
        "-D",
        "-r",
        "-t",
        "-T",
        "-U",
        "--user",
        "--group",
        "--host",
        "--prompt",
        "--close-from",
        "--chdir",
        "--role",
        "--type",
        "--command-timeout",
        "--other-user",
    ];
    let Some(mut at) = skip_options(args, WITH_VALUE) else {
        return Unwrapped::Nothing;
    };
    while at < args.len() && is_assignment(&args[at]) {
        at += 1;
    }
    if at >= args.len() {
        return Unwrapped::Nothing;
    }
    Unwrapped::Commands(vec![inner(command, name, &args[at..])])
}

fn xargs(command: &SimpleCommand, args: &[Word]) -> Unwrapped {
    const WITH_VALUE: &[&str] = &[
        "-I",
        "-d",
        "-n",
        "-L",
        "-P",
        "-s",
        "-E",
        "-a",
        "--delimiter",
        "--max-args",
        "--max-lines",
        "--max-procs",
        "--max-chars",
        "--eof",
        "--arg-file",
        "--replace",
    ];
    let mut replace: Option<String> = None;
    let mut i = 0;
    while i < args.len() {
        let Some(text) = args[i].text() else { break };
        if text == "--" {
            i += 1;
            break;
        }
        if !text.starts_with('-') || text == "-" {
            break;
        }
        if text == "-I" || text == "--replace" {
            replace = args.get(i + 1).and_then(|w| w.text());
        } else if let Some(attached) = text.strip_prefix("-I").filter(|s| !s.is_empty()) {
            replace = Some(attached.to_string());
        } else if text == "-i" || text.starts_with("--replace=") {
            replace = Some(text.split_once('=').map_or("{}", |(_, r)| r).to_string());
        }
        i += if WITH_VALUE.contains(&text.as_str()) {
            2
        } else {
            1
        };
    }
    let mut argv: Vec<Word> = if i < args.len() {
        args[i..].to_vec()
    } else {
        vec![Word::literal("echo")]
    };
    let input = Word::unknown("<xargs input>");
    match replace {
        Some(marker) => {
            for word in argv.iter_mut().skip(1) {
                if word.text().is_some_and(|t| t.contains(&marker)) {
                    *word = input.clone();
                }
            }
        }
        None => argv.push(input),
    }
    Unwrapped::Commands(vec![inner(command, "xargs", &argv)])
}

/// `parallel CMD ARGS ::: INPUTS`: the command runs with each input appended.
fn parallel(command: &SimpleCommand, args: &[Word]) -> Unwrapped {
    let Some(at) = skip_options(args, &["-j", "--jobs", "-S", "--sshlogin"]) else {
        return Unwrapped::Nothing;
    };
    let end = args
        .iter()
        .position(|w| w.text().is_some_and(|t| t.starts_with(":::")))
        .unwrap_or(args.len());
    if at >= end {
        return Unwrapped::Nothing;
    }
    let inputs: Vec<Word> = match end < args.len() {
        true => args[end + 1..].to_vec(),
        false => vec![Word::unknown("<parallel input>")],
    };
    let commands = inputs
        .into_iter()
        .map(|input| {
            let mut argv = args[at..end].to_vec();
            argv.push(input);
            inner(command, "parallel", &argv)
        })
        .collect();
    Unwrapped::Commands(commands)
}

/// The start paths of a `find` command: the operands before its first expression word.
pub fn find_start_paths(args: &[Word]) -> Vec<Word> {
    let mut i = 0;
    // Leading options -H -L -P -D debugopts -Olevel.
    while let Some(text) = args.get(i).and_then(|w| w.text()) {
        match text.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            t if t.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let starts: Vec<Word> = args[i.min(args.len())..]
        .iter()
        .take_while(|w| {
            w.text()
                .is_none_or(|t| !(t.starts_with('-') || t == "(" || t == "!" || t == ","))
        })
        .cloned()
        .collect();
    if starts.is_empty() {
        vec![Word::literal(".")]
    } else {
        starts
    }
}

/// `find ... -exec CMD {} ;` runs CMD once per found path, the start paths among them.
fn find_exec(command: &SimpleCommand, args: &[Word]) -> Unwrapped {
    let starts = find_start_paths(args);
    let mut commands = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let is_exec = args[i]
            .text()
            .is_some_and(|t| matches!(t.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"));
        if !is_exec {
            i += 1;
            continue;
        }
        let end = args[i + 1..]
            .iter()
            .position(|w| w.text().is_some_and(|t| t == ";" || t == "+"))
            .map_or(args.len(), |p| i + 1 + p);
        let template = &args[i + 1..end];
        if !template.is_empty() {
            for start in &starts {
                let argv: Vec<Word> = template
                    .iter()
                    .map(|w| substitute_braces(w, start))
                    .collect();
                commands.push(inner(command, "find -exec", &argv));
            }
        }
        i = end + 1;
    }
    if commands.is_empty() {
        Unwrapped::Nothing
    } else {
        Unwrapped::Commands(commands)
    }
}

/// `{}` in a `find -exec` word stands for the found path.
fn substitute_braces(word: &Word, path: &Word) -> Word {
    match (word.text(), path.text()) {
        (Some(text), Some(path_text)) if text.contains("{}") => {
            Word::literal(&text.replace("{}", &path_text))
        }
        (Some(text), None) if text.contains("{}") => path.clone(),
        _ => word.clone(),
    }
}

fn script_from(word: Option<&Word>, via: &str) -> Unwrapped {
    let Some(word) = word else {
        return Unwrapped::Nothing;
    };
    match word.text() {
        Some(source) => Unwrapped::Script {
            source,
            via: via.to_string(),
        },
        None => Unwrapped::Unreadable(format!(
            "the script given to `{via}` is built at run time ({})",
            word.source
        )),
    }
}

fn eval(args: &[Word]) -> Unwrapped {
    if args.is_empty() {
        return Unwrapped::Nothing;
    }
    let texts: Option<Vec<String>> = args.iter().map(|w| w.text()).collect();
    match texts {
        Some(texts) => Unwrapped::Script {
            source: texts.join(" "),
            via: "eval".into(),
        },
        None => Unwrapped::Unreadable(format!(
            "`eval` runs text built at run time ({})",
            args.iter()
                .map(|w| w.source.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        )),
    }
}

/// `sh -c SCRIPT`, `bash -ec SCRIPT`, `zsh -lc SCRIPT`: the script is parsed as bash.
fn shell_c(args: &[Word], name: &str) -> Unwrapped {
    let mut has_c = false;
    let mut i = 0;
    while i < args.len() {
        let Some(text) = args[i].text() else { break };
        if text == "--" {
            i += 1;
            break;
        }
        let is_option = (text.starts_with('-') || text.starts_with('+')) && text.len() > 1;
        if !is_option {
            break;
        }
        if !text.starts_with("--") && text.contains('c') {
            has_c = true;
        }
        let takes_value = matches!(
            text.as_str(),
            "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file"
        );
        i += if takes_value { 2 } else { 1 };
    }
    if !has_c {
        return Unwrapped::Nothing;
    }
    script_from(args.get(i), &format!("{name} -c"))
}

/// `su -c CMD`, `runuser -c CMD`, `script -c CMD`.
fn dash_c_string(args: &[Word], name: &str) -> Unwrapped {
    for (i, word) in args.iter().enumerate() {
        let Some(text) = word.text() else { continue };
        if text == "-c" || text == "--command" {
            return script_from(args.get(i + 1), &format!("{name} -c"));
        }
        if let Some(inline) = text.strip_prefix("--command=") {
            return script_from(Some(&Word::literal(inline)), &format!("{name} -c"));
        }
    }
    Unwrapped::Nothing
}

/// `flock [options] FILE CMD ARGS` or `flock [options] FILE -c CMD`.
fn flock(command: &SimpleCommand, args: &[Word]) -> Unwrapped {
    if let Some(i) = args
        .iter()
        .position(|w| w.text().is_some_and(|t| t == "-c" || t == "--command"))
    {
        return script_from(args.get(i + 1), "flock -c");
    }
    let Some(file_at) = skip_options(args, &["-w", "--timeout", "-E", "--conflict-exit-code"])
    else {
        return Unwrapped::Nothing;
    };
    if file_at + 1 >= args.len() {
        return Unwrapped::Nothing;
    }
    Unwrapped::Commands(vec![inner(command, "flock", &args[file_at + 1..])])
}

/// `watch [options] CMD ARGS`: the words are joined and run by `sh -c`.
fn watch(args: &[Word]) -> Unwrapped {
    let Some(at) = skip_options(args, &["-n", "--interval", "-d", "-q", "--equexit"]) else {
        return Unwrapped::Nothing;
    };
    let texts: Option<Vec<String>> = args[at..].iter().map(|w| w.text()).collect();
    match texts {
        Some(texts) if !texts.is_empty() => Unwrapped::Script {
            source: texts.join(" "),
            via: "watch".into(),
        },
        Some(_) => Unwrapped::Nothing,
        None => Unwrapped::Unreadable("`watch` runs a command built at run time".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(source: &str) -> Vec<String> {
        analyze(source).commands.iter().map(|c| c.shown()).collect()
    }

    #[test]
    fn wrappers_are_unwrapped_to_the_command_they_run() {
        for source in [
            "sudo -u root rm -rf /",
            "env -i FOO=1 rm -rf /",
            "nice -n 5 rm -rf /",
            "timeout -s KILL 5 rm -rf /",
            "nohup rm -rf / &",
            "time rm -rf /",
            "stdbuf -o0 rm -rf /",
            "command rm -rf /",
            "exec rm -rf /",
            "busybox rm -rf /",
            "sudo env nice rm -rf /",
        ] {
            assert!(
                names(source).contains(&"rm -rf /".to_string()),
                "{source}: {:?}",
                names(source)
            );
        }
        assert!(!names("command -v rm").contains(&"rm".to_string()));
    }

    #[test]
    fn shell_strings_are_parsed_again() {
        for source in [
            "bash -c 'rm -rf /'",
            "sh -ec \"rm -rf /\"",
            "eval rm -rf /",
            "su -c 'rm -rf /' root",
            "env -S 'rm -rf /'",
            "watch rm -rf /",
            "bash -c \"sh -c 'rm -rf /'\"",
        ] {
            assert!(
                names(source).contains(&"rm -rf /".to_string()),
                "{source}: {:?}",
                names(source)
            );
        }
        let dynamic = analyze(r#"bash -c "$SCRIPT""#);
        assert_eq!(dynamic.unreadable.len(), 1);
    }

    #[test]
    fn find_exec_runs_its_command_on_the_start_paths_and_xargs_on_unknown_input() {
        assert!(names("find / -name x -exec rm -rf {} +").contains(&"rm -rf /".to_string()));
        let xargs = analyze("ls | xargs -0 rm -rf");
        let rm = xargs
            .commands
            .iter()
            .find(|c| c.name().as_deref() == Some("rm"));
        assert!(!rm.unwrap().argv[2].is_static());
    }
}
