//! The `Guest` facade: what it reads from compiled code once (the counter
//! global recorded in the Artifact, the Go runtime offsets), and the nodes it
//! makes from it. Modules are hand-assembled bytes: no toolchain needed.

use seedfall_engine::{Code, CompileConfig, compile};
use seedfall_host::preempt::strategy::PreemptConfig;
use seedfall_host::{ExecNode, Guest, GuestError, Role};
use std::sync::Arc;

const HEADER: [u8; 8] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
/// One mutable i64 global, initially 0 (what the instrumentation adds).
const GLOBAL_SECTION: [u8; 8] = [0x06, 0x06, 0x01, 0x7e, 0x01, 0x42, 0x00, 0x0b];

/// A module with one mutable global and, if `data` is given, one page of
/// memory holding it at address 0 (where Go keeps `runtime.buildVersion`).
fn module(data: Option<&[u8]>) -> Vec<u8> {
    let mut wasm = HEADER.to_vec();
    if data.is_some() {
        wasm.extend([0x05, 0x03, 0x01, 0x00, 0x01]);
    }
    wasm.extend(GLOBAL_SECTION);
    if let Some(bytes) = data {
        let mut payload = vec![0x01, 0x00, 0x41, 0x00, 0x0b, bytes.len() as u8];
        payload.extend(bytes);
        wasm.extend([0x0b, payload.len() as u8]);
        wasm.extend(payload);
    }
    wasm
}

fn code(wasm: &[u8], counter_global: Option<u32>) -> Arc<Code> {
    let mut artifact = compile(wasm, &CompileConfig::default()).expect("compiles");
    artifact.counter_global = counter_global;
    Arc::new(Code::load(artifact).expect("loads"))
}

fn exec_spec() -> ExecNode {
    ExecNode {
        name: "main".into(),
        seed: 7,
        argv: vec!["prog".into()],
        env: vec![],
        mounts: vec![],
        preempt: PreemptConfig::default(),
    }
}

#[test]
fn the_counter_global_comes_from_the_artifact() {
    let guest = Guest::new(code(&module(None), Some(0))).unwrap();
    assert_eq!((guest.counter_global(), guest.go_offsets()), (Some(0), None), "not a Go module: no offsets");
    let node = guest.exec_node(exec_spec()).unwrap();
    assert_eq!(node.preempt.as_ref().map(|p| p.counter_global()), Some(0));
    assert_eq!(node.args, ["prog"]);

    let plain = Guest::new(code(&module(None), None)).unwrap();
    assert_eq!(plain.counter_global(), None);
    assert!(plain.exec_node(exec_spec()).unwrap().preempt.is_none(), "uninstrumented: no preemption");
}

#[test]
fn node_programs_carry_the_module_and_the_role() {
    let guest = Guest::new(code(&module(None), Some(0))).unwrap();
    let service =
        guest.node_program("server", vec!["-v".into()], vec!["K=V".into()], Role::Service { supervise: true });
    assert_eq!((service.name.as_str(), service.supervise(), service.is_service()), ("server", true, true));
    assert_eq!((service.args, service.env), (vec!["-v".to_string()], vec!["K=V".to_string()]));
    assert_eq!(service.counter_global, Some(0));
    assert!(Arc::ptr_eq(&service.code, guest.code()), "one Code shared by every node of the module");
    let workload = guest.node_program("client", vec![], vec![], Role::Workload);
    assert_eq!((workload.supervise(), workload.role), (false, Role::Workload));
    let plain = guest.node_program("db", vec![], vec![], Role::Service { supervise: false });
    assert_eq!((plain.supervise(), plain.is_service()), (false, true));
}

#[test]
fn a_go_release_without_offsets_is_an_error_once() {
    let go = module(Some(b"go1.99.1"));
    match Guest::new(code(&go, Some(0))) {
        Err(GuestError::UnsupportedGo(message)) => {
            assert!(message.starts_with("module built by go1.99.1, but preemption supports"), "{message}")
        }
        other => panic!("{:?}", other.map(|g| g.go_offsets())),
    }
    let known = module(Some(b"go1.26.8"));
    assert!(Guest::new(code(&known, Some(0))).unwrap().go_offsets().is_some());
}

#[test]
fn a_mount_that_fails_names_its_host_directory() {
    let guest = Guest::new(code(&module(None), None)).unwrap();
    let missing = std::path::PathBuf::from("/definitely/not/here");
    let spec = ExecNode { mounts: vec![(missing.clone(), "/data".into())], ..exec_spec() };
    match guest.exec_node(spec) {
        Err(GuestError::Mount { host, message }) => {
            assert_eq!(host, missing);
            assert!(message.starts_with("cannot mount /definitely/not/here on /data"), "{message}");
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("mounted a missing directory"),
    }
}
