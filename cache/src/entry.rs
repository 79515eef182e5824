//! The on-disk entry format. One file per key, `<key hex>.sfc`:
//!
//! ```text
//! offset size
//!      0    8  magic b"SFCACHE\0"
//!      8    4  entry format version, u32 LE (ENTRY_VERSION)
//!     12    4  reserved, zero
//!     16   32  the key
//!     48    8  payload length, u64 LE
//!     56   32  blake3 of bytes 0..56 followed by the payload
//!     88    …  payload: the Artifact's own encoding (`Artifact::encode`)
//! ```
//!
//! The checksum covers the header too, so a flipped bit anywhere is caught.
//! Verification reads nothing but these bytes and never trusts the length.

use crate::{Key, hash_bytes};

pub const MAGIC: &[u8; 8] = b"SFCACHE\0";
/// Bump on any change to the layout above.
pub const ENTRY_VERSION: u32 = 1;
pub const HEADER_LEN: usize = 88;
const CHECKED_LEN: usize = 56;

/// The header and checksum for `payload` stored under `key`.
pub fn header(key: &Key, payload: &[u8]) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[0..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&ENTRY_VERSION.to_le_bytes());
    h[16..48].copy_from_slice(&key.0);
    h[48..56].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    let sum = checksum(&h[..CHECKED_LEN], payload);
    h[56..88].copy_from_slice(sum.as_bytes());
    h
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

/// Fully verify an entry read from disk: header, the key it claims (when
/// `expected` is given) and the checksum. Returns the payload.
pub fn verify<'a>(bytes: &'a [u8], expected: Option<&Key>) -> Result<&'a [u8], String> {
    let header = read_header(bytes)?;
    if let Some(expected) = expected.filter(|k| **k != header.key) {
        return Err(format!("holds key {}, not {}", header.key, expected));
    }
    let payload = &bytes[HEADER_LEN..HEADER_LEN + header.payload_len as usize];
    let sum = checksum(&bytes[..CHECKED_LEN], payload);
    if sum.as_bytes() != &bytes[56..88] {
        return Err("checksum mismatch (the entry is corrupt)".into());
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip_and_every_single_bit_flip_is_caught() {
        let key = Key([7; 32]);
        let payload = b"an artifact, or so it says".to_vec();
        let mut entry = header(&key, &payload).to_vec();
        entry.extend_from_slice(&payload);
        assert_eq!(verify(&entry, Some(&key)).unwrap(), &payload[..]);
        assert!(verify(&entry, Some(&Key([8; 32]))).unwrap_err().contains("holds key"));
        for byte in 0..entry.len() {
            let mut bad = entry.clone();
            bad[byte] ^= 0x01;
            assert!(verify(&bad, Some(&key)).is_err(), "flip at byte {byte} went unnoticed");
        }
        let mut reserved = entry.clone();
        reserved[13] = 1;
        assert!(verify(&reserved, None).unwrap_err().contains("checksum"), "the header is checksummed too");
    }
}
