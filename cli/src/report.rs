//! What a sweep tells people and CI: the `FAIL seed N at t=…` block of a
//! failing seed (DESIGN.md §1, exact), the summary with the property table
//! and where the real time went, and the `--json` document.

use crate::catalog::Catalogued;
use crate::sweep::SeedOutcome;
use seedfall_host::node::PropertyKind;
use seedfall_host::vtime::{go_duration, go_duration_ms};
use seedfall_host::world::history_check::LinOutcome;
use seedfall_host::world::verdict::failed_at_ns;
use seedfall_host::world::{Class, Failure, RunResult, RunTimings, Verdict};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// The lines of a failing seed: the FAIL line, then one per failure.
pub fn fail_block(seed: u64, run: &RunResult) -> String {
    let Verdict::Fail(failures) = &run.verdict else { return String::new() };
    fail_lines(seed, failures, run.end.ns(), run.steps, run.timings.total)
}

/// `fail_block` from a tally's record of the seed. The time is when the
/// run failed: the end, or earlier for a history that was failing before
/// (`Failure::at_ns`).
pub fn fail_lines(seed: u64, failures: &[Failure], end_ns: u64, steps: u64, real: Duration) -> String {
    let real = go_duration_ms(real.as_nanos() as u64);
    let at = go_duration_ms(failed_at_ns(failures, end_ns));
    let mut out = format!("FAIL seed {seed} at t={at} ({steps} scheduler steps, {real} real)\n");
    for failure in failures {
        out.push_str(&format!("  {}\n", crate::terminal::escape(&failure.to_string())));
    }
    out
}

/// One hash of every seed's trace hash, in seed order: equal for two sweeps
/// only if every seed ran the same.
pub fn trace_digest(trace_hashes: &BTreeMap<u64, String>) -> String {
    let mut hasher = blake3::Hasher::new();
    for (seed, hash) in trace_hashes {
        hasher.update(&seed.to_le_bytes());
        hasher.update(hash.as_bytes());
    }
    hasher.finalize().to_hex().to_string()
}

/// What a sweep prints for one seed as it comes: its FAIL block (when
/// `fail_block` is true: a sweep shows only its first few), that `-check`
/// found it not deterministic, or its internal error (nothing for a pass).
pub fn outcome_text(outcome: &SeedOutcome, with_fail_block: bool) -> String {
    let mut text = String::new();
    if let (Ok(run), true) = (&outcome.result, with_fail_block) {
        text.push_str(&fail_block(outcome.seed, run));
    }
    if let Some(divergence) = &outcome.divergence {
        text.push_str(&format!("FAIL seed {} is not deterministic: {divergence}\n", outcome.seed));
    }
    if let Err(e) = &outcome.result {
        text.push_str(&format!("ERROR seed {}: {e}\n", outcome.seed));
    }
    text
}

/// The line after the FAIL blocks when `hidden` failing seeds were not shown.
pub fn hidden_line(hidden: u64, show_fails: usize) -> String {
    format!(
        "... and {hidden} more failing seeds not shown (--show-fails {show_fails}); the findings below list every one\n"
    )
}

/// Where the real time went: building and loading the programs (and the
/// functions compiled lazily as they were first called, `lazy`: how many,
/// in how long, part of the guest's time), then `runs` (one run's timings,
/// or a sweep's summed).
pub fn timing_line(build: Duration, load: Duration, lazy: Option<(u32, Duration)>, runs: &RunTimings) -> String {
    let scheduler = runs.total.saturating_sub(runs.boot + runs.guest);
    let lazy = match lazy {
        Some((count, time)) if count > 0 => {
            format!(" (then {count} functions compiled lazily in {})", go_duration_ms(time.as_nanos() as u64))
        }
        _ => String::new(),
    };
    format!(
        "real time: build {}, compile/load {}{lazy}, boot {} ({} boots), guest and host calls {} ({} host calls), scheduler {}",
        go_duration_ms(build.as_nanos() as u64),
        go_duration_ms(load.as_nanos() as u64),
        go_duration_ms(runs.boot.as_nanos() as u64),
        runs.boots,
        go_duration_ms(runs.guest.as_nanos() as u64),
        runs.host_calls,
        go_duration_ms(scheduler.as_nanos() as u64),
    )
}

/// Per property: kind, seeds that reached it, seeds where it was true.
#[derive(Default)]
pub struct PropertyTable {
    rows: BTreeMap<String, (Option<PropertyKind>, u64, u64)>,
    /// The config's `optional_properties`: listed, never failing the sweep.
    optional: BTreeSet<String>,
}

impl PropertyTable {
    /// Adds a run's properties; `sim.Fail` messages describe one failure
    /// each (often with its numbers), so they are not tabled.
    pub fn add(&mut self, run: &RunResult) {
        for (message, seen) in run.properties.iter().filter(|(_, seen)| seen.kind != PropertyKind::Fail) {
            let row = self.rows.entry(message.clone()).or_default();
            row.0 = Some(seen.kind);
            row.1 += 1;
            row.2 += seen.ever_true as u64;
        }
    }

    /// Lists the properties found in the source, reached or not (`catalog.rs`).
    pub fn add_catalog(&mut self, catalog: &[Catalogued]) {
        for property in catalog {
            self.add_counts(&property.message, property.kind, 0, 0);
        }
    }

    /// Exempts `messages` (the config's `optional_properties`) from
    /// `never_reached` and `never_true`.
    pub fn make_optional(&mut self, messages: &[String]) {
        self.optional.extend(messages.iter().cloned());
    }

    pub fn is_optional(&self, message: &str) -> bool {
        self.optional.contains(message)
    }

    /// `Always` and `Reachable` properties of the catalog that no seed
    /// reached: each fails the sweep.
    pub fn never_reached(&self) -> Vec<(PropertyKind, &str)> {
        self.rows
            .iter()
            .filter(|(message, _)| !self.optional.contains(*message))
            .filter_map(|(message, (kind, reached, _))| match kind {
                Some(k @ (PropertyKind::Always | PropertyKind::Reachable)) if *reached == 0 => {
                    Some((*k, message.as_str()))
                }
                _ => None,
            })
            .collect()
    }

    /// Adds a row counted elsewhere (another shard of the sweep).
    pub fn add_counts(&mut self, message: &str, kind: PropertyKind, reached: u64, true_in: u64) {
        let row = self.rows.entry(message.to_string()).or_default();
        row.0 = Some(kind);
        row.1 += reached;
        row.2 += true_in;
    }

    /// `Sometimes` properties reached in some seed and true in none: each
    /// fails the sweep.
    pub fn never_true(&self) -> Vec<&str> {
        self.rows
            .iter()
            .filter(|(m, (kind, _, true_in))| {
                *kind == Some(PropertyKind::Sometimes) && *true_in == 0 && !self.optional.contains(*m)
            })
            .map(|(m, _)| m.as_str())
            .collect()
    }

    pub fn render(&self) -> String {
        if self.rows.is_empty() {
            return String::new();
        }
        // The reference's header: its three counted columns, the message unheaded.
        let mut out = format!("{:<12} {:>13} {:>10}\n", "property", "seeds reached", "seeds true");
        for (message, (kind, reached, true_in)) in &self.rows {
            let kind = kind.map_or("?", PropertyKind::name);
            out.push_str(&format!("{kind:<12} {reached:>13} {true_in:>10}  {message}\n"));
        }
        out
    }

    pub fn json(&self) -> Value {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|(message, (kind, reached, true_in))| {
                json!({"kind": kind.map_or("?", PropertyKind::name), "message": message,
                       "seeds_reached": reached, "seeds_true": true_in,
                       "optional": self.optional.contains(message)})
            })
            .collect();
        Value::Array(rows)
    }
}

/// Everything a sweep counts.
#[derive(Default)]
pub struct Tally {
    pub seeds: u64,
    pub passed: u64,
    pub horizon: u64,
    /// The lowest seed that hit the time horizon (the summary's warning names it).
    pub lowest_horizon: Option<u64>,
    /// Seeds whose linearizability check ran out of budget: passes, but not proof.
    pub lin_unknown: u64,
    /// Failing seeds with their runs, in seed order.
    pub failed: BTreeMap<u64, (Vec<Failure>, u64, u64, Duration)>,
    /// Seed-ordered, like everything here: the report must not depend on
    /// which worker finished first.
    pub diverged: BTreeSet<u64>,
    pub errors: BTreeMap<u64, String>,
    pub properties: PropertyTable,
    pub timings: RunTimings,
    /// Each seed's trace hash, for the sweep's digest.
    pub trace_hashes: BTreeMap<u64, String>,
    /// The fault kinds each seed's run saw (`-report`'s fault kinds per finding).
    pub fault_kinds: BTreeMap<u64, BTreeSet<&'static str>>,
    /// Per fault kind, the seeds it fired in; a kind the config enables is
    /// here from the start, at 0 (`expect_faults`), so one that never
    /// fires shows (`reach.rs`). Unlike `fault_kinds`, shards merge it.
    pub fault_seeds: BTreeMap<String, u64>,
    /// Scheduler steps and virtual time over all runs.
    pub steps: u64,
    pub virtual_ns: u64,
}

impl Tally {
    /// The tally of a sweep of `cluster` before its first seed: every
    /// property of the catalog and every fault kind the config enables
    /// listed, so that one never reached or never fired shows.
    pub fn for_sweep(cluster: &crate::cluster::Cluster) -> Tally {
        let mut tally = Tally::default();
        tally.properties.add_catalog(&cluster.catalog);
        tally.properties.make_optional(&cluster.config.optional_properties);
        tally.expect_faults(&crate::reach::enabled_kinds(&cluster.config.faults));
        tally
    }

    /// Lists `kinds` in `fault_seeds`, at 0 until a seed sees them.
    pub fn expect_faults(&mut self, kinds: &[&str]) {
        for kind in kinds {
            self.fault_seeds.entry(kind.to_string()).or_default();
        }
    }

    pub fn add(&mut self, outcome: &SeedOutcome) {
        self.seeds += 1;
        let run = match &outcome.result {
            Ok(run) => run,
            Err(e) => {
                self.errors.insert(outcome.seed, e.to_string());
                return;
            }
        };
        if outcome.diverged() {
            self.diverged.insert(outcome.seed);
        }
        self.trace_hashes.insert(outcome.seed, run.trace_hash.to_string());
        let kinds: BTreeSet<&'static str> = run.faults.iter().map(|f| f.kind.name()).collect();
        for kind in &kinds {
            *self.fault_seeds.entry(kind.to_string()).or_default() += 1;
        }
        self.fault_kinds.insert(outcome.seed, kinds);
        self.steps += run.steps;
        self.virtual_ns += run.end.ns();
        self.properties.add(run);
        self.lin_unknown += matches!(run.linearizability, Some(LinOutcome::Unknown { .. })) as u64;
        add_timings(&mut self.timings, &run.timings);
        match &run.verdict {
            Verdict::Pass => self.passed += 1,
            Verdict::Horizon => {
                self.passed += 1;
                self.horizon += 1;
                self.lowest_horizon = Some(self.lowest_horizon.map_or(outcome.seed, |s| s.min(outcome.seed)));
            }
            Verdict::Fail(failures) => {
                self.failed.insert(outcome.seed, (failures.clone(), run.end.ns(), run.steps, run.timings.total));
            }
        }
    }

    /// Adds the tally of other seeds of the same sweep (another shard).
    pub fn absorb(&mut self, other: Tally) {
        self.seeds += other.seeds;
        self.passed += other.passed;
        self.horizon += other.horizon;
        self.lowest_horizon = self.lowest_horizon.into_iter().chain(other.lowest_horizon).min();
        self.lin_unknown += other.lin_unknown;
        self.failed.extend(other.failed);
        self.diverged.extend(other.diverged);
        self.errors.extend(other.errors);
        for (message, (kind, reached, true_in)) in other.properties.rows {
            if let Some(kind) = kind {
                self.properties.add_counts(&message, kind, reached, true_in);
            }
        }
        add_timings(&mut self.timings, &other.timings);
        self.trace_hashes.extend(other.trace_hashes);
        self.fault_kinds.extend(other.fault_kinds);
        for (kind, seeds) in other.fault_seeds {
            *self.fault_seeds.entry(kind).or_default() += seeds;
        }
        self.steps += other.steps;
        self.virtual_ns += other.virtual_ns;
    }

    /// Failing seeds with a failure of `class` (`crash_loop`, `no_progress`: the summary counts them).
    pub fn seeds_failing_as(&self, class: Class) -> u64 {
        self.failed.values().filter(|(failures, ..)| failures.iter().any(|f| f.class == class)).count() as u64
    }

    pub fn lowest_failing(&self) -> Option<u64> {
        self.failed.keys().next().copied().into_iter().chain(self.diverged.iter().copied()).min()
    }

    /// Whether the sweep found anything (exit code 1).
    pub fn found_something(&self) -> bool {
        !self.failed.is_empty()
            || !self.diverged.is_empty()
            || !self.properties.never_true().is_empty()
            || !self.properties.never_reached().is_empty()
    }

    /// One hash over every seed's trace hash, in seed order: equal digests
    /// mean every run behaved the same (whatever the worker count).
    pub fn trace_digest(&self) -> String {
        trace_digest(&self.trace_hashes)
    }

    /// The `fail_block`s of the first `at_most` failing seeds, in seed
    /// order, and how many failing seeds that leaves out.
    pub fn fail_blocks(&self, at_most: usize) -> (String, usize) {
        let blocks = self.failed.iter().take(at_most);
        let text = blocks
            .map(|(seed, (failures, end_ns, steps, real))| fail_lines(*seed, failures, *end_ns, *steps, *real))
            .collect();
        (text, self.failed.len().saturating_sub(at_most))
    }

    pub fn json(&self, config: &str, exit_code: u8) -> Value {
        let failures: Vec<Value> = self
            .failed
            .iter()
            .map(|(seed, (failures, end_ns, steps, real))| {
                let list: Vec<Value> = failures
                    .iter()
                    .map(|f| {
                        json!({"class": f.class.name(), "node": f.node, "incarnation": f.incarnation,
                               "property": f.property.map(PropertyKind::name), "message": f.message,
                               "at_ns": f.at_ns})
                    })
                    .collect();
                json!({"seed": seed, "virtual_time": go_duration(*end_ns), "virtual_ns": end_ns, "steps": steps,
                       "real_ms": real.as_millis() as u64, "trace_hash": self.trace_hashes.get(seed),
                       "failures": list})
            })
            .collect();
        json!({
            "config": config,
            "seeds": self.seeds,
            "passed": self.passed,
            "failed": self.failed.len(),
            "horizon": self.horizon,
            "lowest_horizon_seed": self.lowest_horizon,
            "crash_loops": self.seeds_failing_as(Class::CrashLoop),
            "no_progress": self.seeds_failing_as(Class::NoProgress),
            "fault_seeds": self.fault_seeds,
            "linearizability_unknown": self.lin_unknown,
            "lowest_failing_seed": self.lowest_failing(),
            "failures": failures,
            "diverged": self.diverged,
            "errors": self.errors.iter().map(|(s, e)| json!({"seed": s, "error": e})).collect::<Vec<_>>(),
            "sometimes_never_true": self.properties.never_true(),
            "never_reached": self.properties.never_reached().iter().map(|(_, m)| m).collect::<Vec<_>>(),
            "properties": self.properties.json(),
            "trace_digest": self.trace_digest(),
            "trace_hashes": self.trace_hashes.iter().map(|(seed, hash)| json!([seed, hash])).collect::<Vec<_>>(),
            "totals": {
                "steps": self.steps,
                "virtual_ms": self.virtual_ns / 1_000_000,
                "virtual_ns": self.virtual_ns,
                "real_ms": self.timings.total.as_millis() as u64,
                "boot_ms": self.timings.boot.as_millis() as u64,
                "boots": self.timings.boots,
                "guest_ms": self.timings.guest.as_millis() as u64,
                "init_ms": self.timings.init.as_millis() as u64,
                "host_calls": self.timings.host_calls,
            },
            "exit_code": exit_code,
        })
    }
}

fn add_timings(sum: &mut RunTimings, run: &RunTimings) {
    sum.boot += run.boot;
    sum.guest += run.guest;
    sum.init += run.init;
    sum.total += run.total;
    sum.boots += run.boots;
    sum.host_calls += run.host_calls;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(seed: u64, linearizability: Option<LinOutcome>) -> SeedOutcome {
        let run = RunResult { linearizability, ..crate::test_runs::run(seed, 0, Verdict::Pass) };
        SeedOutcome { seed, result: Ok(run), divergence: None }
    }

    #[test]
    fn an_unknown_linearizability_verdict_passes_and_is_counted() {
        let mut tally = Tally::default();
        tally.add(&outcome(1, Some(LinOutcome::Unknown { keys: vec![Some("k".into())] })));
        tally.add(&outcome(2, Some(LinOutcome::Linearizable { steps: 9 })));
        tally.add(&outcome(3, None));
        assert_eq!((tally.passed, tally.lin_unknown), (3, 1));
        assert!(!tally.found_something());
        assert_eq!(tally.json("c.json", 0)["linearizability_unknown"], 1);
        let mut other = Tally::default();
        other.add(&outcome(4, Some(LinOutcome::Unknown { keys: vec![None] })));
        tally.absorb(other);
        assert_eq!(tally.lin_unknown, 2);
    }
}
