//! Candidate invariants (Houdini): invariants guessed from templates,
//! tested on sampled executions, and kept while they are inductive.
//!
//! For a program (integer indices, a control variable `pc`), the candidate
//! invariants at each location `l` are instances of templates over the
//! program's integer scalars, the scalars used as array indices, and its
//! literals:
//! - comparisons `x ≤ t`, `x < t` (`t` another scalar or a literal);
//! - cells `a[c] = v` (`c` an index scalar or a literal, `v` a small literal);
//! - range facts `∀z. lo ≤ z < hi → a[z] ⋈ e`, where `lo`, `hi` are index
//!   scalars (possibly `+ 1`) or literals, `⋈` is `=`, `≤` or `≥`, and `e`
//!   is another array at `z`, a small literal or a cell `b[x]` at an index
//!   scalar (`∀z ∈ [i, j). a[m] ≤ a[z]`: the minimum found so far).
//!
//! Each candidate is kept as its negation, an ∃-cube such as
//! `∃z. pc = l ∧ lo ≤ z ∧ z < hi ∧ a[z] < a[m]`, the form of backward
//! reachability. Candidates that a state of a sampled execution satisfies
//! are false and dropped. The others enter Houdini's fixpoint together with
//! the unsafe cubes: a candidate meeting the initial states, or with a
//! pre-image that the surviving cubes do not cover (the instantiation-based
//! fixpoint test), is dropped, until every survivor's pre-images are
//! covered. A pre-image of an unsafe cube that the candidates do not cover
//! joins the set as a cube that cannot be dropped (a step of backward
//! reachability), up to a bound. When the fixpoint is reached, the cubes'
//! negations form an inductive invariant excluding the unsafe states: the
//! proof, certified by the caller like any other.

use super::{Outcome, Proof, Stats};
use crate::cube::{zvar, Cube};
use crate::exec::{Program, State};
use crate::fixpoint::Facts;
use crate::instantiate::all_maps;
use crate::path::index_terms;
use crate::logic::{collect, free_vars, substitute, Op, Sort, Term};
use crate::pre::pre_image;
use crate::safety::{index_bounds, initial_query, instantiate_all};
use crate::smt::{self, Backend, SatResult, Solver};
use crate::system::System;
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// Settings of a candidate-invariant search.
#[derive(Clone, Debug)]
pub struct Options {
    /// Wall-clock limit.
    pub timeout: Option<Duration>,
    /// The solver used by the search.
    pub backend: Backend,
    /// Limit on index variables per cube.
    pub max_procs: usize,
    /// Facts known to hold at locations (`pc = l`, facts): candidates too.
    pub location_facts: Vec<(Term, Vec<Term>)>,
}

/// A term of a template, evaluated on an execution state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Atom {
    /// A literal.
    Num(i64),
    /// A scalar slot plus an offset.
    Scalar(usize, i64),
    /// An array slot read at a scalar slot (or 0) plus an offset.
    Cell(usize, Option<usize>, i64),
    /// An array slot read at the quantified variable.
    Z(usize),
}

/// The relation a candidate's cube asserts between two atoms (the
/// negation of the candidate invariant's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Rel {
    Lt,
    Le,
    Ne,
}

/// A candidate invariant, as the cube of the states violating it.
#[derive(Clone, Debug)]
struct Candidate {
    /// The location (value of the control variable), if any.
    loc: Option<i64>,
    /// The range of the quantified variable, if any.
    range: Option<(Atom, Atom)>,
    rel: Rel,
    lhs: Atom,
    rhs: Atom,
    /// Whether a sampled state had a non-empty range here.
    seen: bool,
}

/// What the templates are built from: slots of the compiled program.
struct Vocabulary<'a> {
    sys: &'a System,
    prog: &'a Program,
    /// The control variable's slot.
    pc: Option<usize>,
}

impl Vocabulary<'_> {
    fn term(&self, a: Atom, z: &Term) -> Term {
        match a {
            Atom::Num(n) => Term::int(n),
            Atom::Scalar(s, o) => Term::add([self.prog.scalar_terms[s].clone(), Term::int(o)]),
            Atom::Cell(arr, s, o) => {
                let idx = Term::add([s.map_or(Term::int(0), |s| self.prog.scalar_terms[s].clone()), Term::int(o)]);
                Term::select(&self.array(arr), &[idx])
            }
            Atom::Z(arr) => Term::select(&self.array(arr), std::slice::from_ref(z)),
        }
    }
    fn array(&self, slot: usize) -> Term {
        self.sys.vars[self.prog.array_vars[slot]].term.clone()
    }
    /// The cubes of a candidate (normalisation may split or drop it).
    fn cubes(&self, c: &Candidate) -> Vec<Cube> {
        let z = zvar(0, &self.sys.index_sort());
        let mut lits = vec![];
        if let (Some(l), Some(pc)) = (c.loc, self.pc) {
            let v = &self.prog.scalar_terms[pc];
            lits.push(Term::eq(v, &Term::enum_const(v.sort().clone(), l)));
        }
        if let Some((lo, hi)) = c.range {
            lits.push(Term::le(&self.term(lo, &z), &z));
            lits.push(Term::lt(&z, &self.term(hi, &z)));
        }
        let (a, b) = (self.term(c.lhs, &z), self.term(c.rhs, &z));
        lits.push(match c.rel {
            Rel::Lt => Term::lt(&a, &b),
            Rel::Le => Term::le(&a, &b),
            Rel::Ne => Term::eq(&a, &b).not(),
        });
        let vars = if c.range.is_some() { vec![z] } else { vec![] };
        Cube::normalize(&vars, &lits)
    }
}

/// The values an atom may take in a state: its value, or, for a cell no
/// step has read or written, the whole range of the array's initial
/// values (the run so far does not depend on it, so each of them gives a
/// reachable state); with whether it is such a free cell.
fn value(a: Atom, st: &State, z: i64) -> Option<(i64, i64, Option<(usize, i64)>)> {
    let cell = |arr: usize, i: i64| {
        let (lo, hi) = st.arrays[arr].peek([i, 0]);
        (lo, hi, (lo < hi).then_some((arr, i)))
    };
    match a {
        Atom::Num(n) => Some((n, n, None)),
        Atom::Scalar(s, o) => st.scalars[s].checked_add(o).map(|v| (v, v, None)),
        Atom::Cell(arr, s, o) => Some(cell(arr, s.map_or(0, |s| st.scalars[s]).checked_add(o)?)),
        Atom::Z(arr) => Some(cell(arr, z)),
    }
}

/// Whether some values of the two atoms are in the relation.
fn related(rel: Rel, a: Option<(i64, i64, Option<(usize, i64)>)>, b: Option<(i64, i64, Option<(usize, i64)>)>) -> bool {
    let (Some((al, ah, fa)), Some((bl, bh, fb))) = (a, b) else { return false };
    if fa.is_some() && fa == fb {
        // one free cell on both sides
        return rel == Rel::Le;
    }
    match rel {
        Rel::Lt => al < bh,
        Rel::Le => al <= bh,
        Rel::Ne => !(al == ah && bl == bh && al == bl),
    }
}

/// Longest stretch of a range searched in one of the first states, at either end.
const RANGE_CAP: i64 = 1 << 10;

impl Candidate {
    /// Whether the state satisfies the cube (violates the candidate
    /// invariant); cells the run never fixed satisfy nothing.
    fn violated(&mut self, st: &State, pc: Option<usize>, window: i64) -> bool {
        if let (Some(l), Some(pc)) = (self.loc, pc) {
            if st.scalars[pc] != l {
                return false;
            }
        }
        match self.range {
            None => related(self.rel, value(self.lhs, st, 0), value(self.rhs, st, 0)),
            Some((lo, hi)) => {
                let exact = |a: Atom| value(a, st, 0).filter(|v| v.0 == v.1).map(|v| v.0);
                let (Some(lo), Some(hi)) = (exact(lo), exact(hi)) else { return false };
                if lo < hi {
                    self.seen = true;
                }
                let mid = lo.saturating_add(window).min(hi);
                let at = |z: i64| related(self.rel, value(self.lhs, st, z), value(self.rhs, st, z));
                (lo..mid).any(at) || (hi.saturating_sub(window).max(mid)..hi).any(at)
            }
        }
    }
}

/// Integer literals of the system, without the bounds of C's integer types.
fn literals(sys: &System) -> Vec<i64> {
    let mut out: HashSet<i64> = HashSet::from([0]);
    let mut visit = |t: &Term| {
        for l in collect(t, &|x: &Term| matches!(x.op(), Op::Int(_))) {
            let v = l.as_int().unwrap();
            let range = [127, 128, 255, 256, 32767, 32768, 65535, 65536].contains(&v.abs()) || v.abs() >= 2_147_483_647;
            if !range {
                out.insert(v);
            }
        }
    };
    for t in &sys.transitions {
        visit(&t.guard);
        t.updates.iter().for_each(|u| visit(&u.value));
    }
    for q in sys.unsafe_.iter() {
        q.lits.iter().for_each(&mut visit);
    }
    let mut v: Vec<i64> = out.into_iter().collect();
    v.sort();
    v
}

/// Scalars used as array indices: in reads, and in the positions an
/// update writes (`λj. ite(j = i, v, a[j])`).
fn index_scalars(sys: &System) -> HashSet<Term> {
    let mut out = HashSet::new();
    let mut visit = |t: &Term| {
        for s in collect(t, &|x: &Term| matches!(x.op(), Op::Select)) {
            for i in &s.args()[1..] {
                out.extend(free_vars(i));
            }
        }
        for l in collect(t, &|x: &Term| matches!(x.op(), Op::Lambda(_))) {
            let Op::Lambda(bound) = l.op() else { continue };
            for atom in collect(&l.args()[0], &|x: &Term| matches!(x.op(), Op::Eq | Op::Lt | Op::Le)) {
                let vs = free_vars(&atom);
                if vs.iter().any(|v| bound.contains(v)) {
                    out.extend(vs.into_iter().filter(|v| !bound.contains(v)));
                }
            }
        }
    };
    for t in &sys.transitions {
        visit(&t.guard);
        t.updates.iter().for_each(|u| visit(&u.value));
    }
    for q in sys.unsafe_.iter() {
        q.lits.iter().for_each(&mut visit);
    }
    out
}

/// The candidates of the templates over the program's vocabulary.
fn candidates(voc: &Vocabulary) -> Vec<Candidate> {
    let (sys, prog) = (voc.sys, voc.prog);
    let nums = literals(sys);
    let vals: Vec<i64> = nums.iter().copied().filter(|v| v.abs() < 100).collect();
    let ints: Vec<usize> = (0..prog.scalar_terms.len()).filter(|&s| Some(s) != voc.pc && *prog.scalar_terms[s].sort() == Sort::Int).collect();
    let used = index_scalars(sys);
    let idx: Vec<usize> = ints.iter().copied().filter(|&s| used.contains(&prog.scalar_terms[s])).collect();
    // one-dimensional arrays of integers indexed by integers
    let arrays: Vec<usize> = (0..prog.array_vars.len())
        .filter(|&a| {
            let v = &sys.vars[prog.array_vars[a]];
            v.term.sort().as_array().is_some_and(|s| s.index.len() == 1 && s.index[0] == Sort::Int) && v.value_sort() == Sort::Int
        })
        .collect();
    let locs: Vec<Option<i64>> = match voc.pc {
        Some(pc) => {
            let (lo, hi) = prog.scalar_terms[pc].sort().finite_range().expect("the control variable is an enumeration");
            (lo..=hi).map(Some).collect()
        }
        None => vec![None],
    };
    let mut shapes: Vec<(Option<(Atom, Atom)>, Rel, Atom, Atom)> = vec![];
    // comparisons between scalars and with literals
    let mut against: Vec<Atom> = ints.iter().map(|&s| Atom::Scalar(s, 0)).collect();
    against.extend(nums.iter().map(|&n| Atom::Num(n)));
    for &x in &ints {
        for &t in &against {
            if t == Atom::Scalar(x, 0) {
                continue;
            }
            for rel in [Rel::Lt, Rel::Le] {
                shapes.push((None, rel, Atom::Scalar(x, 0), t));
                shapes.push((None, rel, t, Atom::Scalar(x, 0)));
            }
        }
    }
    // cells
    let mut places: Vec<(Option<usize>, i64)> = idx.iter().map(|&s| (Some(s), 0)).collect();
    places.extend(nums.iter().filter(|n| **n >= 0).map(|&n| (None, n)));
    for &a in &arrays {
        for &(s, o) in &places {
            for &v in &vals {
                shapes.push((None, Rel::Ne, Atom::Cell(a, s, o), Atom::Num(v)));
            }
        }
    }
    // range facts
    let mut los: Vec<Atom> = idx.iter().flat_map(|&s| [Atom::Scalar(s, 0), Atom::Scalar(s, 1)]).collect();
    los.extend(nums.iter().filter(|n| **n >= 0).map(|&n| Atom::Num(n)));
    let mut his = los.clone();
    his.extend(nums.iter().filter(|n| **n >= 0).map(|&n| Atom::Num(n + 1)));
    let mut rels: Vec<(Rel, Atom, Atom)> = vec![];
    for (k, &a) in arrays.iter().enumerate() {
        for &b in &arrays[k + 1..] {
            rels.extend([(Rel::Ne, Atom::Z(a), Atom::Z(b)), (Rel::Lt, Atom::Z(a), Atom::Z(b)), (Rel::Lt, Atom::Z(b), Atom::Z(a))]);
        }
        for &v in &vals {
            rels.extend([(Rel::Ne, Atom::Z(a), Atom::Num(v)), (Rel::Lt, Atom::Z(a), Atom::Num(v)), (Rel::Lt, Atom::Num(v), Atom::Z(a))]);
        }
        for &b in &arrays {
            for &s in &idx {
                rels.extend([(Rel::Lt, Atom::Z(a), Atom::Cell(b, Some(s), 0)), (Rel::Lt, Atom::Cell(b, Some(s), 0), Atom::Z(a))]);
            }
        }
    }
    for &lo in &los {
        for &hi in &his {
            let same = match (lo, hi) {
                (Atom::Scalar(a, _), Atom::Scalar(b, _)) => a == b,
                (Atom::Num(a), Atom::Num(b)) => a >= b,
                _ => false,
            };
            if same {
                continue;
            }
            for &(rel, l, r) in &rels {
                shapes.push((Some((lo, hi)), rel, l, r));
            }
        }
    }
    let mut out = vec![];
    for &loc in &locs {
        for &(range, rel, lhs, rhs) in &shapes {
            out.push(Candidate { loc, range, rel, lhs, rhs, seen: false });
        }
    }
    out
}

/// One cube of the fixpoint.
struct Member {
    cube: Cube,
    /// An unsafe cube or a pre-image of one: never dropped.
    mandatory: bool,
    alive: bool,
    /// Members whose pre-images this one helped cover.
    supports: Vec<usize>,
    /// Members that cover this one's pre-images.
    needs: Vec<usize>,
}

/// A candidate-invariant search over one program.
pub struct Houdini<'a> {
    sys: &'a System,
    opts: Options,
    solver: Box<dyn Solver>,
    members: Vec<Member>,
    start: Instant,
    /// Counters and timers.
    pub stats: Stats,
    /// Candidates generated, left after sampling, left at the fixpoint.
    pub counts: (usize, usize, usize),
    debug: bool,
}

/// Sampled states each location's candidates are evaluated on at most.
const MAX_LOOKS: u64 = 256;

/// Backward cubes added to the fixpoint at most.
const MAX_BACKWARD: usize = 64;

impl<'a> Houdini<'a> {
    /// A search over `sys`.
    pub fn new(sys: &'a System, opts: Options) -> Self {
        let solver = smt::solver(opts.backend);
        Houdini { sys, opts, solver, members: vec![], start: Instant::now(), stats: Stats::default(), counts: (0, 0, 0), debug: std::env::var_os("ARRAX_DEBUG").is_some() }
    }

    fn timed_out(&self) -> bool {
        self.opts.timeout.is_some_and(|t| self.start.elapsed() >= t)
    }

    fn check(&mut self, f: &Term) -> SatResult {
        if let Some(t) = self.opts.timeout {
            let left = t.saturating_sub(self.start.elapsed()).as_millis() as u64;
            self.solver.set_timeout_ms(left.clamp(1, 20_000));
        }
        self.solver.push();
        self.solver.assert(f);
        let r = self.solver.check();
        self.solver.pop();
        r
    }

    fn add(&mut self, cube: Cube, mandatory: bool) -> usize {
        self.stats.nodes += 1;
        self.members.push(Member { cube, mandatory, alive: true, supports: vec![], needs: vec![] });
        self.members.len() - 1
    }

    /// The candidates that survive sampled executions, as cubes.
    fn sampled(&mut self) -> Result<Vec<Cube>, String> {
        let sys = self.sys;
        let prog = crate::exec::compile(sys).map_err(|u| u.0)?;
        let pc = crate::abstraction::control_variable(sys).and_then(|k| prog.scalar_terms.iter().position(|t| *t == sys.vars[k].term));
        let voc = Vocabulary { sys, prog: &prog, pc };
        let mut cands = candidates(&voc);
        self.counts.0 = cands.len();
        // by location, so that a state is shown only its location's candidates
        let mut by_loc: HashMap<Option<i64>, Vec<Candidate>> = HashMap::new();
        for c in cands.drain(..) {
            by_loc.entry(c.loc).or_default().push(c);
        }
        let mut visits: HashMap<Option<i64>, u64> = HashMap::new();
        let mut looked: HashMap<Option<i64>, u64> = HashMap::new();
        let share = self.opts.timeout.map(|t| t / 3);
        let deadline = share.map(|s| self.start + s);
        // transitions that stay at their location (loop bodies)
        let stays: Vec<bool> = sys
            .transitions
            .iter()
            .map(|t| match crate::abstraction::control_variable(sys) {
                Some(k) => {
                    let guard: Vec<Term> = match t.guard.op() {
                        Op::And => t.guard.args().to_vec(),
                        _ => vec![t.guard.clone()],
                    };
                    t.updates.iter().all(|u| u.var != k || guard.contains(&Term::eq(&sys.vars[k].term, &u.value)))
                }
                None => true,
            })
            .collect();
        let mut entered = true;
        let mut observe = |st: &State, taken: usize| {
            let loc = pc.map(|p| st.scalars[p]);
            let n = visits.entry(loc).or_insert(0);
            *n += 1;
            // the first visits, entries to and exits from a location, then ever more rarely
            let edge = std::mem::replace(&mut entered, !stays[taken]) || !stays[taken];
            if *n > 16 && !edge && !n.is_power_of_two() && *n % 4096 != 0 {
                return;
            }
            // a bounded number of looks per location
            let looks = looked.entry(loc).or_insert(0);
            *looks += 1;
            if *looks > MAX_LOOKS {
                return;
            }
            if let Some(cs) = by_loc.get_mut(&loc) {
                // whole ranges (up to a bound) at first, then their ends
                let window = if *looks <= 8 { RANGE_CAP } else { 16 };
                cs.retain_mut(|c| !c.violated(st, pc, window));
            }
        };
        crate::engine::run::sample(sys, &prog, 10, 1 << 18, 0x5eed, deadline, &mut observe);
        // a location never visited keeps only the candidate that it is unreachable
        let mut cubes = vec![];
        let mut seen = HashSet::new();
        for (loc, cs) in by_loc {
            let visited = visits.contains_key(&loc);
            for c in cs {
                if !visited || (c.range.is_some() && !c.seen) {
                    continue;
                }
                for cube in voc.cubes(&c) {
                    if seen.insert(cube.key()) {
                        cubes.push(cube);
                    }
                }
            }
            if !visited {
                if let (Some(l), Some(p)) = (loc, pc) {
                    let v = &prog.scalar_terms[p];
                    for cube in Cube::normalize(&[], &[Term::eq(v, &Term::enum_const(v.sort().clone(), l))]) {
                        if seen.insert(cube.key()) {
                            cubes.push(cube);
                        }
                    }
                }
            }
        }
        for (loc, fs) in &self.opts.location_facts {
            for f in fs {
                let neg = match f.op() {
                    Op::Le => Term::lt(&f.args()[1], &f.args()[0]),
                    _ => f.not(),
                };
                for cube in Cube::normalize(&[], &[loc.clone(), neg]) {
                    if seen.insert(cube.key()) {
                        cubes.push(cube);
                    }
                }
            }
        }
        self.counts.1 = cubes.len();
        Ok(cubes)
    }

    fn meets_initial(&mut self, c: &Cube) -> Result<bool, String> {
        self.stats.calls_safety += 1;
        let q = initial_query(self.sys, c);
        match self.check(&q) {
            SatResult::Sat => Ok(true),
            SatResult::Unsat => Ok(false),
            SatResult::Unknown(why) => Err(why),
        }
    }

    /// The live members covering `c` (instantiation-based fixpoint test:
    /// each member's negation instantiated over `c`'s index terms), if they do.
    fn covering(&mut self, c: &Cube) -> Result<Option<Vec<usize>>, String> {
        let facts = Facts::of(c);
        let terms = index_terms(self.sys, &c.body());
        let mut clauses = vec![];
        let mut used = vec![];
        for k in 0..self.members.len() {
            if !self.members[k].alive {
                continue;
            }
            let m = &self.members[k].cube;
            // literals without variables first: most members are at another location
            let ground = m.lits.iter().filter(|l| m.vars.iter().all(|v| !free_vars(l).contains(v)));
            if ground.into_iter().any(|l| facts.eval(l).0 == Some(false)) {
                continue;
            }
            let mut mine = vec![];
            for map in all_maps(&m.vars, &terms) {
                let mut rest = vec![];
                let mut dead = false;
                for l in &m.lits {
                    match facts.eval(&substitute(l, &map)) {
                        (Some(true), _) => {}
                        (Some(false), _) => {
                            dead = true;
                            break;
                        }
                        (None, l2) => rest.push(l2),
                    }
                }
                if dead {
                    continue;
                }
                if rest.is_empty() && m.vars.len() <= 1 {
                    self.stats.subsumed += 1;
                    return Ok(Some(vec![k]));
                }
                let images: Vec<Term> = m.vars.iter().map(|v| map[v].clone()).collect();
                // the member speaks of distinct variables only
                mine.push(Term::or([Term::distinct(&images).not(), Term::and(rest).not()]));
            }
            if !mine.is_empty() {
                // a selector per member: the unsat core names those needed
                let selector = Term::var(&format!("houdini!{k}"), Sort::Bool);
                clauses.push(Term::implies(&selector, &Term::and(mine)));
                used.push((selector, k));
            }
        }
        if clauses.is_empty() && !c.needs_sat_check() {
            return Ok(None);
        }
        let mut parts = vec![c.body(), Term::distinct(&c.vars)];
        parts.extend(index_bounds(self.sys, &c.vars));
        parts.extend(instantiate_all(self.sys, &self.sys.axioms, &c.vars));
        parts.extend(clauses);
        self.stats.calls_fixpoint += 1;
        let t0 = Instant::now();
        if let Some(t) = self.opts.timeout {
            let left = t.saturating_sub(self.start.elapsed()).as_millis() as u64;
            self.solver.set_timeout_ms(left.clamp(1, 20_000));
        }
        self.solver.push();
        self.solver.assert(&Term::and(parts));
        let selectors: Vec<Term> = used.iter().map(|(s, _)| s.clone()).collect();
        let r = self.solver.check_assuming(&selectors);
        let core = if r == SatResult::Unsat { self.solver.unsat_core() } else { vec![] };
        self.solver.pop();
        self.stats.t_fixpoint += t0.elapsed();
        match r {
            SatResult::Unsat => Ok(Some(used.into_iter().filter(|(s, _)| core.contains(s)).map(|(_, k)| k).collect())),
            SatResult::Sat => Ok(None),
            SatResult::Unknown(why) => Err(why),
        }
    }

    /// The pre-images of a member (an empty one is covered by any member:
    /// the covering query finds it unsatisfiable).
    fn pre_images(&mut self, c: &Cube) -> Vec<Cube> {
        let t0 = Instant::now();
        let mut out = vec![];
        for ti in 0..self.sys.transitions.len() {
            out.extend(pre_image(self.sys, c, ti, self.opts.max_procs).0.into_iter().map(|(p, _)| p));
        }
        self.stats.t_pre += t0.elapsed();
        out
    }

    /// Runs the search: a proof, or why there is none.
    pub fn run(&mut self) -> Outcome {
        match self.search() {
            Ok(o) => o,
            Err(why) => Outcome::Unknown(why),
        }
    }

    fn search(&mut self) -> Result<Outcome, String> {
        let cubes = self.sampled()?;
        if self.debug {
            eprintln!("houdini: {} candidates, {} after sampling ({:.2}s)", self.counts.0, self.counts.1, self.start.elapsed().as_secs_f64());
        }
        for q in self.sys.unsafe_.clone() {
            for c in Cube::normalize(&q.vars, &q.lits) {
                self.add(c, true);
            }
        }
        for c in cubes {
            if self.timed_out() {
                return Ok(Outcome::Unknown("timeout".into()));
            }
            if !self.meets_initial(&c)? {
                self.add(c, false);
            }
        }
        if self.debug {
            eprintln!("houdini: {} members after the initial states ({:.2}s)", self.members.len(), self.start.elapsed().as_secs_f64());
            if std::env::var_os("ARRAX_DEBUG_MEMBERS").is_some() {
                for m in &self.members {
                    eprintln!("  member {}", m.cube);
                }
            }
        }
        let mut queue: Vec<usize> = (0..self.members.len()).rev().collect();
        let mut queued: HashSet<usize> = queue.iter().copied().collect();
        let mut backward = 0;
        let mut pre_cache: HashMap<usize, Vec<Cube>> = HashMap::new();
        while let Some(k) = queue.pop() {
            queued.remove(&k);
            if !self.members[k].alive {
                continue;
            }
            if self.timed_out() {
                return Ok(Outcome::Unknown("timeout".into()));
            }
            self.stats.expanded += 1;
            self.members[k].needs.clear();
            let cube = self.members[k].cube.clone();
            let pres = match pre_cache.get(&k) {
                Some(p) => p.clone(),
                None => {
                    let p = self.pre_images(&cube);
                    pre_cache.insert(k, p.clone());
                    p
                }
            };
            for p in pres {
                match self.covering(&p)? {
                    Some(by) => {
                        self.stats.covered += 1;
                        for b in by {
                            if !self.members[b].supports.contains(&k) {
                                self.members[b].supports.push(k);
                            }
                            if !self.members[k].needs.contains(&b) {
                                self.members[k].needs.push(b);
                            }
                        }
                    }
                    None if self.members[k].mandatory => {
                        // a step of backward reachability
                        if backward >= MAX_BACKWARD {
                            return Ok(Outcome::Unknown("the candidates do not cover the unsafe states' pre-images".into()));
                        }
                        if self.meets_initial(&p)? {
                            return Ok(Outcome::Unknown("a pre-image of the unsafe states meets the initial states".into()));
                        }
                        backward += 1;
                        let n = self.add(p, true);
                        queue.push(n);
                        queued.insert(n);
                    }
                    None => {
                        if self.debug {
                            eprintln!("houdini: dropped {cube}\n    pre-image not covered: {p}");
                        }
                        self.members[k].alive = false;
                        let again = std::mem::take(&mut self.members[k].supports);
                        for s in again {
                            if self.members[s].alive && queued.insert(s) {
                                queue.push(s);
                            }
                        }
                        break;
                    }
                }
            }
        }
        // the proof: the unsafe cubes and, transitively, the members their
        // pre-images' coverings need
        let mut keep: Vec<usize> = (0..self.members.len()).filter(|&k| self.members[k].alive && self.members[k].mandatory).collect();
        let mut kept: HashSet<usize> = keep.iter().copied().collect();
        let mut i = 0;
        while i < keep.len() {
            for &b in &self.members[keep[i]].needs {
                if kept.insert(b) {
                    keep.push(b);
                }
            }
            i += 1;
        }
        keep.sort();
        let proof = Proof { invariant: keep.iter().map(|&k| self.members[k].cube.clone()).collect(), hints: vec![] };
        self.counts.2 = proof.invariant.len();
        let n = proof.invariant.len();
        Ok(Outcome::Safe(Proof { hints: vec![vec![]; n], ..proof }))
    }
}
