//! Term abstraction (SAFARI): the terms an invariant should not mention —
//! loop counters and the bounds they run to (array lengths) — and the
//! abstraction of labels that forgets what a cube says about them.

use crate::logic::projection::Linear;
use crate::logic::{collect, occurs, Op, Sort, Term};
use crate::system::cube::Cube;
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
                        && Linear::of(&u.value).and_then(|l| l.minus(&Linear::of(x)?)).is_some_and(|d| d.coeffs.is_empty() && d.constant != 0)
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
        // compared with a counter: both appear as atoms of one linear constraint
        let top = |side: &Term, x: &Term| Linear::of(side).is_some_and(|l| l.coeffs.contains_key(x));
        let compared = sys.transitions.iter().any(|t| {
            collect(&t.guard, &|l: &Term| matches!(l.op(), Op::Lt | Op::Le)).iter().any(|l| {
                let (x, y) = (&l.args()[0], &l.args()[1]);
                counters.iter().any(|c| (top(x, c) && top(y, &b)) || (top(x, &b) && top(y, c)))
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
