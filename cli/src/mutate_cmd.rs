//! `seedfall mutate -c CONFIG -seeds 1-100 [-j N] [--json FILE]`: the config's own sweep,
//! which must pass (else exit 2: fix that first), then one sweep per mutant
//! of the simulated OS (`mutate.rs`), each said to be killed (by the lowest
//! seed that noticed it) or to have survived. Exit 0 when every mutant is
//! killed, 1 when one survives, 2 on errors or Ctrl-C. `--json FILE|-`
//! writes the verdicts (docs/json.md).

use crate::run_cmd::{SweepArgs, seed_list, setup};
use seedfall::interrupt::Interrupt;
use seedfall::json_doc;
use seedfall::mutate::{Judged, Mutate, MutateError};
use seedfall::sweep;
use seedfall_host::fs::Mutant;
use serde_json::{Value, json};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct MutateArgs {
    #[command(flatten)]
    sweep: SweepArgs,
    /// Write the verdicts as JSON (docs/json.md); `-`: to stdout, the text then to stderr.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

pub fn run(MutateArgs { sweep: args, json: json_target }: MutateArgs) -> ExitCode {
    let seeds = match seed_list(&args.seeds) {
        Ok(seeds) => seeds,
        Err(code) => return code,
    };
    // Ctrl-C or SIGTERM: stop at the next seed, exit 2 (a partial sweep proves nothing).
    let interrupted = Interrupt::install().stop;
    let (mut cluster, path) = match setup(args.config.as_deref()) {
        Ok(ready) => ready,
        Err(code) => return code,
    };
    let mutate = Mutate { seeds: &seeds, workers: sweep::workers(args.jobs), interrupted: &interrupted };
    let mut out = json_doc::text_out(json_target.as_deref());
    let (mut survived, mut unmutated, mut verdicts) = (0, 0, Vec::new());
    let judged = mutate.baseline(&cluster).and_then(|passed| {
        unmutated = passed;
        let _ = writeln!(out, "unmutated: {passed} seeds pass");
        mutate.mutants(&mut cluster, |judged: &Judged| {
            verdicts.push(verdict_json(judged));
            match &judged.killed_by {
                Some((seed, failure)) => {
                    let why = failure.as_ref().map_or(String::new(), |f| format!(": {f}"));
                    let _ = writeln!(out, "killed    {}: seed {seed}{why}", judged.mutant.describe());
                }
                None => {
                    survived += 1;
                    let _ = writeln!(out, "SURVIVED  {}: no seed of {} noticed", judged.mutant.describe(), args.seeds);
                }
            }
        })
    });
    match judged {
        Ok(()) => {}
        Err(MutateError::Seed { seed, error }) => return stopped(format!("seed {seed}: {error}")),
        Err(MutateError::Interrupted) => return stopped("interrupted".to_string()),
        Err(MutateError::Unmutated { lowest_failing }) => {
            let seed = lowest_failing.map_or(String::new(), |s| format!(" (seed {s})"));
            return stopped(format!(
                "the unmutated sweep of {} already fails{seed}: fix that first (seedfall run -c {0} -seeds {})",
                path.display(),
                args.seeds
            ));
        }
    }
    let total = Mutant::ALL.len();
    let _ = writeln!(out, "{} of {total} mutants killed, {survived} survived", total - survived);
    if let Some(target) = &json_target {
        let doc = json!({
            "config": path.display().to_string(), "seeds": args.seeds, "unmutated_passed": unmutated,
            "mutants": verdicts, "killed": total - survived, "survived": survived,
        });
        if let Err(e) = json_doc::write(target, &doc) {
            return stopped(e);
        }
    }
    ExitCode::from(if survived > 0 { 1 } else { 0 })
}

fn verdict_json(judged: &Judged) -> Value {
    let (seed, failure) = match &judged.killed_by {
        Some((seed, failure)) => (Some(*seed), failure.as_ref().map(json_doc::failure)),
        None => (None, None),
    };
    json!({
        "mutant": judged.mutant.name(), "description": judged.mutant.describe(),
        "killed": judged.killed_by.is_some(), "seed": seed, "failure": failure,
    })
}

fn stopped(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("seedfall: {message}");
    ExitCode::from(2)
}
