//! IC3/PDR with quantified lemmas (Spacer, Quic3) on the system IR: frames
//! of lemmas, each the negation of an ∃-cube ([`lemma`], [`frame`]); proof
//! obligations blocked by relative-induction queries, predecessors as exact
//! pre-image cubes ([`obligation`], [`query`]); lemmas generalised by unsat
//! cores, inductive generalisation with counterexamples to generalisation
//! ([`generalize`]) and Quic3's quantifier generalisation of ground index
//! terms ([`quantify`]); lemmas pushed forward until two frames agree
//! ([`search`]). The invariant is certified by the other solver like
//! every SAFE answer; a chain of obligations reaching the initial states
//! is replayed before it is answered.

pub mod frame;
pub mod generalize;
pub mod lemma;
pub mod obligation;
pub mod quantify;
pub mod query;
pub mod search;

use super::{Budget, Engine, Settings, Task, TraceCheck};
use crate::answer::{AbstractTrace, Answer, Counterexample, Outcome};
use crate::reach::{abstraction as terms, dataflow};
use crate::smt::Backend;
use crate::system::cube::Cube;
use crate::system::System;
use search::{Options, Search};

/// The IC3/PDR engine.
pub struct Pdr {
    settings: Settings,
}

impl Pdr {
    /// The engine with these settings.
    pub fn new(settings: Settings) -> Self {
        Pdr { settings }
    }

    /// The search's options on `sys` within the budget.
    fn options(&self, sys: &System, budget: &Budget) -> Options {
        Options {
            deadline: budget.deadline,
            max_obligations: budget.max_nodes,
            max_procs: self.settings.max_procs,
            backend: self.backend(),
            lemmas: self.settings.pdr_lemmas,
            quantify: true,
            ctg: true,
            terms: terms::abstraction_terms(sys),
            facts: facts(sys),
        }
    }
}

/// The facts known by construction as cubes whose negations hold: range
/// facts of counters (programs without a control variable) and location
/// facts.
fn facts(sys: &System) -> Vec<Cube> {
    let mut out = vec![];
    if dataflow::control_variable(sys).is_none() {
        for f in dataflow::range_facts(sys) {
            out.extend(Cube::normalize(&[], &[dataflow::violation(&f)]));
        }
    }
    for (loc, fs) in dataflow::location_facts(sys) {
        for f in fs {
            out.extend(Cube::normalize(&[], &[loc.clone(), dataflow::violation(&f)]));
        }
    }
    out
}

impl Engine for Pdr {
    fn name(&self) -> &'static str {
        "pdr"
    }

    fn backend(&self) -> Backend {
        self.settings.backend_or(Backend::Z3)
    }

    fn solve(&mut self, task: &Task, budget: &Budget, replayer: &mut dyn crate::answer::Replayer) -> Outcome {
        let sys = task.sliced;
        let mut notes = vec![format!(
            "engine: IC3/PDR, quantified lemmas by {}",
            match self.settings.pdr_lemmas {
                lemma::Lemmas::Instances => "instantiation",
                lemma::Lemmas::Quantifiers => "the solver's quantifier support",
            }
        )];
        let mut check = TraceCheck::new(replayer);
        let mut search = Search::new(sys, self.options(sys, budget));
        let answer = search.run(&mut |t: &AbstractTrace| check.real(sys, t));
        search.stats.calls_pdr = search.q.calls;
        search.stats.t_solver = search.q.time;
        notes.append(&mut check.notes);
        let answer = match answer {
            Answer::Unsafe(Counterexample::Trace(t, _)) => Answer::Unsafe(Counterexample::Trace(t, check.real.take())),
            a => a,
        };
        Outcome::new(answer, search.stats, notes)
    }
}
