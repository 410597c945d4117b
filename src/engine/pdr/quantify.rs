//! Quantifier generalisation in the manner of Quic3 ("Quantifiers on
//! Demand"): a blocked cube that reads arrays at ground index terms
//! (`a[i]`, `a[i + 1]`, `a[0]`) reads them instead at new quantified
//! variables tied to those terms (`∃z. z = i ∧ a[z] ≠ v`), together with
//! the bounds the cube and the invariant facts imply for them (`0 ≤ z`,
//! `z < n`, `z ≤ i`, `i ≤ z`). The cube is the same set of states; but
//! inductive generalisation may now drop the tie `z = i` and one of the
//! bounds, which turns the lemma `¬(pc = l ∧ a[i] ≠ v)` into the range
//! lemma `∀z ∈ [0, i). pc = l ⇒ a[z] = v`, or its mirror `∀z ∈ [i, n)`.
//! The bound terms are the program's integer scalars and constants, zero
//! and the cube's integer literals: the counters and sizes that term
//! abstraction names.

use super::generalize::keep;
use super::lemma::INFINITY;
use super::search::{frame, Search};
use crate::logic::projection::Linear;
use crate::logic::{collect, occurs, substitute, Op, Sort, Term};
use crate::system::cube::{zvar, Cube};
use crate::HashMap;

/// Ground index terms abstracted per cube, at most.
const MAX_TERMS: usize = 3;

impl Search<'_> {
    /// The cube with its ground index terms abstracted into quantified
    /// variables, tied and bounded, and the bounds of its own variables
    /// it implies (`None`: nothing to add).
    pub(super) fn quantify(&mut self, g: &Cube) -> Option<Cube> {
        let isort = self.sys.index_sort();
        if isort != Sort::Int {
            return None;
        }
        let ground = abstracted(&ground_indices(g));
        let mut vars = g.vars.clone();
        let mut lits = g.lits.clone();
        let mut ties: Vec<(Term, Term)> = vec![];
        for t in ground.into_iter().take(MAX_TERMS) {
            let w = (1..).map(|k| zvar(k - 1, &isort)).find(|z| !vars.contains(z))?;
            let apart = vars.iter().all(|v| self.distinct_from(g, &t, v, &ties));
            if !apart {
                continue;
            }
            let moved: Vec<Term> = lits.iter().map(|l| reindex(l, &t, &w)).collect();
            if moved == lits {
                continue;
            }
            lits = moved;
            lits.push(Term::eq(&w, &t));
            ties.push((w.clone(), t));
            vars.push(w);
        }
        let mut c = Cube::plain(vars, lits);
        for (w, t) in &ties {
            let bounds = self.bounds(&c, w, Some(t));
            c.lits.extend(bounds);
            for u in indices_over(&c, w) {
                let bounds = self.bounds(&c, &u, None);
                c.lits.extend(bounds);
            }
        }
        for v in &g.vars {
            let bounds = self.bounds(&c, v, None);
            c.lits.extend(bounds.into_iter().filter(|l| !g.lits.contains(l)));
        }
        let order = self.var_order(&c, &ties);
        c.lits.extend(order);
        (c.lits.len() > g.lits.len()).then(|| keep(&c, c.lits.clone()))
    }

    /// Whether ground term `t` differs from the cube variable (or tied new
    /// variable) `v` wherever `g` holds with the invariant facts.
    fn distinct_from(&mut self, g: &Cube, t: &Term, v: &Term, ties: &[(Term, Term)]) -> bool {
        let other = ties.iter().find(|(w, _)| w == v).map(|(_, u)| u.clone()).unwrap_or_else(|| v.clone());
        if let Some(d) = Linear::of(t).and_then(|a| a.minus(&Linear::of(&other)?)) {
            if d.coeffs.is_empty() {
                return d.constant != 0;
            }
        }
        let facts = frame(&self.frames, INFINITY);
        self.q.implies(&facts, g, &Term::eq(t, &other).not())
    }

    /// The comparisons of variable `w` (tied to `t`, if given) with the bound terms that the
    /// cube implies with the invariant facts: the strict one when it holds,
    /// else the non-strict one, on each side.
    fn bounds(&mut self, c: &Cube, w: &Term, t: Option<&Term>) -> Vec<Term> {
        let mut out = t.map_or(vec![], |t| vec![Term::le(w, t), Term::le(t, w)]);
        let facts = frame(&self.frames, INFINITY);
        for b in self.bound_terms() {
            if Some(&b) == t || occurs(w, &b) {
                continue;
            }
            for (strict, weak) in [(Term::lt(w, &b), Term::le(w, &b)), (Term::lt(&b, w), Term::le(&b, w))] {
                if self.q.implies(&facts, c, &strict) {
                    out.push(strict);
                } else if self.q.implies(&facts, c, &weak) {
                    out.push(weak);
                }
            }
        }
        out.retain(|l| l.as_bool().is_none());
        out
    }

    /// The order between each new variable and the cube's other
    /// variables, where the cube implies one (`z1 < z2`).
    fn var_order(&mut self, c: &Cube, ties: &[(Term, Term)]) -> Vec<Term> {
        let facts = frame(&self.frames, INFINITY);
        let mut out = vec![];
        for (i, (w, _)) in ties.iter().enumerate() {
            let earlier = c.vars.iter().filter(|v| !ties[i..].iter().any(|(u, _)| u == *v)).cloned().collect::<Vec<_>>();
            for v in earlier {
                for lit in [Term::lt(w, &v), Term::lt(&v, w)] {
                    if self.q.implies(&facts, c, &lit) {
                        out.push(lit);
                    }
                }
            }
        }
        out
    }

    /// Zero, the system's integer scalars and constants, and the integer
    /// literals its guards compare with (sizes).
    fn bound_terms(&self) -> Vec<Term> {
        let mut out = vec![Term::int(0)];
        let scalars = self.sys.vars.iter().filter(|v| !v.is_array && *v.term.sort() == Sort::Int).map(|v| v.term.clone());
        out.extend(scalars.chain(self.sys.consts.iter().filter(|k| *k.sort() == Sort::Int).cloned()));
        for t in &self.sys.transitions {
            for cmp in collect(&t.guard, &|l: &Term| matches!(l.op(), Op::Lt | Op::Le)) {
                for n in cmp.args().iter().filter(|a| a.as_int().is_some_and(|n| !crate::reach::dataflow::is_type_bound(n))) {
                    if !out.contains(n) {
                        out.push(n.clone());
                    }
                }
            }
        }
        out
    }
}

/// The index arguments of the cube's array reads that mention none of its
/// variables, in order of first occurrence.
fn ground_indices(g: &Cube) -> Vec<Term> {
    let mut out: Vec<Term> = vec![];
    for l in &g.lits {
        for r in collect(l, &|t: &Term| matches!(t.op(), Op::Select)) {
            for i in &r.args()[1..] {
                if *i.sort() == Sort::Int && !g.vars.iter().any(|v| occurs(v, i)) && !out.contains(i) {
                    out.push(i.clone());
                }
            }
        }
    }
    out
}

/// The terms a cube's ground index terms are abstracted at: a term
/// affine in one variable (`2·j + 1`) is abstracted at that variable, so
/// that reads at `j` and at `2·j + 1` keep their relation (`a[z]`,
/// `b[2·z + 1]`); any other term (a numeral, a sum of variables) is
/// abstracted as a whole. In order of first occurrence, without repeats.
fn abstracted(ground: &[Term]) -> Vec<Term> {
    let mut out: Vec<Term> = vec![];
    for t in ground {
        let one = Linear::of(t).filter(|l| l.coeffs.len() == 1).and_then(|l| l.coeffs.keys().next().cloned());
        let target = one.filter(|x| x.is_var()).unwrap_or_else(|| t.clone());
        if !out.contains(&target) {
            out.push(target);
        }
    }
    out
}

/// The index terms of the cube's reads that mention `w` and are not `w`
/// itself (`2·w + 1`): their bounds are what a range lemma may need.
fn indices_over(c: &Cube, w: &Term) -> Vec<Term> {
    let mut out: Vec<Term> = vec![];
    for l in &c.lits {
        for r in collect(l, &|t: &Term| matches!(t.op(), Op::Select)) {
            for i in &r.args()[1..] {
                if i != w && occurs(w, i) && !out.contains(i) {
                    out.push(i.clone());
                }
            }
        }
    }
    out
}

/// The literal with every array read at index `t` read at `w` instead;
/// when `t` is a variable, also every read at an index term over `t`
/// (`b[2·t + 1]` read at `b[2·w + 1]`).
fn reindex(l: &Term, t: &Term, w: &Term) -> Term {
    let over = |i: &Term| i == t || (t.is_var() && occurs(t, i));
    let reads = collect(l, &|r: &Term| matches!(r.op(), Op::Select) && r.args()[1..].iter().any(over));
    let tie: HashMap<Term, Term> = [(t.clone(), w.clone())].into_iter().collect();
    let map: HashMap<Term, Term> = reads
        .into_iter()
        .map(|r| {
            let args: Vec<Term> = r.args()[1..]
                .iter()
                .map(|i| {
                    if i == t {
                        w.clone()
                    } else if over(i) {
                        substitute(i, &tie)
                    } else {
                        i.clone()
                    }
                })
                .collect();
            let re = Term::select(&r.args()[0], &args);
            (r, re)
        })
        .collect();
    substitute(l, &map)
}
