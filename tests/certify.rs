//! The answer checkers must be able to say no: a broken invariant is not
//! certified, a trace that does not replay is not accepted.

use arrax::answer::Answer;
use arrax::certify::{certify_safe, replay, Status};
use arrax::driver::{check, CheckOptions, Verdict};
use arrax::engine::bwd::{Ended, Options, Search};
use arrax::frontend::parse_file;
use arrax::smt::Backend;
use std::path::Path;

fn system(name: &str) -> arrax::system::System {
    parse_file(&Path::new(env!("CARGO_MANIFEST_DIR")).join("models").join(name)).unwrap().system
}

fn proof_of(sys: &arrax::system::System) -> arrax::answer::Proof {
    let mut s = Search::new(sys, Options::default());
    match s.run(&mut |_| true) {
        Ended::Answer(Answer::Safe(p)) => p,
        other => panic!("expected a proof, got {other:?}"),
    }
}

#[test]
fn a_complete_invariant_is_certified_by_both_solvers() {
    let sys = system("bakery.mcmt");
    let proof = proof_of(&sys);
    for b in [Backend::Cvc5, Backend::Z3] {
        let cert = certify_safe(&sys, &proof, b, 10_000);
        assert!(cert.certified(), "{b}: {:?}", cert.first_gap());
    }
}

#[test]
fn an_invariant_missing_a_clause_fails_consecution() {
    let sys = system("mutex.mcmt");
    let mut proof = proof_of(&sys);
    assert!(proof.invariant.len() >= 2);
    // keep only the property itself: not inductive
    let keep = proof.invariant.iter().position(|c| c.lits.len() == 2 && c.vars.len() == 2).unwrap();
    proof.invariant = vec![proof.invariant[keep].clone()];
    proof.hints = vec![proof.hints[keep].iter().map(|h| arrax::answer::Hint { edge: h.edge.clone(), instances: vec![] }).collect()];
    let cert = certify_safe(&sys, &proof, Backend::Cvc5, 10_000);
    assert!(!cert.certified());
    let gap = cert.first_gap().unwrap();
    assert!(gap.name.starts_with("consecution"), "{}", gap.name);
    assert_eq!(gap.status, Status::Failed);
}

#[test]
fn a_reachable_cube_fails_initiation() {
    let sys = system("mutex.mcmt");
    let mut proof = proof_of(&sys);
    // "some process is idle" holds initially
    let z1 = arrax::system::cube::zvar(0, &sys.index_sort());
    let a = sys.vars[sys.var("a").unwrap()].term.clone();
    let idle = arrax::logic::Term::eq(&arrax::logic::Term::select(&a, std::slice::from_ref(&z1)), &arrax::logic::Term::int(0));
    proof.invariant.push(arrax::system::cube::Cube::plain(vec![z1], vec![idle]));
    proof.hints.push(vec![]);
    let cert = certify_safe(&sys, &proof, Backend::Cvc5, 10_000);
    let gap = cert.first_gap().expect("must not certify");
    assert!(gap.name.starts_with("initiation"), "{}", gap.name);
    assert_eq!(gap.status, Status::Failed);
}

#[test]
fn replay_rejects_a_trace_with_a_wrong_transition() {
    let sys = system("mutex_buggy.mcmt");
    let mut s = Search::new(&sys, Options::default());
    let trace = match s.run(&mut |_| true) {
        Ended::Answer(Answer::Unsafe(arrax::answer::Counterexample::Trace(t, _))) => t,
        other => panic!("expected a trace, got {other:?}"),
    };
    assert!(replay(&sys, &trace, Backend::Cvc5, 10_000).unwrap().is_some());
    // swap the first step's transition for another: the trace no longer replays
    let mut bad = trace.clone();
    let t0 = bad.edges[0].transition;
    bad.edges[0].transition = (t0 + 1) % sys.transitions.len();
    assert!(replay(&sys, &bad, Backend::Cvc5, 10_000).unwrap().is_none());
}

#[test]
fn search_and_certification_agree_on_every_backend_pairing() {
    for backend in [Backend::Z3, Backend::Cvc5] {
        let sys = system("burns.mcmt");
        let opts = CheckOptions { settings: arrax::engine::Settings { backend: Some(backend), ..Default::default() }, ..CheckOptions::default() };
        let r = check(&sys, &opts);
        assert_eq!(r.verdict, Verdict::Safe, "{backend}");
        assert!(matches!(r.certification, arrax::driver::Certification::Certified(_)), "{backend}: {:?}", r.certification);
    }
}

/// Obligations of a protocol are checked in batches (one disjunction each): with a
/// broken invariant, every obligation's status is still the one its own
/// formula has when checked alone, for both solvers.
#[test]
fn batched_obligations_keep_their_own_status() {
    let sys = system("mutex.mcmt");
    // batches are checked for order-only indices
    assert_eq!(sys.index_kind(), arrax::system::IndexKind::Order);
    let mut proof = proof_of(&sys);
    let keep = proof.invariant.iter().position(|c| c.lits.len() == 2 && c.vars.len() == 2).unwrap();
    proof.invariant = vec![proof.invariant[keep].clone()];
    proof.hints = vec![proof.hints[keep].iter().map(|h| arrax::answer::Hint { edge: h.edge.clone(), instances: vec![] }).collect()];
    for b in [Backend::Cvc5, Backend::Z3] {
        let cert = certify_safe(&sys, &proof, b, 10_000);
        let failed = cert.obligations.iter().filter(|o| o.status == Status::Failed).count();
        assert!(failed >= 1 && failed < cert.obligations.len(), "{b}: {failed} failed");
        let mut solver = arrax::smt::checker(b);
        for o in cert.obligations.iter().filter(|o| o.status != Status::Frame) {
            let alone = arrax::smt::check_alone(solver.as_mut(), &o.formula, None);
            let expected = if alone == arrax::smt::SatResult::Unsat { Status::Proved } else { Status::Failed };
            assert_eq!(o.status, expected, "{b}: {}", o.name);
        }
    }
}
