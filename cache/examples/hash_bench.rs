//! blake3 on one core vs on all cores (rayon), interleaved so background load
//! hits both alike: `hash_bench FILE [ROUNDS]`.
use std::time::{Duration, Instant};

fn main() {
    let path = std::env::args().nth(1).expect("usage: hash_bench FILE [ROUNDS]");
    let rounds: usize = std::env::args().nth(2).map(|r| r.parse().unwrap()).unwrap_or(40);
    let bytes = std::fs::read(&path).expect("reading FILE");
    // Cold: the very first hash of the process, as in a CLI run (rayon's pool starts here).
    let s = Instant::now();
    std::hint::black_box(blake3::Hasher::new().update_rayon(&bytes).finalize());
    println!("first update_rayon in the process: {:.2} ms", s.elapsed().as_secs_f64() * 1e3);
    let (mut single, mut rayon) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let s = Instant::now();
        std::hint::black_box(blake3::Hasher::new().update(&bytes).finalize());
        single.push(s.elapsed());
        let s = Instant::now();
        std::hint::black_box(blake3::Hasher::new().update_rayon(&bytes).finalize());
        rayon.push(s.elapsed());
    }
    let show = |name: &str, v: &mut Vec<Duration>| {
        v.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "{name:<14} {:.1} MB: min {:.2} ms, median {:.2} ms",
            bytes.len() as f64 / 1e6,
            ms(v[0]),
            ms(v[v.len() / 2])
        );
    };
    show("single thread", &mut single);
    show("update_rayon", &mut rayon);
}
