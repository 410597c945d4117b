//! Search engines. Each engine explores the system's state space in its own
//! way and ends with an [`Outcome`]; engines never parse and reach solvers
//! only through [`crate::smt`].

pub mod bwd;
pub mod houdini;
pub mod lazy;
pub mod run;

use crate::system::cube::Cube;
use crate::reach::pre::Edge;
use std::time::Duration;

/// Why a run ended without a verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The time limit was reached.
    Timeout,
    /// The node limit was reached.
    NodeLimit,
}

/// A counterexample found by backward search, before replay: the nodes from
/// the one meeting the initial states back to an unsafe cube.
#[derive(Clone, Debug)]
pub struct AbstractTrace {
    /// The cubes, from the initial end to the unsafe end.
    pub cubes: Vec<Cube>,
    /// The edge leading from each cube to the next (one fewer than cubes).
    pub edges: Vec<Edge>,
}

/// A concrete execution found by forward execution ([`run`]): everything
/// needed to replay it without the engine. Values are integers (Booleans
/// 0/1, enumeration constants by number).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Execution {
    /// The initial value of every scalar state variable and rigid constant.
    pub scalars: Vec<(crate::logic::Term, i64)>,
    /// The initial content of every array state variable.
    pub arrays: Vec<ArrayContent>,
    /// The steps, run-length encoded: (transition, consecutive repetitions).
    pub steps: Vec<(usize, u64)>,
    /// The inputs of the steps in order: each step takes as many as its
    /// transition has parameters and `values` (see `Transition::inputs`).
    pub values: Vec<i64>,
    /// The unsafe cube reached.
    pub cube: usize,
    /// The values of the cube's index variables (pairwise distinct).
    pub cube_values: Vec<i64>,
}

/// The initial content of an array: cells listed explicitly, every other
/// cell holding the default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayContent {
    /// Which state variable (position in `System::vars`).
    pub var: usize,
    /// The value of the cells not listed.
    pub default: i64,
    /// Explicit cells: index tuple and value.
    pub cells: Vec<(Vec<i64>, i64)>,
}

impl Execution {
    /// The number of steps.
    pub fn len(&self) -> u64 {
        self.steps.iter().map(|s| s.1).sum()
    }
    /// Whether the execution has no step (the initial state is unsafe).
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

/// A safety proof as backward search leaves it: the visited cubes, whose
/// negations form an inductive invariant, and, for each of them, how each
/// pre-image was discharged. The hints only say which instances of the
/// invariant to use; the certifier does not trust them for anything else.
#[derive(Clone, Debug, Default)]
pub struct Proof {
    /// The cubes whose negations form the invariant.
    pub invariant: Vec<Cube>,
    /// For each invariant cube, its pre-images with their discharging hints.
    pub hints: Vec<Vec<Hint>>,
}

/// How one pre-image cube of an invariant cube was discharged.
#[derive(Clone, Debug)]
pub struct Hint {
    /// The transition and variable correspondence of the pre-image.
    pub edge: Edge,
    /// Instances of invariant cubes implying the pre-image's negation:
    /// (invariant cube, images of its variables among the pre-image's variables).
    pub instances: Vec<(usize, Vec<crate::logic::Term>)>,
}

/// The result of a search.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// No unsafe state is reachable; the proof.
    Safe(Proof),
    /// An unsafe state is reachable along this (not yet replayed) trace.
    Unsafe(AbstractTrace),
    /// Neither could be established; why.
    Unknown(String),
}

/// Counters and timers of a search.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Nodes created (cubes enqueued, roots included).
    pub nodes: usize,
    /// Nodes expanded (pre-images computed).
    pub expanded: usize,
    /// Nodes found covered by the fixpoint test.
    pub covered: usize,
    /// Visited nodes deleted because a newer node subsumed them.
    pub deleted: usize,
    /// Covered without the solver (syntactic subsumption).
    pub subsumed: usize,
    /// Solver calls of the safety test.
    pub calls_safety: usize,
    /// Solver calls of the fixpoint test.
    pub calls_fixpoint: usize,
    /// Solver calls checking new cubes for satisfiability.
    pub calls_sat: usize,
    /// Traces found spurious on replay.
    pub spurious: usize,
    /// Time in the safety test.
    pub t_safety: Duration,
    /// Time in the fixpoint test.
    pub t_fixpoint: Duration,
    /// Time computing pre-images.
    pub t_pre: Duration,
    /// Largest number of index variables in a cube.
    pub max_vars: usize,
    /// Cubes replaced by approximations (BRAB).
    pub approximated: usize,
    /// Searches restarted after an approximation was refuted.
    pub restarts: usize,
    /// Refinements of spurious abstract paths (lazy abstraction).
    pub refinements: usize,
    /// Solver calls made while interpolating (lazy abstraction).
    pub calls_itp: usize,
}

impl Stats {
    /// Adds the counters and timers of an earlier attempt.
    pub fn absorb(&mut self, o: &Stats) {
        self.nodes += o.nodes;
        self.expanded += o.expanded;
        self.covered += o.covered;
        self.deleted += o.deleted;
        self.subsumed += o.subsumed;
        self.calls_safety += o.calls_safety;
        self.calls_fixpoint += o.calls_fixpoint;
        self.calls_sat += o.calls_sat;
        self.spurious += o.spurious;
        self.t_safety += o.t_safety;
        self.t_fixpoint += o.t_fixpoint;
        self.t_pre += o.t_pre;
        self.max_vars = self.max_vars.max(o.max_vars);
        self.approximated += o.approximated;
        self.restarts += o.restarts;
        self.refinements += o.refinements;
        self.calls_itp += o.calls_itp;
    }

    /// Total solver calls.
    pub fn solver_calls(&self) -> usize {
        self.calls_safety + self.calls_fixpoint + self.calls_sat + self.calls_itp
    }
}
