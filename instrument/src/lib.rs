//! Instrumentation pass (wasm → wasm call and loop counters). Arrives with the instrumentation issue; empty until then.
