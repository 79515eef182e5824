//! The on-disk entry format. One file per key, `<key hex>.sfc`:
//!
//! ```text
//! offset size
//!      0    8  magic b"SFCACHE\0"
//!      8    4  entry format version, u32 LE (ENTRY_VERSION)
//!     12    4  flags, u32 LE: bit 0 set = the MAC field holds a MAC
//!              (always, since entries are sealed: `auth.rs`)
//!     16   32  the key
//!     48    8  payload length, u64 LE
//!     56   32  blake3 of bytes 0..56 followed by the payload
//!     88   32  MAC: blake3 keyed hash of bytes 0..88 under this user's
//!              key or the shared secret (`auth.rs`)
//!    120    …  payload: the Artifact's own encoding (`Artifact::encode`)
//! ```
//!
//! The checksum covers the header too, so a flipped bit anywhere is caught;
//! the MAC covers the checksum, so it vouches for every byte. Verification
//! reads nothing but these bytes and never trusts the length.

use crate::{Key, Secret, hash_bytes};

pub const MAGIC: &[u8; 8] = b"SFCACHE\0";
/// Bump on any change to the layout above.
pub const ENTRY_VERSION: u32 = 2;
pub const HEADER_LEN: usize = 120;
const CHECKED_LEN: usize = 56;
const MACED_LEN: usize = 88;
const FLAG_MAC: u32 = 1;

/// The header for `payload` stored under `key`, sealed with `secret`.
pub fn header(key: &Key, payload: &[u8], secret: &Secret) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[0..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&ENTRY_VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&FLAG_MAC.to_le_bytes());
    h[16..48].copy_from_slice(&key.0);
    h[48..56].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    let sum = checksum(&h[..CHECKED_LEN], payload);
    h[56..88].copy_from_slice(sum.as_bytes());
    seal(&mut h, secret);
    h
}

/// Set the MAC of an entry (or header) whose checksum is right: one keyed
/// hash of 88 bytes, so resealing a verified entry under another key costs
/// nothing measurable. (The flag is checksummed, so it is left as written:
/// the MAC alone decides.)
pub fn seal(entry: &mut [u8], secret: &Secret) {
    let mac = secret.mac(&entry[..MACED_LEN]);
    entry[88..120].copy_from_slice(mac.as_bytes());
}

fn checksum(checked_header: &[u8], payload: &[u8]) -> blake3::Hash {
    let mut hasher = blake3::Hasher::new();
    hasher.update(checked_header);
    hash_bytes(&mut hasher, payload);
    hasher.finalize()
}

/// The header fields alone, checked for shape: everything but the checksum.
pub struct Header {
    pub key: Key,
    pub payload_len: u64,
}

/// Check magic, version and length; returns the stored key. Cheap.
pub fn read_header(bytes: &[u8]) -> Result<Header, String> {
    if bytes.len() < HEADER_LEN {
        return Err(format!("truncated: {} bytes, shorter than the {HEADER_LEN}-byte header", bytes.len()));
    }
    if &bytes[0..8] != MAGIC {
        return Err("not a seedfall cache entry (bad magic)".into());
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != ENTRY_VERSION {
        return Err(format!("entry format version {version}, this build reads {ENTRY_VERSION}"));
    }
    let key = Key(bytes[16..48].try_into().expect("32 bytes"));
    let payload_len = u64::from_le_bytes(bytes[48..56].try_into().expect("8 bytes"));
    let actual = (bytes.len() - HEADER_LEN) as u64;
    if payload_len > actual {
        return Err(format!("truncated: header promises {payload_len} payload bytes, file has {actual}"));
    }
    if payload_len < actual {
        return Err(format!("{} trailing bytes after the payload", actual - payload_len));
    }
    Ok(Header { key, payload_len })
}

/// Fully verify an entry: header, the key it claims (when `expected` is
/// given), the checksum, and with `secret` the MAC (only a remote entry
/// fetched with `SEEDFALL_REMOTE_CACHE_INSECURE` is checked without one, and
/// then sealed before it is stored). Returns the payload.
pub fn verify<'a>(bytes: &'a [u8], expected: Option<&Key>, secret: Option<&Secret>) -> Result<&'a [u8], String> {
    let header = read_header(bytes)?;
    if let Some(expected) = expected.filter(|k| **k != header.key) {
        return Err(format!("holds key {}, not {}", header.key, expected));
    }
    let payload = &bytes[HEADER_LEN..HEADER_LEN + header.payload_len as usize];
    let sum = checksum(&bytes[..CHECKED_LEN], payload);
    if sum.as_bytes() != &bytes[56..88] {
        return Err("checksum mismatch (the entry is corrupt)".into());
    }
    if let Some(secret) = secret {
        let stored = blake3::Hash::from_bytes(bytes[88..120].try_into().expect("32 bytes"));
        // blake3::Hash compares in constant time.
        if secret.mac(&bytes[..MACED_LEN]) != stored {
            return Err(format!(
                "not authenticated by {} (no valid MAC: written by another user or machine, or forged)",
                secret.name()
            ));
        }
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: &Key, payload: &[u8], secret: &Secret) -> Vec<u8> {
        let mut entry = header(key, payload, secret).to_vec();
        entry.extend_from_slice(payload);
        entry
    }

    #[test]
    fn header_round_trip_and_every_single_bit_flip_is_caught() {
        let key = Key([7; 32]);
        let payload = b"an artifact, or so it says".to_vec();
        let ours = Secret::private([1; 32]);
        let entry = entry(&key, &payload, &ours);
        assert_eq!(verify(&entry, Some(&key), Some(&ours)).unwrap(), &payload[..]);
        assert!(verify(&entry, Some(&Key([8; 32])), Some(&ours)).unwrap_err().contains("holds key"));
        for byte in 0..entry.len() {
            let mut bad = entry.clone();
            bad[byte] ^= 0x01;
            assert!(verify(&bad, Some(&key), Some(&ours)).is_err(), "flip at byte {byte} went unnoticed");
            if !(MACED_LEN..HEADER_LEN).contains(&byte) {
                assert!(verify(&bad, Some(&key), None).is_err(), "flip at byte {byte}: the checksum alone");
            }
        }
        let mut reserved = entry.clone();
        reserved[13] = 1;
        assert!(verify(&reserved, None, None).unwrap_err().contains("checksum"), "the header is checksummed too");
    }

    #[test]
    fn only_entries_sealed_with_the_key_verify_and_a_checked_entry_can_be_resealed() {
        let key = Key([7; 32]);
        let payload = b"native code".to_vec();
        let (ours, theirs) = (Secret::new(b"ours").unwrap(), Secret::new(b"theirs").unwrap());
        let signed = entry(&key, &payload, &ours);
        assert_eq!(verify(&signed, Some(&key), Some(&ours)).unwrap(), &payload[..]);
        assert_eq!(verify(&signed, Some(&key), None).unwrap(), &payload[..], "the checksum alone");
        let unauthenticated = |e: String| e.contains("not authenticated by SEEDFALL_CACHE_SECRET");
        assert!(unauthenticated(verify(&signed, Some(&key), Some(&theirs)).unwrap_err()));
        let user = Secret::private([2; 32]);
        let error = verify(&signed, Some(&key), Some(&user)).unwrap_err();
        assert!(error.contains("not authenticated by this user's cache.key"), "{error}");
        // A forger without the key who rewrites payload and checksum still lacks the MAC.
        let mut forged = entry(&key, b"evil code!!", &theirs);
        forged[88..120].copy_from_slice(&signed[88..120]);
        assert!(verify(&forged, Some(&key), Some(&ours)).is_err());
        for byte in 0..signed.len() {
            let mut bad = signed.clone();
            bad[byte] ^= 0x80;
            assert!(verify(&bad, Some(&key), Some(&ours)).is_err(), "flip at byte {byte} went unnoticed");
        }
        let mut resealed = signed.clone();
        seal(&mut resealed, &user);
        assert_eq!(verify(&resealed, Some(&key), Some(&user)).unwrap(), &payload[..]);
        assert!(verify(&resealed, Some(&key), Some(&ours)).is_err());
        assert!(Secret::new(b"").is_none(), "an empty secret authenticates nothing");
    }
}
