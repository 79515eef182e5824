//! `seedfall crashstates` on examples/kvlog: every state a crash of the
//! server in the middle of one disk operation can leave, judged by the
//! client. The torn-tail store fails for the states whose last record is
//! torn and passes for the others; the fixed store recovers from all of
//! them, at a write and at a sync, and from every page-by-page state under
//! reordered writeback; a sample says it is one and is the same
//! sample each time; mistakes are errors (exit 2).

use std::path::Path;
use std::sync::Mutex;

/// The kvlog configs share one build directory: one test at a time.
static KVLOG: Mutex<()> = Mutex::new(());

fn crashstates(config: &str, args: &[&str]) -> (Option<i32>, String) {
    let _one = KVLOG.lock().unwrap_or_else(|e| e.into_inner());
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kvlog").join(config);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(["crashstates", "-c", config.to_str().unwrap(), "-seed", "1", "-node", "server"])
        .args(args)
        .env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache"))
        .output()
        .unwrap();
    (out.status.code(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

/// (states checked, passed, failed) from the last line.
fn tally(report: &str) -> (u64, u64, u64) {
    let last = report.lines().last().unwrap_or_default();
    let numbers: Vec<u64> =
        last.split(|c: char| !c.is_ascii_digit()).filter(|w| !w.is_empty()).map(|w| w.parse().unwrap()).collect();
    let [total, pass, fail] = numbers[..] else { panic!("not a tally: {last}") };
    (total, pass, fail)
}

#[test]
fn the_torn_tail_store_fails_exactly_the_states_with_a_torn_last_record() {
    let (code, report) = crashstates("crashstates-torn-tail.json", &["-at", "40"]);
    assert_eq!(code, Some(1), "{report}");
    assert!(report.lines().next().unwrap().contains("server crashes in disk op 40 (write)"), "{report}");
    let (total, pass, fail) = tally(&report);
    assert!(report.contains(&format!("checked all {total} states")), "{report}");
    assert!(total > 10 && pass + fail == total && fail > 0, "{report}");
    for line in report.lines().filter(|l| l.starts_with("  state ")) {
        let torn = line.contains(" bytes of the next");
        assert_eq!(line.contains("-> FAIL"), torn, "fails if and only if the record is torn: {line}");
        if torn {
            assert!(line.contains("acknowledged entry"), "the client's own check: {line}");
        }
    }
}

#[test]
fn the_fixed_store_recovers_from_every_state_at_a_write_and_at_a_sync() {
    for (op, on) in [("40", "(write)"), ("41", "(sync)")] {
        let (code, report) = crashstates("crashstates-fixed.json", &["-at", op]);
        assert_eq!(code, Some(0), "{report}");
        assert!(report.contains(&format!("disk op {op} {on}")), "{report}");
        let (total, pass, fail) = tally(&report);
        assert!(total > 10 && pass == total && fail == 0, "{report}");
        assert!(report.contains(&format!("checked all {total} states: {total} pass, 0 fail")), "{report}");
    }
}

#[test]
fn under_reordered_writeback_each_page_is_a_choice_of_its_own() {
    // page_independent with strict_dirs: the log's pending page is listed
    // as a choice (kept or not, torn at any byte), and the fixed store
    // recovers from every one.
    let (code, report) = crashstates("reorder.json", &["-at", "40"]);
    assert_eq!(code, Some(0), "{report}");
    let (total, pass, _) = tally(&report);
    assert!(total > 10 && pass == total, "{report}");
    let states: Vec<&str> = report.lines().filter(|l| l.starts_with("  state ")).collect();
    assert!(states.iter().all(|l| l.contains("/data/kv.log page 0 keeps ")), "{report}");
    assert!(states.iter().any(|l| l.contains("page 0 keeps 0 of 1 pieces -> pass")), "the page not written back");
    assert!(!report.contains("of 0 in its ordered stream"), "an empty choice is not printed: {report}");
}

#[test]
fn above_max_states_a_seeded_sample_is_checked_and_says_so() {
    let (code, first) = crashstates("crashstates-fixed.json", &["-at", "40", "--max-states", "5"]);
    assert_eq!(code, Some(0), "{first}");
    assert!(first.contains("sampled 5 of ") && !first.contains("all"), "never 'all': {first}");
    assert_eq!(first.lines().filter(|l| l.starts_with("  state ")).count(), 5, "{first}");
    let (_, again) = crashstates("crashstates-fixed.json", &["-at", "40", "--max-states", "5", "-j", "1"]);
    assert_eq!(again, first, "the same sample and verdicts for any -j");
}

#[test]
fn an_unknown_node_or_an_operation_never_reached_is_an_error() {
    let (code, report) = crashstates("crashstates-fixed.json", &["-at", "999999"]);
    assert_eq!(code, Some(2), "{report}");
    assert!(report.contains("server never reached disk operation 999999 in seed 1"), "{report}");
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kvlog/crashstates-fixed.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(["crashstates", "-c", config.to_str().unwrap(), "-seed", "1", "-node", "client", "-at", "1"])
        .env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--node client: not a service node of the config (nodes: server)"), "{err}");
}
