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

use crate::answer::{Answer, Proof, Stats};
use crate::system::cube::{zvar, Cube};
use crate::exec::{Program, State};
use crate::reach::fixpoint::Facts;
use crate::logic::instantiate::all_maps;
use crate::reach::path::index_terms;
use crate::logic::{collect, free_vars, substitute, Op, Sort, Term};
use crate::reach::pre::pre_image;
use crate::reach::safety::{index_bounds, initial_query, instantiate_all};
use crate::smt::{self, Backend, SatResult, Solver};
use crate::system::System;
use std::collections::{HashMap, HashSet};
use std::cell::Cell;
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
    /// An array slot read at the second quantified variable.
    Z2(usize),
    /// An array slot read at the quantified variable, plus a scalar slot
    /// (or, `None`, plus the quantified variable).
    ZPlus(usize, Option<usize>),
    /// The quantified variable plus an offset.
    Index(i64),
    /// An array slot read at a literal minus the quantified variable (the
    /// mirror image of `z`: `b[99999 - z]`).
    Mirror(usize, i64),
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
    /// The range of a second quantified variable, if any, and whether it
    /// is above the first (`∀z1 < z2 ∈ [lo, hi). a[z1] ≤ a[z2]`).
    range2: Option<(Atom, Atom, bool)>,
    /// A scalar slot and a value: the candidate speaks only of states where
    /// the scalar has it (`swapped = 0 → sorted`).
    cond: Option<(usize, i64)>,
    /// A second relation at the same quantified variable, if any
    /// (`∀z. a[z] ≥ 0 → b[z] = 1`: the cube `a[z] ≥ 0 ∧ b[z] ≠ 1`).
    also: Option<(Rel, Atom, Atom)>,
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
    fn term(&self, a: Atom, z: &Term, z2: &Term) -> Term {
        match a {
            Atom::Num(n) => Term::int(n),
            Atom::Scalar(s, o) => Term::add([self.prog.scalar_terms[s].clone(), Term::int(o)]),
            Atom::Cell(arr, s, o) => {
                let idx = Term::add([s.map_or(Term::int(0), |s| self.prog.scalar_terms[s].clone()), Term::int(o)]);
                Term::select(&self.array(arr), &[idx])
            }
            Atom::Z(arr) => Term::select(&self.array(arr), std::slice::from_ref(z)),
            Atom::Z2(arr) => Term::select(&self.array(arr), std::slice::from_ref(z2)),
            Atom::ZPlus(arr, s) => Term::add([Term::select(&self.array(arr), std::slice::from_ref(z)), s.map_or(z.clone(), |s| self.prog.scalar_terms[s].clone())]),
            Atom::Index(o) => Term::add([z.clone(), Term::int(o)]),
            Atom::Mirror(arr, k) => Term::select(&self.array(arr), &[Term::add([Term::int(k), z.neg()])]),
        }
    }
    fn array(&self, slot: usize) -> Term {
        self.sys.vars[self.prog.array_vars[slot]].term.clone()
    }
    /// The cubes of a candidate (normalisation may split or drop it).
    fn cubes(&self, c: &Candidate) -> Vec<Cube> {
        let (z, z2) = (zvar(0, &self.sys.index_sort()), zvar(1, &self.sys.index_sort()));
        let term = |a: Atom| self.term(a, &z, &z2);
        let mut lits = vec![];
        if let (Some(l), Some(pc)) = (c.loc, self.pc) {
            let v = &self.prog.scalar_terms[pc];
            lits.push(Term::eq(v, &Term::enum_const(v.sort().clone(), l)));
        }
        if let Some((lo, hi)) = c.range {
            lits.push(Term::le(&term(lo), &z));
            lits.push(Term::lt(&z, &term(hi)));
        }
        if let Some((s, v)) = c.cond {
            lits.push(Term::eq(&self.prog.scalar_terms[s], &Term::int(v)));
        }
        if let Some((lo, hi, above)) = c.range2 {
            lits.push(Term::le(&term(lo), &z2));
            lits.push(Term::lt(&z2, &term(hi)));
            if above {
                lits.push(Term::lt(&z, &z2));
            }
        }
        let literal = |rel: Rel, a: Term, b: Term| match rel {
            Rel::Lt => Term::lt(&a, &b),
            Rel::Le => Term::le(&a, &b),
            Rel::Ne => Term::eq(&a, &b).not(),
        };
        if let Some((rel, l, r)) = c.also {
            lits.push(literal(rel, term(l), term(r)));
        }
        lits.push(literal(c.rel, term(c.lhs), term(c.rhs)));
        let vars = match (c.range, c.range2) {
            (None, _) => vec![],
            (Some(_), None) => vec![z],
            (Some(_), Some(_)) => vec![z, z2],
        };
        Cube::normalize(&vars, &lits)
    }
}

/// The values an atom may take in a state: its value, or, for a cell no
/// step has read or written, the whole range of the array's initial
/// values (the run so far does not depend on it, so each of them gives a
/// reachable state); with whether it is such a free cell.
fn value(a: Atom, st: &State, z: i64, z2: i64) -> Option<(i64, i64, Option<(usize, i64)>)> {
    let cell = |arr: usize, i: i64| {
        let (lo, hi) = st.arrays[arr].peek([i, 0]);
        (lo, hi, (lo < hi).then_some((arr, i)))
    };
    match a {
        Atom::Num(n) => Some((n, n, None)),
        Atom::Scalar(s, o) => st.scalars[s].checked_add(o).map(|v| (v, v, None)),
        Atom::Cell(arr, s, o) => Some(cell(arr, s.map_or(0, |s| st.scalars[s]).checked_add(o)?)),
        Atom::Z(arr) => Some(cell(arr, z)),
        Atom::Z2(arr) => Some(cell(arr, z2)),
        Atom::ZPlus(arr, s) => {
            let (lo, hi, free) = cell(arr, z);
            let v = s.map_or(z, |s| st.scalars[s]);
            Some((lo.checked_add(v)?, hi.checked_add(v)?, free))
        }
        Atom::Index(o) => z.checked_add(o).map(|v| (v, v, None)),
        Atom::Mirror(arr, k) => Some(cell(arr, k.checked_sub(z)?)),
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
const RANGE_CAP: i64 = 1 << 8;

/// Longest stretch of each of two ranges searched for a pair, at either end.
const PAIR_WINDOW: i64 = 12;

/// Sampled states each location's candidates of two variables are
/// evaluated on at most.
const PAIR_LOOKS: u64 = 32;

impl Candidate {
    /// Whether the state satisfies the cube (violates the candidate
    /// invariant); cells the run never fixed satisfy nothing.
    fn violated(&mut self, st: &State, pc: Option<usize>, window: i64) -> bool {
        if let (Some(l), Some(pc)) = (self.loc, pc) {
            if st.scalars[pc] != l {
                return false;
            }
        }
        if let Some((s, v)) = self.cond {
            if st.scalars[s] != v {
                return false;
            }
        }
        let exact = |a: Atom| value(a, st, 0, 0).filter(|v| v.0 == v.1).map(|v| v.0);
        // the ends of a range, up to `window` positions each
        let ends = |lo: i64, hi: i64, window: i64| {
            let mid = lo.saturating_add(window).min(hi);
            (lo..mid).chain(hi.saturating_sub(window).max(mid)..hi)
        };
        match (self.range, self.range2) {
            (None, _) => related(self.rel, value(self.lhs, st, 0, 0), value(self.rhs, st, 0, 0)),
            (Some((lo, hi)), None) => {
                let (Some(lo), Some(hi)) = (exact(lo), exact(hi)) else { return false };
                if lo < hi {
                    self.seen = true;
                }
                let holds = |rel: Rel, l: Atom, r: Atom, z: i64| related(rel, value(l, st, z, 0), value(r, st, z, 0));
                ends(lo, hi, window).any(|z| holds(self.rel, self.lhs, self.rhs, z) && self.also.is_none_or(|(rel, l, r)| holds(rel, l, r, z)))
            }
            (Some((lo, hi)), Some((lo2, hi2, above))) => {
                let (Some(lo), Some(hi), Some(lo2), Some(hi2)) = (exact(lo), exact(hi), exact(lo2), exact(hi2)) else { return false };
                // (pairs: a short stretch at first, then shorter)
                let window = if window >= RANGE_CAP { PAIR_WINDOW } else { PAIR_WINDOW / 3 };
                let mut any = false;
                for z in ends(lo, hi, window) {
                    for z2 in ends(lo2, hi2, window) {
                        if above && z >= z2 {
                            continue;
                        }
                        any = true;
                        if related(self.rel, value(self.lhs, st, z, z2), value(self.rhs, st, z, z2)) {
                            self.seen = true;
                            return true;
                        }
                    }
                }
                self.seen |= any;
                false
            }
        }
    }
}

/// The terms of the transitions (guards, updates) and of the unsafe cubes.
fn system_terms(sys: &System) -> impl Iterator<Item = &Term> {
    let steps = sys.transitions.iter().flat_map(|t| std::iter::once(&t.guard).chain(t.updates.iter().map(|u| &u.value)));
    steps.chain(sys.unsafe_.iter().flat_map(|q| q.lits.iter()))
}

/// Integer literals of the system and 0, without the bounds of C's integer types.
fn literals(sys: &System) -> Vec<i64> {
    let mut out: HashSet<i64> = HashSet::from([0]);
    for t in system_terms(sys) {
        out.extend(collect(t, &|x: &Term| matches!(x.op(), Op::Int(_))).iter().filter_map(|l| l.as_int()).filter(|v| !crate::reach::dataflow::is_type_bound(*v)));
    }
    let mut v: Vec<i64> = out.into_iter().collect();
    v.sort();
    v
}

/// The literals `k` of the program's reads at `k - i` (`a[99999 - i]`), `i`
/// a scalar: the mirror images its arrays are read in.
fn mirror_constants(sys: &System) -> Vec<i64> {
    let mut out: Vec<i64> = vec![];
    for t in system_terms(sys) {
        for s in collect(t, &|x: &Term| matches!(x.op(), Op::Select)) {
            let Some(l) = crate::logic::projection::Linear::of(&s.args()[1]) else { continue };
            let mirrored = l.coeffs.len() == 1 && l.coeffs.iter().all(|(x, c)| *c == -1 && x.is_var());
            if mirrored && !out.contains(&l.constant) {
                out.push(l.constant);
            }
        }
    }
    out.sort();
    out
}

/// Scalars used as array indices: in reads, and in the positions an
/// update writes (`λj. ite(j = i, v, a[j])`).
fn index_scalars(sys: &System) -> HashSet<Term> {
    let mut out = HashSet::new();
    for t in system_terms(sys) {
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
    // scalars never used as indices: values
    let values: Vec<usize> = ints.iter().copied().filter(|s| !idx.contains(s)).collect();
    let flags: Vec<(usize, i64)> = values.iter().flat_map(|&s| [(s, 0), (s, 1)]).collect();
    let mirrors = mirror_constants(sys);
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
    let mut shapes: Vec<Shape> = vec![];
    // comparisons between scalars and with literals
    let mut against: Vec<Atom> = ints.iter().map(|&s| Atom::Scalar(s, 0)).collect();
    against.extend(nums.iter().map(|&n| Atom::Num(n)));
    for &x in &ints {
        for &t in &against {
            if t == Atom::Scalar(x, 0) {
                continue;
            }
            for rel in [Rel::Lt, Rel::Le] {
                shapes.push((None, None, None, None, rel, Atom::Scalar(x, 0), t));
                shapes.push((None, None, None, None, rel, t, Atom::Scalar(x, 0)));
            }
        }
    }
    // cells
    let mut places: Vec<(Option<usize>, i64)> = idx.iter().map(|&s| (Some(s), 0)).collect();
    places.extend(nums.iter().filter(|n| **n >= 0).map(|&n| (None, n)));
    for &a in &arrays {
        for &(s, o) in &places {
            for &v in &vals {
                shapes.push((None, None, None, None, Rel::Ne, Atom::Cell(a, s, o), Atom::Num(v)));
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
            // another array shifted by a value scalar (`b[z] = a[z] + incr`)
            if b != a {
                rels.extend(values.iter().map(|&s| (Rel::Ne, Atom::Z(a), Atom::ZPlus(b, Some(s)))));
                rels.push((Rel::Ne, Atom::Z(a), Atom::ZPlus(b, None)));
            }
        }
        // a value scalar plus a literal (`b[z] = 42 + incr`)
        for &s in &values {
            for &v in &vals {
                rels.push((Rel::Ne, Atom::Z(a), Atom::Scalar(s, v)));
            }
        }
        // an array read in mirror order (`b[z] = a[99999 - z]`, `a[z] = a[99999 - z]`)
        for &b in &arrays {
            rels.extend(mirrors.iter().map(|&k| (Rel::Ne, Atom::Z(a), Atom::Mirror(b, k))));
        }
        // the index itself (`c[z] ≥ z`), or plus a literal (`b[z] = 42 + z`)
        rels.extend([(Rel::Lt, Atom::Z(a), Atom::Index(0)), (Rel::Lt, Atom::Index(0), Atom::Z(a))]);
        rels.extend(vals.iter().map(|&v| (Rel::Ne, Atom::Z(a), Atom::Index(v))));
    }
    // the sign of one array's element, and a 0 or 1 of another's
    let mut pairs_of_rels: Vec<((Rel, Atom, Atom), Rel, Atom, Atom)> = vec![];
    for &a in &arrays {
        for &b in arrays.iter().filter(|&&b| b != a) {
            for sign in [(Rel::Le, Atom::Num(0), Atom::Z(a)), (Rel::Lt, Atom::Z(a), Atom::Num(0))] {
                for w in vals.iter().filter(|w| **w == 0 || **w == 1) {
                    pairs_of_rels.push((sign, Rel::Ne, Atom::Z(b), Atom::Num(*w)));
                }
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
                shapes.push((Some((lo, hi)), None, None, None, rel, l, r));
            }
            // two relations at the same index: a sign of one array fixes
            // a value of another (`∀z. a[z] ≥ 0 → b[z] = 1`)
            for &(also, rel, l, r) in &pairs_of_rels {
                shapes.push((Some((lo, hi)), None, None, Some(also), rel, l, r));
            }
            // two variables: a sorted range (`∀z1 < z2 ∈ [lo, hi). a[z1] ≤ a[z2]`),
            // also where a value scalar is 0 or 1 (a flag: `swapped = 0 → sorted`)
            for &a in &arrays {
                for cond in std::iter::once(None).chain(flags.iter().map(|&f| Some(f))) {
                    shapes.push((Some((lo, hi)), Some((lo, hi, true)), cond, None, Rel::Lt, Atom::Z2(a), Atom::Z(a)));
                }
            }
        }
    }
    // two variables: a range split at an index scalar, no element on the
    // left above one on the right (`∀z1 ∈ [0, i), z2 ∈ [i, n). a[z1] ≤ a[z2]`)
    for lo in nums.iter().filter(|n| **n >= 0).map(|&n| Atom::Num(n)) {
        for m in idx.iter().flat_map(|&s| [Atom::Scalar(s, 0), Atom::Scalar(s, 1)]) {
            for &hi in &his {
                if matches!((m, hi), (Atom::Scalar(a, _), Atom::Scalar(b, _)) if a == b) {
                    continue;
                }
                for &a in &arrays {
                    shapes.push((Some((lo, m)), Some((m, hi, false)), None, None, Rel::Lt, Atom::Z2(a), Atom::Z(a)));
                }
            }
        }
    }
    let mut out = vec![];
    for &loc in &locs {
        for &(range, range2, cond, also, rel, lhs, rhs) in &shapes {
            out.push(Candidate { loc, range, range2, cond, also, rel, lhs, rhs, seen: false });
        }
    }
    out
}

/// Why a solver call gave no answer: the time limit, when (about) at its
/// end, else what the solver says.
fn unknown(why: String, deadline: Option<Instant>) -> String {
    if deadline.is_some_and(|d| Instant::now() + Duration::from_millis(100) >= d) {
        "timeout".into()
    } else {
        why
    }
}

/// The shape of a candidate: all of it but its location.
type Shape = (Option<(Atom, Atom)>, Option<(Atom, Atom, bool)>, Option<(usize, i64)>, Option<(Rel, Atom, Atom)>, Rel, Atom, Atom);

/// Gives each location that no sampled state visited (`visits`, by slot)
/// the candidates of the locations its entries come from — those that
/// survived sampling there, or were given there in turn — and its own
/// comparisons of scalars; `pc` is the control variable, `slot` maps its
/// values to slots, the slot of `base + k` being `k`.
fn seed_unvisited(sys: &System, pc: &Term, slot: &dyn Fn(i64) -> usize, base: i64, by_loc: &mut [Vec<Candidate>], visits: &[u64]) {
    let slot_of = |t: &Term| match t.op() {
        Op::EnumConst(l) => Some(slot(*l)),
        _ => None,
    };
    let edges: Vec<(usize, usize)> = sys
        .transitions
        .iter()
        .filter_map(|t| {
            let from = slot_of(&crate::reach::dataflow::location_test(&t.guard, pc)?)?;
            let to = match t.updates.iter().find(|u| sys.vars[u.var].term == *pc) {
                Some(u) => slot_of(&u.value)?,
                None => from,
            };
            Some((from, to))
        })
        .collect();
    let shape = |c: &Candidate| -> Shape { (c.range, c.range2, c.cond, c.also, c.rel, c.lhs, c.rhs) };
    let survived = |c: &&Candidate| c.range.is_none() || c.seen;
    let scalar = |a: Atom| matches!(a, Atom::Num(_) | Atom::Scalar(..));
    let mut seeded: Vec<HashSet<Shape>> = vec![HashSet::new(); by_loc.len()];
    for (at, cs) in by_loc.iter().enumerate() {
        if visits[at] == 0 {
            seeded[at].extend(cs.iter().filter(|c| c.range.is_none() && scalar(c.lhs) && scalar(c.rhs)).map(shape));
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for &(from, to) in &edges {
            if from == to || from >= by_loc.len() || to >= by_loc.len() || visits[to] > 0 {
                continue;
            }
            let incoming: Vec<Shape> = if visits[from] > 0 { by_loc[from].iter().filter(survived).map(shape).collect() } else { seeded[from].iter().copied().collect() };
            for sh in incoming {
                changed |= seeded[to].insert(sh);
            }
        }
    }
    for (at, shapes) in seeded.into_iter().enumerate() {
        if visits[at] == 0 {
            let loc = Some(base + at as i64);
            by_loc[at] = shapes.into_iter().map(|(range, range2, cond, also, rel, lhs, rhs)| Candidate { loc, range, range2, cond, also, rel, lhs, rhs, seen: true }).collect();
        }
    }
}

/// One cube of the fixpoint.
struct Member {
    cube: Cube,
    /// An unsafe cube or a pre-image of one: never dropped.
    mandatory: bool,
    alive: bool,
}

/// Pre-images of members at one location, ready to be checked together.
struct Prepared {
    /// Where they are (their literals on the control variable).
    place: String,
    /// The literals without variables they share, to evaluate instances
    /// with.
    facts: Facts,
    /// Their index terms, which members are instantiated over.
    terms: Vec<Term>,
    /// The literal defining each pre-image in the solver.
    defining: Vec<Term>,
}

/// The outcome of checking a batch of pre-images.
enum Batch {
    /// All covered; the members needed.
    Covered(Vec<usize>),
    /// These pre-images (positions in the prepared batch) hold in a
    /// counter-model.
    Violated(Vec<usize>),
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
    /// Candidates generated, left after sampling, left at the fixpoint;
    /// steps of the sampled executions.
    pub counts: (usize, usize, usize, u64),
    debug: bool,
    /// Instances asserted at the base level of a place's solver, by
    /// place and member.
    asserted: HashSet<(String, usize, Term)>,
    /// The literal defining each pre-image at the base level, by member
    /// and pre-image.
    defined: HashMap<(usize, String), Term>,
    /// The index terms each member is instantiated over at each place,
    /// and whether any instance was relevant there.
    instantiated: HashMap<(usize, String), (HashSet<Term>, bool)>,
    /// The solvers of the fixpoint checks, by place.
    solvers: HashMap<String, Box<dyn Solver>>,
    /// The sampled execution that reached an unsafe state, if one did.
    pub unsafe_run: Option<crate::engine::run::Opening>,
    /// The control variable, if the system has one.
    control: Option<Term>,
}

/// Sampled states each location's candidates are evaluated on at most.
const MAX_LOOKS: u64 = 256;

/// Sampled executions at most: every mode of choosing values, then
/// spikes at the second choice.
const SAMPLED_RUNS: usize = 12;

/// Steps of the first sampled execution.
const FIRST_RUN: u64 = 1 << 18;

/// Steps of sampled executions without a new location or a violated
/// candidate after which the run ends (and later runs grow no longer).
const STALE_STEPS: u64 = 1 << 21;

/// Candidates generated at most (else the vocabulary is too large to guess in).
const MAX_CANDIDATES: usize = 200_000;

/// Candidates surviving sampling at most (else the fixpoint would be slow).
const MAX_SURVIVORS: usize = 4_000;

/// Backward cubes added to the fixpoint at most.
const MAX_BACKWARD: usize = 8;

impl<'a> Houdini<'a> {
    /// A search over `sys`.
    pub fn new(sys: &'a System, opts: Options) -> Self {
        let solver = smt::solver(opts.backend);
        Houdini { sys, opts, solver, members: vec![], start: Instant::now(), stats: Stats::default(), counts: (0, 0, 0, 0), debug: std::env::var_os("ARRAX_DEBUG").is_some(), asserted: HashSet::new(), defined: HashMap::new(), instantiated: HashMap::new(), solvers: HashMap::new(), unsafe_run: None, control: crate::reach::dataflow::control_variable(sys).map(|k| sys.vars[k].term.clone()) }
    }

    /// When the time limit ends, if there is one.
    fn deadline(&self) -> Option<Instant> {
        self.opts.timeout.map(|t| self.start + t)
    }

    fn timed_out(&self) -> bool {
        self.opts.timeout.is_some_and(|t| self.start.elapsed() >= t)
    }

    /// The time left.
    fn left(&self) -> Option<Duration> {
        self.opts.timeout.map(|t| t.saturating_sub(self.start.elapsed()))
    }

    fn add(&mut self, cube: Cube, mandatory: bool) -> usize {
        self.stats.nodes += 1;
        self.members.push(Member { cube, mandatory, alive: true });
        self.members.len() - 1
    }

    /// The candidates that survive sampled executions, as cubes: those of
    /// one quantified variable at most at visited locations, and the
    /// others (of two variables, or at locations never visited).
    fn sampled(&mut self) -> Result<(Vec<Cube>, Vec<Cube>), String> {
        let sys = self.sys;
        let prog = crate::exec::compile(sys).map_err(|u| u.0)?;
        let control = crate::reach::dataflow::control_variable(sys);
        let pc = control.and_then(|k| prog.scalar_terms.iter().position(|t| *t == sys.vars[k].term));
        let voc = Vocabulary { sys, prog: &prog, pc };
        let mut cands = candidates(&voc);
        self.counts.0 = cands.len();
        if cands.len() > MAX_CANDIDATES {
            return Err(format!("too many candidates ({}) for the program's vocabulary", cands.len()));
        }
        // by location, so that a state is shown only its location's
        // candidates: locations numbered from the control variable's least value
        let base = pc.map_or(0, |p| prog.scalar_terms[p].sort().finite_range().map_or(0, |r| r.0));
        let slot = |loc: Option<i64>| loc.map_or(0, |l| (l - base) as usize);
        let places = cands.iter().map(|c| slot(c.loc) + 1).max().unwrap_or(1);
        let mut by_loc: Vec<Vec<Candidate>> = vec![vec![]; places];
        for c in cands.drain(..) {
            by_loc[slot(c.loc)].push(c);
        }
        let mut visits: Vec<u64> = vec![0; places];
        let mut looked: Vec<u64> = vec![0; places];
        let share = self.opts.timeout.map(|t| t / 3);
        let deadline = share.map(|s| self.start + s);
        // transitions that stay at their location (loop bodies)
        let stays: Vec<bool> = sys
            .transitions
            .iter()
            .map(|t| match control {
                Some(k) => t.updates.iter().all(|u| u.var != k || crate::reach::dataflow::location_test(&t.guard, &sys.vars[k].term).as_ref() == Some(&u.value)),
                None => true,
            })
            .collect();
        let mut entered = true;
        let (steps, mut progress) = (Cell::new(0u64), 0u64);
        // runs as long as twice the deepest first visit to a location so
        // far, and slowly longer (locations behind long loops)
        // (after many steps that taught nothing, the run ends and the rest
        // are only as long as twice the deepest first visit)
        let (started, deepest, stale) = (Cell::new(0u64), Cell::new(0u64), Cell::new(false));
        let mut limit = |r: usize| {
            started.set(steps.get());
            let growth = if stale.get() { 0 } else { r / 3 };
            (2 * deepest.get()).max(FIRST_RUN << growth)
        };
        let mut observe = |st: &State, taken: usize| {
            steps.set(steps.get() + 1);
            let steps = steps.get();
            if !stale.get() && steps - progress > STALE_STEPS {
                stale.set(true);
                return false;
            }
            let at = pc.map_or(0, |p| (st.scalars[p] - base) as usize);
            let Some(n) = visits.get_mut(at) else { return true };
            *n += 1;
            if *n == 1 {
                progress = steps;
                deepest.set(deepest.get().max(steps - started.get()));
            }
            // the first visits, entries to and exits from a location, then ever more rarely
            let edge = std::mem::replace(&mut entered, !stays[taken]) || !stays[taken];
            if *n > 16 && !edge && !n.is_power_of_two() && *n % 4096 != 0 {
                return true;
            }
            // a bounded number of looks per location
            let looks = &mut looked[at];
            *looks += 1;
            if *looks > MAX_LOOKS {
                return true;
            }
            // whole ranges (up to a bound) at first, then their ends
            let window = if *looks <= 8 { RANGE_CAP } else { 16 };
            // (pairs, costlier, only on the first looks once their ranges
            // were seen non-empty)
            let pairs = *looks <= PAIR_LOOKS;
            let before = by_loc[at].len();
            by_loc[at].retain_mut(|c| !(pairs || c.range2.is_none() || !c.seen) || !c.violated(st, pc, window));
            if by_loc[at].len() < before {
                progress = steps;
            }
            true
        };
        let reached = crate::engine::run::sample(sys, &prog, SAMPLED_RUNS, 0x5eed, deadline, &mut limit, &mut observe);
        self.counts.3 = steps.get();
        if reached.is_some() {
            self.unsafe_run = reached;
            return Err("a sampled execution reaches an unsafe state".into());
        }
        // a location never visited: the candidates that hold where its
        // entries come from (and its own comparisons of scalars), or that
        // it is unreachable
        if let Some(p) = pc {
            seed_unvisited(sys, &prog.scalar_terms[p], &|l| slot(Some(l)), base, &mut by_loc, &visits);
        }
        // the first attempt's candidates, and those the second adds (of two
        // variables, or at locations never visited)
        let mut cubes = vec![];
        let mut more = vec![];
        let mut seen = HashSet::new();
        for (at, cs) in by_loc.into_iter().enumerate() {
            let visited = visits[at] > 0;
            let loc = pc.map(|_| base + at as i64);
            for c in cs {
                if c.range.is_some() && !c.seen {
                    continue;
                }
                for cube in voc.cubes(&c) {
                    if seen.insert(cube.key()) {
                        if c.range2.is_some() || !visited { &mut more } else { &mut cubes }.push(cube);
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
                for cube in Cube::normalize(&[], &[loc.clone(), crate::reach::dataflow::violation(f)]) {
                    if seen.insert(cube.key()) {
                        cubes.push(cube);
                    }
                }
            }
        }
        self.counts.1 = cubes.len() + more.len();
        Ok((cubes, more))
    }

    /// The cubes that do not meet the initial states: checked together,
    /// each counter-model removing the cubes it satisfies.
    fn disjoint_from_initial(&mut self, mut cubes: Vec<Cube>) -> Result<Vec<Cube>, String> {
        loop {
            if cubes.is_empty() {
                return Ok(cubes);
            }
            if self.timed_out() {
                return Err("timeout".into());
            }
            let ds: Vec<Term> = (0..cubes.len()).map(|j| Term::var(&format!("houdini!init{j}"), Sort::Bool)).collect();
            let mut parts: Vec<Term> = cubes.iter().zip(&ds).map(|(c, d)| Term::eq(d, &initial_query(self.sys, c))).collect();
            parts.push(Term::or(ds.iter().cloned()));
            self.stats.calls_safety += 1;
            let left = self.left();
            smt::limit_to(self.solver.as_mut(), left);
            self.solver.push();
            self.solver.assert(&Term::and(parts));
            let r = self.solver.check();
            let met: Vec<bool> = match &r {
                SatResult::Sat => ds.iter().map(|d| self.solver.value(d).and_then(|v| v.as_bool()) == Some(true)).collect(),
                _ => vec![],
            };
            self.solver.pop();
            match r {
                SatResult::Unsat => return Ok(cubes),
                SatResult::Sat if met.iter().any(|m| *m) => {
                    let mut k = 0;
                    cubes.retain(|_| {
                        k += 1;
                        !met[k - 1]
                    });
                }
                SatResult::Sat => return Err("no cube holds in the model of their disjunction".into()),
                SatResult::Unknown(why) => return Err(unknown(why, self.deadline())),
            }
        }
    }

    /// Where a pre-image is: its literals on the control variable.
    fn place(&self, p: &Cube) -> String {
        p.lits.iter().filter(|l| self.control.as_ref().is_some_and(|c| free_vars(l).contains(c))).map(|l| l.to_string()).collect::<Vec<_>>().join(" ")
    }

    /// The solver that checks the pre-images at one place: each place's
    /// definitions and instances in a solver of their own.
    fn solver_at(&mut self, place: &str) -> &mut Box<dyn Solver> {
        let backend = self.opts.backend;
        self.solvers.entry(place.to_string()).or_insert_with(|| smt::solver(backend))
    }

    /// Prepares pre-images of members at one location for checking
    /// together: their shared literals without variables, their index
    /// terms, and the literal defining each (asserted once, at the base
    /// level).
    fn prepare(&mut self, batch: &[(usize, Cube)]) -> Prepared {
        // the literals without variables all pre-images share (the location)
        let common: Vec<Term> = batch[0].1.lits.iter().filter(|l| batch.iter().all(|(_, p)| p.lits.contains(l)) && free_vars(l).iter().all(|v| !batch[0].1.vars.contains(v))).cloned().collect();
        let place = self.place(&batch[0].1);
        let facts = Facts::of(&Cube::plain(vec![], common));
        let mut terms: Vec<Term> = batch.iter().flat_map(|(_, p)| index_terms(self.sys, &p.body())).collect();
        terms.sort();
        terms.dedup();
        let mut definitions = vec![];
        let mut defining = vec![];
        for (k, p) in batch {
            let n = self.defined.len();
            let d = self.defined.entry((*k, p.key())).or_insert_with(|| {
                let d = Term::var(&format!("houdini!pre{n}"), Sort::Bool);
                let mut body = vec![p.body(), Term::distinct(&p.vars)];
                body.extend(index_bounds(self.sys, &p.vars));
                body.extend(instantiate_all(self.sys, &self.sys.axioms, &p.vars));
                definitions.push(Term::eq(&d, &Term::and(body)));
                d
            });
            defining.push(d.clone());
        }
        if !definitions.is_empty() {
            self.solver_at(&place).assert(&Term::and(definitions));
        }
        Prepared { place, facts, terms, defining }
    }

    /// Checks the prepared pre-images at positions `live` together: whether
    /// the live members cover all of them (instantiation-based fixpoint
    /// test: each member's negation instantiated over the pre-images'
    /// index terms) — then the members an unsat core needs — or else which
    /// of them (positions) a counter-model satisfies.
    fn check_batch(&mut self, prep: &Prepared, live: &[usize]) -> Result<Batch, String> {
        let (place, facts, terms) = (&prep.place, &prep.facts, &prep.terms);
        let disjuncts: Vec<&Term> = live.iter().map(|&j| &prep.defining[j]).collect();
        // the members' instances stay asserted, each under its member's
        // selector (assumed only while the member lives): later batches
        // reuse them
        let mut selectors = vec![];
        let mut fresh = vec![];
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
            let selector = Term::var(&format!("houdini!{k}"), Sort::Bool);
            // instances over a superset of these terms at this location are
            // asserted already (a batch shrinks as its pre-images drop)
            let done = self.instantiated.entry((k, place.clone())).or_default();
            if terms.iter().all(|t| done.0.contains(t)) {
                if done.1 {
                    selectors.push((selector, k));
                }
                continue;
            }
            done.0.extend(terms.iter().cloned());
            let mut any = false;
            for map in all_maps(&m.vars, &terms) {
                let lits: Vec<Term> = m.lits.iter().map(|l| substitute(l, &map)).collect();
                if lits.iter().any(|l| facts.eval(l).0 == Some(false)) {
                    continue;
                }
                any = true;
                let images: Vec<Term> = m.vars.iter().map(|v| map[v].clone()).collect();
                // the member speaks of distinct variables only
                let clause = Term::or([Term::distinct(&images).not(), Term::and(lits).not()]);
                if self.asserted.insert((place.clone(), k, clause.clone())) {
                    fresh.push(Term::implies(&selector, &clause));
                }
            }
            if any {
                self.instantiated.entry((k, place.clone())).or_default().1 = true;
                selectors.push((selector, k));
            }
        }
        let left = self.left();
        let deadline = self.deadline();
        let solver = self.solvers.get_mut(place).expect("prepared");
        if !fresh.is_empty() {
            solver.assert(&Term::and(fresh));
        }
        self.stats.calls_fixpoint += 1;
        let t0 = Instant::now();
        smt::limit_to(solver.as_mut(), left);
        solver.push();
        solver.assert(&Term::or(disjuncts.iter().map(|d| (*d).clone())));
        let assumed: Vec<Term> = selectors.iter().map(|(s, _)| s.clone()).collect();
        let r = solver.check_assuming(&assumed);
        let out = match r {
            SatResult::Unsat => {
                let core = solver.unsat_core();
                Ok(Batch::Covered(selectors.into_iter().filter(|(s, _)| core.contains(s)).map(|(_, k)| k).collect()))
            }
            SatResult::Sat => Ok(Batch::Violated(live.iter().copied().filter(|&j| solver.value(&prep.defining[j]).and_then(|v| v.as_bool()) == Some(true)).collect())),
            SatResult::Unknown(why) => Err(unknown(why, deadline)),
        };
        solver.pop();
        self.stats.t_fixpoint += t0.elapsed();
        out
    }

    /// The pre-images of a member (an empty one is covered by any member:
    /// the covering query finds it unsatisfiable).
    fn pre_images(&mut self, c: &Cube) -> Vec<Cube> {
        let t0 = Instant::now();
        let mut out = vec![];
        for ti in 0..self.sys.transitions.len() {
            out.extend(pre_image(self.sys, c, ti, self.opts.max_procs, false).0.into_iter().map(|(p, _)| p));
        }
        self.stats.t_pre += t0.elapsed();
        out
    }

    /// Runs the search: a proof, or why there is none.
    pub fn run(&mut self) -> Answer {
        match self.search() {
            Ok(o) => o,
            Err(why) => Answer::Unknown(why),
        }
    }

    /// Samples, then runs the fixpoint on the candidates of one quantified
    /// variable at most at visited locations, then, if they prove nothing,
    /// with the others added.
    fn search(&mut self) -> Result<Answer, String> {
        let (cubes, more) = self.sampled()?;
        if self.debug {
            eprintln!("houdini: {} candidates, {} after sampling {} steps ({:.2}s)", self.counts.0, self.counts.1, self.counts.3, self.start.elapsed().as_secs_f64());
        }
        let first = self.fixpoint(cubes);
        if more.is_empty() || self.timed_out() || matches!(first, Ok(Answer::Safe(_))) {
            return first;
        }
        // a fresh start: the first attempt's solvers go, its survivors
        // stay (those it dropped are not tried again)
        let survivors: Vec<Cube> = self.members.iter().filter(|m| m.alive && !m.mandatory).map(|m| m.cube.clone()).collect();
        self.members.clear();
        self.asserted.clear();
        self.defined.clear();
        self.instantiated.clear();
        self.solvers.clear();
        self.solver = smt::solver(self.opts.backend);
        self.fixpoint(survivors.into_iter().chain(more).collect())
    }

    /// Houdini's fixpoint over the candidates' cubes: the proof, or why
    /// there is none.
    fn fixpoint(&mut self, cubes: Vec<Cube>) -> Result<Answer, String> {
        if cubes.len() > MAX_SURVIVORS {
            return Err(format!("too many candidates ({}) survive sampling", cubes.len()));
        }
        for q in self.sys.unsafe_.clone() {
            for c in Cube::normalize(&q.vars, &q.lits) {
                self.add(c, true);
            }
        }
        for c in self.disjoint_from_initial(cubes)? {
            self.add(c, false);
        }
        if self.debug {
            eprintln!("houdini: {} members after the initial states ({:.2}s)", self.members.len(), self.start.elapsed().as_secs_f64());
            if std::env::var_os("ARRAX_DEBUG_MEMBERS").is_some() {
                for m in &self.members {
                    eprintln!("  member {}", m.cube);
                }
            }
        }
        // Houdini's fixpoint, by rounds: the pre-images of the live members,
        // location by location, checked together; a counter-model drops the
        // members whose pre-images it satisfies (or, for unsafe and backward
        // cubes, adds those pre-images), until a round drops nothing
        let mut pre_cache: HashMap<usize, Vec<Cube>> = HashMap::new();
        let mut backward = 0;
        loop {
            let mut batches: std::collections::BTreeMap<String, Vec<(usize, Cube)>> = std::collections::BTreeMap::new();
            for k in 0..self.members.len() {
                if !self.members[k].alive {
                    continue;
                }
                if !pre_cache.contains_key(&k) {
                    let cube = self.members[k].cube.clone();
                    let p = self.pre_images(&cube);
                    pre_cache.insert(k, p);
                }
                for p in &pre_cache[&k] {
                    batches.entry(self.place(p)).or_default().push((k, p.clone()));
                }
            }
            let mut changed = false;
            for (_, batch) in batches {
                let prep = self.prepare(&batch);
                loop {
                    if self.timed_out() {
                        return Ok(Answer::Unknown("timeout".into()));
                    }
                    let live: Vec<usize> = (0..batch.len()).filter(|&j| self.members[batch[j].0].alive).collect();
                    if live.is_empty() {
                        break;
                    }
                    self.stats.expanded += 1;
                    match self.check_batch(&prep, &live)? {
                        Batch::Covered(_) => {
                            self.stats.covered += live.len();
                            break;
                        }
                        Batch::Violated(js) => {
                            changed = true;
                            for j in js {
                                let (k, p) = &batch[j];
                                if self.members[*k].mandatory {
                                    // a step of backward reachability
                                    if backward >= MAX_BACKWARD {
                                        if self.debug { eprintln!("houdini: uncovered pre-image of a mandatory cube: {p}"); }
                                        return Ok(Answer::Unknown("the candidates do not cover the unsafe states' pre-images".into()));
                                    }
                                    if self.disjoint_from_initial(vec![p.clone()])?.is_empty() {
                                        return Ok(Answer::Unknown("a pre-image of the unsafe states meets the initial states".into()));
                                    }
                                    backward += 1;
                                    self.add(p.clone(), true);
                                } else if self.members[*k].alive {
                                    if self.debug {
                                        eprintln!("houdini: dropped {}\n    pre-image not covered: {p}", self.members[*k].cube);
                                    }
                                    self.members[*k].alive = false;
                                }
                            }
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        // the proof: the unsafe cubes and, transitively, the members that
        // cover their pre-images, each pre-image checked alone (the batches'
        // cores are unions)
        let mut keep: Vec<usize> = (0..self.members.len()).filter(|&k| self.members[k].alive && self.members[k].mandatory).collect();
        let mut kept: HashSet<usize> = keep.iter().copied().collect();
        let mut i = 0;
        while i < keep.len() {
            let k = keep[i];
            for p in pre_cache.get(&k).cloned().unwrap_or_default() {
                if self.timed_out() {
                    return Ok(Answer::Unknown("timeout".into()));
                }
                let prep = self.prepare(&[(k, p)]);
                let core = match self.check_batch(&prep, &[0])? {
                    Batch::Covered(core) => core,
                    Batch::Violated(_) => return Ok(Answer::Unknown("a pre-image covered in its batch is not covered alone".into())),
                };
                for b in core {
                    if kept.insert(b) {
                        keep.push(b);
                    }
                }
            }
            i += 1;
        }
        keep.sort();
        let proof = Proof { invariant: keep.iter().map(|&k| self.members[k].cube.clone()).collect(), hints: vec![], self_checked: false };
        self.counts.2 = proof.invariant.len();
        let n = proof.invariant.len();
        Ok(Answer::Safe(Proof { hints: vec![vec![]; n], ..proof }))
    }
}

/// The candidate-invariant engine: templates instantiated, tested on
/// sampled executions, kept while inductive; a sampled execution that
/// reaches an unsafe state is repeated by forward execution and replayed.
pub struct CandidateInvariants {
    settings: crate::engine::Settings,
}

impl CandidateInvariants {
    /// The engine with these settings.
    pub fn new(settings: crate::engine::Settings) -> Self {
        CandidateInvariants { settings }
    }
}

impl crate::engine::Engine for CandidateInvariants {
    fn name(&self) -> &'static str {
        "houdini"
    }

    fn backend(&self) -> Backend {
        self.settings.backend_or(Backend::Z3)
    }

    fn solve(&mut self, task: &crate::engine::Task, budget: &crate::engine::Budget, replayer: &mut dyn crate::answer::Replayer) -> crate::answer::Outcome {
        let sys = task.sliced;
        let opts = Options { timeout: budget.left(), backend: self.backend(), max_procs: self.settings.max_procs, location_facts: crate::reach::dataflow::location_facts(sys) };
        let mut h = Houdini::new(sys, opts);
        let answer = h.run();
        if let Some(o) = h.unsafe_run {
            // a bug: forward execution repeats the run, recorded, and the
            // independent checker replays it
            let mut run = crate::engine::run::ForwardExecution::opening(self.settings.clone(), o);
            let mut out = crate::engine::Engine::solve(&mut run, task, budget, replayer);
            out.notes.insert(0, format!("candidate invariants: a sampled execution ({:?} values) reaches an unsafe state", o.mode));
            return out;
        }
        let (made, sampled, kept, _) = h.counts;
        let notes = vec![
            "engine: candidate invariants (templates tested on sampled executions, kept while inductive)".to_string(),
            format!("candidate invariants: {made} from templates, {sampled} not violated by sampled executions, {kept} in the fixpoint"),
        ];
        crate::answer::Outcome { answer, stats: h.stats, notes }
    }
}
