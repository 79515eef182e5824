//! examples/demo.sh finds the seedfall it built where cargo put it
//! (`cargo metadata`'s target_directory: CARGO_TARGET_DIR or a
//! .cargo/config), not at a hard-coded target/release/seedfall. Run on a
//! copy of the script with a stand-in `cargo` and `seedfall` that log what
//! they are asked, so the test takes milliseconds and builds nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

fn write_script(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    let mut permissions = std::fs::metadata(path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(path, permissions).unwrap();
}

fn scratch() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("demo-script");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_demo_runs_the_seedfall_in_cargos_target_directory() {
    let dir = scratch();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let copy = dir.join("checkout/examples/demo.sh");
    write_script(&copy, &std::fs::read_to_string(repo.join("examples/demo.sh")).unwrap());
    let elsewhere = dir.join("elsewhere-target");
    let log = dir.join("log");
    // A cargo that builds nothing and reports CARGO_TARGET_DIR, as the real one does.
    write_script(
        &dir.join("bin/cargo"),
        "#!/bin/sh\necho \"cargo $*\" >> \"$DEMO_LOG\"\n\
         [ \"$1\" = metadata ] && printf '{\"target_directory\": \"%s\", \"packages\": []}\\n' \"$CARGO_TARGET_DIR\"\nexit 0\n",
    );
    // A seedfall whose sweep finds seed 3 and exits 1, like the real one on kvlog.
    write_script(
        &elsewhere.join("release/seedfall"),
        "#!/bin/sh\necho \"seedfall $*\" >> \"$DEMO_LOG\"\n\
         while [ $# -gt 0 ]; do\n  if [ \"$1\" = --json ]; then echo '{\"lowest_failing_seed\": 3}' > \"$2\"; exit 1; fi\n  shift\ndone\nexit 0\n",
    );
    let path = format!("{}:{}", dir.join("bin").display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new("bash")
        .arg(&copy)
        .env("PATH", path)
        .env("CARGO_TARGET_DIR", &elsewhere)
        .env("DEMO_LOG", &log)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}{}", String::from_utf8_lossy(&out.stdout));
    let calls = std::fs::read_to_string(&log).unwrap();
    assert!(calls.contains("cargo metadata --format-version 1 --no-deps"), "{calls}");
    assert!(calls.contains("seedfall replay -c examples/kvlog/seedfall.json -seed 3"), "{calls}");
    assert!(calls.contains("seedfall run -c examples/kvlog/seedfall.fixed.json -seeds 1-100 -check"), "{calls}");
    assert!(elsewhere.join("demo-sweep.json").is_file(), "the sweep's JSON goes to the target directory too");
    assert!(!dir.join("checkout/target").exists(), "nothing under the checkout's own target/");
}
