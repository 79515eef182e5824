//! Every host function keeps the wasm signature the guests link against
//! (docs/wasip1.md, docs/sdk-abi.md) now that each signature comes from its
//! parameter tuple (`crate::hostcall`): a changed tuple fails here, not in a
//! guest's "incompatible import type".

use crate::fs::Fs;
use crate::node::Node;
use seedfall_engine::{Code, CompileConfig, Instance, Linker, ValType, compile};
use std::sync::Arc;

const SIGNATURES: &[&str] = &[
    "seedfall.budget(i64) -> (i64)",
    "seedfall.connect(i32 i32) -> (i32)",
    "seedfall.connect_status(i32) -> (i32)",
    "seedfall.dial(i32 i32 i32) -> (i32)",
    "seedfall.flock(i32 i32) -> (i32)",
    "seedfall.incarnation() -> (i32)",
    "seedfall.listen(i32 i32) -> (i32)",
    "seedfall.mmap(i32 i64 i32 i32 i32 i32) -> (i32)",
    "seedfall.msync(i32 i32 i32) -> (i32)",
    "seedfall.munmap(i32 i32) -> (i32)",
    "seedfall.node_name(i32 i32) -> (i32)",
    "seedfall.op_complete(i64 i32 i32 i32) -> (i32)",
    "seedfall.op_invoke(i32 i32 i32 i32 i32 i32) -> (i64)",
    "seedfall.preempt() -> ()",
    "seedfall.progress() -> ()",
    "seedfall.property(i32 i32 i32 i32) -> ()",
    "seedfall.quiet_for(i64) -> ()",
    "seedfall.resolve(i32 i32) -> (i64)",
    "seedfall.setup_complete() -> ()",
    "seedfall.sock_addr(i32 i32) -> (i64)",
    "seedfall.sock_name(i32 i32 i32 i32) -> (i32)",
    "seedfall.txn_append(i64 i32 i32 i64) -> (i32)",
    "seedfall.txn_begin(i32) -> (i64)",
    "seedfall.txn_end(i64 i32) -> (i32)",
    "seedfall.txn_read(i64 i32 i32 i32 i32) -> (i32)",
    "seedfall.udp_connect(i32 i32 i32) -> (i32)",
    "seedfall.udp_recvfrom(i32 i32 i32 i32) -> (i32)",
    "seedfall.udp_sendto(i32 i32 i32 i32 i32) -> (i32)",
    "wasi_snapshot_preview1.args_get(i32 i32) -> (i32)",
    "wasi_snapshot_preview1.args_sizes_get(i32 i32) -> (i32)",
    "wasi_snapshot_preview1.clock_res_get(i32 i32) -> (i32)",
    "wasi_snapshot_preview1.clock_time_get(i32 i64 i32) -> (i32)",
    "wasi_snapshot_preview1.environ_get(i32 i32) -> (i32)",
    "wasi_snapshot_preview1.environ_sizes_get(i32 i32) -> (i32)",
    "wasi_snapshot_preview1.fd_advise(i32 i64 i64 i32) -> (i32)",
    "wasi_snapshot_preview1.fd_allocate(i32 i64 i64) -> (i32)",
    "wasi_snapshot_preview1.fd_close(i32) -> (i32)",
    "wasi_snapshot_preview1.fd_datasync(i32) -> (i32)",
    "wasi_snapshot_preview1.fd_fdstat_get(i32 i32) -> (i32)",
    "wasi_snapshot_preview1.fd_fdstat_set_flags(i32 i32) -> (i32)",
    "wasi_snapshot_preview1.fd_fdstat_set_rights(i32 i64 i64) -> (i32)",
    "wasi_snapshot_preview1.fd_filestat_get(i32 i32) -> (i32)",
    "wasi_snapshot_preview1.fd_filestat_set_size(i32 i64) -> (i32)",
    "wasi_snapshot_preview1.fd_filestat_set_times(i32 i64 i64 i32) -> (i32)",
    "wasi_snapshot_preview1.fd_pread(i32 i32 i32 i64 i32) -> (i32)",
    "wasi_snapshot_preview1.fd_prestat_dir_name(i32 i32 i32) -> (i32)",
    "wasi_snapshot_preview1.fd_prestat_get(i32 i32) -> (i32)",
    "wasi_snapshot_preview1.fd_pwrite(i32 i32 i32 i64 i32) -> (i32)",
    "wasi_snapshot_preview1.fd_read(i32 i32 i32 i32) -> (i32)",
    "wasi_snapshot_preview1.fd_readdir(i32 i32 i32 i64 i32) -> (i32)",
    "wasi_snapshot_preview1.fd_renumber(i32 i32) -> (i32)",
    "wasi_snapshot_preview1.fd_seek(i32 i64 i32 i32) -> (i32)",
    "wasi_snapshot_preview1.fd_sync(i32) -> (i32)",
    "wasi_snapshot_preview1.fd_tell(i32 i32) -> (i32)",
    "wasi_snapshot_preview1.fd_write(i32 i32 i32 i32) -> (i32)",
    "wasi_snapshot_preview1.path_create_directory(i32 i32 i32) -> (i32)",
    "wasi_snapshot_preview1.path_filestat_get(i32 i32 i32 i32 i32) -> (i32)",
    "wasi_snapshot_preview1.path_filestat_set_times(i32 i32 i32 i32 i64 i64 i32) -> (i32)",
    "wasi_snapshot_preview1.path_link(i32 i32 i32 i32 i32 i32 i32) -> (i32)",
    "wasi_snapshot_preview1.path_open(i32 i32 i32 i32 i32 i64 i64 i32 i32) -> (i32)",
    "wasi_snapshot_preview1.path_readlink(i32 i32 i32 i32 i32 i32) -> (i32)",
    "wasi_snapshot_preview1.path_remove_directory(i32 i32 i32) -> (i32)",
    "wasi_snapshot_preview1.path_rename(i32 i32 i32 i32 i32 i32) -> (i32)",
    "wasi_snapshot_preview1.path_symlink(i32 i32 i32 i32 i32) -> (i32)",
    "wasi_snapshot_preview1.path_unlink_file(i32 i32 i32) -> (i32)",
    "wasi_snapshot_preview1.poll_oneoff(i32 i32 i32 i32) -> (i32)",
    "wasi_snapshot_preview1.proc_exit(i32) -> ()",
    "wasi_snapshot_preview1.proc_raise(i32) -> (i32)",
    "wasi_snapshot_preview1.random_get(i32 i32) -> (i32)",
    "wasi_snapshot_preview1.sched_yield() -> (i32)",
    "wasi_snapshot_preview1.sock_accept(i32 i32 i32) -> (i32)",
    "wasi_snapshot_preview1.sock_recv(i32 i32 i32 i32 i32 i32) -> (i32)",
    "wasi_snapshot_preview1.sock_send(i32 i32 i32 i32 i32) -> (i32)",
    "wasi_snapshot_preview1.sock_shutdown(i32 i32) -> (i32)",
];

fn types(types: &[ValType]) -> String {
    types.iter().map(|t| format!("{t:?}").to_lowercase()).collect::<Vec<_>>().join(" ")
}

#[test]
fn every_import_keeps_its_signature() {
    let mut linker: Linker<Node> = crate::wasi::linker();
    crate::preempt::hook::register(&mut linker);
    crate::sdk::register(&mut linker);
    let bound: Vec<String> = linker
        .funcs()
        .map(|(module, name, ty)| format!("{module}.{name}({}) -> ({})", types(&ty.params), types(&ty.results)))
        .collect();
    assert_eq!(bound, SIGNATURES);
}

/// A guest importing a host function with another signature than its tuple
/// is refused when it is linked, with the import named; it never runs.
#[test]
fn a_mistyped_import_is_a_link_error_naming_it() {
    let wat = r#"(module
      (import "wasi_snapshot_preview1" "fd_seek" (func (param i32 i32 i32 i32) (result i32)))
      (memory (export "memory") 1)
      (func (export "_start")))"#;
    let wasm = wat::parse_str(wat).expect("valid WAT");
    let code = Arc::new(Code::load(compile(&wasm, &CompileConfig::default()).unwrap()).unwrap());
    let node = Node::new("n", 1, Vec::new(), Vec::new(), Fs::new(0));
    let err = Instance::new(code, &crate::wasi::linker(), node).err().expect("a link error");
    let message = err.to_string();
    assert!(message.contains("fd_seek") && message.contains("incompatible import type"), "{message}");
}
