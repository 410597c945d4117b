//! The solver queries of IC3/PDR over the system IR.
//!
//! - *Relative induction* of a cube `c` with respect to a frame `F`: is
//!   there a state of `F ∧ ¬c` (with `itself`) with a step into `c`? One
//!   query per transition that can enter `c`: the frame and `¬c` over the
//!   current state, the guard, and `c`'s literals with the next-state
//!   values substituted (λ-updates beta-reduced, inputs as fresh
//!   constants), each literal an assumption so that an unsatisfiable
//!   query's core names the literals that mattered. A satisfiable query
//!   gives a predecessor: the pre-image cube ([`crate::reach::pre`]) whose
//!   literals the model satisfies — an exact pre-image rather than a model
//!   projection, with inputs and next-state values eliminated.
//! - Whether a cube meets a frame, or the initial states (with the
//!   literals needed to keep it apart as a core).
//!
//! The cube's variables become Skolem constants; lemmas enter by
//! instantiation over the query's index terms or as quantified formulas
//! ([`super::lemma`]). Lemmas about another location than the step's (or
//! the cube's) are left out.

use super::abstraction::Abstraction;
use super::lemma::{self, Lemma, Lemmas};
use crate::answer::{AbstractTrace, Edge};
use crate::logic::{substitute, Term};
use crate::reach::path::index_terms;
use crate::reach::pre::pre_image;
use crate::reach::safety::{index_bounds, instantiate_all};
use crate::smt::{self, SatResult, Solver};
use crate::system::cube::Cube;
use crate::system::System;
use crate::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// A frame as queries see it.
pub enum Frame<'f> {
    /// `F_0`: the initial states.
    Initial,
    /// `F_j`, `j ≥ 1`: these lemmas.
    Lemmas(Vec<&'f Lemma>),
}

/// The answer of a relative-induction query.
pub enum Relative {
    /// No step from the frame enters the cube: the positions of the cube's
    /// literals the refutation used.
    Blocked(Vec<usize>),
    /// A predecessor cube inside the frame (as far as instantiation tells),
    /// its edge into the cube, and which of the cube's literals hold in the
    /// model's predecessor state (the cube's variables at their values
    /// after the step): a counterexample to induction.
    Predecessor(Cube, Edge, Vec<bool>),
    /// The solver gave up; why.
    Unknown(String),
}

/// A transition as queries use it: parameters and inputs renamed to query
/// constants, the next value of every updated variable.
struct Step {
    guard: Term,
    uguard: Option<(Term, Term)>,
    next: HashMap<Term, Term>,
    params: Vec<Term>,
    units: HashMap<Term, Term>,
}

impl Step {
    fn of(sys: &System, ti: usize) -> Step {
        let t = &sys.transitions[ti];
        let params: Vec<Term> = t.params.iter().enumerate().map(|(k, p)| Term::var(&format!("x!{k}"), p.sort().clone())).collect();
        let mut pmap: HashMap<Term, Term> = t.params.iter().cloned().zip(params.iter().cloned()).collect();
        for (k, v) in t.values.iter().enumerate() {
            pmap.insert(v.clone(), Term::var(&format!("v!{k}"), v.sort().clone()));
        }
        let next = t.updates.iter().map(|u| (sys.vars[u.var].term.clone(), substitute(&u.value, &pmap))).collect();
        let guard = substitute(&t.guard, &pmap);
        let units = lemma::units(&crate::logic::conjuncts(&guard));
        let uguard = t.uguard.as_ref().map(|(j, b)| (j.clone(), substitute(b, &pmap)));
        Step { guard, uguard, next, params, units }
    }
}

/// The Skolem constant of a cube's `i`-th variable in queries.
fn skolem(i: usize, v: &Term) -> Term {
    Term::var(&format!("k!{}", i + 1), v.sort().clone())
}

/// The solver and what it is asked, with counters.
pub struct Queries<'a> {
    sys: &'a System,
    /// The abstraction steps and pre-images are taken in, and the abstract
    /// system ([`super::abstraction`]); `None`: the system itself.
    abstraction: Option<(Abstraction, System)>,
    solver: Box<dyn Solver>,
    mode: Lemmas,
    steps: Vec<Step>,
    max_procs: usize,
    deadline: Option<Instant>,
    /// Solver calls.
    pub calls: usize,
    /// Time in the solver.
    pub time: Duration,
}

impl<'a> Queries<'a> {
    /// Queries on `sys` with a solver of `backend`.
    pub fn new(sys: &'a System, backend: smt::Backend, mode: Lemmas, max_procs: usize, deadline: Option<Instant>) -> Self {
        let steps = (0..sys.transitions.len()).map(|ti| Step::of(sys, ti)).collect();
        Queries { sys, abstraction: None, solver: smt::solver(backend), mode, steps, max_procs, deadline, calls: 0, time: Duration::ZERO }
    }

    /// The queries with steps and pre-images taken in an abstraction of
    /// the system.
    pub fn abstracted(mut self, a: Abstraction) -> Self {
        self.take_in(a);
        self
    }

    /// Takes steps and pre-images in the abstraction `a` from now on.
    fn take_in(&mut self, a: Abstraction) {
        let model = a.system(self.sys);
        self.steps = (0..model.transitions.len()).map(|ti| Step::of(&model, ti)).collect();
        self.abstraction = Some((a, model));
    }

    /// Gives the abstraction up: steps and pre-images are taken in the
    /// system from now on; whether there was one.
    pub fn concretise(&mut self) -> bool {
        let was = self.abstraction.take().is_some();
        if was {
            self.steps = (0..self.sys.transitions.len()).map(|ti| Step::of(self.sys, ti)).collect();
        }
        was
    }

    /// The system steps and pre-images are taken in.
    fn model(&self) -> &System {
        self.abstraction.as_ref().map_or(self.sys, |(_, m)| m)
    }

    /// Refines the abstraction on a candidate trace that did not replay
    /// ([`Abstraction::refine`]); how many conjuncts became visible (0
    /// without an abstraction).
    pub fn refine(&mut self, trace: &AbstractTrace) -> Result<usize, String> {
        let Some((mut a, model)) = self.abstraction.take() else { return Ok(0) };
        let shown = a.refine(self.sys, &model, trace, self.solver.backend(), self.deadline);
        self.take_in(a);
        shown
    }

    /// Checks the conjunction of `parts` under the assumptions.
    fn check(&mut self, parts: &[Term], assumptions: &[Term]) -> SatResult {
        let t0 = Instant::now();
        self.calls += 1;
        smt::limit_to(self.solver.as_mut(), self.deadline.map(|d| d.saturating_duration_since(Instant::now())));
        self.solver.pop();
        self.solver.push();
        self.solver.assert(&Term::and(parts.iter().cloned()));
        let r = self.solver.check_assuming(assumptions);
        self.time += t0.elapsed();
        r
    }

    /// The frame over the index terms of a query whose state has the unit
    /// facts `units`.
    fn frame(&self, frame: &Frame, terms: &[Term], units: &HashMap<Term, Term>) -> Vec<Term> {
        match frame {
            Frame::Initial => instantiate_all(self.sys, &self.sys.initial, terms),
            Frame::Lemmas(ls) => lemma::assertions(ls.iter().filter(|l| l.relevant(units)).map(|l| &l.cube), terms, self.mode),
        }
    }

    /// The cube's variables as Skolem constants, and its literals over them.
    fn skolemise(c: &Cube) -> (HashMap<Term, Term>, Vec<Term>, Vec<Term>) {
        let map: HashMap<Term, Term> = c.vars.iter().enumerate().map(|(i, v)| (v.clone(), skolem(i, v))).collect();
        let sk: Vec<Term> = c.vars.iter().map(|v| map[v].clone()).collect();
        let lits = c.lits.iter().map(|l| substitute(l, &map)).collect();
        (map, sk, lits)
    }

    /// The index terms of `ground` plus `extra`.
    fn terms(&self, ground: &Term, extra: &[Term]) -> Vec<Term> {
        let mut terms = index_terms(self.sys, ground);
        for t in extra {
            if !terms.contains(t) {
                terms.push(t.clone());
            }
        }
        if terms.is_empty() {
            terms.push(Term::var("w!0", self.sys.index_sort()));
        }
        terms
    }

    /// Whether the cube meets the frame (as far as instantiation tells).
    pub fn meets(&mut self, frame: &Frame, c: &Cube, extra: &[Term]) -> Result<bool, String> {
        let (_, sk, lits) = Self::skolemise(c);
        let mut parts = lits.clone();
        parts.push(Term::distinct(&sk));
        parts.extend(index_bounds(self.sys, &sk));
        parts.extend(extra.iter().cloned());
        let terms = self.terms(&Term::and(parts.iter().cloned()), &sk);
        parts.extend(self.frame(frame, &terms, &lemma::units(&lits)));
        parts.extend(instantiate_all(self.sys, &self.sys.axioms, &terms));
        match self.check(&parts, &[]) {
            SatResult::Sat => Ok(true),
            SatResult::Unsat => Ok(false),
            SatResult::Unknown(w) => Err(w),
        }
    }

    /// Whether `c` with `lit` negated is unsatisfiable in the frame: `c`
    /// implies `lit` there (the literal over `c`'s variables).
    pub fn implies(&mut self, frame: &Frame, c: &Cube, lit: &Term) -> bool {
        let map: HashMap<Term, Term> = c.vars.iter().enumerate().map(|(i, v)| (v.clone(), skolem(i, v))).collect();
        matches!(self.meets(frame, c, &[substitute(lit, &map).not()]), Ok(false))
    }

    /// Whether the cube meets the initial states: `Ok(None)` if it does,
    /// else the positions of the literals that keep it apart (a core).
    pub fn initial(&mut self, c: &Cube) -> Result<Option<Vec<usize>>, String> {
        let (_, sk, lits) = Self::skolemise(c);
        let mut parts = vec![Term::distinct(&sk)];
        parts.extend(index_bounds(self.sys, &sk));
        let terms = self.terms(&Term::and(lits.iter().cloned()), &sk);
        parts.extend(instantiate_all(self.sys, &self.sys.initial, &terms));
        parts.extend(instantiate_all(self.sys, &self.sys.axioms, &terms));
        match self.check(&parts, &lits) {
            SatResult::Sat => Ok(None),
            SatResult::Unsat => Ok(Some(self.core(&lits))),
            SatResult::Unknown(w) => Err(w),
        }
    }

    /// The positions of `lits` in the last unsat core.
    fn core(&mut self, lits: &[Term]) -> Vec<usize> {
        let core: HashSet<Term> = self.solver.unsat_core().into_iter().collect();
        (0..lits.len()).filter(|&i| core.contains(&lits[i])).collect()
    }

    /// Relative induction of `c` with respect to `frame` (and `¬c` itself
    /// when `itself`): see the module documentation.
    pub fn relative(&mut self, frame: &Frame, c: &Cube, itself: bool) -> Relative {
        let (_, sk, lits) = Self::skolemise(c);
        let mut used: HashSet<usize> = HashSet::default();
        for ti in 0..self.steps.len() {
            let step = &self.steps[ti];
            let next: Vec<Term> = lits.iter().map(|l| substitute(l, &step.next)).collect();
            if step.guard.as_bool() == Some(false) {
                continue;
            }
            // a literal false after the step rules the transition out: it is the core
            if let Some(i) = next.iter().position(|l| l.as_bool() == Some(false)) {
                used.insert(i);
                continue;
            }
            let mut parts = vec![step.guard.clone(), Term::distinct(&sk), Term::distinct(&step.params)];
            parts.extend(index_bounds(self.sys, &sk));
            parts.extend(index_bounds(self.sys, &step.params));
            let ground = Term::and(parts.iter().chain(&next).cloned());
            let extra: Vec<Term> = sk.iter().chain(&step.params).cloned().collect();
            let terms = self.terms(&ground, &extra);
            let units = step.units.clone();
            if let Some((j, body)) = &step.uguard {
                parts.extend(terms.iter().map(|t| substitute(body, &[(j.clone(), t.clone())].into_iter().collect())));
            }
            parts.extend(self.frame(frame, &terms, &units));
            if itself && Lemma::new(c.clone(), 0).relevant(&units) {
                parts.extend(lemma::assertions([c], &terms, self.mode));
            }
            parts.extend(instantiate_all(self.sys, &self.sys.axioms, &terms));
            match self.check(&parts, &next) {
                SatResult::Unsat => used.extend(self.core(&next)),
                SatResult::Sat => {
                    let holds = lits.iter().map(|l| self.solver.value(l) == Some(Term::tt())).collect();
                    return match self.predecessor(c, ti, &sk) {
                        Some((p, e)) => Relative::Predecessor(p, e, holds),
                        None => Relative::Unknown("no pre-image cube holds in the model".into()),
                    };
                }
                SatResult::Unknown(w) => return Relative::Unknown(w),
            }
        }
        let mut used: Vec<usize> = used.into_iter().collect();
        used.sort();
        Relative::Blocked(used)
    }

    /// After a satisfiable step query into `c` under transition `ti`: the
    /// pre-image cube whose literals the model satisfies.
    fn predecessor(&mut self, c: &Cube, ti: usize, sk: &[Term]) -> Option<(Cube, Edge)> {
        let (pres, _) = pre_image(self.model(), c, ti, self.max_procs.max(c.arity() + self.steps[ti].params.len()), false);
        let params = self.steps[ti].params.clone();
        'cubes: for (p, e) in pres {
            let mut m: HashMap<Term, Term> = HashMap::default();
            for (i, v) in e.succ_vars.iter().enumerate() {
                m.insert(v.clone(), sk[i].clone());
            }
            for (k, v) in e.params.iter().enumerate() {
                m.entry(v.clone()).or_insert_with(|| params[k].clone());
            }
            if !p.vars.iter().all(|v| m.contains_key(v)) {
                continue;
            }
            for l in &p.lits {
                if self.solver.value(&substitute(l, &m)) != Some(Term::tt()) {
                    continue 'cubes;
                }
            }
            return Some((p, e));
        }
        None
    }
}
