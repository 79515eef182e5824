//! The string values of `kv` and `register`, interned so that a state is one integer, including the strings
//! that appends build during the search. A concatenation is identified by a polynomial hash and length
//! computed from its two parts in O(1), and spelled out only to confirm a hash match: an append the search
//! has not seen before allocates nothing, where building and hashing the whole string made the allocator
//! the larger part of checking an append-heavy history.

use rustc_hash::FxHashMap;

const NONE: u32 = u32::MAX;
/// An odd base, fixed so ids, and so the search's order, never vary between runs. The hash is taken modulo
/// 2^64 (wrapping arithmetic, one multiply a byte): collisions, which such hashes have for some strings,
/// only cost the comparison that confirms every match, never a wrong answer.
const BASE: u64 = 0x1f3d_5b79_a2c4_e681;

enum Spelling {
    Text(Box<str>),
    /// The concatenation of two interned strings.
    Join(u32, u32),
}

struct Entry {
    hash: u64,
    len: usize,
    /// BASE^len, to shift this string's hash left when something is appended to it.
    shift: u64,
    spelling: Spelling,
    /// The previous string with the same (hash, len).
    same: u32,
}

#[derive(Default)]
pub(crate) struct Strings {
    entries: Vec<Entry>,
    /// (hash, len) -> the latest string with them.
    heads: FxHashMap<(u64, usize), u32>,
    joins: FxHashMap<(u32, u32), u32>,
    /// Texts already interned: a history repeats its values (every get of one state returns the same
    /// text), and a map lookup is cheaper than hashing the text byte by byte again.
    texts: FxHashMap<Box<str>, u32>,
}

impl Strings {
    /// The id of a string from the history.
    pub(crate) fn text(&mut self, text: &str) -> u32 {
        if let Some(&id) = self.texts.get(text) {
            return id;
        }
        let (mut hash, mut shift) = (0u64, 1u64);
        for &byte in text.as_bytes() {
            hash = hash.wrapping_mul(BASE).wrapping_add(u64::from(byte) + 1);
            shift = shift.wrapping_mul(BASE);
        }
        let spelled = self.find(hash, text.len(), |s, id| s.spell(id) == text);
        let id = spelled.unwrap_or_else(|| self.push(hash, text.len(), shift, Spelling::Text(text.into())));
        self.texts.insert(text.into(), id);
        id
    }

    /// The id of `prefix` followed by `suffix`.
    pub(crate) fn join(&mut self, prefix: u32, suffix: u32) -> u32 {
        if let Some(&id) = self.joins.get(&(prefix, suffix)) {
            return id;
        }
        let (a, b) = (&self.entries[prefix as usize], &self.entries[suffix as usize]);
        let hash = a.hash.wrapping_mul(b.shift).wrapping_add(b.hash);
        let (len, shift) = (a.len + b.len, a.shift.wrapping_mul(b.shift));
        let id = match self.find(hash, len, |s, id| s.spell(id) == s.spell(prefix) + &s.spell(suffix)) {
            Some(id) => id,
            None => self.push(hash, len, shift, Spelling::Join(prefix, suffix)),
        };
        self.joins.insert((prefix, suffix), id);
        id
    }

    /// The string itself.
    pub(crate) fn spell(&self, id: u32) -> String {
        let mut out = String::with_capacity(self.entries[id as usize].len);
        let mut pending = vec![id];
        while let Some(id) = pending.pop() {
            match &self.entries[id as usize].spelling {
                Spelling::Text(text) => out.push_str(text),
                Spelling::Join(prefix, suffix) => pending.extend([*suffix, *prefix]),
            }
        }
        out
    }

    fn find(&self, hash: u64, len: usize, equal: impl Fn(&Strings, u32) -> bool) -> Option<u32> {
        let mut at = self.heads.get(&(hash, len)).copied().unwrap_or(NONE);
        while at != NONE {
            if equal(self, at) {
                return Some(at);
            }
            at = self.entries[at as usize].same;
        }
        None
    }

    fn push(&mut self, hash: u64, len: usize, shift: u64, spelling: Spelling) -> u32 {
        let id = u32::try_from(self.entries.len()).expect("fewer than 2^32 distinct strings");
        let same = self.heads.insert((hash, len), id).unwrap_or(NONE);
        self.entries.push(Entry { hash, len, shift, spelling, same });
        id
    }
}

#[cfg(test)]
mod tests {
    use super::Strings;

    #[test]
    fn equal_strings_have_one_id_however_they_are_built() {
        let mut s = Strings::default();
        let (a, b, c, ab, abc) = (s.text("a"), s.text("b"), s.text("c"), s.text("ab"), s.text("abc"));
        assert_eq!(s.join(a, b), ab);
        let bc = s.join(b, c);
        assert_eq!(s.join(a, bc), abc);
        assert_eq!(s.join(ab, c), abc);
        let bca = s.join(bc, a);
        assert_eq!(s.spell(bca), "bca");
        assert_ne!(s.join(b, a), ab);
        assert_eq!(s.text("a"), a);
        let empty = s.text("");
        assert_eq!(s.join(empty, a), a);
    }
}
