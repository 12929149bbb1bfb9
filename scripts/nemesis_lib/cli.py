"""scripts/nemesis: start a profile's servers in network namespaces, run every
kind of client against them, apply a seeded schedule of faults, then check
the histories. See the README's "Testing and benchmarks" section.

  scripts/nemesis --profile distributed --duration 120 --seed 7
  scripts/nemesis --plan --seed 7 --duration 120      # the schedule only
  scripts/nemesis --check target/nemesis/RUN          # re-check a run
  scripts/nemesis --cleanup                           # after a kill -9 of a run
"""

import argparse
import json
import os
import random
import shutil
import signal
import sys
import threading
import time

from . import checker, schedule, trace
from .history import Recorder
from .netns import Network, SetupError
from .procs import Registry
from .topology import PROFILES
from .workload import APPS, LIMIT_APP, LIMIT_STEP, NAMESPACE, Clients, find_libfaketime

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EPOCH_MS = 1704067200000  # 2024-01-01, the --epoch of workload.LAYOUT
# How often the ledger is checked against the witnesses, where a profile can (galera).
AUDIT_EVERY_S = 5.0
# How often the nemesis looks for a second Redis master (a split brain).
MASTERS_EVERY_S = 1.0
RECOVERY_BOUND = {"distributed": 30.0, "galera": 60.0, "embedded": 30.0, "redis-alone": 30.0, "cluster": 30.0}


class Log:
    def __init__(self, path):
        self.file = open(path, "a", buffering=1)
        self.t0 = time.time()
        self.lock = threading.Lock()

    def __call__(self, message):
        line = f"[{time.time() - self.t0:8.1f}s] {message}"
        with self.lock:
            print(line, flush=True)
            self.file.write(line + "\n")


def parse(argv):
    p = argparse.ArgumentParser(prog="scripts/nemesis", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--profile", choices=sorted(PROFILES), default="distributed")
    p.add_argument("--seed", type=int, help="replays the schedule of this seed (default: a random one, printed)")
    p.add_argument("--duration", type=float, default=120.0, help="seconds, faults and the quiet tail included (default 120)")
    p.add_argument("--faults", metavar="KIND[,KIND...]", type=lambda v: sorted({k.strip() for k in v.split(",") if k.strip()}),
                   help="only these faults of the profile's catalogue, by their weights (default: all); with --mean-gap, "
                        "a denser search around the faults of one finding")
    p.add_argument("--mean-gap", type=float, default=schedule.MEAN_GAP,
                   help=f"mean seconds between planned faults (default {schedule.MEAN_GAP:g})")
    p.add_argument("--binary", default=os.path.join(REPO, "target", "release", "idgen"), help="the idgen to test (default target/release/idgen)")
    p.add_argument("--out", help="run directory (default target/nemesis/PROFILE-SEED-TIME)")
    p.add_argument("--keep", action="store_true", help="keep the servers' data directories after a run without violations")
    p.add_argument("--plan", action="store_true", help="print the schedule of --seed and exit")
    p.add_argument("--check", metavar="RUN_DIR", help="check the histories of an earlier run and exit")
    p.add_argument("--cleanup", action="store_true", help="remove namespaces and processes a killed run left, and exit")
    p.add_argument("--trace", action="store_true", help="log every data server's commands (Redis MONITOR, MariaDB general log) under servers/; slows them down")
    return p.parse_args(argv)


def main(argv=None):
    args = parse(sys.argv[1:] if argv is None else argv)
    if args.check:
        return report(checker.check(args.check))
    if args.cleanup:
        net = Network(print)
        net.preflight()
        net.teardown()
        return 0
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10**9)
    if args.mean_gap <= 0:
        print(f"error: --mean-gap must be more than 0 seconds, not {args.mean_gap:g}", file=sys.stderr)
        return 2
    try:
        entries = schedule.plan(seed, args.profile, args.duration, args.faults, args.mean_gap)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.plan:
        print(f"seed {seed}, profile {args.profile}, {args.duration:.0f}s: {len(entries)} faults; "
              f"replay with: scripts/nemesis {schedule.replay_args(seed, args.profile, args.duration, args.faults, args.mean_gap)}")
        print(schedule.describe(entries))
        return 0
    if find_libfaketime() is None:
        print("error: libfaketime is missing (the lease holders' clocks are stepped with it); install it with `apt-get install -y faketime`", file=sys.stderr)
        return 2
    if not os.access(args.binary, os.X_OK):
        print(f"error: no idgen binary at {args.binary}; build it with `cargo build --release --bin idgen` (or pass --binary)", file=sys.stderr)
        return 2
    return run(args, seed, entries)


def run(args, seed, entries):
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = os.path.abspath(args.out or os.path.join(REPO, "target", "nemesis", f"{args.profile}-{seed}-{stamp}"))
    os.makedirs(os.path.join(run_dir, "history"), exist_ok=True)
    log = Log(os.path.join(run_dir, "nemesis.log"))
    replay = schedule.replay_args(seed, args.profile, args.duration, args.faults, args.mean_gap)
    log(f"nemesis: profile {args.profile}, seed {seed}, {args.duration:.0f}s, {len(entries)} faults planned; "
        f"replay with: scripts/nemesis {replay}")
    log("schedule:\n" + schedule.describe(entries))
    meta = {
        "seed": seed, "profile": args.profile, "duration": args.duration, "run_dir": run_dir, "replay": replay,
        "binary": os.path.abspath(args.binary), "schedule": entries, "limit_app": LIMIT_APP,
        "initial_limit": next(a["max_limit_id"] for a in APPS if a["app"] == LIMIT_APP), "limit_step": LIMIT_STEP,
        "namespace": NAMESPACE, "layout": {"seq_bits": 19, "worker_bits": 3, "epoch_ms": EPOCH_MS},
        "recovery_bound_s": RECOVERY_BOUND[args.profile], "quiet_tail_s": schedule.quiet_tail(args.duration),
    }
    write_meta(run_dir, meta)

    net = Network(log)
    try:
        net.preflight()
    except SetupError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    registry = Registry()
    signal.signal(signal.SIGTERM, _raise_interrupt)
    stop = threading.Event()
    clients = None
    ctx = None
    runner = None
    auditor = None
    watcher = None
    try:
        net.up()
        profile = PROFILES[args.profile](net, registry, os.path.join(run_dir, "servers"), log)
        if args.trace:
            for node in _sql_nodes(profile):
                node.extra += trace.general_log_args(node.dir)
        log(f"starting the {args.profile} servers")
        profile.start()
        if args.trace:
            trace.start_taps(_redis_servers(profile), stop)
        clients = Clients(profile, os.path.abspath(args.binary), run_dir, registry, seed, log,
                          migrate=profile.second is not None)
        clients.setup()
        ctx = schedule.Context(profile, net, registry, clients, log, NAMESPACE)
        runner = schedule.Runner(ctx, entries, Recorder(os.path.join(run_dir, "history", "faults.jsonl")))
        threading.Thread(target=_maintain, args=(profile, stop), daemon=True, name="maintenance").start()
        if hasattr(profile, "audit"):
            audits = Recorder(os.path.join(run_dir, "history", "audit.jsonl"))
            auditor = threading.Thread(target=_every, args=(AUDIT_EVERY_S, lambda: _audit(profile), stop, audits),
                                       daemon=True, name="audit")
            auditor.start()
        if profile.redis is not None:
            roles = Recorder(os.path.join(run_dir, "history", "redis-masters.jsonl"))
            watcher = threading.Thread(target=_every, args=(MASTERS_EVERY_S, lambda: _two_masters(profile.redis),
                                                            stop, roles), daemon=True, name="masters")
            watcher.start()
        t_start = time.time()
        meta["t_start"] = t_start
        write_meta(run_dir, meta)
        log("clients running; faults from now on")
        clients.start()
        runner.start(t_start)
        fault_end = t_start + args.duration - schedule.quiet_tail(args.duration)
        ctx.wait(fault_end - time.time())
        runner.join()
        profile.heal()
        meta["faults_done"] = time.time()
        log("last fault healed; the quiet tail: issuance must resume by itself")
        # Faults a gate held back can end past the planned schedule: the
        # quiet tail is never shorter than planned, or nothing could recover.
        tail_end = max(t_start + args.duration, time.time() + schedule.quiet_tail(args.duration))
        ctx.wait(tail_end - time.time())
        clients.stop()
        meta["t_end"] = time.time()
    except KeyboardInterrupt:
        log("interrupted: healing, stopping and cleaning up")
        meta["interrupted"] = True
    except Exception as e:  # noqa: BLE001 - cleaned up below, reported as a nemesis failure
        log(f"nemesis failed: {e!r}")
        meta["interrupted"] = True
        meta["error"] = repr(e)
    finally:
        stop.set()
        if ctx:
            ctx.abort.set()
        if runner:
            runner.join(timeout=60)
        for thread in (auditor, watcher):
            if thread:
                thread.join(timeout=60)  # its last record written before the checker reads
        if clients:
            clients.stop()
        registry.kill_all()
        net.teardown()
        write_meta(run_dir, meta)
    result = checker.check(run_dir)
    code = report(result)
    if meta.get("error"):
        code = 2
    if code == 0 and not args.keep:
        shutil.rmtree(os.path.join(run_dir, "servers"), ignore_errors=True)
    return code


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def _maintain(profile, stop):
    while not stop.wait(2.0):
        try:
            profile.tick()
        except Exception:  # noqa: BLE001 - a tick during a fault may fail; the next one tries again
            pass


def _every(seconds, look, stop, recorder):
    """Until the run stops, `look()` every `seconds`, its record (a dict, or
    None for nothing to record) written for the checker. A look that fails
    is no finding: the next one reads again."""
    while not stop.wait(seconds):
        try:
            record = look()
        except Exception:  # noqa: BLE001 - an unreadable server is no finding
            record = None
        if record is not None:
            recorder.write(record | {"t": time.time()})
    recorder.close()


def _audit(profile):
    """The profile's check of the ledger against the witnesses (`audit`): one
    record per audit that could read both sides."""
    behind = profile.audit()
    if behind is None:
        return None
    return {"type": "ledger_audit",
            "behind": [dict(zip(("node", "app", "shard", "witness", "ledger"), b)) for b in behind]}


def _two_masters(redis):
    """Whether more than one Redis server of the Sentinel group calls itself
    master: a lowered limit that reached one of them is unknown to the other,
    whose stock obeys the old limit until its next refill (the README's
    limit rules)."""
    masters = redis.masters()
    return {"type": "redis_masters", "masters": masters} if len(masters) > 1 else None


def _sql_nodes(profile):
    for ledger in (profile.mysql, profile.galera):
        if ledger is not None:
            yield from ledger.nodes


def _redis_servers(profile):
    servers = list(profile.redis.servers) if profile.redis is not None else []
    if profile.second is not None:
        servers.append(profile.second.server)
    return servers


def write_meta(run_dir, meta):
    path = os.path.join(run_dir, "meta.json")
    with open(path + ".tmp", "w") as f:
        json.dump(meta, f, indent=1)
    os.replace(path + ".tmp", path)


def report(result):
    print(checker.render(result))
    with open(os.path.join(result["meta"]["run_dir"], "report.json"), "w") as f:
        json.dump({k: v for k, v in result.items() if k not in ("exits", "faults")} | {
            "exits": {f"{k[0]}:{k[1]}": v for k, v in result["exits"].items()},
            "faults": {k: dict(v) for k, v in result["faults"].items()},
        }, f, indent=1, default=str)
    if result["violations"]:
        meta = result["meta"]
        replay = meta.get("replay") or schedule.replay_args(meta["seed"], meta["profile"], meta["duration"])
        print(f"\nFAILED: seed {meta['seed']}, profile {meta['profile']}, duration {meta['duration']:g}; "
              f"replay with: scripts/nemesis {replay}")
        print("schedule:\n" + schedule.describe(meta["schedule"]))
        return 1
    return 0
