"""The schedule: which faults, when, with what parameters, from the seed
alone (the same seed, profile and duration always plan the same schedule),
and the runner that applies it to the live system.

Faults arrive at random (exponential gaps) between the warm-up and the quiet
tail; faults of one group never overlap (the planner pushes a later one back
past the earlier one's hold and settling time). At run time a fault still
waits for its groups if an earlier one took longer than planned, and for its
rollback gate; both waits are recorded with the fault.
"""

import random
import threading
import time
import traceback

from . import faults

WARMUP = 5.0
MEAN_GAP = 4.0
# What a heal takes after the hold, as planned (the runner waits for the real one).
SETTLE = {
    "mysql_promote_lagging_replica": 40.0,
    "mysql_switchover": 10.0,
    "mysql_kill9": 8.0,
    "galera_kill9": 30.0,
    "galera_sigstop": 15.0,
    "galera_isolate": 15.0,
    "redis_promote_lagging_replica": 10.0,
    "redis_demote_master": 10.0,
    "cluster_promote_lagging_replica": 20.0,
    "cluster_failover": 5.0,
}


def quiet_tail(duration):
    """The end of the run without faults, in which issuance must resume."""
    return max(30.0, min(120.0, 0.2 * duration))


def plan(seed, profile, duration, kinds=None, mean_gap=MEAN_GAP):
    """The schedule of `seed`. `kinds` (None: the profile's whole catalogue)
    narrows it to the named faults, by their weights, and `mean_gap` sets how
    often they come: a search around one window of a finding. Both go into
    the generator's seed, so the default schedules stay as they were planned."""
    duration = float(duration)  # as the command line gives it: 1800 and 1800.0 seed alike
    focus = "" if kinds is None and mean_gap == MEAN_GAP else f":{','.join(sorted(kinds or []))}:{mean_gap}"
    rng = random.Random(f"nemesis:{seed}:{profile}:{duration}{focus}")
    catalogue = faults.for_profile(profile)
    if kinds is not None:
        unknown = sorted(set(kinds) - {f.kind for f in catalogue})
        if not kinds or unknown:
            raise ValueError(f"no fault {', '.join(unknown) or 'named'} in the {profile} profile; "
                             f"its faults: {', '.join(f.kind for f in catalogue)}")
        catalogue = [f for f in catalogue if f.kind in kinds]
    weights = [f.weight for f in catalogue]
    end = duration - quiet_tail(duration)
    busy = {}
    entries = []
    t = WARMUP
    while True:
        t += rng.expovariate(1.0 / mean_gap)
        if t >= end:
            break
        fault = rng.choices(catalogue, weights)[0]
        params = {k: round(v, 3) if isinstance(v, float) else v for k, v in fault.plan(rng, profile).items()}
        groups = fault.groups_for(params)
        start = max([t] + [busy.get(g, 0.0) for g in groups])
        span = sum(params.get(k, 0.0) for k in ("hold", "lag", "down")) + SETTLE.get(fault.kind, 3.0)
        if start + span > end:
            continue
        for g in groups:
            busy[g] = start + span
        entries.append({"at": round(start, 3), "kind": fault.kind, "params": params})
    entries.sort(key=lambda e: e["at"])
    for n, entry in enumerate(entries, 1):
        entry["n"] = n
    return entries


def replay_args(seed, profile, duration, kinds=None, mean_gap=MEAN_GAP):
    """The arguments of `scripts/nemesis` that plan this schedule again."""
    args = f"--profile {profile} --seed {seed} --duration {duration:g}"
    if kinds is not None:
        args += f" --faults {','.join(sorted(kinds))}"
    if mean_gap != MEAN_GAP:
        args += f" --mean-gap {float(mean_gap)!r}"  # exactly: it seeds the schedule
    return args


def describe(entries):
    lines = []
    for e in entries:
        params = " ".join(f"{k}={v}" for k, v in sorted(e["params"].items()))
        lines.append(f"  #{e['n']:<3} +{e['at']:7.1f}s  {e['kind']:<32} {params}")
    return "\n".join(lines)


class Context:
    """What a running fault may touch."""

    def __init__(self, profile, net, registry, clients, log, namespace):
        self.profile = profile
        self.net = net
        self.registry = registry
        self.clients = clients
        self.log = log
        self.namespace = namespace
        self.abort = threading.Event()

    def wait(self, seconds):
        self.abort.wait(max(0.0, seconds))


class Runner:
    def __init__(self, ctx, entries, recorder):
        self.ctx = ctx
        self.entries = entries
        self.recorder = recorder
        self.busy = set()
        self.cond = threading.Condition()
        self.threads = []
        self.thread = None

    def start(self, t_start):
        self.t_start = t_start
        self.thread = threading.Thread(target=self._run, name="schedule", daemon=True)
        self.thread.start()

    def _run(self):
        for entry in self.entries:
            due = self.t_start + entry["at"]
            self.ctx.wait(due - time.time())
            if self.ctx.abort.is_set():
                return
            fault = faults.BY_KIND[entry["kind"]]
            groups = fault.groups_for(entry["params"])
            with self.cond:
                while any(g in self.busy for g in groups) and not self.ctx.abort.is_set():
                    self.cond.wait(0.5)
                self.busy.update(groups)
            t = threading.Thread(target=self._fault, args=(entry, fault, groups, due), name=f"fault{entry['n']}", daemon=True)
            self.threads.append(t)
            t.start()

    def _fault(self, entry, fault, groups, due):
        record = {"type": "fault", "n": entry["n"], "kind": entry["kind"], "params": entry["params"],
                  "planned": due, "start": time.time(), "effective": True}
        try:
            if fault.gate:
                why = self._wait_gate(fault.gate)
                record["gate_wait_s"] = round(time.time() - record["start"], 3)
                if why:
                    record.update(skipped=f"gate {fault.gate}: {why}", effective=False)
                    return
                record["start"] = time.time()
            self.ctx.log(f"fault #{entry['n']} {entry['kind']} {entry['params']}")
            fault.run(self.ctx, entry["params"], record)
        except Exception as e:  # noqa: BLE001 - a fault that fails is recorded and healed below
            record["error"] = f"{e!r}"
            record["traceback"] = traceback.format_exc()[-2000:]
            self.ctx.log(f"fault #{entry['n']} {entry['kind']} failed: {e!r}")
            try:
                self.ctx.profile.heal()
            except Exception as heal_error:  # noqa: BLE001
                record["heal_error"] = repr(heal_error)
        finally:
            record["end"] = time.time()
            record.setdefault("healed", record["end"])
            self.recorder.write(record)
            with self.cond:
                self.busy.difference_update(groups)
                self.cond.notify_all()

    def _wait_gate(self, gate):
        deadline = time.time() + faults.GATE_WAIT
        why = "not checked"
        while time.time() < deadline and not self.ctx.abort.is_set():
            try:
                why = faults.check_gate(self.ctx, gate)
            except Exception as e:  # noqa: BLE001 - an unreadable authority keeps the gate shut
                why = f"cannot read the state: {e}"
            if why is None:
                return None
            self.ctx.wait(1.0)
        return why

    def join(self, timeout=None):
        if self.thread:
            self.thread.join(timeout)
        for t in self.threads:
            t.join(timeout)
