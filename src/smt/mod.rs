//! One solver interface, two backends (z3 and cvc5). All solver-specific
//! code lives under this folder; the rest of arrax speaks [`Term`]s.
//!
//! Sorts map as follows: `Index` and enumerations are integers (an
//! enumeration's range is asserted for every variable and array read of its
//! sort that a formula mentions), `Real` is real, uninterpreted sorts are
//! uninterpreted, multi-dimensional arrays are nested arrays.

use crate::logic::{free_vars, Op, Term};
use crate::HashSet;
use std::fmt;

/// The answer to a satisfiability check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SatResult {
    /// Satisfiable: a model is available.
    Sat,
    /// Unsatisfiable: an unsat core over the assumptions is available.
    Unsat,
    /// The solver gave up (timeout, incompleteness); the reason.
    Unknown(String),
}

/// Which solver.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Microsoft's Z3.
    Z3,
    /// Stanford/Iowa's cvc5.
    Cvc5,
}

impl Backend {
    /// The other backend (used to re-check answers independently).
    pub fn other(self) -> Backend {
        match self {
            Backend::Z3 => Backend::Cvc5,
            Backend::Cvc5 => Backend::Z3,
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Z3 => "z3",
            Backend::Cvc5 => "cvc5",
        })
    }
}

/// An incremental SMT solver over arrax terms. Symbols are declared
/// implicitly from the terms' variables (name and sort).
pub trait Solver {
    /// Which backend this is.
    fn backend(&self) -> Backend;
    /// Adds a formula to the current scope.
    fn assert(&mut self, t: &Term);
    /// Opens a scope.
    fn push(&mut self);
    /// Closes the innermost scope, forgetting its assertions.
    fn pop(&mut self);
    /// Checks the asserted formulas.
    fn check(&mut self) -> SatResult {
        self.check_assuming(&[])
    }
    /// Checks the asserted formulas together with the assumptions (Boolean terms).
    fn check_assuming(&mut self, assumptions: &[Term]) -> SatResult;
    /// After `Sat`: the model's value of a term, as a literal (Bool, Int,
    /// Real, enumeration constant or, for uninterpreted sorts, a fresh
    /// symbol naming the element).
    fn value(&mut self, t: &Term) -> Option<Term>;
    /// After `Unsat` of `check_assuming`: a subset of the assumptions that is unsatisfiable with the assertions.
    fn unsat_core(&mut self) -> Vec<Term>;
    /// Limits every later check to this many milliseconds (0: no limit).
    fn set_timeout_ms(&mut self, ms: u64);
}

/// Fails unless the term's operator has exactly `n` arguments (terms built
/// with `Term::raw` can be malformed; backends answer Unknown for them).
fn check_arity(t: &Term, n: usize) -> Result<(), String> {
    if t.args().len() == n {
        Ok(())
    } else {
        Err(format!("malformed term (expected {n} arguments): {t}"))
    }
}

/// Limits the solver's next checks to the time `left` of a search's limit
/// (at least 1 ms, at most 20 s per check); no change without a limit.
pub fn limit_to(solver: &mut dyn Solver, left: Option<std::time::Duration>) {
    if let Some(left) = left {
        solver.set_timeout_ms((left.as_millis() as u64).clamp(1, 20_000));
    }
}

/// Checks one formula in a scope of its own, within the time `left`.
pub fn check_alone(solver: &mut dyn Solver, f: &Term, left: Option<std::time::Duration>) -> SatResult {
    limit_to(solver, left);
    solver.push();
    solver.assert(f);
    let r = solver.check();
    solver.pop();
    r
}

/// A fresh solver of the given backend.
pub fn solver(backend: Backend) -> Box<dyn Solver> {
    match backend {
        Backend::Z3 => Box::new(z3::Z3Solver::new()),
        Backend::Cvc5 => Box::new(cvc5::Cvc5Solver::new()),
    }
}

/// A fresh solver of the given backend for checks whose only answer is
/// sat/unsat (certification): no models or cores, when that makes the
/// backend faster.
pub fn checker(backend: Backend) -> Box<dyn Solver> {
    match backend {
        Backend::Z3 => Box::new(z3::Z3Solver::new()),
        Backend::Cvc5 => Box::new(cvc5::Cvc5Solver::unsat_only()),
    }
}

pub mod cvc5;
pub mod smtlib;
pub mod z3;

// ----- shared by both backends: enumeration ranges -----

/// The fact `lo <= t <= hi` for a term of an enumerated sort (`None` for other sorts).
pub(crate) fn range_fact(t: &Term) -> Option<Term> {
    let (lo, hi) = t.sort().finite_range()?;
    Some(Term::and([Term::le(&Term::int(lo), t), Term::le(t, &Term::int(hi))]))
}

/// The variables and array reads of enumerated sort in `t` whose range must
/// be asserted: those that do not depend on a variable bound inside `t`
/// (reads under a binder that mention its variables are guarded by
/// [`guarded_body`] instead).
pub(crate) fn enum_terms(t: &Term) -> Vec<Term> {
    let mut out = vec![];
    let mut found = HashSet::default();
    enum_terms_rec(t, &mut vec![], &mut HashSet::default(), &mut found, &mut out);
    out
}

fn enum_terms_rec(t: &Term, bound: &mut Vec<Term>, seen: &mut HashSet<Term>, found: &mut HashSet<Term>, out: &mut Vec<Term>) {
    if !seen.insert(t.clone()) {
        return;
    }
    match t.op() {
        Op::Forall(vs) | Op::Exists(vs) | Op::Lambda(vs) => {
            let n = bound.len();
            bound.extend(vs.iter().cloned());
            // What is bound differs inside, so the visited set does too.
            for a in t.args() {
                enum_terms_rec(a, bound, &mut HashSet::default(), found, out);
            }
            bound.truncate(n);
            return;
        }
        Op::Var(_) | Op::Select if t.sort().finite_range().is_some() => {
            let free = match t.op() {
                Op::Var(_) => !bound.contains(t),
                _ => !free_vars(t).iter().any(|v| bound.contains(v)),
            };
            if free && found.insert(t.clone()) {
                out.push(t.clone());
            }
        }
        _ => {}
    }
    for a in t.args() {
        enum_terms_rec(a, bound, seen, found, out);
    }
}

/// The body of the quantifier `∀ vars. body` (or `∃`) with the ranges of its
/// enumeration-sorted variables, and of the enumeration-sorted reads that
/// depend on them, as guards: `ranges → body` (or `ranges ∧ body`), since the
/// solvers quantify over all integers.
pub(crate) fn guarded_body(vars: &[Term], body: &Term, forall: bool) -> Term {
    let mut guards: Vec<Term> = vars.iter().filter_map(range_fact).collect();
    for e in enum_terms(body) {
        if matches!(e.op(), Op::Select) && free_vars(&e).iter().any(|v| vars.contains(v)) {
            guards.extend(range_fact(&e));
        }
    }
    if forall {
        Term::implies(&Term::and(guards), body)
    } else {
        guards.push(body.clone());
        Term::and(guards)
    }
}

/// Which enumeration-sorted terms already have their range asserted, per
/// push-scope, so each fact is asserted once per scope and again after the
/// scope that asserted it is popped.
pub(crate) struct RangeFacts {
    scopes: Vec<HashSet<Term>>,
}

impl RangeFacts {
    /// No facts asserted yet, at the base scope.
    pub(crate) fn new() -> Self {
        RangeFacts { scopes: vec![HashSet::default()] }
    }
    /// Opens a scope.
    pub(crate) fn push(&mut self) {
        self.scopes.push(HashSet::default());
    }
    /// Closes the innermost scope, forgetting the facts it asserted (never the base scope).
    pub(crate) fn pop(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }
    /// The range facts `t` needs that are not asserted yet; they count as
    /// asserted in the current scope from now on (the caller asserts them).
    pub(crate) fn take_new(&mut self, t: &Term) -> Vec<Term> {
        let mut facts = vec![];
        for e in enum_terms(t) {
            if !self.scopes.iter().any(|s| s.contains(&e)) {
                facts.extend(range_fact(&e));
                if let Some(top) = self.scopes.last_mut() {
                    top.insert(e);
                }
            }
        }
        facts
    }
}
