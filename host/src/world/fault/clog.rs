//! `clog`: one direction of one link misbehaves for a while (a congested
//! switch port, a full queue, a flapping route). Its forms (`clogs`): `stop`
//! holds what is sent that way until the clog ends, then delivers it as a
//! heal would; `jam` holds it and then delivers it all at once; `slow` adds
//! a latency uniform in `slow_latency` to each segment (the net contract is
//! `net/clog.rs`, rule 5b). Drawn as Poisson arrivals at `clog_per_sec` for
//! the cluster; each picks a directed link between two distinct nodes (the
//! workload included), a form among those enabled and a length uniform in
//! `clog_length`, all from one shape stream drawn whether or not the clog
//! applies; an arrival on a link already clogged, or a slow clog of no latency, is
//! skipped. Partitions are
//! separate rules on links: healing one never ends a clog. A quiet window
//! or the liveness phase ends every clog. In schedules: `"node"` (the
//! sender), `"to"`, `"clog"` and, for `slow`, `"latency"`; shrink shortens
//! a clog, moves it earlier and brings a slow clog's latency toward zero.

use super::timed::{ClusterDue, ClusterSource};
use super::{
    Effects, Fault, FaultJsonError, FaultKind, Kind, Knob, KnobType, KnobValue, PlanContext, Planned, Simplify, Target,
    Trigger, json,
};
use crate::net::Clog;
use crate::node_id::NodeId;
use crate::random::RandomStream;
use crate::vtime::{SimDuration, SimTime};
use serde_json::{Map, Value, json};

pub struct ClogKind;

/// Every form's name, in the order `clogs` lists them.
pub const FORMS: [&str; 3] = ["stop", "jam", "slow"];

pub static PER_SEC: Knob = Knob::rate("clog_per_sec", "planned clogs of one direction of a link per second");
pub static LENGTH: Knob = Knob::range("clog_length", 100_000_000, 2_000_000_000, "how long a clog lasts");
pub static FORMS_KNOB: Knob = Knob {
    name: "clogs",
    ty: KnobType::SetOf { names: &FORMS, noun: "clog" },
    default: KnobValue::SetOf(0b111),
    doc: "the forms a planned clog is drawn from",
};

static KNOBS: &[&Knob] = &[&PER_SEC, &LENGTH, &FORMS_KNOB];

impl FaultKind for ClogKind {
    fn name(&self) -> &'static str {
        "clog"
    }

    fn trigger(&self) -> Trigger {
        Trigger::Time
    }

    fn knobs(&self) -> &'static [&'static Knob] {
        KNOBS
    }

    fn plan(&self, ctx: &PlanContext, replay: Option<Vec<Fault>>) -> Box<dyn Planned> {
        let f = ctx.faults;
        let chosen = f.set_of(&FORMS_KNOB);
        let forms = FORMS.into_iter().enumerate().filter(|(i, _)| chosen >> i & 1 == 1).map(|(_, n)| n).collect();
        let shape = Shape { forms, length: f.range(&LENGTH), latency: f.range(&super::slow::LATENCY) };
        let source = ClusterSource::new(ctx, self, f.number(&PER_SEC), shape, replay);
        Box::new(Planner { source, ends: Vec::new(), default_length: f.range(&LENGTH).0 })
    }

    fn detail(&self, fault: &Fault) -> String {
        match (fault.form, fault.amount) {
            (Some(form), Some(ns)) => format!("{form} +{}", crate::vtime::go_signed_duration(ns)),
            (Some(form), None) => form.to_string(),
            _ => String::new(),
        }
    }

    fn json_fields(&self) -> &'static [&'static str] {
        &["to", "clog", "latency"]
    }

    fn write_json(&self, fault: &Fault, o: &mut Map<String, Value>) {
        if let Target::Link { from, to } = &fault.target {
            o.insert("node".into(), json!(from));
            o.insert("to".into(), json!(to));
        }
        o.insert("clog".into(), json!(fault.form.unwrap_or("stop")));
        json::write_amount("latency", fault, o);
    }

    fn read_json(&self, o: &Map<String, Value>, fault: &mut Fault) -> Result<(), FaultJsonError> {
        let Target::Node(from) = fault.target.clone() else { unreachable!("read_common gives a node") };
        let needs = |field, hint| FaultJsonError::needs("clog", field, hint);
        let to = o.get("to").and_then(Value::as_str).ok_or_else(|| needs("to", ", the node the link goes to"))?;
        if from.is_empty() {
            return Err(needs("node", ", the node the link comes from"));
        }
        let name =
            o.get("clog").and_then(Value::as_str).ok_or_else(|| needs("clog", ": \"stop\", \"jam\" or \"slow\""))?;
        let form =
            FORMS.into_iter().find(|f| *f == name).ok_or_else(|| FaultJsonError::UnknownClog(name.to_string()))?;
        if o.get("latency").is_some_and(|v| !v.is_null()) {
            json::read_amount("latency", o, fault)?;
        }
        if (form == "slow") != fault.amount.is_some_and(|ns| ns > 0) {
            return Err(FaultJsonError::Rule("a slow clog, and only a slow clog, has a positive `latency`"));
        }
        fault.target = Target::Link { from, to: to.to_string() };
        fault.form = Some(form);
        Ok(())
    }

    fn simplify(&self) -> Simplify {
        Simplify { shorten: true, earlier: true, toward_zero: true }
    }
}

/// What a drawn clog is drawn from.
struct Shape {
    forms: Vec<&'static str>,
    length: (SimDuration, SimDuration),
    latency: (SimDuration, SimDuration),
}

struct Planner {
    source: ClusterSource<Shape>,
    /// The clogs in force: when each ends, on which link.
    ends: Vec<(SimTime, NodeId, NodeId)>,
    default_length: SimDuration,
}

impl Planner {
    fn next_end(&self) -> Option<(SimTime, NodeId, NodeId)> {
        self.ends.iter().min().copied()
    }
}

/// A drawn clog (every draw is made, so the stream never shifts).
fn draw(shapes: &mut RandomStream, shape: &Shape, w: &dyn Effects) -> Option<Fault> {
    let n = w.node_count() as u64;
    if n < 2 || shape.forms.is_empty() {
        return None;
    }
    let from = shapes.below(n) as usize;
    let to = (from + 1 + shapes.below(n - 1) as usize) % n as usize;
    let form = shape.forms[shapes.below(shape.forms.len() as u64) as usize];
    let length = SimDuration::from_ns(shapes.between(shape.length.0.ns(), shape.length.1.ns()));
    let latency = shapes.between(shape.latency.0.ns(), shape.latency.1.ns());
    if form == "slow" && latency == 0 {
        return None;
    }
    let mut fault = Fault::on_node(w.now(), Kind::of(&ClogKind), "");
    let (from, to) = (NodeId::new(from), NodeId::new(to));
    fault.target = Target::Link { from: w.name(from).into(), to: w.name(to).into() };
    fault.form = Some(form);
    fault.until = Some(w.now().plus(length));
    fault.amount = (form == "slow").then(|| latency.min(i64::MAX as u64) as i64);
    Some(fault)
}

impl Planned for Planner {
    fn start(&mut self, now: SimTime) {
        self.source.start(now);
    }

    fn branch(&mut self, now: SimTime, factor: f64) {
        self.source.branch(now, factor);
    }

    fn next_at(&self) -> Option<SimTime> {
        [self.next_end().map(|(at, ..)| at), self.source.next_at()].into_iter().flatten().min()
    }

    fn fire(&mut self, w: &mut dyn Effects) {
        if let Some((end, from, to)) = self.next_end()
            && self.source.next_at().is_none_or(|start| end <= start)
        {
            self.ends.retain(|e| *e != (end, from, to));
            w.unclog(from, to);
            return;
        }
        let fault = match self.source.take_due() {
            Some(ClusterDue::Drawn { shapes, with }) => draw(shapes, with, w),
            Some(ClusterDue::Replayed(fault)) => Some(fault),
            None => None,
        };
        let Some(mut fault) = fault else { return };
        let Target::Link { from, to } = &fault.target else { return };
        // Names the cluster lacks make no clog.
        let (Some(from), Some(to)) = (w.node_of(from), w.node_of(to)) else { return };
        if from == to || self.ends.iter().any(|&(_, f, t)| (f, t) == (from, to)) {
            return;
        }
        let clog = match fault.form {
            Some("jam") => Clog::Jam,
            Some("slow") => Clog::Slow(SimDuration::from_ns(fault.amount.map_or(0, i64::unsigned_abs))),
            _ => Clog::Stop,
        };
        let length = fault.length().unwrap_or(self.default_length);
        fault.at = w.now();
        fault.until = Some(w.now().plus(length));
        if w.clog(from, to, clog, fault) {
            self.ends.push((w.now().plus(length), from, to));
        }
    }

    fn quiet(&mut self, w: &mut dyn Effects) {
        for (_, from, to) in std::mem::take(&mut self.ends) {
            w.unclog(from, to);
        }
    }
}
