"""A minimal Redis client (RESP2 over a socket), enough for the nemesis's own
admin commands: role, SAVE, FLUSHALL, SENTINEL queries, reading witnesses.

The nemesis is stdlib-only, so no redis-py; every call opens its own short
connection, which also means a partitioned or paused server fails the call
within `timeout` instead of wedging a shared connection.
"""

import socket


class RedisError(Exception):
    """An error reply (`-ERR …`, `-READONLY …`) from the server."""


def _encode(args):
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        if not isinstance(arg, bytes):
            arg = str(arg).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(arg), arg))
    return b"".join(out)


class _Reader:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("connection closed by the server")
        self.buf += chunk

    def line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def exactly(self, n):
        while len(self.buf) < n + 2:
            self._fill()
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def reply(self):
        line = self.line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return RedisError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self.exactly(n).decode("utf-8", "replace")
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.reply() for _ in range(n)]
        raise ConnectionError(f"unexpected reply {line[:40]!r}")


def call(host, port, *args, timeout=3.0):
    """Runs one command; returns its reply, raises RedisError or OSError."""
    return pipeline(host, port, [args], timeout=timeout)[0]


def pipeline(host, port, commands, timeout=3.0):
    """Runs commands in one round trip; raises the first error reply."""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(b"".join(_encode(c) for c in commands))
        reader = _Reader(sock)
        replies = [reader.reply() for _ in commands]
    for reply in replies:
        if isinstance(reply, RedisError):
            raise reply
    return replies


def info(host, port, section, timeout=3.0):
    """`INFO section` as a dict of field → value."""
    text = call(host, port, "INFO", section, timeout=timeout)
    fields = {}
    for line in text.splitlines():
        if ":" in line and not line.startswith("#"):
            key, value = line.split(":", 1)
            fields[key] = value.strip()
    return fields
