"""The checker: reads only a run's recorded histories (meta.json and
history/*.jsonl) and proves, or refutes:

  1. no ID twice: every segment ID (next, serve get/list, a list cut short
     included) is unique, and so is every snowflake ID of the namespace
     (holders, churners, serve);
  2. no ID above max_limit_id: every ID of the limited app is at or below
     the highest limit that can have been in force during its call (see
     `limits_in_force`);
  3. no two holders of one worker overlap in time: each snowflake ID carries
     its time and worker; each ID is attributed to the grant (an `acquired`
     event) of the process that printed it, and every grant's issued
     interval [first, last time unit] must lie strictly after its reported
     floor and must not meet any other grant's interval on that worker;
  4. every failed call exited with a documented code, and one its command may
     end with under these faults (an idgen panic, 101, or an `internal` 1 is
     a violation), and every HTTP error names a documented code;
  5. no call hung (printed nothing for HUNG_AFTER of its own running time);
  6. after the last fault healed, every kind of client issued again within
     the recovery bound, with no operator action;
  7. where the profile never sets the ledger back (galera), no audit found
     it behind a witness in Redis: that would be a commit the ledger lost
     after acknowledging it, a lie the profile's Redis faults assume away.

It also measures what the report needs: IDs checked, calls by command and
exit code, faults applied by kind, and recovery times.
"""

import array
import collections
import json
import math
import os
import shutil
import statistics
import tempfile

from . import history

DOCUMENTED = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 130}
# The exit code of a command stopped by a signal before it finished.
INTERRUPTED = 130
CODE_NAMES = {"ok", "internal", "usage", "not-found", "exhausted", "unavailable", "partial", "conflict", "attention",
              "clock", "store", "declined", "access", "bad-data", "output", "tls", "interrupted"}
# The codes each command may end with while servers die, lie and are cut off.
EXPECTED = {
    "next": {0, 5},
    "reload-segments": {0, 5, 6},
    "lease": {0, 4, 5, 9},
    "migrate": {0, 5, 7},
    "app-set": {0, 5, 6, 7},
    "init-app": {0, 5},
    "holder": {0, 4, 5, 9},
    "serve": {0, 4, 5, 9},
}
HTTP_EXPECTED = {503: {"unavailable", "clock"}, 422: {"exhausted"}}
# A look for two Redis masters runs every second and may take two (a
# server that does not answer waits out a 1 s timeout): one within this of a
# lowering means the split brain was there when it ran.
SPLIT_MARGIN_S = 5.0
NOT_BINDING = {"mysql_promote_lagging_replica": "a lagging MySQL promotion",
               "redis_masters": "a Redis split brain (two masters)",
               "store_restored": "an older copy of the embedded store restored"}
RECOVERY_KINDS = ("next", "serve segment", "serve snowflake", "lease holder")
# Redis alone issues no segment IDs.
RECOVERY_KINDS_OF = {"redis-alone": ("serve snowflake", "lease holder")}
BUCKETS = 64


class Violations:
    def __init__(self):
        self.items = []

    def add(self, kind, message, *records):
        self.items.append({"kind": kind, "message": message, "records": [_short(r) for r in records]})


def _short(record):
    record = dict(record)
    ids = record.get("ids")
    if ids is not None:
        ids = list(ids)
        record["ids"] = ids[:4] + ["…"] + ids[-2:] if len(ids) > 8 else ids
    record.pop("traceback", None)
    return record


class IdBook:
    """IDs of one domain, spread over bucket files on disk by a hash of the ID,
    so that finding repeats among tens of millions needs one bucket in memory."""

    def __init__(self, tmp, name):
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir)
        self.pending = [array.array("Q") for _ in range(BUCKETS)]
        self.count = 0

    @staticmethod
    def bucket(value):
        return ((value * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF) >> 58

    def add(self, ids):
        for value in ids:
            self.pending[self.bucket(value)].append(value)
        self.count += len(ids)
        if sum(len(p) for p in self.pending) > 2_000_000:
            self.flush()

    def flush(self):
        for n, pending in enumerate(self.pending):
            if pending:
                with open(os.path.join(self.dir, str(n)), "ab") as f:
                    pending.tofile(f)
                self.pending[n] = array.array("Q")

    def repeats(self):
        self.flush()
        found = set()
        for n in range(BUCKETS):
            path = os.path.join(self.dir, str(n))
            if not os.path.exists(path):
                continue
            values = array.array("Q")
            with open(path, "rb") as f:
                values.frombytes(f.read())
            if len(set(values)) != len(values):
                counts = collections.Counter(values)
                found.update(v for v, c in counts.items() if c > 1)
        return found


def load(run_dir):
    with open(os.path.join(run_dir, "meta.json")) as f:
        meta = json.load(f)
    return meta, history.read_dir(run_dir)


def sources_of(records, kind_ids):
    """(record, ids) for every record that delivered IDs of a domain."""
    for r in records:
        ids = r.get("ids")
        if not ids:
            continue
        t = r.get("type")
        if kind_ids == "segment":
            if (t == "call" and r.get("cmd") == "next") or (t == "http" and r.get("kind") == "segment"):
                yield r, ids
        else:
            if t == "lease_ids" or (t == "call" and r.get("snowflake")) or (t == "http" and r.get("kind") == "snowflake"):
                yield r, ids


def check_unique(records, tmp, violations, domain):
    book = IdBook(tmp, domain)
    for _, ids in sources_of(records, domain):
        book.add(ids)
    repeats = book.repeats()
    if repeats:
        holders = collections.defaultdict(list)
        for r, ids in sources_of(records, domain):
            for value in ids:
                if value in repeats:
                    holders[value].append(r)
        for value in sorted(repeats)[:20]:
            violations.add("repeat", f"{domain} ID {value} was issued {len(holders[value])} times", *holders[value][:4])
        if len(repeats) > 20:
            violations.add("repeat", f"… and {len(repeats) - 20} more repeated {domain} IDs")
    return book.count


def ceiling(limit):
    """The highest index a max_limit_id lets a take serve: 0 is no limit, as
    in the Java service's id_alloc and in idgen (`app set --max-limit-id 0`
    lifts it)."""
    return math.inf if limit == 0 else limit


def limits_in_force(meta, records):
    """A function (t0, t1) -> the highest index that a max_limit_id in force
    for a call over [t0, t1] can have let it serve (`ceiling`), and the
    successful changes the model could not hold as binding, counted by what
    may have undone them.

    The ledger is the authority for limits, so the model walks the `app set`
    calls that ended before the call began, keeping every value the ledger
    may hold after each:
    * one that answered 0 and no lagging promotion can have lost leaves only
      its own value;
    * one that answered 0 while MySQL's replica lagged, before that replica
      was promoted, may have been lost with the primary: the ledger then holds
      whatever it may have held before it (itself possibly a value restored by
      an earlier loss: losses stack), or its own value;
    * one that answered 0 while two Redis servers called themselves master
      (a split brain; see `SPLIT_MARGIN_S`) reached one of them: the other's
      stock keeps the limit it recorded until that shard's next refill reads
      the ledger, so the values before it stay possible too, as for a loss;
    * one that answered 0 after the embedded store was copied, before that
      copy was put back in its place (a restored backup), was undone with
      it, as for a loss;
    * one that failed, was killed or hung may have changed it: its value joins
      the ones before it.
    An `app set` still running during the call may have changed it within the
    call. The highest of all these is what a take may have obeyed; a lost
    change is no repeat."""
    app = meta["limit_app"]
    sets = sorted((r for r in records if r.get("type") == "call" and r.get("cmd") == "app-set"
                   and r.get("app") == app and "limit" in r), key=lambda r: r["t0"])
    promotions = [r for r in records if r.get("type") == "fault" and r.get("kind") == "mysql_promote_lagging_replica"
                  and r.get("effective") and r.get("transactions_lost", 1) > 0]
    splits = [r["t"] for r in records if r.get("type") == "redis_masters"]
    restores = [r for r in records if r.get("type") == "fault" and r.get("kind") == "store_restored"
                and r.get("effective") and "restored" in r]
    initial = meta["initial_limit"]

    def lost_by(s):
        """The promotion that may have undone `s`: it began lagging before `s`
        ended, and was promoted (with a second's margin) after `s` began; or
        a look that found two Redis masters around `s`."""
        for f in promotions:
            lagging_until = f["start"] + f.get("params", {}).get("lag", 0) + 1.0
            if f["start"] - 1.0 <= s["t1"] and s["t0"] <= lagging_until:
                return f
        for t in splits:
            if s["t0"] - SPLIT_MARGIN_S <= t <= s["t1"] + SPLIT_MARGIN_S:
                return {"kind": "redis_masters", "t": t}
        for f in restores:
            # Not over before the copy began (a second's margin), begun
            # before the copy was put back: it may be missing from the copy.
            if f["start"] - 1.0 <= s["t1"] and s["t0"] <= f["restored"] + 1.0:
                return f
        return None

    def allowed(c0, c1):
        possible = {initial}
        for s in sets:
            if s["t1"] < c0:
                if s["exit"] == 0 and not lost_by(s):
                    possible = {s["limit"]}
                else:
                    possible.add(s["limit"])
            elif s["t0"] < c1:
                possible.add(s["limit"])
        return max(ceiling(limit) for limit in possible)

    not_binding = collections.Counter(lost["kind"] for lost in (lost_by(s) for s in sets if s["exit"] == 0) if lost)
    return allowed, dict(not_binding)


def check_limits(meta, records, violations):
    """Property 2; returns how many IDs it checked and the model's changes
    not held as binding (`limits_in_force`), by cause."""
    allowed, not_binding = limits_in_force(meta, records)
    app = meta["limit_app"]
    checked = 0
    for r in records:
        if r.get("type") != "call" or r.get("cmd") != "next" or r.get("app") != app or not r.get("ids"):
            continue
        limit = allowed(r["t0"], r["t1"])
        over = [v for v in r["ids"] if v > limit]
        checked += len(r["ids"])
        if over:
            violations.add("limit", f"{len(over)} ID(s) of app {app} above max_limit_id {limit} (first {over[0]})", r)
    for r in records:
        ids = r.get("ids") or []
        if r.get("type") == "call" and r.get("cmd") == "next" and any(v & 0xFF != r.get("app") for v in ids):
            violations.add("app", f"next --app {r.get('app')} printed an ID of another app", r)
    return checked, not_binding


def decode(meta, value):
    layout = meta["layout"]
    seq_bits, worker_bits = layout["seq_bits"], layout["worker_bits"]
    ts = (value >> (seq_bits + worker_bits)) + layout["epoch_ms"]
    worker = (value >> seq_bits) & ((1 << worker_bits) - 1)
    return ts, worker


def grants_by_holder(records):
    """holder -> [(worker, floor_ms or None, record)] in the order reported.
    A grant's floor is the higher of the previous holder's fence and the
    quarantine it waits out (Redis alone: in the `acquired` event, and in a
    `quarantined` event after it, which older builds report alone): it
    issues only time units after both. Without
    the quarantine, two grants of one worker to one holder with no fence
    between them (the fences lost with Redis's keys) read as one, spanning
    whatever other holders issued on that worker in between."""
    grants = collections.defaultdict(list)

    def note(holder, e, r):
        if e.get("event") == "acquired":
            floors = [f for f in (e.get("floor_unix_ms"), e.get("quarantine_until_unix_ms")) if f is not None]
            grants[holder].append((e["worker"], max(floors) if floors else None, r))
        elif e.get("event") == "quarantined" and grants[holder] and grants[holder][-1][0] == e.get("worker"):
            worker, floor, record = grants[holder][-1]
            until = e.get("until_unix_ms")
            if until is not None:
                grants[holder][-1] = (worker, until if floor is None else max(floor, until), record)

    for r in records:
        if r.get("type") == "lease_event":
            note(r["holder"], r["event"], r)
        elif r.get("type") == "call" and r.get("snowflake"):
            for e in r.get("events", []):
                note(r["holder"], e, r)
    return grants


def serve_lives(records):
    """Every serve process's life: [holder, start, end or None], in start order."""
    lives = []
    for r in records:
        if r.get("type") == "holder" and r.get("serve"):
            if r["phase"] == "start":
                lives.append([r["holder"], r["t"], None])
            else:
                for life in lives:
                    if life[0] == r["holder"]:
                        life[2] = r["t"]
    lives.sort(key=lambda life: life[1])
    return lives


def serve_answerer(meta, records, grants):
    """Which serve process answered a request, from the processes alive at
    some time between its send and its answer. Usually one; a request sent
    just before a restart can be answered by the next process (its SYN,
    dropped by a partition or unanswered, is sent again a second later, when
    the new process listens), and one sent just before a kill by the old
    process. Among several, the one holding a grant on the IDs' worker whose
    floor is below them; the latest started when that does not decide."""
    lives = serve_lives(records)

    def answerer(record, ids):
        t0, t1 = record["t0"], record.get("t1", record["t0"])
        alive = [holder for holder, start, end in lives if start <= t1 and (end is None or end >= t0)]
        if len(alive) <= 1:
            return alive[0] if alive else None

        def granted(holder):
            for value in ids:
                ts, worker = decode(meta, value)
                if not any(w == worker and (floor is None or ts > floor) for w, floor, _ in grants.get(holder, [])):
                    return False
            return True

        fitting = [holder for holder in alive if granted(holder)]
        return (fitting or alive)[-1]

    return answerer


def check_overlap(meta, records, violations):
    grants = grants_by_holder(records)
    answerer = serve_answerer(meta, records, grants)
    issued = collections.defaultdict(list)  # holder -> list of ids
    for r, ids in sources_of(records, "snowflake"):
        if r.get("type") == "http":
            holder = answerer(r, ids) or "serve-?"
        else:
            holder = r["holder"]
        issued[holder].extend(ids)
    intervals = collections.defaultdict(list)  # worker -> [(first, last, holder, grant index)]
    unattributed = 0
    for holder, ids in issued.items():
        by_worker = collections.defaultdict(list)
        for value in ids:
            ts, worker = decode(meta, value)
            by_worker[worker].append(ts)
        for worker, stamps in by_worker.items():
            mine = [(i, floor) for i, (w, floor, _) in enumerate(grants.get(holder, [])) if w == worker]
            spans = {}
            for ts in stamps:
                grant = None
                for i, floor in mine:
                    if floor is None or ts > floor:
                        grant = (i, floor)
                if grant is None:
                    if mine:
                        floor = mine[0][1]
                        violations.add("floor", f"{holder} issued time {ts} on worker {worker}, not after its grant's floor {floor}",
                                       grants[holder][mine[0][0]][2])
                        grant = mine[0]
                    else:
                        unattributed += 1
                        grant = (-1, None)
                lo, hi = spans.get(grant[0], (ts, ts))
                spans[grant[0]] = (min(lo, ts), max(hi, ts))
            for index, (lo, hi) in spans.items():
                intervals[worker].append((lo, hi, holder, index))
    overlaps = 0
    for worker, spans in intervals.items():
        spans.sort()
        reach = None
        for lo, hi, holder, index in spans:
            if reach and lo <= reach[0] and (holder, index) != reach[1:]:
                overlaps += 1
                if overlaps <= 20:
                    violations.add("overlap", f"worker {worker}: {holder} (grant {index}) issued from {lo} while "
                                   f"{reach[1]} (grant {reach[2]}) issued up to {reach[0]}")
            if reach is None or hi > reach[0]:
                reach = (hi, holder, index)
    grant_count = sum(len(g) for g in grants.values())
    return {"grants": grant_count, "workers": len(intervals), "unattributed_ids": unattributed,
            "intervals": sum(len(s) for s in intervals.values())}


def check_exits(meta, records, violations):
    table = collections.Counter()
    for r in records:
        t = r.get("type")
        if t == "call":
            cmd = r.get("cmd")
            outcome = "killed" if r.get("killed") else "hung" if r.get("hung") else r.get("exit") if r.get("exit") is not None else f"signal {r.get('signal')}"
            table[(cmd, outcome)] += 1
            if r.get("hung"):
                violations.add("hung", f"{cmd} printed nothing within its bound and was killed", r)
            elif r.get("killed"):
                continue
            elif r.get("exit") is None:
                violations.add("exit", f"{cmd} ended by signal {r.get('signal')} the nemesis did not send", r)
            else:
                code = r["exit"]
                expected = set(EXPECTED.get(cmd, DOCUMENTED))
                if cmd == "next" and r.get("app") == meta["limit_app"]:
                    expected.add(4)
                if code not in DOCUMENTED:
                    violations.add("exit", f"{cmd} exited {code}, not a documented code", r)
                elif code not in expected:
                    violations.add("exit", f"{cmd} exited {code}, which it should not under these faults", r)
        elif t == "holder" and r.get("phase") == "end":
            kind = "serve" if r.get("serve") else "holder"
            outcome = "killed" if r.get("killed") else r.get("exit") if r.get("exit") is not None else f"signal {r.get('signal')}"
            table[(kind, outcome)] += 1
            if r.get("killed"):
                continue
            if r.get("exit") is None:
                violations.add("exit", f"{kind} {r['holder']} ended by signal {r.get('signal')} the nemesis did not send", r)
            elif r.get("stopping") and r["exit"] == INTERRUPTED:
                # Stopped by the nemesis at the end before it was up (serve
                # still proving its lease): "interrupted" is its documented answer.
                continue
            elif r["exit"] not in DOCUMENTED or r["exit"] not in EXPECTED[kind]:
                violations.add("exit", f"{kind} {r['holder']} exited {r['exit']}", r)
        elif t == "http":
            status = r.get("status")
            table[("http " + r["kind"], status if status else "no answer")] += 1
            if status and status != 200:
                code = r.get("code")
                if code not in CODE_NAMES:
                    violations.add("http", f"HTTP {status} with code {code!r}, not a documented name", r)
                elif code not in HTTP_EXPECTED.get(status, set()):
                    violations.add("http", f"HTTP {status} {code}, which serve should not answer under these faults", r)
        elif t == "client_error":
            violations.add("nemesis", f"client {r['client']} broke: {r['error']}", r)
    return table


def successes(records, meta):
    """(time, kind) of every successful issue."""
    out = []
    for r in records:
        t = r.get("type")
        if t == "call" and r.get("cmd") == "next" and r.get("exit") == 0 and r.get("app") != meta["limit_app"]:
            out.append((r["t1"], "next"))
        elif t == "http" and r.get("status") == 200 and r.get("ids"):
            out.append((r["t1"], f"serve {r['kind']}"))
        elif t == "lease_ids":
            out.append((r["t1"], "lease holder"))
    out.sort()
    return out


def check_recovery(meta, records, faults, violations):
    done = successes(records, meta)
    applied = [f for f in faults if not f.get("skipped")]
    report = {}
    if not applied:
        return {"last_heal": None, "after_last": {}, "by_fault": {}}
    last_heal = max(f["healed"] for f in applied)
    last_heal = max(last_heal, meta.get("faults_done", last_heal))
    bound = meta["recovery_bound_s"]
    after = {}
    kinds = RECOVERY_KINDS_OF.get(meta.get("profile"), RECOVERY_KINDS)
    # Recovery after each fault, by the first issue of the kind every
    # profile has most of.
    each = kinds[0] if "next" not in kinds else "next"
    for kind in kinds:
        first = next((t for t, k in done if k == kind and t >= last_heal), None)
        after[kind] = None if first is None else round(first - last_heal, 3)
        if first is None:
            violations.add("recovery", f"no {kind} issued after the last fault healed (at {last_heal:.3f})")
        elif first - last_heal > bound:
            violations.add("recovery", f"{kind} issued again only {first - last_heal:.1f}s after the last fault healed (bound {bound}s)")
    by_fault = collections.defaultdict(list)
    for f in applied:
        first = next((t for t, k in done if k == each and t >= f["healed"]), None)
        if first is not None:
            by_fault[f["kind"]].append(first - f["healed"])
    for kind, values in by_fault.items():
        report[kind] = {"median_s": round(statistics.median(values), 2), "max_s": round(max(values), 2), "n": len(values)}
    return {"last_heal": last_heal, "after_last": after, "by_fault": report, "each": each}


def check_ledger(records, violations):
    """Property 7, from the audits the run recorded (none: not checked).
    Each witness found above the ledger is one violation, however many
    audits saw it before idgen moved the ledger past it."""
    audits = [r for r in records if r.get("type") == "ledger_audit"]
    seen = set()
    for audit in audits:
        for b in audit["behind"]:
            key = (b["node"], b["app"], b["shard"], b["witness"])
            if key in seen:
                continue
            seen.add(key)
            violations.add("ledger", f"the ledger held max_id {b['ledger']} for app {b['app']} shard {b['shard']}, "
                           f"below the witness {b['witness']} on node {b['node']}: it lost a commit it had "
                           "acknowledged", audit)
    return {"audits": len(audits), "behind": len(seen)}


def fault_summary(faults):
    table = collections.defaultdict(collections.Counter)
    for f in faults:
        state = "skipped" if f.get("skipped") else "error" if f.get("error") else "applied" if f.get("effective", True) else "no effect"
        table[f["kind"]][state] += 1
    return table


def check(run_dir):
    meta, records = load(run_dir)
    violations = Violations()
    faults = [r for r in records if r.get("type") == "fault"]
    for f in faults:
        if f.get("error"):
            violations.add("nemesis", f"fault #{f['n']} {f['kind']} failed: {f['error']}", f)
    tmp = tempfile.mkdtemp(prefix="nemesis-check-")
    try:
        segment_ids = check_unique(records, tmp, violations, "segment")
        snowflake_ids = check_unique(records, tmp, violations, "snowflake")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    limit_checked, limits_not_binding = check_limits(meta, records, violations)
    leases = check_overlap(meta, records, violations)
    exits = check_exits(meta, records, violations)
    recovery = check_recovery(meta, records, faults, violations) if not meta.get("interrupted") else None
    ledger = check_ledger(records, violations)
    return {
        "meta": meta,
        "segment_ids": segment_ids,
        "snowflake_ids": snowflake_ids,
        "limit_ids": limit_checked,
        "limits_not_binding": limits_not_binding,
        "leases": leases,
        "exits": exits,
        "faults": fault_summary(faults),
        "recovery": recovery,
        "ledger": ledger,
        "violations": violations.items,
    }


def render(result):
    meta = result["meta"]
    lines = [
        f"nemesis {meta['profile']}: seed {meta['seed']}, {meta['duration']:.0f}s, run dir {meta['run_dir']}",
        f"  IDs checked: {result['segment_ids']:,} segment, {result['snowflake_ids']:,} snowflake "
        f"({result['limit_ids']:,} of the limited app against max_limit_id)",
        "  limit changes not held binding: " + (", ".join(
            f"{n} by {NOT_BINDING[k]}" for k, n in sorted(result["limits_not_binding"].items())) or "none"),
        f"  leases: {result['leases']['grants']} grants, {result['leases']['intervals']} issued intervals on "
        f"{result['leases']['workers']} workers, {result['leases']['unattributed_ids']} IDs without a grant",
        "  faults (applied / no effect / skipped by the gate / failed):",
    ]
    if result["ledger"]["audits"]:
        lines.insert(-1, f"  ledger audits: {result['ledger']['audits']}, witnesses found above the ledger: "
                         f"{result['ledger']['behind']}")
    for kind, c in sorted(result["faults"].items()):
        lines.append(f"    {kind:<32} {c['applied']:>4} {c['no effect']:>4} {c['skipped']:>4} {c['error']:>4}")
    total = sum(c["applied"] for c in result["faults"].values())
    lines.append(f"    {'total applied':<32} {total:>4}")
    calls = collections.defaultdict(dict)
    for (cmd, outcome), n in result["exits"].items():
        calls[cmd][str(outcome)] = n
    lines.append("  outcomes: " + "; ".join(f"{cmd}: " + ", ".join(f"{o}×{n}" for o, n in sorted(v.items())) for cmd, v in sorted(calls.items())))
    rec = result["recovery"]
    if rec and rec["last_heal"]:
        lines.append("  recovery after the last heal: " + ", ".join(f"{k} {v}s" if v is not None else f"{k} never" for k, v in rec["after_last"].items()))
        lines.append(f"  recovery of `{rec.get('each', 'next')}` after each fault (median / max s):")
        for kind, v in sorted(rec["by_fault"].items()):
            lines.append(f"    {kind:<32} {v['median_s']:>6} {v['max_s']:>7}  (n={v['n']})")
    if result["violations"]:
        lines.append(f"  VIOLATIONS: {len(result['violations'])}")
        for v in result["violations"][:50]:
            lines.append(f"    [{v['kind']}] {v['message']}")
            for r in v["records"][:4]:
                lines.append(f"        {json.dumps(r, separators=(',', ':'))[:600]}")
    else:
        lines.append("  violations: 0")
    return "\n".join(lines)
