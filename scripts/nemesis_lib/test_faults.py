"""The fault catalogue's own rules, without servers.

    python3 -m unittest discover -s scripts/nemesis_lib -t scripts
"""

import unittest

from . import faults, schedule


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


class Plan(unittest.TestCase):
    def test_every_planned_fraction_is_within_zero_and_one(self):
        # galera 40041 planned age=1.0 for fault #107; a fraction is only ever
        # used through by_fraction, which takes 1.0.
        for profile in ("distributed", "galera", "embedded"):
            for seed in range(40):
                for entry in schedule.plan(seed, profile, 600):
                    for key in ("age", "pick"):
                        if key in entry["params"]:
                            self.assertTrue(0.0 <= entry["params"][key] <= 1.0, entry)


if __name__ == "__main__":
    unittest.main()
