//! The function bitmap on a real Go cluster (docs/function-bitmap.md): a
//! cluster prepared with `LoadOptions { function_bitmap: true }` (what
//! `seedfall cause` asks for) names the functions every node ran over all its
//! incarnations, and its runs hash exactly like the plain cluster's, with the
//! preemption counters in the trace; so do those of a cluster with the edge
//! map as well (`explore -edges`, docs/edge-coverage.md).

use seedfall::cluster::{Cluster, LoadOptions};
use seedfall::config;
use seedfall_host::preempt::strategy::PreemptConfig;
use seedfall_host::world::probes::FunctionsRan;
use seedfall_host::world::{self, NodeFunctions, Verdict};
use std::path::Path;

/// As Go's linker spells it in the `name` section (`/` becomes `_`).
const LISTEN: &str = "seedfall.dev_sdk_sim.Listen";

#[test]
fn a_bitmap_cluster_names_what_each_node_ran_and_traces_like_a_plain_one() {
    // server exits 1 in incarnations 1 and 2, then listens; client dials it.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go/world/supervise.json");
    let prepare = |options| {
        let config = config::load(&path).expect("the config loads");
        Cluster::prepare_with(config, &path, &config::state_dir(&path), options).expect("the cluster builds")
    };
    let plain = prepare(LoadOptions::default());
    let marked = prepare(LoadOptions { function_bitmap: true, ..LoadOptions::default() });
    let edged = prepare(LoadOptions { function_bitmap: true, edge_bitmap: true });
    assert_ne!(marked.programs_hash, edged.programs_hash);
    assert_ne!(plain.programs_hash, marked.programs_hash, "other compiled code, other cache entries");
    let server = marked.node_code("server").expect("a server node");
    assert!(server.has_function_bitmap() && !plain.node_code("server").unwrap().has_function_bitmap());

    for (seed, preempt) in [(1, "none"), (2, "random"), (3, "pct,depth=4,steps=3000")] {
        let run = |cluster: &Cluster| {
            let mut spec = cluster.spec(seed);
            spec.preempt = PreemptConfig::parse(preempt).expect("a strategy");
            let run = world::run_probed(&spec, None, world::probes::all()).expect("no engine error");
            let ran: Vec<NodeFunctions> = FunctionsRan::of(&run.probes).cloned().collect();
            (run, ran)
        };
        let ((without, without_ran), (with, with_ran), (edges, edges_ran)) = (run(&plain), run(&marked), run(&edged));
        assert_eq!(edges.trace_hash, without.trace_hash, "seed {seed}, preempt {preempt}: edges");
        assert_eq!((edges.steps, &edges.faults), (without.steps, &without.faults));
        assert_eq!(
            edges_ran.iter().map(|n| &n.ran).collect::<Vec<_>>(),
            with_ran.iter().map(|n| &n.ran).collect::<Vec<_>>()
        );
        assert!(with_ran.iter().all(|n| n.edges.is_empty()));
        for node in &edges_ran {
            let set = node.edges.iter().filter(|b| **b == 1).count();
            assert!(set > 1000 && set < node.edges.len() / 2, "seed {seed}: {} set {set} edge bytes", node.node);
        }
        assert_eq!(without.verdict, Verdict::Pass, "seed {seed}");
        assert_eq!(with.trace_hash, without.trace_hash, "seed {seed}, preempt {preempt}");
        assert_eq!((with.steps, with.end, &with.faults), (without.steps, without.end, &without.faults));
        assert!(without_ran.is_empty());
        // pct records its preemption points, at counted calls: the same ones.
        assert_eq!(preempt.starts_with("pct"), with.faults.iter().any(|f| f.kind.name() == "preempt"), "seed {seed}");

        let nodes: Vec<&str> = with_ran.iter().map(|n| n.node.as_str()).collect();
        assert_eq!(nodes, ["server", "client"], "seed {seed}");
        let names = |node: usize| with_ran[node].ran_names(marked.node_code(nodes[node]).unwrap());
        let (server_ran, client_ran) = (names(0), names(1));
        let has = |names: &[String], name: &str| names.iter().any(|n| n == name);
        for name in ["main.main", "runtime.main", "os.Exit"] {
            assert!(has(&server_ran, name), "seed {seed}: server did not run {name}");
        }
        // Only the third incarnation listens, only the client dials: the
        // server's set is the union of its incarnations, per node.
        assert!(has(&server_ran, LISTEN) && has(&server_ran, "seedfall.dev_sdk_sim.__tcpListener_.Accept"));
        assert!(!has(&client_ran, LISTEN) && has(&client_ran, "seedfall.dev_sdk_sim.Dial"), "seed {seed}");
        let ran = with_ran[0].ran_count();
        let total = server.num_defined_functions() as usize;
        assert!(ran > 100 && ran < total, "seed {seed}: {ran} of {total}");
    }
}
