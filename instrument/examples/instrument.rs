//! `cargo run --release -p seedfall-instrument --example instrument -- IN.wasm OUT.wasm [--loops] [--no-entry-checks]`
//! Instruments a module and prints the time taken (best of 5 runs).
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(input), Some(output)) = (args.first(), args.get(1)) else {
        eprintln!("usage: instrument IN.wasm OUT.wasm [--loops] [--no-entry-checks]");
        std::process::exit(2);
    };
    let config = seedfall_instrument::Config {
        loops: args.iter().any(|a| a == "--loops"),
        entry_checks: !args.iter().any(|a| a == "--no-entry-checks"),
    };
    let wasm = std::fs::read(input).expect("read input");
    let mut best = f64::INFINITY;
    let mut result = None;
    for _ in 0..5 {
        let t = Instant::now();
        let r = seedfall_instrument::instrument(&wasm, &config);
        best = best.min(t.elapsed().as_secs_f64());
        result = Some(r);
    }
    let r = match result.unwrap() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    std::fs::write(output, &r.wasm).expect("write output");
    println!(
        "{input}: {} -> {} bytes, {} entries, {} loops, {} entry checks, counter global {}, hook func {}, best {:.1} ms",
        wasm.len(),
        r.wasm.len(),
        r.entry_sites,
        r.loop_sites,
        r.check_sites,
        r.counter_global,
        r.hook_function,
        best * 1e3
    );
}
