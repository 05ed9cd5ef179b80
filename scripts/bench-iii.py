#!/usr/bin/env python3
"""`coder::read-file` of a small file through the iii engine vs. over coderd's Unix socket.

One `coderd iii` daemon serves both paths at once (the same documents), so the difference is what
the engine adds: the hop from the caller to the engine, the engine's routing, and the hop to the
worker. Both clients are Python in this process: a raw JSON-RPC socket client, and the `iii-sdk`
client (`scripts/install-iii-client.sh` puts it in target/iii-venv). Reports p50/p99 of sequential
calls and the throughput of 8 concurrent callers (each socket caller on its own connection, the
engine callers sharing one SDK client as an iii agent would).

    scripts/install-iii-client.sh
    target/iii-venv/bin/python scripts/bench-iii.py [--coderd target/release/coderd] [--calls 2000]
"""

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coderd_bench import Connection  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


def engine_binary():
    if os.environ.get("CODERD_III"):
        return os.environ["CODERD_III"]
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if d and Path(d, "iii").is_file():
            return str(Path(d, "iii"))
    for parent in REPO.parents:
        candidate = parent / "shared/iii/iii"
        if candidate.is_file():
            return str(candidate)
    sys.exit("bench-iii: no iii engine (PATH, $CODERD_III or ../shared/iii/iii)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(check, what, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if check():
                return
        except Exception:
            pass
        time.sleep(0.05)
    sys.exit(f"bench-iii: {what} did not come up")


class SocketClient:
    """`coder::read-file` over one connection (coderd_bench's)."""

    def __init__(self, path):
        self.connection = Connection(path, tries=1)

    def read(self, params):
        answer = self.connection.call("coder::read-file", params)
        assert "result" in answer, answer
        return answer["result"]


def percentiles(samples):
    ordered = sorted(samples)
    p = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000
    return statistics.median(ordered) * 1000, p(0.99)


def sequential(call, n):
    for _ in range(min(200, n)):
        call()
    times = []
    for _ in range(n):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return percentiles(times)


def throughput(make_call, callers, seconds):
    counts = [0] * callers
    stop = time.time() + seconds
    calls = [make_call() for _ in range(callers)]

    def run(i):
        while time.time() < stop:
            calls[i]()
            counts[i] += 1

    threads = [threading.Thread(target=run, args=(i,)) for i in range(callers)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(counts) / (time.perf_counter() - start)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--coderd", default=str(REPO / "target/debug/coderd"))
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--callers", type=int, default=8)
    args = ap.parse_args()
    from iii import InitOptions, register_worker  # from target/iii-venv

    tmp = Path(tempfile.mkdtemp(prefix="coderd-bench-iii-"))
    ws = tmp / "ws"
    ws.mkdir()
    (ws / "small.txt").write_text("".join(f"line {i}: some small file content\n" for i in range(30)))
    (tmp / "coderd.yaml").write_text("checkpoints: false\n")
    port = free_port()
    (tmp / "engine.yaml").write_text(
        f"workers:\n  - name: iii-worker-manager\n    config:\n      host: 127.0.0.1\n      port: {port}\n")
    env = dict(os.environ, III_TELEMETRY_ENABLED="false")
    procs = []
    try:
        procs.append(subprocess.Popen(
            [engine_binary(), "--config", str(tmp / "engine.yaml"), "--no-update-check"],
            cwd=tmp, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_for(lambda: socket.create_connection(("127.0.0.1", port), 1).close() or True, "the engine")
        sock = str(tmp / "coderd.sock")
        daemon_env = dict(env, XDG_RUNTIME_DIR=str(tmp / "run"), XDG_DATA_HOME=str(tmp / "data"),
                          XDG_STATE_HOME=str(tmp / "state"), CODERD_SERVERS_PATH=str(tmp / "none"))
        procs.append(subprocess.Popen(
            [args.coderd, "--root", str(ws), "--config", str(tmp / "coderd.yaml"), "--socket", sock,
             "--log-file", str(tmp / "coderd.log"), "iii", "--engine", f"ws://127.0.0.1:{port}"],
            env=daemon_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_for(lambda: SocketClient(sock) is not None, "coderd")
        params = {"path": "small.txt"}
        iii = register_worker(f"ws://127.0.0.1:{port}", InitOptions(worker_name="bench-caller"))
        request = {"function_id": "coder::read-file", "payload": params, "timeout_ms": 10000}
        wait_for(lambda: iii.trigger(request)["size"] > 0, "coder::read-file through the engine")

        client = SocketClient(sock)
        socket_lat = sequential(lambda: client.read(params), args.calls)
        engine_lat = sequential(lambda: iii.trigger(request), args.calls)
        socket_tput = throughput(lambda: (lambda c: lambda: c.read(params))(SocketClient(sock)),
                                 args.callers, args.seconds)
        engine_tput = throughput(lambda: lambda: iii.trigger(request), args.callers, args.seconds)
        iii.shutdown()
    finally:
        for p in reversed(procs):
            p.terminate()
            p.wait(10)
    print(f"coder::read-file of a {(ws / 'small.txt').stat().st_size}-byte file, {args.calls} sequential calls,"
          f" then {args.callers} callers for {args.seconds:.0f} s; coderd: {args.coderd}\n")
    print("| path | p50 (ms) | p99 (ms) | calls/s, 8 callers |")
    print("|---|---|---|---|")
    print(f"| Unix socket (JSON-RPC) | {socket_lat[0]:.3f} | {socket_lat[1]:.3f} | {socket_tput:.0f} |")
    print(f"| iii engine (iii-sdk trigger) | {engine_lat[0]:.3f} | {engine_lat[1]:.3f} | {engine_tput:.0f} |")
    print(f"\nthe engine adds {engine_lat[0] - socket_lat[0]:.3f} ms at p50 "
          f"({engine_lat[0] / socket_lat[0]:.1f}x the socket's latency, "
          f"{socket_tput / engine_tput:.1f}x less throughput)")


if __name__ == "__main__":
    main()
