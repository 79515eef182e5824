//! The knob registry (`knobs`): each name once, every default of its own
//! type, every kind's intensity among its own knobs, and docs/config.md's
//! `faults.*` rows the same set of names as the registry.

use super::{KINDS, RESERVED, knobs};
use std::collections::BTreeSet;

#[test]
fn every_knob_has_a_name_of_its_own_and_a_default_of_its_type() {
    let all = knobs();
    let names: BTreeSet<&str> = all.iter().map(|k| k.name).collect();
    assert_eq!(names.len(), all.len(), "a knob registered twice, or two knobs of one name");
    for knob in &all {
        assert!(knob.accepts(&knob.default), "{}: default {:?} is not of type {:?}", knob.name, knob.default, knob.ty);
        assert!(!knob.doc.is_empty(), "{} has no doc line", knob.name);
        assert!(!RESERVED.contains(&knob.name), "{} is built: drop it from RESERVED", knob.name);
    }
}

#[test]
fn a_kinds_intensity_is_one_of_its_own_knobs() {
    for kind in KINDS {
        if let Some(intensity) = kind.intensity() {
            let own = kind.knobs().iter().any(|k| std::ptr::eq(*k, intensity));
            assert!(own, "{}: its intensity `{}` is not among its knobs", kind.name(), intensity.name);
        }
    }
}

#[test]
fn docs_config_has_a_row_for_every_knob_and_a_knob_for_every_row() {
    let docs = include_str!("../../../../docs/config.md");
    let rows: BTreeSet<&str> = docs
        .lines()
        .filter_map(|line| line.strip_prefix("| `faults."))
        .filter_map(|rest| rest.split('`').next())
        .collect();
    let names: BTreeSet<&str> = knobs().iter().map(|k| k.name).collect();
    let undocumented: Vec<_> = names.difference(&rows).collect();
    let unknown: Vec<_> = rows.difference(&names).collect();
    assert!(undocumented.is_empty(), "knobs without a row in docs/config.md: {undocumented:?}");
    assert!(unknown.is_empty(), "rows of docs/config.md that are no knob: {unknown:?}");
}
