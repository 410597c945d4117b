//! Throughput of the forward engine (`--engine run`) and of the replay of
//! what it finds, on the test programs of `tests/data/run/` scaled to
//! 1,000,000 loop iterations. Run with `cargo bench --bench run_speed`.

use arrax::certify::execution::replay;
use arrax::engine::run::{search, Options};
use std::path::Path;
use std::time::Instant;

fn program(name: &str, from: &str, to: &str) -> arrax::system::System {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/run").join(name);
    let src = std::fs::read_to_string(p).unwrap().replace(from, to);
    arrax::frontend::mcmt::parse(&src).unwrap().system
}

fn main() {
    let cases = [
        ("init_check_bug: 1M array writes, then the check", program("init_check_bug.mcmt", "100000", "1000000")),
        ("copy_bug: 1M inputs, copy, check", program("copy_bug.mcmt", " 1000)", " 1000000)")),
    ];
    for (name, sys) in cases {
        let t0 = Instant::now();
        let sum = search(&sys, &Options { timeout: None, max_steps: 1 << 34, seed: 0, opening: None }).unwrap();
        let engine = t0.elapsed();
        let found = sum.found.clone().expect("the error is found");
        let t1 = Instant::now();
        let rep = replay(&sys, &found.execution).expect("the execution replays");
        let replayed = t1.elapsed();
        println!("{name}");
        println!(
            "  engine: {} runs, {} steps in {:.3}s = {:.1}M steps/s; execution of {} steps",
            sum.runs,
            sum.steps,
            engine.as_secs_f64(),
            sum.steps_per_sec() / 1e6,
            found.execution.len()
        );
        println!("  replay: {} steps in {:.3}s = {:.2}M steps/s", rep.steps, replayed.as_secs_f64(), rep.steps as f64 / replayed.as_secs_f64() / 1e6);
    }
}
