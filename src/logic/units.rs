//! Unit propagation over a conjunction, a refutation without a solver: the
//! conjuncts that fix a cell or symbol to a literal (`t = v`, `b`, `¬b`)
//! are substituted into the other conjuncts, and a conjunct that becomes
//! false (or two units that disagree) shows the conjunction unsatisfiable.
//! Most safety and covering queries of a small protocol end here.

use super::subst::{conjuncts, substitute};
use super::term::{Op, Term};
use super::Sort;
use crate::HashMap;

/// Whether unit propagation shows the conjunction `f` unsatisfiable
/// (`false`: not shown, the solver must decide).
pub fn refuted_by_units(f: &Term) -> bool {
    if f.as_bool() == Some(false) {
        return true;
    }
    let parts = conjuncts(f);
    let mut units: HashMap<Term, Term> = HashMap::default();
    for p in &parts {
        let Some((t, v)) = unit(p) else { continue };
        match units.get(&t) {
            Some(w) if *w != v => return true,
            Some(_) => {}
            None => {
                units.insert(t, v);
            }
        }
    }
    !units.is_empty() && parts.iter().any(|p| !binds(p) && substitute(p, &units).as_bool() == Some(false))
}

/// The values unit propagation fixes when they decide the conjunction `f`:
/// no two units disagree and every conjunct is true once they are
/// substituted, so the models of `f` are exactly the assignments that agree
/// with them. `None` when they do not decide it (the solver must).
pub fn solved_by_units(f: &Term) -> Option<HashMap<Term, Term>> {
    let parts = conjuncts(f);
    let mut units: HashMap<Term, Term> = HashMap::default();
    for p in &parts {
        if binds(p) {
            return None;
        }
        let Some((t, v)) = unit(p) else { continue };
        if units.insert(t, v.clone()).is_some_and(|w| w != v) {
            return None;
        }
    }
    parts.iter().all(|p| substitute(p, &units).as_bool() == Some(true)).then_some(units)
}

/// The cell (an array read or a symbol) a literal fixes, and its value.
fn unit(l: &Term) -> Option<(Term, Term)> {
    let cell = |t: &Term| matches!(t.op(), Op::Var(_) | Op::Select) && !binds(t);
    match l.op() {
        Op::Eq => {
            let (a, b) = (&l.args()[0], &l.args()[1]);
            if b.is_value() && cell(a) {
                Some((a.clone(), b.clone()))
            } else if a.is_value() && cell(b) {
                Some((b.clone(), a.clone()))
            } else {
                None
            }
        }
        Op::Not if *l.args()[0].sort() == Sort::Bool && cell(&l.args()[0]) => Some((l.args()[0].clone(), Term::ff())),
        Op::Var(_) | Op::Select if cell(l) => Some((l.clone(), Term::tt())),
        _ => None,
    }
}

/// Whether a term contains a binder (substitution of cells under it could
/// capture its variables).
fn binds(t: &Term) -> bool {
    matches!(t.op(), Op::Forall(_) | Op::Exists(_) | Op::Lambda(_)) || t.args().iter().any(binds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disagreeing_units_and_falsified_conjuncts_refute() {
        let x = Term::var("x", Sort::Int);
        let p = Term::var("p", Sort::Bool);
        let one = Term::int(1);
        // x = 1 ∧ x = 2
        assert!(refuted_by_units(&Term::and([Term::eq(&x, &one), Term::eq(&x, &Term::int(2))])));
        // x = 1 ∧ p ∧ (¬p ∨ x > 3)
        let clause = Term::or([p.not(), Term::lt(&Term::int(3), &x)]);
        assert!(refuted_by_units(&Term::and([Term::eq(&x, &one), p.clone(), clause])));
        // x = 1 ∧ (p ∨ x > 3): satisfiable, not refuted
        let clause = Term::or([p.clone(), Term::lt(&Term::int(3), &x)]);
        assert!(!refuted_by_units(&Term::and([Term::eq(&x, &one), clause])));
    }

    #[test]
    fn units_that_decide_a_conjunction_are_its_solution() {
        let x = Term::var("x", Sort::Int);
        let p = Term::var("p", Sort::Bool);
        let one = Term::int(1);
        // x = 1 ∧ ¬p ∧ (p ∨ x ≤ 3): decided, x = 1 and p false
        let clause = Term::or([p.clone(), Term::le(&x, &Term::int(3))]);
        let units = solved_by_units(&Term::and([Term::eq(&x, &one), p.not(), clause])).unwrap();
        assert_eq!(units.get(&x), Some(&one));
        assert_eq!(units.get(&p), Some(&Term::ff()));
        // x = 1 ∧ (p ∨ x > 3): p is left open, not decided
        let clause = Term::or([p.clone(), Term::lt(&Term::int(3), &x)]);
        assert!(solved_by_units(&Term::and([Term::eq(&x, &one), clause])).is_none());
        // x = 1 ∧ x = 2: no solution
        assert!(solved_by_units(&Term::and([Term::eq(&x, &one), Term::eq(&x, &Term::int(2))])).is_none());
        assert!(solved_by_units(&Term::tt()).is_some_and(|u| u.is_empty()));
    }
}
