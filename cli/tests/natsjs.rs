//! examples/natsjs's finding (docs/findings.md): nats-server v2.15.2 writes
//! a stream's meta.inf and meta.sum as two atomic writes, recovery skips a
//! stream without meta.sum, and re-creating it does not rewrite them. The
//! shrunk schedule of seed 35 (committed as examples/natsjs/metasum.faults.json,
//! the reference's name: a crash between the two writes, then any later
//! crash) replayed on seedfall.always.json (single.json under the reference's
//! name) makes the stock server lose
//! the stream with its acknowledged messages, and the server patched to
//! rewrite the metadata when meta.sum is missing passes it over the full run.
//! The sweeps (single.json failing, single.fixed.json 150 seeds, the 3-node
//! cluster.json 200 seeds) are examples/regress.sh's. `SEEDFALL_FINDINGS=full`
//! also shrinks seed 35 afresh (about 25 runs) to at most 2 faults.

mod example_finding;

use example_finding::{example, full, shrink, stock_fails_and_patch_passes};

#[test]
fn a_crash_between_meta_inf_and_meta_sum_loses_the_stream_and_the_patch_fixes_it() {
    let schedule = if full() {
        shrink("natsjs", "seedfall.always.json", 35, 2)
    } else {
        example("natsjs").join("metasum.faults.json")
    };
    let message = "stream EVENTS lost after restart";
    stock_fails_and_patch_passes("natsjs", "seedfall.always.json", "single.fixed.json", &schedule, message);
}
