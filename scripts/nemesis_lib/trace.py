"""`--trace`: what each data server did, for explaining a violation after the
run. Every Redis data server is watched with MONITOR (the commands scripts run
included, each line cut to 300 characters), reconnecting after each restart,
into servers/NAME/monitor.log; every MariaDB or Galera node keeps a general
query log, servers/NAME/general.log. Both slow the servers down, so a traced
run's timing is not an untraced run's: it is for a schedule that found
something, replayed to see why."""

import os
import socket
import threading
import time

# Commands that say nothing about the data: probes, replication chatter, sentinels.
QUIET = (b'"INFO"', b'"PING"', b'"ROLE"', b'"CLIENT"', b'"REPLCONF"', b'"PUBLISH"', b'"SUBSCRIBE"',
         b'"SELECT"', b'"SCRIPT"', b'"CONFIG"', b'"LASTSAVE"', b'"BGSAVE"', b'"HELLO"', b'"MULTI"',
         b'"EXEC"', b'"SLAVEOF"', b'"REPLICAOF"')
LINE_CAP = 300


def general_log_args(directory):
    """The mariadbd flags that log every query into `directory`."""
    return ["--general-log=1", f"--general-log-file={os.path.join(directory, 'general.log')}"]


class MonitorTap:
    """One thread per Redis data server, writing what MONITOR shows."""

    def __init__(self, server, stop):
        self.server, self.stop = server, stop
        self.path = os.path.join(server.dir, "monitor.log")
        self.thread = threading.Thread(target=self._run, name=f"monitor-{server.name}", daemon=True)

    def start(self):
        self.thread.start()

    def _run(self):
        with open(self.path, "ab") as out:
            while not self.stop.is_set():
                try:
                    self._follow(out)
                except OSError:
                    pass
                out.write(b"# %.6f tap reconnecting\n" % time.time())
                self.stop.wait(0.2)

    def _follow(self, out):
        host, port = self.server.addr
        with socket.create_connection((host, port), timeout=1.0) as sock:
            sock.sendall(b"*1\r\n$7\r\nMONITOR\r\n")
            sock.settimeout(1.0)
            out.write(b"# %.6f tap connected\n" % time.time())
            buf = b""
            while not self.stop.is_set():
                try:
                    chunk = sock.recv(1 << 20)
                except socket.timeout:
                    # A paused or cut-off server: keep waiting on the same link.
                    continue
                if not chunk:
                    return
                buf += chunk
                lines = buf.split(b"\r\n")
                buf = lines.pop()
                for line in lines:
                    if any(q in line[:80] for q in QUIET):
                        continue
                    out.write(line[:LINE_CAP] + b"\n")


def start_taps(servers, stop):
    taps = [MonitorTap(server, stop) for server in servers]
    for tap in taps:
        tap.start()
    return taps
