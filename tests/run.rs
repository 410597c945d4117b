//! The forward execution engine (`--engine run`) and the independent
//! replay of the executions it finds, on small programs written in MCMT
//! with integer indices (`tests/data/run/`).

mod common;

use arrax::answer::Execution;
use arrax::certify::execution::replay;
use arrax::driver::{check, Certification, CheckOptions, CheckResult, Verdict};
use arrax::engine::Choice as Engine;
use arrax::frontend;
use arrax::system::System;
use std::path::Path;

fn data(name: &str) -> System {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/run").join(name);
    frontend::parse_file(&p).unwrap_or_else(|d| panic!("{name}: {d}")).system
}

fn mcmt(src: &str) -> System {
    frontend::mcmt::parse(src).unwrap_or_else(|d| panic!("{d}")).system
}

fn run(sys: &System) -> CheckResult {
    check(sys, &CheckOptions { engine: Engine::Run, ..CheckOptions::default() })
}

/// Runs the engine and expects a replayed execution.
fn found(sys: &System) -> Execution {
    let r = run(sys);
    assert_eq!(r.verdict, Verdict::Unsafe, "{:?}", r.notes);
    assert!(matches!(r.certification, Certification::Certified(_)), "{:?}", r.certification);
    assert!(r.replayed.is_some());
    r.execution.unwrap()
}

#[test]
fn finds_the_error_behind_100000_iterations() {
    let sys = data("init_check_bug.mcmt");
    let ex = found(&sys);
    assert_eq!(ex.len(), 100_002);
    assert_eq!(ex.steps.len(), 3, "the loop is one run-length item: {:?}", ex.steps);
    assert_eq!(replay(&sys, &ex).unwrap().steps, 100_002);
}

#[test]
fn a_program_without_error_ends_unknown_never_safe() {
    let src = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/run/init_check_bug.mcmt")).unwrap();
    let sys = mcmt(&src.replace(" 43)", " 42)"));
    let r = run(&sys);
    match &r.verdict {
        Verdict::Unknown(why) => assert!(why.starts_with("run engine: no error within "), "{why}"),
        v => panic!("{v:?}"),
    }
    assert!(r.execution.is_none());
}

#[test]
fn an_input_must_hit_the_boundary_of_its_range() {
    let sys = data("boundary.mcmt");
    let ex = found(&sys);
    assert_eq!(ex.values, vec![1000]);
}

#[test]
fn random_inputs_make_copies_differ() {
    let sys = data("copy_bug.mcmt");
    let ex = found(&sys);
    assert_eq!(ex.len(), 2003);
}

#[test]
fn open_array_cells_are_chosen_in_their_initial_range() {
    let sys = data("two_step_loop.mcmt");
    let ex = found(&sys);
    let b = &ex.arrays[0];
    assert!(!b.cells.is_empty());
    assert!(b.cells.iter().all(|(_, v)| *v >= -5));
    assert!(b.cells.iter().any(|(_, v)| *v < -3));
}

#[test]
fn replay_rejects_wrong_executions() {
    // a wrong nondeterministic value: the failing test's guard does not hold
    let sys = data("boundary.mcmt");
    let mut ex = found(&sys);
    ex.values[0] = 999;
    let e = replay(&sys, &ex).unwrap_err();
    assert!(e.contains("guard of fail"), "{e}");
    ex.values[0] = 1001;
    let e = replay(&sys, &ex).unwrap_err();
    assert!(e.contains("guard of read"), "{e}");

    // a step left out of a loop: the next guard fails
    let sys = data("init_check_bug.mcmt");
    let good = found(&sys);
    let mut ex = good.clone();
    ex.steps[0].1 -= 1;
    assert!(replay(&sys, &ex).unwrap_err().contains("guard of init_done"));
    // a step too many
    let mut ex = good.clone();
    ex.steps[0].1 += 1;
    assert!(replay(&sys, &ex).unwrap_err().contains("guard of init"));
    // a wrong initial scalar
    let mut ex = good.clone();
    ex.scalars.iter_mut().find(|(t, _)| t.to_string() == "i").unwrap().1 = 1;
    assert!(replay(&sys, &ex).unwrap_err().contains("initial state violates"));
    // a wrong initial array default
    let mut ex = good.clone();
    ex.arrays[0].default = 7;
    assert!(replay(&sys, &ex).unwrap_err().contains("initial state violates"));
    // the last step dropped: the final state is not unsafe
    let mut ex = good;
    ex.steps.pop();
    assert!(replay(&sys, &ex).unwrap_err().contains("unsafe cube"));

    // an array cell chosen outside the initial range
    let sys = data("two_step_loop.mcmt");
    let mut ex = found(&sys);
    ex.arrays[0].cells[0].1 = -6;
    assert!(replay(&sys, &ex).unwrap_err().contains("initial state violates"));
}

#[test]
fn systems_outside_the_fragment_end_unknown() {
    // order-only indices (a protocol)
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mutex.mcmt");
    let sys = frontend::parse_file(&p).unwrap().system;
    match run(&sys).verdict {
        Verdict::Unknown(why) => assert!(why.starts_with("run engine: "), "{why}"),
        v => panic!("{v:?}"),
    }
    // an update of a whole range of cells
    let sys = mcmt(
        ":index int\n:local a int\n:global i int\n:initial\n:var x\n:cnj (= a[x] 0) (= i[x] 0)\n\
         :unsafe\n:var z\n:cnj (= i[z] 5)\n:transition\n:var j\n:guard (< i[j] 5)\n:numcases 2\n\
         :case (< j i[j])\n :val 1\n :val (+ i[j] 1)\n:case\n :val a[j]\n :val (+ i[j] 1)\n",
    );
    match run(&sys).verdict {
        Verdict::Unknown(why) => assert!(why.contains("changes more than named cells"), "{why}"),
        v => panic!("{v:?}"),
    }
}

#[test]
fn summarised_execution_snapshots() {
    for name in ["two_step_loop", "copy_bug"] {
        let sys = data(&format!("{name}.mcmt"));
        let r = run(&sys);
        let text = arrax::report::execution(&sys, r.execution.as_ref().unwrap(), r.replayed.as_ref());
        common::snapshot_settings().bind(|| insta::assert_snapshot!(format!("run_{name}"), text));
    }
}

#[test]
fn loops_are_summarised_as_repeated_cycles() {
    use arrax::report::summarise;
    // a a a b c b c b c d
    let steps = vec![(0, 3), (1, 1), (2, 1), (1, 1), (2, 1), (1, 1), (2, 1), (3, 1)];
    assert_eq!(summarise(&steps), vec![(vec![(0, 3)], 1), (vec![(1, 1), (2, 1)], 3), (vec![(3, 1)], 1)]);
    // an outer loop around an inner loop of 100 iterations
    let mut steps = vec![(0, 1)];
    for _ in 0..50 {
        steps.extend([(1, 1), (2, 100), (3, 1)]);
    }
    steps.push((4, 1));
    assert_eq!(summarise(&steps), vec![(vec![(0, 1)], 1), (vec![(1, 1), (2, 100), (3, 1)], 50), (vec![(4, 1)], 1)]);
}

#[test]
fn self_loops_are_accelerated_and_replayed_in_closed_form() {
    let sys = data("nested.mcmt");
    let r = run(&sys);
    assert_eq!(r.verdict, Verdict::Unsafe, "{:?}", r.notes);
    let good = r.execution.unwrap();
    assert_eq!(good.len(), 450_045_001);
    let rep = replay(&sys, &good).unwrap();
    assert!(rep.accelerated > 400_000_000, "{}", rep.accelerated);
    // the longest inner loop, one iteration too many or too few
    let (pos, _) = good.steps.iter().enumerate().max_by_key(|(_, s)| s.1).unwrap();
    let mut ex = good.clone();
    ex.steps[pos].1 += 1;
    let e = replay(&sys, &ex).unwrap_err();
    assert!(e.contains("guard of inner does not hold"), "{e}");
    let mut ex = good;
    ex.steps[pos].1 -= 1;
    let e = replay(&sys, &ex).unwrap_err();
    assert!(e.contains("guard of inner_done does not hold"), "{e}");
}

#[test]
fn command_line_text_and_json() {
    let exe = env!("CARGO_BIN_EXE_arrax");
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/run/boundary.mcmt");
    let out = std::process::Command::new(exe).args(["check", "--engine", "run"]).arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().last(), Some("UNSAFE (replayed)"), "{text}");
    assert!(text.contains("step 1: read (v = 1000)"), "{text}");
    let out = std::process::Command::new(exe).args(["check", "--engine", "run", "--json"]).arg(&file).output().unwrap();
    let json = String::from_utf8(out.stdout).unwrap();
    for part in [
        "\"verdict\":\"UNSAFE\"",
        "\"engine\":\"run\"",
        "\"certified\":true",
        "\"transition\":\"read\",\"procs\":[],\"repeat\":1",
        "\"final\":{\"x\":1000,\"pc\":4}",
    ] {
        assert!(json.contains(part), "{part} in {json}");
    }
    // a step limit too small: UNKNOWN, exit 3
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/run/init_check_bug.mcmt");
    let out = std::process::Command::new(exe).args(["check", "--engine", "run", "--max-steps", "1000"]).arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().last(), Some("UNKNOWN (run engine: no error within 1000 steps × 1 runs)"), "{text}");
}

#[test]
fn process_parameters_are_inputs() {
    let sys = data("params.mcmt");
    let good = found(&sys);
    assert_eq!(good.len(), 1002);
    // one input per write step (its x), two for done (x, y)
    assert_eq!(good.values.len(), 1002);
    assert_eq!(good.values[..3], [0, 1, 2]);
    let mut ex = good.clone();
    ex.values[0] = 1;
    assert!(replay(&sys, &ex).unwrap_err().contains("guard of write"));
    let mut ex = good;
    ex.values[1001] = ex.values[1000];
    assert!(replay(&sys, &ex).unwrap_err().contains("not distinct"));
}

#[test]
fn boolean_array_updates_in_simplified_form() {
    let sys = data("bool_marks.mcmt");
    let ex = found(&sys);
    assert_eq!(ex.len(), 102);
    // t starts false everywhere: a default of true violates the initial formula
    let mut bad = ex.clone();
    bad.arrays[0].default = 1;
    assert!(replay(&sys, &bad).unwrap_err().contains("initial state violates"));
}

/// A value no literal of the program names (`2x = 2468 + x - 1234` holds
/// only for `x = 1234`) comes from a model of the error condition.
#[test]
fn solver_suggested_values_reach_a_pinpoint_error() {
    let sys = mcmt(
        ":index int
:smt (define-type loc (subrange 1 2))
:local a int
:global x int
:global pc loc
:initial
:var y
:cnj (= pc[y] 1)
:unsafe
:var z1
:cnj (= pc[z1] 2)
:transition
:var j
:guard (= pc[j] 1) (= (* 3 x[j]) (+ 2468 x[j])) (< 1000 x[j]) (< x[j] 2000)
:numcases 1
:case
 :val a[j]
 :val x[j]
 :val 2
",
    );
    let ex = found(&sys);
    assert!(ex.len() <= 2, "{}", ex.len());
}
