//! The target ISA, built from a named baseline instead of whatever the host CPU
//! has, so compiled code can be shared by CI runners of different generations
//! (the cache keys on the target triple, `IsaBaseline::name` and the full flag
//! set). Code is only ever compiled for the machine it runs on: the triple is
//! the host's, never chosen by the caller.
//!
//! Also the options that change the machine code (`CompileConfig`,
//! `TrapMode`): the translator reads them, so this module sits below it and
//! imports nothing of the compiler. Their cache key material is `key`.

use crate::error::{Error, Result};
use crate::module::{ModuleInfo, PinnedGlobal};
use cranelift_codegen::isa::{self, CallConv, OwnedTargetIsa};
use cranelift_codegen::settings::{self, Configurable};

/// A named set of CPU features code may rely on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IsaBaseline {
    /// x86-64-v2: SSE4.2, POPCNT (every x86-64 CPU since 2009).
    X86_64V2,
    /// x86-64-v3: adds AVX2, BMI1/2, LZCNT, FMA (Haswell and later).
    X86_64V3,
    /// ARMv8.0-A with no optional extension: every 64-bit Arm server, Apple
    /// silicon and the Raspberry Pi 4 run it. Go's wasm uses no atomics, so
    /// LSE would buy nothing.
    Aarch64V8,
}

impl IsaBaseline {
    pub fn name(self) -> &'static str {
        match self {
            IsaBaseline::X86_64V2 => "x86-64-v2",
            IsaBaseline::X86_64V3 => "x86-64-v3",
            IsaBaseline::Aarch64V8 => "aarch64-v8",
        }
    }

    /// The Cranelift preset that enables the baseline's features; None when
    /// the backend's defaults are the baseline.
    fn preset(self) -> Option<&'static str> {
        match self {
            IsaBaseline::X86_64V2 | IsaBaseline::X86_64V3 => Some(self.name()),
            IsaBaseline::Aarch64V8 => None,
        }
    }

    pub fn from_name(name: &str) -> Result<IsaBaseline> {
        match name {
            "x86-64-v2" => Ok(IsaBaseline::X86_64V2),
            "x86-64-v3" => Ok(IsaBaseline::X86_64V3),
            "aarch64-v8" => Ok(IsaBaseline::Aarch64V8),
            other => Err(Error::Unsupported {
                feature: format!("ISA baseline {other:?} (known: x86-64-v2, x86-64-v3, aarch64-v8)"),
                function: None,
            }),
        }
    }

    /// The best baseline this CPU can run.
    pub fn host() -> IsaBaseline {
        #[cfg(target_arch = "aarch64")]
        {
            IsaBaseline::Aarch64V8
        }
        #[cfg(target_arch = "x86_64")]
        {
            let v3 = std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("bmi1")
                && std::arch::is_x86_feature_detected!("bmi2")
                && std::arch::is_x86_feature_detected!("lzcnt")
                && std::arch::is_x86_feature_detected!("fma");
            if v3 { IsaBaseline::X86_64V3 } else { IsaBaseline::X86_64V2 }
        }
    }

    /// Whether this CPU can run code compiled for the baseline.
    pub fn runs_on_host(self) -> bool {
        match self {
            IsaBaseline::X86_64V2 => cfg!(target_arch = "x86_64"),
            IsaBaseline::X86_64V3 => IsaBaseline::host() == IsaBaseline::X86_64V3,
            IsaBaseline::Aarch64V8 => cfg!(target_arch = "aarch64"),
        }
    }
}

/// The target triple code is compiled for: this machine's. The operating
/// system is part of it because it picks the calling convention between
/// compiled code and the runtime (`HOST_CALL_CONV`).
pub fn target_triple() -> String {
    let system = match std::env::consts::OS {
        "macos" => "apple-darwin",
        "windows" => "pc-windows-gnu",
        _ => "unknown-linux-gnu",
    };
    format!("{}-{system}", std::env::consts::ARCH)
}

/// The calling convention of Rust's `extern "C"` on this machine, which
/// every call between compiled code and the runtime uses (libcalls, host
/// calls, trampolines) and, for simplicity, calls between wasm functions too.
pub const HOST_CALL_CONV: CallConv = if cfg!(windows) {
    CallConv::WindowsFastcall
} else if cfg!(all(target_vendor = "apple", target_arch = "aarch64")) {
    CallConv::AppleAarch64
} else {
    CallConv::SystemV
};

/// How out-of-bounds memory accesses and other traps are detected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TrapMode {
    /// Guard pages catch out-of-bounds accesses; traps are hardware faults that the
    /// signal handler redirects. Fastest.
    Signals,
    /// Every access is bounds-checked and every trap calls the trap libcall; no
    /// signal is ever needed (debugging, hosts where signals are off-limits).
    Explicit,
}

/// Codegen options that change the machine code (and so belong in a cache key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CompileConfig {
    pub trap_mode: TrapMode,
    pub baseline: IsaBaseline,
    /// Run Cranelift's IR verifier (slow; for tests of the translator).
    pub verify: bool,
    /// The global kept in the pinned register (docs/pinned-global.md).
    pub pinned_global: PinnedGlobal,
    /// Every defined function stores 1 into its byte of the instance's
    /// "ran" bitmap on entry (`Instance::functions_ran`,
    /// docs/function-bitmap.md). Off: the code is exactly as without it.
    pub function_bitmap: bool,
    /// Every conditional branch (`if`, `br_if`, `br_table`) also stores 1
    /// into the byte of the instance's edge map its outcome hashes to
    /// (`Instance::edges_ran`, docs/edge-coverage.md). Needs `function_bitmap`
    /// (the map follows it). Off: the code is exactly as without it.
    pub edge_bitmap: bool,
    /// Functions whose body matches a known Go function get its native
    /// intrinsic (docs/intrinsics.md). Off: the code is exactly as without.
    pub intrinsics: bool,
}

impl Default for CompileConfig {
    fn default() -> Self {
        CompileConfig {
            trap_mode: TrapMode::Signals,
            baseline: IsaBaseline::host(),
            verify: false,
            pinned_global: PinnedGlobal::None,
            function_bitmap: false,
            edge_bitmap: false,
            intrinsics: true,
        }
    }
}

impl CompileConfig {
    /// Every Cranelift setting, in a fixed order, as `name=value` pairs.
    pub fn settings(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("opt_level", "speed"),
            ("enable_verifier", if self.verify { "true" } else { "false" }),
            // Floats must give the same bits on every machine.
            ("enable_nan_canonicalization", "true"),
            ("preserve_frame_pointers", "true"),
            // Large frames touch the stack page by page so the guard page is hit.
            ("enable_probestack", "true"),
            ("probestack_strategy", "inline"),
            ("enable_multi_ret_implicit_sret", "true"),
            ("is_pic", "false"),
            // r15 (x86-64) or x21 (aarch64) holds the pinned global
            // (docs/pinned-global.md); without one it
            // stays with the register allocator.
            ("enable_pinned_reg", if self.pinned_global == PinnedGlobal::None { "false" } else { "true" }),
            ("unwind_info", "false"),
        ]
    }

    /// The global compiled code keeps in the pinned register for `info`, if any.
    pub fn pinned_global(&self, info: &ModuleInfo) -> Option<u32> {
        info.pinned_global(self.pinned_global)
    }

    pub fn build_isa(&self) -> Result<OwnedTargetIsa> {
        if !self.baseline.runs_on_host() {
            return Err(Error::Unsupported {
                feature: format!("ISA baseline {} on this CPU", self.baseline.name()),
                function: None,
            });
        }
        let mut flags = settings::builder();
        for (name, value) in self.settings() {
            flags.set(name, value).map_err(|e| Error::Os(format!("cranelift setting {name}: {e}")))?;
        }
        let triple = target_triple();
        let mut builder =
            isa::lookup_by_name(&triple).map_err(|e| Error::Os(format!("no Cranelift backend for {triple}: {e}")))?;
        if let Some(preset) = self.baseline.preset() {
            builder.enable(preset).map_err(|e| Error::Os(format!("baseline {preset}: {e}")))?;
        }
        builder.finish(settings::Flags::new(flags)).map_err(|e| Error::Os(format!("building the ISA: {e}")))
    }
}
