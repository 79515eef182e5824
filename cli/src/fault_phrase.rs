//! A fault as one phrase in the reference's words (`crash server during disk
//! op #56, restart at 791.388ms`), and the list `seedfall shrink` prints under
//! `faults before the failure (N):`. Times are rounded to the microsecond, as
//! the reference prints them; the schedule file keeps them exact. It does not
//! replace `Fault::describe`, the column form `inspect` and traces use.

use seedfall_host::vtime::{SimTime, go_duration};
use seedfall_host::world::fault::{Fault, Trigger};
use std::fmt::Write;

/// `at` rounded to the microsecond, in Go's form.
fn micros(at: SimTime) -> String {
    go_duration(at.ns().saturating_add(500) / 1_000 * 1_000)
}

/// What happens, to what, where and until when: `crash server, restart at 1.942589s`.
pub fn phrase(fault: &Fault) -> String {
    let name = fault.kind.name();
    // A crash in the middle of a disk operation is still a crash to the reader.
    let verb = if name == "crash_io" { "crash" } else { name };
    let mut line = format!("{verb} {}", fault.target);
    if let Some(op) = fault.op {
        let on = if name == "crash_io" { "during" } else { "at" };
        let _ = write!(line, " {on} {} #{op}", fault.kind.trigger().op_unit());
    }
    // A preemption point's `until` is a placeholder, not an end.
    if let Some(until) = fault.until.filter(|_| fault.kind.trigger() != Trigger::CountedCall) {
        let end = match name {
            "crash" | "crash_io" => "restart at",
            "partition" => "heal at",
            _ => "until",
        };
        let _ = write!(line, ", {end} {}", micros(until));
    }
    let detail = fault.kind.imp().detail(fault);
    if !detail.is_empty() {
        let _ = write!(line, ", {detail}");
    }
    line
}

/// One line per fault, its time right-aligned to the longest: what the
/// shrink JSON's `faults_before_failure` holds.
pub fn lines(faults: &[Fault]) -> Vec<String> {
    let times: Vec<String> = faults.iter().map(|f| micros(f.at)).collect();
    let width = times.iter().map(|t| t.chars().count()).max().unwrap_or(0);
    faults.iter().zip(&times).map(|(fault, at)| format!("{at:>width$}  {}", phrase(fault))).collect()
}

/// `faults before the failure (N):` and the `lines`, indented.
pub fn list(faults: &[Fault]) -> String {
    let mut out = format!("faults before the failure ({}):\n", faults.len());
    for line in lines(faults) {
        let _ = writeln!(out, "  {line}");
    }
    out
}
