"""The histories: one JSON Lines file per client (and one for the nemesis's
own faults), written as things happen, so that a run killed midway still
leaves everything up to its last line, and `scripts/nemesis check DIR`
re-checks any run's histories without its servers.

Record types (field `type`):
  call        one idgen process run to completion: cmd, args, t0/t1 (the
              nemesis's clock), exit (code, or null when a signal ended it),
              signal, killed (the nemesis sent it), stopped_s (time spent
              SIGSTOPped by the nemesis), ids (segment IDs it printed), err
              (its last stderr line), and per command extra fields (app, to…)
  holder      a long-lived lease holder or serve process started/ended
              (phase start|end), its holder name, exit, signal, killed
  lease_event a lease event a holder reported (acquired, lost, released…),
              with its arrival time; `event` as `lease --json` prints it
  lease_ids   IDs a holder answered one request with (holder, t0, t1, ids)
  http        one request to serve: path, t0/t1, status, ids, code (the
              error's exit-code name)
  fault       one fault: kind, params, start, healed, end, effective, notes
  gate        a rollback fault waiting for (or skipping on) its gate
"""

import array
import json
import os
import threading


class Recorder:
    def __init__(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self._file = open(path, "a", buffering=1)
        self._lock = threading.Lock()

    def write(self, record):
        line = json.dumps(record, separators=(",", ":"))
        with self._lock:
            self._file.write(line + "\n")

    def close(self):
        with self._lock:
            self._file.close()


def read_dir(path):
    """Every record of a run's histories, file by file."""
    records = []
    hist = os.path.join(path, "history")
    for name in sorted(os.listdir(hist)):
        if not name.endswith(".jsonl"):
            continue
        with open(os.path.join(hist, name)) as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    # A run killed mid-write leaves half a last line.
                    continue
                if record.get("ids"):
                    # 8 bytes an ID instead of a Python int's 36: a long run
                    # holds tens of millions.
                    record["ids"] = array.array("Q", record["ids"])
                record["_file"] = name
                record["_line"] = n
                records.append(record)
    return records
