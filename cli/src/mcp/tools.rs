//! The tools of `seedfall mcp` (DESIGN.md §1's names and arguments): their
//! input and output schemas for `tools/list`, and each call, which runs the
//! library as the matching command does and answers a `CallToolResult`:
//! `structuredContent` the command's `--json` document (docs/json.md), a
//! short `content` text, or `isError: true` with the message when the
//! arguments, the config or the run are wrong. `readOnlyHint` marks the
//! tools that change no state: `seedfall_status`, `seedfall_findings`,
//! `seedfall_inspect`, `seedfall_verify`, and `seedfall_replay` (it writes
//! only the history timeline page of a `linearizable` config, a view of
//! the run and no input to any later command). `seedfall_run` records the
//! findings history, `seedfall_shrink` saves the schedule as `shrink` does,
//! `seedfall_cause` its failing futures and result.

use super::handles::{self, Handles};
use crate::cause::{CauseOptions, cause};
use crate::cause_stats;
use crate::cluster::{Cluster, LoadOptions};
use crate::replay::{ReplayOptions, replay};
use crate::schedule::Schedule;
use crate::shrink::{self, Budget, ShrinkOptions};
use crate::{config, finding_history, json_doc, schedule_edit, seeds, sweep, verify};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Trace lines `seedfall_replay` returns when `to_event` is not given.
const PAGE: usize = 200;

/// The tools: name, what it does, its arguments (name, JSON type, meaning),
/// those required, its result's fields (docs/json.md) and those always
/// there, and whether it is read-only.
struct Tool {
    name: &'static str,
    description: &'static str,
    arguments: &'static [(&'static str, &'static str, &'static str)],
    required: &'static [&'static str],
    fields: &'static [&'static str],
    always: &'static [&'static str],
    read_only: bool,
    run: fn(&Args, &Handles) -> Answer,
}

const CONFIG: (&str, &str, &str) =
    ("config", "string", "The config file (default ./seedfall.json; a directory means its seedfall.json).");
const SEED: (&str, &str, &str) = ("seed", "integer", "The seed.");
const JOBS: (&str, &str, &str) = ("jobs", "integer", "Worker threads (default: all cores).");

const RUN_FIELDS: &[&str] = &[
    "config",
    "seeds",
    "passed",
    "failed",
    "horizon",
    "errors",
    "diverged",
    "linearizability_unknown",
    "linearizable",
    "exit_code",
    "lowest_failing_seed",
    "failures",
    "trace_hashes",
    "trace_digest",
    "properties",
    "never_reached",
    "sometimes_never_true",
    "findings",
    "fail_on",
    "interrupted",
    "seedfall_version",
    "config_hash",
    "programs_hash",
    "seed_list",
    "check",
    "shard",
    "workers",
    "elapsed_ms",
    "totals",
];
const STATUS_FIELDS: &[&str] = &["handle", "state", "progress"];
const REPLAY_FIELDS: &[&str] = &[
    "seed",
    "verdict",
    "failures",
    "at",
    "steps",
    "real_ms",
    "trace_hash",
    "faults",
    "not_applied",
    "cut_short",
    "history_timeline",
    "differs",
    "trace",
    "trace_lines",
    "from_event",
    "to_event",
];
const SHRINK_FIELDS: &[&str] =
    &["seed", "failure", "before", "after", "runs", "elapsed_ms", "stopped_early", "interrupted", "faults", "schedule"];
const CAUSE_FIELDS: &[&str] =
    &["seed", "failure", "finding", "shared_prefix", "moments", "biggest_jump", "functions", "failing_futures"];
const VERIFY_FIELDS: &[&str] = &["seed", "faults", "duration", "verified", "exit_code", "not_applied", "run"];
const INSPECT_FIELDS: &[&str] = &["seed", "faults", "duration", "ops", "shrunk_from", "shrink_runs", "lines"];
const FINDINGS_FIELDS: &[&str] = &["config", "history", "findings"];

const TOOLS: &[Tool] = &[
    Tool {
        name: "seedfall_run",
        description: "Start a sweep of seeds of a config on background threads (as `seedfall run`); returns a handle at once. Poll seedfall_status with it.",
        arguments: &[CONFIG, ("seeds", "string", "Seeds: 7, 1-500, 1,5,9-12 (default 1-100)."), JOBS],
        required: &[],
        fields: &["handle", "config", "seed_list", "seeds_total"],
        always: &["handle", "config", "seed_list", "seeds_total"],
        read_only: false,
        run: start,
    },
    Tool {
        name: "seedfall_status",
        description: "A sweep's state (running or done) and progress; when done, its summary (the `run --json` fields: lowest_failing_seed, failures, findings, …).",
        arguments: &[("handle", "string", "The handle seedfall_run returned.")],
        required: &["handle"],
        fields: &[],
        always: STATUS_FIELDS,
        read_only: true,
        run: status,
    },
    Tool {
        name: "seedfall_findings",
        description: "The config's findings history (.seedfall/[X.]findings.json): every finding ever seen with its status (new, ongoing, regressed, resolved, unseen) and a row per sweep.",
        arguments: &[CONFIG],
        required: &[],
        fields: FINDINGS_FIELDS,
        always: FINDINGS_FIELDS,
        read_only: true,
        run: |a, _| findings(a),
    },
    Tool {
        name: "seedfall_replay",
        description: "Replay one seed (or a saved schedule, exactly): the verdict and the trace, paged by line index (from_event inclusive, to_event exclusive; 200 lines by default).",
        arguments: &[
            CONFIG,
            SEED,
            ("faults", "string", "Replay exactly this schedule file (from seedfall_shrink or seedfall_cause)."),
            ("from_event", "integer", "First trace line to return (default 0)."),
            ("to_event", "integer", "Trace line to stop before (default from_event + 200)."),
        ],
        required: &["seed"],
        fields: REPLAY_FIELDS,
        always: REPLAY_FIELDS,
        read_only: true,
        run: |a, _| replayed(a),
    },
    Tool {
        name: "seedfall_shrink",
        description: "Cut a failing seed's fault schedule down to the faults that matter; saves it as .seedfall/[X.]seed-N.faults.json (the result's `schedule`).",
        arguments: &[
            CONFIG,
            SEED,
            ("budget", "string", "Runs (300) or wall time (10m) to spend at most (default: no limit)."),
            JOBS,
        ],
        required: &["seed"],
        fields: SHRINK_FIELDS,
        always: SHRINK_FIELDS,
        read_only: false,
        run: |a, _| shrunk(a),
    },
    Tool {
        name: "seedfall_cause",
        description: "What made a failing seed fail: P(fail) over its moments from alternate futures, the biggest jump, and the functions that ran more in failing futures.",
        arguments: &[
            CONFIG,
            SEED,
            ("faults", "string", "Explain this schedule file instead of the seed's own faults."),
            ("futures", "integer", "Alternate futures per moment (default 20)."),
            ("moments", "integer", "Moments to branch from (default 20)."),
            JOBS,
        ],
        required: &["seed"],
        fields: CAUSE_FIELDS,
        always: CAUSE_FIELDS,
        read_only: false,
        run: |a, _| caused(a),
    },
    Tool {
        name: "seedfall_verify",
        description: "Replay a schedule over the config's full duration: verified is true exactly when it passes and every fault fired (proof of a fix for that schedule).",
        arguments: &[
            CONFIG,
            ("faults", "string", "The schedule file (from seedfall_shrink)."),
            ("seed", "integer", "The seed (default: the schedule's)."),
        ],
        required: &["faults"],
        fields: VERIFY_FIELDS,
        always: VERIFY_FIELDS,
        read_only: true,
        run: |a, _| verified(a),
    },
    Tool {
        name: "seedfall_inspect",
        description: "A schedule file's fields, each fault with its readable line.",
        arguments: &[("faults", "string", "The schedule file.")],
        required: &["faults"],
        fields: INSPECT_FIELDS,
        always: &["faults", "lines"],
        read_only: true,
        run: |a, _| inspected(a),
    },
];

/// `tools/list`'s tools.
pub fn list() -> Vec<Value> {
    TOOLS
        .iter()
        .map(|tool| {
            let mut properties = Map::new();
            for (name, kind, description) in tool.arguments {
                properties.insert(name.to_string(), json!({"type": kind, "description": description}));
            }
            let mut fields = Map::new();
            for name in tool.fields.iter().chain(if tool.name == "seedfall_status" { RUN_FIELDS } else { &[] }) {
                fields.insert(name.to_string(), json!({}));
            }
            for name in tool.always {
                fields.entry(name.to_string()).or_insert(json!({}));
            }
            json!({
                "name": tool.name,
                "title": tool.name,
                "description": tool.description,
                "inputSchema": {
                    "type": "object",
                    "properties": properties,
                    "required": tool.required,
                    "additionalProperties": false,
                },
                "outputSchema": {"type": "object", "properties": fields, "required": tool.always},
                "annotations": {
                    "readOnlyHint": tool.read_only,
                    "destructiveHint": false,
                    "idempotentHint": tool.read_only,
                    "openWorldHint": false,
                },
            })
        })
        .collect()
}

/// The message for a `name` that is no tool of ours (None: it is one).
pub fn unknown(name: &str) -> Option<String> {
    (!TOOLS.iter().any(|t| t.name == name)).then(|| {
        format!("unknown tool {name:?}; the tools: {}", TOOLS.iter().map(|t| t.name).collect::<Vec<_>>().join(", "))
    })
}

/// Runs tool `name`: its `CallToolResult`.
pub fn call(name: &str, arguments: &Value, handles: &Handles) -> Value {
    let result = match TOOLS.iter().find(|t| t.name == name) {
        None => Err(unknown(name).unwrap_or_default()),
        Some(tool) => Args::check(tool, arguments).and_then(|args| (tool.run)(&args, handles)),
    };
    match result {
        Ok((doc, text)) => {
            json!({"content": [{"type": "text", "text": text}], "structuredContent": doc, "isError": false})
        }
        Err(message) => error(name, &message),
    }
}

/// A tool error: `isError` with `message`, logged to stderr too.
pub fn error(name: &str, message: &str) -> Value {
    eprintln!("seedfall mcp: {name}: {message}");
    json!({"content": [{"type": "text", "text": message}], "isError": true})
}

/// A call's arguments, checked against the tool's.
struct Args<'a>(&'a Map<String, Value>);

impl<'a> Args<'a> {
    fn check(tool: &Tool, arguments: &'a Value) -> Result<Args<'a>, String> {
        let Some(map) = arguments.as_object() else {
            return Err(format!("{}: the arguments must be an object, not {arguments}", tool.name));
        };
        for (name, value) in map {
            let Some((_, kind, _)) = tool.arguments.iter().find(|(n, _, _)| n == name) else {
                let known: Vec<&str> = tool.arguments.iter().map(|(n, _, _)| *n).collect();
                return Err(format!("{}: unknown argument {name:?} (it takes {})", tool.name, known.join(", ")));
            };
            let fits = match *kind {
                "integer" => value.as_u64().is_some(),
                _ => value.is_string() || (name == "budget" && value.as_u64().is_some()),
            };
            if !fits && !value.is_null() {
                return Err(format!(
                    "{}: argument {name:?} must be a {kind} (a non-negative one), not {value}",
                    tool.name
                ));
            }
        }
        if let Some(missing) = tool.required.iter().find(|r| map.get(**r).is_none_or(Value::is_null)) {
            return Err(format!("{}: argument {missing:?} is required", tool.name));
        }
        Ok(Args(map))
    }

    fn text(&self, name: &str) -> Option<String> {
        match self.0.get(name)? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }

    fn number(&self, name: &str) -> Option<u64> {
        self.0.get(name).and_then(Value::as_u64)
    }

    fn path(&self, name: &str) -> Option<PathBuf> {
        self.text(name).map(PathBuf::from)
    }

    /// The config's path (`config`, else ./seedfall.json), which must exist.
    fn config(&self) -> Result<PathBuf, String> {
        let path = config::config_path(self.path("config").as_deref());
        if !path.is_file() {
            return Err(format!("no config file at {}", path.display()));
        }
        Ok(path)
    }

    fn seed(&self) -> u64 {
        self.number("seed").expect("checked as required")
    }

    fn schedule(&self) -> Result<Option<(PathBuf, Schedule)>, String> {
        let Some(path) = self.path("faults") else { return Ok(None) };
        Ok(Some((path.clone(), Schedule::load(&path)?)))
    }

    fn jobs(&self) -> usize {
        sweep::workers(self.number("jobs").map(|j| j.max(1) as usize))
    }
}

/// Loads the config and prepares its cluster (building what is not cached).
fn setup(path: &Path, options: LoadOptions) -> Result<Cluster, String> {
    let config = config::load(path).map_err(|e| e.to_string())?;
    Cluster::prepare_with(config, path, &config::state_dir(path), options).map_err(|e| e.to_string())
}

type Answer = Result<(Value, String), String>;

fn start(args: &Args, handles: &Handles) -> Answer {
    let path = args.config()?;
    // A config error is the caller's now, not a sweep that fails later.
    config::load(&path).map_err(|e| e.to_string())?;
    let seed_list = args.text("seeds").unwrap_or_else(|| "1-100".to_string());
    let seeds = seeds::parse_seeds(&seed_list).map_err(|e| format!("seeds: {e}"))?;
    let count = seeds.len();
    let handle = handles.start(path.clone(), seeds, seed_list.clone(), args.jobs());
    let text = format!("started {handle}: {count} seeds of {}; poll seedfall_status", path.display());
    let doc =
        json!({"handle": handle, "config": path.display().to_string(), "seed_list": seed_list, "seeds_total": count});
    Ok((doc, text))
}

fn status(args: &Args, handles: &Handles) -> Answer {
    let handle = args.text("handle").expect("checked as required");
    let Some(sweep) = handles.get(&handle) else {
        return Err(format!("no sweep has handle {handle:?} (seedfall_run returns one)"));
    };
    let sweep = sweep.lock().unwrap_or_else(|e| e.into_inner());
    handles::status(&handle, &sweep)
}

fn findings(args: &Args) -> Answer {
    let path = args.config()?;
    let history = finding_history::path(&path);
    let records = finding_history::load(&history)?;
    let listed: Vec<Value> = records
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "status": r.status.name(),
                "class": r.class,
                "node": r.node,
                "message": r.message,
                "signature": r.signature,
                "seeds_to_resolve": r.seeds_to_resolve(),
                "history": r.json(),
            })
        })
        .collect();
    let mut text = format!("{} findings in {}", records.len(), history.display());
    for r in &records {
        text += &format!("\n  {:<10} {:<10} {}", r.id, r.status.name(), r.message);
    }
    let doc =
        json!({"config": path.display().to_string(), "history": history.display().to_string(), "findings": listed});
    Ok((doc, text))
}

fn replayed(args: &Args) -> Answer {
    let path = args.config()?;
    let schedule = args.schedule()?.map(|(_, s)| s);
    let cluster = setup(&path, LoadOptions::default())?;
    let options = ReplayOptions { seed: args.seed(), schedule, save_trace: None, against: None };
    let mut trace = Vec::new();
    let replayed = replay(&cluster, &path, options, &mut trace).map_err(|e| e.to_string())?;
    let trace = String::from_utf8_lossy(&trace);
    let lines: Vec<&str> = trace.lines().collect();
    let from = (args.number("from_event").unwrap_or(0) as usize).min(lines.len());
    let to = args.number("to_event").map_or(from + PAGE, |t| t as usize).clamp(from, lines.len());
    let mut doc = replayed.doc;
    doc["trace"] = json!(lines[from..to]);
    doc["trace_lines"] = json!(lines.len());
    doc["from_event"] = json!(from);
    doc["to_event"] = json!(to);
    let verdict = lines.iter().find(|l| l.starts_with("FAIL seed ") || l.starts_with("PASS seed ")).unwrap_or(&"");
    Ok((doc, format!("{verdict}\ntrace lines {from}..{to} of {}", lines.len())))
}

fn shrunk(args: &Args) -> Answer {
    let path = args.config()?;
    let budget = args.text("budget").map(|b| Budget::parse(&b)).transpose()?.unwrap_or(Budget::Unlimited);
    let cluster = setup(&path, LoadOptions::default())?;
    let failing = shrink::failing(&cluster, args.seed())?;
    let options = ShrinkOptions { workers: args.jobs(), budget };
    let shrunk = shrink::shrink(&cluster, &failing, &options, Arc::new(AtomicBool::new(false)), |_| {})?;
    let file = config::schedule_path(&path, args.seed());
    shrunk.schedule().save(&file)?;
    let doc = json_doc::shrunk(&shrunk, &failing.failure, &file);
    Ok((doc, format!("{}saved {}", shrunk.report(), file.display())))
}

fn caused(args: &Args) -> Answer {
    let path = args.config()?;
    let schedule = args.schedule()?;
    let cluster = setup(&path, LoadOptions { function_bitmap: true, ..LoadOptions::default() })?;
    let to_u32 = |name: &str, default: u32| args.number(name).map_or(default, |n| n.min(u32::MAX as u64) as u32);
    let options = CauseOptions {
        seed: args.seed(),
        schedule: schedule.as_ref().map(|(_, s)| s.clone()),
        futures: to_u32("futures", 20),
        moments: to_u32("moments", 20),
        jobs: args.jobs(),
        share_prefix: true,
    };
    let found = cause(&cluster, &options)?;
    let points = cause_stats::curve(&found);
    let jump = cause_stats::biggest_jump(&found, &points);
    let functions = cause_stats::functions(&found, &|node, index| {
        cluster.node_code(node)?.function_name(index as u32).map(str::to_string)
    });
    let folder = cause_stats::folder(&path, found.seed, schedule.as_ref().map(|(p, _)| p.as_path()));
    let saved = cause_stats::save_failing(&found, &folder)?;
    let doc = cause_stats::to_json(&found, &points, jump.as_ref(), &functions, &saved);
    cause_stats::save_result(&folder, &doc)?;
    let text = format!(
        "seed {}: fails as {}\n{}{}\n{} failing futures saved in {}",
        found.seed,
        found.failure,
        cause_stats::chart(&points),
        cause_stats::jump_line(jump.as_ref()),
        saved.len(),
        folder.display()
    );
    Ok((doc, text))
}

fn verified(args: &Args) -> Answer {
    let path = args.config()?;
    let (_, schedule) = args.schedule()?.expect("checked as required");
    let seed = args.number("seed").or(schedule.seed).ok_or("the schedule names no seed: pass seed")?;
    let cluster = setup(&path, LoadOptions::default())?;
    let verification = verify::verify(&cluster, &schedule, seed)?;
    Ok((json_doc::verification(&verification), verification.to_string()))
}

fn inspected(args: &Args) -> Answer {
    let (_, schedule) = args.schedule()?.expect("checked as required");
    Ok((json_doc::schedule(&schedule), schedule_edit::inspect(&schedule)))
}
