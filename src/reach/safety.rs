//! The safety test: does a cube meet the initial states? `φ(z̄) ∧ ∀x̄.I(x̄)`
//! with the universal quantifiers of `I` (and of the system axioms)
//! instantiated on the cube's index variables — decidable and exact for
//! initial formulas of the form `∀x̄. I(x̄, a[x̄], g)`.

use crate::logic::instantiate::instances;
use crate::logic::Term;
use crate::system::cube::Cube;
use crate::system::{Quantified, System};

/// The instances of the universally quantified formulas `qs` over the
/// given index terms (a fresh process is added when there are none, so that
/// constraints on globals are not lost).
pub fn instantiate_all(sys: &System, qs: &[Quantified], terms: &[Term]) -> Vec<Term> {
    let mut terms = terms.to_vec();
    if terms.is_empty() {
        terms.push(Term::var("w0", sys.index_sort()));
    }
    let mut out = vec![];
    for q in qs {
        out.extend(instances(&q.vars, &q.body(), &terms));
    }
    out
}

/// The formula whose satisfiability means that `cube` meets the initial states.
/// A cube's conditions on other processes need only hold of the index
/// constants (an instance may have no other process, and index-valued
/// variables may name no process).
/// The initial formula is instantiated on the cube's variables and on the
/// index constants it names (`S[#1]`).
pub fn initial_query(sys: &System, cube: &Cube) -> Term {
    let body = cube.body();
    let isort = sys.index_sort();
    let named = sys.consts.iter().filter(|c| *c.sort() == isort && crate::logic::occurs(c, &body));
    let terms: Vec<Term> = cube.vars.iter().chain(named).cloned().collect();
    let mut parts = vec![body, Term::distinct(&cube.vars)];
    parts.extend(others_on_scalars(sys, cube));
    parts.extend(instantiate_all(sys, &sys.initial, &terms));
    parts.extend(instantiate_all(sys, &sys.axioms, &terms));
    parts.extend(index_bounds(sys, &cube.vars));
    Term::and(parts)
}

/// Range facts on index variables (non-negative for `:index nat`).
pub fn index_bounds(sys: &System, vars: &[Term]) -> Vec<Term> {
    match sys.index_kind() {
        crate::system::IndexKind::Nat => vars.iter().map(|v| Term::le(&Term::int(0), v)).collect(),
        _ => vec![],
    }
}

/// The cube's conditions on other processes at each index scalar that is
/// a process ([`System::process_scalars`]) and none of the cube's.
pub fn others_on_scalars(sys: &System, cube: &Cube) -> Vec<Term> {
    let Some((o, body)) = cube.outside_condition() else { return vec![] };
    sys.process_scalars().into_iter().map(|s| crate::logic::substitute(&body, &[(o.clone(), s)].into_iter().collect())).collect()
}
