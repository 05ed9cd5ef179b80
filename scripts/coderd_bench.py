"""Shared by the Python benchmark scripts: a coderd started on a workspace folder, and one persistent
newline-delimited JSON-RPC connection to it (what an agent's backend keeps open). The one socket
client of the benchmarks: a script that talks to the socket imports `Connection`, never its own;
`on_tree`, a daemon on an existing tree with state of its own; and `until`, the one way the scripts wait for a language server that is still loading, `p50`, and
`cpu_s`, a process's CPU time."""
import json, os, shutil, socket, statistics, subprocess, tempfile, time


class Connection:
    """One persistent connection to a coderd socket."""

    def __init__(self, sock_path, tries=1000):
        """Connects, trying every 10 ms while the daemon comes up; the last failure is raised."""
        for attempt in range(tries):
            self.s = socket.socket(socket.AF_UNIX)
            try:
                self.s.connect(sock_path)
                break
            except OSError:
                self.s.close()
                if attempt + 1 == tries:
                    raise
                time.sleep(0.01)
        self.f = self.s.makefile("rwb")
        self.id = 0

    def call(self, method, params, **members):
        """The whole JSON-RPC reply (`result` or `error`); `members` go beside `params`."""
        self.id += 1
        frame = {"jsonrpc": "2.0", "id": self.id, "method": method, "params": params, **members}
        line = json.dumps(frame)
        self.f.write((line + "\n").encode())
        self.f.flush()
        return json.loads(self.f.readline())


class Daemon:
    """coderd on a fresh temporary workspace (`ws`, filled by the caller) with its socket, state and
    config in a folder beside it (`side`)."""

    def __init__(self, coderd, prefix, config="", env=None):
        self.ws = tempfile.mkdtemp(prefix=prefix)
        self.side = self.ws + "-side"
        os.mkdir(self.side)
        self.coderd, self.config, self.env = coderd, config, env or {}
        self.proc = None

    def start(self):
        """Starts the daemon on `ws` as it is now and connects to it."""
        cfg = os.path.join(self.side, "coderd.yaml")
        with open(cfg, "w") as f:
            f.write(self.config)
        self.sock = os.path.join(self.side, "coderd.sock")
        env = dict(os.environ, XDG_STATE_HOME=self.side, XDG_RUNTIME_DIR=self.side, **self.env)
        self.proc = subprocess.Popen([self.coderd, "--root", self.ws, "--socket", self.sock,
                                      "--config", cfg], stderr=subprocess.DEVNULL, env=env)
        self.connection = Connection(self.sock)
        return self

    def call(self, method, params):
        """The whole JSON-RPC reply (`result` or `error`)."""
        return self.connection.call(method, params)

    def close(self):
        if self.proc:
            self.proc.terminate()
            self.proc.wait()
        shutil.rmtree(self.ws, ignore_errors=True)
        shutil.rmtree(self.side, ignore_errors=True)


def on_tree(coderd, root, prefix, stderr=subprocess.DEVNULL, env=None):
    """coderd serving an existing tree `root`, its socket, state and config in a fresh folder of its
    own (`side`, checkpoints off): (process, side, connection), once it answers."""
    side = tempfile.mkdtemp(prefix=prefix)
    sock = os.path.join(side, "s.sock")
    cfg = os.path.join(side, "coderd.yaml")
    open(cfg, "w").close()
    env = dict(os.environ, XDG_RUNTIME_DIR=side, XDG_STATE_HOME=side, XDG_DATA_HOME=side,
               CODER_CHECKPOINTS="off", **(env or {}))
    proc = subprocess.Popen([coderd, "--root", root, "--socket", sock, "--config", cfg], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr)
    return proc, side, Connection(sock, tries=30000)


def until(f, timeout):
    """Calls f until it answers something non-empty (a server still loading answers nothing), at
    most `timeout` seconds; the last answer."""
    deadline = time.monotonic() + timeout
    while True:
        value = f()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.5)


def p50(xs):
    """The median, NaN for no samples."""
    return statistics.median(xs) if xs else float("nan")


def cpu_s(pid):
    """A process's CPU time so far (user + system, all threads, and the children it has waited for,
    such as the git it runs): unlike wall time, about the same on a busy machine as on an idle one."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
