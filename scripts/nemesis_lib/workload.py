"""The clients: every kind of idgen use the issue names, each a thread that
runs real idgen processes in a client namespace and records what they did.

  takers      `next --app A [--count N] [--gate-pass P]` in a loop
  limit taker `next` on app 4, whose max_limit_id the app setter moves
  reloader    `reload-segments --json` in a loop, as cron runs it
  serve       one `idgen serve` (segments and a leased namespace), restarted
              when it dies; HTTP clients drive it from another namespace
              (http_load.py)

On Redis alone (no segment ledger) only the holders, churners and `serve`
(its snowflake IDs) run.
  holders     `lease --stdin --json` coprocesses, each under faketime with a
              clock the nemesis steps, restarted when they die
  churners    `lease --count N --json` in a loop: acquire, issue, release, so
              worker IDs change hands all the time
  migrator    `migrate --app 3 --to main|second --yes` back and forth
  app setter  `app set`: steps, dispenser flips, app 4's max_limit_id up
              (and now and then down, with --yes)

Every process gets the profile's environment (URLs, --timeout) and nothing
else from the nemesis's own environment but PATH, so no config file or
variable of the machine leaks in.
"""

import glob
import json
import os
import queue
import random
import subprocess
import sys
import threading
import time

from .history import Recorder

NAMESPACE = "nemesis"
# Eight worker IDs for four long-lived holders and two churners: workers
# change hands all the time, which is what the overlap check needs.
LAYOUT = ["--bits", "time:41,worker:3,seq:19", "--unit", "ms", "--epoch", "2024-01-01"]
LEASE_TTL = "2s"
def find_libfaketime():
    """libfaketime's multithreaded library (Debian's `faketime` package), or None."""
    for pattern in ("/usr/lib/*-linux-gnu/faketime/libfaketimeMT.so.1", "/usr/lib/faketime/libfaketimeMT.so.1",
                    "/usr/local/lib/faketime/libfaketimeMT.so.1"):
        found = sorted(glob.glob(pattern))
        if found:
            return found[0]
    return None

# App 4's max_limit_id: indexes up to LIMIT_STEP per shard at first; the app
# setter raises it by LIMIT_STEP now and then, so takers meet the limit
# (exit 4) and the checker sees every ID against the limit of its time.
LIMIT_STEP = 200 << 14
LIMIT_APP = 4
MIGRATED_APP = 3

APPS = [
    {"app": 1, "name": "orders", "dispenser": "queue", "step": 200, "min_step": 50, "max_step": 800},
    {"app": 2, "name": "users", "dispenser": "range", "step": 300, "min_step": 50, "max_step": 800},
    {"app": MIGRATED_APP, "name": "moving", "dispenser": "queue", "step": 100, "min_step": 50, "max_step": 400},
    {"app": LIMIT_APP, "name": "limited", "dispenser": "queue", "step": 50, "min_step": 20, "max_step": 100,
     "max_limit_id": LIMIT_STEP},
]
SERVED_APPS = (1, 2, 3)

# A call that has printed nothing this long (less any time the nemesis kept
# it stopped) is killed and recorded as hung: a violation. Silence, not
# length: a lease holder that cannot prove its lease waits it out as
# documented, reporting `waiting` on stderr at every pause, for as long as
# the faults keep Redis from proving one (in redis-alone seed 80011 a pair
# kept failing over for eight minutes, and two `lease --count` calls, alive
# and reporting, were killed as hung at 180 s of running time). Whether
# leases come back once the faults heal is the recovery check's.
HUNG_AFTER = 180.0


class Streams:
    """A call's stdout and stderr, read as they come, and when it last
    printed anything."""

    def __init__(self, proc):
        self.proc = proc
        self.chunks = ([], [])
        self.last = (time.time(), 0.0)
        self.readers = [threading.Thread(target=self._pump, args=(stream, sink), daemon=True)
                        for stream, sink in zip((proc.popen.stdout, proc.popen.stderr), self.chunks)]
        for reader in self.readers:
            reader.start()

    def _pump(self, stream, sink):
        for line in iter(stream.readline, b""):
            sink.append(line)
            self.last = (time.time(), self.proc.stopped_total)
        stream.close()

    def silent_for(self):
        """Seconds since the call last printed (or started), less the time
        the nemesis kept it stopped meanwhile."""
        at, stopped_then = self.last
        return time.time() - at - (self.proc.stopped_total - stopped_then)

    def read(self):
        """Everything the call printed, once it has ended."""
        for reader in self.readers:
            reader.join()
        return b"".join(self.chunks[0]), b"".join(self.chunks[1])


class Clients:
    """Starts, runs and stops every client of one run."""

    def __init__(self, profile, binary, run_dir, registry, seed, log, migrate=True):
        self.profile = profile
        self.binary = binary
        self.run_dir = run_dir
        self.registry = registry
        self.log = log
        self.rng = random.Random(f"{seed}:clients")
        self.stop_event = threading.Event()
        self.threads = []
        self.migrate = migrate
        self.clock_files = {}
        self.holders = []
        self.serve = None
        self.http = None
        # The Cluster's `serve` of segment IDs only, beside its lease one.
        self.serve_segments = None
        self.http_segments = None
        self._seq = 0
        self._seq_lock = threading.Lock()
        self.libfaketime = find_libfaketime()

    def history(self, name):
        return Recorder(os.path.join(self.run_dir, "history", f"{name}.jsonl"))

    def next_seq(self):
        with self._seq_lock:
            self._seq += 1
            return self._seq

    # -- one idgen call ---------------------------------------------------------

    def call(self, rec, client, host, args, env_index=0, extra=None, cmd=None, leases=False):
        """Runs `idgen ARGS` in `host`'s namespace to completion and records it."""
        argv = host.wrap([self.binary, *args])
        env = self.profile.client_env(env_index, leases=leases)
        t0 = time.time()
        proc = self.registry.spawn(f"client:{client}", argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        streams = Streams(proc)
        hung = False
        while True:
            try:
                proc.popen.wait(timeout=5)
                break
            except subprocess.TimeoutExpired:
                if proc.stopped_at is None and streams.silent_for() > HUNG_AFTER:
                    hung = True
                    stacks = self.dump_stacks(client, proc.pid)
                    proc._signal_group(9)
        out, err = streams.read()
        t1 = time.time()
        code = proc.popen.returncode
        lines = err.decode("utf-8", "replace").strip().splitlines()
        ids = []
        for line in out.decode("ascii", "replace").splitlines():
            line = line.strip()
            if line.isdigit():
                ids.append(int(line))
        record = {
            "type": "call", "client": client, "cmd": cmd or args[0], "args": args,
            "t0": t0, "t1": t1, "exit": code if code >= 0 else None, "signal": -code if code < 0 else None,
            "killed": proc.killed_by_nemesis, "hung": hung, "stopped_s": round(proc.stopped_total, 3),
            "ids": ids, "err": lines[-1][:400] if lines else "",
        }
        if hung:
            record["stacks"] = stacks
        if args[0] == "lease" and "--json" in args:
            # The lease's events, in the order it reported them.
            record["events"] = [e for e in map(_json_or_none, lines) if e is not None]
        if extra:
            record.update(extra)
        rec.write(record)
        return record, out

    def dump_stacks(self, client, pid):
        """Every thread's stack of a hung call, before it is killed, into
        `hung/CLIENT-PID.txt` of the run (gdb, with the binary's symbols); the
        file's path, relative to the run, or why there is none."""
        path = os.path.join("hung", f"{client}-{pid}.txt")
        os.makedirs(os.path.join(self.run_dir, "hung"), exist_ok=True)
        try:
            dump = subprocess.run(["gdb", "-p", str(pid), "-batch", "-ex", "thread apply all bt"],
                                  stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"no stacks: gdb failed ({e})"
        with open(os.path.join(self.run_dir, path), "wb") as f:
            f.write(dump.stdout + dump.stderr)
        return path

    # -- setup ----------------------------------------------------------------------

    @property
    def segments(self):
        """Whether the profile has a segment ledger (Redis alone has none:
        only leases and snowflake IDs run there)."""
        return self.profile.name != "redis-alone"

    def setup(self):
        """Creates the apps (retrying while servers settle), before any fault."""
        if not self.segments:
            return
        rec = self.history("setup")
        host = self.profile.clients[0]
        for app in APPS:
            args = ["--dispenser", app["dispenser"], "init-app", "--app", str(app["app"]), "--name", app["name"],
                    "--step", str(app["step"]), "--min-step", str(app["min_step"]), "--max-step", str(app["max_step"]),
                    "--target-interval", "10s"]
            if "max_limit_id" in app:
                args += ["--max-limit-id", str(app["max_limit_id"])]
            for _ in range(30):
                record, _ = self.call(rec, "setup", host, args, cmd="init-app")
                if record["exit"] == 0:
                    break
                time.sleep(1)
            else:
                raise RuntimeError(f"init-app {app['app']} kept failing: {record['err']}")
        rec.close()

    # -- the loops ------------------------------------------------------------------

    def loop(self, name, body):
        def run():
            rng = random.Random(f"{self.rng.random()}:{name}")
            rec = self.history(name)
            try:
                while not self.stop_event.is_set():
                    body(rec, rng)
            except Exception as e:  # noqa: BLE001 - a broken client is reported, not hidden
                rec.write({"type": "client_error", "client": name, "t": time.time(), "error": repr(e)})
                self.log(f"client {name} stopped: {e!r}")
            finally:
                rec.close()

        thread = threading.Thread(target=run, name=name, daemon=True)
        self.threads.append(thread)
        thread.start()

    def start(self):
        hosts = self.profile.clients
        if self.segments:
            for i in range(3):
                self.loop(f"taker{i + 1}", self._taker(hosts[i % 2], i))
            self.loop("limit-taker", self._limit_taker(hosts[1]))
            self.loop("reloader", self._reloader(hosts[1]))
            self.loop("app-setter", self._app_setter(hosts[0]))
            if self.migrate:
                self.loop("migrator", self._migrator(hosts[1]))
        for i in range(2):
            self.loop(f"churner{i + 1}", self._churner(hosts[i % 2], i))
        for i in range(3):
            holder = Holder(self, f"holder{i + 1}", hosts[i % 2], i)
            self.holders.append(holder)
            self.loop(holder.name, holder.body)
        self.serve = Serve(self)
        self.loop("serve", self.serve.body)
        self.http = HttpLoad(self, self.serve, SERVED_APPS if self.profile.serve_segments else (), NAMESPACE, "http")
        self.http.start()
        if self.segments and not self.profile.serve_segments:
            self.serve_segments = Serve(self, "serve-segments", self.profile.serve_segments_host, leases=False)
            self.loop("serve-segments", self.serve_segments.body)
            self.http_segments = HttpLoad(self, self.serve_segments, SERVED_APPS, "", "http-segments")
            self.http_segments.start()

    def stop(self):
        """Ends every client once (a second SIGTERM would stop serve at once)."""
        if self.stop_event.is_set():
            return
        self.stop_event.set()
        for holder in self.holders:
            holder.close()
        for serve in (self.serve, self.serve_segments):
            if serve:
                serve.close()
        for http in (self.http, self.http_segments):
            if http:
                http.stop()
        for thread in self.threads:
            thread.join(timeout=60)

    def _sleep(self, rng, low, high):
        self.stop_event.wait(rng.uniform(low, high))

    def _taker(self, host, i):
        def body(rec, rng):
            app = rng.choice(SERVED_APPS)
            count = rng.choice((1, 1, 1, 10, 100, 500))
            args = ["next", "--app", str(app), "--count", str(count)]
            if rng.random() < 0.3:
                args += ["--gate-pass", f"user-{rng.randrange(10000)}"]
            self.call(rec, f"taker{i + 1}", host, args, env_index=i, extra={"app": app, "count": count})
            self._sleep(rng, 0, 0.05)
        return body

    def _limit_taker(self, host):
        def body(rec, rng):
            count = rng.choice((1, 10, 100))
            self.call(rec, "limit-taker", host, ["next", "--app", str(LIMIT_APP), "--count", str(count)], env_index=1,
                      extra={"app": LIMIT_APP, "count": count})
            self._sleep(rng, 0, 0.2)
        return body

    def _reloader(self, host):
        def body(rec, rng):
            self.call(rec, "reloader", host, ["reload-segments", "--json"], env_index=2)
            self._sleep(rng, 0.5, 2.0)
        return body

    def _app_setter(self, host):
        state = {"limit": LIMIT_STEP, "dispenser": "range"}

        def body(rec, rng):
            self._sleep(rng, 4, 12)
            if self.stop_event.is_set():
                return
            roll = rng.random()
            extra = {}
            if roll < 0.35:
                limit = state["limit"] + LIMIT_STEP
                args = ["app", "set", str(LIMIT_APP), "--max-limit-id", str(limit)]
                extra = {"app": LIMIT_APP, "limit": limit}
            elif roll < 0.45:
                # Lower, but not below what may be issued: refused (exit 7) if below.
                # Never to 0, which lifts the limit (the app would be limited no
                # more, and every raise after would be a lowering refused for
                # want of --yes), nor below it, which is not a number of idgen's.
                limit = max(state["limit"] - LIMIT_STEP // 4, LIMIT_STEP // 4)
                args = ["app", "set", str(LIMIT_APP), "--max-limit-id", str(limit), "--yes"]
                extra = {"app": LIMIT_APP, "limit": limit}
            elif roll < 0.7:
                kind = "queue" if state["dispenser"] == "range" else "range"
                args = ["--dispenser", kind, "app", "set", "2"]
                extra = {"app": 2, "dispenser": kind}
            else:
                app = rng.choice((1, 2, 3))
                step = rng.choice((50, 100, 200, 400))
                args = ["app", "set", str(app), "--step", str(step)]
                extra = {"app": app, "step": step}
            record, _ = self.call(rec, "app-setter", host, args, extra=extra, cmd="app-set")
            if record["exit"] == 0:
                if "limit" in extra:
                    state["limit"] = extra["limit"]
                if "dispenser" in extra:
                    state["dispenser"] = extra["dispenser"]
        return body

    def _migrator(self, host):
        state = {"on": "main"}

        def body(rec, rng):
            self._sleep(rng, 10, 30)
            if self.stop_event.is_set():
                return
            to = "second" if state["on"] == "main" else "main"
            record, _ = self.call(rec, "migrator", host, ["migrate", "--app", str(MIGRATED_APP), "--to", to, "--yes", "--json"],
                                  extra={"app": MIGRATED_APP, "to": to})
            if record["exit"] == 0:
                state["on"] = to
        return body

    def _churner(self, host, i):
        name = f"churner{i + 1}"

        def body(rec, rng):
            count = rng.choice((1, 100, 1000, 2000))
            holder = f"{name}-{self.next_seq()}"
            args = ["lease", "--namespace", NAMESPACE, *LAYOUT, "--ttl", LEASE_TTL, "--count", str(count), "--json",
                    "--holder", holder]
            record, _ = self.call(rec, name, host, args, extra={"holder": holder, "count": count, "snowflake": True},
                                  leases=True)
            self._sleep(rng, 0, 0.5)
        return body

    def clock_file(self, name):
        path = os.path.join(self.run_dir, "clocks", name)
        if name not in self.clock_files:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write("+0\n")
            self.clock_files[name] = path
        return path

    def faketime_env(self, name):
        """The environment that runs a holder on a clock the nemesis can step:
        libfaketime re-reads the offset in its file at most once a second."""
        return [
            "env", f"LD_PRELOAD={self.libfaketime}", f"FAKETIME_TIMESTAMP_FILE={self.clock_file(name)}",
            "FAKETIME_CACHE_DURATION=1", "DONT_FAKE_MONOTONIC=1",
        ]


class Holder:
    """`lease --stdin --json` as a coprocess: the driver asks for N IDs at a
    time and reads N lines back; stderr's events are recorded as they come."""

    def __init__(self, clients, name, host, index):
        self.clients = clients
        self.name = name
        self.host = host
        self.index = index
        self.proc = None
        self.generation = 0

    def body(self, rec, rng):
        c = self.clients
        self.generation += 1
        holder = f"{self.name}-{self.generation}"
        args = ["lease", "--stdin", "--json", "--namespace", NAMESPACE, *LAYOUT, "--ttl", LEASE_TTL, "--holder", holder]
        argv = self.host.wrap([*c.faketime_env(self.name), c.binary, *args])
        proc = c.registry.spawn(f"holder:{self.name}", argv, env=c.profile.client_env(self.index, leases=True),
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.proc = proc
        rec.write({"type": "holder", "phase": "start", "holder": holder, "t": time.time(), "pid": proc.pid})
        lines = queue.Queue()
        readers = [
            threading.Thread(target=_read_lines, args=(proc.popen.stdout, lines), daemon=True),
            threading.Thread(target=_read_events, args=(proc.popen.stderr, rec, holder), daemon=True),
        ]
        for r in readers:
            r.start()
        eof = False
        while not c.stop_event.is_set() and not eof and proc.alive():
            n = rng.choice((1, 10, 100))
            t0 = time.time()
            try:
                proc.popen.stdin.write(f"{n}\n".encode())
                proc.popen.stdin.flush()
            except (BrokenPipeError, OSError):
                break
            ids = []
            while len(ids) < n:
                try:
                    line = lines.get(timeout=1)
                except queue.Empty:
                    if c.stop_event.is_set() or not proc.alive() and lines.empty():
                        break
                    continue
                if line is None:
                    eof = True
                    break
                if line.isdigit():
                    ids.append(int(line))
            if ids:
                rec.write({"type": "lease_ids", "holder": holder, "t0": t0, "t1": time.time(), "ids": ids})
            c.stop_event.wait(rng.uniform(0, 0.1))
        self.close()
        proc.wait_or_kill(30)
        for r in readers:
            r.join(timeout=10)
        # IDs written before the exit but not yet asked for by a request.
        leftover = []
        while not lines.empty():
            line = lines.get()
            if line and line.isdigit():
                leftover.append(int(line))
        if leftover:
            rec.write({"type": "lease_ids", "holder": holder, "t0": time.time(), "t1": time.time(), "ids": leftover})
        rec.write(ended(proc, holder, c.stop_event.is_set()))
        c.stop_event.wait(rng.uniform(0.2, 1.0))

    def close(self):
        """EOF on stdin: the holder answers what it was asked, releases and exits 0."""
        proc = self.proc
        if proc and proc.popen.stdin and not proc.popen.stdin.closed:
            try:
                proc.popen.stdin.close()
            except OSError:
                pass


def ended(proc, holder, stopping, **extra):
    """The record of a long-lived holder process that ended."""
    code = proc.popen.returncode
    return {"type": "holder", "phase": "end", "holder": holder, "t": time.time(), "exit": code if code >= 0 else None,
            "signal": -code if code < 0 else None, "killed": proc.killed_by_nemesis, "stopping": stopping, **extra}


def _json_or_none(line):
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _read_lines(stream, out):
    for raw in stream:
        out.put(raw.decode("ascii", "replace").strip())
    out.put(None)


def _read_events(stream, rec, holder):
    for raw in stream:
        line = raw.decode("utf-8", "replace").strip()
        t = time.time()
        try:
            event = json.loads(line)
        except ValueError:
            rec.write({"type": "stderr", "holder": holder, "t": t, "line": line[:400]})
            continue
        rec.write({"type": "lease_event", "holder": holder, "t": t, "event": event})


class Serve:
    """One `idgen serve`, restarted whenever it ends, in a network namespace
    of its own: by default segments (where the profile serves them) and a
    lease in NAMESPACE, on a clock the nemesis steps; with `leases=False`,
    segment IDs only."""

    PORT = 18080

    def __init__(self, clients, name="serve", host=None, leases=True):
        self.clients = clients
        self.name = name
        self.host = host or clients.profile.serve_host
        self.leases = leases
        self.proc = None
        self.generation = 0

    @property
    def url(self):
        return f"http://{self.host.ip}:{self.PORT}"

    def body(self, rec, rng):
        c = self.clients
        self.generation += 1
        holder = f"{self.name}-{self.generation}"
        args = ["serve", "--listen", f"0.0.0.0:{self.PORT}", "--allow-remote", "--buffer", "100"]
        clock = []
        if self.leases:
            args += ["--namespace", NAMESPACE, *LAYOUT, "--ttl", LEASE_TTL, "--holder", holder]
            clock = c.faketime_env("serve")
        argv = self.host.wrap([*clock, c.binary, *args])
        proc = c.registry.spawn(f"holder:{self.name}", argv, env=c.profile.client_env(3, leases=self.leases),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.proc = proc
        rec.write({"type": "holder", "phase": "start", "holder": holder, "t": time.time(), "pid": proc.pid, "serve": True})
        reader = threading.Thread(target=_read_serve_events, args=(proc.popen.stderr, rec, holder), daemon=True)
        reader.start()
        while not c.stop_event.is_set() and proc.alive():
            time.sleep(0.2)
        if proc.alive():
            proc.terminate()
        proc.wait_or_kill(30)
        reader.join(timeout=10)
        rec.write(ended(proc, holder, c.stop_event.is_set(), serve=True))
        c.stop_event.wait(0.5)

    def close(self):
        if self.proc and self.proc.alive():
            self.proc.terminate()


def _read_serve_events(stream, rec, holder):
    """serve reports its leases as text lines; the ones the checker needs are
    turned into the events `lease --json` would print."""
    import calendar
    import re
    leased = re.compile(r"leased worker (\d+) of namespace (\S+) .*?(?:; issuing after (\S+?Z))?(?:;|$)")
    quarantined = re.compile(r"so worker (\d+) issues nothing until (\S+?Z)")
    lost = re.compile(r"lost the lease on worker (\d+)")
    released = re.compile(r"released worker (\d+)")

    def unix_ms(text):
        stamp, ms = text[:-1].split(".")
        return calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%S")) * 1000 + int(ms)

    for raw in stream:
        line = raw.decode("utf-8", "replace").strip()
        t = time.time()
        event = None
        m = leased.search(line)
        q = quarantined.search(line)
        if m:
            floor = unix_ms(m.group(3)) if m.group(3) else None
            event = {"event": "acquired", "worker": int(m.group(1)), "namespace": m.group(2), "floor_unix_ms": floor}
        elif q:
            event = {"event": "quarantined", "worker": int(q.group(1)), "until_unix_ms": unix_ms(q.group(2))}
        elif lost.search(line):
            event = {"event": "lost", "worker": int(lost.search(line).group(1))}
        elif released.search(line):
            event = {"event": "released", "worker": int(released.search(line).group(1))}
        if event:
            rec.write({"type": "lease_event", "holder": holder, "t": t, "event": event})
        else:
            rec.write({"type": "stderr", "holder": holder, "t": t, "line": line[:400]})


class HttpLoad:
    """http_load.py in a client namespace, driving one serve (its `apps`'
    segment IDs, and snowflake IDs of `namespace` unless empty); it writes
    its own history, history/NAME.jsonl."""

    def __init__(self, clients, serve, apps, namespace, name):
        self.clients = clients
        self.serve, self.apps, self.namespace, self.name = serve, apps, namespace, name
        self.proc = None

    def start(self):
        c = self.clients
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "http_load.py")
        out = os.path.join(c.run_dir, "history", f"{self.name}.jsonl")
        argv = c.profile.clients[0].wrap([sys.executable, script, "--target", self.serve.url, "--out", out,
                                          "--namespace", self.namespace, "--apps", ",".join(map(str, self.apps)),
                                          "--seed", str(c.rng.random())])
        self.proc = c.registry.spawn(f"{self.name}-load", argv, log_path=os.path.join(c.run_dir, f"{self.name}_load.log"))

    def stop(self):
        if self.proc and self.proc.alive():
            self.proc.terminate()
            try:
                self.proc.popen.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc._signal_group(9)
