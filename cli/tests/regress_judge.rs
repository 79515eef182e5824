//! examples/regress.sh's judge (examples/regress_judge.py) on made-up
//! summaries: `python3 -m unittest examples/regress_judge_test.py`, whose
//! tests show each rule failing an entry when it should (seeds whose
//! linearizability is unknown beyond `lin_unknown_at_most`, a `diverged`
//! seed of a `-check` entry, a capped "every seed fails" entry with a seed
//! that passed) and passing it when it should not fail.

use std::path::Path;
use std::process::Command;

#[test]
fn the_regress_judge_fails_what_it_should() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let out = Command::new("python3")
        .args(["-m", "unittest", "-v", "regress_judge_test.py"])
        .current_dir(&examples)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 is needed for examples/regress.sh and this test");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{text}");
    let ran: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("Ran ")?.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no `Ran N tests` line: {text}"));
    // The file has at least the 14 tests it was written with: none lost on the way.
    assert!(ran >= 14 && text.contains("\nOK"), "{text}");
}

/// examples/regress.sh itself, judge and all, over a made-up example whose
/// "seedfall" reports a prepared summary: each rule fails its entry through
/// the script as it does in the unit tests.
#[test]
fn regress_sh_fails_the_entries_the_judge_fails() {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("regress-judge");
    let _ = std::fs::remove_dir_all(&root);
    let examples = root.join("examples");
    let fake = examples.join("fake");
    std::fs::create_dir_all(&fake).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for file in ["regress.sh", "regress_judge.py"] {
        std::fs::copy(repo.join("examples").join(file), examples.join(file)).unwrap();
    }
    // The fake seedfall: its config file is the summary it reports, exit code included.
    let bin = root.join("seedfall");
    std::fs::write(
        &bin,
        r#"#!/bin/sh
while [ $# -gt 0 ]; do
  case "$1" in --json) json=$2; shift ;; -c) config=$2; shift ;; esac
  shift
done
cp "$config" "$json"
exit "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["exit_code"])' "$config")"
"#,
    )
    .unwrap();
    std::fs::set_permissions(&bin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let run = |passed: u64, failing: &[u64], diverged: &[u64], unknown: u64| {
        let failures: Vec<_> = failing
            .iter()
            .map(|s| serde_json::json!({"seed": s, "failures": [{"class": "property", "node": "client", "message": "lost"}]}))
            .collect();
        let code = if failing.is_empty() && diverged.is_empty() { 0 } else { 1 };
        serde_json::json!({"exit_code": code, "passed": passed, "failed": failing.len(), "horizon": 0,
                           "failures": failures, "lowest_failing_seed": failing.first(), "diverged": diverged,
                           "linearizability_unknown": unknown})
    };
    for (name, doc) in [
        ("unknown.json", run(4, &[], &[], 2)),
        ("clean.json", run(4, &[], &[], 0)),
        ("diverged.json", run(2, &[1, 2], &[2], 0)),
        ("every.json", run(1, &[1, 2, 3], &[], 0)),
    ] {
        std::fs::write(fake.join(name), doc.to_string()).unwrap();
    }
    let entries = serde_json::json!([
        {"config": "unknown.json", "seeds": "1-4", "verdict": "pass"},
        {"config": "unknown.json", "seeds": "1-4", "verdict": "pass", "lin_unknown_at_most": 2},
        {"config": "diverged.json", "seeds": "1-4", "verdict": "fail", "class": "property", "check": true},
        {"config": "diverged.json", "seeds": "1-4", "verdict": "fail", "class": "property"},
        {"config": "every.json", "seeds": "1-20", "verdict": "fail", "failed_at_least": 20},
        {"config": "every.json", "seeds": "1-20", "verdict": "fail", "failed_at_least": 10},
        {"config": "clean.json", "seeds": "1-4", "verdict": "pass", "check": true}
    ]);
    std::fs::write(fake.join("expected.json"), entries.to_string()).unwrap();
    let out = Command::new("bash")
        .arg(examples.join("regress.sh"))
        .env("SEEDFALL", &bin)
        .env("REGRESS_SEEDS_MAX", "4")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{text}");
    let verdicts: Vec<&str> =
        text.lines().filter_map(|l| l.split(": ").next()).filter(|l| l.contains(" fake ")).collect();
    assert_eq!(
        verdicts,
        [
            "FAIL fake unknown.json 1-4",
            "ok   fake unknown.json 1-4",
            "FAIL fake diverged.json 1-4",
            "ok   fake diverged.json 1-4",
            "FAIL fake every.json 1-4",
            "ok   fake every.json 1-4",
            "ok   fake clean.json 1-4",
        ],
        "{text}"
    );
    assert!(text.contains("2 seeds' linearizability unknown"), "{text}");
    assert!(text.contains("not deterministic: seeds [2]"), "{text}");
    assert!(text.contains("expected every seed that ran to fail"), "{text}");
    assert!(text.contains("regress: 3 of 7 entries did not match"), "{text}");

    // --ledger: every entry at its full range, one row each, appended under one header.
    let ledger = root.join("ledger.md");
    for _ in 0..2 {
        let out = Command::new("bash")
            .arg(examples.join("regress.sh"))
            .args(["--ledger", ledger.to_str().unwrap()])
            .env("SEEDFALL", &bin)
            .env_remove("REGRESS_SEEDS_MAX")
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    }
    let text = std::fs::read_to_string(&ledger).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| l.starts_with("| 20"))
        .map(|l| l.trim_matches('|').split(" | ").map(str::trim).collect())
        .collect();
    assert_eq!(text.matches("| date (UTC) |").count(), 1, "{text}");
    assert_eq!(rows.len(), 14, "{text}");
    // example, config, seeds, passed, failed, lin unknown, diverged, matched
    let cells: Vec<Vec<&str>> = rows[..7].iter().map(|r| r[4..12].to_vec()).collect();
    assert_eq!(cells[0], ["fake", "unknown.json", "1-4", "4", "0", "2", "-", "NO"], "{text}");
    assert_eq!(cells[2], ["fake", "diverged.json", "1-4", "2", "2", "0", "1", "NO"], "{text}");
    assert_eq!(cells[4][2], "1-20", "the full range: {text}");
    assert_eq!(cells[6][6..], ["0", "yes"], "{text}");
    let refused = Command::new("bash")
        .arg(examples.join("regress.sh"))
        .args(["--ledger", ledger.to_str().unwrap()])
        .env("SEEDFALL", &bin)
        .env("REGRESS_SEEDS_MAX", "4")
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
}
