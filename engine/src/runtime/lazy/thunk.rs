//! A lazy function's thunk: the few instructions every caller enters before
//! the function is compiled, and callers compiled before it after. It stores
//! the function's index in the vmctx (`vmctx::LAZY_FUNC`) and jumps to the
//! address in the function's slot: its signature's stub until the function
//! is compiled (the stub reads the index back and asks for the code), then
//! the code itself. A thunk is written once and never patched: only the
//! slot, plain data, changes.
//!
//! Thunks are hand-encoded because they must keep every argument register
//! untouched, which no Cranelift function can promise. They use only
//! registers the wasm calling convention leaves free at a call (x86-64: the
//! first argument register holds the vmctx, rax is scratch; aarch64: x0 holds
//! the vmctx, x16 and x17 are the intra-procedure-call scratch registers).

use crate::runtime::vmctx::LAZY_FUNC;

/// Bytes per thunk (a multiple of 16, so every thunk is aligned as functions are).
pub const SIZE: usize = 32;

/// The thunk for function `func_index`, whose slot is at `slot`. With
/// `store` false it only jumps: for a function compiled before any guest
/// runs, whose first argument register may not hold the vmctx.
#[cfg(target_arch = "x86_64")]
pub fn encode(func_index: u32, slot: usize, store: bool) -> [u8; SIZE] {
    let mut out = [0xcc; SIZE];
    // mov dword [rdi + LAZY_FUNC], func_index (or a 10-byte nop)
    out[..10].copy_from_slice(&[0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0]);
    if store {
        out[..2].copy_from_slice(&[0xc7, 0x87]);
        out[2..6].copy_from_slice(&LAZY_FUNC.to_le_bytes());
        out[6..10].copy_from_slice(&func_index.to_le_bytes());
    }
    // mov rax, slot
    out[10..12].copy_from_slice(&[0x48, 0xb8]);
    out[12..20].copy_from_slice(&(slot as u64).to_le_bytes());
    // jmp qword [rax]
    out[20..22].copy_from_slice(&[0xff, 0x20]);
    out
}

/// The thunk for function `func_index`, whose slot is at `slot`. With
/// `store` false it only jumps: for a function compiled before any guest
/// runs, whose first argument register may not hold the vmctx.
#[cfg(target_arch = "aarch64")]
pub fn encode(func_index: u32, slot: usize, store: bool) -> [u8; SIZE] {
    const W16: u32 = 16;
    const X17: u32 = 17;
    const NOP: u32 = 0xd503_201f;
    let words: [u32; 5] = [
        0x1800_0000 | (5 << 5) | W16, // ldr w16, #20 (the index below)
        if store { 0xb900_0000 | ((LAZY_FUNC as u32 / 4) << 10) | W16 } else { NOP }, // str w16, [x0, #LAZY_FUNC]
        0x5800_0000 | (4 << 5) | X17, // ldr x17, #24 (the slot's address)
        0xf940_0000 | (X17 << 5) | X17, // ldr x17, [x17]
        0xd61f_0000 | (X17 << 5),     // br x17
    ];
    let mut out = [0; SIZE];
    for (i, word) in words.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&word.to_le_bytes());
    }
    out[20..24].copy_from_slice(&func_index.to_le_bytes());
    out[24..32].copy_from_slice(&(slot as u64).to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thunk_names_its_function_and_its_slot() {
        let thunk = encode(0x0102_0304, 0x1122_3344_5566_7788, true);
        assert_ne!(thunk, encode(0x0102_0304, 0x1122_3344_5566_7788, false), "the store is left out");
        let bytes = |at: usize, len: usize| thunk[at..at + len].to_vec();
        if cfg!(target_arch = "x86_64") {
            assert_eq!(bytes(6, 4), 0x0102_0304u32.to_le_bytes());
            assert_eq!(bytes(12, 8), 0x1122_3344_5566_7788u64.to_le_bytes());
        } else {
            assert_eq!(bytes(20, 4), 0x0102_0304u32.to_le_bytes());
            assert_eq!(bytes(24, 8), 0x1122_3344_5566_7788u64.to_le_bytes());
        }
    }
}
