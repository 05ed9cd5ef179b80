#!/usr/bin/env python3
"""The cost of the exec sandbox: `exec "true"` round trips, medians over N runs, sandboxed
(`exec.sandbox.mode: namespaces`) against `exec.sandbox: off`: two daemons on the same kind of
workspace (a few files and one secret, so the secret walk and its mask are part of the cost),
called alternately so that both see the same load.

    scripts/bench-exec-sandbox.py [--runs 200] [--coderd target/release/coderd]

Prints the median and p90 wall time per mode (client round trip), the daemon's own `duration_ms`
median, and the CPU time per run of the daemon and its reaped children (user + system, from
/proc; on a busy machine this shows the work the sandbox adds, where wall times mostly show the
wait for a CPU), and the difference of the medians."""
import argparse, os, statistics, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coderd_bench import Daemon

MODES = {"namespaces": "exec:\n  sandbox: namespaces\n", "off": "exec:\n  sandbox: off\n"}


def workspace(ws):
    for i in range(20):
        os.makedirs(os.path.join(ws, f"src/m{i}"), exist_ok=True)
        with open(os.path.join(ws, f"src/m{i}/lib.rs"), "w") as f:
            f.write("pub fn f() {}\n")
    with open(os.path.join(ws, ".env"), "w") as f:
        f.write("API_KEY=not-for-commands\n")


def start(coderd, config):
    daemon = Daemon(coderd, "bench-exec-sandbox-", config)
    workspace(daemon.ws)
    daemon.start()
    for _ in range(10):  # the first run starts the watchdog and probes the namespaces
        reply = daemon.call("exec", {"cmd": "true"})
        assert "result" in reply, reply
    return daemon


def cpu_ms(daemon):
    """User + system time of the daemon and its reaped children, in ms."""
    with open(f"/proc/{daemon.proc.pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))  # utime stime cutime cstime
    return ticks * 1000 / os.sysconf("SC_CLK_TCK")


def timed(daemon):
    started = time.perf_counter()
    reply = daemon.call("exec", {"cmd": "true"})
    wall = (time.perf_counter() - started) * 1000
    return reply["result"]["sandbox"], wall, reply["result"]["duration_ms"]


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--coderd", default=os.path.join(here, "target/release/coderd"))
    args = parser.parse_args()
    daemons = {mode: start(args.coderd, config) for mode, config in MODES.items()}
    walls = {mode: [] for mode in MODES}
    inside = {mode: [] for mode in MODES}
    cpu_before = {mode: cpu_ms(daemon) for mode, daemon in daemons.items()}
    try:
        # Alternating, so that both modes see the same load on a busy machine.
        for _ in range(args.runs):
            for mode, daemon in daemons.items():
                ran, wall, duration = timed(daemon)
                assert ran == mode, (ran, mode)
                walls[mode].append(wall)
                inside[mode].append(duration)
        time.sleep(0.5)  # the last inits are reaped
        cpu = {mode: (cpu_ms(d) - cpu_before[mode]) / args.runs for mode, d in daemons.items()}
    finally:
        for daemon in daemons.values():
            daemon.close()
    medians = {}
    for mode in MODES:
        ordered = sorted(walls[mode])
        medians[mode] = statistics.median(ordered)
        print(f"{mode:>10}: median {medians[mode]:6.2f} ms, p90 {ordered[len(ordered) * 9 // 10]:6.2f} ms,"
              f" daemon duration_ms median {statistics.median(inside[mode]):.0f},"
              f" CPU {cpu[mode]:.2f} ms per run ({args.runs} runs)")
    print(f"sandbox set-up adds {medians['namespaces'] - medians['off']:.2f} ms at the median,"
          f" {cpu['namespaces'] - cpu['off']:.2f} ms of CPU per run")


if __name__ == "__main__":
    main()
