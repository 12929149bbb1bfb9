"""The servers, started as tests/harness starts them (the same redis-server,
sentinel and mariadbd flags), but each in its own network namespace with its
own address, so the network between them can be cut.

Every server is reached by the nemesis from the root namespace over the
bridge; a server that is isolated, partitioned from the root or paused
simply fails the admin call, which callers treat as "not known now".
"""

import glob
import os
import shutil
import subprocess
import time

from . import resp

REDIS_PORT = 16379
SENTINEL_PORT = 26380
MYSQL_PORT = 13306
MASTER_NAME = "idgen-master"
LEDGER_DB = "idgen_ledger"

# Sentinel's failure detection. 2 s rather than the harness's 1 s: a master
# killed and restarted from an older RDB comes back within it, so the restart
# (and not a failover) decides what the clients see.
DOWN_AFTER_MS = 2000
# The sentinels' failover timeout: a failover not done within it was not done.
FAILOVER_TIMEOUT_S = 10
# A Redis Cluster node's failure detection (cluster-node-timeout), as
# Sentinel's above: a master killed and restarted from an older RDB comes
# back within it and stays the master of its slots.
CLUSTER_NODE_TIMEOUT_MS = 2000


def wait_until(what, condition, timeout=60.0, interval=0.1):
    deadline = time.time() + timeout
    while True:
        try:
            if condition():
                return
        except (OSError, resp.RedisError, RuntimeError, subprocess.SubprocessError):
            pass
        if time.time() > deadline:
            raise RuntimeError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(interval)


class RedisProcess:
    """A redis-server (a data server or a sentinel) started from its own
    config file in its own namespace and directory."""

    port = None
    extra_args = ()

    def __init__(self, name, host, root, registry, log):
        self.name, self.host, self.registry, self.log = name, host, registry, log
        self.dir = os.path.join(root, name)
        os.makedirs(self.dir, exist_ok=True)
        self.proc = None

    def start(self, *args):
        argv = ["redis-server", self.conf, *self.extra_args, *args]
        self.proc = self.registry.spawn(f"server:{self.name}", self.host.wrap(argv), os.path.join(self.dir, "stdout.log"))
        wait_until(f"{self.name} to answer PING", lambda: self.call("PING") == "PONG", timeout=60)

    def alive(self):
        return self.proc is not None and self.proc.alive()

    def kill(self):
        if self.proc:
            self.proc.kill9()

    def call(self, *args, timeout=2.0):
        return resp.call(self.host.ip, self.port, *args, timeout=timeout)


class RedisServer(RedisProcess):
    """A Redis data server: AOF (everysec, never rewritten on its own, so a
    recorded length stays a point in its history) plus RDB snapshots the
    nemesis takes with BGSAVE. Its config file is the one Sentinel rewrites, so
    a restart keeps the role Sentinel gave it."""

    port = REDIS_PORT

    def __init__(self, *args):
        super().__init__(*args)
        self.snapshots = os.path.join(self.dir, "snapshots")
        os.makedirs(self.snapshots, exist_ok=True)
        self.conf = os.path.join(self.dir, "redis.conf")

    @property
    def addr(self):
        return (self.host.ip, self.port)

    def configure(self, replica_of=None):
        self.write_conf(self.conf_lines(replica_of))

    def write_conf(self, lines):
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")

    def conf_lines(self, replica_of=None):
        lines = [
            f"port {self.port}",
            "bind 0.0.0.0",
            "protected-mode no",
            f"dir {self.dir}",
            'save ""',
            "appendonly yes",
            "appendfsync everysec",
            "auto-aof-rewrite-percentage 0",
            "aof-load-truncated yes",
            "databases 16",
            "maxclients 4000",
            # Every RESTORE payload a queue push sends is checked entry by entry.
            "sanitize-dump-payload yes",
            f"logfile {os.path.join(self.dir, 'redis.log')}",
        ]
        if replica_of:
            lines.append(f"replicaof {replica_of.host.ip} {replica_of.port}")
        return lines

    def role(self):
        """`master`, `slave`, or None when it does not answer."""
        try:
            return resp.info(self.host.ip, self.port, "replication", timeout=1.0).get("role")
        except (OSError, resp.RedisError):
            return None

    def snapshot(self):
        """BGSAVE now; returns a copy of the new RDB, or None."""
        before = self.call("LASTSAVE")
        self.call("BGSAVE")
        wait_until(f"{self.name} BGSAVE", lambda: self.call("LASTSAVE") != before, timeout=20)
        copy = os.path.join(self.snapshots, f"{time.time():.3f}.rdb")
        shutil.copy(os.path.join(self.dir, "dump.rdb"), copy)
        return copy

    def aof_incr(self):
        """The AOF file being appended to now (Redis 7's multi-part AOF)."""
        files = glob.glob(os.path.join(self.dir, "appendonlydir", "*.incr.aof"))
        return max(files, key=os.path.getmtime) if files else None

    def restart_from_rdb(self, rdb):
        """kill -9, then start from an older snapshot as if the AOF was lost."""
        self.kill()
        shutil.rmtree(os.path.join(self.dir, "appendonlydir"), ignore_errors=True)
        shutil.copy(rdb, os.path.join(self.dir, "dump.rdb"))
        self.start("--appendonly", "no")
        # The AOF starts again from this dataset (a rewrite of what was loaded).
        self.call("CONFIG", "SET", "appendonly", "yes")

    def restart_with_aof_cut(self, incr, length):
        """kill -9, cut the AOF back to `length` bytes (what a power loss took), restart."""
        self.kill()
        cut = False
        if incr and os.path.exists(incr) and os.path.getsize(incr) > length:
            with open(incr, "r+b") as f:
                f.truncate(length)
            cut = True
        self.start()
        return cut


class ClusterNode(RedisServer):
    """A Redis Cluster node: the data server's persistence, plus the cluster's
    own state file (`nodes.conf`, its epochs, role and slots), which a restart
    from an older RDB keeps, as a node whose disk lost only its data would."""

    def configure(self, replica_of=None):
        self.write_conf(self.conf_lines() + [
            "cluster-enabled yes",
            f"cluster-config-file {os.path.join(self.dir, 'nodes.conf')}",
            f"cluster-node-timeout {CLUSTER_NODE_TIMEOUT_MS}",
            f"cluster-announce-ip {self.host.ip}",
            # As the README's Deploying asks: a replica stays with its master.
            "cluster-allow-replica-migration no",
        ])

    def myself(self, timeout=1.0):
        """This node's own line of CLUSTER NODES, as (id, flags, master id,
        [slot ranges as (first, last)]); None when it does not answer."""
        try:
            text = self.call("CLUSTER", "NODES", timeout=timeout)
        except (OSError, resp.RedisError):
            return None
        for line in text.splitlines():
            fields = line.split()
            if "myself" in fields[2].split(","):
                ranges = []
                for part in fields[8:]:
                    if part.startswith("["):
                        continue  # a slot being migrated or imported
                    first, _, last = part.partition("-")
                    ranges.append((int(first), int(last or first)))
                return fields[0], fields[2].split(","), fields[3], ranges
        return None


class Sentinel(RedisProcess):
    port = SENTINEL_PORT
    extra_args = ("--sentinel",)

    def __init__(self, *args):
        super().__init__(*args)
        self.conf = os.path.join(self.dir, "sentinel.conf")

    def configure(self, master):
        with open(self.conf, "w") as f:
            f.write(
                f"port {self.port}\nbind 0.0.0.0\nprotected-mode no\ndir {self.dir}\n"
                f"logfile {os.path.join(self.dir, 'sentinel.log')}\n"
                f"sentinel monitor {MASTER_NAME} {master.host.ip} {master.port} 2\n"
                f"sentinel down-after-milliseconds {MASTER_NAME} {DOWN_AFTER_MS}\n"
                f"sentinel failover-timeout {MASTER_NAME} {FAILOVER_TIMEOUT_S * 1000}\n"
                f"sentinel parallel-syncs {MASTER_NAME} 1\n"
            )

    def master_addr(self):
        try:
            addr = self.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME, timeout=1.0)
        except (OSError, resp.RedisError):
            return None
        return (addr[0], int(addr[1])) if addr else None

    def master_fields(self):
        fields = self.call("SENTINEL", "MASTER", MASTER_NAME, timeout=1.0)
        return dict(zip(fields[::2], fields[1::2]))


class MariaDB:
    """A mariadbd (root without a password over TCP: --skip-grant-tables, as in
    the harness), with a binary log and GTIDs when `server_id` is given, so it
    can be a primary or a replica and change between them."""

    def __init__(self, name, host, root, registry, log, server_id=None, extra=()):
        self.name, self.host, self.registry, self.log = name, host, registry, log
        self.dir = os.path.join(root, name)
        self.data = os.path.join(self.dir, "data")
        self.tmp = os.path.join(self.dir, "tmp")
        self.server_id = server_id
        self.extra = list(extra)
        self.port = MYSQL_PORT
        self.proc = None
        self.starts = 0
        self.env = None

    def install(self):
        shutil.rmtree(self.data, ignore_errors=True)
        os.makedirs(self.tmp, exist_ok=True)
        with open(os.path.join(self.dir, "install.log"), "ab") as out:
            subprocess.run(
                ["mariadb-install-db", "--no-defaults", f"--datadir={self.data}", f"--tmpdir={self.tmp}",
                 "--auth-root-authentication-method=normal", "--skip-test-db", "--user=root"],
                stdout=out, stderr=out, check=True,
            )

    def argv(self):
        argv = [
            "mariadbd", "--no-defaults", f"--datadir={self.data}", f"--tmpdir={self.tmp}",
            f"--socket={os.path.join(self.dir, 'mysqld.sock')}",
            f"--pid-file={os.path.join(self.dir, 'mysqld.pid')}",
            f"--port={self.port}", "--bind-address=0.0.0.0", "--user=root",
            "--skip-name-resolve", "--skip-grant-tables", "--max-connections=2000",
            "--innodb-buffer-pool-size=64M", "--innodb-log-file-size=16M",
            # The ledger must not lose a commit to a crash of its own.
            "--innodb-flush-log-at-trx-commit=1",
        ]
        if self.server_id is not None:
            argv += [
                f"--server-id={self.server_id}",
                f"--log-bin={os.path.join(self.dir, 'binlog')}",
                f"--relay-log={os.path.join(self.dir, 'relay')}",
                "--binlog-format=ROW", "--gtid-strict-mode=1", "--log-slave-updates=1",
                "--skip-slave-start",
            ]
        else:
            argv.append("--skip-log-bin")
        return argv + self.extra

    def start(self, extra=(), wait=True):
        self.starts += 1
        log = os.path.join(self.dir, f"mariadbd.{self.starts}.log")
        self.proc = self.registry.spawn(f"server:{self.name}", self.host.wrap(self.argv() + list(extra)), log, env=self.env)
        if wait:
            wait_until(f"{self.name} to accept queries", lambda: self.query("SELECT 1") == [["1"]], timeout=120)

    def alive(self):
        return self.proc is not None and self.proc.alive()

    def kill(self):
        if self.proc:
            self.proc.kill9()

    def client_argv(self, tool="mariadb"):
        argv = [tool, "--no-defaults", "--protocol=tcp", f"--host={self.host.ip}", f"--port={self.port}", "--user=root"]
        # mariadb-dump has no such option; a dump runs against a live server anyway.
        return argv + ["--connect-timeout=3"] if tool == "mariadb" else argv

    def query(self, sql, database=None, timeout=10):
        """Rows as lists of text; raises RuntimeError when the server refuses or is unreachable."""
        argv = self.client_argv() + ["-N", "-B", "-e", sql]
        if database:
            argv.append(database)
        try:
            result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"{self.name}: query timed out: {sql[:60]}") from None
        if result.returncode != 0:
            raise RuntimeError(f"{self.name}: {result.stderr.strip()}")
        return [line.split("\t") for line in result.stdout.splitlines()]

    def value(self, sql, database=None, timeout=10):
        rows = self.query(sql, database, timeout=timeout)
        return rows[0][0] if rows and rows[0] else None

    def slave_status(self):
        argv = self.client_argv() + ["-E", "-e", "SHOW SLAVE STATUS"]
        result = subprocess.run(argv, capture_output=True, text=True, timeout=10)
        if result.returncode != 0:
            raise RuntimeError(f"{self.name}: {result.stderr.strip()}")
        fields = {}
        for line in result.stdout.splitlines():
            if ":" in line and not line.startswith("*"):
                key, value = line.split(":", 1)
                fields[key.strip()] = value.strip()
        return fields


def gtid_seq(position):
    """The sequence number of domain 0 in a GTID position (`0-1-123`)."""
    for gtid in (position or "").split(","):
        gtid = gtid.strip()
        if gtid.startswith("0-"):
            return int(gtid.rsplit("-", 1)[1])
    return 0
