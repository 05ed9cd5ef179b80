//! Unit tests of `wrappers`.

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
fn shell_programs_are_read_wherever_a_program_takes_one() {
    for source in [
        "bash <<< 'rm -rf /'",
        "echo 'rm -rf /' | sh",
        "echo 'rm -rf /' | sudo -s",
        "source /dev/stdin <<< 'rm -rf /'",
        "trap 'rm -rf /' EXIT",
        "alias x='rm -rf /'",
        "coproc rm -rf /",
        "PROMPT_COMMAND='rm -rf /' bash -i",
        "git -c alias.x='!rm -rf /' x",
        "git -c core.pager='rm -rf /' log",
        "tar --to-command='rm -rf /' -xf a.tar",
        "awk 'BEGIN { system(\"rm -rf /\") }'",
        "ssh host rm -rf /",
        "echo 'rm -rf /' | at now",
        "python3 -c \"import os; os.system('rm -rf /')\"",
        "ruby -e 'system(\"rm\", \"-rf\", \"/\")'",
        "runuser -u root -- rm -rf /",
        "systemd-run --user rm -rf /",
        "nsenter -t 1 -m rm -rf /",
        "setpriv --reuid=0 rm -rf /",
    ] {
        assert!(
            names(source).contains(&"rm -rf /".to_string()),
            "{source}: {:?}",
            names(source)
        );
    }
    for source in [
        "echo cm0K | base64 -d | sh",
        "trap \"$X\" EXIT",
        "BASH_ENV=<(echo x) bash -c true",
        "awk '{ system($0) }'",
        "bash <(echo x)",
        "sh < /dev/tcp/host/80",
    ] {
        assert_eq!(analyze(source).unreadable.len(), 1, "{source}");
    }
    for source in [
        "echo ls | sh",
        "awk '{print $1}'",
        "git -c color.ui=always log",
        "trap 'rm -f x' EXIT",
    ] {
        assert!(analyze(source).unreadable.is_empty(), "{source}");
    }
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
