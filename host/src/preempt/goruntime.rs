//! Asking Go's runtime to preempt the running goroutine, the way sysmon's
//! `preemptone` does on other platforms (wasm has no sysmon): find the current
//! g through the wasm global that holds it, and if it is `m.curg` (never g0)
//! and `_Grunning`, set `g.preempt` and all 8 bytes of `g.stackguard0` to
//! `stackPreempt`. The goroutine yields at its next stack-checked call.
//!
//! The struct offsets differ between Go releases, so they are a table keyed by
//! the Go version recorded in the module, checked against `go_asm.h` by a test.
//! No runtime change, no linkname.

use seedfall_engine::module::ModuleInfo;

/// The wasm global holding the current g (Go's linker: SP, CTXT, g, ...).
pub const GLOBAL_G: u32 = 2;
const STACK_PREEMPT: u64 = 0xFFFF_FFFF_FFFF_FADE;
const G_RUNNING: u32 = 2;
const G_SCAN: u32 = 0x1000;

/// Offsets into Go's `g` and `m` structs (from the runtime's `go_asm.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GoOffsets {
    pub g_stackguard0: u32,
    pub g_m: u32,
    pub g_atomicstatus: u32,
    pub g_preempt: u32,
    pub m_g0: u32,
    pub m_curg: u32,
    pub g_goid: u32,
}

/// Go 1.25, 1.26 and 1.27 agree on every field used here (their `m` differs
/// only after `m_locks`, which this procedure does not read).
const GO_1_25_TO_1_27: GoOffsets =
    GoOffsets { g_stackguard0: 16, g_m: 48, g_atomicstatus: 144, g_preempt: 177, m_g0: 0, m_curg: 136, g_goid: 152 };

pub const SUPPORTED: &[&str] = &["go1.25", "go1.26", "go1.27"];

/// The offsets for Go release `version` ("go1.26", or a full "go1.26.8").
pub fn offsets_for(version: &str) -> Result<GoOffsets, UnsupportedGo> {
    let release: String = version.split('.').take(2).collect::<Vec<_>>().join(".");
    match release.as_str() {
        "go1.25" | "go1.26" | "go1.27" => Ok(GO_1_25_TO_1_27),
        _ => Err(UnsupportedGo(version.to_string())),
    }
}

/// A module built by a Go release whose runtime layout preemption does not
/// know (the version it was built by).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsupportedGo(pub String);

impl std::fmt::Display for UnsupportedGo {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "module built by {}, but preemption supports {} (rebuild with a supported Go)",
            self.0,
            SUPPORTED.join(", ")
        )
    }
}

impl std::error::Error for UnsupportedGo {}

/// The Go version a module was built with, from `runtime.buildVersion`'s
/// bytes in its data segments ("go1.26.8" between NULs; Go's linker drops runs
/// of zeros, so a segment boundary counts as a NUL); `None` for non-Go modules.
pub fn go_version(info: &ModuleInfo) -> Option<String> {
    info.data.iter().find_map(|segment| find_version(&segment.bytes))
}

fn find_version(bytes: &[u8]) -> Option<String> {
    let mut at = 0;
    while let Some(i) = bytes[at..].windows(4).position(|w| w == b"go1.") {
        let start = at + i;
        let end = bytes[start..].iter().position(|b| *b == 0).map_or(bytes.len(), |n| start + n);
        let candidate = &bytes[start..end];
        let bounded = start == 0 || bytes[start - 1] == 0;
        if bounded && candidate.len() <= 16 && candidate[2..].iter().all(|b| b.is_ascii_digit() || *b == b'.') {
            return String::from_utf8(candidate.to_vec()).ok();
        }
        at = start + 1;
    }
    None
}

/// What a preemption request found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    /// g.preempt and g.stackguard0 were set on the running goroutine.
    Sent,
    /// The runtime has not started (g == 0) or has no current goroutine.
    NoGoroutine,
    /// The current goroutine is not running user code (g0, or not _Grunning).
    NotRunning,
    /// The running goroutine still has an earlier request it has not honoured
    /// (it has made no stack-checked call since): it spins in a loop.
    AlreadyPending,
    /// The structures do not look like Go's: wrong offsets or a corrupt runtime.
    Inconsistent,
}

fn read_u64(memory: &[u8], at: u64) -> Option<u64> {
    let at = usize::try_from(at).ok()?;
    Some(u64::from_le_bytes(memory.get(at..at + 8)?.try_into().ok()?))
}

fn read_u32(memory: &[u8], at: u64) -> Option<u32> {
    let at = usize::try_from(at).ok()?;
    Some(u32::from_le_bytes(memory.get(at..at + 4)?.try_into().ok()?))
}

/// The id of goroutine `g` (the value of global `GLOBAL_G`): 0 for g0 (the
/// scheduler's own stack) and before the runtime has a g.
pub fn goid(memory: &[u8], g: u64, o: &GoOffsets) -> u64 {
    let g = g & 0xFFFF_FFFF;
    if g == 0 {
        return 0;
    }
    read_u64(memory, g + o.g_goid as u64).unwrap_or(0)
}

/// Ask the goroutine running on `g` (the value of global `GLOBAL_G`) to yield.
pub fn request_preemption(memory: &mut [u8], g: u64, o: &GoOffsets) -> Request {
    let g = g & 0xFFFF_FFFF;
    if g == 0 {
        return Request::NoGoroutine;
    }
    let Some(m) = read_u64(memory, g + o.g_m as u64) else { return Request::Inconsistent };
    if m == 0 {
        return Request::NoGoroutine;
    }
    let (Some(curg), Some(g0)) = (read_u64(memory, m + o.m_curg as u64), read_u64(memory, m + o.m_g0 as u64)) else {
        return Request::Inconsistent;
    };
    // g0's m must be this m: a cheap check that the offsets fit this runtime.
    if read_u64(memory, g0 + o.g_m as u64) != Some(m) {
        return Request::Inconsistent;
    }
    if curg == 0 || curg == g0 {
        return Request::NotRunning;
    }
    let Some(status) = read_u32(memory, curg + o.g_atomicstatus as u64) else { return Request::Inconsistent };
    if status & !G_SCAN != G_RUNNING {
        return Request::NotRunning;
    }
    let preempt = (curg + o.g_preempt as u64) as usize;
    let guard = (curg + o.g_stackguard0 as u64) as usize;
    if guard + 8 > memory.len() || preempt >= memory.len() {
        return Request::Inconsistent;
    }
    if read_u64(memory, guard as u64) == Some(STACK_PREEMPT) {
        return Request::AlreadyPending;
    }
    memory[preempt] = 1;
    // All 8 bytes: newstack compares the full value, the prologue only the low half.
    memory[guard..guard + 8].copy_from_slice(&STACK_PREEMPT.to_le_bytes());
    Request::Sent
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_version_string() {
        assert_eq!(find_version(b"xx\0go1.26.8\0yy").as_deref(), Some("go1.26.8"));
        assert_eq!(find_version(b"\0go1.27\0").as_deref(), Some("go1.27"));
        assert_eq!(find_version(b"go1.26.8").as_deref(), Some("go1.26.8"), "at a segment boundary");
        assert_eq!(find_version(b"\0gopher\0\0go1x\0 xgo1.2\0"), None);
    }

    #[test]
    fn unsupported_versions_are_named() {
        assert!(offsets_for("go1.26.8").is_ok());
        assert!(offsets_for("go1.25.12").is_ok());
        let err = offsets_for("go1.21.3").unwrap_err().to_string();
        assert!(err.contains("go1.21.3") && err.contains("go1.26"), "{err}");
    }

    /// A fake runtime: g0 at 0x100, curg at 0x300, m at 0x200.
    fn fake(status: u32) -> Vec<u8> {
        let o = GO_1_25_TO_1_27;
        let mut memory = vec![0u8; 0x1000];
        let put =
            |mem: &mut Vec<u8>, at: u64, v: u64| mem[at as usize..at as usize + 8].copy_from_slice(&v.to_le_bytes());
        put(&mut memory, 0x100 + o.g_m as u64, 0x200);
        put(&mut memory, 0x300 + o.g_m as u64, 0x200);
        put(&mut memory, 0x200 + o.m_g0 as u64, 0x100);
        put(&mut memory, 0x200 + o.m_curg as u64, 0x300);
        memory[0x300 + o.g_atomicstatus as usize..][..4].copy_from_slice(&status.to_le_bytes());
        memory
    }

    #[test]
    fn requests_only_a_running_user_goroutine() {
        let o = GO_1_25_TO_1_27;
        let mut memory = fake(G_RUNNING);
        assert_eq!(request_preemption(&mut memory, 0, &o), Request::NoGoroutine);
        assert_eq!(request_preemption(&mut memory, 0x300, &o), Request::Sent);
        assert_eq!(memory[0x300 + o.g_preempt as usize], 1);
        assert_eq!(read_u64(&memory, 0x300 + o.g_stackguard0 as u64), Some(STACK_PREEMPT));
        assert_eq!(read_u64(&memory, 0x100 + o.g_stackguard0 as u64), Some(0), "g0 is never touched");
        assert_eq!(request_preemption(&mut memory, 0x300, &o), Request::AlreadyPending);
        let mut waiting = fake(4);
        assert_eq!(request_preemption(&mut waiting, 0x300, &o), Request::NotRunning);
        let mut garbage = vec![0xAB; 0x1000];
        assert_eq!(request_preemption(&mut garbage, 0x300, &o), Request::Inconsistent);
    }
}
