//! Lazy abstraction (SAFARI): a backward tree refined by interpolants
//! ([`tree`]); first, with half the time, on the system with its large
//! literals made symbolic ([`sizes`]), then on the system as written.

pub mod sizes;
pub mod tree;

pub use tree::{Lazy, Options};

use super::{Budget, Engine, Settings, Task, TraceCheck};
use crate::answer::{AbstractTrace, Answer, Counterexample, Outcome, Replayer, Stats};
use crate::logic::{substitute, Term};
use crate::reach::{abstraction, dataflow};
use crate::smt::Backend;
use crate::system::cube::Cube;
use crate::system::System;
use crate::HashMap;

/// The lazy abstraction engine.
pub struct LazyAbstraction {
    settings: Settings,
    /// The last tree, as a graph, when the settings ask for it.
    graph: Option<crate::answer::SearchGraph>,
}

impl LazyAbstraction {
    /// The engine with these settings.
    pub fn new(settings: Settings) -> Self {
        LazyAbstraction { settings, graph: None }
    }

    /// The terms to abstract in `s`: the user's first, then the automatic
    /// ones (loop counters and their bounds).
    fn terms(&self, s: &System) -> Vec<Term> {
        let mut terms = abstraction::abstraction_terms(s);
        for name in &self.settings.abstract_terms {
            if let Some(t) = s.vars.iter().map(|v| &v.term).chain(&s.consts).find(|t| t.var_name() == Some(name)) {
                if !terms.contains(t) {
                    terms.insert(0, t.clone());
                }
            }
        }
        terms
    }

    fn options(&self, s: &System, budget: &Budget, timeout: Option<std::time::Duration>) -> Options {
        Options {
            timeout,
            max_nodes: budget.max_nodes,
            max_procs: self.settings.max_procs,
            backend: self.backend(),
            method: self.settings.interpolation.unwrap_or(crate::reach::interpolate::Method::Projection),
            terms: self.terms(s),
            facts: if dataflow::control_variable(s).is_some() { vec![] } else { dataflow::range_facts(s) },
            location_facts: dataflow::location_facts(s),
        }
    }

    /// A proof for every value of the symbolic sizes, instantiated (with
    /// half the time): the proof and a note, or a note on why there is
    /// none (`None`: the system has no large literals).
    fn generalised(&mut self, sys: &System, budget: &Budget, stats: &mut Stats) -> Option<Result<(Answer, String), String>> {
        let (gen, values) = sizes::symbolic_constants(sys)?;
        let names: Vec<String> = values.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        let names = names.join(", ");
        let mut lz = Lazy::new(&gen, self.options(&gen, budget, budget.left().map(|t| t / 2)));
        // traces of the generalised system are never accepted
        let answer = lz.run(&mut |_| false);
        stats.absorb(&lz.stats);
        self.graph = self.settings.graph.then(|| lz.graph());
        Some(match answer {
            Answer::Safe(mut proof) => {
                let back: HashMap<Term, Term> = values.iter().map(|(k, v)| (k.clone(), Term::int(*v))).collect();
                let lits = |c: &Cube| c.lits.iter().map(|l| substitute(l, &back)).collect::<Vec<_>>();
                proof.invariant = proof.invariant.iter().flat_map(|c| Cube::normalize(&c.vars, &lits(c))).collect();
                proof.hints = vec![vec![]; proof.invariant.len()];
                Ok((Answer::Safe(proof), format!("proved for every value of the symbolic sizes {names}; instantiated")))
            }
            Answer::Unknown(why) => Err(format!("with symbolic sizes {names}: {why}; the concrete sizes next")),
            Answer::Unsafe(_) => Err(format!("with symbolic sizes {names}: no proof; the concrete sizes next")),
        })
    }
}

impl Engine for LazyAbstraction {
    fn name(&self) -> &'static str {
        "lazy"
    }

    fn backend(&self) -> Backend {
        self.settings.backend_or(Backend::Z3)
    }

    fn solve(&mut self, task: &Task, budget: &Budget, replayer: &mut dyn Replayer) -> Outcome {
        let sys = task.sliced;
        let names: Vec<String> = self.terms(sys).iter().map(|t| t.to_string()).collect();
        let mut notes = vec![format!("engine: lazy abstraction, abstracting {}", if names.is_empty() { "nothing".to_string() } else { names.join(", ") })];
        let mut stats = Stats::default();
        match self.generalised(sys, budget, &mut stats) {
            Some(Ok((answer, note))) => {
                notes.push(note);
                return Outcome { graph: self.graph.take(), ..Outcome::new(answer, stats, notes) };
            }
            Some(Err(note)) => notes.push(note),
            None => {}
        }
        let mut check = TraceCheck::new(replayer);
        let mut lz = Lazy::new(sys, self.options(sys, budget, budget.left()));
        let answer = lz.run(&mut |t: &AbstractTrace| check.real(sys, t));
        stats.absorb(&lz.stats);
        let graph = self.settings.graph.then(|| lz.graph());
        notes.append(&mut check.notes);
        let answer = match answer {
            Answer::Unsafe(Counterexample::Trace(t, _)) => Answer::Unsafe(Counterexample::Trace(t, check.real.take())),
            a => a,
        };
        Outcome { graph, ..Outcome::new(answer, stats, notes) }
    }
}
