//! The ready-made CI definitions: the GitHub Actions workflow
//! (ci/github/seedfall-sweep.yml) and the Kubernetes Indexed Job
//! (ci/k8s/*.yaml) pass their schemas offline (PyPI's check-jsonschema with
//! its built-in GitHub workflow schema, kubernetes-validate --strict; .ci/run
//! installs both), and their shell steps are run here as written, with
//! seedfall on PATH: the shards, the merge, the job summary and the cache key
//! inputs all work, for a passing config and for one with findings.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ci-manifests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn validator(program: &str, args: &[&str]) {
    let out =
        Command::new(program).args(args).current_dir(repo()).output().unwrap_or_else(|e| {
            panic!("{program}: {e} (pip install check-jsonschema kubernetes-validate; .ci/run does)")
        });
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{program} rejected the manifests:\n{text}");
}

/// Every YAML document of `file`, as JSON (PyYAML, which kubernetes-validate brings).
fn yaml_documents(file: &str) -> Vec<Value> {
    let script = "import json, sys, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))";
    let out = Command::new("python3").args(["-c", script]).arg(repo().join(file)).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Runs `script` with sh in `dir`, seedfall and bin/seedfall both this build.
fn sh(script: &str, dir: &Path, env: &[(&str, String)]) -> (Option<i32>, String) {
    let bin = Path::new(env!("CARGO_BIN_EXE_seedfall"));
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    let link = dir.join("bin/seedfall");
    if !link.exists() {
        std::os::unix::fs::symlink(bin, &link).unwrap();
    }
    let path = format!("{}:{}", bin.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new("sh")
        .args(["-c", script])
        .current_dir(dir)
        .env("PATH", path)
        .env("SEEDFALL_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache"))
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap();
    (out.status.code(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

fn kvlog(config: &str) -> String {
    repo().join("examples/kvlog").join(config).display().to_string()
}

fn step<'a>(job: &'a Value, uses_or_name: &str) -> &'a Value {
    job["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| {
            s["uses"].as_str().is_some_and(|u| u.starts_with(uses_or_name))
                || s["name"].as_str().is_some_and(|n| n.starts_with(uses_or_name))
        })
        .unwrap_or_else(|| panic!("no step {uses_or_name}"))
}

#[test]
fn the_manifests_pass_their_schemas() {
    validator("check-jsonschema", &["--builtin-schema", "vendor.github-workflows", "ci/github/seedfall-sweep.yml"]);
    validator("kubernetes-validate", &["--strict", "ci/k8s/sweep.yaml", "ci/k8s/merge.yaml"]);
}

#[test]
fn the_github_workflow_shards_caches_and_merges() {
    let workflow = &yaml_documents("ci/github/seedfall-sweep.yml")[0];
    let shards: u64 = workflow["env"]["SHARDS"].as_u64().unwrap();
    let (sweep, merge) = (&workflow["jobs"]["sweep"], &workflow["jobs"]["merge"]);
    let matrix: Vec<u64> =
        sweep["strategy"]["matrix"]["shard"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert_eq!(matrix, (0..shards).collect::<Vec<_>>(), "one matrix entry per shard");
    let key = step(sweep, "actions/cache")["with"]["key"].as_str().unwrap();
    for part in ["steps.versions.outputs.seedfall", "steps.versions.outputs.go", "hashFiles('**/go.sum')"] {
        assert!(key.contains(part), "cache key {key} lacks {part}");
    }
    assert_eq!(step(sweep, "actions/cache")["with"]["path"], ".seedfall-cache");
    assert_eq!(workflow["env"]["SEEDFALL_CACHE_DIR"], "${{ github.workspace }}/.seedfall-cache");
    assert!(step(merge, "actions/upload-artifact")["with"]["path"] == "merged.json");

    // The versions step, as written.
    let dir = scratch("github");
    let outputs = dir.join("outputs");
    let versions = step(sweep, "Versions")["run"].as_str().unwrap();
    let (code, out) = sh(versions, &dir, &[("GITHUB_OUTPUT", outputs.display().to_string())]);
    assert_eq!(code, Some(0), "{out}");
    let written = std::fs::read_to_string(&outputs).unwrap();
    assert!(written.contains(&format!("seedfall={}\n", env!("CARGO_PKG_VERSION"))), "{written}");
    assert!(written.contains("go=go1."), "{written}");

    // Each shard's step with its matrix value, then the merge step: the buggy store's findings come through.
    let sweep_step = step(sweep, "Sweep")["run"].as_str().unwrap();
    std::fs::create_dir_all(dir.join("shards")).unwrap();
    let env = [("CONFIG", kvlog("seedfall.json")), ("SEEDS", "1-6".to_string()), ("SHARDS", "3".to_string())];
    for shard in 0..3 {
        let script = sweep_step.replace("${{ matrix.shard }}", &shard.to_string());
        let (code, out) = sh(&script, &dir.join("shards"), &env);
        assert_eq!(code, Some(0), "a finding does not fail the shard job: {out}");
    }
    let summary = dir.join("summary.md");
    let merge_step = step(merge, "Merge")["run"].as_str().unwrap();
    let (code, out) = sh(merge_step, &dir, &[("GITHUB_STEP_SUMMARY", summary.display().to_string())]);
    assert_eq!(code, Some(1), "the merge job fails on a finding: {out}");
    assert!(out.contains("6 seeds in") && out.contains("lowest failing seed: 1"), "{out}");
    let summary = std::fs::read_to_string(&summary).unwrap();
    assert!(summary.starts_with("## seedfall sweep\n```\n") && summary.contains("lowest failing seed: 1"), "{summary}");
    assert!(dir.join("merged.json").exists());
}

#[test]
fn the_kubernetes_indexed_job_shards_by_completion_index_and_merges() {
    let sweep = yaml_documents("ci/k8s/sweep.yaml");
    let job = sweep.iter().find(|d| d["kind"] == "Job").unwrap();
    assert_eq!(job["spec"]["completionMode"], "Indexed");
    let completions = job["spec"]["completions"].as_u64().unwrap();
    let container = &job["spec"]["template"]["spec"]["containers"][0];
    let shards_env = container["env"].as_array().unwrap().iter().find(|e| e["name"] == "SHARDS").unwrap();
    assert_eq!(shards_env["value"], completions.to_string(), "SHARDS must equal completions");
    let merge = &yaml_documents("ci/k8s/merge.yaml")[0];
    let sweep_script = container["command"][2].as_str().unwrap();
    let merge_script = merge["spec"]["template"]["spec"]["containers"][0]["command"][2].as_str().unwrap();

    let results = scratch("k8s");
    let dir = scratch("k8s-pod");
    for index in 0..2 {
        let env = [
            ("CONFIG", kvlog("seedfall.fixed.json")),
            ("SEEDS", "1-5".into()),
            ("SHARDS", "2".into()),
            ("RESULTS", results.display().to_string()),
            ("JOB_COMPLETION_INDEX", index.to_string()),
        ];
        let (code, out) = sh(sweep_script, &dir, &env);
        assert_eq!(code, Some(0), "{out}");
    }
    let (code, out) = sh(merge_script, &dir, &[("RESULTS", results.display().to_string())]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("5 seeds in") && out.contains("5 passed, 0 failed"), "{out}");
    assert!(results.join("merged.json").exists());
}
