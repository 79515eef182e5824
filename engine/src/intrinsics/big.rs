//! `math/big`'s word-vector loops, whole: each reads its arguments from the
//! Go stack at SP (Go's wasm ABI0: arguments from SP+8, results after them),
//! runs the loop over guest memory element by element, in the order the Go
//! code does (so overlapping vectors give the same words), and writes the
//! result slot. The translator then returns from the function as its own
//! epilogue would. Each checks everything it will touch before writing
//! anything: on a length mismatch (Go panics) or a range outside memory it
//! changes nothing and returns false, and the wasm body runs instead.

/// The Go stack of one call, and guest memory.
struct Call<'a> {
    memory: &'a mut [u8],
    sp: usize,
}

impl Call<'_> {
    /// The word at `address`, which the caller checked lies inside memory.
    fn word_at(&self, address: usize) -> u64 {
        debug_assert!(address + 8 <= self.memory.len());
        // SAFETY: in bounds, as checked before every loop (`same_lengths`);
        // wasm memory is little-endian and unaligned accesses are allowed.
        u64::from_le(unsafe { std::ptr::read_unaligned(self.memory.as_ptr().add(address) as *const u64) })
    }

    /// Store at `address`, which the caller checked lies inside memory.
    fn set_word_at(&mut self, address: usize, value: u64) {
        debug_assert!(address + 8 <= self.memory.len());
        // SAFETY: as in `word_at`.
        unsafe { std::ptr::write_unaligned(self.memory.as_mut_ptr().add(address) as *mut u64, value.to_le()) }
    }

    /// The argument word at `offset` from SP, if inside memory.
    fn arg(&self, offset: usize) -> Option<u64> {
        let at = self.sp.checked_add(offset)?;
        (at.checked_add(8)? <= self.memory.len()).then(|| self.word_at(at))
    }

    /// The `[]Word` whose header is at `offset` from SP: (address, length),
    /// if all of its words lie inside memory. The body loads through the low
    /// 32 bits of the pointer.
    fn vector(&self, offset: usize) -> Option<(usize, usize)> {
        let ptr = self.arg(offset)? as u32 as usize;
        let len = usize::try_from(self.arg(offset + 8)?).ok()?;
        let end = len.checked_mul(8)?.checked_add(ptr)?;
        (end <= self.memory.len()).then_some((ptr, len))
    }

    /// `len` words `vectors` and the result slot at `result` from SP, when
    /// all have length `len` and the slot is inside memory.
    fn same_lengths<const N: usize>(&self, offsets: [usize; N], result: usize) -> Option<([usize; N], usize)> {
        let (_, len) = self.vector(offsets[0])?;
        let mut starts = [0; N];
        for (start, offset) in starts.iter_mut().zip(offsets) {
            let (ptr, n) = self.vector(offset)?;
            if n != len {
                return None;
            }
            *start = ptr;
        }
        self.arg(result)?;
        Some((starts, len))
    }
}

/// `addVV_g(z, x, y []Word) (c Word)`: z = x + y, the carry out.
pub(crate) fn add_vv(memory: &mut [u8], sp: usize) -> bool {
    let mut call = Call { memory, sp };
    let Some(([z, x, y], len)) = call.same_lengths([8, 32, 56], 80) else { return false };
    let mut carry = 0u64;
    for i in 0..len {
        let sum = call.word_at(x + 8 * i) as u128 + call.word_at(y + 8 * i) as u128 + carry as u128;
        call.set_word_at(z + 8 * i, sum as u64);
        carry = (sum >> 64) as u64;
    }
    call.set_word_at(sp + 80, carry);
    true
}

/// `subVV_g(z, x, y []Word) (c Word)`: z = x - y, the borrow out.
pub(crate) fn sub_vv(memory: &mut [u8], sp: usize) -> bool {
    let mut call = Call { memory, sp };
    let Some(([z, x, y], len)) = call.same_lengths([8, 32, 56], 80) else { return false };
    let mut borrow = 0u64;
    for i in 0..len {
        let (a, b) = (call.word_at(x + 8 * i), call.word_at(y + 8 * i));
        let (d1, b1) = a.overflowing_sub(b);
        let (d2, b2) = d1.overflowing_sub(borrow);
        call.set_word_at(z + 8 * i, d2);
        borrow = (b1 | b2) as u64;
    }
    call.set_word_at(sp + 80, borrow);
    true
}

/// `mulAddVWW_g(z, x []Word, y, r Word) (c Word)`: z = x*y + r, the high word out.
pub(crate) fn mul_add_vww(memory: &mut [u8], sp: usize) -> bool {
    let mut call = Call { memory, sp };
    let Some(([z, x], len)) = call.same_lengths([8, 32], 72) else { return false };
    let (Some(y), Some(mut c)) = (call.arg(56), call.arg(64)) else { return false };
    for i in 0..len {
        let t = call.word_at(x + 8 * i) as u128 * y as u128 + c as u128;
        call.set_word_at(z + 8 * i, t as u64);
        c = (t >> 64) as u64;
    }
    call.set_word_at(sp + 72, c);
    true
}

/// `addMulVVWW_g(z, x, y []Word, m, a Word) (c Word)`: z = x + y*m + a, the high word out.
pub(crate) fn add_mul_vvww(memory: &mut [u8], sp: usize) -> bool {
    let mut call = Call { memory, sp };
    let Some(([z, x, y], len)) = call.same_lengths([8, 32, 56], 96) else { return false };
    let (Some(m), Some(mut c)) = (call.arg(80), call.arg(88)) else { return false };
    for i in 0..len {
        // y*m + x + c never exceeds 128 bits: (2^64-1)^2 + 2(2^64-1) = 2^128-1.
        let t = call.word_at(y + 8 * i) as u128 * m as u128 + call.word_at(x + 8 * i) as u128 + c as u128;
        call.set_word_at(z + 8 * i, t as u64);
        c = (t >> 64) as u64;
    }
    call.set_word_at(sp + 96, c);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Memory with a Go stack at SP 0: `vectors` as slice headers from SP+8
    /// (24 bytes each), then the `words` arguments, then a result slot; the
    /// vectors' words from address 1024.
    fn memory_with(vectors: &[&[u64]], words: &[u64]) -> Vec<u8> {
        let mut memory = vec![0u8; 4096];
        let mut at = 1024;
        for (i, v) in vectors.iter().enumerate() {
            let header = 8 + 24 * i;
            for (k, field) in [at as u64, v.len() as u64, v.len() as u64].iter().enumerate() {
                memory[header + 8 * k..header + 8 * k + 8].copy_from_slice(&field.to_le_bytes());
            }
            for w in v.iter() {
                memory[at..at + 8].copy_from_slice(&w.to_le_bytes());
                at += 8;
            }
        }
        for (i, w) in words.iter().enumerate() {
            let slot = 8 + 24 * vectors.len() + 8 * i;
            memory[slot..slot + 8].copy_from_slice(&w.to_le_bytes());
        }
        memory
    }

    fn words(memory: &[u8], at: usize, n: usize) -> Vec<u64> {
        (0..n).map(|i| u64::from_le_bytes(memory[at + 8 * i..at + 8 * i + 8].try_into().unwrap())).collect()
    }

    #[test]
    fn add_and_sub_carry_across_words() {
        let max = u64::MAX;
        let mut memory = memory_with(&[&[0, 0, 0], &[max, max, 1], &[1, 0, max]], &[]);
        assert!(add_vv(&mut memory, 0));
        assert_eq!(words(&memory, 1024, 3), [0, 0, 1]);
        assert_eq!(words(&memory, 80, 1), [1], "the carry out");

        let mut memory = memory_with(&[&[9, 9], &[0, 5], &[1, 5]], &[]);
        assert!(sub_vv(&mut memory, 0));
        assert_eq!(words(&memory, 1024, 2), [max, max]);
        assert_eq!(words(&memory, 80, 1), [1], "the borrow out");
    }

    #[test]
    fn multiply_adds_keep_the_high_words() {
        let max = u64::MAX;
        let mut memory = memory_with(&[&[0, 0], &[max, 2]], &[max, 7]);
        assert!(mul_add_vww(&mut memory, 0));
        // max*max + 7 = (max-1)·2^64 + 8; then 2*max + (max-1) = 2^65 + max - 3.
        assert_eq!(words(&memory, 1024, 2), [8, max - 3]);
        assert_eq!(words(&memory, 72, 1), [2]);

        let mut memory = memory_with(&[&[0], &[max], &[max]], &[max, max]);
        assert!(add_mul_vvww(&mut memory, 0));
        // max*max + max + max = 2^128 - 1: no overflow past two words.
        assert_eq!(words(&memory, 1024, 1), [max]);
        assert_eq!(words(&memory, 96, 1), [max]);
    }

    #[test]
    fn mismatched_lengths_or_ranges_outside_memory_change_nothing() {
        let mut memory = memory_with(&[&[0, 0], &[1], &[1, 1]], &[]);
        let before = memory.clone();
        assert!(!add_vv(&mut memory, 0), "Go panics on different lengths: the wasm body must run");
        assert_eq!(memory, before);
        let mut memory = memory_with(&[&[0], &[1], &[1]], &[]);
        memory[16..24].copy_from_slice(&1_000_000u64.to_le_bytes());
        let before = memory.clone();
        assert!(!sub_vv(&mut memory, 0), "a vector past the end of memory");
        assert_eq!(memory, before);
        assert!(!mul_add_vww(&mut memory, 4090), "arguments past the end of memory");
    }
}
