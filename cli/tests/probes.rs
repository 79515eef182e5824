//! Probes on a real Go cluster (docs/world.md "Probes"): kvlog's seeds,
//! with crashes and torn writes, run with every probe installed and with
//! none, have the same trace hash, steps and faults; and the probes saw the
//! run (a state and a step per fault, the workload's output).

use seedfall::cluster::Cluster;
use seedfall::config;
use seedfall_host::world;
use seedfall_host::world::probes::{self, FaultStates, FaultSteps, GoroutineShapes};
use std::path::Path;

#[test]
fn every_probe_or_none_gives_the_same_kvlog_runs() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kvlog/seedfall.json");
    let config = config::load(&path).expect("the config loads");
    let cluster = Cluster::prepare(config, &path, &config::state_dir(&path)).expect("the cluster builds");
    let mut faults = 0;
    for seed in 1..=3 {
        let spec = cluster.spec(seed);
        let bare = world::run(&spec, None).expect("no engine error");
        let watched = world::run_probed(&spec, None, probes::all()).expect("no engine error");
        assert_eq!(watched.trace_hash, bare.trace_hash, "seed {seed}");
        assert_eq!((watched.steps, watched.end, &watched.faults), (bare.steps, bare.end, &bare.faults));
        assert_eq!(watched.verdict, bare.verdict, "seed {seed}");
        let steps = FaultSteps::of(&watched.probes);
        assert_eq!(steps.len(), FaultStates::of(&watched.probes).len(), "seed {seed}");
        assert!(steps.len() <= watched.faults.len());
        faults += steps.len();
        let shapes: Vec<&str> = GoroutineShapes::of(&watched.probes).map(|s| s.node.as_str()).collect();
        assert_eq!(shapes, ["server", "client"], "both nodes are Go");
    }
    assert!(faults > 0, "the seeds crashed the server");
}
