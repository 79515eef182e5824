//! The world's one event stream. Everything the world does that a trace,
//! a replay or a schedule should know goes through `Recorder::emit` as an
//! `Event`: it is hashed into the run's trace, written as a replay line
//! (when a log is attached), and, for a fault, recorded in the run's fault
//! schedule. No other code does that bookkeeping.

use super::fault::Fault;
use super::verdict::Verdict;
use crate::fs::CrashReport;
use crate::node::PropertyKind;
use crate::node_id::NodeId;
use crate::trace::{Trace, TraceHash};
use crate::vtime::{SimDuration, SimTime};
use std::io::Write;

/// A node incarnation, as events name it.
#[derive(Clone, Debug)]
pub struct Who {
    pub id: NodeId,
    pub name: String,
    pub incarnation: u32,
}

impl std::fmt::Display for Who {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}#{}", self.name, self.incarnation)
    }
}

pub enum Event<'a> {
    /// A node incarnation started.
    Boot(&'a Who),
    /// A node resumed (a scheduler step). Hashed, not printed.
    Step(&'a Who, u64),
    /// A node crashed; `report` is what its disk kept.
    Crash {
        who: &'a Who,
        fault: Fault,
        how: String,
        report: &'a CrashReport,
    },
    /// A fault that took effect (a partition, an fsync EIO, a preemption point).
    Fault {
        fault: Fault,
        line: Option<String>,
    },
    /// Every partition ended.
    Heal,
    /// A paused node runs again before its pause's end (a quiet window, the liveness phase).
    Resume(&'a Who),
    /// The liveness phase began: the workload and finally must be done by `deadline`.
    Recovery {
        deadline: SimTime,
    },
    /// A property call: what it said, and the replay line if it is worth one.
    Property {
        who: &'a Who,
        kind: PropertyKind,
        cond: bool,
        message: &'a str,
        line: Option<String>,
    },
    SetupComplete(&'a Who),
    Quiet {
        who: &'a Who,
        length: SimDuration,
    },
    /// A node exited with `code`; `line` says what follows.
    Exit {
        who: &'a Who,
        code: i32,
        line: String,
    },
    /// An incarnation ended: its own trace hash (host calls, memory written, final memory).
    Incarnation(TraceHash),
    /// The run ended with this verdict.
    End(&'a Verdict),
}

/// The trace, the replay log and the fault schedule of one run.
pub struct Recorder<'a> {
    pub trace: Trace,
    log: Option<&'a mut dyn Write>,
    faults: Vec<Fault>,
}

impl<'a> Recorder<'a> {
    pub fn new(log: Option<&'a mut dyn Write>) -> Recorder<'a> {
        Recorder { trace: Trace::default(), log, faults: Vec::new() }
    }

    pub fn logging(&self) -> bool {
        self.log.is_some()
    }

    /// The faults recorded so far, in the order they happened.
    pub fn faults(&self) -> &[Fault] {
        &self.faults
    }

    /// Writes a replay line that no event carries (a header).
    pub fn say(&mut self, at: SimTime, line: &str) {
        if let Some(log) = self.log.as_mut() {
            for part in line.lines() {
                let _ = writeln!(log, "[{at}] * {part}");
            }
        }
    }

    /// Writes what a node printed.
    pub fn output(&mut self, at: SimTime, who: &Who, bytes: &[u8], stderr: bool) {
        let Some(log) = self.log.as_mut() else { return };
        let stream = if stderr { " (stderr)" } else { "" };
        for line in String::from_utf8_lossy(bytes).lines() {
            let _ = writeln!(log, "[{at}] {who}{stream} | {line}");
        }
    }

    pub fn emit(&mut self, at: SimTime, event: Event) {
        let t = at.ns();
        let line = match event {
            Event::Boot(who) => {
                self.trace.record(b"boot", &[], &[who.id.index() as u64, who.incarnation as u64, t]);
                Some(format!("boot {who}"))
            }
            Event::Step(who, step) => {
                self.trace.record(b"step", &[], &[who.id.index() as u64, who.incarnation as u64, t, step]);
                None
            }
            Event::Crash { who, fault, how, report } => {
                self.hash_fault(&fault);
                self.trace.record(b"crashed", &[], &[who.id.index() as u64, t]);
                for file in &report.files {
                    let kept = [file.kept.ops as u64, file.kept.bytes as u64, file.pending as u64];
                    self.trace.record(b"kept", file.path.as_bytes(), &kept);
                    if let Some((kept, pieces)) = file.reordered {
                        self.trace.record(b"reordered", file.path.as_bytes(), &[kept as u64, pieces as u64]);
                    }
                }
                for path in &report.vanished {
                    self.trace.record(b"vanished", path.as_bytes(), &[]);
                }
                if let Some((path, offset, bit)) = &report.corrupted {
                    self.trace.record(b"corrupted", path.as_bytes(), &[*offset, u64::from(*bit)]);
                }
                let until = fault.until.map_or(String::new(), |u| format!("; restart at {u}"));
                self.faults.push(fault);
                let mut line = format!("crash {who}{how}{until}");
                for file in &report.files {
                    line.push_str(&match file.reordered {
                        Some((kept, pieces)) => format!(
                            "\n  {}: kept {kept} of {pieces} pieces of {} pending writes, reordered",
                            file.path, file.pending
                        ),
                        None => format!(
                            "\n  {}: kept {} of {} pending writes (+{} bytes)",
                            file.path, file.kept.ops, file.pending, file.kept.bytes
                        ),
                    });
                }
                for path in &report.vanished {
                    line.push_str(&format!("\n  {path}: never durable, gone"));
                }
                if let Some((path, offset, bit)) = &report.corrupted {
                    line.push_str(&format!("\n  {path}: bit {bit} of byte {offset} flipped on the way to disk"));
                }
                Some(line)
            }
            Event::Fault { fault, line } => {
                self.hash_fault(&fault);
                self.faults.push(fault);
                line
            }
            Event::Heal => {
                self.trace.record(b"heal", &[], &[t]);
                Some("heal the network".into())
            }
            Event::Resume(who) => {
                self.trace.record(b"resume", &[], &[who.id.index() as u64, t]);
                Some(format!("resume {who}"))
            }
            Event::Recovery { deadline } => {
                self.trace.record(b"recovery", &[], &[t, deadline.ns()]);
                Some(format!(
                    "liveness: faults stop, the network heals, crashed nodes restart; \
                     the workload and finally must be done by {deadline}"
                ))
            }
            Event::Property { who, kind, cond, message, line } => {
                self.trace.record(b"property", message.as_bytes(), &[kind as u64, cond as u64]);
                line.map(|l| format!("{who}: {l}"))
            }
            Event::SetupComplete(who) => {
                self.trace.record(b"setup", &[], &[who.id.index() as u64, t]);
                Some(format!("{who}: setup complete, faults start"))
            }
            Event::Quiet { who, length } => {
                self.trace.record(b"quiet", &[], &[t, length.ns()]);
                Some(format!("{who}: quiet for {length}"))
            }
            Event::Exit { who, code, line } => {
                self.trace.record(b"exit", &[], &[who.id.index() as u64, code as u32 as u64]);
                Some(format!("{who} {line}"))
            }
            Event::Incarnation(hash) => {
                self.trace.record(b"incarnation", &hash.0, &[]);
                None
            }
            Event::End(verdict) => {
                self.trace.record(b"end", &[], &[t]);
                if let Verdict::Fail(failures) = verdict {
                    for f in failures {
                        let who = [f.incarnation as u64];
                        self.trace.record(
                            b"verdict",
                            format!("{}|{}|{}", f.class.name(), f.node, f.message).as_bytes(),
                            &who,
                        );
                    }
                }
                None
            }
        };
        if let Some(line) = line {
            self.say(at, &line);
        }
    }

    /// A fault's schedule entry, as hashed: its JSON form without what is
    /// for people only is its identity; a preemption point's site is logged.
    fn hash_fault(&mut self, fault: &Fault) {
        let identity = serde_json::Value::Object(fault.identity()).to_string();
        let note = super::fault::preempt::site_suffix(fault.site.as_deref());
        self.trace.record_noted(b"fault", identity.as_bytes(), &[], &note);
    }

    /// The run's faults, in time order.
    pub fn into_parts(self) -> (Trace, Vec<Fault>) {
        let mut faults = self.faults;
        faults.sort_by_key(|f| f.at);
        (self.trace, faults)
    }
}
