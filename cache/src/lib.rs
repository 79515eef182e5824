//! On-disk store of compiled Artifacts keyed by blake3. Arrives with the cache issue; empty until then.
