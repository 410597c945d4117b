//! Verdict tests: every model in `models/` is decided as its file says, and
//! the answer is certified (SAFE) or replayed (UNSAFE); a model announcing
//! `expect: REFUSED` (outside the input language) must be refused.

mod common;

use arrax::driver::{check, Certification, CheckOptions, Verdict};
use arrax::engine::Settings;
use arrax::frontend::parse_file;

#[test]
fn every_model_gets_its_expected_certified_verdict() {
    let models = common::models();
    assert!(models.len() >= 10, "expected the project's models, found {}", models.len());
    let mut failures = vec![];
    for (path, expected) in &models {
        if expected == "REFUSED" {
            // outside the input language: a located refusal, never a verdict
            if let Ok(p) = parse_file(path) {
                failures.push(format!("{}: expected a refusal, read {} transitions", path.display(), p.system.transitions.len()));
            }
            continue;
        }
        let parsed = match parse_file(path) {
            Ok(p) => p,
            Err(d) => {
                failures.push(format!("{}: parse error {d}", path.display()));
                continue;
            }
        };
        let opts = CheckOptions { timeout: Some(std::time::Duration::from_secs(120)), ..CheckOptions::default() };
        let r = check(&parsed.system, &opts);
        let got = match &r.verdict {
            Verdict::Safe => "SAFE".to_string(),
            Verdict::Unsafe => "UNSAFE".to_string(),
            Verdict::Unknown(w) => format!("UNKNOWN ({w})"),
        };
        if &got != expected {
            failures.push(format!("{}: expected {expected}, got {got}", path.display()));
        } else if !matches!(r.certification, Certification::Certified(_)) {
            failures.push(format!("{}: {got} but not certified: {:?}", path.display(), r.certification));
        }
        if *expected == "UNSAFE" && r.trace.is_none() && r.replayed.is_none() {
            failures.push(format!("{}: UNSAFE without a replayed trace", path.display()));
        }
    }
    assert!(failures.is_empty(), "verdict failures:\n{}", failures.join("\n"));
}

/// The C models: the default portfolio (lazy abstraction, forward
/// execution, candidate invariants) decides every one of them, never
/// wrongly, and every answer is certified.
#[test]
fn c_models_get_their_verdict() {
    let models = common::c_models();
    assert!(models.len() >= 12, "expected the C models, found {}", models.len());
    let mut failures = vec![];
    for (path, expected) in &models {
        let name = path.file_name().unwrap().to_str().unwrap();
        let parsed = parse_file(path).unwrap_or_else(|d| panic!("{}: {d}", path.display()));
        // a verdict, not a speed target (benchmarks hold those): the limit
        // leaves room for the test harness running tests side by side
        let opts = CheckOptions { timeout: Some(std::time::Duration::from_secs(60)), ..CheckOptions::default() };
        let r = check(&parsed.system, &opts);
        let got = match &r.verdict {
            Verdict::Safe => "SAFE",
            Verdict::Unsafe => "UNSAFE",
            Verdict::Unknown(_) => "UNKNOWN",
        };
        if got == "UNKNOWN" {
            failures.push(format!("{name}: expected {expected}, got {:?}", r.verdict));
        } else if got != expected {
            failures.push(format!("{name}: WRONG: expected {expected}, got {got}"));
        } else if !matches!(r.certification, Certification::Certified(_)) {
            failures.push(format!("{name}: {got} but not certified: {:?}", r.certification));
        }
    }
    assert!(failures.is_empty(), "C verdict failures:\n{}", failures.join("\n"));
}

/// C programs and their hand-lowered MCMT versions get the same certified verdict.
#[test]
fn c_programs_and_their_hand_lowered_systems_agree() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    for (c, mcmt, expected) in
        [("init_test.c", "init_test_lowered.mcmt", Verdict::Safe), ("init_test_buggy.c", "init_test_buggy_lowered.mcmt", Verdict::Unsafe)]
    {
        for name in [c, mcmt] {
            let parsed = parse_file(&dir.join(name)).unwrap();
            let opts = CheckOptions { timeout: Some(std::time::Duration::from_secs(60)), ..CheckOptions::default() };
            let r = check(&parsed.system, &opts);
            assert_eq!(r.verdict, expected, "{name}");
            assert!(matches!(r.certification, Certification::Certified(_)), "{name}: {:?}", r.certification);
        }
    }
}

/// The synthesized invariants and traces of a few models, so that a change
/// in what arrax finds shows in review.
#[test]
fn invariants_and_traces_are_stable() {
    let settings = common::snapshot_settings();
    for name in ["mutex.mcmt", "bakery.mcmt", "szymanski.mcmt", "mutex_buggy.mcmt", "german_buggy.mcmt", "write_back.mcmt"] {
        let parsed = parse_model(name);
        let r = check(&parsed.system, &CheckOptions::default());
        let mut text = String::new();
        if let Some(p) = &r.proof {
            text.push_str(&format!("invariant ({} clauses):\n", p.invariant.len()));
            for c in &p.invariant {
                text.push_str(&format!("  {}\n", arrax::report::clause(c)));
            }
        }
        if let Some(t) = &r.trace {
            text.push_str(&arrax::report::trace(&parsed.system, t));
        }
        settings.bind(|| insta::assert_snapshot!(format!("verdict_{}", name.replace('.', "_")), text));
    }
}

/// The universally quantified invariants lazy abstraction synthesizes for
/// array programs (SAFARI's families), so a change in them shows in review.
#[test]
fn synthesized_array_invariants_are_stable() {
    let settings = common::snapshot_settings();
    for name in ["array_init_test.mcmt", "array_copy.mcmt", "array_find.mcmt", "array_max.mcmt", "array_partition.mcmt", "array_strcpy.mcmt"] {
        let parsed = parse_model(name);
        let opts = CheckOptions { engine: arrax::engine::Choice::Lazy, ..CheckOptions::default() };
        let r = check(&parsed.system, &opts);
        assert_eq!(r.verdict, Verdict::Safe, "{name}");
        assert!(matches!(r.certification, Certification::Certified(_)), "{name}: {:?}", r.certification);
        let p = r.proof.as_ref().unwrap();
        let mut text = format!("invariant ({} clauses):\n", p.invariant.len());
        for c in &p.invariant {
            text.push_str(&format!("  {}\n", arrax::report::clause(c)));
        }
        settings.bind(|| insta::assert_snapshot!(format!("lazy_{}", name.replace('.', "_")), text));
    }
}

/// The range invariants IC3/PDR synthesizes on the programs written for it
/// (`∀z ∈ [i, n). a[z] = 0` beside `∀z ∈ [0, i). a[z] = 5`, `∀z ∈ [0, k).
/// dst[z] = src[3·z + 2]`), so a change in them shows in review: PDR's own
/// lemmas, without seed invariants from sampled executions. The clauses
/// are sorted: the location facts that join them come in no fixed order.
#[test]
fn pdr_range_invariants_are_stable() {
    let settings = common::snapshot_settings();
    for name in ["mark_zeros.c", "rescale.c", "gather_stride.c"] {
        let parsed = parse_model(name);
        let mut opts = CheckOptions { engine: arrax::engine::Choice::Pdr, timeout: Some(std::time::Duration::from_secs(60)), ..CheckOptions::default() };
        opts.settings.pdr_seeds = arrax::engine::pdr::Seeds::None;
        let r = check(&parsed.system, &opts);
        assert_eq!(r.verdict, Verdict::Safe, "{name}");
        assert!(matches!(r.certification, Certification::Certified(_)), "{name}: {:?}", r.certification);
        let p = r.proof.as_ref().unwrap();
        // a clause over a range bounded by a counter: a quantified variable below or from a program variable
        let ranged = p.invariant.iter().any(|c| {
            !c.vars.is_empty()
                && c.lits
                    .iter()
                    .any(|l| matches!(l.op(), arrax::logic::Op::Lt | arrax::logic::Op::Le) && l.args().iter().any(|a| a.is_var() && !c.vars.contains(a)))
        });
        assert!(ranged, "{name}: no range bounded by a counter in the invariant");
        let mut clauses: Vec<String> = p.invariant.iter().map(arrax::report::clause).collect();
        clauses.sort();
        let text = format!("invariant ({} clauses):\n  {}\n", clauses.len(), clauses.join("\n  "));
        settings.bind(|| insta::assert_snapshot!(format!("pdr_{}", name.replace('.', "_")), text));
    }
}

/// IC3/PDR on Spacer's abstraction of the guards: the search starts with
/// the loop conditions hidden, refines on the traces that do not replay,
/// and its invariant — one of the abstract system, so one of the program —
/// is certified; the run did refine (the test is not vacuous).
#[test]
fn pdr_proves_range_invariants_on_abstract_transitions() {
    for name in ["mark_zeros.c", "rescale.c"] {
        let parsed = parse_model(name);
        let mut opts = CheckOptions { engine: arrax::engine::Choice::Pdr, timeout: Some(std::time::Duration::from_secs(60)), ..CheckOptions::default() };
        opts.settings.pdr_seeds = arrax::engine::pdr::Seeds::None;
        opts.settings.pdr_abstraction = arrax::engine::pdr::Abstracting::Transitions;
        let r = check(&parsed.system, &opts);
        assert_eq!(r.verdict, Verdict::Safe, "{name}");
        assert!(matches!(r.certification, Certification::Certified(_)), "{name}: {:?}", r.certification);
        assert!(r.stats.refinements > 0 && r.stats.spurious == r.stats.refinements, "{name}: {:?}", r.stats);
    }
}

/// The affine equalities candidate invariants solve for from sampled states
/// (`total = 3·i`, `∀z ∈ [0, i). a[z] = 2·z + 5`): they are in the certified
/// invariant, and a change in it shows in review.
#[test]
fn solved_affine_invariants_are_stable() {
    let settings = common::snapshot_settings();
    let parsed = parse_model("running_total.c");
    let opts = CheckOptions { engine: arrax::engine::Choice::Houdini, timeout: Some(std::time::Duration::from_secs(60)), ..CheckOptions::default() };
    let r = check(&parsed.system, &opts);
    assert_eq!(r.verdict, Verdict::Safe);
    assert!(matches!(r.certification, Certification::Certified(_)), "{:?}", r.certification);
    let mut clauses: Vec<String> = r.proof.as_ref().unwrap().invariant.iter().map(arrax::report::clause).collect();
    clauses.sort();
    let text = format!("invariant ({} clauses):\n  {}\n", clauses.len(), clauses.join("\n  "));
    for needed in ["3·i", "2·z1"] {
        assert!(text.contains(needed), "no clause with {needed} in\n{text}");
    }
    settings.bind(|| insta::assert_snapshot!("houdini_running_total_c", text));
}

/// Plain backward search (no approximation, no postponement) reaches the
/// same certified verdicts on the smaller models.
#[test]
fn plain_search_agrees() {
    for (name, expected) in [
        ("mutex.mcmt", "SAFE"),
        ("mutex_buggy.mcmt", "UNSAFE"),
        ("bakery.mcmt", "SAFE"),
        ("bakery_buggy.mcmt", "UNSAFE"),
        ("burns.mcmt", "SAFE"),
        ("burns_buggy.mcmt", "UNSAFE"),
        ("dijkstra.mcmt", "SAFE"),
        ("mutex.cub", "SAFE"),
        ("write_back.mcmt", "SAFE"),
        ("write_back_buggy.mcmt", "UNSAFE"),
        ("scan.mcmt", "SAFE"),
        ("scan_buggy.mcmt", "UNSAFE"),
    ] {
        let parsed = parse_model(name);
        let opts = CheckOptions { settings: Settings { brab: 0, postpone: false, ..Settings::default() }, ..CheckOptions::default() };
        let r = check(&parsed.system, &opts);
        let got = match r.verdict {
            Verdict::Safe => "SAFE",
            Verdict::Unsafe => "UNSAFE",
            Verdict::Unknown(_) => "UNKNOWN",
        };
        assert_eq!(got, expected, "{name}");
        assert!(matches!(r.certification, Certification::Certified(_)), "{name}: {:?}", r.certification);
    }
}

/// An unsafe state that the oracle's finite instance reaches while it is
/// explored is answered at once, after its path replays on the system; the
/// search (without an oracle) finds the same verdict on its own.
#[test]
fn unsafe_states_of_the_finite_instance_are_replayed_counterexamples() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    for name in ["mutex_buggy.mcmt", "mutex_buggy.cub", "german_buggy.mcmt"] {
        let parsed = parse_file(&dir.join(name)).unwrap();
        let r = check(&parsed.system, &CheckOptions::default());
        assert_eq!(r.verdict, Verdict::Unsafe, "{name}");
        assert!(r.trace.is_some(), "{name}: no replayed trace");
        assert!(r.notes.iter().any(|n| n.contains("instance reaches an unsafe state") && n.contains("replayed")), "{name}: {:?}", r.notes);
        let plain = check(&parsed.system, &CheckOptions { settings: Settings { brab: 0, ..Settings::default() }, ..CheckOptions::default() });
        assert_eq!(plain.verdict, Verdict::Unsafe, "{name} without an oracle");
        assert!(!plain.notes.iter().any(|n| n.contains("instance reaches")), "{name}: {:?}", plain.notes);
    }
}

/// A property whose proof needs `∃` (the line is dirty only while someone
/// owns it): the approximated universal guards give a spurious trace, the
/// search with exact ones proves it with a clause about the processes it
/// does not name, and that clause is what the certificate rests on —
/// without it the same invariant is not certified.
#[test]
fn exact_universal_guards_prove_what_no_universal_invariant_can() {
    let (parsed, r) = certified_with_note("write_back.mcmt", "exact universal guards");
    let proof = r.proof.unwrap();
    assert!(proof.invariant.iter().any(|c| !c.others.is_empty()), "no clause about other processes");
    let mut weaker = proof.clone();
    for c in &mut weaker.invariant {
        c.others.clear();
    }
    let cert = arrax::certify::certify_safe(&parsed.system, &weaker, arrax::smt::Backend::Z3, 10_000);
    assert!(!cert.certified(), "the invariant without its conditions on other processes was certified");
}

/// A scan over the processes below one (`c[x] = y ∧ ¬w[y]`, then
/// `c[x] := c[x] + 1`) met one process at a time gives backward search an
/// endless chain of cubes; its accelerated companion gives the bound
/// `y < c[x]` in one pre-image, and the invariant found with it is
/// certified against the original transitions. A trace through the
/// companion is replayed and printed as the iterations it stands for.
#[test]
fn counter_loops_over_processes_are_accelerated() {
    let (parsed, _) = certified_with_note("scan.mcmt", "accelerated loops: t2_next*");
    let slow = CheckOptions {
        settings: Settings { accelerate: false, ..Settings::default() },
        timeout: Some(std::time::Duration::from_secs(3)),
        ..CheckOptions::default()
    };
    assert!(matches!(check(&parsed.system, &slow).verdict, Verdict::Unknown(_)));
    // a bug behind a scan of two processes: plain search meets it through
    // the accelerated step, and the replayed trace shows the two iterations
    let buggy = parse_model("scan_buggy.mcmt");
    let r = check(&buggy.system, &CheckOptions { settings: Settings { brab: 0, ..Settings::default() }, ..CheckOptions::default() });
    assert_eq!(r.verdict, Verdict::Unsafe, "{:?}", r.notes);
    let steps: Vec<&str> = r.trace.as_ref().expect("a replayed trace").steps.iter().map(|(t, _)| buggy.system.transitions[*t].name.as_str()).collect();
    assert_eq!(steps.iter().filter(|n| **n == "t2_next").count(), 2, "{steps:?}");
}

/// A model in `models/`, parsed.
fn parse_model(name: &str) -> arrax::frontend::Parsed {
    parse_file(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models").join(name)).unwrap()
}

/// The default check of a model in `models/`, which must be certified SAFE
/// with a note saying `note`.
fn certified_with_note(name: &str, note: &str) -> (arrax::frontend::Parsed, arrax::driver::CheckResult) {
    let parsed = parse_model(name);
    let r = check(&parsed.system, &CheckOptions::default());
    certified_clauses(name, &r, None);
    assert!(r.notes.iter().any(|n| n.contains(note)), "{name}: {:?}", r.notes);
    (parsed, r)
}

/// The default check of a model in `models/`.
fn check_model(name: &str) -> arrax::driver::CheckResult {
    check(&parse_model(name).system, &CheckOptions::default())
}

/// A number that grows without bound (a clock) makes the finite instance
/// infinite; the oracle bounds it and still explores the instance
/// completely, and the answer is certified as usual.
#[test]
fn growing_numbers_are_bounded_in_the_finite_instance() {
    let r = check_model("stamp_mutex.cub");
    assert_eq!(r.verdict, Verdict::Safe);
    assert!(matches!(r.certification, Certification::Certified(_)), "{:?}", r.certification);
    let note = r.notes.iter().find(|n| n.contains("approximating with")).expect("an oracle");
    assert!(note.contains("growing numbers at most") && !note.contains("cut short"), "{note}");
}

/// A bug that needs one process more than the oracle's instance is found
/// by a bounded look at the next instance once an approximation the
/// small instance allowed is refuted, and replayed.
#[test]
fn a_bug_needing_a_third_process_is_found_by_the_next_instance() {
    let r = check_model("third_party_bug.cub");
    assert_eq!(r.verdict, Verdict::Unsafe);
    assert!(r.notes.iter().any(|n| n.contains("the 3-process instance reaches an unsafe state") && n.contains("replayed")), "{:?}", r.notes);
    assert_eq!(r.trace.expect("a replayed trace").procs, 3);
}

/// An initial formula that no two processes satisfy together leaves the
/// two-process instance without states: the oracle then proposes the cube
/// without literals, and the invariant "no two processes" is certified.
#[test]
fn an_instance_without_initial_states_proposes_the_empty_cube() {
    let src = "type m = E | R\narray C[proc,proc] : m\narray V[proc,proc] : int\n\
               init (x y) { C[x,y] = E && V[x,y] = 0 && V[x,y] = 1 }\n\
               unsafe (x y) { C[x,y] = R && C[y,x] = R }\n\
               transition send (i j) requires { C[i,j] = E && V[i,j] < 3 } { C[i,j] := R; V[i,j] := V[i,j] + 1 }\n";
    let parsed = arrax::frontend::parse_str(src, arrax::frontend::Format::Cubicle).unwrap();
    let r = check(&parsed.system, &CheckOptions::default());
    assert_eq!(r.verdict, Verdict::Safe);
    assert!(matches!(r.certification, Certification::Certified(_)), "{:?}", r.certification);
    let proof = r.proof.expect("an invariant");
    assert!(proof.invariant.iter().any(|c| c.lits.is_empty() && c.arity() == 2), "{:?}", proof.invariant);
}

/// Candidate invariants alone (`--engine houdini`) on a model of
/// `models/`, with a time limit of `secs`.
fn candidate_invariants(name: &str, secs: u64) -> arrax::driver::CheckResult {
    let parsed = parse_model(name);
    let opts = CheckOptions { engine: arrax::engine::Choice::Houdini, timeout: Some(std::time::Duration::from_secs(secs)), ..CheckOptions::default() };
    check(&parsed.system, &opts)
}

/// The clauses of a certified SAFE answer's invariant with `vars`
/// quantified variables (any number, `None`).
fn certified_clauses(name: &str, r: &arrax::driver::CheckResult, vars: Option<usize>) -> Vec<String> {
    assert_eq!(r.verdict, Verdict::Safe, "{name}: {:?}", r.notes);
    assert!(matches!(r.certification, Certification::Certified(_)), "{name}: {:?}", r.certification);
    r.proof.as_ref().unwrap().invariant.iter().filter(|c| vars.is_none_or(|n| c.vars.len() == n)).map(|c| c.to_string()).collect()
}

/// Candidate invariants alone: selection sort's proof needs "the minimum
/// so far", `∀z ∈ [i, j). a[m] ≤ a[z]`, which the templates propose and
/// the fixpoint keeps; the answer is certified by the other solver.
#[test]
fn candidate_invariants_find_the_minimum_so_far() {
    let inv = certified_clauses("selection_sort.c", &candidate_invariants("selection_sort.c", 60), None);
    assert!(inv.iter().any(|c| c.contains("(< (select a z1) (select a m))")), "{inv:?}");
    // the proof is what the unsafe cube's coverings need, not every survivor
    assert!(inv.len() <= 10, "{inv:?}");
}

/// A reversed copy and an in-place palindrome need an array read in mirror
/// order, `∀z < i. b[z] = a[99999 - z]`: the templates propose it from the
/// program's reads at `k - i`.
#[test]
fn candidate_invariants_find_mirror_images() {
    for (name, k) in [("mirror.c", "99999"), ("palindrome.c", "9999")] {
        let inv = certified_clauses(name, &candidate_invariants(name, 60), Some(1));
        assert!(inv.iter().any(|c| c.contains(&format!("(+ (- z1) {k})")) || c.contains(&format!("(+ {k} (- z1))"))), "{name}: {inv:?}");
    }
}

/// running_max.c needs sortedness, `∀z1 < z2 < i. a[z1] ≤ a[z2]`: a
/// candidate of two quantified variables, which the templates propose when
/// those of one prove nothing; and after the loop, at locations sampling
/// never reaches, the same fact over the whole array. bubble_sort.c needs
/// it under a flag.
#[test]
fn candidate_invariants_find_sortedness() {
    let sorted = certified_clauses("running_max.c", &candidate_invariants("running_max.c", 60), Some(2));
    assert!(sorted.iter().any(|c| c.contains("(< (select a z2) (select a z1))") && c.contains("(< z1 z2)")), "{sorted:?}");
    // bubble_sort.c: sorted only once a pass swapped nothing (`done = 1`)
    let sorted = certified_clauses("bubble_sort.c", &candidate_invariants("bubble_sort.c", 60), Some(2));
    assert!(sorted.iter().any(|c| c.contains("(< (select a z2) (select a z1))") && c.contains("(= done 1)")), "{sorted:?}");
}

/// Candidate invariants answer a buggy program only with a bug that one of
/// their sampled executions met, found again by forward execution and
/// replayed.
#[test]
fn candidate_invariants_hand_a_sampled_bug_to_forward_execution() {
    // each of these bugs is met by one of the sampled executions (the
    // selection sort's by a spike at the second choice): the run is
    // repeated, recorded, and the replay confirms it
    for name in ["selection_sort_buggy.c", "strcpy_buggy.c", "find_buggy.c"] {
        let r = candidate_invariants(name, 30);
        assert_eq!(r.verdict, Verdict::Unsafe, "{name}");
        assert!(matches!(r.certification, Certification::Certified(_)) && r.replayed.is_some(), "{name}: {:?}", r.certification);
    }
}
