//! The ready-made CI definitions: the GitHub Action (action.yml), the GitHub
//! Actions workflow that uses it (ci/github/seedfall-sweep.yml) and the
//! Kubernetes Indexed Job (ci/k8s/*.yaml) pass their schemas offline (PyPI's
//! check-jsonschema with its built-in GitHub action and workflow schemas,
//! kubernetes-validate --strict; .ci/run installs both), and their shell
//! steps are run here as written, with this build of seedfall: the action's
//! sweep (its findings table in the job summary, its exit per `--fail-on`
//! across runs that keep the finding history), the workflow's shards and
//! merge through the action, the Kubernetes shards and merge, and the release
//! workflow's (ci/github/release.yml) targets and packaging.

use serde_json::Value;
use std::collections::BTreeMap;
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
        .env("SEEDFALL_CACHE_DIR", code_cache())
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

/// The compiled-code cache the tests share (`SEEDFALL_CACHE_DIR`).
fn code_cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("world-tests-cache")
}

/// Writes `dir/twobugs.json`: a service with two bugs, each failing a share
/// of seeds (tests/go/world/twobugs, as in tests/triage.rs).
fn twobugs(dir: &Path) {
    let pkg = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go/world/twobugs");
    let config = serde_json::json!({
        "nodes": [{"name": "svc", "pkg": pkg, "args": ["-a", "-b"]}],
        "workload": {"name": "client", "pkg": pkg, "args": ["-workload"]},
        "duration": "2s",
    });
    std::fs::write(dir.join("twobugs.json"), config.to_string()).unwrap();
}

/// A YAML scalar as the runner reads it (numbers and booleans as text).
fn scalar(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// `text` with each `${{ expression }}` replaced by `value(expression)`.
fn expand(text: &str, value: &dyn Fn(&str) -> String) -> String {
    let (mut out, mut rest) = (String::new(), text);
    while let Some(start) = rest.find("${{") {
        let end = start + rest[start..].find("}}").unwrap_or_else(|| panic!("unclosed ${{{{ in {text}"));
        out.push_str(&rest[..start]);
        out.push_str(&value(rest[start + 3..end].trim()));
        rest = &rest[end + 2..];
    }
    out + rest
}

/// A step's `$GITHUB_OUTPUT`: `name=value` lines and `name<<DELIMITER` blocks.
fn step_outputs(text: &str) -> BTreeMap<String, String> {
    let mut outputs = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let heredoc = line.find("<<").filter(|&at| line.find('=').is_none_or(|eq| at < eq));
        if let Some(at) = heredoc {
            let delimiter = &line[at + 2..];
            let value: Vec<&str> = lines.by_ref().take_while(|l| l != &delimiter).collect();
            outputs.insert(line[..at].to_string(), value.join("\n"));
        } else if let Some((name, value)) = line.split_once('=') {
            outputs.insert(name.to_string(), value.to_string());
        }
    }
    outputs
}

/// One job's run of the action.
struct ActionRun {
    /// The job's result: the exit code of its first failing step, else 0.
    code: i32,
    /// Each `uses:` step's `with:` by step name, its expressions evaluated
    /// with what the shell steps before it wrote.
    uses: BTreeMap<String, BTreeMap<String, String>>,
    /// `$GITHUB_STEP_SUMMARY`.
    summary: String,
    /// Every shell step's output.
    log: String,
}

impl ActionRun {
    fn with(&self, step: &str) -> &BTreeMap<String, String> {
        self.uses.get(step).unwrap_or_else(|| panic!("no uses: step {step}"))
    }

    /// The report.json the sweep wrote in `dir`.
    fn report(&self, dir: &Path) -> Value {
        let text = std::fs::read_to_string(dir.join("report.json")).unwrap_or_else(|e| panic!("{e}\n{}", self.log));
        serde_json::from_str(&text).unwrap()
    }

    /// The summary's findings table has one row per finding of `report`,
    /// each with `status`, its counts, lowest seed, message and replay command.
    fn has_table(&self, report: &Value, status: &str) {
        let summary = &self.summary;
        assert!(
            summary.contains("| finding | status | seeds failing/run | lowest seed | message | replay |\n|---|"),
            "{summary}"
        );
        let seeds = &report["summary"]["seeds"];
        let findings = report["findings"].as_array().unwrap();
        assert_eq!(summary.lines().filter(|l| l.starts_with("| `")).count(), findings.len(), "{summary}");
        for f in findings {
            let row = summary
                .lines()
                .find(|l| l.starts_with(&format!("| `{}` |", f["id"].as_str().unwrap())))
                .unwrap_or_else(|| panic!("no row for {}: {summary}", f["id"]));
            let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
            assert_eq!(cells[1], status, "{row}");
            assert_eq!(cells[2], format!("{}/{seeds}", f["count"]), "{row}");
            assert_eq!(cells[3], f["lowest_seed"].to_string(), "{row}");
            assert!(cells[4].contains(f["message"].as_str().unwrap()), "{row}");
            assert_eq!(cells[5], format!("`{}`", f["replay"].as_str().unwrap()), "{row}");
            assert!(cells[5].starts_with("`seedfall replay -c twobugs.json -seed "), "{row}");
        }
    }
}

/// Runs action.yml's steps for one job in `workspace` with `inputs` (the
/// rest their defaults), as a runner would: its shell steps as written, with
/// bash as GitHub runs `shell: bash`, `${{ … }}` evaluated, `$GITHUB_OUTPUT`
/// read back into `steps.ID.outputs`, `$GITHUB_PATH` added to later steps'
/// PATH, a failed step skipping the rest but `if: always()`. `uses:` steps
/// are GitHub's actions: their `with:` is evaluated and kept, not run; the
/// seedfall they would restore is this build, already in the tool's folder
/// under `temp` (so the install step finds it), and on no other PATH.
fn run_action(
    action: &Value,
    workspace: &Path,
    temp: &Path,
    given: &[(&str, String)],
    env: &[(&str, String)],
) -> ActionRun {
    let _ = std::fs::remove_dir_all(temp);
    std::fs::create_dir_all(temp.join("seedfall-bin/bin")).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_seedfall"), temp.join("seedfall-bin/bin/seedfall")).unwrap();
    let declared = action["inputs"].as_object().unwrap();
    let mut inputs: BTreeMap<String, String> =
        declared.iter().map(|(name, spec)| (name.clone(), scalar(&spec["default"]))).collect();
    for (name, value) in given {
        assert!(declared.contains_key(*name), "the action has no input {name}");
        inputs.insert(name.to_string(), value.clone());
    }
    let action_path = repo().canonicalize().unwrap();
    let (summary_file, path_file) = (temp.join("step-summary.md"), temp.join("path"));
    std::fs::write(&summary_file, "").unwrap();
    std::fs::write(&path_file, "").unwrap();
    let mut outputs: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut run = ActionRun { code: 0, uses: BTreeMap::new(), summary: String::new(), log: String::new() };
    for (index, step) in action["runs"]["steps"].as_array().unwrap().iter().enumerate() {
        let value = |expr: &str| -> String {
            if let Some(name) = expr.strip_prefix("inputs.") {
                return inputs.get(name).unwrap_or_else(|| panic!("no input {name}")).clone();
            }
            if let Some((id, name)) = expr.strip_prefix("steps.").and_then(|e| e.split_once(".outputs.")) {
                return outputs.get(id).and_then(|o| o.get(name)).cloned().unwrap_or_default();
            }
            match expr {
                "github.action_path" => action_path.display().to_string(),
                "github.workspace" => workspace.display().to_string(),
                "runner.temp" => temp.display().to_string(),
                "runner.os" => "Linux".into(),
                "runner.arch" => "X64".into(),
                "github.run_id" => "1000".into(),
                "github.run_attempt" => "1".into(),
                e if e.starts_with("hashFiles(") => "GOSUMHASH".into(),
                e => panic!("the test does not evaluate ${{{{ {e} }}}}"),
            }
        };
        let name = step["name"].as_str().unwrap().to_string();
        if let Some(with) = step["with"].as_object() {
            run.uses.insert(name.clone(), with.iter().map(|(k, v)| (k.clone(), expand(&scalar(v), &value))).collect());
        }
        let Some(script) = step["run"].as_str() else { continue };
        assert_eq!(step["shell"], "bash", "{name}");
        match step["if"].as_str() {
            None if run.code != 0 => continue,
            None | Some("always()") => {}
            Some(other) => panic!("step {name}: the test does not evaluate if: {other}"),
        }
        let file = temp.join(format!("step-{index}.sh"));
        std::fs::write(&file, expand(script, &value)).unwrap();
        let output_file = temp.join(format!("step-{index}.output"));
        std::fs::write(&output_file, "").unwrap();
        let added: Vec<String> = std::fs::read_to_string(&path_file).unwrap().lines().rev().map(String::from).collect();
        let path = added.into_iter().chain(std::env::var("PATH").ok()).collect::<Vec<_>>().join(":");
        let cwd = workspace.join(step["working-directory"].as_str().map_or(String::new(), |d| expand(d, &value)));
        let step_env: Vec<(String, String)> = step["env"]
            .as_object()
            .map(|e| e.iter().map(|(k, v)| (k.clone(), expand(&scalar(v), &value))).collect())
            .unwrap_or_default();
        let out = Command::new("bash")
            .args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&file)
            .current_dir(&cwd)
            .env("PATH", path)
            .env("SEEDFALL_CACHE_DIR", code_cache())
            .env("GITHUB_WORKSPACE", workspace)
            .env("GITHUB_ACTION_PATH", &action_path)
            .env("RUNNER_TEMP", temp)
            .env("GITHUB_OUTPUT", &output_file)
            .env("GITHUB_PATH", &path_file)
            .env("GITHUB_STEP_SUMMARY", &summary_file)
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .envs(step_env)
            .output()
            .unwrap();
        run.log += &format!(
            "--- {name} (exit {:?})\n{}{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if let Some(id) = step["id"].as_str() {
            outputs.insert(id.to_string(), step_outputs(&std::fs::read_to_string(&output_file).unwrap()));
        }
        if run.code == 0 && !out.status.success() {
            run.code = out.status.code().unwrap_or(-1);
        }
    }
    run.summary = std::fs::read_to_string(&summary_file).unwrap();
    std::fs::write(temp.join("log"), &run.log).unwrap();
    run
}

#[test]
fn the_manifests_pass_their_schemas() {
    validator("check-jsonschema", &["--builtin-schema", "vendor.github-workflows", "ci/github/seedfall-sweep.yml"]);
    validator("check-jsonschema", &["--builtin-schema", "vendor.github-workflows", "ci/github/release.yml"]);
    validator("check-jsonschema", &["--builtin-schema", "vendor.github-actions", "action.yml"]);
    validator("kubernetes-validate", &["--strict", "ci/k8s/sweep.yaml", "ci/k8s/merge.yaml"]);
}

/// Where the action's caches and artifacts come from, checked as written
/// (the runner's side of `uses:` steps is GitHub's, not run here).
fn the_action_caches_as_the_design_says(action: &Value) {
    let steps = &action["runs"];
    let install = step(steps, "Install seedfall")["run"].as_str().unwrap();
    assert!(install.contains(r#"cargo install --locked --path "${{ github.action_path }}/cli""#), "{install}");
    let code = step(steps, "Restore the compiled-code cache");
    assert_eq!(code["uses"], "actions/cache/restore@v4");
    let key = code["with"]["key"].as_str().unwrap();
    for part in ["steps.prep.outputs.seedfall", "steps.prep.outputs.go", "hashFiles('**/go.sum')"] {
        assert!(key.contains(part), "compiled-code cache key {key} lacks {part}");
    }
    let history = step(steps, "Restore the finding history");
    assert_eq!(history["if"], "inputs.shard == ''", "a shard keeps no history");
    let key = history["with"]["key"].as_str().unwrap();
    let prefix = history["with"]["restore-keys"].as_str().unwrap();
    assert!(key.starts_with(prefix) && key.contains("github.run_id"), "a new key each run, restored by prefix: {key}");
    let saved = step(steps, "Save the finding history");
    assert_eq!((&saved["with"]["path"], &saved["with"]["key"]), (&history["with"]["path"], &history["with"]["key"]));
    // Saved even when the sweep fails: the save steps run always(), before the verdict.
    for name in ["Save the compiled-code cache", "Save the finding history", "Save seedfall", "Upload the report"] {
        assert!(step(steps, name)["if"].as_str().unwrap().starts_with("always()"), "{name}");
    }
    let names: Vec<&str> = steps["steps"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names.last(), Some(&"Verdict"), "{names:?}");
}

#[test]
fn the_action_sweeps_writes_the_findings_table_and_fails_per_fail_on() {
    let action = &yaml_documents("action.yml")[0];
    the_action_caches_as_the_design_says(action);
    let dir = scratch("action-sweep");
    let workspace = dir.join("workspace");
    std::fs::create_dir_all(workspace.join("svc")).unwrap();
    twobugs(&workspace.join("svc"));
    let inputs = |fail_on: &str| {
        vec![
            ("config", "twobugs.json".to_string()),
            ("seeds", "1-12".into()),
            ("fail-on", fail_on.into()),
            ("working-directory", "svc".into()),
            ("jobs", "2".into()),
        ]
    };

    // First run: every finding new; `--fail-on regressed` passes.
    let run = run_action(action, &workspace, &dir.join("temp"), &inputs("regressed"), &[]);
    assert_eq!(run.code, 0, "regressed: new findings do not fail the job\n{}", run.log);
    let report = run.report(&workspace.join("svc"));
    let findings = report["findings"].as_array().unwrap();
    assert!(!findings.is_empty(), "twobugs fails in seeds 1-12: {}", run.log);
    assert!(run.summary.starts_with("## seedfall sweep\n"), "{}", run.summary);
    assert!(run.summary.contains("Exit 0: passed."), "{}", run.summary);
    run.has_table(&report, "new");
    let history = run.with("Save the finding history")["path"].clone();
    assert_eq!(history, workspace.join("svc/.seedfall/twobugs.findings.json").display().to_string());
    assert!(Path::new(&history).is_file(), "the cache saves the history seedfall wrote");
    // The code cache, and the user's cache key its entries are sealed with (issue 56).
    let key = seedfall_cache::user_dir().unwrap().join(seedfall_cache::KEY_FILE);
    let paths = format!("{}\n{}\n", code_cache().display(), key.display());
    assert_eq!(run.with("Restore the compiled-code cache")["path"], paths);
    assert!(
        run.with("Restore the compiled-code cache")["key"]
            .starts_with(&format!("seedfall-{}-go1.", env!("CARGO_PKG_VERSION"))),
        "{:?}",
        run.with("Restore the compiled-code cache")
    );
    let files = run.with("Upload the report")["path"].clone();
    assert_eq!(files.lines().count(), 2, "report.html and report.json: {files}");
    assert!(files.lines().all(|f| Path::new(f).is_file()), "{files}");

    // The history restored: the same findings are ongoing; `any` fails on them, `new` does not.
    let run = run_action(action, &workspace, &dir.join("temp"), &inputs("any"), &[]);
    assert_eq!(run.code, 1, "any: a failing seed fails the job\n{}", run.log);
    assert!(run.summary.contains("Exit 1: failed: findings per `--fail-on any`."), "{}", run.summary);
    run.has_table(&run.report(&workspace.join("svc")), "ongoing");
    let run = run_action(action, &workspace, &dir.join("temp"), &inputs("new"), &[]);
    assert_eq!(run.code, 0, "new: ongoing findings do not fail the job\n{}", run.log);

    // A bad input is an error (2), still with a summary.
    let run = run_action(action, &workspace, &dir.join("temp"), &[("mode", "sweep-all".into())], &[]);
    assert_eq!(run.code, 2, "{}", run.log);
    assert!(run.log.contains("mode is sweep or merge") && run.summary.contains("Exit 2: error"), "{}", run.log);
}

#[test]
fn the_github_workflow_runs_the_action_in_shards_and_merges() {
    let workflow = &yaml_documents("ci/github/seedfall-sweep.yml")[0];
    let action = &yaml_documents("action.yml")[0];
    let shards: u64 = workflow["env"]["SHARDS"].as_u64().unwrap();
    let (sweep, merge) = (&workflow["jobs"]["sweep"], &workflow["jobs"]["merge"]);
    let matrix: Vec<u64> =
        sweep["strategy"]["matrix"]["shard"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert_eq!(matrix, (0..shards).collect::<Vec<_>>(), "one matrix entry per shard");
    assert_eq!(workflow["env"]["SEEDFALL_CACHE_DIR"], "${{ github.workspace }}/.seedfall-cache");
    for job in [sweep, merge] {
        step(job, "actions/setup-go");
        step(job, "actions/checkout");
    }

    // Each job on its own runner (workspace) with the buggy service; 2 shards of 1-12.
    let dir = scratch("action-matrix");
    let env = |name: &str| match name {
        "CONFIG" => "twobugs.json".to_string(),
        "SEEDS" => "1-12".into(),
        "SHARDS" => "2".into(),
        other => panic!("the workflow's env.{other}"),
    };
    let with_of = |job: &Value, shard: u64| -> Vec<(String, String)> {
        let with = step(job, "./")["with"].as_object().unwrap();
        let value = |expr: &str| match expr {
            "matrix.shard" => shard.to_string(),
            e => env(e.strip_prefix("env.").unwrap_or_else(|| panic!("{e}"))),
        };
        with.iter().map(|(k, v)| (k.clone(), expand(&scalar(v), &value))).collect()
    };
    let mut shard_files = Vec::new();
    for shard in 0..2 {
        let workspace = dir.join(format!("sweep-{shard}"));
        std::fs::create_dir_all(&workspace).unwrap();
        twobugs(&workspace);
        let inputs = with_of(sweep, shard);
        let inputs: Vec<(&str, String)> = inputs.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
        let run = run_action(action, &workspace, &dir.join(format!("temp-{shard}")), &inputs, &[]);
        assert_eq!(run.code, 0, "a finding does not fail a shard's job\n{}", run.log);
        assert!(run.log.contains(&format!("findings in shard {shard}/2")), "{}", run.log);
        assert!(!workspace.join(".seedfall/twobugs.findings.json").exists(), "a shard keeps no history");
        assert!(run.summary.starts_with(&format!("## seedfall sweep, shard {shard}/2\n")), "{}", run.summary);
        let verdict = "Exit 1: findings, for the merge to judge per `--fail-on any`";
        assert!(run.summary.contains(verdict), "{}", run.summary);
        // Its artifact, as actions/upload-artifact names and fills it.
        let name = run.with("Upload the report")["name"].clone();
        assert_eq!(name, format!("seedfall-report-shard-{shard}"));
        for file in run.with("Upload the report")["path"].lines() {
            shard_files.push((name.clone(), PathBuf::from(file)));
        }
    }

    let workspace = dir.join("merge");
    std::fs::create_dir_all(&workspace).unwrap();
    twobugs(&workspace);
    // As actions/download-artifact puts them: one folder per artifact.
    for (name, file) in &shard_files {
        let into = workspace.join("seedfall-shards").join(name);
        std::fs::create_dir_all(&into).unwrap();
        std::fs::copy(file, into.join(file.file_name().unwrap())).unwrap();
    }
    let inputs = with_of(merge, 0);
    let inputs: Vec<(&str, String)> = inputs.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let run = run_action(action, &workspace, &dir.join("temp-merge"), &inputs, &[]);
    let download = run.with("Download the shards");
    assert_eq!(download["path"], workspace.join("seedfall-shards").display().to_string());
    assert!(shard_files.iter().all(|(name, _)| name.starts_with(download["pattern"].trim_end_matches('*'))));
    assert_eq!(run.code, 1, "the merge fails on a finding (fail-on any)\n{}", run.log);
    assert!(run.log.contains("seedfall report merge seedfall-shards/"), "{}", run.log);
    assert!(run.log.contains("12 seeds in"), "{}", run.log);
    assert!(workspace.join(".seedfall/twobugs.findings.json").is_file(), "the merge records the history");
    let report = run.report(&workspace);
    assert_eq!(report["summary"]["seeds"], 12);
    run.has_table(&report, "new");
    assert!(run.summary.contains("Exit 1: failed: findings per `--fail-on any`."), "{}", run.summary);
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

/// The release workflow builds the five targets on a tag, each on a runner of
/// its own system after the spec suite passed there, and its packaging step
/// (run here as written, for Linux) makes the archive and its checksum.
#[test]
fn the_release_workflow_builds_the_five_targets_and_packages_each() {
    let workflow = &yaml_documents("ci/github/release.yml")[0];
    // YAML 1.1 (PyYAML) reads the key `on` as the boolean true.
    assert_eq!(workflow["true"]["push"]["tags"], serde_json::json!(["v*"]));
    let build = &workflow["jobs"]["build"];
    let targets: Vec<&Value> = build["strategy"]["matrix"]["include"].as_array().unwrap().iter().collect();
    let names: Vec<String> = targets.iter().map(|t| scalar(&t["target"])).collect();
    assert_eq!(
        names,
        [
            "x86_64-unknown-linux-gnu",
            "aarch64-unknown-linux-gnu",
            "x86_64-apple-darwin",
            "aarch64-apple-darwin",
            "x86_64-pc-windows-gnu"
        ]
    );
    let step_names: Vec<String> = build["steps"].as_array().unwrap().iter().map(|s| scalar(&s["name"])).collect();
    let position = |name: &str| step_names.iter().position(|n| n.starts_with(name)).unwrap();
    assert!(position("Spec suite") < position("Build"), "{step_names:?}");
    assert!(scalar(&step(build, "Spec suite")["run"]).contains("--test spec --target ${{ matrix.target }}"));

    let linux = targets[0];
    let dir = scratch("release-package");
    let release = dir.join("target/x86_64-unknown-linux-gnu/release");
    std::fs::create_dir_all(&release).unwrap();
    std::fs::write(release.join("seedfall"), "the binary").unwrap();
    std::fs::write(dir.join("README.md"), "readme").unwrap();
    std::fs::write(dir.join("LICENSE"), "license").unwrap();
    let script = expand(&scalar(&step(build, "Package")["run"]), &|e| scalar(&linux[e.trim_start_matches("matrix.")]));
    let (code, log) = sh(
        &script,
        &dir,
        &[("GITHUB_REF_NAME", "v1.2.3".into()), ("GITHUB_OUTPUT", dir.join("out").display().to_string())],
    );
    assert_eq!(code, Some(0), "{log}");
    let file = "dist/seedfall-v1.2.3-x86_64-unknown-linux-gnu.tar.gz";
    assert_eq!(step_outputs(&std::fs::read_to_string(dir.join("out")).unwrap())["file"], file);
    let listing = Command::new("tar").args(["tzf", file]).current_dir(&dir).output().unwrap();
    let listing = String::from_utf8_lossy(&listing.stdout);
    for member in ["seedfall", "README.md", "LICENSE"] {
        assert!(listing.contains(&format!("seedfall-v1.2.3-x86_64-unknown-linux-gnu/{member}")), "{listing}");
    }
    let sum = std::fs::read_to_string(dir.join(format!("{file}.sha256"))).unwrap();
    assert!(sum.ends_with("seedfall-v1.2.3-x86_64-unknown-linux-gnu.tar.gz\n"), "{sum}");
}
