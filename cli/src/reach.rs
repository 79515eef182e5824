//! What a sweep's summary says about how far its seeds reached, so that a
//! sweep never passes silently (DESIGN.md §1, "No silent passes"): in how
//! many seeds each fault kind the config enables fired (and a warning for a
//! kind that fired in none), a warning when seeds hit the time horizon
//! (unless the config expects it), and the line a passing sweep ends with.
//! Text and counts only: the verdicts `crash_loop` and `no_progress` are
//! the world's (`seedfall_host::world::silent`).

use seedfall_host::world::{FaultConfig, Kind};
use std::collections::BTreeMap;

/// The fault kinds `faults` switches on, by schedule name (`crash`,
/// `fsync_eio`, …): planned and per-operation kinds alike.
pub fn enabled_kinds(faults: &FaultConfig) -> Vec<&'static str> {
    Kind::all().filter(|k| k.imp().enabled(faults)).map(Kind::name).collect()
}

/// `faults: crash in 42 of 200 seeds, fsync_eio in 17 of 200 seeds`, one
/// entry per kind enabled or seen (None: there is none).
pub fn fault_line(fault_seeds: &BTreeMap<String, u64>, seeds: u64) -> Option<String> {
    if fault_seeds.is_empty() {
        return None;
    }
    let parts: Vec<String> = fault_seeds.iter().map(|(kind, n)| format!("{kind} in {n} of {seeds} seeds")).collect();
    Some(format!("faults: {}", parts.join(", ")))
}

/// The warning naming each enabled kind that fired in no seed (a kind with
/// a count of 0 is one the config enables: a kind seen is counted).
pub fn never_fired_warning(fault_seeds: &BTreeMap<String, u64>, seeds: u64) -> Option<String> {
    let silent: Vec<&str> = fault_seeds.iter().filter(|(_, n)| **n == 0).map(|(kind, _)| kind.as_str()).collect();
    if silent.is_empty() || seeds == 0 {
        return None;
    }
    Some(format!(
        "warning: enabled but fired in none of {seeds} seeds: {} (the seeds tested nothing of it: raise its rate, \
         lengthen `duration`, or check that the workload calls sim.SetupComplete early enough)",
        silent.join(", ")
    ))
}

/// The warning for seeds that hit the time horizon, naming the lowest
/// (None: none did, or the config expects it).
pub fn horizon_warning(horizon: u64, seeds: u64, lowest: Option<u64>, config: &str, expected: bool) -> Option<String> {
    let seed = lowest.filter(|_| horizon > 0 && !expected)?;
    Some(format!(
        "warning: {horizon} of {seeds} seeds hit the time horizon before the workload exited, lowest {seed} \
         (replay: seedfall replay -c {config} -seed {seed}); they pass but checked only what happened by then. \
         A workload meant to run until `duration` says so in the config: \"expect\": {{\"horizon\": true}}"
    ))
}

/// The line a passing sweep ends with (DESIGN.md §1's reference output).
pub fn ok_line(passed: u64, horizon: u64) -> String {
    format!("ok {passed} seeds passed ({horizon} hit the time horizon)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fault_line_counts_seeds_per_kind_and_warns_of_a_kind_that_never_fired() {
        let counts: BTreeMap<String, u64> = [("crash".to_string(), 42), ("partition".to_string(), 0)].into();
        assert_eq!(
            fault_line(&counts, 200).as_deref(),
            Some("faults: crash in 42 of 200 seeds, partition in 0 of 200 seeds")
        );
        let warning = never_fired_warning(&counts, 200).unwrap();
        assert!(warning.starts_with("warning: enabled but fired in none of 200 seeds: partition ("), "{warning}");
        let all_fired: BTreeMap<String, u64> = [("crash".to_string(), 1)].into();
        assert_eq!(never_fired_warning(&all_fired, 200), None);
        assert_eq!(fault_line(&BTreeMap::new(), 200), None);
    }

    #[test]
    fn the_horizon_warning_names_the_lowest_seed_unless_expected() {
        let warning = horizon_warning(3, 20, Some(7), "c.json", false).unwrap();
        assert!(warning.starts_with("warning: 3 of 20 seeds hit the time horizon"), "{warning}");
        assert!(warning.contains("lowest 7 (replay: seedfall replay -c c.json -seed 7)"), "{warning}");
        assert!(warning.ends_with(r#""expect": {"horizon": true}"#), "{warning}");
        assert_eq!(horizon_warning(3, 20, Some(7), "c.json", true), None);
        assert_eq!(horizon_warning(0, 20, None, "c.json", false), None);
        assert_eq!(ok_line(20, 0), "ok 20 seeds passed (0 hit the time horizon)");
    }
}
