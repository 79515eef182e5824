//! `compile-time`: cold compile time of wasm modules with seedfall's engine.
//!
//! ```text
//! compile-time [--runs N] [--load] [--raw] FILE.wasm...
//! ```
//!
//! For each file, N times (default 5), runs what a cache miss runs: the
//! preemption pass with its default config (`seedfall_instrument::instrument`)
//! then `seedfall_engine::compile(&instrumented, &CompileConfig::default())`;
//! with `--raw`, only `compile` of the file as it is (what `--no-preempt`
//! runs). Prints one JSON line:
//!
//! ```text
//! {"engine":"seedfall","file":"...","wasm_bytes":..,"functions":..,"defined_functions":..,
//!  "code_bytes":..,"threads":..,"runs":N,"path":"instrumented"|"raw","median_s":..,"times_s":[..],
//!  "instrument_s":[..],"cpu_s":[..]}
//! ```
//!
//! `median_s` is the median wall time of instrument + compile (reading the
//! file is not timed); `instrument_s` the pass's share (zeros with `--raw`). `cpu_s` is user+system CPU time of the whole process
//! over each call, all threads included, so `cpu_s / times_s` shows how well
//! the parallel compile used the cores. `threads` is the engine's worker
//! count (`available_parallelism`). With `--load`, the line also has `load_s`:
//! the wall time of one `Code::load` of the last Artifact (map, relocate, make
//! executable), which `compile` does not include but wasmtime's
//! `Module::new` does (it publishes executable code). A file that fails to compile prints
//! `{"engine":"seedfall","file":"...","error":"..."}`; the exit status is then 1.
//!
//! This is a benchmark, not a test: `cargo test` does not run it. See
//! bench/compile.sh for the comparison with wasmtime.

use seedfall_engine::{Code, CompileConfig, compile};
use seedfall_instrument::instrument;
use std::process::ExitCode;
use std::time::Instant;

fn usage() -> ExitCode {
    eprintln!("usage: compile-time [--runs N] [--load] [--raw] FILE.wasm...");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut runs = 5usize;
    let mut load = false;
    let mut raw = false;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" | "-n" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) if n > 0 => runs = n,
                _ => return usage(),
            },
            "--load" => load = true,
            "--raw" => raw = true,
            "--help" | "-h" => {
                usage();
                return ExitCode::SUCCESS;
            }
            s if s.starts_with("--runs=") => match s["--runs=".len()..].parse() {
                Ok(n) if n > 0 => runs = n,
                _ => return usage(),
            },
            s if s.starts_with('-') => return usage(),
            _ => files.push(arg),
        }
    }
    if files.is_empty() {
        return usage();
    }

    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let config = CompileConfig::default();
    let mut failed = false;
    for file in &files {
        let wasm = match std::fs::read(file) {
            Ok(bytes) => bytes,
            Err(e) => {
                println!(
                    "{{\"engine\":\"seedfall\",\"file\":{},\"error\":{}}}",
                    json_str(file),
                    json_str(&e.to_string())
                );
                failed = true;
                continue;
            }
        };
        let mut times = Vec::with_capacity(runs);
        let mut cpu = Vec::with_capacity(runs);
        let mut instrument_times = Vec::with_capacity(runs);
        let mut last = None;
        let mut error = None;
        for _ in 0..runs {
            let cpu0 = cpu_seconds();
            let t0 = Instant::now();
            let (result, pass) = if raw {
                (compile(&wasm, &config), 0.0)
            } else {
                match instrument(&wasm, &seedfall_instrument::Config::default()) {
                    Ok(instrumented) => {
                        let pass = t0.elapsed().as_secs_f64();
                        (compile(&instrumented.wasm, &config), pass)
                    }
                    Err(e) => {
                        let feature = format!("instrumentation: {e}");
                        (Err(seedfall_engine::Error::Unsupported { feature, function: None }), 0.0)
                    }
                }
            };
            let elapsed = t0.elapsed().as_secs_f64();
            let cpu1 = cpu_seconds();
            match result {
                Ok(artifact) => {
                    times.push(elapsed);
                    instrument_times.push(pass);
                    cpu.push(cpu1 - cpu0);
                    // Dropped outside the timed region.
                    last = Some(artifact);
                }
                Err(e) => {
                    error = Some(e.to_string());
                    break;
                }
            }
        }
        if let Some(e) = error {
            println!("{{\"engine\":\"seedfall\",\"file\":{},\"error\":{}}}", json_str(file), json_str(&e));
            failed = true;
            continue;
        }
        let artifact = last.expect("runs > 0");
        let info = artifact.info.clone();
        let code_bytes = artifact.code.len();
        let load_field = if load {
            let t0 = Instant::now();
            match Code::load(artifact) {
                Ok(code) => {
                    let elapsed = t0.elapsed().as_secs_f64();
                    drop(code);
                    format!(",\"load_s\":{elapsed:.6}")
                }
                Err(e) => format!(",\"load_error\":{}", json_str(&e.to_string())),
            }
        } else {
            String::new()
        };
        println!(
            "{{\"engine\":\"seedfall\",\"file\":{},\"wasm_bytes\":{},\"functions\":{},\"defined_functions\":{},\
             \"code_bytes\":{},\"threads\":{},\"runs\":{},\"path\":\"{}\",\"median_s\":{:.6},\"times_s\":{},\
             \"instrument_s\":{},\"cpu_s\":{}{}}}",
            json_str(file),
            wasm.len(),
            info.num_funcs(),
            info.num_funcs() - info.num_imported_funcs,
            code_bytes,
            threads,
            runs,
            if raw { "raw" } else { "instrumented" },
            median(&times),
            json_list(&times),
            json_list(&instrument_times),
            json_list(&cpu),
            load_field,
        );
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

/// User + system CPU time of this process, all threads (live and joined).
fn cpu_seconds() -> f64 {
    // SAFETY: `rusage` is plain data, valid all-zero.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct we pass and nothing else.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

fn json_list(xs: &[f64]) -> String {
    let items: Vec<String> = xs.iter().map(|x| format!("{x:.6}")).collect();
    format!("[{}]", items.join(","))
}

fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
