"""The four profiles' servers, and what the faults and the workload need to
know about them: where each client connects, who is master or primary now,
and the omniscient reads the schedule's rollback gate uses.

  distributed: Redis master + replica watched by three Sentinels (clients use
               a redis-sentinel:// URL and follow the master by themselves), a
               second standalone Redis node `second` for `migrate`, and a
               MariaDB primary with an asynchronous replica. Clients reach the
               primary through a virtual IP that the nemesis moves on a
               failover, as keepalived or an orchestrator moves one: nothing
               is rewritten in the clients, and long-lived clients (serve,
               lease holders) find the new primary on their next connection.
  galera:      the same Redis side; a three-node Galera cluster, each client
               pinned to one node (multi-primary writes).
  embedded:    one SQLite store file shared by every client on the host.
  redis-alone: the same Sentinel group and nothing else: worker-ID leases on
               Redis alone (no MySQL), its holders and a `serve` of
               snowflake IDs; Redis is the only authority it has.
  cluster:     a Redis Cluster of three masters, each with a replica, the
               standalone node `second` for `migrate`, and the MariaDB pair
               (never failed over here: Redis is what this profile attacks).
               Segment clients use them all; lease holders, churners and
               `serve` lease on the Cluster alone, where Redis is the only
               authority.
"""

import os
import shutil
import subprocess
import threading
import time

from . import resp
from .servers import (CLUSTER_NODE_TIMEOUT_MS, LEDGER_DB, MASTER_NAME, ClusterNode, MariaDB, RedisServer, Sentinel,
                      gtid_seq, wait_until)

MYSQL_VIP = "10.77.0.200"
GALERA_PROVIDER = "/usr/lib/galera/libgalera_smm.so"
# The Galera nodes' state transfer: rsync, run as root (see write_sst_method).
SST_METHOD = "nemesis"
CLIENT_HOSTS = ("c1", "c2")


def parallel(*calls):
    """Runs the calls at once; re-raises the first failure."""
    errors = []

    def wrap(call):
        try:
            call()
        except BaseException as e:  # noqa: BLE001 - re-raised below
            errors.append(e)

    threads = [threading.Thread(target=wrap, args=(c,)) for c in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def keep_last(snapshots, path_of, n=12):
    """The last n snapshots (a restart goes back up to three minutes); the older files are deleted."""
    for old in snapshots[:-n]:
        try:
            os.remove(path_of(old))
        except OSError:
            pass
    return snapshots[-n:]


def remember_past(group, master):
    """What a restart into the past goes back to: `master`'s AOF length now,
    in `group.aof_marks`, and a snapshot in `group.snapshots` when its last
    is over 15 s old."""
    incr = master.aof_incr()
    if incr:
        group.aof_marks.append((time.time(), master.name, incr, os.path.getsize(incr)))
    last = max((t for t, name, _ in group.snapshots if name == master.name), default=0)
    if time.time() - last > 15:
        try:
            group.snapshots.append((time.time(), master.name, master.snapshot()))
        except (OSError, resp.RedisError, RuntimeError):
            pass


class RedisGroup:
    """Master, replica, three sentinels; plus the nemesis's snapshots and AOF
    positions of the master, for restarts into the past."""

    def __init__(self, net, registry, root, log):
        self.log = log
        self.servers = [RedisServer(f"redis{i}", net.add_host(f"redis{i}"), root, registry, log) for i in (1, 2)]
        self.sentinels = [Sentinel(f"sent{i}", net.add_host(f"sent{i}"), root, registry, log) for i in (1, 2, 3)]
        self.snapshots = []  # (time, server name, rdb path)
        self.aof_marks = []  # (time, server name, incr file, length)

    def start(self):
        master, replica = self.servers
        master.configure()
        replica.configure(replica_of=master)
        master.start()
        replica.start()
        wait_until("the replica to sync", lambda: resp.info(*replica.addr, "replication").get("master_link_status") == "up")
        for s in self.sentinels:
            s.configure(master)
        for s in self.sentinels:
            s.start()
        wait_until("the sentinels to know each other and the replica", self._acquainted, timeout=90)

    def _acquainted(self):
        for s in self.sentinels:
            f = s.master_fields()
            if f.get("num-other-sentinels") != "2" or f.get("num-slaves") != "1" or f.get("flags") != "master":
                return False
        return True

    def url(self):
        hosts = ",".join(f"{s.host.ip}:{s.port}" for s in self.sentinels)
        return f"redis-sentinel://{hosts}/0#{MASTER_NAME}"

    def master(self):
        """The server most sentinels name and that calls itself master, else None."""
        named = [s.master_addr() for s in self.sentinels]
        for addr in set(a for a in named if a):
            if named.count(addr) >= 2:
                server = self.by_ip(addr[0])
                if server and server.role() == "master":
                    return server
        return None

    def unsettled(self):
        """Why Redis is not settled, or None: the sentinels agree on one
        master, none finds it down or is failing it over, and no other server
        calls itself master. A failover still under way when a fault starts
        (a paused master's, say) can promote a replica that never synced
        while the old master keeps its clients: two masters, each holding
        witnesses the other never saw."""
        return self._unsettled(self.master())

    def _unsettled(self, master):
        """`unsettled`, for the master the sentinels were just found to agree on."""
        if master is None:
            return "the sentinels do not agree on a master"
        for sentinel in self.sentinels:
            try:
                flags = sentinel.master_fields().get("flags", "").split(",")
            except (OSError, resp.RedisError):
                continue  # a sentinel that is down: the others decide
            busy = [f for f in ("s_down", "o_down", "failover_in_progress") if f in flags]
            if busy:
                return f"{sentinel.name} reports {','.join(busy)}"
        others = [s.name for s in self.servers if s is not master and s.role() == "master"]
        if others:
            return f"{', '.join(others)} calls itself master beside {master.name}"
        return None

    def demotable(self):
        """Why the master cannot be demoted now, or None: Redis is settled
        (`unsettled`) and the replica is in sync with the master. Sentinel
        promotes only a replica that answers and has synced, and after a
        demotion behind its back (`FAILOVER TO`) it names the old master,
        now a replica, until it finds it down: two INFO periods past
        down-after-milliseconds, about 22 s here, then a failover. A demotion
        tried meanwhile finds no master, or no replica to promote."""
        # One look at the master: asked again, the sentinels may name none.
        master = self.master()
        why = self._unsettled(master)
        if why:
            return why
        replica = self.other(master)
        try:
            link = resp.info(replica.host.ip, replica.port, "replication", timeout=1.0)
        except (OSError, resp.RedisError) as e:
            return f"{replica.name} does not answer: {e}"
        if link.get("role") != "slave" or link.get("master_link_status") != "up":
            return (f"{replica.name} is not in sync with {master.name} "
                    f"(role {link.get('role')}, master_link_status {link.get('master_link_status')})")
        return None

    def master_identity(self):
        """The master the sentinels agree on, as (name, run_id), or None:
        another value later means the witnesses moved to another server."""
        master = self.master()
        if master is None:
            return None
        try:
            return (master.name, resp.info(master.host.ip, master.port, "server", timeout=1.0).get("run_id"))
        except (OSError, resp.RedisError):
            return None

    def masters(self):
        """The servers that call themselves master now: two after a split
        brain the Sentinels have not yet healed, one that was never demoted
        beside the one they promoted."""
        return [s.name for s in self.servers if s.role() == "master"]

    def wait_master(self, timeout=60):
        found = []
        wait_until("the sentinels to agree on a master", lambda: found.append(self.master()) or found[-1] is not None, timeout=timeout, interval=0.25)
        return found[-1]

    def wait_other_master(self, old, timeout):
        """The master the sentinels agree on once it is not `old`."""
        found = []
        wait_until(f"the sentinels to agree on a master other than {old.name}",
                   lambda: found.append(self.master()) or found[-1] not in (None, old), timeout=timeout, interval=0.25)
        return found[-1]

    def by_ip(self, ip):
        return next((s for s in self.servers if s.host.ip == ip), None)

    def other(self, server):
        return next(s for s in self.servers if s is not server)

    def tick(self):
        """Every few seconds: note the master's AOF length; now and then a snapshot."""
        master = self.master()
        if master:
            remember_past(self, master)
        self.aof_marks = self.aof_marks[-200:]
        self.snapshots = keep_last(self.snapshots, lambda s: s[2])

    def heal(self):
        """After the schedule: every data server and sentinel running."""
        for server in self.servers:
            if not server.alive():
                server.start()
        for s in self.sentinels:
            if not s.alive():
                s.start()


class RedisCluster:
    """Six cluster nodes, made three masters with a replica each by
    `redis-cli --cluster create`; plus snapshots and AOF positions of the
    masters, for restarts into the past. Who is master of what is read from
    the nodes themselves each time: failovers and resharding move it."""

    def __init__(self, net, registry, root, log):
        self.log = log
        self.servers = [ClusterNode(f"rcl{i}", net.add_host(f"rcl{i}"), root, registry, log) for i in range(1, 7)]
        self.snapshots = []  # (time, server name, rdb path)
        self.aof_marks = []  # (time, server name, incr file, length)

    def start(self):
        for server in self.servers:
            server.configure()
        parallel(*(server.start for server in self.servers))
        argv = ["redis-cli", "--cluster", "create", *(f"{s.host.ip}:{s.port}" for s in self.servers),
                "--cluster-replicas", "1", "--cluster-yes"]
        created = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if created.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed: {created.stdout[-500:]} {created.stderr[-500:]}")
        wait_until("the cluster to be settled", lambda: self.unsettled() is None, timeout=90, interval=0.5)

    def url(self):
        return "redis-cluster://" + ",".join(f"{s.host.ip}:{s.port}" for s in self.servers)

    def views(self):
        """Each answering node's own line: name -> (id, flags, master id, slot ranges)."""
        out = {}
        for server in self.servers:
            mine = server.myself()
            if mine is not None:
                out[server.name] = mine
        return out

    def by_name(self, name):
        return next(s for s in self.servers if s.name == name)

    def slot_masters(self, views=None):
        """The nodes that call themselves master of at least one slot, by name."""
        views = self.views() if views is None else views
        return sorted(name for name, (_, flags, _, ranges) in views.items() if "master" in flags and ranges)

    def master_by_fraction(self, fraction):
        """One master of slots, picked by a planned fraction, or None."""
        masters = self.slot_masters()
        if not masters:
            return None
        return self.by_name(masters[min(int(fraction * len(masters)), len(masters) - 1)])

    def replica_of(self, master, views=None):
        """The node that calls itself a replica of `master`, or None."""
        views = self.views() if views is None else views
        mine = views.get(master.name)
        if mine is None:
            return None
        return next((self.by_name(name) for name, (_, flags, master_id, _) in views.items()
                     if "slave" in flags and master_id == mine[0]), None)

    def master_of_slot(self, slot, views=None):
        views = self.views() if views is None else views
        for name, (_, flags, _, ranges) in views.items():
            if "master" in flags and any(a <= slot <= b for a, b in ranges):
                return self.by_name(name)
        return None

    def unsettled(self):
        """Why the cluster is not settled, or None: every node answers and
        reports `cluster_state:ok`, three nodes call themselves masters of
        slots that do not overlap, and each has a replica in sync."""
        views = self.views()
        missing = [s.name for s in self.servers if s.name not in views]
        if missing:
            return f"{', '.join(missing)} do not answer"
        for server in self.servers:
            try:
                state = resp.info(server.host.ip, server.port, "cluster", timeout=1.0)
                info = server.call("CLUSTER", "INFO", timeout=1.0)
            except (OSError, resp.RedisError) as e:
                return f"{server.name}: {e}"
            if "cluster_state:ok" not in info or state.get("cluster_enabled") != "1":
                return f"{server.name} reports the cluster down"
        split = self.masters(views)
        if split:
            return f"{', '.join(split)} each call themselves master of one slot"
        masters = self.slot_masters(views)
        if len(masters) != 3:
            return f"{len(masters)} masters of slots ({', '.join(masters)})"
        for name in masters:
            replica = self.replica_of(self.by_name(name), views)
            if replica is None:
                return f"{name} has no replica"
            try:
                link = resp.info(replica.host.ip, replica.port, "replication", timeout=1.0)
            except (OSError, resp.RedisError) as e:
                return f"{replica.name}: {e}"
            if link.get("master_link_status") != "up":
                return f"{replica.name} is not in sync with {name}"
        return None

    def masters(self, views=None):
        """The nodes that each call themselves master of one same slot (a
        split brain: a master cut off from the majority still answers its
        clients until it finds itself alone), or none."""
        views = self.views() if views is None else views
        claims = [(name, ranges) for name, (_, flags, _, ranges) in views.items() if "master" in flags]
        split = set()
        for i, (a, ra) in enumerate(claims):
            for b, rb in claims[i + 1:]:
                if any(x1 <= y2 and y1 <= x2 for x1, x2 in ra for y1, y2 in rb):
                    split.update((a, b))
        return sorted(split)

    def master_identity(self):
        """The masters of slots, each as (name, run_id), sorted, or None when
        one does not answer: another value later means some witnesses moved
        to another server (a failover, a restart)."""
        identity = []
        for name in self.slot_masters():
            server = self.by_name(name)
            try:
                identity.append((name, resp.info(server.host.ip, server.port, "server", timeout=1.0).get("run_id")))
            except (OSError, resp.RedisError):
                return None
        return tuple(identity) or None

    def witnesses(self):
        """Every witness the Cluster holds, read from each master of slots:
        {(app, shard): last}. Only on a settled Cluster with no slot moving,
        where each witness is on one master."""
        why = self.unsettled() or ("a slot is being moved" if self.open_slots() else None)
        if why:
            raise RuntimeError(f"the Cluster's witnesses cannot be read whole: {why}")
        table = {}
        for name in self.slot_masters():
            for key, last in witness_table(self.by_name(name)).items():
                table[key] = max(table.get(key, 0), last)
        return table

    def tick(self):
        """Every few seconds: each master's AOF length; now and then a snapshot."""
        for name in self.slot_masters():
            remember_past(self, self.by_name(name))
        self.aof_marks = self.aof_marks[-600:]
        self.snapshots = keep_last(self.snapshots, lambda s: s[2], n=36)

    def heal(self):
        for server in self.servers:
            if not server.alive():
                server.start()
        if self.open_slots():
            self.log(f"cluster: {self.fix_open_slots()}")

    def open_slots(self):
        """Whether a node has a slot still being migrated or imported."""
        for server in self.servers:
            try:
                text = server.call("CLUSTER", "NODES", timeout=1.0)
            except (OSError, resp.RedisError):
                continue
            if any("myself" in line and "[" in line for line in text.splitlines()):
                return True
        return False

    def fix_open_slots(self):
        """`redis-cli --cluster fix` through the first node that answers: a
        slot left migrating is finished or given back, keys and all."""
        for server in self.servers:
            if server.alive():
                fixed = subprocess.run(["redis-cli", "--cluster", "fix", f"{server.host.ip}:{server.port}",
                                        "--cluster-yes"], capture_output=True, text=True, timeout=120)
                return f"redis-cli --cluster fix exited {fixed.returncode}"
        return "no node to repair the cluster through"


class SecondNode:
    """A standalone Redis node, `second`, that `migrate` moves an app to and back."""

    def __init__(self, net, registry, root, log):
        self.server = RedisServer("redis3", net.add_host("redis3"), root, registry, log)
        self.snapshots = []

    def start(self):
        self.server.configure()
        self.server.start()

    def url(self):
        return f"redis://{self.server.host.ip}:{self.server.port}/0"

    def tick(self):
        if self.server.alive() and (not self.snapshots or time.time() - self.snapshots[-1][0] > 15):
            try:
                self.snapshots.append((time.time(), self.server.snapshot()))
            except (OSError, resp.RedisError, RuntimeError):
                pass
            self.snapshots = keep_last(self.snapshots, lambda s: s[1])

    def heal(self):
        if not self.server.alive():
            self.server.start()


class MysqlPair:
    """A MariaDB primary and its asynchronous replica (binary logs and GTIDs on
    both, so either can be primary), the primary reached through MYSQL_VIP."""

    def __init__(self, net, registry, root, log):
        self.net, self.log = net, log
        self.nodes = [MariaDB(f"mysql{i}", net.add_host(f"mysql{i}"), root, registry, log, server_id=i) for i in (1, 2)]
        self.primary, self.replica = self.nodes
        self.vip_host = None
        # Set when the nemesis promoted a lagging replica; cleared by the gate
        # once every witness in Redis has been matched again.
        self.rolled_back_at = None

    def start(self):
        parallel(*(n.install for n in self.nodes))
        parallel(*(n.start for n in self.nodes))
        self.replica.query("SET GLOBAL read_only = 1")
        self.replicate(self.replica, self.primary)
        self.primary.query(f"CREATE DATABASE {LEDGER_DB}")
        self.wait_caught_up()
        self.move_vip(self.primary)

    def url(self):
        return f"mysql://root@{MYSQL_VIP}:{self.primary.port}/{LEDGER_DB}"

    def replicate(self, replica, primary):
        replica.query(
            f"STOP SLAVE; CHANGE MASTER TO MASTER_HOST = '{primary.host.ip}', MASTER_PORT = {primary.port}, "
            "MASTER_USER = 'root', MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 1; START SLAVE"
        )

    def move_vip(self, to):
        if self.vip_host:
            self.net.del_vip(self.vip_host, MYSQL_VIP)
        self.net.add_vip(to.host, MYSQL_VIP)
        self.vip_host = to.host

    def drop_vip(self):
        if self.vip_host:
            self.net.del_vip(self.vip_host, MYSQL_VIP)
            self.vip_host = None

    def wait_caught_up(self, timeout=60):
        position = self.primary.value("SELECT @@gtid_binlog_pos")
        if position:
            waited = self.replica.value(f"SELECT MASTER_GTID_WAIT('{position}', {timeout})", timeout=timeout + 10)
            if waited != "0":
                raise RuntimeError(f"the replica did not apply {position} within {timeout}s")

    def promote(self, node):
        """The failover tool's promotion: unapplied relay log thrown away, writable."""
        node.query("STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = 0")
        self.primary, self.replica = node, next(n for n in self.nodes if n is not node)
        self.move_vip(node)

    def demote(self, node):
        """A former primary that has every transaction of the new one replicates from it."""
        node.query("SET GLOBAL read_only = 1; SET GLOBAL gtid_slave_pos = @@gtid_binlog_pos")
        self.replicate(node, self.primary)

    def kill_client_sessions(self, node):
        """What a failover tool does to a primary it takes the VIP from: the
        sessions of clients that can no longer reach it are killed, or their
        open transactions would hold row locks that the replication thread
        waits on once it is a replica (until it gives up, error 1205)."""
        rows = node.query(
            "SELECT id FROM information_schema.processlist WHERE id <> CONNECTION_ID() "
            "AND user NOT IN ('system user', 'event_scheduler') AND command NOT IN ('Binlog Dump', 'Daemon', 'Slave_IO', 'Slave_SQL')"
        )
        for (session,) in rows:
            try:
                node.query(f"KILL {session}")
            except RuntimeError:
                pass  # ended meanwhile

    def replicating(self):
        status = self.replica.slave_status()
        return status.get("Slave_IO_Running") == "Yes" and status.get("Slave_SQL_Running") == "Yes"

    def rebuild_replica(self):
        """The old primary of a lagging promotion has transactions the new one
        never saw: it is rebuilt from a dump of the new primary, as an operator
        would, then replicates from it."""
        node = self.replica
        node.kill()
        node.install()
        node.start()
        # A fresh server: nothing in its binary log may claim a GTID the dump's
        # position (gtid_slave_pos) is behind.
        node.query("SET GLOBAL read_only = 1; RESET MASTER")
        dump = os.path.join(node.dir, "rebuild.sql")
        with open(dump, "wb") as out:
            out.write(b"SET SESSION sql_log_bin = 0;\n")
            out.flush()
            subprocess.run(self.primary.client_argv("mariadb-dump") + ["--single-transaction", "--gtid", "--master-data=1", "--databases", LEDGER_DB],
                           stdout=out, check=True, timeout=120)
        with open(dump, "rb") as f:
            subprocess.run(node.client_argv(), stdin=f, check=True, timeout=120)
        self.replicate(node, self.primary)

    def heal(self):
        for node in self.nodes:
            if not node.alive():
                node.start()
                if node is self.replica:
                    self.replicate(node, self.primary)
        if self.vip_host is not self.primary.host:
            self.move_vip(self.primary)
        if not self.replicating():
            self.log("mysql: the replica stopped replicating; rebuilding it from a dump of the primary")
            self.rebuild_replica()

    # -- omniscient reads for the rollback gate --------------------------------

    def ledger(self):
        rows = self.primary.query("SELECT app_id, shard_id, max_id FROM id_alloc", LEDGER_DB)
        return {(int(a), int(s)): int(m) for a, s, m in rows}

    def routes(self):
        try:
            rows = self.primary.query("SELECT app_id, node, IFNULL(target_node, ''), IFNULL(phase, '') FROM idgen_route", LEDGER_DB)
        except RuntimeError:
            return {}
        return {int(a): (n, t, p) for a, n, t, p in rows}

    def lease_rows(self):
        try:
            rows = self.primary.query("SELECT namespace, worker, fence_ms, UNIX_TIMESTAMP(update_time) FROM idgen_worker_lease", LEDGER_DB)
        except RuntimeError:
            return {}
        return {(ns, int(w)): (int(f), float(t)) for ns, w, f, t in rows}


class GaleraCluster:
    """Three Galera nodes (as tests/harness/galera.rs runs them), one per namespace."""

    def __init__(self, net, registry, root, log):
        self.log = log
        self.bin = os.path.join(root, "galera-bin")
        hosts = [net.add_host(f"galera{i}") for i in (1, 2, 3)]
        members = "gcomm://" + ",".join(f"{h.ip}:4567" for h in hosts)
        self.nodes = []
        for i, host in enumerate(hosts, 1):
            extra = [
                "--skip-log-bin", "--binlog-format=ROW", "--innodb-autoinc-lock-mode=2",
                "--default-storage-engine=InnoDB", "--wsrep-on=ON", "--wsrep-cluster-name=idgen-nemesis",
                f"--wsrep-sst-method={SST_METHOD}", f"--wsrep-provider={GALERA_PROVIDER}",
                f"--wsrep-cluster-address={members}", f"--wsrep-node-name=galera{i}",
                f"--wsrep-node-address={host.ip}:4567", f"--wsrep-sst-receive-address={host.ip}:4444",
                # A gcache that covers minutes of writes, so that a node killed
                # under load rejoins by IST; a full SST is the rarer path.
                f"--wsrep-provider-options=gmcast.listen_addr=tcp://{host.ip}:4567;ist.recv_addr={host.ip}:4568;gcache.size=256M",
            ]
            node = MariaDB(f"galera{i}", host, root, registry, log, extra=extra)
            node.env = galera_env(self.bin)
            self.nodes.append(node)

    def start(self):
        if not os.path.exists(GALERA_PROVIDER):
            raise RuntimeError(f"the galera profile needs {GALERA_PROVIDER}; install it with `apt-get install -y galera-4 rsync`")
        write_sst_method(self.bin)
        first = self.nodes[0]
        first.install()
        first.start(extra=["--wsrep-new-cluster"])
        self.wait_synced(first)
        for node in self.nodes[1:]:
            os.makedirs(node.data, exist_ok=True)
            os.makedirs(node.tmp, exist_ok=True)
            node.start(wait=False)
        for node in self.nodes[1:]:
            self.wait_synced(node)
        first.query(f"CREATE DATABASE {LEDGER_DB}")

    def url(self, i):
        node = self.nodes[i % len(self.nodes)]
        return f"mysql://root@{node.host.ip}:{node.port}/{LEDGER_DB}"

    def status(self, node, name):
        try:
            rows = node.query(f"SHOW GLOBAL STATUS LIKE '{name}'")
        except RuntimeError:
            return None
        return rows[0][1] if rows else None

    def causal_ledger(self):
        """id_alloc's `max_id` per (app, shard) under a causal read
        (`wsrep_sync_wait`: the node first applies every write the cluster
        had certified), the highest any node reports; None if none answered.
        A node paused, cut off or behind fails the read or reports less, so
        only a commit lost by every node reads as lower than it was."""
        found = None
        for node in self.nodes:
            if not node.alive():
                continue
            try:
                rows = node.query("SET SESSION wsrep_sync_wait = 1; SELECT app_id, shard_id, max_id FROM id_alloc",
                                  LEDGER_DB, timeout=5)
            except RuntimeError:
                continue
            table = {(int(a), int(s)): int(m) for a, s, m in rows}
            found = table if found is None else {k: max(found.get(k, 0), table.get(k, 0)) for k in found.keys() | table.keys()}
        return found

    def wait_synced(self, node, timeout=240):
        wait_until(f"{node.name} to be Synced", lambda: self.status(node, "wsrep_local_state_comment") == "Synced" and self.status(node, "wsrep_ready") == "ON", timeout=timeout, interval=0.5)

    def rejoin(self, node):
        """From its last committed position (IST), as galera_recovery does."""
        log = os.path.join(node.dir, f"recover.{node.starts}.log")
        argv = node.argv() + ["--wsrep-cluster-address=gcomm://", "--wsrep-recover", f"--log-error={log}"]
        subprocess.run(node.host.wrap(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=galera_env(self.bin), timeout=120)
        node.start(extra=start_position_args(log), wait=False)
        self.wait_synced(node)

    def heal(self):
        for node in self.nodes:
            if not node.alive():
                self.rejoin(node)


def start_position_args(recover_log):
    """The option that starts a Galera node from the position `mariadbd
    --wsrep-recover` wrote to `recover_log` (so it rejoins by IST), or none
    when it recovered no position (then it asks for a full SST)."""
    position = None
    try:
        with open(recover_log) as f:
            for line in f:
                if "WSREP: Recovered position: " in line:
                    position = line.split("WSREP: Recovered position: ", 1)[1].strip()
    except OSError:
        pass
    return [f"--wsrep-start-position={position}"] if position and not position.startswith("00000000-") else []


def galera_env(bin_dir):
    env = dict(os.environ)
    env.update(UMASK="0666", UMASK_DIR="0777", PATH=bin_dir + os.pathsep + env.get("PATH", "/usr/bin:/bin"))
    return env


def write_sst_method(bin_dir):
    """The SST method `nemesis`: MariaDB's rsync SST with an `rsync` that
    keeps its daemon root. The joiner's rsync daemon gets a config that names
    no user, so, started by root, it writes as `nobody`: it cannot give the
    donor's files their owner and group (`chgrp ... Operation not permitted`,
    rsync code 23) and the node aborts. mariadbd puts its own directory first
    on the SST script's PATH, so a plain `rsync` wrapper would never be found;
    a method of another name is looked up on the whole PATH, and it puts the
    wrapper first."""
    os.makedirs(bin_dir, exist_ok=True)
    real_rsync = shutil.which("rsync")
    real_sst = shutil.which("wsrep_sst_rsync")
    if real_rsync is None or real_sst is None:
        raise RuntimeError("the galera profile needs rsync and wsrep_sst_rsync; install them with `apt-get install -y rsync galera-4`")
    scripts = {
        "rsync": (
            "#!/bin/sh\n"
            "# Written by scripts/nemesis: the SST's rsync daemon keeps root (see topology.py).\n"
            'for arg in "$@"; do\n'
            f'  if [ "$arg" = --daemon ]; then exec {real_rsync} "$@" --dparam=uid=root --dparam=gid=root; fi\n'
            "done\n"
            f'exec {real_rsync} "$@"\n'
        ),
        f"wsrep_sst_{SST_METHOD}": (
            "#!/bin/sh\n"
            "# Written by scripts/nemesis: the rsync SST, with the rsync beside this file.\n"
            f'PATH="{bin_dir}:$PATH" exec {real_sst} "$@"\n'
        ),
    }
    for name, text in scripts.items():
        path = os.path.join(bin_dir, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)


class Profile:
    """What every profile offers the workload and the faults."""

    name = None
    timeout = "5s"
    # Whether `serve` issues segment IDs (it needs the ledger); Redis alone
    # and the Cluster's serve issue snowflake IDs only.
    serve_segments = True

    def __init__(self, net, registry, root, log):
        self.net, self.registry, self.root, self.log = net, registry, root, log
        self.clients = [net.add_host(h) for h in CLIENT_HOSTS]
        self.serve_host = net.add_host("serve1")
        self.redis = None
        self.second = None
        self.mysql = None
        self.galera = None
        self.store = None

    def client_env(self, i=0, leases=False):
        """The environment of client `i`; `leases` for a lease holder,
        churner or `serve` (the Cluster profile leases on Redis alone)."""
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": self.root,
            "XDG_CONFIG_HOME": os.path.join(self.root, "xdg-config"),
            "XDG_DATA_HOME": os.path.join(self.root, "xdg-data"),
            "IDGEN_TIMEOUT": self.timeout,
        }
        return env

    def data_servers(self):
        """Every server process, by name, for the fault catalogue."""
        return []

    def tick(self):
        pass

    def heal(self):
        pass

    def start(self):
        raise NotImplementedError


class WithRedis(Profile):
    """The Redis side the distributed and Galera profiles share: a Sentinel
    group as node `main` and the standalone node `second`."""

    def __init__(self, *args):
        super().__init__(*args)
        self.redis = RedisGroup(self.net, self.registry, self.root, self.log)
        self.second = SecondNode(self.net, self.registry, self.root, self.log)

    def ledger(self):
        raise NotImplementedError

    def ledger_url(self, i):
        raise NotImplementedError

    def start(self):
        parallel(self.redis.start, self.second.start, self.ledger().start)

    def client_env(self, i=0, leases=False):
        env = super().client_env(i)
        env["IDGEN_REDIS_URL"] = self.redis.url()
        env["IDGEN_REDIS_NODES"] = f"second={self.second.url()}"
        env["IDGEN_MYSQL_URL"] = self.ledger_url(i)
        return env

    def tick(self):
        self.redis.tick()
        self.second.tick()

    def heal(self):
        self.redis.heal()
        self.second.heal()
        self.ledger().heal()

    def witnesses(self):
        """Each node's witnesses: node name -> {(app, shard): last}."""
        out = {}
        nodes = {"main": self.redis.master(), "second": self.second.server}
        for name, server in nodes.items():
            if server is None:
                raise RuntimeError(f"Redis node {name} has no master now")
            out[name] = witness_table(server)
        return out


def witness_table(server):
    """The witnesses one Redis server holds: {(app, shard): last}. On a
    Cluster a witness's name ends in its shard's hash tag (`{…}`)."""
    keys = []
    cursor = "0"
    while True:
        cursor, batch = server.call("SCAN", cursor, "MATCH", "id.gen.witness_*", "COUNT", 1000)
        keys += batch
        if cursor == "0":
            break
    values = resp.pipeline(server.host.ip, server.port, [("HGET", k, "last") for k in keys]) if keys else []
    table = {}
    for key, value in zip(keys, values):
        app, shard = key[len("id.gen.witness_"):].split("{")[0].split("_")
        table[(int(app), int(shard))] = int(value or 0)
    return table


class MysqlGates:
    """The rollback gates of a profile whose ledger is the MySQL pair
    (`mysql`, which the nemesis makes go back in time) and whose witnesses are
    in Redis (`witnesses()`, on the node `main` and the node `second`): the
    distributed and Cluster profiles. Both gates keep the two authorities from
    going back over the same span at once, which no check can see (README,
    "What no check can see")."""

    def witness_current(self, namespaces):
        """Before the ledger is made to go back: every shard's witness (on the
        node the app routes to) and every lease fence in Redis have caught up
        with MySQL, so the witness can see the rollback. Returns why not, or None."""
        unsettled = self.redis.unsettled()
        if unsettled:
            return unsettled
        ledger = self.mysql.ledger()
        routes = self.mysql.routes()
        if any(phase for _, _, phase in routes.values()):
            return "an app is being moved"
        witnesses = self.witnesses()
        for (app, shard), max_id in ledger.items():
            node = routes.get(app, ("main", "", ""))[0]
            if max_id > 0 and witnesses.get(node, {}).get((app, shard), 0) < max_id:
                return f"witness of app {app} shard {shard} on {node} is behind the ledger"
        # Only where leases are held in MySQL (not the Cluster's, on Redis alone).
        rows = self.mysql.lease_rows()
        fences = self.redis_fences(namespaces) if rows else {}
        for key, (fence, _) in rows.items():
            if fences.get(key, 0) < fence:
                return f"Redis's fence of worker {key} is behind MySQL's"
        return None

    def ledger_current(self):
        """Before Redis is made to lose data: MySQL has caught up with every
        witness since the nemesis last promoted a lagging replica (so Redis's
        witnesses no longer hold the only record). Returns why not, or None."""
        if self.mysql.rolled_back_at is None:
            return None
        ledger = self.mysql.ledger()
        witnesses = self.witnesses()
        for node, table in witnesses.items():
            for key, last in table.items():
                if ledger.get(key, 0) < last:
                    return f"the ledger of app {key[0]} shard {key[1]} is behind the witness on {node}"
        for key, (_, updated) in self.mysql.lease_rows().items():
            if updated < self.mysql.rolled_back_at + 1:
                return f"the lease row of worker {key} was not written since the rollback"
        self.mysql.rolled_back_at = None
        return None


class Distributed(MysqlGates, WithRedis):
    name = "distributed"

    def __init__(self, *args):
        super().__init__(*args)
        self.mysql = MysqlPair(self.net, self.registry, self.root, self.log)

    def ledger(self):
        return self.mysql

    def ledger_url(self, i):
        return self.mysql.url()

    # -- the rollback gate ------------------------------------------------------

    def redis_fences(self, namespaces):
        master = self.redis.master()
        if master is None:
            raise RuntimeError("Redis has no master now")
        out = {}
        for ns in namespaces:
            flat = master.call("HGETALL", f"idgen:{{{ns}}}:last")
            for worker, fence in zip(flat[::2], flat[1::2]):
                out[(ns, int(worker))] = int(fence)
        return out


class Galera(WithRedis):
    name = "galera"
    # A killed node stalls commits on the others for about 6 s (README: the
    # ledger's replication): --timeout above it.
    timeout = "10s"

    def __init__(self, *args):
        super().__init__(*args)
        self.galera = GaleraCluster(self.net, self.registry, self.root, self.log)

    def ledger(self):
        return self.galera

    def ledger_url(self, i):
        return self.galera.url(i)

    def audit(self):
        """Witnesses above the ledger: [(node, app, shard, witness, ledger)],
        or None when either side could not be read. A witness is raised only
        after its segment's ledger commit returned, and here nothing sets the
        ledger back, so one above it means Galera lost a commit it had
        acknowledged. idgen then moves past the witness (a gap), but a Redis
        that went back at the same time would have nothing left to stop a
        repeat. The witnesses are read first: a commit behind a witness read
        had returned before, and the causal read that follows sees it."""
        try:
            witnesses = self.witnesses()
        except (OSError, resp.RedisError, RuntimeError):
            return None
        ledger = self.galera.causal_ledger()
        if ledger is None:
            return None
        return [(node, app, shard, last, ledger.get((app, shard), 0))
                for node, table in witnesses.items() for (app, shard), last in sorted(table.items())
                if last > ledger.get((app, shard), 0)]


class Embedded(Profile):
    name = "embedded"

    def __init__(self, *args):
        super().__init__(*args)
        self.store = os.path.join(self.root, "store", "idgen.db")

    def start(self):
        os.makedirs(os.path.dirname(self.store), exist_ok=True)

    def client_env(self, i=0, leases=False):
        env = super().client_env(i)
        env["IDGEN_STORE"] = self.store
        return env


class RedisAlone(Profile):
    name = "redis-alone"
    serve_segments = False

    def __init__(self, *args):
        super().__init__(*args)
        self.redis = RedisGroup(self.net, self.registry, self.root, self.log)

    def start(self):
        self.redis.start()

    def client_env(self, i=0, leases=False):
        env = super().client_env(i)
        env["IDGEN_REDIS_URL"] = self.redis.url()
        return env

    def tick(self):
        self.redis.tick()

    def heal(self):
        self.redis.heal()


class Cluster(MysqlGates, Profile):
    name = "cluster"
    # Segment IDs come from the ledger through the Cluster; leases, and the
    # snowflake IDs of `serve`, from the Cluster alone (see client_env). A
    # second `serve`, of segment IDs only, runs on its own host. The ledger
    # fails over and goes back in time as in the distributed profile, behind
    # the same gates (MysqlGates).
    serve_segments = False

    def __init__(self, *args):
        super().__init__(*args)
        self.serve_segments_host = self.net.add_host("serve2")
        self.redis = RedisCluster(self.net, self.registry, self.root, self.log)
        self.second = SecondNode(self.net, self.registry, self.root, self.log)
        self.mysql = MysqlPair(self.net, self.registry, self.root, self.log)

    def start(self):
        parallel(self.redis.start, self.second.start, self.mysql.start)

    def client_env(self, i=0, leases=False):
        env = super().client_env(i)
        env["IDGEN_REDIS_URL"] = self.redis.url()
        if not leases:
            env["IDGEN_REDIS_NODES"] = f"second={self.second.url()}"
            env["IDGEN_MYSQL_URL"] = self.mysql.url()
        return env

    def tick(self):
        self.redis.tick()
        self.second.tick()

    def heal(self):
        self.redis.heal()
        self.second.heal()
        self.mysql.heal()

    def witnesses(self):
        """Each node's witnesses: node name -> {(app, shard): last}."""
        return {"main": self.redis.witnesses(), "second": witness_table(self.second.server)}


PROFILES = {p.name: p for p in (Distributed, Galera, Embedded, RedisAlone, Cluster)}
