//! IC3/PDR with quantified lemmas (Spacer, Quic3) on the system IR: frames
//! of lemmas, each the negation of an ∃-cube ([`lemma`], [`frame`]); proof
//! obligations blocked by relative-induction queries, predecessors as exact
//! pre-image cubes ([`obligation`], [`query`]); lemmas generalised by unsat
//! cores, inductive generalisation with counterexamples to generalisation
//! ([`generalize`]) and Quic3's quantifier generalisation of ground index
//! terms ([`quantify`]); lemmas pushed forward until two frames agree
//! ([`search`]). The invariant is certified by the other solver like
//! every SAFE answer; a chain of obligations reaching the initial states
//! is replayed before it is answered. Two abstractions of the seed papers
//! are options ([`Abstracting`]): Spacer's of the transitions
//! ([`abstraction`]) and CTIGAR's of the lemma literals ([`domain`]).

pub mod abstraction;
pub mod domain;
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
use std::cell::RefCell;
use std::time::{Duration, Instant};

/// What the frames of a search start with besides the facts known by
/// construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Seeds {
    /// Nothing.
    None,
    /// The affine equalities solved from sampled executions (no template)
    /// that are inductive together (Houdini's fixpoint).
    Solved,
    /// Those and the candidate-invariant templates' survivors.
    Candidates,
}

/// The abstraction a search refines, if any (the seeds' two kinds,
/// measured against the plain engine).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Abstracting {
    /// None: the plain engine.
    None,
    /// Spacer's abstraction of the guards' array conditions, refined by
    /// the unsat cores of spurious candidate traces ([`abstraction`]).
    Transitions,
    /// CTIGAR's domain of lemma literals, refined on spurious
    /// counterexamples to induction ([`domain`]).
    Domain,
}

/// When seeding starts: after this part of the budget (and at most this
/// long), so that what the search decides quickly costs no sampling.
const SEED_AFTER: u32 = 5;
const SEED_AFTER_CAP: Duration = Duration::from_secs(4);

/// The share of the time seeding may take, at most (a part of the time
/// left, and a cap).
const SEED_PART: u32 = 4;
const SEED_CAP: Duration = Duration::from_secs(5);

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
            abstraction: self.settings.pdr_abstraction,
            seed_at: Some(Instant::now() + budget.left().map_or(SEED_AFTER_CAP, |l| (l / SEED_AFTER).min(SEED_AFTER_CAP))),
        }
    }
}

/// What seeding found: invariants for the frames (none when seeding
/// fails or runs out of its time) with a note saying how many, or a
/// sampled execution that reached an unsafe state.
enum Seeding {
    Invariants(Vec<Cube>, Option<String>),
    Unsafe(crate::engine::run::Opening),
}

/// Invariants to seed the frames with: the candidates of sampled
/// executions kept by Houdini's fixpoint.
fn seeds(task: &Task, seeds: Seeds, settings: &Settings, budget: &Budget) -> Seeding {
    let sys = task.sliced;
    if seeds == Seeds::None || !task.program {
        return Seeding::Invariants(vec![], None);
    }
    let timeout = match budget.left() {
        Some(l) => (l / SEED_PART).min(SEED_CAP),
        None => SEED_CAP,
    };
    let opts = crate::engine::houdini::Options {
        timeout: Some(timeout),
        backend: settings.backend_or(Backend::Z3),
        max_procs: settings.max_procs,
        location_facts: dataflow::location_facts(sys),
        templates: seeds == Seeds::Candidates,
    };
    let start = Instant::now();
    let mut h = crate::engine::houdini::Houdini::new(sys, opts);
    let found = h.invariants();
    if let Some(o) = h.unsafe_run {
        return Seeding::Unsafe(o);
    }
    match found {
        Ok(cubes) => {
            let note = format!("IC3/PDR: {} seed invariants from sampled executions ({:.2}s)", cubes.len(), start.elapsed().as_secs_f64());
            Seeding::Invariants(cubes, Some(note))
        }
        Err(why) => Seeding::Invariants(vec![], Some(format!("IC3/PDR: no seed invariants ({why})"))),
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
        let opts = self.options(sys, budget);
        let found: RefCell<Option<Seeding>> = RefCell::new(None);
        let seeder = || match seeds(task, self.settings.pdr_seeds, &self.settings, budget) {
            Seeding::Invariants(cubes, note) => {
                found.replace(Some(Seeding::Invariants(vec![], note)));
                Ok(cubes)
            }
            Seeding::Unsafe(o) => {
                found.replace(Some(Seeding::Unsafe(o)));
                Err("a sampled execution reaches an unsafe state".into())
            }
        };
        let mut check = TraceCheck::new(replayer);
        let mut search = Search::new(sys, opts).seeded(Box::new(seeder));
        let answer = search.run(&mut |t: &AbstractTrace| check.real(sys, t));
        match found.take() {
            Some(Seeding::Unsafe(o)) => return crate::engine::houdini::repeat_unsafe_run(o, &self.settings, task, budget, check.replayer(), "IC3/PDR seeding"),
            Some(Seeding::Invariants(_, note)) => notes.extend(note),
            None => {}
        }
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
