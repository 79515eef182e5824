//! Which functions of each node ran during a run, for `seedfall cause`'s
//! statistical debugging (docs/function-bitmap.md). A node whose code was
//! compiled with `CompileConfig::function_bitmap` marks a byte per defined
//! function on entry; when an incarnation ends (exit, crash, the end of the
//! run) the probe ORs its bytes into the node's, so the result is the union
//! over every incarnation. Code compiled with
//! `CompileConfig::edge_bitmap` as well gives its edge map the same way
//! (docs/edge-coverage.md).
//!
//! Nothing here reaches the trace hash or the event stream: the bitmap lives
//! outside the guest's memory and globals, and a run with it hashes exactly
//! as a run without it.

use crate::node::Node;
use crate::world::event::Who;
use crate::world::probe::{Probe, Probes, View};
use seedfall_engine::{Code, Instance};

/// The functions one node ran during a run (over all its incarnations).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeFunctions {
    /// The node's name (`n2`, not `n2#3`).
    pub node: String,
    /// One byte per defined function of the node's code, indexed like
    /// `Code::function_name`: 1 if it was entered in some incarnation, else 0.
    pub ran: Vec<u8>,
    /// The union of its incarnations' edge maps (`Instance::edges_ran`):
    /// empty when its code has none.
    pub edges: Vec<u8>,
}

impl NodeFunctions {
    /// A node that has not run anything yet, for `code` (None: the code has no bitmap).
    fn empty(node: &str, code: &Code) -> Option<NodeFunctions> {
        code.has_function_bitmap().then(|| NodeFunctions {
            node: node.to_string(),
            ran: vec![0; code.num_defined_functions() as usize],
            edges: vec![0; if code.has_edge_bitmap() { seedfall_engine::runtime::vmctx::EDGE_MAP_BYTES } else { 0 }],
        })
    }

    /// Adds what an incarnation ran (its `Instance::functions_ran` and
    /// `Instance::edges_ran`).
    fn absorb(&mut self, ran: &[u8], edges: Option<&[u8]>) {
        debug_assert_eq!(ran.len(), self.ran.len(), "the same code");
        for (acc, byte) in self.ran.iter_mut().zip(ran).chain(self.edges.iter_mut().zip(edges.unwrap_or_default())) {
            *acc |= *byte;
        }
    }

    /// The defined-function indices that ran, ascending.
    pub fn ran_indices(&self) -> impl Iterator<Item = u32> + '_ {
        self.ran.iter().enumerate().filter(|(_, b)| **b != 0).map(|(i, _)| i as u32)
    }

    /// How many functions ran.
    pub fn ran_count(&self) -> usize {
        self.ran.iter().filter(|b| **b != 0).count()
    }

    /// Whether defined function `defined_index` ran.
    pub fn did_run(&self, defined_index: u32) -> bool {
        self.ran.get(defined_index as usize).is_some_and(|b| *b != 0)
    }

    /// The names of the functions that ran, ascending by index: the `name`
    /// section's, else `func[N]` with N the wasm function index (as traps
    /// name them). `code` must be the node's code.
    pub fn ran_names(&self, code: &Code) -> Vec<String> {
        let imported = code.info().num_imported_funcs;
        self.ran_indices().map(|i| code.info().func_name(imported + i)).collect()
    }
}

/// The probe: per node whose code has the function bitmap
/// (`CompileConfig::function_bitmap`), in `RunSpec::programs` order, what it
/// ran over all its incarnations.
#[derive(Default)]
pub struct FunctionsRan(Vec<(usize, NodeFunctions)>);

impl FunctionsRan {
    /// What `probes`' `FunctionsRan` saw (nothing when it is not installed).
    pub fn of(probes: &Probes) -> impl Iterator<Item = &NodeFunctions> {
        probes.get::<FunctionsRan>().into_iter().flat_map(|p| p.0.iter().map(|(_, f)| f))
    }
}

impl Probe for FunctionsRan {
    fn begin(&mut self, world: &View) {
        let programs = world.spec().programs.iter().enumerate();
        self.0 = programs.filter_map(|(i, p)| NodeFunctions::empty(&p.name, &p.code).map(|f| (i, f))).collect();
    }

    fn incarnation_ended(&mut self, _world: &View, who: &Who, instance: &Instance<Node>) {
        let node = self.0.iter_mut().find(|(i, _)| *i == who.id.index());
        if let (Some((_, node)), Some(ran)) = (node, instance.functions_ran()) {
            node.absorb(ran, instance.edges_ran());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::tests::{program, sleeper, spec, workload};
    use crate::world::{NodeProgram, Role, RunResult, Verdict, run_probed};
    use seedfall_engine::CompileConfig;
    use std::sync::Arc;

    fn ran(result: &RunResult) -> Vec<NodeFunctions> {
        FunctionsRan::of(&result.probes).cloned().collect()
    }

    /// A supervised service: its first boot creates file `f`, runs
    /// `first_boot` and exits 1 (restarted 100 ms later over the same disk);
    /// later boots find `f`, run `later_boot` and sleep past the end of the
    /// run. `never` is never called.
    const SERVICE: &str = r#"(module
      (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
      (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
      (import "wasi_snapshot_preview1" "path_open"
        (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
      (memory (export "memory") 1)
      (data (i32.const 1040) "f")
      (func $sleep (param $ns i64)
        (i32.store (i32.const 16) (i32.const 1))
        (i64.store (i32.const 24) (local.get $ns))
        (drop (call $poll (i32.const 0) (i32.const 128) (i32.const 1) (i32.const 256))))
      ;; The errno of opening "f" with `oflags` (1: create).
      (func $open (param $oflags i32) (result i32)
        (call $path_open (i32.const 3) (i32.const 0) (i32.const 1040) (i32.const 1) (local.get $oflags)
          (i64.const -1) (i64.const -1) (i32.const 0) (i32.const 600)))
      (func $first_boot
        (drop (call $open (i32.const 1)))
        (call $sleep (i64.const 1000000))
        (call $exit (i32.const 1)))
      (func $later_boot (call $sleep (i64.const 100000000000)))
      (func $never unreachable)
      (func (export "_start")
        (if (i32.eqz (call $open (i32.const 0))) (then (call $later_boot)) (else (call $first_boot)))))"#;

    /// No bitmap, the function bitmap, or both it and the edge map.
    fn service(bitmaps: u8) -> NodeProgram {
        let wasm = wat::parse_str(SERVICE).expect("valid WAT");
        let config =
            CompileConfig { function_bitmap: bitmaps >= 1, edge_bitmap: bitmaps >= 2, ..CompileConfig::default() };
        let code = Arc::new(Code::load(seedfall_engine::compile(&wasm, &config).expect("compiles")).expect("loads"));
        NodeProgram { role: Role::Service { supervise: true }, ..program("server", code) }
    }

    fn run_with(seed: u64, bitmaps: u8) -> RunResult {
        let mut s = spec(seed, vec![service(bitmaps), workload(sleeper(1, 1000))]);
        s.hash_log = true;
        run_probed(&s, None, Probes::default().with(FunctionsRan::default())).expect("no engine error")
    }

    #[test]
    fn the_run_names_what_each_bitmap_node_ran_over_all_its_incarnations() {
        let result = run_with(1, 1);
        assert_eq!(result.verdict, Verdict::Pass);
        // Only the service has the bitmap; the workload's code has none.
        let ran = ran(&result);
        assert_eq!(ran.len(), 1, "{ran:?}");
        let server = &ran[0];
        assert_eq!(server.node, "server");
        assert!(server.edges.is_empty(), "no edge map asked for");
        let code = service(1).code;
        assert_eq!(server.ran.len(), code.num_defined_functions() as usize);
        // The first incarnation ended by exiting, the second with the run:
        // both count, and `never` did not run.
        let names = server.ran_names(&code);
        assert_eq!(names, ["sleep", "open", "first_boot", "later_boot", "func[8]"], "{names:?}");
        assert_eq!(server.ran_count(), 5);
        assert!(!server.did_run(4), "never");
        assert_eq!(code.function_name(4), Some("never"));
    }

    #[test]
    fn the_edge_map_is_the_union_of_the_incarnations_branch_outcomes() {
        let ran = ran(&run_with(1, 2));
        let server = &ran[0];
        let bytes = seedfall_engine::runtime::vmctx::EDGE_MAP_BYTES;
        assert_eq!(server.edges.len(), bytes);
        // `_start`'s one `if`: not taken at the first boot (no file yet),
        // taken at the second: the two neighbouring bytes of its site.
        let set: Vec<usize> = (0..server.edges.len()).filter(|&i| server.edges[i] == 1).collect();
        assert_eq!(set.len(), 2, "{set:?}");
        let next = |i: usize| (i + 1) % bytes;
        assert!(next(set[0]) == set[1] || next(set[1]) == set[0], "neighbours: {set:?}");
    }

    #[test]
    fn the_bitmaps_change_no_trace_hash_event_or_verdict() {
        for seed in 1..=3 {
            let without = run_with(seed, 0);
            assert!(ran(&without).is_empty(), "no node has the bitmap");
            for bitmaps in [1, 2] {
                let with = run_with(seed, bitmaps);
                assert_eq!(with.trace_hash, without.trace_hash, "seed {seed}, bitmaps {bitmaps}");
                assert_eq!((with.steps, with.end, &with.verdict), (without.steps, without.end, &without.verdict));
                let (a, b) = (with.hash_log.unwrap(), without.hash_log.clone().unwrap());
                assert_eq!(a.len(), b.len());
                for (x, y) in a.iter().zip(&b) {
                    assert_eq!(x.digest, y.digest, "seed {seed}: {x:?} vs {y:?}");
                }
            }
        }
    }
}
