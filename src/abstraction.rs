//! Term abstraction (SAFARI): the terms an invariant should not mention —
//! loop counters and the bounds they run to (array lengths) — and the
//! abstraction of labels that forgets what a cube says about them.

use crate::cube::Cube;
use crate::logic::{collect, occurs, Op, Sort, Term};
use crate::projection::Linear;
use crate::system::{IndexKind, System};

/// The terms to abstract: the user's (`:abstract`), then, for programs
/// (integer indices), the bounds counters are compared with, then the
/// counters (integer scalars some transition moves by a constant).
pub fn abstraction_terms(sys: &System) -> Vec<Term> {
    let mut out: Vec<Term> = sys.abstract_terms.clone();
    if sys.index_kind() == IndexKind::Order {
        return out;
    }
    let scalars: Vec<&Term> = sys.vars.iter().filter(|v| !v.is_array && *v.term.sort() == Sort::Int).map(|v| &v.term).collect();
    let counters: Vec<Term> = scalars
        .iter()
        .filter(|x| {
            sys.transitions.iter().any(|t| {
                t.updates.iter().any(|u| {
                    sys.vars[u.var].term == ***x
                        && Linear::of(&u.value)
                            .and_then(|l| l.minus(&Linear::of(x)?))
                            .is_some_and(|d| d.coeffs.is_empty() && d.constant != 0)
                })
            })
        })
        .map(|x| (*x).clone())
        .collect();
    let candidates = scalars.iter().map(|x| (*x).clone()).chain(sys.consts.iter().filter(|c| *c.sort() == Sort::Int).cloned());
    let mut bounds = vec![];
    for b in candidates {
        if counters.contains(&b) {
            continue;
        }
        let compared = sys.transitions.iter().any(|t| {
            collect(&t.guard, &|l: &Term| matches!(l.op(), Op::Lt | Op::Le | Op::Eq)).iter().any(|l| {
                let (x, y) = (&l.args()[0], &l.args()[1]);
                counters.iter().any(|c| (occurs(c, x) && occurs(&b, y)) || (occurs(&b, x) && occurs(c, y)))
            })
        });
        if compared {
            bounds.push(b);
        }
    }
    for t in bounds.into_iter().chain(counters) {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// The abstraction of a cube: its literals about abstracted terms are
/// dropped (a weaker cube: more states).
pub fn abstract_cube(c: &Cube, terms: &[Term]) -> Vec<Cube> {
    if terms.is_empty() {
        return vec![c.clone()];
    }
    let lits: Vec<Term> = c.lits.iter().filter(|l| !terms.iter().any(|t| occurs(t, l))).cloned().collect();
    if lits.len() == c.lits.len() {
        return vec![c.clone()];
    }
    let vars: Vec<Term> = c.vars.iter().filter(|v| lits.iter().any(|l| occurs(v, l))).cloned().collect();
    Cube::normalize(&vars, &lits)
}

/// Range facts of counters, invariant by construction: a scalar whose
/// every update adds a non-negative constant to it or sets it to a
/// constant never drops below the least of those constants and its initial
/// value (and symmetrically for counters that only decrease). Each fact is
/// a literal; its negation joins the invariant as a cube to certify.
pub fn range_facts(sys: &System) -> Vec<Term> {
    if sys.index_kind() == IndexKind::Order {
        return vec![];
    }
    let mut out = vec![];
    for (k, v) in sys.vars.iter().enumerate() {
        if v.is_array || *v.term.sort() != Sort::Int {
            continue;
        }
        let x = &v.term;
        // the initial value, when the initial formula fixes it
        let init = sys.initial.iter().flat_map(|q| q.lits.iter()).find_map(|l| match l.op() {
            Op::Eq if l.args()[0] == *x => l.args()[1].as_int(),
            Op::Eq if l.args()[1] == *x => l.args()[0].as_int(),
            _ => None,
        });
        let Some(init) = init else { continue };
        let (mut lo, mut hi) = (Some(init), Some(init));
        for t in &sys.transitions {
            for u in t.updates.iter().filter(|u| u.var == k) {
                if let Some(c) = u.value.as_int() {
                    lo = lo.map(|l| l.min(c));
                    hi = hi.map(|h| h.max(c));
                    continue;
                }
                match Linear::of(&u.value).and_then(|l| l.minus(&Linear::of(x)?)) {
                    Some(d) if d.coeffs.is_empty() => {
                        if d.constant < 0 {
                            lo = None;
                        }
                        if d.constant > 0 {
                            hi = None;
                        }
                    }
                    _ => {
                        lo = None;
                        hi = None;
                    }
                }
            }
        }
        if let Some(l) = lo {
            out.push(Term::le(&Term::int(l), x));
        }
        if let Some(h) = hi {
            out.push(Term::le(x, &Term::int(h)));
        }
    }
    out
}
