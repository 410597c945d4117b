//! Search engines, one folder each, behind one seam: an [`Engine`] takes a
//! [`Task`] (the system as the front end produced it and the part of it
//! the property depends on), a [`Budget`] and the checking service
//! ([`Replayer`]) for candidate counterexamples, and ends with one
//! [`Outcome`]. Engines own their helpers (BRAB's finite instances under
//! backward search, symbolic sizes under lazy abstraction, templates under
//! candidate invariants); they never parse and reach solvers only through
//! [`crate::smt`]. Adding an engine is a folder, an `impl Engine` and a
//! line in [`build`] (and in the portfolio where it should run).

pub mod bwd;
pub mod houdini;
pub mod lazy;
pub mod pdr;
pub mod run;

use crate::answer::{Outcome, Replayer};
use crate::reach::interpolate::Method;
use crate::smt::Backend;
use crate::system::System;
use std::time::{Duration, Instant};

/// A search engine.
pub trait Engine {
    /// The engine's short name in notes, statistics and reports.
    fn name(&self) -> &'static str;
    /// The solver the engine searches with (answers are checked with the
    /// other one).
    fn backend(&self) -> Backend;
    /// Searches the task within the budget. Candidate counterexamples are
    /// replayed through `replayer` before they are answered; proofs are
    /// certified by the caller.
    fn solve(&mut self, task: &Task, budget: &Budget, replayer: &mut dyn Replayer) -> Outcome;
}

/// What an engine works on.
pub struct Task<'a> {
    /// The system as the front end produced it: answers are checked on it.
    pub system: &'a System,
    /// Its cone of influence of the property: what engines search.
    pub sliced: &'a System,
    /// Whether the system is a program (integer indices, transitions
    /// without process parameters) rather than a protocol.
    pub program: bool,
}

impl<'a> Task<'a> {
    /// A task on `system`, searching `sliced`.
    pub fn new(system: &'a System, sliced: &'a System) -> Task<'a> {
        let program = system.index_kind() != crate::system::IndexKind::Order && system.transitions.iter().all(|t| t.params.is_empty());
        Task { system, sliced, program }
    }
}

/// The limits of one engine run.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// When the run must end (UNKNOWN, timeout).
    pub deadline: Option<Instant>,
    /// The number of search nodes the run may create.
    pub max_nodes: Option<usize>,
}

impl Budget {
    /// A budget of `timeout` from now.
    pub fn new(timeout: Option<Duration>, max_nodes: Option<usize>) -> Budget {
        Budget { deadline: timeout.map(|t| Instant::now() + t), max_nodes }
    }
    /// The time left (`None`: unlimited).
    pub fn left(&self) -> Option<Duration> {
        self.deadline.map(|d| d.saturating_duration_since(Instant::now()))
    }
}

/// Which engine runs: one of them, or the portfolio's choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Choice {
    /// Chosen per input: backward reachability for protocols; for programs
    /// (integer indices, no process parameters) the portfolio of
    /// [`crate::portfolio`]; the choice is printed.
    Auto,
    /// Backward reachability (MCMT, Cubicle), with BRAB approximation.
    Bwd,
    /// Lazy abstraction with interpolants and term abstraction (SAFARI).
    Lazy,
    /// Candidate invariants from templates, tested on executions and kept
    /// while inductive (Houdini; programs with integer indices).
    Houdini,
    /// Forward concrete execution with seeded value choices (programs with
    /// integer indices; finds errors, never proves safety).
    Run,
    /// IC3/PDR with quantified lemmas (Spacer, Quic3).
    Pdr,
}

/// Per-run step limit of the forward engine when none is given.
pub const DEFAULT_MAX_STEPS: u64 = 1 << 34;

/// The engines' settings (each engine reads what concerns it).
#[derive(Clone, Debug)]
pub struct Settings {
    /// How lazy abstraction computes interpolants (`None`: projection, and
    /// in the portfolio for programs also phases with case splits).
    pub interpolation: Option<Method>,
    /// Terms lazy abstraction should abstract besides the automatic ones
    /// (names of state variables or constants).
    pub abstract_terms: Vec<String>,
    /// Forward engine: the largest step limit of one run.
    pub max_steps: u64,
    /// Forward engine: the seed of the first run.
    pub seed: u64,
    /// Exploration order of backward search.
    pub order: bwd::Order,
    /// Processes a cube may name.
    pub max_procs: usize,
    /// The search's solver (answers are checked with the other one);
    /// `None`: cvc5 for backward reachability, z3 for the others.
    pub backend: Option<Backend>,
    /// Processes of the finite instance used to approximate cubes (BRAB);
    /// 0 for plain backward search.
    pub brab: usize,
    /// Whether pre-images naming more processes wait until the queue is empty.
    pub postpone: bool,
    /// Whether backward search also runs counter loops over processes at
    /// once (accelerated companions).
    pub accelerate: bool,
    /// IC3/PDR: how quantified lemmas enter queries.
    pub pdr_lemmas: pdr::lemma::Lemmas,
    /// IC3/PDR: what the frames start with.
    pub pdr_seeds: pdr::Seeds,
    /// IC3/PDR: the abstraction the search refines, if any.
    pub pdr_abstraction: pdr::Abstracting,
    /// Whether engines hand back their search graph (`--dot`).
    pub graph: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            interpolation: None,
            abstract_terms: vec![],
            max_steps: DEFAULT_MAX_STEPS,
            seed: 0,
            order: bwd::Order::Bfs,
            max_procs: 8,
            backend: None,
            brab: 2,
            postpone: true,
            accelerate: true,
            pdr_lemmas: pdr::lemma::Lemmas::Instances,
            pdr_seeds: pdr::Seeds::Solved,
            pdr_abstraction: pdr::Abstracting::None,
            graph: false,
        }
    }
}

impl Settings {
    /// The solver of an engine: the one asked for, else cvc5 for backward
    /// reachability (so that z3, faster on many small checks, certifies its
    /// many obligations) and z3 for the others.
    pub fn backend_or(&self, default: Backend) -> Backend {
        self.backend.unwrap_or(default)
    }
}

/// The engine a choice names (`None` for [`Choice::Auto`], which the
/// portfolio resolves).
pub fn build(choice: Choice, settings: &Settings) -> Option<Box<dyn Engine>> {
    let s = settings.clone();
    Some(match choice {
        Choice::Auto => return None,
        Choice::Bwd => Box::new(bwd::Backward::new(s)),
        Choice::Lazy => Box::new(lazy::LazyAbstraction::new(s)),
        Choice::Houdini => Box::new(houdini::CandidateInvariants::new(s)),
        Choice::Run => Box::new(run::ForwardExecution::new(s)),
        Choice::Pdr => Box::new(pdr::Pdr::new(s)),
    })
}

/// Whether an engine can run on the task; else why not (a usage error).
pub fn applicable(choice: Choice, task: &Task) -> Result<(), String> {
    match choice {
        Choice::Houdini | Choice::Run if task.system.index_kind() == crate::system::IndexKind::Order => Err(format!(
            "--engine {} needs integer indices (a program); this system's processes are only ordered: use bwd or auto",
            if choice == Choice::Houdini { "houdini" } else { "run" }
        )),
        _ => Ok(()),
    }
}

/// Candidate traces of a search over cubes, checked through the replay
/// service: the concrete trace of the last real one, and a note on each
/// one set aside.
pub(crate) struct TraceCheck<'r> {
    replayer: &'r mut dyn Replayer,
    /// The concrete trace of the last candidate that replayed.
    pub real: Option<crate::answer::ConcreteTrace>,
    /// Notes on the candidates set aside.
    pub notes: Vec<String>,
}

impl<'r> TraceCheck<'r> {
    /// Checks candidates through `replayer`.
    pub fn new(replayer: &'r mut dyn Replayer) -> Self {
        TraceCheck { replayer, real: None, notes: vec![] }
    }

    /// Whether the candidate trace is real (then its concrete trace is kept).
    pub fn real(&mut self, sys: &System, trace: &crate::answer::AbstractTrace) -> bool {
        match self.replayer.replay_trace(trace) {
            Ok(Some(ct)) => {
                self.real = Some(ct);
                true
            }
            Ok(None) => {
                for (k, c) in trace.cubes.iter().enumerate() {
                    let step = trace.edges.get(k).map(|e| {
                        format!(" --{}({:?}) succ {:?}-->", sys.transitions.get(e.transition).map_or("?", |t| t.name.as_str()), e.params, e.succ_vars)
                    });
                    tracing::debug!("spurious trace, cube {k}: {c}{}", step.unwrap_or_default());
                }
                self.notes.push(format!("spurious trace of length {} set aside (universal guards do not hold on replay)", trace.edges.len()));
                false
            }
            Err(e) => {
                self.notes.push(format!("trace of length {} not replayed: {e}", trace.edges.len()));
                false
            }
        }
    }

    /// The service, for other checks.
    pub fn replayer(&mut self) -> &mut dyn Replayer {
        self.replayer
    }
}

/// Why the run was asked to stop (0: it was not; see [`Stop`]): engines end
/// at their next limit check as if their time were up, and the run answers
/// UNKNOWN with the reason and its statistics.
static STOP: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Why a run is asked to stop before its time is up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The user asked (SIGINT, SIGTERM).
    Interrupted = 1,
    /// The memory limit was reached.
    Memory = 2,
}

impl Stop {
    /// The reason of the UNKNOWN answer.
    pub fn reason(self) -> &'static str {
        match self {
            Stop::Interrupted => "interrupted",
            Stop::Memory => "memory",
        }
    }
}

/// Asks every engine to stop (async-signal-safe: one atomic store); the
/// first reason given stays.
pub fn stop(why: Stop) {
    let _ = STOP.compare_exchange(0, why as u8, std::sync::atomic::Ordering::Relaxed, std::sync::atomic::Ordering::Relaxed);
}

/// Asks every engine to stop because the user asked.
pub fn interrupt() {
    stop(Stop::Interrupted);
}

/// Why the run was asked to stop, if it was.
pub fn stopped() -> Option<Stop> {
    match STOP.load(std::sync::atomic::Ordering::Relaxed) {
        1 => Some(Stop::Interrupted),
        2 => Some(Stop::Memory),
        _ => None,
    }
}

/// Whether the run was asked to stop.
pub fn interrupted() -> bool {
    stopped().is_some()
}

/// Progress lines of a long search, at most one a second, at `info` level
/// (shown with `-v`): what the search is doing, its counters, its time.
pub struct Progress {
    engine: &'static str,
    start: Instant,
    last: Instant,
}

impl Progress {
    /// Progress of a search by `engine`, starting now.
    pub fn new(engine: &'static str) -> Progress {
        let now = Instant::now();
        Progress { engine, start: now, last: now }
    }

    /// Reports `what()` when a second has passed since the last report.
    pub fn tick(&mut self, what: impl FnOnce() -> String) {
        if self.last.elapsed() >= Duration::from_secs(1) {
            self.last = Instant::now();
            tracing::info!("{} {:.1}s: {}", self.engine, self.start.elapsed().as_secs_f64(), what());
        }
    }
}
