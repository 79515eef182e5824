//! Real Go binaries through the engine: every function of large programs
//! compiles to real code, and Go's hello world runs to completion under a
//! minimal test-only WASI host (the real host is the `host` crate).

mod common;

use seedfall_engine::*;

const ERRNO_SUCCESS: u64 = 0;
const ERRNO_BADF: u64 = 8;

/// Host state of the minimal WASI shim: what the guest wrote to stdout/stderr.
#[derive(Default)]
struct Shim {
    output: Vec<u8>,
    clock_ns: u64,
}

fn put_u32(c: &mut Caller<'_, Shim>, ptr: u64, v: u32) -> Result<(), HostError> {
    c.write(ptr as u32, &v.to_le_bytes())
}

fn shim_linker() -> Linker<Shim> {
    use ValType::{I32, I64};
    let mut l = Linker::new();
    let w = "wasi_snapshot_preview1";
    l.func(w, "sched_yield", &[], &[I32], |_, v| {
        v[0] = ERRNO_SUCCESS;
        Ok(())
    });
    l.func(w, "proc_exit", &[I32], &[], |_, v| Err(HostError::Exit(v[0] as i32)));
    l.func(w, "args_sizes_get", &[I32, I32], &[I32], |c, v| {
        put_u32(c, v[0], 1)?;
        put_u32(c, v[1], 6)?;
        v[0] = ERRNO_SUCCESS;
        Ok(())
    });
    l.func(w, "args_get", &[I32, I32], &[I32], |c, v| {
        let (argv, buf) = (v[0] as u32, v[1] as u32);
        put_u32(c, argv as u64, buf)?;
        c.write(buf, b"hello\0")?;
        v[0] = ERRNO_SUCCESS;
        Ok(())
    });
    l.func(w, "environ_sizes_get", &[I32, I32], &[I32], |c, v| {
        put_u32(c, v[0], 0)?;
        put_u32(c, v[1], 0)?;
        v[0] = ERRNO_SUCCESS;
        Ok(())
    });
    l.func(w, "environ_get", &[I32, I32], &[I32], |_, v| {
        v[0] = ERRNO_SUCCESS;
        Ok(())
    });
    l.func(w, "clock_time_get", &[I32, I64, I32], &[I32], |c, v| {
        c.data_mut().clock_ns += 1_000;
        let now = 1_700_000_000_000_000_000 + c.data().clock_ns;
        c.write(v[2] as u32, &now.to_le_bytes())?;
        v[0] = ERRNO_SUCCESS;
        Ok(())
    });
    l.func(w, "random_get", &[I32, I32], &[I32], |c, v| {
        let bytes: Vec<u8> = (0..v[1] as u32).map(|i| (i * 7 + 1) as u8).collect();
        c.write(v[0] as u32, &bytes)?;
        v[0] = ERRNO_SUCCESS;
        Ok(())
    });
    l.func(w, "fd_write", &[I32, I32, I32, I32], &[I32], |c, v| {
        let (fd, iovs, count, nwritten) = (v[0] as u32, v[1] as u32, v[2] as u32, v[3] as u32);
        if fd != 1 && fd != 2 {
            v[0] = ERRNO_BADF;
            return Ok(());
        }
        let mut total = 0u32;
        for i in 0..count {
            let iov = c.read(iovs + 8 * i, 8)?.to_vec();
            let ptr = u32::from_le_bytes(iov[0..4].try_into().unwrap());
            let len = u32::from_le_bytes(iov[4..8].try_into().unwrap());
            let bytes = c.read(ptr, len)?.to_vec();
            c.data_mut().output.extend_from_slice(&bytes);
            total += len;
        }
        put_u32(c, nwritten as u64, total)?;
        v[0] = ERRNO_SUCCESS;
        Ok(())
    });
    l.func(w, "poll_oneoff", &[I32, I32, I32, I32], &[I32], |_, _| {
        Err(HostError::Fail("poll_oneoff is not part of the test shim".into()))
    });
    for name in ["fd_close", "fd_fdstat_set_flags", "fd_prestat_get", "fd_prestat_dir_name", "fd_fdstat_get"] {
        let params: &[ValType] = match name {
            "fd_close" => &[I32],
            "fd_prestat_dir_name" => &[I32, I32, I32],
            _ => &[I32, I32],
        };
        l.func(w, name, params, &[I32], |_, v| {
            v[0] = ERRNO_BADF;
            Ok(())
        });
    }
    l
}

fn assert_every_function_compiled(wasm: &[u8]) -> Artifact {
    let artifact = compile(wasm, &CompileConfig::default()).unwrap_or_else(|e| panic!("compile: {e}"));
    let info = &artifact.info;
    assert!(info.num_funcs() > 1000, "a Go binary has thousands of functions");
    for (index, layout) in artifact.functions.iter().enumerate() {
        // The smallest real function body (prologue, stack check, return) is
        // far above this; a body of just a trap instruction would be below it.
        assert!(layout.len >= 16, "function {} compiled to only {} bytes", info.func_name(index as u32), layout.len);
    }
    artifact
}

#[test]
fn go_hello_world_runs_to_completion() {
    let wasm = common::build_go("hello");
    for mode in [TrapMode::Signals, TrapMode::Explicit] {
        let code = common::load(&wasm, mode);
        let mut instance = Instance::new(code, &shim_linker(), Shim::default()).expect("instantiate");
        let run = instance.call("_start", &[]).expect("call _start");
        assert!(matches!(run, Run::Returned(_) | Run::Exited(0)), "{mode:?}: {run:?}");
        assert_eq!(String::from_utf8_lossy(&instance.data().output), "hello from Go on seedfall\n");
    }
}

#[test]
fn go_hello_world_every_function_compiles() {
    let artifact = assert_every_function_compiled(&common::build_go("hello"));
    let names = &artifact.info.func_names;
    assert!(names.iter().flatten().any(|n| n == "main.main"), "Go names come from the name section");
}

#[test]
fn go_program_with_http_json_tls_every_function_compiles() {
    assert_every_function_compiled(&common::build_go("webstack"));
}

#[test]
fn go_net_http_test_binary_every_function_compiles() {
    assert_every_function_compiled(&common::build_go_test("net/http"));
}
