"""The fault catalogue. Each fault is planned from the seed (`plan`: only the
random generator, never the live system, so a seed always plans the same
schedule) and run against the live system (`run`), which applies it, holds it,
heals it and says what happened.

A fault's `groups` name what it disturbs; the schedule never runs two faults
of one group at once. `gate` names a rollback gate (see Context.gate): the
README's "What no check can see" says repeats are possible when MySQL and
Redis both go back over the same span, and the nemesis must not stage that
documented limitation as if it were a hole. So a fault that makes one
authority lose data waits (up to GATE_WAIT) until the other one holds a
current record of everything, or is skipped and counted as skipped.
"""

import os
import sqlite3
import time

from . import resp
from .servers import CLUSTER_NODE_TIMEOUT_MS, DOWN_AFTER_MS, FAILOVER_TIMEOUT_S, MASTER_NAME, gtid_seq, wait_until
from .topology import MYSQL_VIP

GATE_WAIT = 60.0
# How long the sentinels may take to agree on a master again after Redis's
# FAILOVER demoted theirs behind their back.
DEMOTION_HEAL_S = 120.0
# How long a fault's own command to a server may take. The server may sit
# behind a link another fault degrades (a slow token bucket and 10% loss, for
# up to 20 s): a 2 s read timed out there, and the fault counted as failed.
FAULT_CALL_TIMEOUT_S = 30.0

def for_a_while(ctx, out, hold, apply, heal):
    """apply(), hold for `hold` seconds (less if the run is aborted), heal()
    even when the hold is cut short; notes when the fault healed."""
    apply()
    try:
        ctx.wait(hold)
    finally:
        heal()
    out["healed"] = time.time()


CLIENT_ROLES = ("taker", "limit-taker", "reloader", "app-setter", "migrator", "churner", "holder", "serve")
# What runs on each profile (workload.Clients.start): no migrate on the
# embedded store, only leases on Redis alone.
PROFILE_ROLES = {
    "embedded": tuple(r for r in CLIENT_ROLES if r != "migrator"),
    "redis-alone": ("churner", "holder", "serve"),
}
# The profiles whose leases live on Redis alone.
REDIS_ALONE_LEASES = ("redis-alone", "cluster")
CLOCK_TARGETS = ("holder1", "holder2", "holder3", "serve")


class Fault:
    kind = None
    profiles = ("distributed", "galera", "embedded", "redis-alone", "cluster")
    groups = ()
    weight = 1.0
    gate = None

    def plan(self, rng, profile):
        return {}

    def groups_for(self, params):
        return self.groups

    def run(self, ctx, p, out):
        """Applies, holds, heals; fills `out` (effective, notes, healed)."""
        raise NotImplementedError


# -- clients ----------------------------------------------------------------------

# Most client roles run one short idgen process per call, with pauses between
# calls: the planned instant often fell in a pause, and the kill found no
# process (46 of 75 kills in distributed 50003, 17 of 39 in galera 50001). A
# kill waits this long for the role's next call to start.
CLIENT_WAIT_S = 3.0
CLIENT_POLL_S = 0.005


class KillClient(Fault):
    kind = "kill9_client"
    weight = 3.0

    def plan(self, rng, profile):
        roles = list(PROFILE_ROLES.get(profile, CLIENT_ROLES))
        return {"role": rng.choice(roles), "pick": rng.random()}

    def run(self, ctx, p, out):
        role = p["role"]
        prefix = "holder:serve" if role == "serve" else "holder:holder" if role == "holder" else f"client:{role}"
        started = time.time()
        procs = ctx.registry.running(prefix)
        waited = not procs
        while not procs and time.time() - started < CLIENT_WAIT_S and not ctx.abort.is_set():
            ctx.wait(CLIENT_POLL_S)
            procs = ctx.registry.running(prefix)
        if not procs:
            out["effective"] = False
            out["notes"] = f"no {role} process running within {CLIENT_WAIT_S:g} s"
            return
        proc = by_fraction(sorted(procs, key=lambda proc: proc.name), p["pick"])
        proc.kill9()
        out["target"] = proc.name
        if waited:
            out["notes"] = f"waited {time.time() - started:.2f} s for a {role} process"
        out["healed"] = time.time()


class PauseClient(Fault):
    """SIGSTOP a lease holder or serve past its TTL, then SIGCONT: another
    holder may take its worker meanwhile; the paused one must not issue on."""
    kind = "sigstop_client"
    weight = 2.0

    def plan(self, rng, profile):
        return {"target": rng.choice(CLOCK_TARGETS), "hold": rng.uniform(2.5, 8.0)}

    def groups_for(self, p):
        return (f"proc:{p['target']}",)

    def run(self, ctx, p, out):
        name = "holder:serve" if p["target"] == "serve" else f"holder:{p['target']}"
        # That one process: on `cluster`, "holder:serve-segments" is another.
        procs = [proc for proc in ctx.registry.running(name) if proc.name == name]
        if not procs:
            out["effective"] = False
            out["notes"] = f"{p['target']} not running"
            return
        proc = procs[0]
        for_a_while(ctx, out, p["hold"], proc.stop, proc.cont)


class ClockStep(Fault):
    """A wall-clock step on a lease holder (libfaketime's offset file), held,
    then stepped back, as NTP would after a bad step."""
    kind = "clock_step"
    weight = 2.0

    def plan(self, rng, profile):
        size = rng.choice((0.3, 1.0, 3.0, 10.0, 30.0)) * rng.uniform(0.5, 1.5)
        # Drawn in the order they always were, so recorded seeds plan as they did.
        target = rng.choice(CLOCK_TARGETS)
        delta = size * rng.choice((-1, 1))
        if profile in REDIS_ALONE_LEASES and delta > 0:
            # On Redis alone a holder's clock ahead of Redis's by more than
            # the quarantine's one-second margin is documented as what no
            # check can see (its fences outrun a quarantine): staged with a
            # Redis that loses data, it would be reported as a hole. Ahead
            # within the margin, or behind by any amount, is fair.
            delta = min(delta, 0.9)
        return {"target": target, "delta_s": round(delta, 3), "hold": rng.uniform(3.0, 20.0)}

    def groups_for(self, p):
        return (f"clock:{p['target']}",)

    def run(self, ctx, p, out):
        path = ctx.clients.clock_file(p["target"])

        def step(offset):
            with open(path, "w") as f:
                f.write(f"{offset:+.3f}\n")

        for_a_while(ctx, out, p["hold"], lambda: step(p["delta_s"]), lambda: step(0))
        # A holder whose clock ran ahead issued time units up to `delta_s`
        # into the future, and issues nothing on that worker until the real
        # clock has passed them (its time fence, by design): the fault's
        # effect heals only then.
        out["healed"] += max(0.0, p["delta_s"])


# -- the network ---------------------------------------------------------------------

class PartitionClients(Fault):
    kind = "partition_clients"
    weight = 1.5

    def plan(self, rng, profile):
        return {"side": rng.choice(("c1", "c2")), "mode": rng.choice(("blackhole", "prohibit")),
                "hold": rng.uniform(2.0, 15.0)}

    def groups_for(self, p):
        return (f"net:{p['side']}",)

    def run(self, ctx, p, out):
        client = ctx.net.hosts[p["side"]]
        servers = [h for name, h in ctx.net.hosts.items() if not name.startswith("c")]
        extra = [MYSQL_VIP] if ctx.profile.mysql else []
        routes = []
        for_a_while(ctx, out, p["hold"], lambda: routes.extend(ctx.net.block([client], servers, p["mode"], extra_ips=extra)),
                    lambda: ctx.net.unblock(routes))


class IsolateServe(Fault):
    kind = "isolate_serve"
    weight = 1.0
    groups = ("net:serve1",)

    def plan(self, rng, profile):
        return {"hold": rng.uniform(2.0, 10.0)}

    def run(self, ctx, p, out):
        host = ctx.net.hosts["serve1"]
        for_a_while(ctx, out, p["hold"], lambda: ctx.net.isolate(host), lambda: ctx.net.rejoin(host))


class Degrade(Fault):
    kind = "delay_loss"
    weight = 1.0

    def plan(self, rng, profile):
        return {"pick": rng.random(), "delay_ms": rng.choice((20, 50, 100, 200)), "loss_pct": rng.choice((0, 1, 5, 10)),
                "hold": rng.uniform(5.0, 20.0)}

    def groups_for(self, p):
        return ("degrade",)

    def run(self, ctx, p, out):
        names = sorted(ctx.net.hosts)
        host = ctx.net.hosts[by_fraction(names, p["pick"])]
        out["target"] = host.name
        undo = {}

        def apply():
            undo.update(ctx.net.degrade(host, p["delay_ms"], p["loss_pct"]))
            out["notes"] = undo["mechanism"]

        for_a_while(ctx, out, p["hold"], apply, lambda: ctx.net.restore(undo))


# -- Redis -------------------------------------------------------------------------

class RedisFault(Fault):
    profiles = ("distributed", "galera", "redis-alone")
    groups = ("redis",)
    gate = "ledger_current"

    def master(self, ctx, out):
        master = ctx.profile.redis.master()
        if master is None:
            out["effective"] = False
            out["notes"] = "no master agreed by the sentinels"
        return master


class RedisKill(RedisFault):
    kind = "redis_kill9"
    weight = 2.0

    def plan(self, rng, profile):
        return {"who": rng.choice(("master", "master", "replica")), "hold": rng.choice((0.0, 0.5, 1.0, 4.0, 8.0))}

    def run(self, ctx, p, out):
        master = self.master(ctx, out)
        if not master:
            return
        server = master if p["who"] == "master" else ctx.profile.redis.other(master)
        out["target"] = server.name
        for_a_while(ctx, out, p["hold"], server.kill, server.start)


class RedisPause(RedisFault):
    kind = "redis_sigstop_master"
    weight = 1.5

    def plan(self, rng, profile):
        return {"hold": rng.uniform(0.5, 3.0) * DOWN_AFTER_MS / 1000}

    def run(self, ctx, p, out):
        master = self.master(ctx, out)
        if not master:
            return
        out["target"] = master.name
        for_a_while(ctx, out, p["hold"], master.proc.stop, master.proc.cont)


def sentinel_failover(sentinels):
    """`SENTINEL FAILOVER` through the first sentinel that takes the
    connection: a `sentinel_kill9` started in the same instant may have
    killed the first one (galera 40051, fault #294). A failover refused by
    every sentinel is an error reply (the fault had no effect), not a failure
    of the nemesis."""
    refused = []
    for sentinel in sentinels:
        try:
            return sentinel.call("SENTINEL", "FAILOVER", MASTER_NAME, timeout=FAULT_CALL_TIMEOUT_S)
        except OSError as e:
            refused.append(f"{e}")
    raise resp.RedisError("no sentinel took the connection: " + "; ".join(refused))


def by_fraction(items, fraction):
    """The item at `fraction` of the way through `items` (not empty). The
    planner rounds its fractions to three places, so 0.9995 and up arrive as
    1.0, which names the last item (galera 40041's fault #107 indexed past
    the end)."""
    return items[min(int(fraction * len(items)), len(items) - 1)]


def pick(out, candidates, fraction, missing):
    """One of `candidates` (oldest first) by a planned fraction, or None, noted."""
    if not candidates:
        out["effective"] = False
        out["notes"] = missing
        return None
    return by_fraction(candidates, fraction)


class RedisIntoThePast(RedisFault):
    """The master killed and started again from an older state of its data,
    fast enough that the sentinels keep it as the master (else it rejoins as
    a replica, and the fault had no effect)."""
    weight = 1.5

    def plan(self, rng, profile):
        return {"age": rng.random()}

    def run(self, ctx, p, out):
        master = self.master(ctx, out)
        if not master:
            return
        went_back = self.restart(ctx, master, p["age"], out)
        if went_back is None:
            return
        out["target"] = master.name
        out["healed"] = time.time()
        ctx.wait(DOWN_AFTER_MS / 1000 + 1)
        # Judged once the sentinels agree again: a server still loading its
        # data, or a vote under way, is no answer yet.
        try:
            out["effective"] = went_back and ctx.profile.redis.wait_master(timeout=30) is master
        except RuntimeError as e:
            out["effective"] = False
            out["notes"] = str(e)

    def restart(self, ctx, master, age, out):
        """Restarts `master` into its past; whether it went back, None if it could not."""
        raise NotImplementedError


def restart_from_old_rdb(ctx, master, age, out):
    """`master` restarted from one of its snapshots (the profile's Redis
    keeps them, Sentinel group or Cluster), its AOF gone; True, or None
    when it has no snapshot old enough."""
    snaps = [s for s in ctx.profile.redis.snapshots if s[1] == master.name and time.time() - s[0] > 3]
    snap = pick(out, snaps, age, "no snapshot of this master yet")
    if snap is None:
        return None
    out["snapshot_age_s"] = round(time.time() - snap[0], 1)
    master.restart_from_rdb(snap[2])
    return True


def restart_with_cut_aof(ctx, master, age, out):
    """`master` restarted with its AOF cut back to a length it had a while
    ago (a lost tail); whether it was cut, or None when no length is known."""
    incr = master.aof_incr()
    marks = [m for m in ctx.profile.redis.aof_marks if m[1] == master.name and m[2] == incr and time.time() - m[0] > 1]
    mark = pick(out, marks, age, "no AOF position of this master's current file yet")
    if mark is None:
        return None
    out["cut_to_age_s"] = round(time.time() - mark[0], 1)
    return master.restart_with_aof_cut(incr, mark[3])


class RedisOldRdb(RedisIntoThePast):
    """From an older RDB snapshot, its AOF gone."""
    kind = "redis_restart_old_rdb"
    restart = staticmethod(restart_from_old_rdb)


class RedisCutAof(RedisIntoThePast):
    """Its AOF cut back to a length it had a while ago (a lost tail)."""
    kind = "redis_restart_cut_aof"
    restart = staticmethod(restart_with_cut_aof)


class RedisLaggingPromote(RedisFault):
    """The replica cut off from the master while clients write, then the
    master killed: the sentinels promote the replica that lags."""
    kind = "redis_promote_lagging_replica"
    weight = 1.5

    def plan(self, rng, profile):
        return {"lag": rng.uniform(2.0, 8.0), "down": rng.uniform(2.0, 10.0)}

    def run(self, ctx, p, out):
        redis = ctx.profile.redis
        master = self.master(ctx, out)
        if not master:
            return
        replica = redis.other(master)
        routes = ctx.net.block([replica.host], [master.host])
        try:
            ctx.wait(p["lag"])
            master.kill()
        finally:
            ctx.net.unblock(routes)
        new = redis.wait_master(timeout=60)
        out["healed"] = time.time()
        out["effective"] = new is replica
        ctx.wait(p["down"])
        master.start()


class RedisDemote(RedisFault):
    kind = "redis_demote_master"
    weight = 1.0
    # Waits for a master the sentinels agree on and a replica in sync: tried
    # at once, it found neither for half a minute after each demotion (7 of
    # 11 times in a schedule of demotions alone, seed 70002; all 4 times in
    # distributed 60001), and tested nothing.
    gate = "ledger_current,redis_demotable"

    def plan(self, rng, profile):
        return {"how": rng.choice(("sentinel-failover", "failover-command"))}

    def run(self, ctx, p, out):
        redis = ctx.profile.redis
        master = self.master(ctx, out)
        if not master:
            return
        out["target"] = master.name
        try:
            if p["how"] == "sentinel-failover":
                sentinel_failover(redis.sentinels)
            else:
                replica = redis.other(master)
                master.call("FAILOVER", "TO", replica.host.ip, replica.port, "TIMEOUT", 5000,
                            timeout=FAULT_CALL_TIMEOUT_S)
        except resp.RedisError as e:
            # No replica fit to take over right now (still syncing after a restart).
            out["effective"] = False
            out["notes"] = str(e)
            return
        if p["how"] == "sentinel-failover":
            try:
                # A failover takes the sentinels seconds (a vote, then the
                # promotion): judged when another server is the agreed
                # master, or not at all within the sentinels' failover timeout.
                redis.wait_other_master(master, timeout=2 * FAILOVER_TIMEOUT_S)
                out["effective"] = True
            except RuntimeError as e:
                out["effective"] = False
                out["notes"] = str(e)
        else:
            # FAILOVER TO demotes the master behind the sentinels' back: they
            # may turn it back into the master a few seconds later (whatever
            # the replica took meanwhile is then lost). It had an effect if
            # the master stepped down at all.
            try:
                wait_until(f"{master.name} to step down", lambda: master.role() == "slave", timeout=FAILOVER_TIMEOUT_S)
                out["effective"] = True
            except RuntimeError as e:
                out["effective"] = False
                out["notes"] = str(e)
            else:
                # Until they find it down (two INFO periods past
                # down-after-milliseconds) and fail over, the sentinels name
                # the old master, now a replica, and a client that follows
                # them has no master to use: the fault heals when they agree
                # on one again (24-33 s in distributed 70002).
                try:
                    redis.wait_master(timeout=DEMOTION_HEAL_S)
                except RuntimeError as e:
                    out["notes"] = f"not healed: {e}"
        out["healed"] = time.time()


class RedisFlushAll(RedisFault):
    kind = "redis_flushall"
    weight = 1.0

    def run(self, ctx, p, out):
        master = self.master(ctx, out)
        if not master:
            return
        master.call("FLUSHALL", timeout=FAULT_CALL_TIMEOUT_S)
        out["target"] = master.name
        out["healed"] = time.time()


class RedisSplitBrain(RedisFault):
    """The master cut off from its replica and the sentinels but not from the
    clients: the sentinels promote the replica while the old master still
    answers whoever is connected to it."""
    kind = "redis_partition_master"
    weight = 1.5

    def plan(self, rng, profile):
        return {"hold": rng.uniform(1.0, 4.0) * DOWN_AFTER_MS / 1000}

    def run(self, ctx, p, out):
        redis = ctx.profile.redis
        master = self.master(ctx, out)
        if not master:
            return
        others = [redis.other(master).host] + [s.host for s in redis.sentinels]
        routes = []
        for_a_while(ctx, out, p["hold"], lambda: routes.extend(ctx.net.block([master.host], others)),
                    lambda: ctx.net.unblock(routes))


class RedisIsolate(RedisFault):
    kind = "redis_isolate"
    weight = 1.0

    def plan(self, rng, profile):
        return {"who": rng.choice(("master", "replica")), "hold": rng.uniform(1.0, 8.0)}

    def run(self, ctx, p, out):
        redis = ctx.profile.redis
        master = self.master(ctx, out)
        if not master:
            return
        server = master if p["who"] == "master" else redis.other(master)
        out["target"] = server.name
        for_a_while(ctx, out, p["hold"], lambda: ctx.net.isolate(server.host), lambda: ctx.net.rejoin(server.host))


class RedisEvict(RedisFault):
    """The master short of memory under an `allkeys-*` policy: a `maxmemory`
    below what it uses, for a while, so it evicts keys one at a time, of
    idgen's whichever the policy picks (fences, lease keys, the record, the
    free list), and refuses writes (OOM) when nothing is left to evict. The
    deletions reach the replica as well."""
    kind = "redis_evict"
    profiles = ("redis-alone",)
    weight = 1.5

    def plan(self, rng, profile):
        return {"policy": rng.choice(("allkeys-lru", "allkeys-lfu", "allkeys-random")),
                "share": rng.choice((0.2, 0.5, 0.9, 1.5)), "hold": rng.uniform(1.0, 10.0)}

    def run(self, ctx, p, out):
        master = self.master(ctx, out)
        if not master:
            return
        out["target"] = master.name
        before = {}

        def config(**settings):
            for name, value in settings.items():
                master.call("CONFIG", "SET", name, str(value), timeout=FAULT_CALL_TIMEOUT_S)

        def apply():
            memory = resp.info(*master.addr, "memory", timeout=FAULT_CALL_TIMEOUT_S)
            before.update(policy=memory.get("maxmemory_policy", "noeviction"), limit=memory.get("maxmemory", "0"))
            used, keys = int(memory["used_memory"]), self.key_bytes(master)
            # `share` of the keys' memory over the limit (above 1, every key
            # goes): as clients write, the server evicts a key at a time.
            limit = max(1, used - int(p["share"] * keys))
            out["notes"] = f"{p['policy']}, maxmemory {limit} of {used} used ({keys} in keys)"
            config(**{"maxmemory-policy": p["policy"], "maxmemory": limit})
            evicted = resp.info(*master.addr, "stats", timeout=FAULT_CALL_TIMEOUT_S).get("evicted_keys")
            out["evicted_keys_at_start"] = int(evicted or 0)

        def heal():
            try:
                evicted = resp.info(*master.addr, "stats", timeout=FAULT_CALL_TIMEOUT_S).get("evicted_keys")
                out["evicted_keys"] = int(evicted or 0) - out.get("evicted_keys_at_start", 0)
                config(maxmemory=before.get("limit", "0"))
                config(**{"maxmemory-policy": before.get("policy", "noeviction")})
            except (OSError, resp.RedisError) as e:
                # Killed or cut off meanwhile by another group's fault: a
                # restart forgets a limit set by CONFIG SET.
                out["notes"] = f"{out.get('notes', '')}; not reset: {e}"

        for_a_while(ctx, out, p["hold"], apply, heal)

    @staticmethod
    def key_bytes(master):
        """What every key of the server takes (`MEMORY USAGE`), in bytes."""
        total, cursor = 0, "0"
        while True:
            cursor, keys = master.call("SCAN", cursor, "COUNT", 1000, timeout=FAULT_CALL_TIMEOUT_S)
            for key in keys:
                total += int(master.call("MEMORY", "USAGE", key, timeout=FAULT_CALL_TIMEOUT_S) or 0)
            if cursor == "0":
                return total


class SentinelKill(Fault):
    kind = "sentinel_kill9"
    profiles = ("distributed", "galera", "redis-alone")
    weight = 0.5

    def plan(self, rng, profile):
        return {"which": rng.randrange(3), "hold": rng.uniform(1.0, 10.0)}

    def groups_for(self, p):
        return ("sentinel",)

    def run(self, ctx, p, out):
        sentinel = ctx.profile.redis.sentinels[p["which"]]
        out["target"] = sentinel.name
        for_a_while(ctx, out, p["hold"], sentinel.kill, sentinel.start)


class SecondFault(Fault):
    """Faults of the node `second`, which holds the moved app's stock and witnesses."""
    profiles = ("distributed", "galera", "cluster")
    groups = ("second",)
    gate = "ledger_current"


class SecondKill(SecondFault):
    kind = "second_node_kill9"

    def plan(self, rng, profile):
        return {"hold": rng.choice((0.0, 1.0, 5.0))}

    def run(self, ctx, p, out):
        server = ctx.profile.second.server
        for_a_while(ctx, out, p["hold"], server.kill, server.start)


class SecondOldRdb(SecondFault):
    kind = "second_node_restart_old_rdb"

    def plan(self, rng, profile):
        return {"age": rng.random()}

    def run(self, ctx, p, out):
        second = ctx.profile.second
        snap = pick(out, [s for s in second.snapshots if time.time() - s[0] > 3], p["age"], "no snapshot yet")
        if snap is None:
            return
        out["snapshot_age_s"] = round(time.time() - snap[0], 1)
        second.server.restart_from_rdb(snap[1])
        out["healed"] = time.time()


# -- MySQL: a primary with an asynchronous replica ----------------------------------------

class MysqlFault(Fault):
    profiles = ("distributed", "cluster")
    groups = ("mysql",)


class MysqlKill(MysqlFault):
    kind = "mysql_kill9"
    weight = 1.5

    def plan(self, rng, profile):
        return {"who": rng.choice(("primary", "primary", "replica")), "hold": rng.choice((0.0, 2.0, 6.0))}

    def run(self, ctx, p, out):
        pair = ctx.profile.mysql
        node = pair.primary if p["who"] == "primary" else pair.replica
        out["target"] = node.name

        def restart():
            node.start()
            if node is pair.replica:
                pair.replicate(node, pair.primary)

        for_a_while(ctx, out, p["hold"], node.kill, restart)


class MysqlPause(MysqlFault):
    kind = "mysql_sigstop_primary"
    weight = 1.0

    def plan(self, rng, profile):
        return {"hold": rng.uniform(1.0, 8.0)}

    def run(self, ctx, p, out):
        node = ctx.profile.mysql.primary
        out["target"] = node.name
        for_a_while(ctx, out, p["hold"], node.proc.stop, node.proc.cont)


class MysqlIsolate(MysqlFault):
    kind = "mysql_isolate_primary"
    weight = 1.0

    def plan(self, rng, profile):
        return {"hold": rng.uniform(2.0, 8.0)}

    def run(self, ctx, p, out):
        node = ctx.profile.mysql.primary
        out["target"] = node.name
        for_a_while(ctx, out, p["hold"], lambda: ctx.net.isolate(node.host), lambda: ctx.net.rejoin(node.host))


class MysqlLaggingPromote(MysqlFault):
    """The unplanned failover the README warns about: the replica stops
    applying (it lags, its relay log growing), the primary dies, and the
    replica is promoted with what it had applied; the VIP moves to it. The
    ledger has gone back in time: the witnesses in Redis must catch it."""
    kind = "mysql_promote_lagging_replica"
    groups = ("mysql", "redis", "second")
    gate = "witness_current"
    weight = 1.5

    def plan(self, rng, profile):
        return {"lag": rng.uniform(2.0, 8.0)}

    def run(self, ctx, p, out):
        pair = ctx.profile.mysql
        if not pair.replicating():
            out["effective"] = False
            out["notes"] = "the replica is not replicating"
            return
        old, new = pair.primary, pair.replica
        witnesses = ctx.profile.redis.master_identity()
        new.query("STOP SLAVE SQL_THREAD")
        ctx.wait(p["lag"])
        # The span the ledger is about to lose must be witnessed by the one
        # server that held the witnesses at the gate. If Redis failed over
        # meanwhile (a failover already under way, or set off by the load),
        # both authorities would go back over the same span: the README's
        # "What no check can see", not a hole to stage. Called off instead.
        moved = ctx.profile.redis.unsettled()
        now = ctx.profile.redis.master_identity()
        if moved is None and now != witnesses:
            moved = f"the Redis master changed from {witnesses} to {now}"
        if moved:
            new.query("START SLAVE SQL_THREAD")
            out["effective"] = False
            out["notes"] = f"called off before the promotion: {moved} during the lag"
            return
        position = old.value("SELECT @@gtid_binlog_pos")
        old.kill()
        applied = new.value("SELECT @@gtid_slave_pos")
        pair.promote(new)
        pair.rolled_back_at = time.time()
        out["healed"] = time.time()
        out["transactions_lost"] = gtid_seq(position) - gtid_seq(applied)
        out["effective"] = out["transactions_lost"] > 0
        out["target"] = old.name
        pair.rebuild_replica()


class MysqlSwitchover(MysqlFault):
    """A planned switchover: the VIP leaves the primary (its clients cut off),
    the replica catches up, is promoted and gets the VIP, and the old primary
    is demoted to a replica of it."""
    kind = "mysql_switchover"
    weight = 1.0

    def run(self, ctx, p, out):
        pair = ctx.profile.mysql
        if not pair.replicating():
            out["effective"] = False
            out["notes"] = "the replica is not replicating"
            return
        old = pair.primary
        pair.drop_vip()
        pair.kill_client_sessions(old)
        pair.wait_caught_up()
        pair.promote(pair.replica)
        out["healed"] = time.time()
        pair.demote(old)
        out["target"] = old.name


# -- Galera --------------------------------------------------------------------------

class GaleraFault(Fault):
    profiles = ("galera",)
    groups = ("galera",)

    def plan(self, rng, profile):
        return {"node": rng.randrange(3), "hold": rng.uniform(2.0, 15.0)}


class GaleraKill(GaleraFault):
    kind = "galera_kill9"
    weight = 2.0

    def run(self, ctx, p, out):
        cluster = ctx.profile.galera
        node = cluster.nodes[p["node"]]
        out["target"] = node.name
        for_a_while(ctx, out, p["hold"], node.kill, lambda: cluster.rejoin(node))


class GaleraPause(GaleraFault):
    kind = "galera_sigstop"
    weight = 1.5

    def run(self, ctx, p, out):
        cluster = ctx.profile.galera
        node = cluster.nodes[p["node"]]
        out["target"] = node.name
        for_a_while(ctx, out, p["hold"], node.proc.stop, lambda: (node.proc.cont(), cluster.wait_synced(node)))


class GaleraIsolate(GaleraFault):
    kind = "galera_isolate"
    weight = 1.5

    def run(self, ctx, p, out):
        cluster = ctx.profile.galera
        node = cluster.nodes[p["node"]]
        out["target"] = node.name
        for_a_while(ctx, out, p["hold"], lambda: ctx.net.isolate(node.host),
                    lambda: (ctx.net.rejoin(node.host), cluster.wait_synced(node)))


# -- the embedded store ------------------------------------------------------------------

class StoreLocked(Fault):
    """Another process holds the store's write lock (an exclusive SQLite
    transaction): idgen waits within --timeout, then fails with 5."""
    kind = "store_write_locked"
    profiles = ("embedded",)
    groups = ("store",)
    weight = 1.5

    def plan(self, rng, profile):
        return {"hold": rng.uniform(1.0, 8.0)}

    def run(self, ctx, p, out):
        if not os.path.exists(ctx.profile.store):
            out["effective"] = False
            return
        conn = sqlite3.connect(ctx.profile.store, timeout=30, isolation_level=None)
        try:
            for_a_while(ctx, out, p["hold"], lambda: conn.execute("BEGIN EXCLUSIVE"), lambda: conn.execute("ROLLBACK"))
        finally:
            conn.close()


class StoreRestored(Fault):
    """The store file replaced by an older copy of itself, as an operator
    restoring a backup does: a consistent copy (SQLite's backup) taken while
    the clients run, then, `hold` seconds later, put in place by a rename, the
    store's WAL and shared memory removed with the file they belonged to.
    The store's witness files stay. For the instant of the swap no idgen
    process starts and every running one is stopped: swapping a WAL database
    under a process that is opening it mixes the old WAL into the new file
    (any SQLite database, idgen's or not). Processes stopped mid-transaction
    finish it on the old file when continued; every later call of theirs
    opens the new one."""
    kind = "store_restored"
    profiles = ("embedded",)
    groups = ("store",)
    weight = 1.0

    def plan(self, rng, profile):
        return {"hold": rng.uniform(2.0, 30.0)}

    def run(self, ctx, p, out):
        store = ctx.profile.store
        if not os.path.exists(store):
            out["effective"] = False
            return
        copy = store + ".nemesis-copy"
        source = sqlite3.connect(store, timeout=FAULT_CALL_TIMEOUT_S)
        try:
            target = sqlite3.connect(copy)
            try:
                source.backup(target)
            finally:
                target.close()
        finally:
            source.close()
        out["copied"] = time.time()
        ctx.wait(p["hold"])
        with ctx.registry.frozen(("client:", "holder:")) as stopped:
            for suffix in ("-wal", "-shm"):
                try:
                    os.remove(store + suffix)
                except FileNotFoundError:
                    pass
            os.rename(copy, store)
            out["restored"] = time.time()
            out["stopped"] = len(stopped)
        out["healed"] = time.time()


# -- Redis Cluster -----------------------------------------------------------------

NODE_TIMEOUT_S = CLUSTER_NODE_TIMEOUT_MS / 1000
# How long the cluster may take to promote a replica of a master it finds
# failed: the node timeout to suspect it, a majority's agreement, the
# replica's election delay (half a second plus its rank), the vote.
CLUSTER_FAILOVER_S = 30.0


class ClusterFault(Fault):
    """A fault of the Cluster profile's Redis. Each may lose writes (a
    failover to a replica that had not received them, a restart into the
    past, a FLUSHALL), so after the ledger went back it waits, as the
    Sentinel group's faults do, until the ledger has caught up with the
    witnesses (`ledger_current`)."""
    profiles = ("cluster",)
    groups = ("redis",)
    gate = "ledger_current"

    def master(self, ctx, out, fraction):
        master = ctx.profile.redis.master_by_fraction(fraction)
        if master is None:
            out["effective"] = False
            out["notes"] = "no node answers as master of slots"
        else:
            out["target"] = master.name
        return master

    @staticmethod
    def replica(ctx, out, master):
        """`master`'s replica, or None, noted as no effect."""
        replica = ctx.profile.redis.replica_of(master)
        if replica is None:
            out["effective"] = False
            out["notes"] = f"{master.name} has no replica"
        return replica

    def node(self, ctx, out, p):
        """The master picked by `p["pick"]`, or its replica when `p["who"]`
        says so; None, noted, when there is none."""
        master = self.master(ctx, out, p["pick"])
        if master is None or p["who"] == "master":
            return master
        replica = self.replica(ctx, out, master)
        if replica is not None:
            out["target"] = replica.name
        return replica

    @staticmethod
    def became_master(ctx, server, timeout):
        """Whether `server` is a master of slots within `timeout`."""
        try:
            wait_until(f"{server.name} to be a master of slots",
                       lambda: server.name in ctx.profile.redis.slot_masters(), timeout=timeout, interval=0.25)
            return True
        except RuntimeError:
            return False


class ClusterKill(ClusterFault):
    """kill -9 of a master (twice as often) or a replica; restarted after
    `hold`: past the node timeout a master's replica is promoted, and a
    replica's master has none for a while (leases on Redis alone wait)."""
    kind = "cluster_kill9"
    weight = 2.0

    def plan(self, rng, profile):
        return {"who": rng.choice(("master", "master", "replica")), "pick": rng.random(),
                "hold": rng.choice((0.0, 0.5, 1.0, 4.0, 8.0))}

    def run(self, ctx, p, out):
        server = self.node(ctx, out, p)
        if server:
            for_a_while(ctx, out, p["hold"], server.kill, server.start)


class ClusterPause(ClusterFault):
    """SIGSTOP of a master for half to three node timeouts: past one, its
    replica is promoted, and the old master, continued, answers once before
    it learns it was replaced."""
    kind = "cluster_sigstop_master"
    weight = 1.5

    def plan(self, rng, profile):
        return {"pick": rng.random(), "hold": rng.uniform(0.5, 3.0) * NODE_TIMEOUT_S}

    def run(self, ctx, p, out):
        master = self.master(ctx, out, p["pick"])
        if master:
            for_a_while(ctx, out, p["hold"], master.proc.stop, master.proc.cont)


class ClusterIntoThePast(ClusterFault):
    """A master killed and started again from an older state of its data,
    within the node timeout, so that it stays the master of its slots (its
    `nodes.conf` is kept: only the data goes back)."""
    weight = 1.5

    def plan(self, rng, profile):
        return {"pick": rng.random(), "age": rng.random()}

    def run(self, ctx, p, out):
        master = self.master(ctx, out, p["pick"])
        if not master:
            return
        if self.restart(ctx, master, p["age"], out) is None:
            return
        out["healed"] = time.time()
        ctx.wait(NODE_TIMEOUT_S + 1)
        out["effective"] = master.name in ctx.profile.redis.slot_masters()

    # restart(ctx, master, age, out): restart_from_old_rdb or restart_with_cut_aof.
    restart = None


class ClusterOldRdb(ClusterIntoThePast):
    kind = "cluster_restart_old_rdb"
    restart = staticmethod(restart_from_old_rdb)


class ClusterCutAof(ClusterIntoThePast):
    kind = "cluster_restart_cut_aof"
    restart = staticmethod(restart_with_cut_aof)


class ClusterLaggingPromote(ClusterFault):
    """A master's replica cut off from it while clients write, then promoted:
    by `CLUSTER FAILOVER TAKEOVER` (an operator's forced failover, no
    agreement asked), or by the cluster once the master is killed."""
    kind = "cluster_promote_lagging_replica"
    weight = 1.5

    def plan(self, rng, profile):
        return {"pick": rng.random(), "how": rng.choice(("takeover", "kill")), "lag": rng.uniform(2.0, 8.0),
                "down": rng.uniform(2.0, 10.0)}

    def run(self, ctx, p, out):
        master = self.master(ctx, out, p["pick"])
        replica = master and self.replica(ctx, out, master)
        if not replica:
            return
        out["promoted"] = replica.name
        routes = ctx.net.block([replica.host], [master.host])
        killed = False
        try:
            ctx.wait(p["lag"])
            if p["how"] == "takeover":
                replica.call("CLUSTER", "FAILOVER", "TAKEOVER", timeout=FAULT_CALL_TIMEOUT_S)
            else:
                master.kill()
                killed = True
        except resp.RedisError as e:
            out["notes"] = str(e)
        finally:
            ctx.net.unblock(routes)
        out["effective"] = self.became_master(ctx, replica, CLUSTER_FAILOVER_S)
        out["healed"] = time.time()
        if killed:
            ctx.wait(p["down"])
            master.start()


class ClusterFailover(ClusterFault):
    """A manual failover (`CLUSTER FAILOVER` on a master's replica): the
    replica catches up with the master, then the two swap roles."""
    kind = "cluster_failover"
    weight = 1.0

    def plan(self, rng, profile):
        return {"pick": rng.random()}

    def run(self, ctx, p, out):
        master = self.master(ctx, out, p["pick"])
        replica = master and self.replica(ctx, out, master)
        if not replica:
            return
        try:
            replica.call("CLUSTER", "FAILOVER", timeout=FAULT_CALL_TIMEOUT_S)
        except resp.RedisError as e:
            out["effective"] = False
            out["notes"] = str(e)
            return
        out["effective"] = self.became_master(ctx, replica, CLUSTER_FAILOVER_S)
        out["healed"] = time.time()


class ClusterFlushAll(ClusterFault):
    kind = "cluster_flushall"
    weight = 1.0

    def plan(self, rng, profile):
        return {"pick": rng.random()}

    def run(self, ctx, p, out):
        master = self.master(ctx, out, p["pick"])
        if master:
            master.call("FLUSHALL", timeout=FAULT_CALL_TIMEOUT_S)
            out["healed"] = time.time()


class ClusterSplitBrain(ClusterFault):
    """A master cut off from every other node but not from the clients: the
    majority promotes its replica while the old master answers whoever is
    connected to it, until it finds itself alone (a node timeout)."""
    kind = "cluster_partition_master"
    weight = 1.5

    def plan(self, rng, profile):
        return {"pick": rng.random(), "hold": rng.uniform(1.0, 4.0) * NODE_TIMEOUT_S}

    def run(self, ctx, p, out):
        master = self.master(ctx, out, p["pick"])
        if not master:
            return
        others = [s.host for s in ctx.profile.redis.servers if s is not master]
        routes = []
        for_a_while(ctx, out, p["hold"], lambda: routes.extend(ctx.net.block([master.host], others)),
                    lambda: ctx.net.unblock(routes))


class ClusterIsolate(ClusterFault):
    kind = "cluster_isolate"
    weight = 1.0

    def plan(self, rng, profile):
        return {"who": rng.choice(("master", "replica")), "pick": rng.random(), "hold": rng.uniform(1.0, 8.0)}

    def run(self, ctx, p, out):
        server = self.node(ctx, out, p)
        if server:
            for_a_while(ctx, out, p["hold"], lambda: ctx.net.isolate(server.host), lambda: ctx.net.rejoin(server.host))


class ClusterReshard(ClusterFault):
    """One slot that holds idgen's keys (the lease namespace's, or a random
    key's: a shard's queue and its companions) moved to another master as
    `redis-cli --cluster reshard` moves it: IMPORTING and MIGRATING, the keys
    MIGRATEd in batches with a pause in the middle (clients meanwhile get ASK
    and TRYAGAIN), then the slot given to its new master everywhere."""
    kind = "cluster_reshard"
    weight = 1.5

    def plan(self, rng, profile):
        return {"what": rng.choice(("namespace", "random-key")), "pick": rng.random(), "to": rng.random(),
                "hold": rng.uniform(0.0, 3.0)}

    def run(self, ctx, p, out):
        redis = ctx.profile.redis
        source = self.master(ctx, out, p["pick"])
        if not source:
            return
        if p["what"] == "namespace":
            slot = int(source.call("CLUSTER", "KEYSLOT", f"idgen:{{{ctx.namespace}}}:meta"))
            source = redis.master_of_slot(slot)
            if source is None:
                out["effective"] = False
                out["notes"] = f"no master of slot {slot}"
                return
        else:
            key = source.call("RANDOMKEY", timeout=FAULT_CALL_TIMEOUT_S)
            if key is None:
                out["effective"] = False
                out["notes"] = f"{source.name} holds no key"
                return
            slot = int(source.call("CLUSTER", "KEYSLOT", key))
        targets = [redis.by_name(n) for n in redis.slot_masters() if n != source.name]
        if not targets:
            out["effective"] = False
            out["notes"] = "no other master"
            return
        target = by_fraction(targets, p["to"])
        out.update(target=source.name, slot=slot, to=target.name)
        ends = [source.myself(FAULT_CALL_TIMEOUT_S), target.myself(FAULT_CALL_TIMEOUT_S)]
        if None in ends:
            # Slowed past the admin call's timeout by another fault (cluster
            # 90001, fault #176): nothing was begun.
            out["effective"] = False
            out["notes"] = "the source or the target did not say its node ID"
            return
        try:
            out["keys_moved"] = self.move(ctx, redis, slot, source, target, ends[0][0], ends[1][0], p["hold"])
        except (OSError, resp.RedisError) as e:
            # Left half moved, the slot would answer ASK for good: finished
            # as an operator would, by redis-cli's repair of open slots.
            out["notes"] = f"moving slot {slot} failed ({e}); {redis.fix_open_slots()}"
        out["healed"] = time.time()

    @staticmethod
    def move(ctx, redis, slot, source, target, source_id, target_id, hold):
        target.call("CLUSTER", "SETSLOT", slot, "IMPORTING", source_id, timeout=FAULT_CALL_TIMEOUT_S)
        source.call("CLUSTER", "SETSLOT", slot, "MIGRATING", target_id, timeout=FAULT_CALL_TIMEOUT_S)
        moved, paused = 0, False
        while True:
            keys = source.call("CLUSTER", "GETKEYSINSLOT", slot, 10, timeout=FAULT_CALL_TIMEOUT_S)
            if not keys:
                break
            source.call("MIGRATE", target.host.ip, target.port, "", 0, 5000, "REPLACE", "KEYS", *keys,
                        timeout=FAULT_CALL_TIMEOUT_S)
            moved += len(keys)
            if not paused:
                # The slot split between the two masters for a while.
                paused = True
                ctx.wait(hold)
        for server in [target, source] + [s for s in redis.servers if s not in (target, source)]:
            try:
                server.call("CLUSTER", "SETSLOT", slot, "NODE", target_id, timeout=FAULT_CALL_TIMEOUT_S)
            except (OSError, resp.RedisError):
                pass  # a replica, or a node down: it learns from the others
        return moved


CATALOGUE = [
    KillClient(), PauseClient(), ClockStep(), PartitionClients(), IsolateServe(), Degrade(),
    RedisKill(), RedisPause(), RedisOldRdb(), RedisCutAof(), RedisLaggingPromote(), RedisDemote(),
    RedisFlushAll(), RedisSplitBrain(), RedisIsolate(), RedisEvict(), SentinelKill(), SecondKill(), SecondOldRdb(),
    MysqlKill(), MysqlPause(), MysqlIsolate(), MysqlLaggingPromote(), MysqlSwitchover(),
    GaleraKill(), GaleraPause(), GaleraIsolate(),
    StoreLocked(), StoreRestored(),
    ClusterKill(), ClusterPause(), ClusterOldRdb(), ClusterCutAof(), ClusterLaggingPromote(), ClusterFailover(),
    ClusterFlushAll(), ClusterSplitBrain(), ClusterIsolate(), ClusterReshard(),
]
BY_KIND = {f.kind: f for f in CATALOGUE}


def for_profile(profile):
    return [f for f in CATALOGUE if profile in f.profiles]


def check_gate(ctx, gate):
    """None when the gate is open, else why it is closed. A gate of several
    names, comma-separated, is open when each of them is, at one look."""
    for name in gate.split(","):
        why = check_one_gate(ctx, name)
        if why:
            return why
    return None


def check_one_gate(ctx, gate):
    if gate == "ledger_current":
        return ctx.profile.ledger_current() if hasattr(ctx.profile, "ledger_current") else None
    if gate == "witness_current":
        return ctx.profile.witness_current([ctx.namespace])
    if gate == "redis_demotable":
        return ctx.profile.redis.demotable()
    raise ValueError(f"no gate {gate!r}")
