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

pub(crate) mod sha256;

use crate::error::{Error, Result};
use crate::module::{ConstOp, ModuleInfo};
use std::ops::Range;
use wasmparser::{FunctionBody, Operator};

/// What an intrinsic computes, and where the known body keeps what it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `crypto/internal/fips140/sha256.blockGeneric`'s loop over 64-byte
    /// blocks: all but the last block (`sha256::blocks`).
    Sha256Blocks(Sha256Locals),
}

impl Kind {
    /// The libcall's `kind` argument.
    pub(crate) fn code(self) -> u32 {
        match self {
            Kind::Sha256Blocks(_) => SHA256_BLOCKS,
        }
    }
}

pub(crate) const SHA256_BLOCKS: u32 = 1;

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
/// Go 1.26 keeps the length in local 10 and the capacity in 12.
const SHA256_GO126: Kind = Kind::Sha256Blocks(Sha256Locals { state: 2, len: 10, ptr: 11, cap: 12 });
/// Go 1.25 and 1.27 swap them.
const SHA256_GO125_GO127: Kind = Kind::Sha256Blocks(Sha256Locals { state: 2, len: 12, ptr: 11, cap: 10 });
/// The operators the call counter puts before a body.
const COUNTER_OPERATORS: usize = 10;

/// Every body with an intrinsic. A new Go release or a change to the
/// instrumentation makes new fingerprints: the `intrinsics` tests say which.
const KNOWN: &[Known] = &[
    Known {
        function: SHA256_BLOCK,
        shape: "go1.26, raw",
        fingerprint: 0x73c3_1d4a_b523_e63a,
        at_operator: 120,
        kind: SHA256_GO126,
    },
    Known {
        function: SHA256_BLOCK,
        shape: "go1.26, call counters",
        fingerprint: 0x0cf4_dd42_5777_cfe5,
        at_operator: 120 + COUNTER_OPERATORS,
        kind: SHA256_GO126,
    },
    Known {
        function: SHA256_BLOCK,
        shape: "go1.25, raw",
        fingerprint: 0xb4f8_d1fc_9427_2fb1,
        at_operator: 123,
        kind: SHA256_GO125_GO127,
    },
    Known {
        function: SHA256_BLOCK,
        shape: "go1.25, call counters",
        fingerprint: 0x19e5_aba2_4bc1_4820,
        at_operator: 123 + COUNTER_OPERATORS,
        kind: SHA256_GO125_GO127,
    },
    Known {
        function: SHA256_BLOCK,
        shape: "go1.27, raw",
        fingerprint: 0x7566_b4d5_e2a6_56fe,
        at_operator: 120,
        kind: SHA256_GO125_GO127,
    },
    Known {
        function: SHA256_BLOCK,
        shape: "go1.27, call counters",
        fingerprint: 0x24c7_8a07_266f_1a91,
        at_operator: 120 + COUNTER_OPERATORS,
        kind: SHA256_GO125_GO127,
    },
];

/// FNV-1a 64 over the bytes of `body`, defined function `func_index`'s, with
/// what depends on where the function sits in its program replaced: each
/// `call`'s function index by the callee's name, and each return address the
/// body pushes (an `i64.const` of its own `PC_F << 16 | PC_B`, where Go's
/// linker numbers `PC_F = 0x1000 +` the defined index) by its `PC_B`, and
/// each address of initialized data (an `i64.const` inside a data segment,
/// such as SHA-256's table of round constants) by the bytes there. The same
/// Go function then fingerprints the same in every program.
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
            Operator::I64Const { value } if let Some(data) = data_at(info, value) => {
                hash.write(b"data ");
                hash.write(data);
            }
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
    let fingerprint = fingerprint(info, func_index, body).ok()?;
    candidates().find(|k| k.fingerprint == fingerprint)
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

/// Up to `DATA_BYTES` of the data segment holding address `address`.
fn data_at(info: &ModuleInfo, address: i64) -> Option<&[u8]> {
    const DATA_BYTES: usize = 256;
    let address = u32::try_from(address).ok()?;
    info.data.iter().find_map(|segment| {
        let [ConstOp::I32(offset)] = segment.offset.as_ref()?.ops() else { return None };
        let at = address.checked_sub(*offset as u32)? as usize;
        let bytes = segment.bytes.get(at..)?;
        (!bytes.is_empty()).then(|| &bytes[..bytes.len().min(DATA_BYTES)])
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
