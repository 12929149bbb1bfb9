#!/usr/bin/env python3
"""Every performance figure of idgen in one table, each pair measured side by side.

Run it through scripts/bench.sh, which builds the release binary first:

    scripts/bench.sh              # every row (about 8 minutes on 2 cores)
    scripts/bench.sh ROW...       # some rows: embedded-next serve-embedded
                                  # serve-distributed warm-next lease decode
                                  # reload memory
    scripts/bench.sh smoke        # every row once with tiny sizes (CI): proves
                                  # the script runs; judges no time

A row compares two things in the same run (a command and its floor, one
endpoint and the same server's /healthz), so the ratio is what to read on a
noisy machine. Rows of two whole-process commands run them taking turns, one
run of each per round (hyperfine would run all of one, then all of the other,
and the machine drifts in between); they and the hyperfine rows report medians
over many runs and the spread as the interquartile range relative to the
median; wrk rows alternate their
endpoints for ROUNDS rounds (default 3) and report the median rate and the
range of the rounds. It starts its own redis-server and mariadbd on free
loopback ports in a temporary directory, and never touches another server.
Raw outputs go to target/bench/ (under $CARGO_TARGET_DIR when set).
"""

import json
import os
import random
import re
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
OUT = TARGET / "bench"
IDGEN = os.environ.get("IDGEN_BENCH_BINARY", str(TARGET / "release" / "idgen"))
SMOKE = False
ROWS = ["embedded-next", "serve-embedded", "serve-distributed", "warm-next", "lease", "decode", "reload", "memory"]

# The snowflake ceiling: 4096 IDs per millisecond per worker.
CEILING_IDS_PER_MS = 4096


def size(full, smoke):
    return smoke if SMOKE else full


# ---- processes and servers ------------------------------------------------------------

class Scratch:
    """A temporary directory, and every process started in it, gone on exit."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="idgen-bench-"))
        self.procs = []

    def spawn(self, args, **kw):
        log = open(self.dir / f"{Path(args[0]).name}-{len(self.procs)}.log", "w")
        proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, **kw)
        self.procs.append(proc)
        return proc

    def stop(self, proc):
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def close(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(what, check, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise SystemExit(f"bench: {what} did not come up within {seconds} s")


def answers(cmd):
    return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


class Servers:
    """A redis-server and a mariadbd of the bench's own."""

    def __init__(self, scratch):
        self.redis_port, self.mysql_port = free_port(), free_port()
        d = scratch.dir
        scratch.spawn(["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1",
                       "--save", "", "--appendonly", "no", "--dir", str(d)])
        subprocess.run(["mariadb-install-db", "--no-defaults", f"--datadir={d}/db",
                        "--auth-root-authentication-method=normal", "--skip-test-db", "--user=root"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        scratch.spawn(["mariadbd", "--no-defaults", f"--datadir={d}/db", f"--socket={d}/db.sock",
                       f"--port={self.mysql_port}", "--bind-address=127.0.0.1", "--user=root",
                       "--skip-grant-tables", "--skip-name-resolve", "--skip-log-bin",
                       "--innodb-buffer-pool-size=256M"])
        wait_until("redis-server", lambda: answers(self.redis_cli("PING")))
        wait_until("mariadbd", lambda: answers(self.mysql_cli("SELECT 1", db=None)))
        subprocess.run(self.mysql_cli("CREATE DATABASE idgen", db=None), check=True)
        self.env = {
            "IDGEN_REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "IDGEN_MYSQL_URL": f"mysql://root@127.0.0.1:{self.mysql_port}/idgen",
        }

    def redis_cli(self, *args):
        return ["redis-cli", "-p", str(self.redis_port), *args]

    def mysql_cli(self, sql, db="idgen"):
        return ["mariadb", "-h127.0.0.1", f"-P{self.mysql_port}", "-uroot", *([db] if db else []), "-e", sql]


def embedded_env(scratch, name):
    env = {k: v for k, v in os.environ.items() if not k.startswith("IDGEN_")}
    env["IDGEN_STORE"] = str(scratch.dir / f"{name}.db")
    env["HOME"] = str(scratch.dir)
    return env


def distributed_env(servers):
    env = {k: v for k, v in os.environ.items() if not k.startswith("IDGEN_")}
    env.update(servers.env)
    env["HOME"] = "/nonexistent"
    return env


def idgen(env, *args, stdout=subprocess.DEVNULL):
    return subprocess.run([IDGEN, *args], env=env, stdout=stdout, check=True)


# ---- measuring --------------------------------------------------------------------------

def hyperfine(name, commands, env, runs, warmup, prepare=None, shell=False):
    """Times `commands` in one hyperfine run; returns each one's times in seconds."""
    export = OUT / f"{name}.json"
    args = ["hyperfine", "--warmup", str(warmup), "--runs", str(runs), "--export-json", str(export),
            "--style", "none"]
    if not shell:
        args.append("-N")
    if prepare:
        # Through a shell even under -N, and failing loudly.
        args += ["--prepare", shlex.join(["bash", "-ec", prepare])]
    subprocess.run(args + commands, env=env, stdout=subprocess.DEVNULL, check=True)
    return [Times.of_hyperfine(r) for r in json.load(open(export))["results"]]


class Times(list):
    """One command's wall times in seconds, and its mean CPU time (user + system):
    a busy neighbour delays a process far more than it adds to its CPU time."""

    def __init__(self, times, cpu):
        super().__init__(times)
        self.cpu = cpu

    @classmethod
    def of_hyperfine(cls, result):
        return cls(result["times"], result["user"] + result["system"])


def interleaved(name, commands, env, runs, warmup):
    """Times whole-process `commands` (argument lists) taking turns, one run of
    each per round, so that the machine's drift over the measurement (another
    tenant, the CPU's clock) falls on each command alike. hyperfine runs one
    command's runs, then the other's: on these machines `--version` alone has
    measured 1.8 ms in one such batch and 2.8 ms in the next, which moved a
    ratio of two adjacent batches from 1.45x to 1.88x for the same binary.
    Returns each command's Times."""
    out = os.open(os.devnull, os.O_WRONLY)
    walls = [[] for _ in commands]
    cpus = [[] for _ in commands]
    try:
        for round_ in range(warmup + runs):
            for i, cmd in enumerate(commands):
                started = time.perf_counter()
                pid = os.posix_spawnp(cmd[0], cmd, env, file_actions=[(os.POSIX_SPAWN_DUP2, out, 1)])
                _, status, usage = os.wait4(pid, 0)
                wall = time.perf_counter() - started
                if status != 0:
                    raise SystemExit(f"bench: {shlex.join(cmd)} failed ({status})")
                if round_ >= warmup:
                    walls[i].append(wall)
                    cpus[i].append(usage.ru_utime + usage.ru_stime)
    finally:
        os.close(out)
    with open(OUT / f"{name}.json", "w") as f:
        json.dump({"results": [{"command": shlex.join(cmd), "times": w, "cpu": c}
                               for cmd, w, c in zip(commands, walls, cpus)]}, f)
    return [Times(w, statistics.mean(c)) for w, c in zip(walls, cpus)]


def median(xs):
    return statistics.median(xs)


def spread(xs):
    """The interquartile range relative to the median, as ±%."""
    if len(xs) < 4:
        return f"{len(xs)} runs"
    q = statistics.quantiles(xs, n=4)
    return f"IQR ±{(q[2] - q[0]) / 2 / median(xs) * 100:.0f}%"


def peak_rss_mib(cmd, env, stdin=None):
    """Peak resident memory of a command, from GNU time."""
    report = OUT / "time.txt"
    subprocess.run(["/usr/bin/time", "-f", "%M", "-o", str(report), *cmd], env=env,
                   stdin=stdin, stdout=subprocess.DEVNULL, check=True)
    return int(report.read_text().split()[-1]) / 1024


def served(scratch, env, *args):
    """Starts `idgen serve` on a free port; returns (process, base URL)."""
    port = free_port()
    proc = scratch.spawn([IDGEN, "serve", "--listen", f"127.0.0.1:{port}", *args], env=env)
    base = f"http://127.0.0.1:{port}"

    def healthy():
        try:
            return urllib.request.urlopen(base + "/healthz", timeout=1).status == 200
        except OSError:
            return False

    wait_until("idgen serve", healthy)
    return proc, base


def cpu_seconds(pid):
    """A process's CPU time so far (user + system), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk_rounds(name, base, endpoints, server=None):
    """Requests/s of each endpoint: wrk -t2 -c64, endpoints taking turns for ROUNDS
    rounds. With the server's process, also its CPU time per request in
    microseconds, under `LABEL.cpu`: wrk shares the machine, and the server's own
    CPU per request moves far less with what else runs than the rate does."""
    rounds = 1 if SMOKE else int(os.environ.get("ROUNDS", "3"))
    duration = "1s" if SMOKE else os.environ.get("DURATION", "5s")
    rates = {label: [] for label, _ in endpoints}
    rates.update({f"{label}.cpu": [] for label, _ in endpoints})
    for _ in range(rounds):
        for label, path in endpoints:
            before = cpu_seconds(server.pid) if server else 0
            out = subprocess.run(["wrk", "-t2", "-c64", f"-d{duration}", base + path],
                                 capture_output=True, text=True, check=True).stdout
            (OUT / f"{name}-{label}.txt").write_text(out)
            requests = int(re.search(r"(\d+) requests in", out).group(1))
            rates[label].append(float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)))
            if server:
                rates[f"{label}.cpu"].append((cpu_seconds(server.pid) - before) * 1e6 / max(requests, 1))
            errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
            if errors:
                raise SystemExit(f"bench: {label} answered {errors.group(1)} errors; see {OUT}/{name}-{label}.txt")
    return rates


def rate_spread(xs):
    if len(xs) < 2:
        return "1 round"
    return f"rounds {min(xs) / median(xs):.2f}–{max(xs) / median(xs):.2f}"


# ---- the table --------------------------------------------------------------------------

TABLE = []


def row(path, now, goal, met, spread_text):
    TABLE.append((path, now, goal, "yes" if met else "NO", spread_text))
    print(f"  {path}: {now} (goal {goal}; {spread_text})", flush=True)


def print_table():
    head = ("path", "now", "goal", "met", "spread")
    widths = [max(len(str(r[i])) for r in TABLE + [head]) for i in range(len(head))]
    line = lambda r: "| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |"
    print()
    print(line(head))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in TABLE:
        print(line(r))
    if SMOKE:
        print("\n(smoke: tiny sizes, one run each; the figures mean nothing, the script ran)")


# ---- rows -------------------------------------------------------------------------------

def bench_embedded_next(scratch, _servers):
    env = embedded_env(scratch, "next")
    idgen(env, "init-app", "--app", "1", "--name", "bench")
    idgen(env, "reload-segments", "--quiet")
    version, nxt = interleaved("embedded-next", [[IDGEN, "--version"], [IDGEN, "next", "--app", "1"]],
                               env, runs=size(400, 3), warmup=size(20, 1))
    ratio = median(nxt) / median(version)
    syncs = fsyncs([IDGEN, "next", "--app", "1"], env)
    # The floor of a `next` that makes one durable write: `--version` plus
    # one fsync of this disk, timed beside the store file.
    sync_s = fsync_seconds(scratch.dir, size(200, 3))
    floor = (median(version) + sync_s) / median(version)
    row("embedded `next --app 1` vs `idgen --version`, whole process",
        f"{ratio:.2f}x ({median(nxt) * 1e3:.2f} vs {median(version) * 1e3:.2f} ms; CPU "
        f"{nxt.cpu / version.cpu:.2f}x), {syncs} fsync; the floor with one fsync "
        f"({sync_s * 1e3:.2f} ms here): {floor:.2f}x",
        "≤ 1.5x", ratio <= 1.5, f"{spread(nxt)}, {spread(version)}")


def fsync_seconds(directory, rounds):
    """The median time of one 4 KiB append and its fsync, in `directory`."""
    times = []
    path = directory / "fsync-probe"
    with open(path, "wb") as f:
        for _ in range(rounds):
            started = time.perf_counter()
            f.write(b"\0" * 4096)
            f.flush()
            os.fsync(f.fileno())
            times.append(time.perf_counter() - started)
    path.unlink()
    return median(times)


def fsyncs(cmd, env):
    """How many fsync and fdatasync calls one run of `cmd` makes, by strace."""
    report = OUT / "strace.txt"
    subprocess.run(["strace", "-f", "-c", "-e", "trace=fsync,fdatasync", "-o", str(report), *cmd],
                   env=env, stdout=subprocess.DEVNULL, check=True)
    total = [line.split() for line in report.read_text().splitlines() if line.split()[-1:] == ["total"]]
    return int(total[0][3]) if total else 0


def bench_serve_embedded(scratch, _servers):
    env = embedded_env(scratch, "serve")
    # Large steps, as a deployment serving lists would choose: the ledger is not what is measured.
    idgen(env, "init-app", "--app", "1", "--name", "bench", "--step", "200000", "--max-step", "2000000")
    proc, base = served(scratch, env, "--max-n", "1000")
    rates = wrk_rounds("serve-embedded", base, [("healthz", "/healthz"),
                                                ("get", "/api/segment/get/bench"),
                                                ("list", "/api/segment/list/bench/1000")], server=proc)
    scratch.stop(proc)
    floor, get, lst = (median(rates[k]) for k in ("healthz", "get", "list"))
    row("serve, embedded: `/api/segment/get` vs `/healthz` (wrk -c64)",
        f"{get / floor:.2f}x ({get:,.0f} vs {floor:,.0f} req/s); server CPU per request "
        f"{median(rates['get.cpu']):.1f} vs {median(rates['healthz.cpu']):.1f} µs", "≥ 0.8x", get / floor >= 0.8,
        f"get {rate_spread(rates['get'])}, healthz {rate_spread(rates['healthz'])}")
    row("serve, embedded: `/api/segment/list/{app}/1000`", f"{lst * 1000 / 1e6:.1f} M IDs/s",
        "≥ 10 M IDs/s", lst * 1000 >= 10e6, rate_spread(rates["list"]))


def bench_serve_distributed(scratch, servers):
    env = distributed_env(servers)
    # Steps large enough that one reload stocks every get of the rounds (64
    # shards x 100,000 indexes; 3 rounds of 5 s take about 2 M): a refill from
    # cron is another process's work, and one running beside the rounds only
    # adds noise to whichever endpoint it meets.
    step = size(100000, 1000)
    idgen(env, "init-app", "--app", "1", "--name", "bench", "--dispenser", "queue",
          "--step", str(step), "--max-step", str(step * 10))
    idgen(env, "reload-segments", "--quiet")
    proc, base = served(scratch, env, "--namespace", "bench", "--max-n", "1000")
    rates = wrk_rounds("serve-distributed", base, [("healthz", "/healthz"),
                                                   ("segment", "/api/segment/get/bench"),
                                                   ("snowflake", "/api/snowflake/get/bench")], server=proc)
    scratch.stop(proc)
    floor = median(rates["healthz"])
    floor_cpu = median(rates["healthz.cpu"])
    for key, what in (("segment", "segment get (queue app)"), ("snowflake", "snowflake get")):
        r = median(rates[key]) / floor
        cpu = median(rates[f"{key}.cpu"])
        row(f"serve, distributed: {what} vs `/healthz`",
            f"{r:.2f}x ({median(rates[key]):,.0f} req/s); server CPU per request {cpu:.1f} vs {floor_cpu:.1f} µs",
            "≥ 0.9x", r >= 0.9, f"{rate_spread(rates[key])}, healthz {rate_spread(rates['healthz'])}")


def bench_warm_next(scratch, servers):
    env = distributed_env(servers)
    idgen(env, "init-app", "--app", "2", "--name", "warm", "--dispenser", "queue")
    idgen(env, "reload-segments", "--quiet")
    bare = size(200000, 100)
    script = "".join(f"RPUSH bench.bare {i}\n" for i in range(bare))
    subprocess.run(servers.redis_cli(), input=script.encode(), stdout=subprocess.DEVNULL, check=True)
    lpop, nxt = interleaved("warm-next", [servers.redis_cli("LPOP", "bench.bare"),
                                          [IDGEN, "next", "--app", "2"]],
                            env, runs=size(400, 3), warmup=size(20, 1))
    ratio = median(nxt) / median(lpop)
    row("warm `idgen next` vs `redis-cli LPOP`, whole process",
        f"{ratio:.2f}x ({median(nxt) * 1e3:.2f} vs {median(lpop) * 1e3:.2f} ms; CPU "
        f"{nxt.cpu / lpop.cpu:.2f}x)", "≤ 0.9x",
        ratio <= 0.9, f"{spread(nxt)}, {spread(lpop)}")


def bench_lease(scratch, servers):
    env = distributed_env(servers)
    count = size(1_000_000, 10_000)
    (times,) = hyperfine("lease", [f"{IDGEN} lease --namespace lease --count {count}"], env,
                         runs=size(15, 2), warmup=size(2, 0))
    floor_s = count / CEILING_IDS_PER_MS / 1000
    share = floor_s / median(times)
    row(f"`lease --count {count:,}` vs the layout's ceiling ({floor_s * 1e3:.1f} ms)",
        f"{share * 100:.1f}% ({median(times) * 1e3:.1f} ms)", "≥ 97%", share >= 0.97, spread(times))


def bench_decode(scratch, _servers):
    count = size(100_000, 1_000)
    ids = scratch.dir / "ids.txt"
    rng = random.Random(7)
    epoch = 1288834974657
    with open(ids, "w") as f:
        for i in range(count):
            ms = 1700000000000 + i * 37 - epoch
            f.write(f"{(ms << 22) | (rng.randrange(1024) << 12) | rng.randrange(4096)}\n")
    env = embedded_env(scratch, "decode")
    layout, guess = hyperfine("decode", [f"{IDGEN} decode --layout snowflake < {ids}",
                                         f"{IDGEN} decode --guess < {ids}"], env,
                              runs=size(10, 2), warmup=size(1, 0), shell=True)
    with open(ids) as stdin:
        rss = peak_rss_mib([IDGEN, "decode", "--guess"], env, stdin=stdin)
    ratio = median(guess) / median(layout)
    row(f"`decode --guess` vs `decode --layout`, {count:,} IDs",
        f"{ratio:.2f}x ({median(guess) * 1e3:.0f} vs {median(layout) * 1e3:.0f} ms), {rss:.0f} MiB",
        "≤ 2x, ≤ 50 MiB", ratio <= 2 and rss <= 50, f"{spread(guess)}, {spread(layout)}")


def bench_reload(scratch, servers):
    apps = size(64, 2)
    # A MySQL database and a Redis database of the row's own: a reload takes
    # every app, and the rows before made theirs in the shared ones (app 1 of
    # `serve` with steps of 100,000, which alone would push 6.4 M indexes).
    subprocess.run(servers.mysql_cli("CREATE DATABASE IF NOT EXISTS reload", db=None), check=True)
    env = distributed_env(servers)
    env["IDGEN_REDIS_URL"] = f"redis://127.0.0.1:{servers.redis_port}/1"
    env["IDGEN_MYSQL_URL"] = f"mysql://root@127.0.0.1:{servers.mysql_port}/reload"
    redis_cli = servers.redis_cli("-n", "1")
    for app in range(100, 100 + apps):
        idgen(env, "init-app", "--app", str(app), "--name", f"reload{app}", "--dispenser", "queue")
    # Each run starts from an empty Redis and no refill history, so every shard loads one step.
    prepare = (f"{shlex.join([*redis_cli, 'FLUSHDB'])} >/dev/null && "
               f"{shlex.join(servers.mysql_cli('DELETE FROM idgen_refill', db='reload'))}")
    times = {}
    for dispenser in ("queue", "range"):
        if dispenser == "range":
            for app in range(100, 100 + apps):
                idgen(env, "app", "set", str(app), "--dispenser", "range", "--yes")
        (times[dispenser],) = hyperfine(f"reload-{dispenser}", [f"{IDGEN} reload-segments --quiet"], env,
                                        runs=size(5, 1), warmup=0, prepare=prepare)
    # The floor of the queue's data: the same indexes, 1,000 per shard, pushed
    # with plain pipelined RPUSHes (no script, no ledger, no locks).
    pushes = scratch.dir / "rpush.resp"
    with open(pushes, "wb") as f:
        values = b"".join(b"$%d\r\n%d\r\n" % (len(str(i)), i) for i in range(1, 1001))
        for shard in range(apps * 64):
            key = b"floor.%d" % shard
            f.write(b"*1002\r\n$5\r\nRPUSH\r\n$%d\r\n%s\r\n" % (len(key), key) + values)
    (floor,) = hyperfine("reload-floor", [f"{shlex.join([*redis_cli, '--pipe'])} < {pushes}"], env,
                         runs=size(5, 1), warmup=0, prepare=shlex.join([*redis_cli, "FLUSHDB"]),
                         shell=True)
    q, r, f = median(times["queue"]), median(times["range"]), median(floor)
    row(f"`reload-segments` from empty, {apps} apps x 64 shards, queue (range, and Redis's own RPUSH of "
        "the same indexes, beside it)",
        f"{q:.2f} s (range {r:.2f} s; RPUSH floor {f:.2f} s, queue {q / f:.1f}x of it)", "≤ 0.3 s", q <= 0.3,
        f"queue {spread(times['queue'])}, range {spread(times['range'])}, floor {spread(floor)}")


def bench_memory(scratch, _servers):
    env = embedded_env(scratch, "memory")
    idgen(env, "init-app", "--app", "1", "--name", "bench")
    count = size(10_000_000, 100_000)
    rss = peak_rss_mib([IDGEN, "next", "--app", "1", "--count", str(count)], env)
    row(f"peak memory of `next --count {count:,}` (embedded)", f"{rss:.0f} MiB", "≤ 30 MiB", rss <= 30,
        "one run")
    clients, n = size(200, 5), size(100_000, 10_000)
    above = slow_clients_rss(scratch, env, clients, n)
    row(f"`serve` memory with {clients} clients of `/list/{n:,}` that never read",
        f"+{above:.0f} MiB above idle", "≤ 30 MiB", above <= 30, "one run")


def slow_clients_rss(scratch, env, clients, n):
    """serve's peak resident memory above idle while `clients` never read a list of `n`."""
    proc, base = served(scratch, env, "--max-n", str(n), "--write-timeout", "5m")
    port = int(base.rsplit(":", 1)[1])

    def rss():
        status = open(f"/proc/{proc.pid}/status").read()
        return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024

    def issued():
        text = urllib.request.urlopen(base + "/metrics").read().decode()
        return sum(float(line.split()[-1]) for line in text.splitlines()
                   if line.startswith("idgen_serve_ids_issued_total"))

    urllib.request.urlopen(f"{base}/api/segment/list/1/{n}").read()
    idle = rss()
    held = []
    for _ in range(clients):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(f"GET /api/segment/list/1/{n} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        held.append(s)
    # Until the server stops taking IDs for them: every writer is blocked on a full socket.
    last, still, started = -1.0, 0, time.time()
    while still < 5 and time.time() - started < 120:
        now = issued()
        still = still + 1 if now == last else 0
        last = now
        time.sleep(0.2)
    peak = rss()
    for s in held:
        s.close()
    scratch.stop(proc)
    return peak - idle


BENCHES = {
    "embedded-next": bench_embedded_next,
    "serve-embedded": bench_serve_embedded,
    "serve-distributed": bench_serve_distributed,
    "warm-next": bench_warm_next,
    "lease": bench_lease,
    "decode": bench_decode,
    "reload": bench_reload,
    "memory": bench_memory,
}


def main(argv):
    global SMOKE
    wanted = argv or ["all"]
    if wanted == ["smoke"]:
        SMOKE, wanted = True, ["all"]
    if wanted == ["all"]:
        wanted = ROWS
    unknown = [w for w in wanted if w not in BENCHES]
    if unknown:
        raise SystemExit(f"bench: no row {unknown[0]!r}; rows: all, smoke, {', '.join(ROWS)}")
    for tool in ("hyperfine", "wrk", "redis-server", "redis-cli", "mariadbd", "mariadb", "/usr/bin/time",
                 "strace"):
        if not shutil.which(tool):
            raise SystemExit(f"bench: {tool} is missing; install it (apt-get install hyperfine wrk "
                             "redis-server mariadb-server time strace)")
    OUT.mkdir(parents=True, exist_ok=True)
    scratch = Scratch()
    try:
        servers = None
        if any(w in ("serve-distributed", "warm-next", "lease", "reload") for w in wanted):
            servers = Servers(scratch)
        print(f"== idgen benchmarks ({IDGEN}); raw outputs in {OUT}", flush=True)
        for name in wanted:
            print(f"== {name}", flush=True)
            BENCHES[name](scratch, servers)
        print_table()
    finally:
        scratch.close()


if __name__ == "__main__":
    main(sys.argv[1:])
