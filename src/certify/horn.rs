//! A model of Horn clauses (one definition per predicate) checked against
//! the clauses by a solver: each clause, its predicates replaced by their
//! definitions, must be valid (its negation unsatisfiable).

use crate::logic::Term;
use crate::smt::{self, Backend, SatResult};
use crate::system::horn::Clauses;

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
        let f = clauses.instantiated(k, defs);
        match smt::check_alone(solver.as_mut(), &f.not(), None) {
            SatResult::Unsat => {}
            SatResult::Sat => return ModelCheck::Refuted(k),
            SatResult::Unknown(why) => return ModelCheck::Unknown(k, why),
        }
    }
    ModelCheck::Valid(clauses.clauses.len())
}
