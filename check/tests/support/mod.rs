//! Shared by the integration tests (`porcupine.rs` by the bench example too, `history.rs` by
//! `brute_force.rs` alone).

pub mod history;
pub mod porcupine;
