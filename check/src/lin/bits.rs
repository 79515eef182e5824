//! The set of linearized operations, with a hash kept up to date on every change (Zobrist hashing: each
//! operation has a fixed random word, the hash is the XOR of the words of the set's members). The search
//! looks the set up in its cache at every step; rehashing all words each time would be O(n) per step.

pub(crate) struct Bits {
    words: Box<[u64]>,
    hash: u64,
}

/// Operation `i`'s word: splitmix64 of `i`, fixed so hashes (and hence nothing observable) never vary.
fn zobrist(i: usize) -> u64 {
    let mut z = (i as u64).wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Bits {
    pub(crate) fn new(len: usize) -> Bits {
        Bits { words: vec![0; len.div_ceil(64)].into_boxed_slice(), hash: 0 }
    }

    pub(crate) fn set(&mut self, i: usize) {
        debug_assert!(!self.contains(i));
        self.words[i / 64] |= 1 << (i % 64);
        self.hash ^= zobrist(i);
    }

    pub(crate) fn clear(&mut self, i: usize) {
        debug_assert!(self.contains(i));
        self.words[i / 64] &= !(1 << (i % 64));
        self.hash ^= zobrist(i);
    }

    fn contains(&self, i: usize) -> bool {
        self.words[i / 64] & (1 << (i % 64)) != 0
    }

    pub(crate) fn hash(&self) -> u64 {
        self.hash
    }

    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }
}
