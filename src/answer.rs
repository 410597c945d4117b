//! What engines answer, and the answer as checked: proofs (invariants as
//! cubes with discharging hints), counterexamples (abstract traces of
//! backward search, their concrete replays, executions of forward
//! execution), statistics, verdicts. These types are all that engines,
//! certification and reports share.

use crate::logic::Term;
use crate::system::cube::Cube;
use std::time::Duration;

/// An engine's answer before it is checked.
#[derive(Clone, Debug)]
pub enum Answer {
    /// No unsafe state is reachable; the proof (to be certified).
    Safe(Proof),
    /// An unsafe state is reachable: the counterexample, already replayed
    /// by the checking service (unless checking is off).
    Unsafe(Counterexample),
    /// Neither could be established; why.
    Unknown(String),
}

/// A counterexample as an engine found it, with its replay.
#[derive(Clone, Debug)]
pub enum Counterexample {
    /// A path of cubes from backward search or lazy abstraction, and the
    /// concrete trace its replay produced (`None`: replay skipped).
    Trace(AbstractTrace, Option<ConcreteTrace>),
    /// A concrete execution of forward execution, and its replay by the
    /// independent evaluator (`None`: replay skipped).
    Execution(Execution, Option<Replayed>),
}

/// What an engine run ends with: its answer, its statistics and its
/// remarks for the user.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The answer.
    pub answer: Answer,
    /// Counters and timers of the run.
    pub stats: Stats,
    /// Remarks for the user (spurious traces, restarts, what was tried).
    pub notes: Vec<String>,
    /// The search graph, when the settings ask for it (`--dot`).
    pub graph: Option<SearchGraph>,
}

impl Outcome {
    /// An outcome without statistics or notes.
    pub fn of(answer: Answer) -> Outcome {
        Outcome::new(answer, Stats::default(), vec![])
    }
    /// An outcome without a search graph.
    pub fn new(answer: Answer, stats: Stats, notes: Vec<String>) -> Outcome {
        Outcome { answer, stats, notes, graph: None }
    }
    /// Whether the answer is SAFE or UNSAFE.
    pub fn decided(&self) -> bool {
        !matches!(self.answer, Answer::Unknown(_))
    }
}

/// How a pre-image cube was obtained: which transition fired with which
/// processes, and where the successor's variables went.
#[derive(Clone, Debug)]
pub struct Edge {
    /// The transition (position in [`System::transitions`]).
    pub transition: usize,
    /// The parameters' processes, as variables of the pre-image cube.
    pub params: Vec<Term>,
    /// The successor cube's variables, as variables of the pre-image cube.
    pub succ_vars: Vec<Term>,
}

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
    pub scalars: Vec<(Term, i64)>,
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
    /// Whether the search established the invariant's inductiveness
    /// itself, with its own solver (backward reachability's fixpoint).
    /// Such a proof is answered SAFE, marked uncertified, when the other
    /// solver leaves an obligation unknown; any other proof is trusted only
    /// certified.
    pub self_checked: bool,
}

/// How one pre-image cube of an invariant cube was discharged.
#[derive(Clone, Debug)]
pub struct Hint {
    /// The transition and variable correspondence of the pre-image.
    pub edge: Edge,
    /// Instances of invariant cubes implying the pre-image's negation:
    /// (invariant cube, images of its variables among the pre-image's variables).
    pub instances: Vec<(usize, Vec<Term>)>,
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
    /// Fixpoint tests answered "not covered" by a model built without the
    /// solver (see `reach::uncovered`).
    pub uncovered_models: usize,
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
    /// Refinements of spurious abstract paths (lazy abstraction), or of
    /// IC3/PDR's abstraction (`--pdr-abstraction`).
    pub refinements: usize,
    /// Solver calls made while interpolating (lazy abstraction).
    pub calls_itp: usize,
    /// Cubes interpolated by plain projection that case splits would have
    /// split (lazy abstraction): evidence that case splits may help.
    pub splittable: usize,
    /// Frames opened (IC3/PDR).
    pub frames: usize,
    /// Lemmas learnt (IC3/PDR).
    pub lemmas: usize,
    /// Proof obligations created (IC3/PDR).
    pub obligations: usize,
    /// Counterexamples to generalisation blocked (IC3/PDR).
    pub ctgs: usize,
    /// Solver calls of IC3/PDR's queries.
    pub calls_pdr: usize,
    /// Time in IC3/PDR's solver queries.
    pub t_solver: Duration,
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
        self.uncovered_models += o.uncovered_models;
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
        self.splittable += o.splittable;
        self.frames = self.frames.max(o.frames);
        self.lemmas += o.lemmas;
        self.obligations += o.obligations;
        self.ctgs += o.ctgs;
        self.calls_pdr += o.calls_pdr;
        self.t_solver += o.t_solver;
    }

    /// Total solver calls.
    pub fn solver_calls(&self) -> usize {
        self.calls_safety + self.calls_fixpoint + self.calls_sat + self.calls_itp + self.calls_pdr
    }
}

/// A concrete counterexample: process count, the states and the steps.
#[derive(Clone, Debug)]
pub struct ConcreteTrace {
    /// The number of processes of the instance (named 0..n-1 ... printed as #1..#n).
    pub procs: usize,
    /// The states, from an initial one to an unsafe one: for each state
    /// variable, its value (arrays: one value per process or tuple).
    pub states: Vec<Vec<Value>>,
    /// The steps: transition index and its parameters' processes.
    pub steps: Vec<(usize, Vec<usize>)>,
    /// The nondeterministic values each step chose (the transition's
    /// `values`, in order; empty where the replay has none).
    pub values: Vec<Vec<Term>>,
}

/// The value of a state variable in a concrete state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A scalar's value.
    Scalar(Term),
    /// An array's values, per index tuple (in lexicographic order of processes).
    Array(Vec<(Vec<usize>, Term)>),
}

/// The outcome of a successful replay.
#[derive(Clone, Debug)]
pub struct Replayed {
    /// Steps replayed.
    pub steps: u64,
    /// Of those, steps replayed in closed form (self-loop repetitions).
    pub accelerated: u64,
    /// The final value of every scalar state variable and rigid constant.
    pub scalars: Vec<(Term, i64)>,
    /// Array cells read by the last steps and the unsafe cube: array, index, final value.
    pub reads: Vec<(Term, Vec<i64>, i64)>,
}

/// A search as a graph, for drawing (`--dot`): nodes labelled with their
/// cubes, pre-image edges labelled with transitions, covering edges.
#[derive(Clone, Debug, Default)]
pub struct SearchGraph {
    /// The nodes: their text and what became of them.
    pub nodes: Vec<GraphNode>,
    /// The edges between nodes (by position in `nodes`).
    pub edges: Vec<GraphEdge>,
}

/// A node of a search graph.
#[derive(Clone, Debug)]
pub struct GraphNode {
    /// Its label: a cube, or a disjunction of cubes.
    pub cubes: Vec<Cube>,
    /// What became of it.
    pub kind: NodeKind,
}

/// What became of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// A root: an unsafe cube (or a suggested invariant).
    Root,
    /// Expanded and kept.
    Visited,
    /// Covered by others.
    Covered,
    /// Dropped (subsumed by a newer node, or discarded).
    Deleted,
    /// Never reached (the search ended first).
    Pending,
}

/// An edge of a search graph.
#[derive(Clone, Debug)]
pub struct GraphEdge {
    /// From this node (a successor cube, or a covered node).
    pub from: usize,
    /// To this node (its pre-image, or its coverer).
    pub to: usize,
    /// A pre-image under a transition (its name), or a covering.
    pub kind: EdgeKind,
}

/// The kind of an edge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    /// The target is a pre-image of the source under this transition.
    Pre(String),
    /// The source is covered by (an instance of) the target.
    Covers,
}

/// How the error of a replay that ran out of time starts.
pub const REPLAY_TIMED_OUT: &str = "replay timed out";

/// The checking service engines hand their candidate counterexamples to
/// before answering UNSAFE: it replays them on the system the front end
/// produced, independently of the engine ([`crate::certify::service`]).
pub trait Replayer {
    /// Replays a path of cubes on a concrete instance: `Ok(Some(trace))`
    /// when it is real, `Ok(None)` when it is spurious, `Err` when it could
    /// not be replayed (why).
    fn replay_trace(&mut self, trace: &AbstractTrace) -> Result<Option<ConcreteTrace>, String>;
    /// Replays an execution step by step by the independent evaluator
    /// (`Ok(None)` when checking is off; `Err`: why it does not replay).
    fn replay_execution(&mut self, execution: &Execution, deadline: Option<std::time::Instant>) -> Result<Option<Replayed>, String>;
    /// Transitions standing for several iterations of the system's own
    /// (accelerated companions, see [`crate::transform::companions`]),
    /// numbered after the system's: traces may step through them, and the
    /// replay checks each such step as the iterations it stands for.
    fn extend(&mut self, companions: Vec<crate::system::Transition>);
}

/// The verdict of a check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No unsafe state is reachable.
    Safe,
    /// An unsafe state is reachable.
    Unsafe,
    /// Undecided; why.
    Unknown(String),
}

impl Verdict {
    /// The process exit code: 0 SAFE, 1 UNSAFE, 3 UNKNOWN.
    pub fn exit_code(&self) -> i32 {
        match self {
            Verdict::Safe => 0,
            Verdict::Unsafe => 1,
            Verdict::Unknown(_) => 3,
        }
    }
    /// The verdict's word: `SAFE`, `UNSAFE` or `UNKNOWN`.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Safe => "SAFE",
            Verdict::Unsafe => "UNSAFE",
            Verdict::Unknown(_) => "UNKNOWN",
        }
    }
}

/// How an answer was checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Certification {
    /// Checked and confirmed (by which solver / by replay).
    Certified(String),
    /// Not confirmed: which obligation failed or stayed unknown.
    Uncertified(String),
    /// Checking was switched off.
    Skipped,
}

/// Everything a check produced: the answer as checked.
#[derive(Clone, Debug)]
pub struct CheckResult {
    /// The verdict.
    pub verdict: Verdict,
    /// How it was checked.
    pub certification: Certification,
    /// Search statistics.
    pub stats: Stats,
    /// The invariant, for SAFE.
    pub proof: Option<Proof>,
    /// The replayed trace, for UNSAFE found by a search over cubes.
    pub trace: Option<ConcreteTrace>,
    /// The concrete execution, for UNSAFE found by forward execution.
    pub execution: Option<Execution>,
    /// Its replay by the independent checker (absent with certification off).
    pub replayed: Option<Replayed>,
    /// Obligations checked (for SAFE).
    pub obligations: usize,
    /// Total time.
    pub time: Duration,
    /// Time spent checking the answer.
    pub certify_time: Duration,
    /// Remarks for the user (spurious traces, replay problems).
    pub notes: Vec<String>,
    /// The engine that gave the answer (`bwd`, `lazy`, `houdini`, `run`).
    pub engine: &'static str,
    /// The solver the search used (answers are checked with the other one).
    pub solver: crate::smt::Backend,
    /// The search graph of the answering engine, when asked for (`--dot`).
    pub graph: Option<SearchGraph>,
}
