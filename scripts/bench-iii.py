#!/usr/bin/env python3
"""`coder::read-file` of a small file through the iii engine vs. over coderd's Unix socket.

One `coderd iii` daemon serves both paths at once (the same documents), so the difference is what
the engine adds: the hop from the caller to the engine, the engine's routing, and the hop to the
worker. Both clients are Python in this process: a raw JSON-RPC socket client, and the `iii-sdk`
client (`scripts/install-iii-client.sh` puts it in target/iii-venv). Reports p50/p99 of sequential
calls and the throughput of 8 concurrent callers (each socket caller on its own connection, the
engine callers sharing one SDK client as an iii agent would).

Then the soak (`--soak`, default 20000; 0 skips it): that many calls from 4 callers, each its own
iii client (4 agents) through the engine, then the same over 4 socket connections; every reply is
checked (the file's bytes, and through the engine the `workspace` it came from), a call with no
reply within `--timeout` seconds is counted lost. Reports lost and wrong replies, p50/p99 per
path, and how many calls coderd's `stats` saw. `--opentelemetry` turns the worker's SDK export on
(`iii.opentelemetry: true`), to compare.

    scripts/install-iii-client.sh
    target/iii-venv/bin/python scripts/bench-iii.py [--coderd target/release/coderd] [--calls 2000]
        [--soak 20000] [--opentelemetry] [--engine-log info]
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


def read_calls(client):
    """How many `coder::read-file` calls coderd's `stats` counted since it started."""
    stats = client.connection.call("stats", {})["result"]
    return stats["since_start"]["methods"]["coder::read-file"]["requests"]


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


def soak(make_call, check, callers, total):
    """`total` calls from `callers` threads, each with its own client; (latencies, lost, wrong)."""
    latencies, lost, wrong = [], [], []
    lock = threading.Lock()

    def run(i):
        call = make_call(i)
        mine, my_lost, my_wrong = [], [], []
        for n in range(total // callers):
            start = time.perf_counter()
            try:
                answer = call()
            except Exception as e:  # a timeout is a lost reply; any other error is wrong too
                # The invocation id (the SDK's InvocationError carries it) finds the call's hops
                # in the engine's log.
                what = f"caller {i} call {n}: {e} [invocation {getattr(e, 'invocation_id', '?')}]"
                (my_lost if "timeout" in str(e).lower() or "timed out" in str(e).lower()
                 else my_wrong).append(what)
                continue
            mine.append(time.perf_counter() - start)
            if not check(answer):
                my_wrong.append(f"caller {i} call {n}: {answer}")
        with lock:
            latencies.extend(mine)
            lost.extend(my_lost)
            wrong.extend(my_wrong)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(callers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, lost, wrong


def hops(lost, engine_log):
    """For each lost call, what the engine's debug log says of its invocation id (docs/iii.md,
    "Where the reply can go"): routed to the worker, and whether the worker's result was dropped."""
    lines = engine_log.splitlines()
    dropped = {lines[i + 1].strip() for i in range(len(lines) - 1)
               if "Did not find caller for invocation" in lines[i]}
    routed = engine_log.count("Remembering invocation")  # 0: the debug level did not take
    out = [f"the engine routed {routed} invocations and dropped {len(dropped)} worker results"]
    for what in lost:
        ident = what.rsplit("[invocation ", 1)[-1].rstrip("]")
        seen = f"invocation_id: {ident}" in engine_log
        gone = f"invocation_id: {ident}" in dropped
        out.append(f"{ident}: routed by the engine: {seen}; its result dropped by the engine: {gone}")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--coderd", default=str(REPO / "target/debug/coderd"))
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--callers", type=int, default=8)
    ap.add_argument("--soak", type=int, default=20000)
    ap.add_argument("--soak-callers", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--opentelemetry", action="store_true")
    # `info` for latency figures without the engine's per-call debug lines.
    ap.add_argument("--engine-log", default="info,iii::engine=debug")
    args = ap.parse_args()
    # The callers' own SDK export stays off: what is measured is the worker's (coderd's) setting.
    os.environ["OTEL_ENABLED"] = "false"
    from iii import InitOptions, register_worker  # from target/iii-venv

    tmp = Path(tempfile.mkdtemp(prefix="coderd-bench-iii-"))
    ws = tmp / "ws"
    ws.mkdir()
    (ws / "small.txt").write_text("".join(f"line {i}: some small file content\n" for i in range(30)))
    (tmp / "coderd.yaml").write_text(
        "checkpoints: false\n" + ("iii:\n  opentelemetry: true\n" if args.opentelemetry else ""))
    port = free_port()
    (tmp / "engine.yaml").write_text(
        f"workers:\n  - name: iii-worker-manager\n    config:\n      host: 127.0.0.1\n      port: {port}\n"
        # By default its routing at debug level: each invocation routed, each result it dropped.
        f"  - name: iii-observability\n    config:\n      level: \"{args.engine_log}\"\n")
    env = dict(os.environ, III_TELEMETRY_ENABLED="false")
    procs = []
    try:
        procs.append(subprocess.Popen(
            [engine_binary(), "--config", str(tmp / "engine.yaml"), "--no-update-check"],
            cwd=tmp, env=env, stdout=open(tmp / "engine.log", "w"), stderr=subprocess.STDOUT))
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
        soaked = None
        if args.soak:
            content = (ws / "small.txt").read_text()
            ran_before = read_calls(client)
            soak_request = dict(request, timeout_ms=int(args.timeout * 1000))
            agents = []

            def agent(i):
                a = register_worker(f"ws://127.0.0.1:{port}", InitOptions(worker_name=f"soak-{i}"))
                agents.append(a)
                return lambda: a.trigger(soak_request)

            engine_soak = soak(agent, lambda a: a["content"] == content and a["workspace"] == str(ws),
                               args.soak_callers, args.soak)
            for a in agents:
                a.shutdown()
            ran_engine = read_calls(client) - ran_before
            socket_soak = soak(lambda i: (lambda c: lambda: c.read(params))(SocketClient(sock)),
                               lambda a: a["content"] == content, args.soak_callers, args.soak)
            soaked = (engine_soak, socket_soak, ran_engine)
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
    if soaked:
        (engine_soak, socket_soak, ran_engine) = soaked
        otel = "on" if args.opentelemetry else "off"
        print(f"\nsoak: {args.soak} calls from {args.soak_callers} callers per path, worker's "
              f"OpenTelemetry export {otel}; coderd ran {ran_engine} of the engine's calls\n")
        print("| path | calls | lost | wrong | p50 (ms) | p99 (ms) |")
        print("|---|---|---|---|---|---|")
        for name, (lat, lost, wrong) in (("iii engine", engine_soak), ("Unix socket", socket_soak)):
            p50, p99 = percentiles(lat) if lat else (float("nan"), float("nan"))
            print(f"| {name} | {args.soak} | {len(lost)} | {len(wrong)} | {p50:.3f} | {p99:.3f} |")
        for what in engine_soak[1][:3] + engine_soak[2][:3] + socket_soak[1][:3] + socket_soak[2][:3]:
            print("  ", what)
        for line in hops(engine_soak[1], (tmp / "engine.log").read_text(errors="replace")):
            print("  ", line)
        if engine_soak[1] or engine_soak[2] or socket_soak[1] or socket_soak[2]:
            sys.exit(f"bench-iii: replies lost or wrong; logs in {tmp}")


if __name__ == "__main__":
    main()
