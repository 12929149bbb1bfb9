"""The network the nemesis cuts: every server (and each group of clients) in a
network namespace of its own, joined to one bridge in the root namespace by a
veth pair, on a private /24.

    root ns: bridge nemesis-br 10.77.0.1  (the nemesis itself talks from here)
       |-- nmv-redis1 <veth> eth0 10.77.0.11 in netns nemesis-redis1
       |-- nmv-c1     <veth> eth0 10.77.0.51 in netns nemesis-c1   (clients)
       ...

Faults on it:
  * isolate: the root end of a host's veth goes down (nobody reaches it);
  * partition: blackhole (or prohibit) routes in every namespace of one side
    to every address of the other, so links are cut pairwise, in both
    directions, while the rest of the network stays up;
  * degrade: `tc netem` delay and loss on both ends of a host's veth. Where
    the kernel has no netem (some VMs), delay is a `tbf` token bucket (a slow
    link: queueing delay under load) and loss an iptables `statistic` rule;
    the fault record names the mechanism used.
  * a virtual IP moved between hosts (the MySQL primary's address, as
    keepalived or a failover tool moves it), with the neighbour caches of
    every namespace flushed, as a gratuitous ARP would.

Everything is removed on exit (namespaces take their veths, addresses, routes
and iptables rules with them), and at the start of the next run if a run was
killed before it could clean up (see `cleanup_stale`). Without `ip netns`
(not root, no iproute2, a kernel without network namespaces) the nemesis stops
with a message; it never runs without the partitions.
"""

import fcntl
import os
import shutil
import subprocess

PREFIX = "nemesis-"
BRIDGE = "nemesis-br"
VETH_PREFIX = "nmv-"
SUBNET = "10.77.0"
ROOT_IP = f"{SUBNET}.1"
LOCK_FILE = "/run/idgen-nemesis.lock"


class SetupError(Exception):
    """The machine cannot run the nemesis; the message says what to install or fix."""


def run(*argv, check=True, capture=False):
    result = subprocess.run(
        [str(a) for a in argv],
        stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, argv))}: {result.stderr.strip()}")
    return result


class Host:
    """One network namespace: a server, or a group of clients."""

    def __init__(self, name, index):
        self.name = name
        self.ns = PREFIX + name
        self.ip = f"{SUBNET}.{index}"
        self.veth = VETH_PREFIX + name
        assert len(self.veth) <= 15, f"interface name {self.veth} is too long"

    def wrap(self, argv):
        """`argv` run inside this namespace (`ip netns exec` execs it: same pid)."""
        return ["ip", "netns", "exec", self.ns, *[str(a) for a in argv]]

    def __repr__(self):
        return f"{self.name}({self.ip})"


class Network:
    def __init__(self, log):
        self.log = log
        self.hosts = {}
        self._next_index = 10
        self._lock = None
        self.netem = False
        self.iptables = None

    # -- setup and teardown -------------------------------------------------

    def preflight(self):
        """Takes the machine-wide lock and checks every tool the faults need."""
        if os.geteuid() != 0:
            raise SetupError("the nemesis needs root (network namespaces, veth pairs, tc); run it with sudo")
        for tool, package in (("ip", "iproute2"), ("tc", "iproute2")):
            if not shutil.which(tool):
                raise SetupError(f"`{tool}` is missing; install it with `apt-get install -y {package}`")
        self._lock = open(LOCK_FILE, "w")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SetupError(f"another nemesis run holds {LOCK_FILE}; wait for it or stop it") from None
        self.cleanup_stale()
        probe = Host("probe", 254)
        try:
            run("ip", "netns", "add", probe.ns)
        except RuntimeError as e:
            raise SetupError(f"cannot create a network namespace ({e}); the nemesis needs `ip netns` (root, a kernel with network namespaces)") from None
        try:
            run("ip", "link", "add", probe.veth, "type", "veth", "peer", "name", "eth0", "netns", probe.ns)
            self.netem = run("tc", "qdisc", "add", "dev", probe.veth, "root", "netem", "delay", "1ms", check=False).returncode == 0
        except RuntimeError as e:
            raise SetupError(f"cannot create a veth pair ({e}); the kernel needs veth support") from None
        finally:
            run("ip", "link", "del", probe.veth, check=False)
            run("ip", "netns", "del", probe.ns, check=False)
        if not self.netem:
            for name in ("iptables-legacy", "iptables"):
                if shutil.which(name):
                    self.iptables = name
                    break
            if not self.iptables:
                raise SetupError("this kernel has no `tc netem`, and iptables (for packet loss) is missing; install it with `apt-get install -y iptables`")
            self.log("network: this kernel has no tc netem: delay is a tbf token bucket (a slow link), loss an iptables statistic rule")

    def cleanup_stale(self):
        """Removes what a killed run left: its processes (by pid, found in its
        namespaces), its namespaces, the bridge. Only called under the lock,
        so nothing of a live run is touched."""
        listed = run("ip", "netns", "list", capture=True, check=False).stdout
        stale = [line.split()[0] for line in listed.splitlines() if line.startswith(PREFIX)]
        for ns in stale:
            pids = run("ip", "netns", "pids", ns, capture=True, check=False).stdout.split()
            for pid in pids:
                try:
                    os.kill(int(pid), 9)
                except (ProcessLookupError, ValueError):
                    pass
        for ns in stale:
            run("ip", "netns", "del", ns, check=False)
        self._delete_veths()
        run("ip", "link", "del", BRIDGE, check=False)
        if stale:
            self.log(f"network: removed {len(stale)} namespace(s) left by an earlier run")

    def _delete_veths(self):
        """A namespace is freed only once the kernel drops its last reference
        (a socket closing can keep it for a while), and its veth with it: the
        root ends are deleted here, which takes the pairs at once."""
        links = run("ip", "-o", "link", "show", capture=True, check=False).stdout
        for line in links.splitlines():
            name = line.split(":")[1].strip().split("@")[0] if ":" in line else ""
            if name.startswith(VETH_PREFIX):
                run("ip", "link", "del", name, check=False)

    def up(self):
        run("ip", "link", "add", BRIDGE, "type", "bridge")
        run("ip", "addr", "add", f"{ROOT_IP}/24", "dev", BRIDGE)
        run("ip", "link", "set", BRIDGE, "up")

    def add_host(self, name):
        self._next_index += 1
        host = Host(name, self._next_index)
        run("ip", "netns", "add", host.ns)
        run("ip", "link", "add", host.veth, "type", "veth", "peer", "name", "eth0", "netns", host.ns)
        run("ip", "link", "set", host.veth, "master", BRIDGE)
        run("ip", "link", "set", host.veth, "up")
        run("ip", "-n", host.ns, "addr", "add", f"{host.ip}/24", "dev", "eth0")
        run("ip", "-n", host.ns, "link", "set", "eth0", "up")
        run("ip", "-n", host.ns, "link", "set", "lo", "up")
        self.hosts[name] = host
        return host

    def teardown(self):
        for host in self.hosts.values():
            pids = run("ip", "netns", "pids", host.ns, capture=True, check=False).stdout.split()
            for pid in pids:
                try:
                    os.kill(int(pid), 18)  # SIGCONT first: a stopped process dies only once resumed
                    os.kill(int(pid), 9)
                except (ProcessLookupError, ValueError):
                    pass
        for host in self.hosts.values():
            run("ip", "netns", "del", host.ns, check=False)
        self._delete_veths()
        run("ip", "link", "del", BRIDGE, check=False)
        self.hosts.clear()
        if self._lock:
            self._lock.close()
            self._lock = None

    # -- faults --------------------------------------------------------------

    def isolate(self, host):
        run("ip", "link", "set", host.veth, "down")

    def rejoin(self, host):
        run("ip", "link", "set", host.veth, "up")

    def block(self, side_a, side_b, mode="blackhole", extra_ips=()):
        """Cuts every link between the hosts of side_a and those of side_b
        (and extra_ips, addresses such as a VIP held on side b). Returns the
        routes added, for `unblock`."""
        routes = []
        targets_b = sorted({h.ip for h in side_b} | set(extra_ips))
        for a in side_a:
            for ip in targets_b:
                routes.append((a.ns, ip))
        for b in side_b:
            for a in side_a:
                routes.append((b.ns, a.ip))
        for ns, ip in routes:
            run("ip", "-n", ns, "route", "replace", mode, f"{ip}/32")
        return routes

    def unblock(self, routes):
        for ns, ip in routes:
            run("ip", "-n", ns, "route", "del", f"{ip}/32", check=False)

    def degrade(self, host, delay_ms, loss_pct):
        """Delay and loss on both ends of host's link; returns what to undo."""
        undo = []
        if self.netem:
            for dev, ns in ((host.veth, None), ("eth0", host.ns)):
                args = ["tc", "qdisc", "replace", "dev", dev, "root", "netem", "delay", f"{delay_ms}ms", f"{max(1, delay_ms // 4)}ms", "loss", f"{loss_pct}%"]
                run(*(["ip", "netns", "exec", ns] + args if ns else args))
                undo.append(("qdisc", dev, ns))
            return {"mechanism": "netem", "undo": undo}
        # A slow link: a rate low enough that a burst queues behind it (delay),
        # with a queue short enough that a longer burst is dropped.
        rate_kbit = max(64, 20000 // max(1, delay_ms))
        for dev, ns in ((host.veth, None), ("eth0", host.ns)):
            args = ["tc", "qdisc", "replace", "dev", dev, "root", "tbf", "rate", f"{rate_kbit}kbit", "burst", "16kb", "latency", f"{delay_ms}ms"]
            run(*(["ip", "netns", "exec", ns] + args if ns else args))
            undo.append(("qdisc", dev, ns))
        if loss_pct > 0:
            for chain in ("INPUT", "OUTPUT"):
                rule = [chain, "-m", "statistic", "--mode", "random", "--probability", f"{loss_pct / 100:.4f}", "-j", "DROP"]
                run("ip", "netns", "exec", host.ns, self.iptables, "-A", *rule)
                undo.append(("iptables", rule, host.ns))
        return {"mechanism": f"tbf {rate_kbit}kbit + {self.iptables} statistic", "undo": undo}

    def restore(self, degradation):
        for item in degradation["undo"]:
            if item[0] == "qdisc":
                _, dev, ns = item
                args = ["tc", "qdisc", "del", "dev", dev, "root"]
                run(*(["ip", "netns", "exec", ns] + args if ns else args), check=False)
            else:
                _, rule, ns = item
                run("ip", "netns", "exec", ns, self.iptables, "-D", *rule, check=False)

    def add_vip(self, host, vip):
        run("ip", "-n", host.ns, "addr", "add", f"{vip}/32", "dev", "eth0")
        self._forget_neighbour(vip)

    def del_vip(self, host, vip):
        run("ip", "-n", host.ns, "addr", "del", f"{vip}/32", "dev", "eth0", check=False)
        self._forget_neighbour(vip)

    def _forget_neighbour(self, ip):
        """What a gratuitous ARP does: every namespace asks again who has `ip`."""
        run("ip", "neigh", "del", ip, "dev", BRIDGE, check=False)
        for host in self.hosts.values():
            run("ip", "-n", host.ns, "neigh", "del", ip, "dev", "eth0", check=False)
