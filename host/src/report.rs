//! What a guest tells the world besides its system calls: the properties
//! it reaches and the workload's signals (`sim.SetupComplete`,
//! `sim.Progress`, `sim.QuietFor`, `sim.Budget`). Both the `seedfall`
//! module (`sdk.rs`) and the Antithesis SDK's output (`antithesis.rs`) make
//! these; the world judges them. Plain values: nothing here runs a guest.

/// A property kind of the `seedfall.property` call (docs/sdk-abi.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PropertyKind {
    Assert,
    Always,
    Sometimes,
    Reachable,
    Unreachable,
    Fail,
}

impl PropertyKind {
    pub fn from_abi(kind: u32) -> Option<PropertyKind> {
        use PropertyKind::*;
        [Assert, Always, Sometimes, Reachable, Unreachable, Fail].get(kind as usize).copied()
    }

    /// The kind `name` names (what a sweep's JSON says).
    pub fn from_name(name: &str) -> Option<PropertyKind> {
        (0..6).filter_map(PropertyKind::from_abi).find(|k| k.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            PropertyKind::Assert => "assert",
            PropertyKind::Always => "always",
            PropertyKind::Sometimes => "sometimes",
            PropertyKind::Reachable => "reachable",
            PropertyKind::Unreachable => "unreachable",
            PropertyKind::Fail => "fail",
        }
    }

    /// The SDK function that reports this kind.
    pub fn sdk_name(self) -> &'static str {
        match self {
            PropertyKind::Assert => "sim.Assert",
            PropertyKind::Always => "sim.Always",
            PropertyKind::Sometimes => "sim.Sometimes",
            PropertyKind::Reachable => "sim.Reachable",
            PropertyKind::Unreachable => "sim.Unreachable",
            PropertyKind::Fail => "sim.Fail",
        }
    }

    /// Whether reaching the property with this condition fails the run.
    pub fn fails(self, cond: bool) -> bool {
        match self {
            PropertyKind::Assert | PropertyKind::Always => !cond,
            PropertyKind::Unreachable | PropertyKind::Fail => true,
            PropertyKind::Sometimes | PropertyKind::Reachable => false,
        }
    }
}

/// Something the guest told the world through the `seedfall` module.
#[derive(Debug, Clone, PartialEq)]
pub enum Report {
    Property {
        kind: PropertyKind,
        cond: bool,
        message: String,
    },
    SetupComplete,
    /// `sim.Progress`: the workload got somewhere.
    Progress,
    QuietFor {
        ns: u64,
    },
    /// The workload's default size, as passed to `sim.Budget`.
    Budget {
        default: u64,
    },
}
