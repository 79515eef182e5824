//! Go-aware intrinsics: native code for hot pure-Go functions that Go's wasm
//! port leaves slow. A function gets one only when its name and the
//! fingerprint of its body, as the engine sees it (instrumentation included),
//! match an entry of `KNOWN`, recorded from a Go release's own output. The
//! translator then emits, before one fixed operator of that body, a call that
//! does the bulk of the work natively and updates the function's locals; the
//! wasm body goes on from there and does the rest itself, the last iteration
//! included, so memory, globals and counted calls end exactly as without the
//! intrinsic (docs/intrinsics.md).
//!
//! It does not recognize a function by its shape alone, patch a body that
//! differs by one byte from a known one, or run with loop counters (their
//! counted points would move; such bodies never match a fingerprint).

pub(crate) mod big;
pub(crate) mod sha256;

use crate::error::{Error, Result};
use crate::module::{ConstOp, ModuleInfo, ValType};
use std::ops::Range;
use wasmparser::{FunctionBody, Operator};

/// What an intrinsic computes, and where the known body keeps what it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `crypto/internal/fips140/sha256.blockGeneric`'s loop over 64-byte
    /// blocks: all but the last block (`sha256::blocks`).
    Sha256Blocks(Sha256Locals),
    /// A whole call, emitted right after the body's stack check: the
    /// libcall (this code) reads the arguments at SP and writes the
    /// results, and the function returns as its epilogue would (`big`).
    /// Only for bodies whose normal path writes nothing but its results and
    /// calls nothing.
    WholeCall(u32),
}

impl Kind {
    /// The libcall's `kind` argument.
    pub(crate) fn code(self) -> u32 {
        match self {
            Kind::Sha256Blocks(_) => SHA256_BLOCKS,
            Kind::WholeCall(code) => code,
        }
    }
}

pub(crate) const SHA256_BLOCKS: u32 = 1;
pub(crate) const BIG_ADD_VV: u32 = 2;
pub(crate) const BIG_SUB_VV: u32 = 3;
pub(crate) const BIG_MUL_ADD_VWW: u32 = 4;
pub(crate) const BIG_ADD_MUL_VVWW: u32 = 5;

/// The locals of `blockGeneric` at the head of its loop over blocks: the
/// first of eight holding the state words (in order), and those holding the
/// data's length, pointer and capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sha256Locals {
    pub state: u32,
    pub len: u32,
    pub ptr: u32,
    pub cap: u32,
}

/// A function body an intrinsic is known to be right for.
#[derive(Debug)]
pub struct Known {
    /// The name-section name.
    pub function: &'static str,
    /// Where the body comes from: the Go release and the instrumentation.
    pub shape: &'static str,
    /// `fingerprint` of the body.
    pub fingerprint: u64,
    /// The index of the operator before which the translator emits the call:
    /// the jump into the loop's head, after the arguments are loaded.
    pub at_operator: usize,
    pub kind: Kind,
}

const SHA256_BLOCK: &str = "crypto_internal_fips140_sha256.blockGeneric";
const BIG_ADDVV_G: &str = "math_big.addVV_g";
const BIG_SUBVV_G: &str = "math_big.subVV_g";
const BIG_MULADDVWW_G: &str = "math_big.mulAddVWW_g";
const BIG_ADDMULVVWW_G: &str = "math_big.addMulVVWW_g";
/// Go 1.26 keeps the length in local 10 and the capacity in 12.
const SHA256_GO126: Kind = Kind::Sha256Blocks(Sha256Locals { state: 2, len: 10, ptr: 11, cap: 12 });
/// Go 1.25 and 1.27 swap them.
const SHA256_GO125_GO127: Kind = Kind::Sha256Blocks(Sha256Locals { state: 2, len: 12, ptr: 11, cap: 10 });
/// The operators the call counter puts before a body.
const COUNTER_OPERATORS: usize = 10;

/// Every body with an intrinsic. A new Go release or a change to the
/// instrumentation makes new fingerprints: the `intrinsics` tests say which.
/// Go 1.25's `mulAddVWW_g` and `addMulVVWW_g` call `mulAddWWW_g` rather
/// than inline it: a whole call would skip those counted calls, so `select`
/// refuses them. Their entries stay to show it does (cli/tests/intrinsics.rs).
const KNOWN: &[Known] = &[
    sha256("go1.25, raw", 0x2ba1_37b6_8efc_1f83, 123, SHA256_GO125_GO127),
    sha256("go1.25, call counters", 0x8ff2_fbb4_c1a3_1990, 123 + COUNTER_OPERATORS, SHA256_GO125_GO127),
    sha256("go1.26, raw", 0x5383_b85c_c8af_60ba, 120, SHA256_GO126),
    sha256("go1.26, call counters", 0x71d7_fa2f_3f5d_9b03, 120 + COUNTER_OPERATORS, SHA256_GO126),
    sha256("go1.27, raw", 0xd47b_7335_623f_f67e, 120, SHA256_GO125_GO127),
    sha256("go1.27, call counters", 0xd92e_491d_2450_ecf3, 120 + COUNTER_OPERATORS, SHA256_GO125_GO127),
    whole(BIG_ADDVV_G, "go1.25 and go1.26, raw", 0x71f7_d247_acc0_2f59, 36, BIG_ADD_VV),
    whole(BIG_ADDVV_G, "go1.25 and go1.26, call counters", 0xe020_14fc_eb25_dedc, 36 + COUNTER_OPERATORS, BIG_ADD_VV),
    whole(BIG_ADDVV_G, "go1.27, raw", 0xdbb0_eade_9b8b_7e2f, 36, BIG_ADD_VV),
    whole(BIG_ADDVV_G, "go1.27, call counters", 0x573c_c0b6_5201_e0b2, 36 + COUNTER_OPERATORS, BIG_ADD_VV),
    whole(BIG_SUBVV_G, "go1.25 and go1.26, raw", 0xacab_1282_12c6_4514, 36, BIG_SUB_VV),
    whole(BIG_SUBVV_G, "go1.25 and go1.26, call counters", 0xdf78_4bbd_5718_d1a7, 36 + COUNTER_OPERATORS, BIG_SUB_VV),
    whole(BIG_SUBVV_G, "go1.27, raw", 0x03e9_23d6_b8e5_f034, 36, BIG_SUB_VV),
    whole(BIG_SUBVV_G, "go1.27, call counters", 0x7e20_f4ef_fc51_e093, 36 + COUNTER_OPERATORS, BIG_SUB_VV),
    whole(BIG_MULADDVWW_G, "go1.25, raw", 0xfdea_5bdc_59c8_f814, 36, BIG_MUL_ADD_VWW),
    whole(BIG_MULADDVWW_G, "go1.25, call counters", 0x1609_dc97_7e4f_17ab, 36 + COUNTER_OPERATORS, BIG_MUL_ADD_VWW),
    whole(BIG_MULADDVWW_G, "go1.26, raw", 0xa245_e7ca_0a9d_7bac, 35, BIG_MUL_ADD_VWW),
    whole(BIG_MULADDVWW_G, "go1.26, call counters", 0xab50_262f_a32c_60a9, 35 + COUNTER_OPERATORS, BIG_MUL_ADD_VWW),
    whole(BIG_MULADDVWW_G, "go1.27, raw", 0xb3c8_e8f9_ee44_06b6, 35, BIG_MUL_ADD_VWW),
    whole(BIG_MULADDVWW_G, "go1.27, call counters", 0x9d06_dd04_de34_bf33, 35 + COUNTER_OPERATORS, BIG_MUL_ADD_VWW),
    whole(BIG_ADDMULVVWW_G, "go1.25, raw", 0xf420_e49b_9eb6_fb3d, 37, BIG_ADD_MUL_VVWW),
    whole(BIG_ADDMULVVWW_G, "go1.25, call counters", 0x8b9e_88cc_a0ea_9346, 37 + COUNTER_OPERATORS, BIG_ADD_MUL_VVWW),
    whole(BIG_ADDMULVVWW_G, "go1.26, raw", 0x8cd4_c458_08e5_a011, 36, BIG_ADD_MUL_VVWW),
    whole(BIG_ADDMULVVWW_G, "go1.26, call counters", 0x2751_9d7e_fd88_e860, 36 + COUNTER_OPERATORS, BIG_ADD_MUL_VVWW),
    whole(BIG_ADDMULVVWW_G, "go1.27, raw", 0x8ead_a0df_d0a6_4e4c, 36, BIG_ADD_MUL_VVWW),
    whole(BIG_ADDMULVVWW_G, "go1.27, call counters", 0x254b_870b_6054_fbf5, 36 + COUNTER_OPERATORS, BIG_ADD_MUL_VVWW),
];

/// A `Kind::Sha256Blocks` entry: `at_operator` is the jump into the block loop.
const fn sha256(shape: &'static str, fingerprint: u64, at_operator: usize, kind: Kind) -> Known {
    Known { function: SHA256_BLOCK, shape, fingerprint, at_operator, kind }
}

/// A `Kind::WholeCall` entry: `at_operator` is the first after the stack check.
const fn whole(function: &'static str, shape: &'static str, fingerprint: u64, at_operator: usize, code: u32) -> Known {
    Known { function, shape, fingerprint, at_operator, kind: Kind::WholeCall(code) }
}

/// FNV-1a 64 over the bytes of `body`, defined function `func_index`'s, with
/// what depends on where the function sits in its program replaced: each
/// `call`'s function index by the callee's name, and each return address the
/// body pushes (an `i64.const` of its own `PC_F << 16 | PC_B`, where Go's
/// linker numbers `PC_F = 0x1000 +` the defined index) by its `PC_B`, and
/// each address of initialized data (an `i64.const` inside a data segment:
/// SHA-256's table of round constants, a panic's message) by a marker. The
/// bytes there are not hashed: they sit next to other data, which differs
/// from program to program. The same Go function then fingerprints the same
/// in every program.
pub fn fingerprint(info: &ModuleInfo, func_index: u32, body: &FunctionBody<'_>) -> wasmparser::Result<u64> {
    let own_pc_f = 0x1000 + func_index.saturating_sub(info.num_imported_funcs) as i64;
    let bytes = body.as_bytes();
    let start = body.range().start;
    let at = |position: u64| (position - start) as usize;
    let mut hash = Fnv64::new();
    let mut ops = body.get_operators_reader()?;
    hash.write(&bytes[..at(ops.original_position())]);
    while !ops.eof() {
        let from = at(ops.original_position());
        match ops.read()? {
            Operator::Call { function_index } => {
                hash.write(b"call ");
                hash.write(info.func_name(function_index).as_bytes());
                hash.write(b"\0");
            }
            Operator::I64Const { value } if value >> 16 == own_pc_f => {
                hash.write(b"own pc ");
                hash.write(&(value & 0xffff).to_le_bytes());
            }
            Operator::I64Const { value } if in_data(info, value) => hash.write(b"data address"),
            _ => hash.write(&bytes[from..at(ops.original_position())]),
        }
    }
    Ok(hash.0)
}

/// The known body that `body`, defined function `func_index`'s, matches.
pub(crate) fn select(info: &ModuleInfo, func_index: u32, body: &FunctionBody<'_>) -> Option<&'static Known> {
    let name = info.func_names.get(func_index as usize)?.as_deref()?;
    let candidates = || KNOWN.iter().filter(|k| k.function == name);
    candidates().next()?;
    // Every Go function on wasm takes PC_B and returns whether to unwind.
    let ty = info.func_type(func_index);
    if ty.params != [ValType::I32] || ty.results != [ValType::I32] {
        return None;
    }
    let fingerprint = fingerprint(info, func_index, body).ok()?;
    let known = candidates().find(|k| k.fingerprint == fingerprint)?;
    calls_only_exits(info, body).then_some(known)
}

/// Whether `body` calls no defined function but the ways out of it: the
/// stack check's `runtime.morestack_noctxt`, a nil check's
/// `runtime.sigpanic` and a panic's `runtime.gopanic`. The native code must
/// skip no counted call. (Imports are the counter's hook; Go's own code
/// does not call WASI from these functions.)
fn calls_only_exits(info: &ModuleInfo, body: &FunctionBody<'_>) -> bool {
    let Ok(mut ops) = body.get_operators_reader() else { return false };
    while !ops.eof() {
        let Ok(op) = ops.read() else { return false };
        if let Operator::Call { function_index } = op
            && !info.is_imported_func(function_index)
            && !matches!(
                info.func_name(function_index).as_str(),
                "runtime.morestack_noctxt" | "runtime.sigpanic" | "runtime.gopanic"
            )
        {
            return false;
        }
    }
    true
}

/// One function of a module that compiles with an intrinsic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Substitution {
    pub func_index: u32,
    pub function: &'static str,
    pub shape: &'static str,
}

/// The functions of `wasm` that compile with an intrinsic (when
/// `CompileConfig::intrinsics` is on).
pub fn substitutions(wasm: &[u8]) -> Result<Vec<Substitution>> {
    let parsed = crate::module::parse(wasm)?;
    let info = &parsed.info;
    let mut found = Vec::new();
    for (i, range) in parsed.bodies.iter().enumerate() {
        let func_index = info.num_imported_funcs + i as u32;
        if let Some(known) = select(info, func_index, &body_at(wasm, range)) {
            found.push(Substitution { func_index, function: known.function, shape: known.shape });
        }
    }
    Ok(found)
}

/// The fingerprint of every defined function named `name` in `wasm`, for
/// recording a new entry of `KNOWN`.
pub fn fingerprints_of(wasm: &[u8], name: &str) -> Result<Vec<u64>> {
    let parsed = crate::module::parse(wasm)?;
    let info = &parsed.info;
    let mut found = Vec::new();
    for (i, range) in parsed.bodies.iter().enumerate() {
        let func_index = info.num_imported_funcs + i as u32;
        if info.func_name(func_index) == name {
            let invalid = |e: wasmparser::BinaryReaderError| Error::Invalid {
                message: e.message().to_string(),
                offset: e.offset() as usize,
                function: Some(name.to_string()),
            };
            found.push(fingerprint(info, func_index, &body_at(wasm, range)).map_err(invalid)?);
        }
    }
    Ok(found)
}

/// Whether `address` lies inside one of the module's data segments.
fn in_data(info: &ModuleInfo, address: i64) -> bool {
    let Ok(address) = u32::try_from(address) else { return false };
    info.data.iter().any(|segment| {
        let Some([ConstOp::I32(offset)]) = segment.offset.as_ref().map(|o| o.ops()) else { return false };
        address.checked_sub(*offset as u32).is_some_and(|at| (at as usize) < segment.bytes.len())
    })
}

fn body_at<'a>(wasm: &'a [u8], range: &Range<usize>) -> FunctionBody<'a> {
    FunctionBody::new(wasmparser::BinaryReader::new(&wasm[range.clone()], range.start as u64))
}

struct Fnv64(u64);

impl Fnv64 {
    fn new() -> Self {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}
