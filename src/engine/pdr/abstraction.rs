//! Spacer's abstraction of the transition relation (Komuravelli, Gurfinkel,
//! Chaki, Clarke: "Automatic Abstraction in SMT-Based Unbounded Software
//! Model Checking"), as an option of the engine: the search runs on a
//! system whose guards keep only some of their conjuncts — an
//! over-approximation, so a lemma blocked there is blocked in the program
//! and an invariant found there is one of the program. A candidate trace
//! that does not replay is checked as a path of the program with every
//! hidden conjunct an assumption; the conjuncts in the unsat core become
//! visible (proof-based refinement), and the search goes on with its
//! frames.
//!
//! The initial abstraction hides the conjuncts of guards that read an
//! array (the data), and keeps the control: location literals, conditions
//! on scalars (loop counters and bounds, inputs' ranges) and universal
//! guards.

use crate::answer::AbstractTrace;
use crate::logic::{collect, conjuncts, substitute, Op, Sort, Term};
use crate::reach::path::{at, prefix};
use crate::reach::safety::index_bounds;
use crate::smt::{self, Backend, SatResult};
use crate::system::System;
use crate::HashMap;
use std::time::Instant;

/// The guard conjuncts each transition's abstraction hides.
#[derive(Clone, Debug)]
pub struct Abstraction {
    hidden: Vec<Vec<Term>>,
}

impl Abstraction {
    /// The initial abstraction of `sys` (see the module documentation).
    pub fn initial(sys: &System) -> Abstraction {
        let reads = |c: &Term| !collect(c, &|t: &Term| matches!(t.op(), Op::Select)).is_empty();
        let hidden = sys.transitions.iter().map(|t| conjuncts(&t.guard).into_iter().filter(|c| !is_location(c) && reads(c)).collect()).collect();
        Abstraction { hidden }
    }

    /// The abstract system: `sys` with the hidden conjuncts left out of
    /// the guards.
    pub fn system(&self, sys: &System) -> System {
        let mut out = sys.clone();
        for (t, hidden) in out.transitions.iter_mut().zip(&self.hidden) {
            t.guard = Term::and(conjuncts(&t.guard).into_iter().filter(|c| !hidden.contains(c)));
        }
        out
    }

    /// Refines the abstraction on a candidate trace that did not replay:
    /// the hidden conjuncts that the program's path through the trace's
    /// transitions needs to be infeasible become visible. The number of
    /// conjuncts made visible (0: the path is feasible as far as the
    /// solver tells, or infeasible without any hidden conjunct). `abs` is
    /// the abstract system ([`Abstraction::system`]).
    pub fn refine(&mut self, sys: &System, abs: &System, trace: &AbstractTrace, backend: Backend, deadline: Option<Instant>) -> Result<usize, String> {
        let ts: Vec<usize> = trace.edges.iter().rev().map(|e| e.transition).collect();
        let Some(last) = trace.cubes.last() else { return Ok(0) };
        let sk: Vec<Term> = (0..last.vars.len()).map(|i| Term::var(&format!("u!{i}"), last.vars[i].sort().clone())).collect();
        let map: HashMap<Term, Term> = last.vars.iter().cloned().zip(sk.iter().cloned()).collect();
        let mut target: Vec<Term> = last.lits.iter().map(|l| substitute(l, &map)).collect();
        target.push(Term::distinct(&sk));
        target.extend(index_bounds(sys, &sk));
        let assumptions: Vec<(usize, usize, Term)> = self.instances(sys, &ts);
        let extra = Term::and(target.iter().cloned().chain(assumptions.iter().map(|(_, _, a)| a.clone())));
        let path = prefix(abs, &ts, 0).instantiate(abs, &extra);
        let mut solver = smt::solver(backend);
        smt::limit_to(solver.as_mut(), deadline.map(|d| d.saturating_duration_since(Instant::now())));
        solver.assert(&Term::and([path].into_iter().chain(target)));
        let terms: Vec<Term> = assumptions.iter().map(|(_, _, a)| a.clone()).collect();
        match solver.check_assuming(&terms) {
            SatResult::Unsat => {}
            SatResult::Sat => return Ok(0),
            SatResult::Unknown(w) => return Err(w),
        }
        let core = solver.unsat_core();
        let mut shown: Vec<(usize, usize)> = assumptions.iter().filter(|(_, _, a)| core.contains(a)).map(|(ti, ci, _)| (*ti, *ci)).collect();
        shown.sort();
        shown.dedup();
        for (ti, ci) in shown.iter().rev() {
            self.hidden[*ti].remove(*ci);
        }
        Ok(shown.len())
    }

    /// The hidden conjuncts of the path's steps over the path's state
    /// copies (as [`prefix`] names them: step `m` leads from the state
    /// `x@m` to the state one nearer the unsafe end), each with its
    /// transition and its position among the transition's hidden conjuncts.
    fn instances(&self, sys: &System, ts: &[usize]) -> Vec<(usize, usize, Term)> {
        let mut out = vec![];
        for m in 1..=ts.len() {
            let t = &sys.transitions[ts[m - 1]];
            let mut map: HashMap<Term, Term> = sys.vars.iter().map(|v| (v.term.clone(), at(&v.term, m))).collect();
            for p in t.params.iter().chain(&t.values) {
                map.insert(p.clone(), at(p, m));
            }
            for (ci, c) in self.hidden[ts[m - 1]].iter().enumerate() {
                out.push((ts[m - 1], ci, substitute(c, &map)));
            }
        }
        out
    }
}

/// Whether a literal is a location literal (an enumeration-valued scalar
/// equal to a constant).
pub fn is_location(l: &Term) -> bool {
    matches!(l.op(), Op::Eq) && l.args().iter().any(|a| a.is_var() && matches!(a.sort(), Sort::Enum(_))) && l.args().iter().any(|a| a.is_value())
}
