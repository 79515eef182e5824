"""The rules of examples/regress_judge.py on made-up summaries, each shown failing
when it should: `python3 -m unittest examples/regress_judge_test.py` (run by
cli/tests/regress_judge.rs)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import regress_judge as rj  # noqa: E402

JUDGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regress_judge.py")


def summary(passed, failed, failing=None, diverged=(), unknown=0, exit_code=None):
    """A run summary: `failing` seeds fail as property client "acknowledged entry 3 lost"."""
    failing = list(failing if failing is not None else range(1, failed + 1))
    runs = [{"seed": s, "failures": [{"class": "property", "node": "client", "message": "acknowledged entry 3 lost"}]}
            for s in failing]
    code = exit_code if exit_code is not None else (1 if failed or diverged else 0)
    return {"exit_code": code, "passed": passed, "failed": failed, "horizon": 0, "failures": runs,
            "lowest_failing_seed": min(failing) if failing else None, "diverged": list(diverged),
            "linearizability_unknown": unknown}


FAIL_ENTRY = {"config": "seedfall.json", "seeds": "1-20", "verdict": "fail", "class": "property",
              "node": "client", "message": "acknowledged entry"}


class LinearizabilityUnknown(unittest.TestCase):
    def test_an_unknown_seed_fails_a_pass_entry_without_lin_unknown_at_most(self):
        entry = {"config": "lin.json", "seeds": "1-10", "verdict": "pass"}
        ok, text = rj.judge(entry, summary(10, 0, unknown=2), 0, 0)
        self.assertFalse(ok, text)
        self.assertIn("2 seeds' linearizability unknown", text)
        self.assertIn("at most 0 allowed", text)

    def test_lin_unknown_at_most_lets_that_many_through_and_no_more(self):
        entry = {"config": "lin.json", "seeds": "1-10", "verdict": "pass", "lin_unknown_at_most": 2}
        self.assertEqual(rj.judge(entry, summary(10, 0, unknown=2), 0, 0)[0], True)
        ok, text = rj.judge(entry, summary(10, 0, unknown=3), 0, 0)
        self.assertFalse(ok, text)
        self.assertIn("at most 2 allowed", text)

    def test_it_holds_for_fail_entries_too(self):
        ok, text = rj.judge(FAIL_ENTRY, summary(15, 5, unknown=1), 1, 0)
        self.assertFalse(ok, text)
        self.assertEqual(rj.judge(dict(FAIL_ENTRY, lin_unknown_at_most=1), summary(15, 5, unknown=1), 1, 0)[0], True)

    def test_zero_unknown_passes_and_a_bad_bound_is_refused(self):
        entry = {"config": "lin.json", "seeds": "1-10", "verdict": "pass"}
        self.assertEqual(rj.judge(entry, summary(10, 0), 0, 0), (True, "pass (10 passed, 0 failed, 0 at the horizon)"))
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump([dict(entry, lin_unknown_at_most=-1)], f)
        try:
            with self.assertRaises(rj.Bad):
                rj.entries(f.name, "")
        finally:
            os.unlink(f.name)


class Divergence(unittest.TestCase):
    def test_a_diverged_seed_fails_a_check_entry_whose_verdict_matches(self):
        entry = dict(FAIL_ENTRY, check=True)
        self.assertEqual(rj.judge(entry, summary(15, 5), 1, 0)[0], True)
        ok, text = rj.judge(entry, summary(15, 5, diverged=[7]), 1, 0)
        self.assertFalse(ok, text)
        self.assertIn("not deterministic: seeds [7]", text)

    def test_a_diverged_seed_fails_a_count_entry(self):
        entry = {"config": "c.json", "seeds": "1-20", "verdict": "count", "failed_at_most": 20, "check": True}
        ok, text = rj.judge(entry, summary(20, 0, diverged=[3], exit_code=1), 1, 0)
        self.assertFalse(ok, text)
        self.assertIn("not deterministic", text)

    def test_a_check_entry_needs_a_summary_to_read(self):
        entry = {"config": "c.json", "seeds": "1-5", "verdict": "pass", "check": True}
        ok, text = rj.judge(entry, None, 0, 0, "no JSON summary (OSError)")
        self.assertFalse(ok, text)
        self.assertIn("no summary to read its divergences from", text)

    def test_without_check_the_list_is_not_read(self):
        self.assertEqual(rj.judge(FAIL_ENTRY, summary(15, 5, diverged=[7]), 1, 0)[0], True)

    def test_a_test_documents_divergences_reach_the_summary(self):
        doc = {"exit_code": 1, "packages": [{"tests": [
            {"test": "TestA", "seeds": 3, "failed": 0, "findings": [], "diverged": [{"seed": 2, "divergence": "x"}]},
        ]}]}
        converted = rj.test_summary(doc)
        self.assertEqual(converted["diverged"], [2])
        entry = {"test": "./a", "seeds": "1-3", "verdict": "count", "check": True}
        self.assertFalse(rj.judge(entry, converted, 1, 0)[0])


class QuickMode(unittest.TestCase):
    EVERY = dict(FAIL_ENTRY, failed_at_least=20)

    def test_every_seed_fails_stays_every_seed_that_ran_fails(self):
        # Capped at 5 seeds (15 cut off): one of the five passing breaks "every seed fails".
        ok, text = rj.judge(self.EVERY, summary(1, 4, failing=[1, 2, 3, 5]), 1, 15)
        self.assertFalse(ok, text)
        self.assertIn("expected every seed that ran to fail", text)
        self.assertEqual(rj.judge(self.EVERY, summary(0, 5), 1, 15)[0], True)
        # Uncapped, the same rule.
        self.assertFalse(rj.judge(self.EVERY, summary(1, 19), 1, 0)[0])
        self.assertTrue(rj.judge(self.EVERY, summary(0, 20), 1, 0)[0])

    def test_every_seed_of_several_tests(self):
        # A test entry's runs are every test's seeds: 2 tests x 20 seeds, capped at 5 each.
        entry = {"test": "./bank", "seeds": "1-20", "verdict": "fail", "failed_at_least": 40, "class": "test"}
        failing = summary(1, 9)
        for run in failing["failures"]:
            run["failures"][0]["class"] = "test"
        self.assertFalse(rj.judge(entry, failing, 1, 15)[0])
        failing["passed"], failing["failed"] = 0, 10
        self.assertTrue(rj.judge(entry, failing, 1, 15)[0])

    def test_a_partial_expectation_still_drops_by_the_seeds_cut_off(self):
        entry = dict(FAIL_ENTRY, failed_at_least=15)
        # Capped at 10 of 20 seeds: at least 5 must fail.
        self.assertTrue(rj.judge(entry, summary(5, 5), 1, 10)[0])
        ok, text = rj.judge(entry, summary(6, 4), 1, 10)
        self.assertFalse(ok, text)
        self.assertIn("expected at least 5", text)

    def test_the_cap_and_quick_seeds_in_the_entry_lines(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump([self.EVERY, dict(FAIL_ENTRY, quick_seeds=2, check=True)], f)
        try:
            self.assertEqual(rj.entries(f.name, "5"),
                             ["0\tseedfall.json\t1-5\t0\t15", "1\tseedfall.json\t1-2\t1\t18"])
            self.assertEqual(rj.entries(f.name, ""),
                             ["0\tseedfall.json\t1-20\t0\t0", "1\tseedfall.json\t1-20\t1\t0"])
        finally:
            os.unlink(f.name)


class CommandLine(unittest.TestCase):
    """The judge as regress.sh calls it."""

    def test_judge_prints_fail_and_exits_1_for_an_unknown_seed(self):
        with tempfile.TemporaryDirectory() as dir:
            expected, doc = os.path.join(dir, "expected.json"), os.path.join(dir, "run.json")
            with open(expected, "w") as f:
                json.dump([{"config": "lin.json", "seeds": "1-4", "verdict": "pass"},
                           {"config": "lin.json", "seeds": "1-4", "verdict": "pass", "lin_unknown_at_most": 1}], f)
            with open(doc, "w") as f:
                json.dump(summary(4, 0, unknown=1), f)
            run = lambda idx: subprocess.run(  # noqa: E731
                [sys.executable, JUDGE, "judge", expected, idx, doc, "0", "ex", "lin.json", "1-4", "0"],
                capture_output=True, text=True)
            failing = run("0")
            self.assertEqual(failing.returncode, 1, failing.stdout + failing.stderr)
            self.assertTrue(failing.stdout.startswith("FAIL ex lin.json 1-4: pass"), failing.stdout)
            passing = run("1")
            self.assertEqual(passing.returncode, 0, passing.stdout + passing.stderr)
            self.assertTrue(passing.stdout.startswith("ok   ex lin.json 1-4: pass"), passing.stdout)


if __name__ == "__main__":
    unittest.main()
