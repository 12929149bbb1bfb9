"""Processes the nemesis starts: servers and idgen clients, each in its
network namespace, each in a process group of its own (so a server's helpers,
such as Galera's rsync, die with it). The registry remembers every one it
started, and only those are ever signalled: by pid, never by name.
"""

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
        self._procs = []

    def spawn(self, name, argv, log_path=None, env=None, stdin=None, stdout=None, stderr=None, cwd=None):
        log = open(log_path, "ab") if log_path and (stdout is None or stderr is None) else None
        try:
            popen = subprocess.Popen(
                [str(a) for a in argv],
                stdin=stdin if stdin is not None else subprocess.DEVNULL,
                stdout=stdout if stdout is not None else log,
                stderr=stderr if stderr is not None else log,
                env=env,
                cwd=cwd,
                start_new_session=True,
            )
        finally:
            if log:
                log.close()
        proc = Proc(name, argv, popen, log_path)
        with self._lock:
            self._procs = [p for p in self._procs if p.alive()]
            self._procs.append(proc)
        return proc

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
