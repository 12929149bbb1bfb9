"""Processes the nemesis starts: servers and idgen clients, each in its
network namespace, each in a process group of its own (so a server's helpers,
such as Galera's rsync, die with it). The registry remembers every one it
started, and only those are ever signalled: by pid, never by name.
"""

import contextlib
import os
import signal
import subprocess
import threading
import time


class Proc:
    """One started process (its group leader)."""

    def __init__(self, name, argv, popen, log_path):
        self.name = name
        self.argv = argv
        self.popen = popen
        self.pid = popen.pid
        self.log_path = log_path
        self.started = time.time()
        # Signals the nemesis sent, for the histories: a call it killed did not
        # "fail", and time it spent stopped is not the call's own.
        self.killed_by_nemesis = False
        self.stopped_at = None
        self.stopped_total = 0.0

    def alive(self):
        return self.popen.poll() is None

    def kill9(self):
        """SIGKILL to the whole group; returns once the leader is reaped."""
        self.killed_by_nemesis = True
        self._signal_group(signal.SIGCONT)
        self._signal_group(signal.SIGKILL)
        try:
            self.popen.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass

    def stop(self):
        if self.alive():
            self.stopped_at = time.time()
            self._signal(signal.SIGSTOP)

    def wait_stopped(self, timeout=5.0):
        """Waits until the kernel shows the process stopped (or gone)."""
        deadline = time.time() + timeout
        while self.alive() and time.time() < deadline:
            try:
                with open(f"/proc/{self.pid}/stat") as stat:
                    if stat.read().rsplit(")", 1)[-1].split()[0] in ("T", "t", "Z", "X"):
                        return
            except OSError:
                return
            time.sleep(0.001)

    def cont(self):
        if self.stopped_at is not None:
            self.stopped_total += time.time() - self.stopped_at
            self.stopped_at = None
        self._signal(signal.SIGCONT)

    def wait_or_kill(self, timeout):
        """Waits for the process to end on its own, then kills its group."""
        try:
            self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._signal_group(signal.SIGKILL)
            self.popen.wait()

    def terminate(self):
        self._signal(signal.SIGTERM)

    def _signal(self, sig):
        try:
            os.kill(self.pid, sig)
        except ProcessLookupError:
            pass

    def _signal_group(self, sig):
        try:
            os.killpg(self.pid, sig)
        except (ProcessLookupError, PermissionError):
            self._signal(sig)


class Registry:
    """Every process started, by role, for the faults to pick from."""

    def __init__(self):
        self._lock = threading.Lock()
        # Held while a process starts, and by `frozen`: no process starts
        # unregistered while the others are stopped.
        self._starting = threading.Lock()
        self._procs = []

    def spawn(self, name, argv, log_path=None, env=None, stdin=None, stdout=None, stderr=None, cwd=None):
        log = open(log_path, "ab") if log_path and (stdout is None or stderr is None) else None
        try:
            with self._starting:
                popen = subprocess.Popen(
                    [str(a) for a in argv],
                    stdin=stdin if stdin is not None else subprocess.DEVNULL,
                    stdout=stdout if stdout is not None else log,
                    stderr=stderr if stderr is not None else log,
                    env=env,
                    cwd=cwd,
                    start_new_session=True,
                )
                proc = Proc(name, argv, popen, log_path)
                with self._lock:
                    self._procs = [p for p in self._procs if p.alive()]
                    self._procs.append(proc)
        finally:
            if log:
                log.close()
        return proc

    @contextlib.contextmanager
    def frozen(self, prefixes):
        """While the block runs, no process starts and every live one whose
        name starts with one of `prefixes` is stopped (SIGSTOP, and seen
        stopped); those it stopped are continued after it. One another fault
        stopped stays as that fault left it."""
        with self._starting:
            procs = [p for p in self.running("") if p.name.startswith(tuple(prefixes)) and p.stopped_at is None]
            try:
                for proc in procs:
                    proc.stop()
                for proc in procs:
                    proc.wait_stopped()
                yield procs
            finally:
                for proc in procs:
                    proc.cont()

    def running(self, prefix):
        """Live processes whose name starts with `prefix`."""
        with self._lock:
            return [p for p in self._procs if p.name.startswith(prefix) and p.alive()]

    def kill_all(self):
        with self._lock:
            procs = list(self._procs)
        for proc in procs:
            if proc.alive():
                proc._signal_group(signal.SIGCONT)
                proc._signal_group(signal.SIGKILL)
        for proc in procs:
            try:
                proc.popen.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
