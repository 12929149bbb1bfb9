"""HTTP clients of `idgen serve`, run by the nemesis inside a client network
namespace (so partitions can cut them off from serve): a few threads asking
for single segment IDs, lists (some long enough to be streamed) and snowflake
IDs, each answer recorded as one JSON line (see history.py, type `http`).

A list cut short after its first chunk still delivered the IDs before the
cut: those are recorded too (`cut: true`), since a client may have used them.
"""

import argparse
import http.client
import json
import random
import signal
import threading
import time
import urllib.parse

stop = threading.Event()


def request(target, path):
    """One GET; returns (status, body bytes, cut) or raises OSError."""
    url = urllib.parse.urlparse(target)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=15)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        try:
            body, cut = response.read(), False
        except http.client.IncompleteRead as e:
            body, cut = e.partial, True
        return response.status, body, cut
    finally:
        conn.close()


def worker(index, args, out, lock):
    rng = random.Random(f"{args.seed}:{index}")
    # No apps (Redis alone): snowflake IDs only; no namespace (a serve of
    # segments only): segment IDs only.
    apps = [int(a) for a in args.apps.split(",") if a]
    while not stop.is_set():
        roll = (rng.random() if args.namespace else rng.uniform(0, 0.65)) if apps else 1.0
        if roll < 0.5:
            app = rng.choice(apps)
            path, kind = f"/api/segment/get/{app}", "segment"
        elif roll < 0.65:
            # Over 1,024 IDs a list is streamed, chunk by chunk.
            app = rng.choice(apps)
            path, kind = f"/api/segment/list/{app}/{rng.choice((10, 100, 1100))}", "segment"
        else:
            app = None
            path, kind = f"/api/snowflake/get/{args.namespace}", "snowflake"
        t0 = time.time()
        record = {"type": "http", "client": f"http{index}", "path": path, "kind": kind, "app": app, "t0": t0}
        try:
            status, body, cut = request(args.target, path)
            text = body.decode("utf-8", "replace")
            record.update(status=status, cut=cut)
            if status == 200:
                record["ids"] = [int(line) for line in text.split() if line.isdigit()]
            else:
                try:
                    answer = json.loads(text)
                    record["code"] = answer.get("code")
                    record["message"] = str(answer.get("message"))[:300]
                except ValueError:
                    record["code"] = None
                    record["body"] = text[:200]
        except (OSError, http.client.HTTPException) as e:
            record.update(status=None, error=repr(e)[:200])
        record["t1"] = time.time()
        with lock:
            out.write(json.dumps(record, separators=(",", ":")) + "\n")
            out.flush()
        stop.wait(rng.uniform(0, 0.02) if record.get("status") == 200 else 0.05)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--namespace", required=True, help="empty for a serve of segment IDs only")
    parser.add_argument("--apps", required=True)
    parser.add_argument("--seed", required=True)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    lock = threading.Lock()
    with open(args.out, "a") as out:
        threads = [threading.Thread(target=worker, args=(i + 1, args, out, lock)) for i in range(args.threads)]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            for t in threads:
                t.join(timeout=0.5)


if __name__ == "__main__":
    main()
