//! How a run ended: a pass, the time horizon, or failures, each with its
//! class (DESIGN.md §1), the node incarnation it names and a message; and the
//! properties the run reached, for the sweep's table. Shrink's "fails the
//! same way" compares class, node, property and message with numbers
//! ignored (`Failure::signature`).

use crate::node::PropertyKind;
use std::collections::BTreeMap;
use std::fmt;

/// Verdict classes, as DESIGN.md §1 names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// Assert, Always, Unreachable, Fail or Eventually.
    Property,
    /// A node's exit with an error status or a Go panic (not supervised).
    Exit,
    /// A non-zero exit of the workload.
    Workload,
    /// A wasm trap (not a Go panic, which exits with status 2).
    Trap,
    /// Every node blocked and nothing pending.
    Deadlock,
    /// A guest ran too long in real time without yielding (host-dependent).
    Watchdog,
    /// The run stopped making progress in virtual terms: a busy loop found
    /// by the counters.
    Liveness,
    /// The `sim.Put`/`Get`/`Invoke` history is not linearizable under the
    /// config's `linearizable` model.
    Linearizability,
    /// The `sim.Txn` history has an anomaly the config's `isolation` forbids.
    Isolation,
    /// A supervised service ended by itself during boot again and again
    /// (`silent.rs`); only ever turns a pass or a horizon into a failure.
    CrashLoop,
    /// The workload uses `sim.Progress` or the history, yet neither
    /// progressed (`silent.rs`); only ever turns a pass or a horizon into a failure.
    NoProgress,
}

impl Class {
    pub const ALL: [Class; 11] = [
        Class::Property,
        Class::Exit,
        Class::Workload,
        Class::Trap,
        Class::Deadlock,
        Class::Watchdog,
        Class::Liveness,
        Class::Linearizability,
        Class::Isolation,
        Class::CrashLoop,
        Class::NoProgress,
    ];

    /// The class `name` names (what a sweep's JSON says).
    pub fn from_name(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Class::Property => "property",
            Class::Exit => "exit",
            Class::Workload => "workload",
            Class::Trap => "trap",
            Class::Deadlock => "deadlock",
            Class::Watchdog => "watchdog",
            Class::Liveness => "liveness",
            Class::Linearizability => "linearizability",
            Class::Isolation => "isolation",
            Class::CrashLoop => "crash_loop",
            Class::NoProgress => "no_progress",
        }
    }

    /// Whether the class judges the run's history, whose message is a
    /// headline (before the first ": ") and then the operations that show it.
    fn of_history(self) -> bool {
        matches!(self, Class::Linearizability | Class::Isolation)
    }
}

/// One reason a run failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub class: Class,
    /// The node, by name ("world" for a deadlock or a history check, which name none).
    pub node: String,
    /// Its incarnation (0 for the world).
    pub incarnation: u32,
    /// The property kind, for class `Property`.
    pub property: Option<PropertyKind>,
    pub message: String,
    /// When the failure happened, in virtual ns since the start, if not at
    /// the run's end: a history check names when the history was already
    /// failing (the linearizability checker's `fails_by_ns`).
    pub at_ns: Option<u64>,
}

impl Failure {
    /// Class, node, property and message with every run of digits replaced
    /// by `N`: what must stay equal for a shrunk run to fail "the same way".
    /// A history check compares its headline only (the key, or the anomaly
    /// and level), not the sub-history a shrunk run may show differently.
    pub fn signature(&self) -> String {
        let property = self.property.map_or("", PropertyKind::name);
        let message = match self.message.split_once(": ") {
            Some((headline, _)) if self.class.of_history() => headline,
            _ => &self.message,
        };
        format!("{}|{}|{}|{}", self.class.name(), self.node, property, without_numbers(message))
    }
}

/// When a failing run failed: its earliest failure's time, else its end.
pub fn failed_at_ns(failures: &[Failure], end_ns: u64) -> u64 {
    failures.iter().filter_map(|f| f.at_ns).min().map_or(end_ns, |at| at.min(end_ns))
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.incarnation {
            // The world itself (a deadlock names no node).
            0 => write!(f, "{}: {}", self.node, self.message),
            k => write!(f, "{}#{k}: {}", self.node, self.message),
        }
    }
}

/// `text` with every run of digits replaced by `N`.
pub fn without_numbers(text: &str) -> String {
    let mut out = String::new();
    let mut in_digits = false;
    for ch in text.chars() {
        if ch.is_ascii_digit() {
            if !in_digits {
                out.push('N');
            }
            in_digits = true;
        } else {
            out.push(ch);
            in_digits = false;
        }
    }
    out
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The workload exited 0.
    Pass,
    /// `duration` of virtual time passed first: a pass in a sweep, reported.
    Horizon,
    Fail(Vec<Failure>),
}

/// What one run learnt about one property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PropertySeen {
    pub kind: PropertyKind,
    /// True at least once in the run.
    pub ever_true: bool,
}

/// The properties a run reached, by message (the identity), in message order.
pub type Properties = BTreeMap<String, PropertySeen>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_ignores_numbers_only() {
        let failure = |message: &str| Failure {
            class: Class::Property,
            node: "client".into(),
            incarnation: 1,
            property: Some(PropertyKind::Fail),
            message: message.into(),
            at_ns: None,
        };
        let a = failure("acknowledged entry 27 lost: server now answers \"NOTFOUND\"");
        let b = failure("acknowledged entry 3 lost: server now answers \"NOTFOUND\"");
        let c = failure("acknowledged entry 3 lost: server now answers \"VAL v1\"");
        assert_eq!(a.signature(), b.signature());
        assert_ne!(a.signature(), c.signature());
        assert_eq!(a.to_string(), "client#1: acknowledged entry 27 lost: server now answers \"NOTFOUND\"");
    }

    #[test]
    fn a_history_failure_signs_with_its_headline() {
        let failure = |message: &str| Failure {
            class: Class::Linearizability,
            node: "world".into(),
            incarnation: 0,
            property: None,
            message: message.into(),
            at_ns: Some(5),
        };
        let a = failure(r#"key "k1" is not linearizable: [c1 put k1=1 @1ms-2ms ok, c2 get k1 @3ms-4ms → missing]"#);
        let b = failure(r#"key "k7" is not linearizable: [c3 get k7 @3ms-4ms → "2", c1 put k7=2 @9ms-10ms ok]"#);
        let c = failure(r#"key "other" is not linearizable: [c1 put other=1 @1ms-2ms ok]"#);
        assert_eq!(a.signature(), b.signature());
        assert_ne!(a.signature(), c.signature());
        assert_eq!(a.to_string(), format!("world: {}", a.message));
        assert_eq!(failed_at_ns(std::slice::from_ref(&a), 9), 5);
        assert_eq!(failed_at_ns(&[Failure { at_ns: None, ..a }], 9), 9);
        for class in Class::ALL {
            assert_eq!(Class::from_name(class.name()), Some(class));
        }
    }
}
