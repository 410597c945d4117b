//! The templates of candidate invariants and their evaluation on sampled
//! states: atoms (literals, scalars, cells, the quantified variables),
//! relations, candidates as the cubes of the states violating them, and
//! the vocabulary they are instantiated over.

use crate::exec::{Program, State};
use crate::logic::{collect, free_vars, Op, Sort, Term};
use crate::system::cube::{zvar, Cube};
use crate::system::System;
use crate::HashSet;

/// A term of a template, evaluated on an execution state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Atom {
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
pub(super) enum Rel {
    Lt,
    Le,
    Ne,
}

/// A candidate invariant, as the cube of the states violating it.
#[derive(Clone, Debug)]
pub(super) struct Candidate {
    /// The location (value of the control variable), if any.
    pub(super) loc: Option<i64>,
    /// The range of the quantified variable, if any.
    pub(super) range: Option<(Atom, Atom)>,
    /// The range of a second quantified variable, if any, and whether it
    /// is above the first (`∀z1 < z2 ∈ [lo, hi). a[z1] ≤ a[z2]`).
    pub(super) range2: Option<(Atom, Atom, bool)>,
    /// A scalar slot and a value: the candidate speaks only of states where
    /// the scalar has it (`swapped = 0 → sorted`).
    pub(super) cond: Option<(usize, i64)>,
    /// A second relation at the same quantified variable, if any
    /// (`∀z. a[z] ≥ 0 → b[z] = 1`: the cube `a[z] ≥ 0 ∧ b[z] ≠ 1`).
    pub(super) also: Option<(Rel, Atom, Atom)>,
    pub(super) rel: Rel,
    pub(super) lhs: Atom,
    pub(super) rhs: Atom,
    /// Whether a sampled state had a non-empty range here.
    pub(super) seen: bool,
}

/// What the templates are built from: slots of the compiled program.
pub(super) struct Vocabulary<'a> {
    pub(super) sys: &'a System,
    pub(super) prog: &'a Program,
    /// The control variable's slot.
    pub(super) pc: Option<usize>,
}

impl Vocabulary<'_> {
    pub(super) fn term(&self, a: Atom, z: &Term, z2: &Term) -> Term {
        match a {
            Atom::Num(n) => Term::int(n),
            Atom::Scalar(s, o) => Term::add([self.prog.scalar_terms[s].clone(), Term::int(o)]),
            Atom::Cell(arr, s, o) => {
                let idx = Term::add([s.map_or(Term::int(0), |s| self.prog.scalar_terms[s].clone()), Term::int(o)]);
                Term::select(&self.array(arr), &[idx])
            }
            Atom::Z(arr) => Term::select(&self.array(arr), std::slice::from_ref(z)),
            Atom::Z2(arr) => Term::select(&self.array(arr), std::slice::from_ref(z2)),
            Atom::ZPlus(arr, s) => {
                Term::add([Term::select(&self.array(arr), std::slice::from_ref(z)), s.map_or(z.clone(), |s| self.prog.scalar_terms[s].clone())])
            }
            Atom::Index(o) => Term::add([z.clone(), Term::int(o)]),
            Atom::Mirror(arr, k) => Term::select(&self.array(arr), &[Term::add([Term::int(k), z.neg()])]),
        }
    }
    pub(super) fn array(&self, slot: usize) -> Term {
        self.sys.vars[self.prog.array_vars[slot]].term.clone()
    }
    /// The cubes of a candidate (normalisation may split or drop it).
    pub(super) fn cubes(&self, c: &Candidate) -> Vec<Cube> {
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

/// The values an atom may take: lowest, highest, and the free cell (array,
/// index) it is, if any.
type Span = (i64, i64, Option<(usize, i64)>);

/// A sign relation at one index and a 0-or-1 relation of another array.
type SignPair = ((Rel, Atom, Atom), Rel, Atom, Atom);

/// The values an atom may take in a state: its value, or, for a cell no
/// step has read or written, the whole range of the array's initial
/// values (the run so far does not depend on it, so each of them gives a
/// reachable state); with whether it is such a free cell.
fn value(a: Atom, st: &State, z: i64, z2: i64) -> Option<Span> {
    let cell = |arr: usize, i: i64| {
        let (lo, hi) = st.arrays[arr].peek(crate::exec::idx1(i));
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

/// The value of an atom in a state at position `z`, if it has one (not a
/// cell no step has fixed).
pub(super) fn exact_at(a: Atom, st: &State, z: i64) -> Option<i64> {
    value(a, st, z, 0).filter(|v| v.0 == v.1).map(|v| v.0)
}

/// Whether some values of the two atoms are in the relation.
fn related(rel: Rel, a: Option<Span>, b: Option<Span>) -> bool {
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
pub(super) const RANGE_CAP: i64 = 1 << 8;

/// Longest stretch of each of two ranges searched for a pair, at either end.
pub(super) const PAIR_WINDOW: i64 = 12;

/// Sampled states each location's candidates of two variables are
/// evaluated on at most.
pub(super) const PAIR_LOOKS: u64 = 32;

impl Candidate {
    /// Whether the state satisfies the cube (violates the candidate
    /// invariant); cells the run never fixed satisfy nothing.
    pub(super) fn violated(&mut self, st: &State, pc: Option<usize>, window: i64) -> bool {
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
    let mut out: HashSet<i64> = HashSet::from_iter([0]);
    for t in system_terms(sys) {
        out.extend(
            collect(t, &|x: &Term| matches!(x.op(), Op::Int(_))).iter().filter_map(|l| l.as_int()).filter(|v| !crate::reach::dataflow::is_type_bound(*v)),
        );
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
    let mut out = HashSet::default();
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

/// The shape of a candidate: all of it but its location.
pub(super) type Shape = (Option<(Atom, Atom)>, Option<(Atom, Atom, bool)>, Option<(usize, i64)>, Option<(Rel, Atom, Atom)>, Rel, Atom, Atom);

/// What the templates range over, read off the program.
pub(super) struct Words {
    /// Integer literals (and 0).
    nums: Vec<i64>,
    /// The small ones, as values.
    vals: Vec<i64>,
    /// Integer scalar slots (the control variable excepted).
    ints: Vec<usize>,
    /// Those used as array indices.
    pub(super) idx: Vec<usize>,
    /// Those never used as indices: values.
    pub(super) values: Vec<usize>,
    /// Value scalars equal to 0 or 1 (flags).
    flags: Vec<(usize, i64)>,
    /// The constants of mirror-order reads.
    mirrors: Vec<i64>,
    /// One-dimensional arrays of integers indexed by integers.
    pub(super) arrays: Vec<usize>,
}

impl Words {
    pub(super) fn of(voc: &Vocabulary) -> Words {
        let (sys, prog) = (voc.sys, voc.prog);
        let nums = literals(sys);
        let vals: Vec<i64> = nums.iter().copied().filter(|v| v.abs() < 100).collect();
        let ints: Vec<usize> = (0..prog.scalar_terms.len()).filter(|&s| Some(s) != voc.pc && *prog.scalar_terms[s].sort() == Sort::Int).collect();
        let used = index_scalars(sys);
        let idx: Vec<usize> = ints.iter().copied().filter(|&s| used.contains(&prog.scalar_terms[s])).collect();
        let values: Vec<usize> = ints.iter().copied().filter(|s| !idx.contains(s)).collect();
        let flags: Vec<(usize, i64)> = values.iter().flat_map(|&s| [(s, 0), (s, 1)]).collect();
        let arrays: Vec<usize> = (0..prog.array_vars.len())
            .filter(|&a| {
                let v = &sys.vars[prog.array_vars[a]];
                v.term.sort().as_array().is_some_and(|s| s.index.len() == 1 && s.index[0] == Sort::Int) && v.value_sort() == Sort::Int
            })
            .collect();
        Words { nums, vals, ints, idx, values, flags, mirrors: mirror_constants(sys), arrays }
    }

    /// The non-negative literals as atoms.
    pub(super) fn places(&self) -> impl Iterator<Item = Atom> + '_ {
        self.nums.iter().filter(|n| **n >= 0).map(|&n| Atom::Num(n))
    }
}

/// The candidates of the templates over the program's vocabulary, at
/// every location.
pub(super) fn candidates(voc: &Vocabulary) -> Vec<Candidate> {
    let w = Words::of(voc);
    let locs: Vec<Option<i64>> = match voc.pc {
        Some(pc) => {
            let (lo, hi) = voc.prog.scalar_terms[pc].sort().finite_range().expect("the control variable is an enumeration");
            (lo..=hi).map(Some).collect()
        }
        None => vec![None],
    };
    let mut shapes = comparisons(&w);
    shapes.extend(cells(&w));
    shapes.extend(ranges(&w));
    shapes.extend(split_ranges(&w));
    let mut out = vec![];
    for &loc in &locs {
        for &(range, range2, cond, also, rel, lhs, rhs) in &shapes {
            out.push(Candidate { loc, range, range2, cond, also, rel, lhs, rhs, seen: false });
        }
    }
    out
}

/// Comparisons between scalars and with literals.
fn comparisons(w: &Words) -> Vec<Shape> {
    let mut shapes = vec![];
    let mut against: Vec<Atom> = w.ints.iter().map(|&s| Atom::Scalar(s, 0)).collect();
    against.extend(w.nums.iter().map(|&n| Atom::Num(n)));
    for &x in &w.ints {
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
    shapes
}

/// Cells at index scalars or literals equal to small literals.
fn cells(w: &Words) -> Vec<Shape> {
    let mut places: Vec<(Option<usize>, i64)> = w.idx.iter().map(|&s| (Some(s), 0)).collect();
    places.extend(w.nums.iter().filter(|n| **n >= 0).map(|&n| (None, n)));
    let mut shapes = vec![];
    for &a in &w.arrays {
        for &(s, o) in &places {
            for &v in &w.vals {
                shapes.push((None, None, None, None, Rel::Ne, Atom::Cell(a, s, o), Atom::Num(v)));
            }
        }
    }
    shapes
}

/// The relations a range fact may state at `z`.
fn range_relations(w: &Words) -> Vec<(Rel, Atom, Atom)> {
    let mut rels = vec![];
    for (k, &a) in w.arrays.iter().enumerate() {
        for &b in &w.arrays[k + 1..] {
            rels.extend([(Rel::Ne, Atom::Z(a), Atom::Z(b)), (Rel::Lt, Atom::Z(a), Atom::Z(b)), (Rel::Lt, Atom::Z(b), Atom::Z(a))]);
        }
        for &v in &w.vals {
            rels.extend([(Rel::Ne, Atom::Z(a), Atom::Num(v)), (Rel::Lt, Atom::Z(a), Atom::Num(v)), (Rel::Lt, Atom::Num(v), Atom::Z(a))]);
        }
        for &b in &w.arrays {
            for &s in &w.idx {
                rels.extend([(Rel::Lt, Atom::Z(a), Atom::Cell(b, Some(s), 0)), (Rel::Lt, Atom::Cell(b, Some(s), 0), Atom::Z(a))]);
            }
            // another array shifted by a value scalar (`b[z] = a[z] + incr`)
            if b != a {
                rels.extend(w.values.iter().map(|&s| (Rel::Ne, Atom::Z(a), Atom::ZPlus(b, Some(s)))));
                rels.push((Rel::Ne, Atom::Z(a), Atom::ZPlus(b, None)));
            }
        }
        // a value scalar plus a literal (`b[z] = 42 + incr`)
        for &s in &w.values {
            for &v in &w.vals {
                rels.push((Rel::Ne, Atom::Z(a), Atom::Scalar(s, v)));
            }
        }
        // an array read in mirror order (`b[z] = a[99999 - z]`, `a[z] = a[99999 - z]`)
        for &b in &w.arrays {
            rels.extend(w.mirrors.iter().map(|&k| (Rel::Ne, Atom::Z(a), Atom::Mirror(b, k))));
        }
        // the index itself (`c[z] ≥ z`), or plus a literal (`b[z] = 42 + z`)
        rels.extend([(Rel::Lt, Atom::Z(a), Atom::Index(0)), (Rel::Lt, Atom::Index(0), Atom::Z(a))]);
        rels.extend(w.vals.iter().map(|&v| (Rel::Ne, Atom::Z(a), Atom::Index(v))));
    }
    rels
}

/// Pairs of relations at one index: the sign of one array's element, and
/// a 0 or 1 of another's.
fn sign_pairs(w: &Words) -> Vec<SignPair> {
    let mut pairs = vec![];
    for &a in &w.arrays {
        for &b in w.arrays.iter().filter(|&&b| b != a) {
            for sign in [(Rel::Le, Atom::Num(0), Atom::Z(a)), (Rel::Lt, Atom::Z(a), Atom::Num(0))] {
                for v in w.vals.iter().filter(|v| **v == 0 || **v == 1) {
                    pairs.push((sign, Rel::Ne, Atom::Z(b), Atom::Num(*v)));
                }
            }
        }
    }
    pairs
}

/// The upper ends of ranges: the lower ones, and literals plus one.
pub(super) fn range_ends(w: &Words) -> (Vec<Atom>, Vec<Atom>) {
    let mut los: Vec<Atom> = w.idx.iter().flat_map(|&s| [Atom::Scalar(s, 0), Atom::Scalar(s, 1)]).collect();
    los.extend(w.places());
    let mut his = los.clone();
    his.extend(w.nums.iter().filter(|n| **n >= 0).map(|&n| Atom::Num(n + 1)));
    (los, his)
}

/// Range facts `∀z ∈ [lo, hi). …`: one relation, two at the same index,
/// and sorted ranges (also under a flag).
fn ranges(w: &Words) -> Vec<Shape> {
    let (los, his) = range_ends(w);
    let rels = range_relations(w);
    let pairs_of_rels = sign_pairs(w);
    let mut shapes = vec![];
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
            for &a in &w.arrays {
                for cond in std::iter::once(None).chain(w.flags.iter().map(|&f| Some(f))) {
                    shapes.push((Some((lo, hi)), Some((lo, hi, true)), cond, None, Rel::Lt, Atom::Z2(a), Atom::Z(a)));
                }
            }
        }
    }
    shapes
}

/// Two variables: a range split at an index scalar, no element on the
/// left above one on the right (`∀z1 ∈ [0, i), z2 ∈ [i, n). a[z1] ≤ a[z2]`).
fn split_ranges(w: &Words) -> Vec<Shape> {
    let (_, his) = range_ends(w);
    let mut shapes = vec![];
    for lo in w.places() {
        for m in w.idx.iter().flat_map(|&s| [Atom::Scalar(s, 0), Atom::Scalar(s, 1)]) {
            for &hi in &his {
                if matches!((m, hi), (Atom::Scalar(a, _), Atom::Scalar(b, _)) if a == b) {
                    continue;
                }
                for &a in &w.arrays {
                    shapes.push((Some((lo, m)), Some((m, hi, false)), None, None, Rel::Lt, Atom::Z2(a), Atom::Z(a)));
                }
            }
        }
    }
    shapes
}
