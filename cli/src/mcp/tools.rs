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
//! `seedfall_cause` its failing futures and result. The long tools
//! (`seedfall_run`, `seedfall_shrink`, `seedfall_cause`) stop at a clean
//! point when the call's stop flag is set, report progress (`progress`),
//! and may run as MCP tasks (`tasks`).

use super::args::{Args, Spec, without_contents};
use super::error::McpError;
use super::handles::{self, Handles};
use super::paths::Paths;
use super::progress::Progress;
use crate::cause::{CauseOptions, cause_watched};
use crate::cause_stats;
use crate::cluster::{Cluster, LoadOptions};
use crate::replay::{ReplayOptions, replay};
use crate::shrink::{self, Budget, ShrinkOptions};
use crate::watch::Watch;
use crate::{config, finding_history, json_doc, schedule_edit, verify};
use serde_json::{Map, Value, json};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// What a tool call runs with besides its arguments.
pub struct Ctx {
    pub handles: Arc<Handles>,
    pub paths: Arc<Paths>,
    /// Set when the call is cancelled or input ends: the long tools stop at a clean point.
    pub stop: Arc<AtomicBool>,
    pub progress: Progress,
}

/// Trace lines `seedfall_replay` returns when `to_event` is not given.
const PAGE: usize = 200;

/// The tools: name, what it does, its arguments (name, JSON type, meaning),
/// those required, its result's fields (docs/json.md) and those always
/// there, and whether it is read-only.
struct Tool {
    name: &'static str,
    description: &'static str,
    arguments: &'static [Spec],
    required: &'static [&'static str],
    fields: &'static [&'static str],
    always: &'static [&'static str],
    read_only: bool,
    /// It may run as an MCP task (`execution.taskSupport` "optional").
    task: bool,
    run: fn(&Args, &Ctx) -> Answer,
}

const CONFIG: Spec =
    ("config", "string", "The config file (default ./seedfall.json; a directory means its seedfall.json).");
const SEED: Spec = ("seed", "integer", "The seed.");
const JOBS: Spec = ("jobs", "integer", "Worker threads (default and most: this machine's cores).");
const OFFSET: Spec = ("offset", "integer", "First seed of per-seed detail to return (default 0).");
const LIMIT: Spec = (
    "limit",
    "integer",
    "Seeds of per-seed detail (failures, errors, trace_hashes) to return, at most 100 (default 0: the summary only).",
);

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
const STATUS_FIELDS: &[&str] = &["handle", "state", "config", "seed_list", "seeds_total", "progress"];
/// What a status adds to the `run` document.
const PAGE_FIELDS: &[&str] = &["lowest_failing_seeds", "page"];
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
        description: "Sweep seeds of a config (as `seedfall run`, at most 100000 seeds) and return the summary when it finishes: counts, findings, lowest failing seeds; page per-seed detail with offset and limit (here or with seedfall_status and the handle). With background true it returns a handle at once to poll with seedfall_status.",
        arguments: &[
            CONFIG,
            ("seeds", "string", "Seeds: 7, 1-500, 1,5,9-12 (default 1-100)."),
            JOBS,
            (
                "background",
                "boolean",
                "Return at once with a handle to poll with seedfall_status (default false: wait).",
            ),
            OFFSET,
            LIMIT,
        ],
        required: &[],
        fields: PAGE_FIELDS,
        always: STATUS_FIELDS,
        read_only: false,
        task: true,
        run: swept,
    },
    Tool {
        name: "seedfall_status",
        description: "A sweep's state (running or done) and progress; when done, its summary (the `run --json` fields: lowest_failing_seed, findings, …) with per-seed detail paged by offset and limit.",
        arguments: &[("handle", "string", "The handle seedfall_run returned."), OFFSET, LIMIT],
        required: &["handle"],
        fields: PAGE_FIELDS,
        always: STATUS_FIELDS,
        read_only: true,
        task: false,
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
        task: false,
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
        task: false,
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
        task: true,
        run: shrunk,
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
        task: true,
        run: caused,
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
        task: false,
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
        task: false,
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
            let swept = matches!(tool.name, "seedfall_status" | "seedfall_run");
            for name in tool.fields.iter().chain(if swept { RUN_FIELDS } else { &[] }) {
                fields.insert(name.to_string(), json!({}));
            }
            for name in tool.always.iter().chain(&["notes"]) {
                fields.entry(name.to_string()).or_insert(json!({}));
            }
            let mut listed = json!({
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
            });
            if tool.task {
                listed["execution"] = json!({"taskSupport": "optional"});
            }
            listed
        })
        .collect()
}

/// The message for a `name` that is no tool of ours (None: it is one).
pub fn unknown(name: &str) -> Option<String> {
    (!TOOLS.iter().any(|t| t.name == name)).then(|| {
        format!("unknown tool {name:?}; the tools: {}", TOOLS.iter().map(|t| t.name).collect::<Vec<_>>().join(", "))
    })
}

/// Whether tool `name` may run as a task.
pub fn runs_as_task(name: &str) -> bool {
    TOOLS.iter().any(|t| t.name == name && t.task)
}

/// Runs tool `name`: its `CallToolResult`, with the limits applied to its
/// arguments in `notes`.
pub fn call(name: &str, arguments: &Value, ctx: &Ctx) -> Value {
    let result = match TOOLS.iter().find(|t| t.name == name) {
        None => Err(McpError::Call(unknown(name).unwrap_or_default())),
        Some(tool) => Args::check(tool.name, tool.arguments, tool.required, arguments, &ctx.paths).and_then(|args| {
            let (mut doc, mut text) = (tool.run)(&args, ctx)?;
            let notes = args.notes();
            if !notes.is_empty() {
                text = format!("{}\n{text}", notes.join("\n"));
                doc["notes"] = json!(notes);
            }
            Ok((doc, text))
        }),
    };
    match result {
        Ok((doc, text)) => {
            json!({"content": [{"type": "text", "text": text}], "structuredContent": doc, "isError": false})
        }
        Err(e) => error(name, &e.to_string()),
    }
}

/// A tool error: `isError` with `message`, logged to stderr too.
pub fn error(name: &str, message: &str) -> Value {
    eprintln!("seedfall mcp: {name}: {message}");
    json!({"content": [{"type": "text", "text": message}], "isError": true})
}

/// Loads the config and prepares its cluster (building what is not cached).
fn setup(path: &Path, options: LoadOptions) -> Result<Cluster, McpError> {
    let config = config::load(path).map_err(|e| McpError::File(without_contents(&e.to_string())))?;
    Ok(Cluster::prepare_with(config, path, &config::state_dir(path), options)?)
}

type Answer = Result<(Value, String), McpError>;

/// `seedfall_run`: the finished sweep, or its handle at once with `background`.
fn swept(args: &Args, ctx: &Ctx) -> Answer {
    let path = args.config()?;
    // A config error is the caller's now, not a sweep that fails later.
    config::load(&path).map_err(|e| McpError::File(without_contents(&e.to_string())))?;
    let (seed_list, seeds) = args.seeds()?;
    let (workers, page, background) = (args.jobs(), args.page(), args.flag("background"));
    // A sweep in the background outlives this call: only the end of input stops it.
    let stop = if background { Arc::default() } else { ctx.stop.clone() };
    let count = seeds.len();
    let (handle, shared) = ctx.handles.start(path.clone(), seeds, seed_list, workers, stop);
    if background {
        let (doc, _) = handles::status(&handle, &shared, page)?;
        let text = format!("started {handle}: {count} seeds of {}; poll seedfall_status", path.display());
        return Ok((doc, text));
    }
    ctx.progress.follow(&shared.watch, || shared.finished());
    handles::status(&handle, &shared, page)
}

fn status(args: &Args, ctx: &Ctx) -> Answer {
    let handle = args.text("handle").expect("checked as required");
    let Some(shared) = ctx.handles.get(&handle) else {
        return Err(McpError::Call(format!("no sweep has handle {handle:?} (seedfall_run returns one)")));
    };
    handles::status(&handle, &shared, args.page())
}

fn findings(args: &Args) -> Answer {
    let path = args.config()?;
    let history = finding_history::path(&path);
    let records = finding_history::load(&history).map_err(|e| McpError::File(without_contents(&e.to_string())))?;
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
    let replayed = replay(&cluster, &path, options, &mut trace)?;
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

fn shrunk(args: &Args, ctx: &Ctx) -> Answer {
    let path = args.config()?;
    let budget = args.text("budget").map(|b| Budget::parse(&b)).transpose()?.unwrap_or(Budget::Unlimited);
    let (seed, options) = (args.seed(), ShrinkOptions { workers: args.jobs(), budget });
    let watch = Watch::new(ctx.stop.clone());
    ctx.progress.watched(&watch, || -> Answer {
        watch.note(format!("building {}", path.display()));
        let cluster = setup(&path, LoadOptions::default())?;
        watch.note(format!("seed {seed}: replaying its failure"));
        let failing = shrink::failing(&cluster, seed)?;
        let shrunk = shrink::shrink(&cluster, &failing, &options, watch.stop.clone(), |step| {
            watch.set_done(step.runs);
            watch.note(format!("seed {seed}: {step}"));
        })?;
        if shrunk.interrupted {
            return Err(McpError::Stopped(format!(
                "the shrink of seed {seed} was stopped before it finished: nothing saved"
            )));
        }
        let file = config::schedule_path(&path, seed);
        shrunk.schedule().save(&file)?;
        let doc = json_doc::shrunk(&shrunk, &failing.failure, &file);
        Ok((doc, format!("{}saved {}", shrunk.report(), file.display())))
    })
}

fn caused(args: &Args, ctx: &Ctx) -> Answer {
    let path = args.config()?;
    let schedule = args.schedule()?;
    let to_u32 = |name: &str, default: u32| args.number(name).map_or(default, |n| n.min(u32::MAX as u64) as u32);
    let options = CauseOptions {
        seed: args.seed(),
        schedule: schedule.as_ref().map(|(_, s)| s.clone()),
        futures: to_u32("futures", 20),
        moments: to_u32("moments", 20),
        jobs: args.jobs(),
        share_prefix: true,
    };
    let watch = Watch::new(ctx.stop.clone());
    ctx.progress.watched(&watch, || -> Answer {
        watch.note(format!("building {}", path.display()));
        let cluster = setup(&path, LoadOptions { function_bitmap: true, ..LoadOptions::default() })?;
        watch.note(format!("seed {}: running futures from its moments", options.seed));
        let found = cause_watched(&cluster, &options, &watch)?;
        // A cancelled call gets no answer: keep no partial result either.
        if found.interrupted {
            return Err(McpError::Stopped(format!(
                "the cause of seed {} was stopped before every future ran: nothing saved",
                found.seed
            )));
        }
        let points = cause_stats::curve(&found);
        let jump = cause_stats::biggest_jump(&found, &points);
        let functions = cause_stats::functions(&found, &|node, index| cluster.function_name(node, index as u32));
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
    })
}

fn verified(args: &Args) -> Answer {
    let path = args.config()?;
    let (_, schedule) = args.schedule()?.expect("checked as required");
    let seed = args
        .number("seed")
        .or(schedule.seed)
        .ok_or_else(|| McpError::Call("the schedule names no seed: pass seed".into()))?;
    let cluster = setup(&path, LoadOptions::default())?;
    let verification = verify::verify(&cluster, &schedule, seed)?;
    Ok((json_doc::verification(&verification), verification.to_string()))
}

fn inspected(args: &Args) -> Answer {
    let (_, schedule) = args.schedule()?.expect("checked as required");
    Ok((json_doc::schedule(&schedule), schedule_edit::inspect(&schedule)))
}
