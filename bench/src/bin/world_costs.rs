//! Costs of the simulated world's building blocks (a benchmark, not a test):
//!
//!     world-costs boot --cache-dir DIR [--iterations N] FILE.wasm [ARGS...]
//!     world-costs switch [--iterations N]
//!
//! `boot` loads FILE (instrumented, through the cache, like `seedfall run`)
//! and runs it N times as the only node of a world until it parks for good
//! (a server waiting for connections): one JSON line per iteration with
//! `instantiate_ms` (Instance::new: memory, tables, data segments) and
//! `init_ms` (Go's runtime init and main up to the first park: guest time;
//! what the node does after that, here a deadlock report, is not counted).
//! `switch` measures one node switch: a guest that calls a suspending host
//! function in a loop, resumed by the host each time (fiber resume plus
//! suspend, the engine's part of a scheduler step); prints ns per switch.

#![forbid(unsafe_code)]

use seedfall_cache::{Cache, Key, Secret};
use seedfall_engine::{CompileConfig, Instance, Linker, Run, Val, compile};
use seedfall_host::world::{self, RunSpec};
use seedfall_host::{Guest, Role};
use seedfall_instrument::{Config, config_bytes, instrument};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn boot(dir: PathBuf, iterations: usize, file: PathBuf, args: Vec<String>) -> Result<(), String> {
    let wasm = std::fs::read(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let instrumentation = Config { loops: false, ..Config::default() };
    let config = CompileConfig::default();
    let key = Key::compute(&wasm, &config, &config_bytes(&instrumentation));
    let fetched = Cache::open(&dir, Secret::from_env_or_user())
        .get_or_compile(&key, || {
            let instrumented = instrument(&wasm, &instrumentation).map_err(|e| {
                seedfall_engine::Error::Unsupported { feature: format!("instrumentation: {e}"), function: None }
            })?;
            let mut artifact = compile(&instrumented.wasm, &config)?;
            artifact.counter_global = Some(instrumented.counter_global);
            Ok(artifact)
        })
        .map_err(|e| e.to_string())?;
    let guest = Guest::new(Arc::new(fetched.code)).map_err(|e| e.to_string())?;
    for i in 0..iterations {
        let programs = vec![guest.node_program("node", args.clone(), Vec::new(), Role::Workload)];
        let spec = RunSpec::new(i as u64 + 1, programs, seedfall_host::vtime::SimDuration::from_ns(60_000_000_000));
        let result = world::run(&spec, None).map_err(|e| e.to_string())?;
        let t = result.timings;
        println!(
            "{{\"iteration\":{i},\"instantiate_ms\":{:.4},\"init_ms\":{:.4},\"boot_ms\":{:.4},\"steps\":{},\"host_calls\":{}}}",
            ms(t.boot),
            ms(t.init),
            ms(t.boot + t.init),
            result.steps,
            t.host_calls
        );
    }
    Ok(())
}

const SWITCH_WAT: &str = r#"
(module
  (import "host" "park" (func $park))
  (func (export "run") (param $n i32)
    (loop $again
      (call $park)
      (local.tee $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $again))))
"#;

fn switch(iterations: usize) -> Result<(), String> {
    let wasm = wat::parse_str(SWITCH_WAT).map_err(|e| e.to_string())?;
    let artifact = compile(&wasm, &CompileConfig::default()).map_err(|e| e.to_string())?;
    let code = Arc::new(seedfall_engine::Code::load(artifact).map_err(|e| e.to_string())?);
    let mut linker: Linker<()> = Linker::new();
    linker.func("host", "park", &[], &[], |c, _| {
        c.suspend(0);
        Ok(())
    });
    for round in 0..5 {
        let mut instance = Instance::new(code.clone(), &linker, ()).map_err(|e| e.to_string())?;
        let start = Instant::now();
        let mut run = instance.call("run", &[Val::I32(iterations as i32)]).map_err(|e| e.to_string())?;
        let mut switches = 0u64;
        while let Run::Suspended(_) = run {
            switches += 1;
            run = instance.resume(0).map_err(|e| e.to_string())?;
        }
        let ns = start.elapsed().as_nanos() as f64 / switches as f64;
        println!("{{\"round\":{round},\"switches\":{switches},\"ns_per_switch\":{ns:.1}}}");
    }
    Ok(())
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let command = args.next().unwrap_or_default();
    let (mut dir, mut iterations, mut rest) = (None, 10usize, Vec::new());
    while let Some(a) = args.next() {
        match a.as_str() {
            "--cache-dir" if rest.is_empty() => dir = args.next().map(PathBuf::from),
            "--iterations" if rest.is_empty() => iterations = args.next().and_then(|n| n.parse().ok()).unwrap_or(10),
            _ => rest.push(a),
        }
    }
    let result = match (command.as_str(), dir) {
        ("boot", Some(dir)) if !rest.is_empty() => {
            let file = PathBuf::from(rest.remove(0));
            boot(dir, iterations, file, rest)
        }
        ("switch", _) => switch(iterations.max(1000)),
        _ => Err(
            "usage: world-costs boot --cache-dir DIR [--iterations N] FILE.wasm [ARGS...] | switch [--iterations N]"
                .into(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("world-costs: {e}");
            ExitCode::from(2)
        }
    }
}
