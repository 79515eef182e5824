//! The SHA-256 intrinsic: the blocks of `blockGeneric`'s loop but its last,
//! compressed natively (SHA-NI where the CPU has it, through the `sha2`
//! crate). It reads and writes only its argument buffer: the wasm body writes
//! the digest back to memory itself, after its own last iteration.

use sha2::digest::generic_array::GenericArray;

/// The argument buffer: the eight state words as the function's i64 locals
/// hold them (only the low 32 bits count), the data pointer as its local
/// holds it (the body loads through its low 32 bits), and the number of
/// 64-byte blocks to compress.
pub(crate) const ARGS: usize = 10;
const PTR: usize = 8;
const BLOCKS: usize = 9;

/// Compress `args[BLOCKS]` blocks of `memory` at `args[PTR]` into the state
/// `args[..8]`, each word written back zero-extended. False, changing
/// nothing, when the blocks do not all lie inside `memory`: the wasm body
/// then runs them and traps where it would have.
pub(crate) fn blocks(memory: &[u8], args: &mut [u64; ARGS]) -> bool {
    let start = args[PTR] as u32 as usize;
    let Some(end) = args[BLOCKS].checked_mul(64).and_then(|len| start.checked_add(usize::try_from(len).ok()?)) else {
        return false;
    };
    let Some(data) = memory.get(start..end) else { return false };
    let mut state: [u32; 8] = std::array::from_fn(|i| args[i] as u32);
    let (blocks, rest) = data.as_chunks::<64>();
    debug_assert!(rest.is_empty());
    for block in blocks {
        sha2::compress256(&mut state, std::slice::from_ref(GenericArray::from_slice(block)));
    }
    for (slot, word) in args.iter_mut().zip(state) {
        *slot = word as u64;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The standard's two-block example ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
    /// padded by hand, against its published digest.
    #[test]
    fn two_blocks_give_the_published_digest() {
        let message = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        let mut memory = vec![0u8; 256];
        memory[64..64 + message.len()].copy_from_slice(message);
        memory[64 + message.len()] = 0x80;
        memory[64 + 120..64 + 128].copy_from_slice(&((message.len() as u64) * 8).to_be_bytes());
        let initial =
            [0x6a09e667u32, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
        let mut args = [0u64; ARGS];
        for (slot, word) in args.iter_mut().zip(initial) {
            // Upper bits as Go's i64 arithmetic may leave them: ignored.
            *slot = (1 << 40) | word as u64;
        }
        args[PTR] = (7 << 32) | 64;
        args[BLOCKS] = 2;
        assert!(blocks(&memory, &mut args));
        let digest: Vec<u32> = args[..8].iter().map(|w| *w as u32).collect();
        let expected =
            [0x248d6a61u32, 0xd20638b8, 0xe5c02693, 0x0c3e6039, 0xa33ce459, 0x64ff2167, 0xf6ecedd4, 0x19db06c1];
        assert_eq!(digest, expected);
        assert!(args[..8].iter().all(|w| w >> 32 == 0), "written back zero-extended");
    }

    #[test]
    fn blocks_outside_memory_change_nothing() {
        let memory = vec![0u8; 256];
        for (ptr, count) in [(200u64, 1u64), (0, 5), (0, u64::MAX), (u32::MAX as u64, 1)] {
            let mut args = [3u64; ARGS];
            args[PTR] = ptr;
            args[BLOCKS] = count;
            let before = args;
            assert!(!blocks(&memory, &mut args), "{ptr} {count}");
            assert_eq!(args, before);
        }
    }
}
