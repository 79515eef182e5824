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
}

impl Class {
    pub const ALL: [Class; 7] =
        [Class::Property, Class::Exit, Class::Workload, Class::Trap, Class::Deadlock, Class::Watchdog, Class::Liveness];

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
        }
    }
}

/// One reason a run failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub class: Class,
    /// The node, by name ("world" for a deadlock, which names none).
    pub node: String,
    /// Its incarnation (0 for the world).
    pub incarnation: u32,
    /// The property kind, for class `Property`.
    pub property: Option<PropertyKind>,
    pub message: String,
}

impl Failure {
    /// Class, node, property and message with every run of digits replaced
    /// by `N`: what must stay equal for a shrunk run to fail "the same way".
    pub fn signature(&self) -> String {
        let property = self.property.map_or("", PropertyKind::name);
        format!("{}|{}|{}|{}", self.class.name(), self.node, property, without_numbers(&self.message))
    }
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
        };
        let a = failure("acknowledged entry 27 lost: server now answers \"NOTFOUND\"");
        let b = failure("acknowledged entry 3 lost: server now answers \"NOTFOUND\"");
        let c = failure("acknowledged entry 3 lost: server now answers \"VAL v1\"");
        assert_eq!(a.signature(), b.signature());
        assert_ne!(a.signature(), c.signature());
        assert_eq!(a.to_string(), "client#1: acknowledged entry 27 lost: server now answers \"NOTFOUND\"");
    }
}
