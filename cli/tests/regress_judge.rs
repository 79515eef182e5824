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
