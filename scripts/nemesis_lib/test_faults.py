"""The fault catalogue's own rules, without servers.

    python3 -m unittest discover -s scripts/nemesis_lib -t scripts
"""

import hashlib
import json
import threading
import unittest
from unittest import mock

from . import cli, faults, procs, schedule, topology


class ByFraction(unittest.TestCase):
    def test_a_fraction_the_planner_rounded_up_to_one_names_the_last_item(self):
        self.assertEqual(faults.by_fraction(["a", "b", "c"], 1.0), "c")

    def test_fractions_spread_over_every_item(self):
        items = list(range(7))
        picked = {faults.by_fraction(items, i / 1000) for i in range(1001)}
        self.assertEqual(picked, set(items))

    def test_pick_of_nothing_is_none_and_noted(self):
        out = {}
        self.assertIsNone(faults.pick(out, [], 1.0, "no snapshot yet"))
        self.assertEqual(out, {"effective": False, "notes": "no snapshot yet"})


class SentinelFailover(unittest.TestCase):
    def test_a_sentinel_killed_in_the_same_instant_is_skipped(self):
        dead, live = mock.Mock(), mock.Mock()
        dead.call.side_effect = ConnectionRefusedError(111, "Connection refused")
        live.call.return_value = "OK"
        self.assertEqual(faults.sentinel_failover([dead, live]), "OK")
        live.call.assert_called_once()

    def test_no_sentinel_answering_is_a_refused_fault_not_a_crash(self):
        dead = mock.Mock()
        dead.call.side_effect = ConnectionRefusedError(111, "Connection refused")
        with self.assertRaises(faults.resp.RedisError):
            faults.sentinel_failover([dead, dead])


class KillClientRun(unittest.TestCase):
    """kill9_client against real processes, named as the workload names its
    clients (`client:ROLE...`)."""

    def context(self):
        registry = procs.Registry()
        self.addCleanup(registry.kill_all)
        return schedule.Context("distributed", None, registry, None, None, None)

    def test_a_kill_planned_between_two_calls_kills_the_next_call(self):
        ctx = self.context()
        started = []
        timer = threading.Timer(0.2, lambda: started.append(ctx.registry.spawn("client:taker1", ["sleep", "30"])))
        self.addCleanup(timer.cancel)
        timer.start()
        out = {}
        faults.KillClient().run(ctx, {"role": "taker", "pick": 0.0}, out)
        self.assertEqual(out["target"], "client:taker1")
        self.assertNotIn("effective", out)
        self.assertRegex(out["notes"], r"^waited 0\.\d\d s for a taker process$")
        self.assertEqual(started[0].popen.wait(5), -9)

    def test_a_role_with_no_call_within_the_wait_is_noted_as_no_effect(self):
        ctx = self.context()
        ctx.registry.spawn("client:limit-taker1", ["sleep", "30"])
        out = {}
        with mock.patch.object(faults, "CLIENT_WAIT_S", 0.1):
            faults.KillClient().run(ctx, {"role": "taker", "pick": 0.0}, out)
        self.assertEqual(out, {"effective": False, "notes": "no taker process running within 0.1 s"})
        self.assertEqual(len(ctx.registry.running("client:limit-taker")), 1)


def is_stopped(proc):
    with open(f"/proc/{proc.pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[-1].split()[0] == "T"


class Frozen(unittest.TestCase):
    """The registry's freeze, which store_restored swaps the store file in,
    against real processes."""

    def setUp(self):
        self.registry = procs.Registry()
        self.addCleanup(self.registry.kill_all)
        self.client = self.registry.spawn("client:taker1", ["sleep", "30"])
        self.holder = self.registry.spawn("holder:serve", ["sleep", "30"])
        self.load = self.registry.spawn("http-load", ["sleep", "30"])

    def test_every_idgen_process_is_stopped_in_the_block_and_continued_after(self):
        with self.registry.frozen(("client:", "holder:")) as stopped:
            self.assertEqual({p.name for p in stopped}, {"client:taker1", "holder:serve"})
            self.assertEqual([is_stopped(p) for p in (self.client, self.holder, self.load)], [True, True, False])
        self.assertEqual([is_stopped(p) for p in (self.client, self.holder)], [False, False])

    def test_a_process_another_fault_stopped_stays_stopped(self):
        self.holder.stop()
        self.holder.wait_stopped()
        with self.registry.frozen(("client:", "holder:")) as stopped:
            self.assertEqual([p.name for p in stopped], ["client:taker1"])
        self.assertEqual([is_stopped(p) for p in (self.client, self.holder)], [False, True])

    def test_no_process_starts_while_frozen(self):
        started = []
        with self.registry.frozen(("client:",)):
            spawner = threading.Thread(target=lambda: started.append(self.registry.spawn("client:x", ["true"])))
            spawner.start()
            spawner.join(0.2)
            self.assertEqual(started, [])
        spawner.join(5)
        self.assertEqual(len(started), 1)


class Gates(unittest.TestCase):
    """A fault's gate of several names: open only when every one is open at
    the same look (the profile's answers stand in for the servers)."""

    def context(self, ledger=None, demotable=None):
        profile = mock.Mock()
        profile.ledger_current.return_value = ledger
        profile.redis.demotable.return_value = demotable
        return schedule.Context(profile, None, None, None, None, None)

    def test_a_demotion_waits_for_the_ledger_and_for_a_master_to_demote(self):
        self.assertEqual(faults.RedisDemote.gate, "ledger_current,redis_demotable")

    def test_a_gate_of_several_names_is_open_when_each_is(self):
        self.assertIsNone(faults.check_gate(self.context(), faults.RedisDemote.gate))

    def test_a_gate_of_several_names_is_closed_by_the_first_that_is(self):
        ctx = self.context(ledger="the ledger is behind", demotable="the sentinels do not agree on a master")
        self.assertEqual(faults.check_gate(ctx, faults.RedisDemote.gate), "the ledger is behind")
        ctx = self.context(demotable="redis2 is not in sync with redis1")
        self.assertEqual(faults.check_gate(ctx, faults.RedisDemote.gate), "redis2 is not in sync with redis1")

    def test_a_gate_nobody_defined_keeps_the_fault_back(self):
        with self.assertRaisesRegex(ValueError, "no gate 'ledger_curent'"):
            faults.check_gate(self.context(), "ledger_curent")


class Plan(unittest.TestCase):
    def test_every_planned_fraction_is_within_zero_and_one(self):
        # galera 40041 planned age=1.0 for fault #107; a fraction is only ever
        # used through by_fraction, which takes 1.0.
        for profile in ("distributed", "galera", "embedded", "cluster"):
            for seed in range(40):
                for entry in schedule.plan(seed, profile, 600):
                    for key in ("age", "pick", "to"):
                        if key in entry["params"]:
                            self.assertTrue(0.0 <= entry["params"][key] <= 1.0, entry)

    def test_on_redis_alone_no_clock_runs_ahead_past_the_quarantines_margin(self):
        # What no check can see there; behind, by any amount, is fair. The
        # Cluster profile's leases are on Redis alone too.
        for profile in ("redis-alone", "cluster"):
            steps = [entry["params"]["delta_s"] for seed in range(40)
                     for entry in schedule.plan(seed, profile, 600) if entry["kind"] == "clock_step"]
            self.assertTrue(steps)
            self.assertLessEqual(max(steps), 0.9, profile)
            self.assertLess(min(steps), -1.0, profile)

    def test_the_cluster_profile_runs_only_faults_it_has_servers_for(self):
        kinds = {f.kind for f in faults.for_profile("cluster")}
        self.assertIn("cluster_reshard", kinds)
        self.assertIn("second_node_kill9", kinds)
        self.assertIn("mysql_promote_lagging_replica", kinds)
        self.assertFalse({k for k in kinds if k.startswith(("redis_", "galera_", "sentinel_", "store_"))})

    def test_on_the_cluster_redis_loses_nothing_while_the_ledger_is_behind_its_witnesses(self):
        # The two authorities never go back over one span at once: a Cluster
        # fault waits for the ledger to catch up after it went back, and the
        # ledger goes back only once every witness has caught up with it.
        for fault in faults.for_profile("cluster"):
            if "redis" in fault.groups and not fault.kind.startswith("mysql_"):
                self.assertIn("ledger_current", fault.gate or "", fault.kind)
        self.assertEqual(faults.MysqlLaggingPromote.gate, "witness_current")
        self.assertTrue(issubclass(topology.Cluster, topology.MysqlGates))


class ClusterSplit(unittest.TestCase):
    """RedisCluster.masters: two nodes that each call themselves master of one same slot."""

    def views(self, **claims):
        return {name: (name, ["myself", "master"] if ranges is not None else ["myself", "slave"], "-", ranges or [])
                for name, ranges in claims.items()}

    def cluster(self):
        return topology.RedisCluster.__new__(topology.RedisCluster)

    def test_masters_of_disjoint_slots_are_no_split(self):
        views = self.views(rcl1=[(0, 5460)], rcl2=[(5461, 10922)], rcl3=[(10923, 16383)], rcl4=None)
        self.assertEqual(self.cluster().masters(views), [])

    def test_two_claims_of_one_slot_are_a_split(self):
        views = self.views(rcl1=[(0, 5460)], rcl2=[(5461, 10922)], rcl3=[(10923, 16383)], rcl4=[(5000, 5000)])
        self.assertEqual(self.cluster().masters(views), ["rcl1", "rcl4"])

    def test_a_master_of_no_slot_claims_nothing(self):
        views = self.views(rcl1=[(0, 16383)], rcl4=[])
        self.assertEqual(self.cluster().masters(views), [])

    def test_the_default_schedule_of_a_recorded_seed_is_planned_as_it_was(self):
        # The README's table replays seeds by number: a new option must not
        # move the schedule they name (galera 40003, as planned before it).
        entries = schedule.plan(40003, "galera", 1800.0)
        digest = hashlib.sha256(json.dumps(entries, sort_keys=True).encode()).hexdigest()
        self.assertEqual((len(entries), digest),
                         (442, "6bf605b6812879ec8cae1c4dab2370737c4c305d0fee458b65ce899da55e7f28"))


class ClusterGates(unittest.TestCase):
    """MysqlGates on the Cluster profile: its leases are on Redis alone, so
    only the shards' witnesses stand between the ledger and a rollback."""

    def profile(self, witness):
        profile = topology.Cluster.__new__(topology.Cluster)
        profile.redis = mock.Mock()
        profile.redis.unsettled.return_value = None
        profile.redis.witnesses.return_value = {(1, 5): witness}
        profile.second = mock.Mock()
        profile.mysql = mock.Mock()
        profile.mysql.ledger.return_value = {(1, 5): 2000}
        profile.mysql.routes.return_value = {}
        profile.mysql.lease_rows.return_value = {}
        profile.mysql.rolled_back_at = None
        return profile

    def test_the_ledger_goes_back_only_once_the_clusters_witness_has_caught_up(self):
        with mock.patch.object(topology, "witness_table", return_value={}):
            self.assertEqual(self.profile(1000).witness_current(["ns"]),
                             "witness of app 1 shard 5 on main is behind the ledger")
            self.assertIsNone(self.profile(2000).witness_current(["ns"]))

    def test_after_a_rollback_redis_loses_nothing_until_the_ledger_passes_the_witness(self):
        profile = self.profile(3000)
        profile.mysql.rolled_back_at = 1.0
        with mock.patch.object(topology, "witness_table", return_value={}):
            self.assertEqual(profile.ledger_current(), "the ledger of app 1 shard 5 is behind the witness on main")
            profile.mysql.ledger.return_value = {(1, 5): 3000}
            self.assertIsNone(profile.ledger_current())
        self.assertIsNone(profile.mysql.rolled_back_at)


class Witnesses(unittest.TestCase):
    """topology.witness_table: the witnesses one server holds, by (app, shard)."""

    def test_a_clusters_witness_names_end_in_a_hash_tag_that_is_not_the_shard(self):
        server = mock.Mock()
        server.call.return_value = ["0", ["id.gen.witness_7_5{a1}", "id.gen.witness_12_63"]]
        with mock.patch.object(topology.resp, "pipeline", return_value=["46786", None]):
            self.assertEqual(topology.witness_table(server), {(7, 5): 46786, (12, 63): 0})


class Focus(unittest.TestCase):
    KINDS = ["galera_isolate", "redis_demote_master", "redis_flushall", "sigstop_client"]

    def test_a_focused_schedule_has_only_the_named_faults_and_comes_denser(self):
        focused = schedule.plan(5, "galera", 900, self.KINDS, 1.5)
        self.assertEqual({e["kind"] for e in focused}, set(self.KINDS))
        self.assertGreater(len(focused), len(schedule.plan(5, "galera", 900, self.KINDS)))

    def test_a_fault_the_profile_lacks_is_refused_with_the_profiles_faults(self):
        with self.assertRaises(ValueError) as refused:
            schedule.plan(5, "embedded", 900, ["galera_isolate"])
        self.assertIn("no fault galera_isolate in the embedded profile", str(refused.exception))
        self.assertIn("clock_step", str(refused.exception))

    def test_an_empty_list_of_faults_is_refused(self):
        with self.assertRaises(ValueError) as refused:
            schedule.plan(5, "galera", 900, cli.parse(["--faults", ","]).faults)
        self.assertIn("no fault named in the galera profile", str(refused.exception))

    def test_the_replay_arguments_plan_the_same_schedule(self):
        planned = schedule.plan(5, "galera", 900, self.KINDS, 1.0 / 3)
        args = cli.parse(schedule.replay_args(5, "galera", 900, self.KINDS, 1.0 / 3).split())
        self.assertEqual(schedule.plan(args.seed, args.profile, args.duration, args.faults, args.mean_gap), planned)

    def test_the_default_replay_arguments_name_no_focus(self):
        self.assertEqual(schedule.replay_args(7, "distributed", 120), "--profile distributed --seed 7 --duration 120")


if __name__ == "__main__":
    unittest.main()
