"""The checker against histories written by hand: each property it proves is
shown failing on a history that breaks it, and a clean history passes.

    python3 -m unittest discover -s scripts/nemesis_lib -t scripts
"""

import json
import os
import tempfile
import unittest

from . import checker

EPOCH = 1704067200000
LIMIT = 200 << 14


def snowflake(ts_ms, worker, seq=0):
    return ((ts_ms - EPOCH) << 22) | (worker << 19) | seq


def segment(index, shard, app):
    return (index << 14) | (shard << 8) | app


class History:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="nemesis-test-")
        os.makedirs(os.path.join(self.dir, "history"))
        self.records = []
        self.meta = {
            "seed": 1, "profile": "distributed", "duration": 60, "run_dir": self.dir, "schedule": [],
            "limit_app": 4, "initial_limit": LIMIT, "namespace": "nemesis",
            "layout": {"seq_bits": 19, "worker_bits": 3, "epoch_ms": EPOCH}, "recovery_bound_s": 30,
        }

    def add(self, **record):
        self.records.append(record)
        return self

    def next(self, t0, ids, app=1, exit=0, **extra):
        return self.add(type="call", cmd="next", client="taker1", t0=t0, t1=t0 + 0.1, exit=exit, signal=None,
                        killed=False, hung=False, ids=ids, app=app, **extra)

    def holder(self, name, t, worker, floor, ids):
        self.add(type="lease_event", holder=name, t=t, event={"event": "acquired", "worker": worker, "floor_unix_ms": floor})
        return self.add(type="lease_ids", holder=name, t0=t, t1=t + 0.1, ids=ids)

    def fault(self, healed):
        return self.add(type="fault", n=1, kind="redis_kill9", params={}, start=healed - 1, healed=healed, end=healed)

    def check(self):
        with open(os.path.join(self.dir, "meta.json"), "w") as f:
            json.dump(self.meta, f)
        with open(os.path.join(self.dir, "history", "all.jsonl"), "w") as f:
            for r in self.records:
                f.write(json.dumps(r) + "\n")
        return checker.check(self.dir)

    def kinds(self):
        return sorted({v["kind"] for v in self.check()["violations"]})


def healthy():
    """Issuance before and after one fault, leases handed over cleanly."""
    h = History()
    h.next(100.0, [segment(1, 0, 1), segment(2, 0, 1)])
    h.fault(healed=101.0)
    h.next(102.0, [segment(3, 0, 1)])
    h.holder("holder1-1", 101.5, 2, None, [snowflake(EPOCH + 1000, 2), snowflake(EPOCH + 1005, 2)])
    h.holder("holder2-1", 102.5, 2, EPOCH + 1010, [snowflake(EPOCH + 1011, 2)])
    h.add(type="http", kind="segment", app=1, path="/api/segment/get/1", t0=103.0, t1=103.1, status=200, ids=[segment(4, 0, 1)])
    h.add(type="http", kind="snowflake", path="/api/snowflake/get/nemesis", t0=103.0, t1=103.1, status=200,
          ids=[snowflake(EPOCH + 2000, 5)])
    h.add(type="holder", phase="start", holder="serve-1", t=90.0, serve=True)
    h.add(type="lease_event", holder="serve-1", t=90.1, event={"event": "acquired", "worker": 5, "floor_unix_ms": None})
    return h


class CheckerTest(unittest.TestCase):
    def test_a_clean_history_has_no_violation(self):
        self.assertEqual(healthy().check()["violations"], [])

    def test_a_segment_id_issued_twice_is_a_repeat(self):
        h = healthy().next(104.0, [segment(2, 0, 1)])
        self.assertEqual(h.kinds(), ["repeat"])

    def test_an_id_served_over_http_and_by_next_is_a_repeat(self):
        h = healthy().next(104.0, [segment(4, 0, 1)])
        self.assertEqual(h.kinds(), ["repeat"])

    def test_audits_that_find_the_ledger_at_or_above_every_witness_pass(self):
        h = healthy()
        h.add(type="ledger_audit", t=101.0, behind=[])
        h.add(type="ledger_audit", t=106.0, behind=[])
        result = h.check()
        self.assertEqual((result["violations"], result["ledger"]), ([], {"audits": 2, "behind": 0}))

    def test_a_witness_above_the_ledger_is_one_violation_however_often_seen(self):
        h = healthy()
        behind = [{"node": "main", "app": 1, "shard": 26, "witness": 46786, "ledger": 46020}]
        h.add(type="ledger_audit", t=101.0, behind=behind)
        h.add(type="ledger_audit", t=106.0, behind=behind)
        result = h.check()
        self.assertEqual([v["kind"] for v in result["violations"]], ["ledger"])
        self.assertEqual(result["ledger"], {"audits": 2, "behind": 1})
        self.assertIn("ledger audits: 2, witnesses found above the ledger: 1", checker.render(result))

    def test_an_id_above_the_limit_in_force_is_a_violation(self):
        h = healthy().next(104.0, [LIMIT + 4], app=4)
        self.assertEqual(h.kinds(), ["limit"])

    def test_an_id_under_a_limit_raised_during_the_call_is_fine(self):
        h = healthy()
        h.add(type="call", cmd="app-set", client="app-setter", t0=103.9, t1=104.05, exit=0, killed=False, hung=False,
              ids=[], app=4, limit=2 * LIMIT)
        h.next(104.0, [LIMIT + 4], app=4)
        self.assertEqual(h.kinds(), [])

    def test_a_lowered_limit_binds_the_calls_after_it(self):
        h = healthy()
        h.add(type="call", cmd="app-set", client="app-setter", t0=103.0, t1=103.5, exit=0, killed=False, hung=False,
              ids=[], app=4, limit=LIMIT // 2)
        h.next(104.0, [LIMIT // 2 + 4], app=4)
        self.assertEqual(h.kinds(), ["limit"])

    def test_a_limit_set_to_0_is_lifted(self):
        # idgen reads max_limit_id 0 as no limit (embedded seed 30082 lowered
        # it to 0, and the model flagged every ID after).
        h = healthy()
        h.add(type="call", cmd="app-set", client="app-setter", t0=103.0, t1=103.5, exit=0, killed=False, hung=False,
              ids=[], app=4, limit=0)
        h.next(104.0, [10 * LIMIT + 4], app=4)
        self.assertEqual(h.kinds(), [])

    def test_a_limit_set_after_it_was_lifted_binds_again(self):
        h = healthy()
        h.add(type="call", cmd="app-set", client="app-setter", t0=103.0, t1=103.5, exit=0, killed=False, hung=False,
              ids=[], app=4, limit=0)
        h.add(type="call", cmd="app-set", client="app-setter", t0=103.6, t1=103.7, exit=0, killed=False, hung=False,
              ids=[], app=4, limit=LIMIT)
        h.next(104.0, [LIMIT + 4], app=4)
        self.assertEqual(h.kinds(), ["limit"])

    def lowered_then_promoted(self):
        """The limit lowered at 99.0 while MySQL's replica lagged (from 98.5
        for 2 s); the replica promoted, 5 transactions lost, healed at 100.5."""
        h = healthy()
        h.add(type="call", cmd="app-set", client="app-setter", t0=99.0, t1=99.1, exit=0, killed=False, hung=False,
              ids=[], app=4, limit=LIMIT // 2)
        h.add(type="fault", n=2, kind="mysql_promote_lagging_replica", params={"lag": 2.0}, start=98.5, healed=100.5,
              end=100.5, effective=True, transactions_lost=5)
        return h

    def test_a_lowered_limit_a_lagging_promotion_may_have_lost_no_longer_binds(self):
        h = self.lowered_then_promoted()
        h.next(107.0, [LIMIT // 2 + 4], app=4)
        self.assertEqual(h.kinds(), [])

    def test_a_limit_lowered_again_after_the_promotion_binds(self):
        h = self.lowered_then_promoted()
        h.add(type="call", cmd="app-set", client="app-setter", t0=108.0, t1=108.1, exit=0, killed=False, hung=False,
              ids=[], app=4, limit=LIMIT // 2)
        h.next(109.0, [LIMIT // 2 + 4], app=4)
        self.assertEqual(h.kinds(), ["limit"])

    def lowered_during_a_split_brain(self, seen_at):
        """The limit lowered at 99.0, answered at 99.1; a look at `seen_at`
        found two Redis servers calling themselves master."""
        h = healthy()
        h.add(type="call", cmd="app-set", client="app-setter", t0=99.0, t1=99.1, exit=0, killed=False, hung=False,
              ids=[], app=4, limit=LIMIT // 2)
        h.add(type="redis_masters", t=seen_at, masters=["redis1", "redis2"])
        return h

    def test_a_lowering_while_two_redis_masters_answered_no_longer_binds(self):
        # Galera seed 40041: the lowering reached one master; the other, never
        # demoted and elected again, served its stock under the old limit.
        h = self.lowered_during_a_split_brain(seen_at=101.0)
        h.next(107.0, [LIMIT // 2 + 4], app=4)
        result = h.check()
        self.assertEqual((result["violations"], result["limits_not_binding"]), ([], {"redis_masters": 1}))
        self.assertIn("limit changes not held binding: 1 by a Redis split brain", checker.render(result))

    def test_a_lowering_far_from_any_split_brain_binds(self):
        h = self.lowered_during_a_split_brain(seen_at=120.0)
        h.next(107.0, [LIMIT // 2 + 4], app=4)
        self.assertEqual(h.kinds(), ["limit"])

    def lowered_then_restored(self, copied_at):
        """The limit lowered at 99.0, answered at 99.1; the embedded store
        copied from `copied_at` and that copy put back at 100.5."""
        h = healthy()
        h.add(type="call", cmd="app-set", client="app-setter", t0=99.0, t1=99.1, exit=0, killed=False, hung=False,
              ids=[], app=4, limit=LIMIT // 2)
        h.add(type="fault", n=2, kind="store_restored", params={"hold": 0.2}, start=copied_at,
              copied=copied_at + 0.1, restored=100.5, healed=100.5, end=100.5, effective=True, stopped=3)
        return h

    def test_a_lowering_after_the_store_was_copied_is_undone_by_its_restore(self):
        h = self.lowered_then_restored(copied_at=98.0)
        h.next(107.0, [LIMIT // 2 + 4], app=4)
        result = h.check()
        self.assertEqual((result["violations"], result["limits_not_binding"]), ([], {"store_restored": 1}))
        self.assertIn("1 by an older copy of the embedded store restored", checker.render(result))

    def test_a_lowering_already_in_the_copy_binds_after_its_restore(self):
        h = self.lowered_then_restored(copied_at=100.2)
        h.next(107.0, [LIMIT // 2 + 4], app=4)
        self.assertEqual(h.kinds(), ["limit"])

    def lowered_three_times_two_lost(self):
        """Distributed seed 30011's history: the limit lowered at 90.0 (kept),
        at 93.0 (lost by a promotion lagging from 92.5, healed at 94.0), and at
        96.0 (lost by a second one lagging from 95.0, healed at 96.6). The
        ledger then holds the limit of 90.0: the one of 93.0 never reached the
        replica that the second promotion restored from."""
        h = healthy()
        for t0, limit in ((90.0, LIMIT * 3 // 4), (93.0, LIMIT // 2), (96.0, LIMIT // 4)):
            h.add(type="call", cmd="app-set", client="app-setter", t0=t0, t1=t0 + 0.1, exit=0, killed=False,
                  hung=False, ids=[], app=4, limit=limit)
        for n, start, lag, healed in ((2, 92.5, 1.0, 94.0), (3, 95.0, 0.5, 96.6)):
            h.add(type="fault", n=n, kind="mysql_promote_lagging_replica", params={"lag": lag}, start=start,
                  healed=healed, end=healed, effective=True, transactions_lost=5)
        return h

    def test_limits_lost_by_two_promotions_in_a_row_fall_back_to_the_last_one_kept(self):
        h = self.lowered_three_times_two_lost()
        h.next(106.0, [LIMIT * 3 // 4 - (1 << 14) + 4], app=4)
        self.assertEqual(h.kinds(), [])

    def test_the_last_limit_kept_before_two_lost_ones_still_binds(self):
        h = self.lowered_three_times_two_lost()
        h.next(106.0, [LIMIT * 3 // 4 + 4], app=4)
        self.assertEqual(h.kinds(), ["limit"])

    def test_a_failed_lowering_after_a_lost_one_may_also_be_in_force(self):
        h = self.lowered_three_times_two_lost()
        h.add(type="call", cmd="app-set", client="app-setter", t0=97.0, t1=97.1, exit=5, killed=False, hung=False,
              ids=[], app=4, limit=LIMIT * 7 // 8)
        h.next(106.0, [LIMIT * 7 // 8 - (1 << 14) + 4], app=4)
        self.assertEqual(h.kinds(), [])

    def test_two_holders_issuing_on_one_worker_at_once_overlap(self):
        h = healthy()
        h.holder("holder3-1", 104.0, 2, None, [snowflake(EPOCH + 1003, 2, 7)])
        self.assertEqual(h.kinds(), ["overlap"])

    def test_an_id_at_its_grants_floor_is_a_violation(self):
        h = healthy()
        h.holder("holder3-1", 104.0, 2, EPOCH + 1100, [snowflake(EPOCH + 1100, 2)])
        self.assertEqual(h.kinds(), ["floor"])

    def test_a_holder_that_gets_its_worker_back_later_does_not_overlap_itself(self):
        h = healthy()
        h.holder("holder1-1", 104.0, 2, EPOCH + 1020, [snowflake(EPOCH + 1021, 2)])
        self.assertEqual(h.kinds(), [])

    def quarantined_twice(self, second):
        """holder1-1 leases worker 2 twice with no fence (Redis alone lost
        them), a churner holding it in between; `second` is the second
        grant's quarantine event or field."""
        h = healthy()
        h.holder("holder1-1", 110.0, 6, None, [snowflake(EPOCH + 3000, 6)])
        h.add(type="call", cmd="lease", client="churner1", holder="churner1-1", snowflake=True, t0=111.0, t1=111.1,
              exit=0, signal=None, killed=False, hung=False, ids=[snowflake(EPOCH + 3500, 6)],
              events=[{"event": "acquired", "worker": 6, "floor_unix_ms": None, "quarantine_until_unix_ms": EPOCH + 3200}])
        acquired = {"event": "acquired", "worker": 6, "floor_unix_ms": None}
        if second == "field":
            acquired["quarantine_until_unix_ms"] = EPOCH + 4000
        h.add(type="lease_event", holder="holder1-1", t=112.0, event=acquired)
        if second == "event":
            h.add(type="lease_event", holder="holder1-1", t=112.0,
                  event={"event": "quarantined", "worker": 6, "until_unix_ms": EPOCH + 4000})
        return h.add(type="lease_ids", holder="holder1-1", t0=112.1, t1=112.2, ids=[snowflake(EPOCH + 4001, 6)])

    def test_a_grant_after_a_quarantine_issues_after_it_whatever_holder_printed_before(self):
        # Each grant's IDs are its own: the quarantine is the later grant's floor.
        self.assertEqual(self.quarantined_twice("field").kinds(), [])
        self.assertEqual(self.quarantined_twice("event").kinds(), [])

    def test_without_its_quarantine_a_later_grant_seems_to_span_the_one_between(self):
        # The control: a floor of None takes the first grant's IDs too.
        self.assertEqual(self.quarantined_twice("none").kinds(), ["overlap"])

    def serve_restarted(self):
        """serve-1 (worker 5) killed at 110.0; serve-2 started at 110.5 on worker 3."""
        h = healthy()
        h.add(type="holder", phase="end", holder="serve-1", t=110.0, serve=True, exit=None, signal=9, killed=True)
        h.add(type="holder", phase="start", holder="serve-2", t=110.5, serve=True)
        h.add(type="lease_event", holder="serve-2", t=110.6, event={"event": "acquired", "worker": 3, "floor_unix_ms": None})
        h.add(type="http", kind="snowflake", path="/api/snowflake/get/nemesis", t0=112.0, t1=112.1, status=200,
              ids=[snowflake(EPOCH + 5000, 3)])
        return h

    def test_a_request_sent_between_two_serve_processes_is_the_next_ones(self):
        # Sent while no serve ran; its SYN, sent again, reached serve-2.
        h = self.serve_restarted()
        h.add(type="http", kind="snowflake", path="/api/snowflake/get/nemesis", t0=110.2, t1=111.2, status=200,
              ids=[snowflake(EPOCH + 5000, 3, 1)])
        self.assertEqual(h.kinds(), [])

    def test_a_request_answered_across_a_restart_goes_to_the_process_holding_its_worker(self):
        h = self.serve_restarted()
        h.add(type="http", kind="snowflake", path="/api/snowflake/get/nemesis", t0=109.9, t1=110.8, status=200,
              ids=[snowflake(EPOCH + 2100, 5)])
        self.assertEqual(h.kinds(), [])

    def test_two_serve_processes_on_one_worker_at_once_still_overlap(self):
        h = self.serve_restarted()
        h.add(type="http", kind="snowflake", path="/api/snowflake/get/nemesis", t0=112.5, t1=112.6, status=200,
              ids=[snowflake(EPOCH + 2000, 5, 1)])
        self.assertEqual(h.kinds(), ["overlap"])

    def test_serve_stopped_at_the_end_before_it_was_up_may_answer_interrupted(self):
        h = healthy()
        h.add(type="holder", phase="end", holder="serve-1", t=104.0, serve=True, exit=130, signal=None,
              killed=False, stopping=True)
        self.assertEqual(h.kinds(), [])

    def test_a_panic_is_an_undocumented_exit(self):
        h = healthy().next(104.0, [], exit=101)
        self.assertEqual(h.kinds(), ["exit"])

    def test_internal_is_documented_but_not_expected(self):
        h = healthy().next(104.0, [], exit=1)
        self.assertEqual(h.kinds(), ["exit"])

    def test_a_call_the_nemesis_killed_is_not_a_failure(self):
        h = healthy().add(type="call", cmd="next", client="taker1", t0=104.0, t1=104.1, exit=None, signal=9,
                          killed=True, hung=False, ids=[], app=1)
        self.assertEqual(h.kinds(), [])

    def test_an_http_error_without_a_documented_code_is_a_violation(self):
        h = healthy().add(type="http", kind="segment", app=1, path="/x", t0=104.0, t1=104.1, status=500, code="boom")
        self.assertEqual(h.kinds(), ["http"])

    def test_no_issue_after_the_last_heal_is_a_recovery_violation(self):
        h = healthy().fault(healed=200.0)
        self.assertEqual(h.kinds(), ["recovery"])

    def test_a_hung_call_is_a_violation(self):
        h = healthy().add(type="call", cmd="next", client="taker1", t0=104.0, t1=300.0, exit=None, signal=9,
                          killed=False, hung=True, ids=[], app=1)
        self.assertEqual(h.kinds(), ["hung"])


if __name__ == "__main__":
    unittest.main()
