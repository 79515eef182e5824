//! Shared by the integration tests and the bench example.

pub mod porcupine;
