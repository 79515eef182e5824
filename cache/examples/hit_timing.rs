//! Time a cache hit for one module, part by part (`hash_bench` compares
//! blake3 on one core and on all cores).
//!
//! ```text
//! cargo run --release -p seedfall-cache --example hit_timing -- prog.wasm CACHE_DIR [runs]
//! ```
//! The first fetch compiles if the entry is missing (when it hits, its line
//! is the cold-process cost a CLI run pays); the following `runs` fetches are
//! hits in a warm process, reported as min / median.

use seedfall_cache::{Cache, Outcome, Secret, Timings};
use seedfall_engine::CompileConfig;
use std::path::Path;
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: hit_timing PROG.wasm CACHE_DIR [RUNS]");
        std::process::exit(2);
    }
    let wasm = std::fs::read(&args[1]).expect("reading the wasm");
    let runs: usize = args.get(3).map(|r| r.parse().expect("RUNS is a number")).unwrap_or(10);
    let config = CompileConfig::default();
    let cache = Cache::open(Path::new(&args[2]), Secret::from_env_or_user());
    println!("module {} ({:.1} MB), baseline {}", args[1], wasm.len() as f64 / 1e6, config.baseline.name());

    let first = cache.fetch(&wasm, &config, b"").expect("compiles");
    for w in &first.warnings {
        println!("warning: {w}");
    }
    println!("first fetch: {:?}, {}", first.outcome, first.timings);
    let entry = cache.dir().join(format!("{}.sfc", first.key));
    let entry_len = std::fs::metadata(&entry).map(|m| m.len()).unwrap_or(0);
    println!(
        "entry {} ({:.1} MB, code {:.1} MB)",
        entry.display(),
        entry_len as f64 / 1e6,
        first.code.code_bytes().len() as f64 / 1e6
    );
    drop(first);
    if runs == 0 {
        return;
    }

    let mut hits: Vec<Timings> = Vec::new();
    for _ in 0..runs {
        let fetched = cache.fetch(&wasm, &config, b"").expect("fetches");
        assert_eq!(fetched.outcome, Outcome::Hit);
        hits.push(fetched.timings);
    }
    let part = |name: &str, f: &dyn Fn(&Timings) -> Duration| {
        let mut v: Vec<Duration> = hits.iter().map(f).collect();
        v.sort();
        println!("  {name:<22} min {:>8.2} ms   median {:>8.2} ms", ms(v[0]), ms(v[v.len() / 2]));
    };
    println!("cache hit, {runs} runs:");
    part("key hash", &|h| h.key_hash);
    part("open + map", &|h| h.map);
    part("verify (checksum)", &|h| h.verify);
    part("decode", &|h| h.decode);
    part("map code executable", &|h| h.load);
    part("fetch total", &|h| h.total());
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
