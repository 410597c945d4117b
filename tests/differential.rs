//! Differential soundness test: small random well-formed systems
//! (protocols with a few processes, programs over short arrays) are checked
//! by arrax and by an explicit-state exploration written here, independent
//! of arrax's engines (it interprets the generator's own description of the
//! system, not arrax's IR).
//!
//! A SAFE answer must hold for every instance, so an unsafe state the
//! exploration reaches in an instance of 1–3 processes (programs: arrays of
//! length 0–3) refutes it. An UNSAFE answer must be reproducible: the
//! exploration must reach an unsafe state in some instance up to the size
//! of arrax's replayed trace. UNKNOWN is allowed.

#[path = "support/random_system.rs"]
mod random_system;

use arrax::answer::Value;
use arrax::driver::{check, CheckOptions, CheckResult, Verdict};
use arrax::engine::Choice;
use arrax::frontend::{parse_str, Format};
use arrax::logic::Op;
use arrax::system::System;
use random_system::{Cube, Ix, Lit, Model, Rng, Upd, Val};
use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// The per-system time limit of arrax.
const TIMEOUT: Duration = Duration::from_secs(2);
/// The instance sizes that refute a SAFE answer.
const SAFE_SIZES: usize = 3;
/// The largest instance explored to reproduce an UNSAFE answer.
const MAX_SIZE: usize = 6;
/// Explorations stop past this many states (the instance is then skipped).
const MAX_STATES: usize = 300_000;

/// A finite instance of a model: its processes (or array cells) are `0..size`.
struct Instance<'a> {
    m: &'a Model,
    size: usize,
    /// Where each state variable starts in the flat state vector.
    offset: Vec<usize>,
    /// The length of the state vector (a program's counter last).
    len: usize,
}

/// The bindings of index variables while evaluating.
#[derive(Clone, Copy, Default)]
struct Env<'p> {
    params: &'p [usize],
    zs: &'p [usize],
    j: usize,
    x: usize,
}

/// A step of a path: the transition and its parameters.
type Step = (usize, Vec<usize>);

impl<'a> Instance<'a> {
    fn new(m: &'a Model, size: usize) -> Instance<'a> {
        let mut offset = vec![];
        let mut len = 0;
        for v in &m.vars {
            offset.push(len);
            len += if v.array { size } else { 1 };
        }
        Instance { m, size, offset, len: len + usize::from(m.program) }
    }

    /// The value of an index (`None`: the counter of a program).
    fn ix(&self, s: &[i64], ix: Ix, env: Env) -> i64 {
        match ix {
            Ix::Param(k) => env.params[k] as i64,
            Ix::Z(k) => env.zs[k] as i64,
            Ix::J => env.j as i64,
            Ix::X => env.x as i64,
            Ix::Counter => s[self.len - 1],
        }
    }

    /// A value; `None` when it reads a cell outside the instance.
    fn val(&self, s: &[i64], v: Val, env: Env) -> Option<i64> {
        match v {
            Val::Const(c) => Some(c),
            Val::Scalar(k) => Some(s[self.offset[k]]),
            Val::Read(k, ix) => {
                let cell = self.ix(s, ix, env);
                (0..self.size as i64).contains(&cell).then(|| s[self.offset[k] + cell as usize])
            }
        }
    }

    /// A literal; `None` when it reads a cell outside the instance.
    fn lit(&self, s: &[i64], l: &Lit, env: Env) -> Option<bool> {
        let n = self.size as i64;
        Some(match *l {
            Lit::Eq(a, b, yes) => (self.val(s, a, env)? == self.val(s, b, env)?) == yes,
            Lit::IxEq(a, b, yes) => (self.ix(s, a, env) == self.ix(s, b, env)) == yes,
            Lit::Lt(a, b) => self.ix(s, a, env) < self.ix(s, b, env),
            Lit::CounterBelow => s[self.len - 1] < n,
            Lit::CounterDone => n <= s[self.len - 1],
            Lit::InRange(ix) => (0..n).contains(&self.ix(s, ix, env)),
        })
    }

    /// A conjunction. A literal reading outside the instance may stand only
    /// beside a false one (the generator guards every such read).
    fn all(&self, s: &[i64], lits: &[Lit], env: Env) -> bool {
        let values: Vec<Option<bool>> = lits.iter().map(|l| self.lit(s, l, env)).collect();
        if values.contains(&Some(false)) {
            return false;
        }
        assert!(!values.contains(&None), "an unguarded read outside the instance: {lits:?}");
        true
    }

    fn any(&self, s: &[i64], lits: &[Lit], env: Env) -> bool {
        lits.iter().any(|l| self.lit(s, l, env).expect("universal guards read inside the instance"))
    }

    /// Whether `s` is initial: the literals over `x` for every process or
    /// cell, the others once (a program's `∀x` ranges over all integers).
    fn initial(&self, s: &[i64]) -> bool {
        if self.m.program && s[self.len - 1] != 0 {
            return false;
        }
        self.m.init.iter().all(|l| {
            if mentions_x(l) {
                (0..self.size).all(|x| self.lit(s, l, Env { x, ..Env::default() }) == Some(true))
            } else {
                self.lit(s, l, Env::default()) == Some(true)
            }
        })
    }

    /// Every state over the instance's cells whose values lie in their sorts.
    fn all_states(&self) -> Option<Vec<Vec<i64>>> {
        let mut doms = vec![];
        for v in &self.m.vars {
            doms.extend(std::iter::repeat_n(v.dom.size(), if v.array { self.size } else { 1 }));
        }
        let count = doms.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d as usize).filter(|&c| c <= MAX_STATES))?;
        let mut out = Vec::with_capacity(count);
        let mut s = vec![0i64; self.len];
        for _ in 0..count {
            out.push(s.clone());
            for (k, d) in doms.iter().enumerate() {
                s[k] += 1;
                if s[k] < *d {
                    break;
                }
                s[k] = 0;
            }
        }
        Some(out)
    }

    /// Injective tuples of `k` processes.
    fn tuples(&self, k: usize) -> Vec<Vec<usize>> {
        let mut out = vec![vec![]];
        for _ in 0..k {
            let next = out.iter().flat_map(|t: &Vec<usize>| (0..self.size).filter(|p| !t.contains(p)).map(move |p| [t.clone(), vec![p]].concat()));
            out = next.collect();
        }
        out
    }

    /// Whether some unsafe cube holds in `s`.
    fn bad(&self, s: &[i64]) -> bool {
        self.m.unsafe_.iter().any(|c: &Cube| self.tuples(c.arity).iter().any(|zs| self.all(s, &c.lits, Env { zs, ..Env::default() })))
    }

    /// The successors of `s`.
    fn successors(&self, s: &[i64]) -> Vec<(Step, Vec<i64>)> {
        let mut out = vec![];
        for (k, t) in self.m.trans.iter().enumerate() {
            for params in self.tuples(t.params) {
                let env = Env { params: &params, ..Env::default() };
                if !self.all(s, &t.guard, env) {
                    continue;
                }
                if let Some(body) = &t.uguard {
                    if !(0..self.size).all(|j| self.any(s, body, Env { j, ..env })) {
                        continue;
                    }
                }
                let next = self.apply(s, &t.updates, env);
                out.push(((k, params.clone()), next));
            }
        }
        out
    }

    fn apply(&self, s: &[i64], updates: &[(Option<usize>, Upd)], env: Env) -> Vec<i64> {
        let mut next = s.to_vec();
        let read = |v: Val, env: Env| self.val(s, v, env).expect("updates read inside the instance");
        for (var, upd) in updates {
            match (var, upd) {
                (Some(k), Upd::Scalar(v)) => next[self.offset[*k]] = read(*v, env),
                (Some(k), Upd::Array(cases, default)) => {
                    for cell in 0..self.size {
                        let env = Env { j: cell, ..env };
                        let case = cases.iter().find(|(ix, _)| self.ix(s, *ix, env) == cell as i64);
                        next[self.offset[*k] + cell] = read(case.map_or(*default, |c| c.1), env);
                    }
                }
                (None, Upd::Increment) => next[self.len - 1] += 1,
                (None, Upd::Reset) => next[self.len - 1] = 0,
                _ => unreachable!("the generator pairs updates with their variables"),
            }
        }
        next
    }

    /// Breadth-first search for an unsafe state: the path to it, `Ok(None)`
    /// when none is reachable, `Err` when the instance is too large.
    fn search(&self) -> Result<Option<Vec<Step>>, ()> {
        let mut parent: HashMap<Vec<i64>, Option<(Vec<i64>, Step)>> = HashMap::new();
        let mut queue = VecDeque::new();
        for s in self.all_states().ok_or(())?.into_iter().filter(|s| self.initial(s)) {
            parent.insert(s.clone(), None);
            queue.push_back(s);
        }
        while let Some(s) = queue.pop_front() {
            if self.bad(&s) {
                let mut path = vec![];
                let mut at = &s;
                while let Some(Some((prev, step))) = parent.get(at) {
                    path.push(step.clone());
                    at = prev;
                }
                path.reverse();
                return Ok(Some(path));
            }
            for (step, next) in self.successors(&s) {
                if !parent.contains_key(&next) {
                    parent.insert(next.clone(), Some((s.clone(), step)));
                    queue.push_back(next);
                }
            }
            if parent.len() > MAX_STATES {
                return Err(());
            }
        }
        Ok(None)
    }
}

fn mentions_x(l: &Lit) -> bool {
    let ix = |i: Ix| i == Ix::X;
    let val = |v: Val| matches!(v, Val::Read(_, Ix::X));
    match *l {
        Lit::Eq(a, b, _) => val(a) || val(b),
        Lit::IxEq(a, b, _) | Lit::Lt(a, b) => ix(a) || ix(b),
        Lit::InRange(a) => ix(a),
        Lit::CounterBelow | Lit::CounterDone => false,
    }
}

/// The smallest instance (up to `max`) where the exploration reaches an
/// unsafe state, with the path; the sizes that were too large to explore.
fn explore(m: &Model, max: usize) -> (Option<(usize, Vec<Step>)>, Vec<usize>) {
    let first = if m.program { 0 } else { 1 };
    let mut skipped = vec![];
    for size in first..=max {
        match Instance::new(m, size).search() {
            Ok(Some(path)) => return (Some((size, path)), skipped),
            Ok(None) => {}
            Err(()) => skipped.push(size),
        }
    }
    (None, skipped)
}

/// The instance size of arrax's counterexample, when it tells: the process
/// count of a replayed trace, the length `n` of a program's execution.
fn witness_size(sys: &System, r: &CheckResult) -> Option<usize> {
    let int = |t: &arrax::logic::Term| match t.op() {
        Op::Int(v) => usize::try_from(*v).ok(),
        _ => None,
    };
    if let Some(t) = &r.trace {
        if sys.index_kind() == arrax::system::IndexKind::Order {
            return Some(t.procs);
        }
        let n = sys.var("n")?;
        return match t.states.first()?.get(n)? {
            Value::Scalar(v) => int(v),
            Value::Array(_) => None,
        };
    }
    let e = r.execution.as_ref()?;
    e.scalars.iter().find(|(t, _)| t.var_name() == Some("n")).and_then(|(_, v)| usize::try_from(*v).ok())
}

/// Tallies of one run of the test.
#[derive(Default, Debug)]
struct Tally {
    safe: usize,
    unsafe_: usize,
    unknown: usize,
    disagreements: Vec<String>,
}

/// Checks one model with arrax (`engine`) and with the exploration.
fn compare(m: &Model, opts: &CheckOptions, tally: &mut Tally) {
    let text = m.canonical();
    let sys = parse_str(&text, Format::Canonical).unwrap_or_else(|d| panic!("the generator wrote a bad system ({d}):\n{text}")).system;
    let r = check(&sys, &CheckOptions { timeout: Some(TIMEOUT), ..opts.clone() });
    match r.verdict {
        Verdict::Safe => {
            tally.safe += 1;
            if let (Some((size, path)), _) = explore(m, SAFE_SIZES) {
                tally.disagreements.push(format!("SAFE, but an unsafe state is reachable with {size} processes by {path:?}:\n{text}"));
            }
        }
        Verdict::Unsafe => {
            tally.unsafe_ += 1;
            let max = witness_size(&sys, &r).unwrap_or(SAFE_SIZES).clamp(SAFE_SIZES, MAX_SIZE);
            if let (None, skipped) = explore(m, max) {
                let why = format!("no unsafe state reachable with up to {max} processes (too large to explore: {skipped:?})");
                tally.disagreements.push(format!("UNSAFE (engine {}), but {why}:\n{text}", r.engine));
            }
        }
        Verdict::Unknown(_) => tally.unknown += 1,
    }
}

/// Runs `count` random models of one family through `engine` (or as many
/// as the variable `ARRAX_DIFFERENTIAL_COUNT` says, from the seed
/// `ARRAX_DIFFERENTIAL_SEED` if set, for longer hunts); fails on a
/// disagreement.
fn run(family: &str, engine: Choice, seed: u64, count: usize, generate: fn(&mut Rng) -> Model) {
    run_with(family, &CheckOptions { engine, ..CheckOptions::default() }, seed, count, generate)
}

/// [`run`] with these options.
fn run_with(family: &str, opts: &CheckOptions, seed: u64, count: usize, generate: fn(&mut Rng) -> Model) {
    let var = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let count = var("ARRAX_DIFFERENTIAL_COUNT").map_or(count, |c| c as usize);
    let seed = var("ARRAX_DIFFERENTIAL_SEED").map_or(seed, |s| seed ^ s);
    let start = Instant::now();
    let mut rng = Rng::new(seed);
    let mut tally = Tally::default();
    for _ in 0..count {
        compare(&generate(&mut rng), opts, &mut tally);
    }
    eprintln!("differential {family}: {count} systems in {:.1?}: {} SAFE, {} UNSAFE, {} UNKNOWN", start.elapsed(), tally.safe, tally.unsafe_, tally.unknown);
    assert!(tally.disagreements.is_empty(), "{} disagreement(s):\n\n{}", tally.disagreements.len(), tally.disagreements.join("\n\n"));
    // the test is not vacuous: both answers come up
    assert!(tally.safe >= count / 10 && tally.unsafe_ >= count / 10, "{family}: too few decided systems: {tally:?}");
}

#[test]
fn random_protocols_agree_with_explicit_exploration() {
    run("protocols", Choice::Auto, 0x5eed_0001, 200, random_system::protocol);
}

#[test]
fn random_programs_agree_with_explicit_exploration() {
    run("programs", Choice::Auto, 0x5eed_0002, 200, random_system::program);
}

/// IC3/PDR alone: its proofs (certified) and its traces (replayed) meet the
/// same exploration.
#[test]
fn random_protocols_agree_with_explicit_exploration_under_pdr() {
    run("protocols (IC3/PDR)", Choice::Pdr, 0x5eed_0003, 100, random_system::protocol);
}

/// IC3/PDR alone on random programs.
#[test]
fn random_programs_agree_with_explicit_exploration_under_pdr() {
    run("programs (IC3/PDR)", Choice::Pdr, 0x5eed_0004, 100, random_system::program);
}

/// IC3/PDR searching an abstraction it refines (`--pdr-abstraction`).
fn pdr_abstracting(a: arrax::engine::pdr::Abstracting) -> CheckOptions {
    let mut opts = CheckOptions { engine: Choice::Pdr, ..CheckOptions::default() };
    opts.settings.pdr_abstraction = a;
    opts
}

/// IC3/PDR on an abstraction of the guards (Spacer's), refined on spurious
/// traces: the answers still meet explicit exploration.
#[test]
fn random_programs_agree_under_pdr_with_abstract_transitions() {
    run_with(
        "programs (IC3/PDR, abstract transitions)",
        &pdr_abstracting(arrax::engine::pdr::Abstracting::Transitions),
        0x5eed_0005,
        60,
        random_system::program,
    );
}

/// The same on random protocols.
#[test]
fn random_protocols_agree_under_pdr_with_abstract_transitions() {
    run_with(
        "protocols (IC3/PDR, abstract transitions)",
        &pdr_abstracting(arrax::engine::pdr::Abstracting::Transitions),
        0x5eed_0006,
        60,
        random_system::protocol,
    );
}

/// IC3/PDR with CTIGAR's abstract domain of lemma literals.
#[test]
fn random_programs_agree_under_pdr_with_an_abstract_domain() {
    run_with("programs (IC3/PDR, abstract domain)", &pdr_abstracting(arrax::engine::pdr::Abstracting::Domain), 0x5eed_0007, 60, random_system::program);
}

/// Test-and-set mutual exclusion (`a`: 0 idle, 1 trying, 2 critical; `l`:
/// the lock), with or without the test of the lock.
fn mutex(tests_the_lock: bool) -> Model {
    use random_system::{Dom, Trans, Var};
    let (a, l, x) = (0, 1, Ix::Param(0));
    let at = |v| Lit::Eq(Val::Read(a, x), Val::Const(v), true);
    let set = |v| (Some(a), Upd::Array(vec![(x, Val::Const(v))], Val::Read(a, Ix::J)));
    let lock = |v| (Some(l), Upd::Scalar(Val::Const(v)));
    let free = Lit::Eq(Val::Scalar(l), Val::Const(0), true);
    let step = |guard, updates| Trans { params: 1, guard, uguard: None, updates };
    Model {
        program: false,
        vars: vec![Var { name: "a".into(), array: true, dom: Dom::Range(2) }, Var { name: "l".into(), array: false, dom: Dom::Bool }],
        init: vec![Lit::Eq(Val::Read(a, Ix::X), Val::Const(0), true), free],
        unsafe_: vec![Cube {
            arity: 2,
            lits: vec![Lit::Eq(Val::Read(a, Ix::Z(0)), Val::Const(2), true), Lit::Eq(Val::Read(a, Ix::Z(1)), Val::Const(2), true)],
        }],
        trans: vec![
            step(vec![at(0)], vec![set(1)]),
            step(if tests_the_lock { vec![at(1), free] } else { vec![at(1)] }, vec![set(2), lock(1)]),
            step(vec![at(2)], vec![set(0), lock(0)]),
        ],
    }
}

/// The exploration itself, on a protocol whose answers are known.
#[test]
fn exploration_finds_the_known_answers() {
    assert!(explore(&mutex(true), SAFE_SIZES).0.is_none());
    let (found, _) = explore(&mutex(false), SAFE_SIZES);
    let (size, path) = found.expect("the mutex without its lock test is unsafe");
    assert_eq!((size, path.len()), (2, 4), "{path:?}");
    let mut tally = Tally::default();
    compare(&mutex(true), &CheckOptions::default(), &mut tally);
    compare(&mutex(false), &CheckOptions::default(), &mut tally);
    assert_eq!((tally.safe, tally.unsafe_, tally.disagreements.len()), (1, 1, 0), "{tally:?}");
}
