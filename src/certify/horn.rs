//! A model of Horn clauses (one definition per predicate) checked against
//! the clauses by a solver: each clause, its predicates replaced by their
//! definitions, must be valid (its violation unsatisfiable).
//!
//! Each violation is first checked ground: its existential quantifiers
//! (in effect) replaced by fresh constants, its universal ones (in effect)
//! instantiated over the array indices it reads. Instantiating a universal
//! quantifier weakens the formula, so an unsatisfiable instance proves the
//! clause whatever instances were chosen; otherwise the solver gets the
//! quantified formula.

use crate::logic::instantiate::all_maps;
use crate::logic::{collect, substitute, Op, Term};
use crate::smt::{self, Backend, SatResult};
use crate::system::horn::Clauses;
use crate::HashMap;

/// What the check of a model found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelCheck {
    /// Every clause holds under the model: how many.
    Valid(usize),
    /// A clause fails under the model (its position among the clauses).
    Refuted(usize),
    /// The solver could not decide a clause: which, and why.
    Unknown(usize, String),
}

/// Checks the definitions `defs` (one per predicate, over its parameters)
/// against every clause with `backend`, each check within `timeout_ms`.
pub fn check_model(clauses: &Clauses, defs: &[Term], backend: Backend, timeout_ms: u64) -> ModelCheck {
    let mut solver = smt::checker(backend);
    solver.set_timeout_ms(timeout_ms);
    for k in 0..clauses.clauses.len() {
        let violation = clauses.violation(k, defs);
        let mut fresh = 0;
        let ground = instantiate(&skolemize(&violation, true, &mut fresh));
        if smt::check_alone(solver.as_mut(), &ground, None) == SatResult::Unsat {
            continue;
        }
        match smt::check_alone(solver.as_mut(), &violation, None) {
            SatResult::Unsat => {}
            SatResult::Sat => return ModelCheck::Refuted(k),
            SatResult::Unknown(why) => return ModelCheck::Unknown(k, why),
        }
    }
    ModelCheck::Valid(clauses.clauses.len())
}

/// The formula with its existential quantifiers in effect (`∃` at a
/// positive position, `∀` at a negative one, outside any universal one)
/// replaced by fresh constants `sk!n`.
fn skolemize(t: &Term, positive: bool, fresh: &mut usize) -> Term {
    match t.op() {
        Op::And | Op::Or => t.rebuild(t.args().iter().map(|a| skolemize(a, positive, fresh)).collect()),
        Op::Not => skolemize(&t.args()[0], !positive, fresh).not(),
        Op::Exists(vs) if positive => skolemize(&constants(vs, &t.args()[0], fresh), positive, fresh),
        Op::Forall(vs) if !positive => skolemize(&constants(vs, &t.args()[0], fresh), positive, fresh),
        _ => t.clone(),
    }
}

/// `body` with the variables `vs` replaced by fresh constants.
fn constants(vs: &[Term], body: &Term, fresh: &mut usize) -> Term {
    let m: HashMap<Term, Term> = vs
        .iter()
        .map(|v| {
            *fresh += 1;
            (v.clone(), Term::var(&format!("sk!{fresh}"), v.sort().clone()))
        })
        .collect();
    substitute(body, &m)
}

/// The formula with its quantifiers that are universal in effect (`∀` at
/// a positive position, `∃` at a negative one) instantiated over the
/// indices of its array reads outside quantifiers (an instance weakens the
/// formula); other quantifiers stay.
fn instantiate(t: &Term) -> Term {
    let reads = collect(t, &|s: &Term| matches!(s.op(), Op::Select));
    let mut indices: Vec<Term> = vec![];
    for i in reads.iter().flat_map(|s| s.args()[1..].iter()) {
        if !indices.contains(i) {
            indices.push(i.clone());
        }
    }
    rewrite(t, true, &indices)
}

fn rewrite(t: &Term, positive: bool, indices: &[Term]) -> Term {
    match t.op() {
        Op::And | Op::Or => t.rebuild(t.args().iter().map(|a| rewrite(a, positive, indices)).collect()),
        Op::Not => rewrite(&t.args()[0], !positive, indices).not(),
        Op::Forall(vs) | Op::Exists(vs) if positive == matches!(t.op(), Op::Forall(_)) => {
            let fitting: Vec<Term> = indices.iter().filter(|i| vs.iter().all(|v| v.sort() == i.sort())).cloned().collect();
            let each = all_maps(vs, &fitting).into_iter().map(|m| rewrite(&substitute(&t.args()[0], &m), positive, indices));
            if positive {
                Term::and(each)
            } else {
                Term::or(each)
            }
        }
        _ => t.clone(),
    }
}
