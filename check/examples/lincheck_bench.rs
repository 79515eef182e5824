//! Times `seedfall_check::check` on each of Porcupine v1.3.1's test histories (the ones
//! `tests/porcupine.rs` checks), for `bench/lincheck.sh`, which runs Porcupine's own checker on the same
//! files. Prints one JSON line per file and run: `{"file", "run", "ns", "linearizable", "steps"}`.
//!
//! Reading the files is outside the timed region, as on the Go side; parsing the operations' text is inside
//! (it is part of `check`). Explaining a violation is off (`Budget::explain`): Porcupine does not do it.

#[path = "../tests/support/porcupine.rs"]
mod porcupine;

use std::time::Instant;

use seedfall_check::{Budget, Model, Op, Verdict, check};

fn main() {
    let runs: usize = std::env::args().nth(1).map_or(5, |r| r.parse().expect("runs: a number"));
    let mut histories: Vec<(String, Model, Vec<Op>)> = Vec::new();
    for path in porcupine::files("jepsen", ".log") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name != "etcd_095.log" {
            histories.push((name, Model::CasRegister, porcupine::etcd_log(&path)));
        }
    }
    for path in porcupine::files("kv", ".txt") {
        histories.push((path.file_name().unwrap().to_string_lossy().into_owned(), Model::Kv, porcupine::kv_log(&path)));
    }
    // Rounds over all files rather than runs of one file in a row, so a burst of load hits every file alike.
    for run in 0..runs {
        for (name, model, history) in &histories {
            let start = Instant::now();
            let checked = check(*model, history, Budget { steps: u64::MAX, explain: false }).unwrap();
            let ns = start.elapsed().as_nanos();
            let linearizable = matches!(checked.verdict, Verdict::Linearizable);
            println!(
                r#"{{"file":"{name}","run":{run},"ns":{ns},"linearizable":{linearizable},"steps":{}}}"#,
                checked.steps
            );
        }
    }
}
