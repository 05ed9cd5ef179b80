#!/usr/bin/env python3
"""The cost of the exec sandbox: `exec "true"` round trips, medians over N runs, sandboxed
(`exec.sandbox.mode: namespaces`) against `exec.sandbox: off`, in the same run on the same
workspace (a few files and one secret, so the secret walk and its mask are part of the cost).

    scripts/bench-exec-sandbox.py [--runs 200] [--coderd target/release/coderd]

Prints the median and p90 wall time per mode (client round trip) and the daemon's own
`duration_ms` median, and the difference of the medians."""
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


def measure(coderd, config, runs):
    daemon = Daemon(coderd, "bench-exec-sandbox-", config)
    workspace(daemon.ws)
    daemon.start()
    try:
        for _ in range(10):  # the first run starts the watchdog and probes the namespaces
            reply = daemon.call("exec", {"cmd": "true"})
            assert "result" in reply, reply
        walls, inside = [], []
        for _ in range(runs):
            started = time.perf_counter()
            reply = daemon.call("exec", {"cmd": "true"})
            walls.append((time.perf_counter() - started) * 1000)
            inside.append(reply["result"]["duration_ms"])
        return reply["result"]["sandbox"], walls, inside
    finally:
        daemon.close()


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--coderd", default=os.path.join(here, "target/release/coderd"))
    args = parser.parse_args()
    medians = {}
    for mode, config in MODES.items():
        ran, walls, inside = measure(args.coderd, config, args.runs)
        assert ran == mode, (ran, mode)
        walls.sort()
        medians[mode] = statistics.median(walls)
        print(f"{mode:>10}: median {medians[mode]:6.2f} ms, p90 {walls[len(walls) * 9 // 10]:6.2f} ms,"
              f" daemon duration_ms median {statistics.median(inside):.0f} ({args.runs} runs)")
    print(f"sandbox set-up adds {medians['namespaces'] - medians['off']:.2f} ms at the median")


if __name__ == "__main__":
    main()
