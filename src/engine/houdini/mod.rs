//! Candidate invariants (Houdini): invariants guessed from templates,
//! tested on sampled executions, and kept while they are inductive.
//!
//! For a program (integer indices, a control variable `pc`), the candidate
//! invariants at each location `l` are instances of templates over the
//! program's integer scalars, the scalars used as array indices, and its
//! literals:
//! - comparisons `x ≤ t`, `x < t` (`t` another scalar or a literal);
//! - cells `a[c] = v` (`c` an index scalar or a literal, `v` a small literal);
//! - range facts `∀z. lo ≤ z < hi → a[z] ⋈ e`, where `lo`, `hi` are index
//!   scalars (possibly `+ 1`) or literals, `⋈` is `=`, `≤` or `≥`, and `e`
//!   is another array at `z`, a small literal or a cell `b[x]` at an index
//!   scalar (`∀z ∈ [i, j). a[m] ≤ a[z]`: the minimum found so far).
//!
//! Each candidate is kept as its negation, an ∃-cube such as
//! `∃z. pc = l ∧ lo ≤ z ∧ z < hi ∧ a[z] < a[m]`, the form of backward
//! reachability. Candidates that a state of a sampled execution satisfies
//! are false and dropped. The others enter Houdini's fixpoint together with
//! the unsafe cubes: a candidate meeting the initial states, or with a
//! pre-image that the surviving cubes do not cover (the instantiation-based
//! fixpoint test), is dropped, until every survivor's pre-images are
//! covered. A pre-image of an unsafe cube that the candidates do not cover
//! joins the set as a cube that cannot be dropped (a step of backward
//! reachability), up to a bound. When the fixpoint is reached, the cubes'
//! negations form an inductive invariant excluding the unsafe states: the
//! proof, certified by the caller like any other.

mod affine;
mod fixpoint;
mod sampling;
mod templates;

pub use fixpoint::Houdini;

use crate::logic::Term;
use crate::smt::Backend;
use std::time::Duration;

/// Settings of a candidate-invariant search.
#[derive(Clone, Debug)]
pub struct Options {
    /// Wall-clock limit.
    pub timeout: Option<Duration>,
    /// The solver used by the search.
    pub backend: Backend,
    /// Limit on index variables per cube.
    pub max_procs: usize,
    /// Facts known to hold at locations (`pc = l`, facts): candidates too.
    pub location_facts: Vec<(Term, Vec<Term>)>,
    /// Whether candidates come from the templates too; else only from the
    /// affine equalities solved from sampled states (and the location
    /// facts).
    pub templates: bool,
}

/// The answer when a sampled execution reached an unsafe state (`o`, its
/// opening): forward execution repeats the run, recorded, and the
/// independent checker replays it; `who` names the engine that sampled.
pub fn repeat_unsafe_run(
    o: crate::engine::run::Opening,
    settings: &crate::engine::Settings,
    task: &crate::engine::Task,
    budget: &crate::engine::Budget,
    replayer: &mut dyn crate::answer::Replayer,
    who: &str,
) -> crate::answer::Outcome {
    let mut run = crate::engine::run::ForwardExecution::opening(settings.clone(), o);
    let mut out = crate::engine::Engine::solve(&mut run, task, budget, replayer);
    out.notes.insert(0, format!("{who}: a sampled execution ({:?} values) reaches an unsafe state", o.mode));
    out
}

/// The candidate-invariant engine: templates instantiated, tested on
/// sampled executions, kept while inductive; a sampled execution that
/// reaches an unsafe state is repeated by forward execution and replayed.
pub struct CandidateInvariants {
    settings: crate::engine::Settings,
}

impl CandidateInvariants {
    /// The engine with these settings.
    pub fn new(settings: crate::engine::Settings) -> Self {
        CandidateInvariants { settings }
    }
}

impl crate::engine::Engine for CandidateInvariants {
    fn name(&self) -> &'static str {
        "houdini"
    }

    fn backend(&self) -> Backend {
        self.settings.backend_or(Backend::Z3)
    }

    fn solve(&mut self, task: &crate::engine::Task, budget: &crate::engine::Budget, replayer: &mut dyn crate::answer::Replayer) -> crate::answer::Outcome {
        let sys = task.sliced;
        let opts = Options {
            timeout: budget.left(),
            backend: self.backend(),
            max_procs: self.settings.max_procs,
            location_facts: crate::reach::dataflow::location_facts(sys),
            templates: true,
        };
        let mut h = Houdini::new(sys, opts);
        let answer = h.run();
        if let Some(o) = h.unsafe_run {
            return repeat_unsafe_run(o, &self.settings, task, budget, replayer, "candidate invariants");
        }
        let (made, sampled, kept, _) = h.counts;
        let notes = vec![
            "engine: candidate invariants (templates tested on sampled executions, kept while inductive)".to_string(),
            format!("candidate invariants: {made} from templates, {sampled} not violated by sampled executions, {kept} in the fixpoint"),
        ];
        crate::answer::Outcome::new(answer, h.stats, notes)
    }
}
