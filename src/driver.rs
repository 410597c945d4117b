//! The `check` pipeline: choose an engine, run it, check its answer
//! (certify SAFE, replay UNSAFE) and report.

use crate::certify::{self, ConcreteTrace, SafeCertificate, Status};
use crate::engine::bwd::{self, Order, Search};
use crate::certify::execution::Replayed;
use crate::engine::run;
use crate::engine::{Execution, Outcome, Proof, Stats};
use crate::smt::Backend;
use crate::system::System;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Which search runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// Chosen per input: backward reachability for protocols; for
    /// programs, a short forward execution, then lazy abstraction, then
    /// backward reachability.
    Auto,
    /// Backward reachability (MCMT, Cubicle), with BRAB approximation.
    Bwd,
    /// Lazy abstraction with interpolants and term abstraction (SAFARI).
    Lazy,
    /// Candidate invariants kept while inductive (Houdini; programs).
    Houdini,
    /// Forward concrete execution (finds errors only).
    Run,
}

/// Per-run step limit of the forward engine when none is given.
pub const DEFAULT_MAX_STEPS: u64 = 1 << 34;

/// Settings of a check.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// The search.
    pub engine: Engine,
    /// How lazy abstraction computes interpolants; `None`: projection,
    /// and in the portfolio for programs also a short phase with case splits.
    pub interpolation: Option<crate::reach::interpolate::Method>,
    /// Terms to abstract besides the automatic ones (names of state
    /// variables or constants).
    pub abstract_terms: Vec<String>,
    /// Forward engine: the largest step limit of one run.
    pub max_steps: Option<u64>,
    /// Forward engine: the seed of the first run.
    pub seed: u64,
    /// Exploration order of backward search.
    pub order: Order,
    /// Wall-clock limit of the search.
    pub timeout: Option<Duration>,
    /// Node limit of the search.
    pub max_nodes: Option<usize>,
    /// Process limit per cube.
    pub max_procs: usize,
    /// The search's solver (answers are checked with the other one);
    /// `None`: chosen per engine (see [`search_backend`]).
    pub backend: Option<Backend>,
    /// Whether to check answers (off only on request).
    pub certify: bool,
    /// Where to write the invariant as SMT-LIB.
    pub invariant_out: Option<PathBuf>,
    /// Where to write the proof obligations as SMT-LIB files.
    pub obligations_dir: Option<PathBuf>,
    /// Processes of the finite instance used to approximate cubes (BRAB);
    /// 0 for plain backward search.
    pub brab: usize,
    /// Whether pre-images naming more processes wait until the queue is empty.
    pub postpone: bool,
    /// Whether backward search also runs counter loops over processes at
    /// once (accelerated companions).
    pub accelerate: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            engine: Engine::Auto,
            interpolation: None,
            abstract_terms: vec![],
            max_steps: None,
            seed: 0,
            order: Order::Bfs,
            timeout: None,
            max_nodes: None,
            max_procs: 8,
            backend: None,
            certify: true,
            invariant_out: None,
            obligations_dir: None,
            brab: 2,
            postpone: true,
            accelerate: true,
        }
    }
}

/// The verdict of a check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No unsafe state is reachable.
    Safe,
    /// An unsafe state is reachable.
    Unsafe,
    /// Undecided; why.
    Unknown(String),
}

impl Verdict {
    /// The process exit code: 0 SAFE, 1 UNSAFE, 3 UNKNOWN.
    pub fn exit_code(&self) -> i32 {
        match self {
            Verdict::Safe => 0,
            Verdict::Unsafe => 1,
            Verdict::Unknown(_) => 3,
        }
    }
}

/// How an answer was checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Certification {
    /// Checked and confirmed (by which solver / by replay).
    Certified(String),
    /// Not confirmed: which obligation failed or stayed unknown.
    Uncertified(String),
    /// Checking was switched off.
    Skipped,
}

/// Everything a check produced.
pub struct CheckResult {
    /// The verdict.
    pub verdict: Verdict,
    /// How it was checked.
    pub certification: Certification,
    /// Search statistics.
    pub stats: Stats,
    /// The invariant, for SAFE.
    pub proof: Option<Proof>,
    /// The replayed trace, for UNSAFE.
    pub trace: Option<ConcreteTrace>,
    /// The concrete execution, for UNSAFE found by forward execution.
    pub execution: Option<Execution>,
    /// Its replay by the independent checker (absent with certification off).
    pub replayed: Option<Replayed>,
    /// Obligations checked (for SAFE).
    pub obligations: usize,
    /// Total time.
    pub time: Duration,
    /// Time spent checking the answer.
    pub certify_time: Duration,
    /// Remarks for the user (spurious traces, replay problems).
    pub notes: Vec<String>,
    /// The engine that gave the answer (`bwd`, `lazy`, `run`).
    pub engine: &'static str,
    /// The solver the search used (answers are checked with the other one).
    pub solver: Backend,
}

/// The search's solver when none is asked for: cvc5 for backward
/// reachability, so that z3 checks its answers (backward search makes
/// fewer, harder solver calls than the certification of its many
/// obligations, and z3 is the faster of the two on many small checks);
/// z3 for the other engines.
pub fn search_backend(engine: Engine) -> Backend {
    match engine {
        Engine::Bwd => Backend::Cvc5,
        _ => Backend::Z3,
    }
}

/// Whether the backward engine supports the system; else why not.
pub fn supported(sys: &System) -> Result<(), String> {
    if sys.unsafe_.is_empty() {
        return Err("no unsafe states given (nothing to check)".into());
    }
    Ok(())
}

/// Runs the chosen engine on `sys` and checks the answer.
pub fn check(full: &System, opts: &CheckOptions) -> CheckResult {
    if opts.engine == Engine::Run {
        return check_run(full, opts, None);
    }
    let start = Instant::now();
    // programs: integer indices, transitions without process parameters
    let program = full.index_kind() != crate::system::IndexKind::Order && full.transitions.iter().all(|t| t.params.is_empty());
    if opts.engine == Engine::Auto && program {
        // the portfolio for programs: a very short lazy abstraction (most
        // proofs take well under a second), candidate invariants, a very
        // short forward execution (shallow errors), a short lazy
        // abstraction, a longer forward execution (errors behind long
        // loops), candidate invariants again if they ran out of time, then
        // lazy abstraction with half the time left, then execution again
        let found = |mut r: CheckResult, note: &str| {
            r.notes.insert(0, note.into());
            r.time = start.elapsed();
            r
        };
        const RUN: &str = "engine: forward execution (a program: integer indices, no process parameters)";
        // first a very short lazy abstraction (most proofs of programs take
        // a few hundredths of a second), and the same with interpolants
        // split into cases when projection met cubes it would split
        let early = opts.timeout.map_or(Duration::from_millis(250), |t| (t / 40).min(Duration::from_millis(250)));
        let splittable = crate::reach::interpolate::splittable_cubes();
        for method in [None, Some(crate::reach::interpolate::Method::Cases)] {
            if method.is_some() && (opts.interpolation.is_some() || crate::reach::interpolate::splittable_cubes() == splittable) {
                break;
            }
            let e = check_inner(full, &CheckOptions { timeout: Some(early), interpolation: method.or(opts.interpolation), ..opts.clone() }, program);
            if matches!(e.verdict, Verdict::Safe | Verdict::Unsafe) {
                let how = if method.is_some() { " with interpolants split into cases" } else { "" };
                let note = format!("portfolio: {}{how} decided within {:.2}s", e.engine, early.as_secs_f64());
                return found(e, &note);
            }
        }
        // candidate invariants from templates, tested on executions and
        // kept while inductive: proofs that interpolants are slow to find
        // (`∀z ∈ [i, j). a[m] ≤ a[z]`); when a sampled execution reaches
        // an unsafe state, forward execution repeats it and the replay
        // checks it
        let guess = opts.timeout.map_or(Duration::from_secs(8), |t| (t / 4).min(Duration::from_secs(8)));
        let h = check_inner(full, &CheckOptions { timeout: Some(guess), engine: Engine::Houdini, ..opts.clone() }, program);
        let guessed_until_timeout = h.verdict == Verdict::Unknown("timeout".into());
        if matches!(h.verdict, Verdict::Safe | Verdict::Unsafe) {
            let note = format!("portfolio: lazy undecided in {:.2}s; candidate invariants decided within {:.1}s", early.as_secs_f64(), guess.as_secs_f64());
            return found(h, &note);
        }
        let glance = opts.timeout.map_or(Duration::from_millis(500), |t| (t / 20).min(Duration::from_millis(500)));
        let r0 = check_run(full, &CheckOptions { timeout: Some(glance), ..opts.clone() }, None);
        if r0.verdict == Verdict::Unsafe {
            return found(r0, RUN);
        }
        let glanced = r0.time;
        let quick = opts.timeout.map_or(Duration::from_secs(2), |t| (t / 4).min(Duration::from_secs(2)));
        let splittable = crate::reach::interpolate::splittable_cubes();
        let r0 = check_inner(full, &CheckOptions { timeout: Some(quick), ..opts.clone() }, program);
        if matches!(r0.verdict, Verdict::Safe | Verdict::Unsafe) {
            let note = format!("portfolio: forward execution found no error in {:.2}s; {} decided within its first {:.1}s", glanced.as_secs_f64(), r0.engine, quick.as_secs_f64());
            return found(r0, &note);
        }
        // interpolants split into cases (sentinels bounding a count): a
        // short phase of its own, as the splits slow down other proofs, and
        // only when projection met cubes it would split
        if opts.interpolation.is_none() && crate::reach::interpolate::splittable_cubes() > splittable {
            let cases = Some(crate::reach::interpolate::Method::Cases);
            let r1 = check_inner(full, &CheckOptions { timeout: Some(quick), interpolation: cases, ..opts.clone() }, program);
            if matches!(r1.verdict, Verdict::Safe | Verdict::Unsafe) {
                let note = format!(
                    "portfolio: forward execution found no error in {:.2}s, {} undecided in {:.1}s; with interpolants split into cases, {} decided within {:.1}s",
                    glanced.as_secs_f64(),
                    r0.engine,
                    quick.as_secs_f64(),
                    r1.engine,
                    quick.as_secs_f64()
                );
                return found(r1, &note);
            }
        }
        let share = match opts.timeout {
            Some(t) => (t / 10).max(Duration::from_secs(3)).min(t / 2),
            None => Duration::from_secs(3),
        };
        let first = check_run(full, &CheckOptions { timeout: Some(share), ..opts.clone() }, None);
        if first.verdict == Verdict::Unsafe {
            return found(first, RUN);
        }
        // candidate invariants again if they ran out of time, with half of
        // what is left (two-variable candidates take longer: sortedness)
        if guessed_until_timeout {
            let late = opts.timeout.map_or(Duration::from_secs(30), |t| t.saturating_sub(start.elapsed()) / 2);
            let h = check_inner(full, &CheckOptions { timeout: Some(late), engine: Engine::Houdini, ..opts.clone() }, program);
            if matches!(h.verdict, Verdict::Safe | Verdict::Unsafe) {
                let note = format!("portfolio: lazy and forward execution undecided; candidate invariants, given more time, decided within {:.1}s", late.as_secs_f64());
                return found(h, &note);
            }
        }
        // lazy abstraction gets half of what is left, execution the rest
        let left = opts.timeout.map(|t| t.saturating_sub(start.elapsed()) / 2);
        let mut r = check_inner(full, &CheckOptions { timeout: left, ..opts.clone() }, program);
        r.notes.insert(0, format!("portfolio: {} undecided in {:.1}s, forward execution found no error in {:.2}s; then {}", r0.engine, quick.as_secs_f64(), first.time.as_secs_f64(), r.engine));
        let rest = opts.timeout.map(|t| t.saturating_sub(start.elapsed()));
        if matches!(&r.verdict, Verdict::Unknown(_)) && rest.is_none_or(|r| r > Duration::from_millis(500)) {
            let again = check_run(full, &CheckOptions { timeout: rest, seed: opts.seed.wrapping_add(1_000_003), ..opts.clone() }, None);
            if again.verdict == Verdict::Unsafe {
                return found(again, "engine: forward execution, after lazy abstraction gave up");
            }
        }
        r.time = start.elapsed();
        return r;
    }
    check_inner(full, opts, program)
}

/// Backward reachability or lazy abstraction (chosen per input for `Auto`).
fn check_inner(full: &System, opts: &CheckOptions, program: bool) -> CheckResult {
    let start = Instant::now();
    // the search runs on the cone of influence; answers are checked on the full system
    let (sliced, dropped) = crate::transform::slice::cone_of_influence(full);
    let sys = &sliced;
    let per_call_ms = 20_000;
    let mut notes = vec![];
    if !dropped.is_empty() {
        notes.push(format!("state variables that cannot affect the property: {}", dropped.join(", ")));
    }

    // programs go to lazy abstraction, protocols to backward reachability
    let engine = match opts.engine {
        Engine::Auto if program => Engine::Lazy,
        Engine::Auto => Engine::Bwd,
        e => e,
    };
    let backend = opts.backend.unwrap_or(search_backend(engine));
    let checker = backend.other();
    let terms_for = |s: &System| {
        let mut terms: Vec<crate::logic::Term> = crate::reach::abstraction::abstraction_terms(s);
        for name in &opts.abstract_terms {
            if let Some(t) = s.vars.iter().map(|v| &v.term).chain(&s.consts).find(|t| t.var_name() == Some(name)) {
                if !terms.contains(t) {
                    terms.insert(0, t.clone());
                }
            }
        }
        terms
    };
    let terms = terms_for(sys);
    let generalised = if engine == Engine::Lazy { crate::reach::abstraction::symbolic_constants(sys) } else { None };
    if engine == Engine::Lazy {
        let names: Vec<String> = terms.iter().map(|t| t.to_string()).collect();
        notes.push(format!(
            "engine: lazy abstraction{}, abstracting {}",
            if opts.engine == Engine::Auto { " (a program: integer indices, no process parameters)" } else { "" },
            if names.is_empty() { "nothing".to_string() } else { names.join(", ") }
        ));
    } else if engine == Engine::Houdini {
        notes.push("engine: candidate invariants (templates tested on sampled executions, kept while inductive)".into());
    } else if opts.engine == Engine::Auto {
        notes.push("engine: backward reachability (a protocol: transitions with process parameters)".into());
    }
    let bopts = bwd::Options {
        order: opts.order,
        timeout: opts.timeout,
        max_nodes: opts.max_nodes,
        max_procs: opts.max_procs,
        backend,
        postpone: if opts.postpone { bwd::Postpone::MoreProcs } else { bwd::Postpone::Never },
        dropped_hints: vec![],
        exact: false,
    };
    let mut bopts = bopts;
    let mut replayed: Option<ConcreteTrace> = None;
    let certify_on = opts.certify;
    let mut replay_time = Duration::ZERO;
    let mut oracle = None;
    if opts.brab > 0 && engine == Engine::Bwd {
        let t0 = Instant::now();
        match crate::engine::bwd::brab::Oracle::exploring(sys, opts.brab, 100_000, true) {
            Ok(o) => {
                let bounded = o.slack().map_or(String::new(), |s| format!(", growing numbers at most {s} beyond the system's literals"));
                notes.push(format!(
                    "approximating with the {} reachable states of the {}-process instance{}{} (explored in {:.2}s)",
                    o.states(),
                    opts.brab,
                    bounded,
                    if o.complete { "" } else { " (exploration cut short)" },
                    t0.elapsed().as_secs_f64()
                ));
                oracle = Some(o);
            }
            Err(why) => notes.push(format!("plain backward search (no finite instance: {why})")),
        }
    }
    let mut earlier = Stats::default();
    let mut hint_notes: Vec<String> = vec![];
    let mut grow_notes: Vec<String> = vec![];
    let mut guard_note: Option<String> = None;
    let mut refuted_here = 0;
    let mut cannot_grow = false;
    // the oracle's exploration may already reach an unsafe state: its path
    // is a candidate trace, replayed like the search's (the instance is
    // never trusted)
    let mut finite_trace: Option<crate::engine::AbstractTrace> = None;
    // a replay of a candidate trace, timed
    // backward search also runs counter loops over processes at once (their
    // companions come last: the proof's hints name the original transitions
    // by position); traces are replayed on the whole system with the same
    // companions, each step through one checked to stand for iterations
    // over existing processes
    let companions = if engine == Engine::Bwd && opts.accelerate { crate::transform::companions::companions(sys) } else { vec![] };
    let (accelerated, whole): (System, System);
    let (searched, replayed_on) = if companions.is_empty() {
        (sys, full)
    } else {
        notes.push(format!("accelerated loops: {}", companions.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ")));
        let mut a = sys.clone();
        a.transitions.extend(companions.iter().cloned());
        accelerated = a;
        let of_whole = crate::transform::companions::companions(full);
        let mut w = full.clone();
        w.transitions.extend(companions.iter().map_while(|c| of_whole.iter().find(|m| m.name == c.name).cloned()));
        whole = w;
        (&accelerated, &whole)
    };
    let replay_timed = |trace: &crate::engine::AbstractTrace, time: &mut Duration| {
        let t0 = Instant::now();
        let r = certify::replay(replayed_on, trace, if certify_on { checker } else { backend }, per_call_ms);
        *time += t0.elapsed();
        r
    };
    if let Some(t) = oracle.as_mut().and_then(|o| o.unsafe_trace.take()) {
        let procs = t.cubes[0].arity();
        match replay_timed(&t, &mut replay_time) {
            Ok(Some(ct)) => {
                notes.push(format!("the {procs}-process instance reaches an unsafe state in {} steps; its path replayed", t.edges.len()));
                replayed = Some(ct);
                finite_trace = Some(t);
            }
            Ok(None) => notes.push(format!("the {procs}-process instance reaches an unsafe state, but its path did not replay: set aside")),
            Err(e) => notes.push(format!("the {procs}-process instance reaches an unsafe state; its path not replayed: {e}")),
        }
        // the exploration stopped there: the whole of it for the oracle
        if finite_trace.is_none() {
            oracle = crate::engine::bwd::brab::Oracle::new(sys, opts.brab, 100_000).ok();
        }
    }
    // a bug may need one process more than the oracle's instance has: when
    // that instance is small, a look at the next one, bounded in size
    if finite_trace.is_none() {
        if let Some(o) = oracle.as_ref().filter(|o| o.complete && o.states() <= 2000) {
            let procs = o.procs() + 1;
            if let Ok(mut bigger) = crate::engine::bwd::brab::Oracle::exploring(sys, procs, 20 * o.states().max(100), true) {
                if let Some(t) = bigger.unsafe_trace.take() {
                    if let Ok(Some(ct)) = replay_timed(&t, &mut replay_time) {
                        notes.push(format!("the {procs}-process instance reaches an unsafe state in {} steps; its path replayed", t.edges.len()));
                        replayed = Some(ct);
                        finite_trace = Some(t);
                    }
                }
            }
        }
    }
    let mut replay = |trace: &crate::engine::AbstractTrace| {
        if trace.edges.iter().any(|e| e.transition >= replayed_on.transitions.len()) {
            notes.push(format!("trace of length {} through an accelerated loop the whole system does not have set aside", trace.edges.len()));
            return false;
        }
        match replay_timed(trace, &mut replay_time) {
            Ok(Some(ct)) => {
                replayed = Some(ct);
                true
            }
            Ok(None) => {
                if std::env::var_os("ARRAX_DEBUG").is_some() {
                    for (k, c) in trace.cubes.iter().enumerate() {
                        eprintln!("cube {k}: {c}");
                        if let Some(e) = trace.edges.get(k) {
                            eprintln!("  --{}({:?}) succ {:?}-->", sys.transitions[e.transition].name, e.params, e.succ_vars);
                        }
                    }
                }
                notes.push(format!("spurious trace of length {} set aside (universal guards do not hold on replay)", trace.edges.len()));
                false
            }
            Err(e) => {
                notes.push(format!("trace of length {} not replayed: {e}", trace.edges.len()));
                false
            }
        }
    };
    let mut lazy_result: Option<Outcome> = None;
    let mut fallback: Option<String> = None;
    // which engine answers; only backward reachability's proofs are answered uncertified
    let mut engine_name = if engine == Engine::Lazy { "lazy" } else { "bwd" };
    let mut houdini_note: Option<String> = None;
    let mut general_note: Option<String> = None;
    if engine == Engine::Houdini {
        let hopts = crate::engine::houdini::Options {
            timeout: opts.timeout,
            backend,
            max_procs: opts.max_procs,
            location_facts: crate::reach::abstraction::location_facts(sys),
        };
        let mut h = crate::engine::houdini::Houdini::new(sys, hopts);
        let o = h.run();
        if let Some(o) = h.unsafe_run {
            // a bug: forward execution repeats the run, recorded, and the
            // independent checker replays it
            let mut r = check_run(full, &CheckOptions { timeout: opts.timeout.map(|t| t.saturating_sub(start.elapsed())), ..opts.clone() }, Some(o));
            r.notes.insert(0, format!("candidate invariants: a sampled execution ({:?} values) reaches an unsafe state", o.mode));
            r.time = start.elapsed();
            return r;
        }
        let (made, sampled, kept, _) = h.counts;
        houdini_note = Some(format!("candidate invariants: {made} from templates, {sampled} not violated by sampled executions, {kept} in the fixpoint"));
        earlier.absorb(&h.stats);
        lazy_result = Some(o);
        engine_name = "houdini";
    }
    if engine == Engine::Lazy {
        let lazy_options = |s: &System, timeout: Option<Duration>| crate::engine::lazy::Options {
            timeout,
            max_nodes: opts.max_nodes,
            max_procs: opts.max_procs,
            backend,
            method: opts.interpolation.unwrap_or(crate::reach::interpolate::Method::Projection),
            terms: terms_for(s),
            facts: if crate::reach::abstraction::control_variable(s).is_some() { vec![] } else { crate::reach::abstraction::range_facts(s) },
            location_facts: crate::reach::abstraction::location_facts(s),
        };
        // first with large literals made symbolic (half the time): a
        // proof for every size, instantiated, is a candidate proof here
        if let Some((gen, values)) = &generalised {
            let names: Vec<String> = values.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            let mut lz = crate::engine::lazy::Lazy::new(gen, lazy_options(gen, opts.timeout.map(|t| t / 2)));
            let o = lz.run(&mut |_| false);
            earlier.absorb(&lz.stats);
            match o {
                Outcome::Safe(mut proof) => {
                    let back: std::collections::HashMap<crate::logic::Term, crate::logic::Term> =
                        values.iter().map(|(k, v)| (k.clone(), crate::logic::Term::int(*v))).collect();
                    proof.invariant = proof
                        .invariant
                        .iter()
                        .flat_map(|c| crate::system::cube::Cube::normalize(&c.vars, &c.lits.iter().map(|l| crate::logic::substitute(l, &back)).collect::<Vec<_>>()))
                        .collect();
                    proof.hints = vec![vec![]; proof.invariant.len()];
                    general_note = Some(format!("proved for every value of the symbolic sizes {}; instantiated", names.join(", ")));
                    lazy_result = Some(Outcome::Safe(proof));
                }
                Outcome::Unknown(why) => general_note = Some(format!("with symbolic sizes {}: {why}; the concrete sizes next", names.join(", "))),
                        Outcome::Unsafe(_) => unreachable!("traces of the generalised system are never accepted"),
            }
        }
        if lazy_result.is_none() {
            let left = opts.timeout.map(|t| t.saturating_sub(start.elapsed()));
            let mut lz = crate::engine::lazy::Lazy::new(sys, lazy_options(sys, left));
            let o = lz.run(&mut replay);
            earlier.absorb(&lz.stats);
            match o {
                // a portfolio: backward reachability gets the remaining time
                Outcome::Unknown(why) if opts.engine == Engine::Auto && why != "timeout" && why != "node limit" => {
                    fallback = Some(why);
                    engine_name = "bwd";
                }
                o => lazy_result = Some(o),
            }
        }
    }
    let (outcome, mut stats) = if let Some(t) = finite_trace {
        (Outcome::Unsafe(t), Stats::default())
    } else if let Some(o) = lazy_result {
        (o, Stats::default())
    } else {
        loop {
        let mut o = bopts.clone();
        o.timeout = opts.timeout.map(|t| t.saturating_sub(start.elapsed()));
        // the limits are the run's, over every restart
        o.max_nodes = opts.max_nodes.map(|n| n.saturating_sub(earlier.nodes));
        let mut search = Search::new(searched, o);
        if let Some(or) = oracle.take() {
            search = search.with_oracle(or);
        }
        let outcome = search.run(&mut replay);
        oracle = search.take_oracle();
        if let (Some(c), Some(or)) = (search.refuted.take(), oracle.as_mut()) {
            if std::env::var_os("ARRAX_DEBUG").is_some() {
                eprintln!("refuted after {:.2}s ({} nodes): {c}", start.elapsed().as_secs_f64(), search.stats.nodes);
            }
            or.ban(&c);
            earlier.absorb(&search.stats);
            earlier.restarts += 1;
            // many refuted candidates: the instance is too small to tell; grow it
            refuted_here += 1;
            if refuted_here >= 8 && or.procs() < 4 && !cannot_grow {
                let t0 = Instant::now();
                // the bigger instance may reach an unsafe state: its path
                // is a candidate trace like the search's
                let procs = or.procs() + 1;
                let mut found = None;
                if let Ok(mut o) = crate::engine::bwd::brab::Oracle::exploring(sys, procs, 100_000, true) {
                    if let Some(t) = o.unsafe_trace.take() {
                        if replay(&t) {
                            found = Some(t);
                        }
                    }
                }
                if let Some(t) = found {
                    grow_notes.push(format!("after {refuted_here} refuted approximations: the {procs}-process instance reaches an unsafe state; its path replayed"));
                    earlier.absorb(&search.stats);
                    break (Outcome::Unsafe(t), Stats::default());
                }
                // only an instance explored completely is a better oracle
                if let Ok(mut bigger) = crate::engine::bwd::brab::Oracle::new(sys, procs, 100_000).and_then(|o| {
                    if o.complete {
                        Ok(o)
                    } else {
                        Err(String::new())
                    }
                }) {
                    bigger.inherit(or);
                    grow_notes.push(format!(
                        "after {refuted_here} refuted approximations: the {}-process instance ({} states, explored in {:.2}s)",
                        bigger.procs(),
                        bigger.states(),
                        t0.elapsed().as_secs_f64()
                    ));
                    *or = bigger;
                } else {
                    cannot_grow = true;
                }
                refuted_here = 0;
            }
            continue;
        }
        if search.inexact {
            guard_note = Some(format!(
                "a trace was spurious because universal guards were only checked on the processes it names (after {:.2}s): searched again with exact universal guards",
                start.elapsed().as_secs_f64()
            ));
            bopts.exact = true;
            earlier.absorb(&search.stats);
            earlier.restarts += 1;
            continue;
        }
        if let Some(h) = search.refuted_hint.take() {
            hint_notes.push(format!("suggested invariant {} is reachable: dropped", h + 1));
            bopts.dropped_hints.push(h);
            earlier.absorb(&search.stats);
            earlier.restarts += 1;
            continue;
        }
        break (outcome, search.stats.clone());
        }
    };
    stats.absorb(&earlier);
    notes.extend(houdini_note);
    if let Some(n) = general_note {
        notes.push(n);
    }
    if let Some(why) = fallback {
        notes.push(format!("lazy abstraction gave up ({why}); backward reachability took over"));
    }
    notes.extend(guard_note);
    notes.extend(grow_notes);
    notes.extend(hint_notes);
    if !sys.hints.is_empty() {
        let kept = sys.hints.len() - bopts.dropped_hints.len();
        notes.push(match outcome {
            Outcome::Safe(_) => format!("{kept} of {} suggested invariants proven and used", sys.hints.len()),
            _ => format!("{kept} of {} suggested invariants not refuted (nor proven: no answer)", sys.hints.len()),
        });
    }
    let mut res = CheckResult {
        verdict: Verdict::Unknown(String::new()),
        certification: Certification::Skipped,
        stats,
        proof: None,
        trace: None,
        execution: None,
        replayed: None,
        obligations: 0,
        time: Duration::ZERO,
        certify_time: replay_time,
        notes,
        engine: engine_name,
        solver: backend,
    };
    match outcome {
        Outcome::Unsafe(_) => {
            res.verdict = Verdict::Unsafe;
            res.trace = replayed;
            res.certification = if certify_on {
                Certification::Certified(format!("trace replayed on a concrete instance ({checker})"))
            } else {
                Certification::Skipped
            };
        }
        Outcome::Unknown(why) => res.verdict = Verdict::Unknown(why),
        Outcome::Safe(proof) => {
            if certify_on {
                let t0 = Instant::now();
                let cert: SafeCertificate = certify::certify_safe(full, &proof, checker, per_call_ms);
                res.certify_time += t0.elapsed();
                res.obligations = cert.obligations.len();
                if let Some(dir) = &opts.obligations_dir {
                    if let Err(e) = cert.write_smtlib(dir) {
                        res.notes.push(format!("could not write obligations to {}: {e}", dir.display()));
                    }
                }
                match cert.first_gap() {
                    None => {
                        res.verdict = Verdict::Safe;
                        res.certification = Certification::Certified(format!("{} obligations proved by {checker}", cert.obligations.len()));
                    }
                    Some(o) if o.status == Status::Failed => {
                        res.verdict = Verdict::Unknown(format!("certification failed: obligation {} has a counter-model", o.name));
                        res.certification = Certification::Uncertified(format!("{} failed", o.name));
                    }
                    Some(o) if engine_name != "bwd" => {
                        // the proofs of lazy abstraction and candidate invariants are only trusted certified
                        res.verdict = Verdict::Unknown(format!("invariant not certified: obligation {} unknown", o.name));
                        res.certification = Certification::Uncertified(format!("{} unknown", o.name));
                    }
                    Some(o) => {
                        let why = match &o.status {
                            Status::Unknown(w) => w.clone(),
                            _ => String::new(),
                        };
                        res.verdict = Verdict::Safe;
                        res.certification = Certification::Uncertified(format!("{} unknown: {why}", o.name));
                    }
                }
            } else {
                res.verdict = Verdict::Safe;
            }
            if let Some(path) = &opts.invariant_out {
                if let Err(e) = std::fs::write(path, crate::report::invariant_smtlib(full, &proof.invariant)) {
                    res.notes.push(format!("could not write the invariant to {}: {e}", path.display()));
                }
            }
            res.proof = Some(proof);
        }
    }
    res.time = start.elapsed();
    res
}

/// Runs the forward engine on `sys` and replays what it finds; never SAFE.
fn check_run(sys: &System, opts: &CheckOptions, opening: Option<run::Opening>) -> CheckResult {
    let start = Instant::now();
    let mut res = CheckResult {
        verdict: Verdict::Unknown(String::new()),
        certification: Certification::Skipped,
        stats: Stats::default(),
        proof: None,
        trace: None,
        execution: None,
        replayed: None,
        obligations: 0,
        time: Duration::ZERO,
        certify_time: Duration::ZERO,
        notes: vec![],
        engine: "run",
        solver: opts.backend.unwrap_or(search_backend(Engine::Run)),
    };
    // the search leaves a share of the time limit to the replay
    let ropts = run::Options {
        timeout: opts.timeout.map(|t| t.mul_f64(0.85)),
        max_steps: opts.max_steps.unwrap_or(DEFAULT_MAX_STEPS).max(1),
        seed: opts.seed,
        opening,
    };
    let sum = match run::search(sys, &ropts) {
        Ok(s) => s,
        Err(u) => {
            res.verdict = Verdict::Unknown(format!("run engine: {}", u.0));
            res.time = start.elapsed();
            return res;
        }
    };
    let jumped = if sum.accelerated > 0 { format!(", {} of them by accelerating self-loops", sum.accelerated) } else { String::new() };
    res.notes.push(format!(
        "run engine: {} run(s), {} steps{jumped} in {:.2}s ({:.1}M steps/s one by one)",
        sum.runs,
        sum.steps,
        sum.time.as_secs_f64(),
        sum.steps_per_sec() / 1e6
    ));
    if let Some(f) = sum.fault {
        res.notes.push(format!("{} run(s) abandoned on an arithmetic fault (last: {f})", sum.faults));
    }
    match sum.found {
        None => {
            let why = if sum.timed_out { " (time limit reached)" } else { "" };
            res.verdict =
                Verdict::Unknown(format!("run engine: no error within {} steps × {} runs{why}", sum.limit, sum.runs));
        }
        Some(found) => {
            res.notes.push(format!(
                "unsafe state reached by run {} ({} values) after {} steps",
                found.run + 1,
                found.mode.name(),
                found.execution.len()
            ));
            if opts.certify {
                let t0 = Instant::now();
                let r = crate::certify::execution::replay_until(sys, &found.execution, opts.timeout.map(|t| start + t));
                res.certify_time = t0.elapsed();
                match r {
                    Ok(rep) => {
                        res.verdict = Verdict::Unsafe;
                        let how = if rep.accelerated > 0 {
                            format!("execution replayed on the system ({} steps of self-loops in closed form)", rep.accelerated)
                        } else {
                            "execution replayed step by step on the system".into()
                        };
                        res.certification = Certification::Certified(how);
                        res.replayed = Some(rep);
                    }
                    Err(e) => {
                        res.verdict = Verdict::Unknown(if e.starts_with(crate::certify::execution::TIMED_OUT) {
                            format!("run engine: {e}")
                        } else {
                            format!("run engine: the execution found does not replay: {e}")
                        });
                        res.certification = Certification::Uncertified(e);
                    }
                }
            } else {
                res.verdict = Verdict::Unsafe;
            }
            res.execution = Some(found.execution);
        }
    }
    res.time = start.elapsed();
    res
}
