//! The disk model's conditions in a config's `faults`: how a crash treats
//! pending writes (`torn_writes`, `torn_sector`, `reorder_writes`, `fs_model`,
//! `strict_dirs`, `corrupt_on_crash`), how long an fsync waits
//! (`disk_latency`) and how big the disk is (`disk_bytes`). Conditions hold
//! for the whole run; the per-operation fault kinds (`crash_on_io`,
//! `fsync_eio`, …) declare their own knobs under `world/fault/` and hand
//! their probabilities over through `FaultKind::configure_disk`.

use super::{DEFAULT_DISK_BYTES, DiskConfig, FsModel};
use crate::knob::{FaultConfig, Knob, KnobType, KnobValue};

pub static TORN_WRITES: Knob = Knob::switch("torn_writes", "a crash keeps a seeded in-order prefix of pending writes");
pub static TORN_SECTOR: Knob = Knob {
    name: "torn_sector",
    ty: KnobType::PowerOfTwo { max: 1 << 16 },
    default: KnobValue::Whole(1),
    doc: "a torn write keeps whole sectors of this many bytes of its file",
};
pub static REORDER_WRITES: Knob =
    Knob::switch("reorder_writes", "a crash keeps the pieces of pending writes `fs_model` allows, in any order");
pub static FS_MODEL: Knob = Knob {
    name: "fs_model",
    ty: KnobType::OneOf { names: &FsModel::NAMES, noun: "model" },
    default: KnobValue::OneOf(0),
    doc: "which pieces of pending writes writeback may reach in any order",
};
pub static STRICT_DIRS: Knob =
    Knob::switch("strict_dirs", "a create, rename or unlink survives a crash only after its directory is fsynced");
pub static CORRUPT_ON_CRASH: Knob =
    Knob::probability("corrupt_on_crash", "per crash: one bit of what it writes to disk is flipped");
pub static DISK_LATENCY: Knob = Knob::range("disk_latency", 0, 0, "how long each fsync of a service waits, uniform");
pub static DISK_BYTES: Knob = Knob {
    name: "disk_bytes",
    ty: KnobType::Whole { min: 4096, max: 1 << 40, max_note: " (1 TiB)" },
    default: KnobValue::Whole(DEFAULT_DISK_BYTES),
    doc: "each node's disk size: past it writes are cut short, then fail with ENOSPC",
};

/// In the order docs/config.md lists them.
pub static KNOBS: &[&Knob] = &[
    &TORN_WRITES,
    &TORN_SECTOR,
    &REORDER_WRITES,
    &FS_MODEL,
    &STRICT_DIRS,
    &CORRUPT_ON_CRASH,
    &DISK_LATENCY,
    &DISK_BYTES,
];

impl DiskConfig {
    /// The conditions `config` sets, with every per-operation probability 0.
    pub fn conditions(config: &FaultConfig) -> DiskConfig {
        let fs_model = FsModel::NAMES.get(config.one_of(&FS_MODEL)).and_then(|name| FsModel::from_name(name));
        DiskConfig {
            torn_writes: config.switch(&TORN_WRITES),
            torn_sector: config.whole(&TORN_SECTOR),
            reorder_writes: config.switch(&REORDER_WRITES),
            fs_model: fs_model.unwrap_or_default(),
            strict_dirs: config.switch(&STRICT_DIRS),
            corrupt_on_crash: config.number(&CORRUPT_ON_CRASH),
            ..DiskConfig::default()
        }
    }
}
