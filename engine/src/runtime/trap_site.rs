//! Naming a fault in compiled code: where it happened (`TrapSite`: the
//! function, and its trap-site record) and which trap that makes. Shared by
//! both kinds of loaded code, mapped (`code`) and lazily compiled (`lazy`),
//! each of which finds the site in its own layout. Finding which module's
//! code holds an address is `code::trap_at_any_pc`'s job, not this one's.

use crate::artifact::{Artifact, NO_WASM_OFFSET};
use crate::module::ModuleInfo;
use crate::runtime::fault;
use crate::runtime::trap::{Trap, TrapKind};

/// Where in compiled code a fault happened: the function, and the trap
/// site's record (kind, wasm offset) if the instruction is one.
pub(crate) struct TrapSite {
    pub func_index: Option<u32>,
    pub record: Option<(u8, u32)>,
}

impl TrapSite {
    /// The site at code offset `offset` of `artifact`'s code.
    pub fn in_artifact(artifact: &Artifact, offset: u32) -> TrapSite {
        TrapSite { func_index: artifact.function_at(offset), record: artifact.trap_record_at(offset) }
    }

    /// The trap a fault raised by `signal` here is.
    pub fn trap(self, info: &ModuleInfo, signal: i32) -> Trap {
        let kind = match self.record.and_then(|(kind, _)| TrapKind::from_u8(kind)) {
            _ if signal == fault::INTERRUPT => TrapKind::Interrupted,
            Some(kind) => kind,
            // A fault at an instruction that is not a recorded trap site: the
            // stack guard (a large frame's probe or a push) or a hardware
            // division fault; anything else would be an engine bug.
            None if signal == fault::DIVIDE => TrapKind::IntegerDivideByZero,
            None => TrapKind::StackOverflow,
        };
        let detail =
            (kind == TrapKind::Interrupted).then(|| "no host call within the watchdog's limit of CPU time".to_string());
        Trap {
            kind,
            func_index: self.func_index,
            func_name: self.func_index.map(|i| info.func_name(i)),
            wasm_offset: self.record.map(|(_, offset)| offset).filter(|&o| o != NO_WASM_OFFSET),
            detail,
        }
    }
}
