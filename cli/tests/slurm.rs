//! The Slurm recipe (ci/slurm/) on a real Slurm: a one-machine cluster from
//! Debian's slurm-wlm and munge (ci/slurm/local-cluster.sh: munged, slurmctld
//! and slurmd as background daemons, no cgroups, no systemd), a sharded kvlog
//! sweep submitted with ci/slurm/submit.sh (an array job, one task per shard,
//! then the merge as a job depending on it), and the merged summary checked
//! against an unsharded `seedfall run` of the same seeds: the same counts,
//! failures, property table and `trace_digest`. A shard's finding does not
//! fail its task; an error does, and the merge is then cancelled.
//!
//! Slurm and munge must be installed (`apt-get install slurm-wlm munge`;
//! `.ci/run` does) and the test run as root (the cluster's SlurmUser): without
//! them it fails, it does not skip.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

#[path = "support/sweep_compare.rs"]
mod sweep_compare;
use sweep_compare::{comparable, comparable_json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").canonicalize().unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The compiled-code cache the tests share (`SEEDFALL_CACHE_DIR`).
fn code_cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache")
}

fn text(out: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Whether `tool` is on PATH (or in the sbin folders Debian puts daemons in).
fn installed(tool: &str) -> bool {
    let path = std::env::var("PATH").unwrap_or_default();
    path.split(':').chain(["/usr/sbin", "/sbin"]).any(|dir| Path::new(dir).join(tool).is_file())
}

/// Fails, naming what to install, unless Slurm and munge are here and we are root.
fn require_slurm() {
    let missing: Vec<&str> = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo", "scancel"]
        .into_iter()
        .filter(|tool| !installed(tool))
        .collect();
    assert!(
        missing.is_empty(),
        "Slurm and munge are required for this test, missing: {}; install them with \
         `apt-get install slurm-wlm munge` (.ci/run does)",
        missing.join(", ")
    );
    let uid = Command::new("id").arg("-u").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&uid.stdout).trim(),
        "0",
        "the one-machine Slurm runs as root (SlurmUser=root): run this test as root"
    );
}

/// The one-machine cluster, stopped on drop (a failing test included), its
/// daemons' logs and the jobs' output printed first when the test failed.
struct Cluster {
    dir: PathBuf,
    /// Where the jobs write their output, printed on failure.
    runs: Vec<PathBuf>,
}

impl Cluster {
    fn start() -> Cluster {
        require_slurm();
        // Unix socket paths are short (munge's and slurmd's live under DIR).
        let mut dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("slurm-cluster");
        if dir.as_os_str().len() > 60 {
            dir = std::env::temp_dir().join(format!("seedfall-slurm-{}", std::process::id()));
        }
        std::fs::create_dir_all(&dir).unwrap();
        // Dropped, it stops whatever an earlier, killed run left in DIR too (start resets DIR).
        let cluster = Cluster { dir, runs: Vec::new() };
        // A port of this process's own, away from a system Slurm's and another run's.
        let port = 17000 + (std::process::id() % 1000) * 2;
        let out = Command::new("bash")
            .arg(repo().join("ci/slurm/local-cluster.sh"))
            .arg("start")
            .arg(&cluster.dir)
            .env("SEEDFALL_SLURM_PORT", port.to_string())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "local-cluster.sh start failed:\n{}", text(&out));
        assert!(text(&out).contains("export SLURM_CONF="), "{}", text(&out));
        cluster
    }

    fn conf(&self) -> PathBuf {
        self.dir.join("slurm.conf")
    }

    /// A Slurm client command against this cluster; its stdout, asserted to succeed.
    fn client(&self, program: &str, args: &[&str]) -> String {
        let out = Command::new(program).args(args).env("SLURM_CONF", self.conf()).output().unwrap();
        assert!(out.status.success(), "{program} {args:?}: {}", text(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Submits through ci/slurm/submit.sh from `dir` with this build of
    /// seedfall; returns the sweep's and the merge's job ids.
    fn submit(&mut self, dir: &Path, config: &str, seeds: &str, shards: u32) -> (String, String) {
        let results = dir.join("results");
        self.runs.push(results.clone());
        let out = Command::new("bash")
            .arg(repo().join("ci/slurm/submit.sh"))
            .args([config, seeds, &shards.to_string()])
            .arg(&results)
            .current_dir(dir)
            .env("SLURM_CONF", self.conf())
            .env("SEEDFALL", env!("CARGO_BIN_EXE_seedfall"))
            .env("SEEDFALL_CACHE_DIR", code_cache())
            .output()
            .unwrap();
        assert!(out.status.success(), "submit.sh: {}", text(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let id = |name: &str| {
            stdout
                .lines()
                .find_map(|l| l.strip_prefix(&format!("{name}=")))
                .unwrap_or_else(|| panic!("submit.sh printed no {name}=: {}", text(&out)))
                .to_string()
        };
        (id("sweep_job"), id("merge_job"))
    }

    /// Waits until the cluster has no pending or running job.
    fn wait_idle(&self, timeout: Duration) {
        let start = Instant::now();
        loop {
            let queue = self.client("squeue", &["--noheader", "--format=%i %T %r"]);
            if queue.trim().is_empty() {
                return;
            }
            assert!(start.elapsed() < timeout, "jobs still queued after {timeout:?}:\n{queue}");
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// (array task id or "", JobState, ExitCode, Reason) of each job `id` stands for.
    fn states(&self, id: &str) -> Vec<(String, String, String, String)> {
        let shown = self.client("scontrol", &["--oneliner", "show", "job", id]);
        let field = |line: &str, name: &str| {
            line.split_whitespace().find_map(|f| f.strip_prefix(&format!("{name}="))).unwrap_or_default().to_string()
        };
        let mut states: Vec<_> = shown
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| (field(l, "ArrayTaskId"), field(l, "JobState"), field(l, "ExitCode"), field(l, "Reason")))
            .collect();
        states.sort();
        states
    }

    fn tail(&self, file: &Path) {
        if let Ok(content) = std::fs::read_to_string(file) {
            let lines: Vec<&str> = content.lines().collect();
            eprintln!("--- {}", file.display());
            for line in &lines[lines.len().saturating_sub(60)..] {
                eprintln!("{line}");
            }
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if std::thread::panicking() {
            for log in ["slurmctld.log", "slurmd.log", "munged.log"] {
                self.tail(&self.dir.join(log));
            }
            for dir in &self.runs {
                for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                    if entry.path().extension().is_some_and(|e| e == "out") {
                        self.tail(&entry.path());
                    }
                }
            }
        }
        let out = Command::new("bash")
            .arg(repo().join("ci/slurm/local-cluster.sh"))
            .arg("stop")
            .arg(&self.dir)
            .stdin(std::process::Stdio::null())
            .output();
        match out {
            Ok(out) if out.status.success() => {}
            Ok(out) => eprintln!("local-cluster.sh stop failed: {}", text(&out)),
            Err(e) => eprintln!("local-cluster.sh stop: {e}"),
        }
    }
}

#[test]
fn the_slurm_scripts_parse() {
    for script in ["local-cluster.sh", "submit.sh", "sweep.sbatch", "merge.sbatch"] {
        let out = Command::new("bash").arg("-n").arg(repo().join("ci/slurm").join(script)).output().unwrap();
        assert!(out.status.success(), "bash -n ci/slurm/{script}: {}", text(&out));
    }
}

#[test]
fn a_slurm_array_job_and_its_merge_report_what_one_sweep_does() {
    let started = Instant::now();
    let mut cluster = Cluster::start();
    eprintln!("cluster up in {:?}", started.elapsed());
    let config = repo().join("examples/kvlog/seedfall.json").display().to_string();
    let (seeds, shards) = ("1-40", 4);

    // The unsharded sweep (it also fills the compiled-code cache the jobs share).
    let dir = scratch("slurm-sweep");
    let whole = dir.join("whole.json");
    let out = Command::new(env!("CARGO_BIN_EXE_seedfall"))
        .args(["run", "-c", &config, "-seeds", seeds, "--json"])
        .arg(&whole)
        .env("SEEDFALL_CACHE_DIR", code_cache())
        .output()
        .unwrap();
    let whole_out = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "the buggy store fails some seeds: {}", text(&out));

    let (sweep, merge) = cluster.submit(&dir, &config, seeds, shards);
    cluster.wait_idle(Duration::from_secs(600));
    eprintln!("sweep job {sweep} and merge job {merge} done at {:?}", started.elapsed());

    // Every shard found failures (exit 1) and still completed: the merge judges them.
    let tasks = cluster.states(&sweep);
    let expected: Vec<_> =
        (0..shards).map(|i| (i.to_string(), "COMPLETED".to_string(), "0:0".to_string(), "None".to_string())).collect();
    assert_eq!(tasks, expected, "one completed task per shard");
    let results = dir.join("results");
    for i in 0..shards {
        let shard: Value =
            serde_json::from_slice(&std::fs::read(results.join(format!("shard-{i}.json"))).unwrap()).unwrap();
        assert_eq!(shard["exit_code"], 1, "shard {i} found failures");
    }
    // The merge ran after them and exits as the sweep did: 1, a finding.
    let merged_state = cluster.states(&merge);
    assert_eq!(merged_state.len(), 1, "{merged_state:?}");
    assert_eq!((merged_state[0].1.as_str(), merged_state[0].2.as_str()), ("FAILED", "1:0"), "{merged_state:?}");

    let merge_out = std::fs::read_to_string(results.join(format!("merge-{merge}.out"))).unwrap();
    assert_eq!(comparable(&merge_out), comparable(&whole_out), "merged:\n{merge_out}\nwhole:\n{whole_out}");
    assert!(merge_out.contains("40 seeds in") && merge_out.contains("lowest failing seed: 1"), "{merge_out}");
    let (whole_doc, merged_doc) = (comparable_json(&whole), comparable_json(&results.join("merged.json")));
    for key in ["seeds", "passed", "failed", "horizon", "lowest_failing_seed", "trace_digest"] {
        assert_eq!(whole_doc[key], merged_doc[key], "{key}");
    }
    assert_eq!(whole_doc["seeds"], 40);
    assert_eq!(whole_doc, merged_doc);
    for report in ["report.html", "report.json"] {
        assert!(results.join(report).is_file(), "the merge wrote {report}");
    }

    // An error (exit 2: here a config seedfall rejects) fails its tasks, and
    // the merge, whose dependency can no longer be met, is cancelled.
    let bad_dir = scratch("slurm-error");
    let bad = bad_dir.join("bad.json");
    std::fs::write(&bad, r#"{"nodes": [], "workload": {"name": "w", "pkg": "./w"}, "durration": "1s"}"#).unwrap();
    let (sweep, merge) = cluster.submit(&bad_dir, bad.to_str().unwrap(), "1-4", 2);
    cluster.wait_idle(Duration::from_secs(120));
    let tasks = cluster.states(&sweep);
    assert_eq!(tasks.len(), 2, "{tasks:?}");
    assert!(tasks.iter().all(|t| t.1 == "FAILED" && t.2 == "2:0"), "an error fails its task: {tasks:?}");
    let merged_state = cluster.states(&merge);
    assert_eq!(merged_state.len(), 1, "{merged_state:?}");
    assert_eq!(merged_state[0].1, "CANCELLED", "{merged_state:?}");
    assert_eq!(merged_state[0].3, "DependencyNeverSatisfied", "{merged_state:?}");
    assert!(!bad_dir.join("results/merged.json").exists());
    eprintln!("done in {:?}", started.elapsed());
}
