//! Backward reachability (MCMT, Cubicle): the search over cubes
//! ([`search`]), its approximation by the reachable states of a finite
//! instance ([`brab`]), and the engine that runs them: accelerated counter
//! loops added, the oracle explored (its own paths to unsafe states are
//! candidate traces), then searches restarted until one ends with an
//! answer — after a refuted approximation (banned; the instance grown when
//! many are refuted), a refuted suggested invariant (dropped), or a
//! spurious trace under approximated universal guards (exact ones next).

pub mod brab;
pub mod search;

pub use search::{Ended, Options, Order, Postpone, Search};

use super::{Budget, Engine, Settings, Task, TraceCheck};
use crate::answer::{AbstractTrace, Answer, Counterexample, Outcome, Replayer, Stats};
use crate::smt::Backend;
use crate::system::System;
use brab::Oracle;
use std::time::Instant;

/// States of a finite instance explored at most for the oracle: enough
/// for the complete 2-process instance of a large protocol (FLASH's have
/// about 165,000 and 181,000 states), whose samples let wrong
/// approximations through.
const ORACLE_CAP: usize = 250_000;

/// States of the first exploration for the oracle: an incomplete one is
/// explored further, up to [`ORACLE_CAP`], only when the search runs long
/// or an approximation it allowed is refuted (see [`Oracle::deepen`]), so a
/// large instance whose sample already guides the search well is not
/// paid for in full. Not for systems with growing numbers: their bounded
/// instance is explored completely or not at all, and a sample of the
/// unbounded one is a poor oracle, so they get [`AT_ONCE`] at once.
const ORACLE_FIRST: usize = 20_000;

/// States of an exploration done at once, not in steps: an instance with
/// growing numbers, and a larger instance the engine grows to.
const AT_ONCE: usize = 100_000;

/// The states of the first exploration of `sys`'s instance for the oracle.
fn first_cap(sys: &System) -> usize {
    if brab::instance::growing_numbers(sys).is_empty() {
        ORACLE_FIRST
    } else {
        AT_ONCE
    }
}

/// How many times as many states as a small instance has its next larger
/// one is explored for a bug (see [`Restarts::glance`]).
const GLANCE_STATES: usize = 20;

/// The most states of an instance whose next larger one is glanced at.
const GLANCE_BELOW: usize = 2000;

/// Refuted approximations after which the instance grows by a process.
const GROW_AFTER: usize = 8;

/// The backward reachability engine.
pub struct Backward {
    settings: Settings,
}

impl Backward {
    /// The engine with these settings.
    pub fn new(settings: Settings) -> Self {
        Backward { settings }
    }
}

impl Engine for Backward {
    fn name(&self) -> &'static str {
        "bwd"
    }

    fn backend(&self) -> Backend {
        self.settings.backend_or(Backend::Cvc5)
    }

    fn solve(&mut self, task: &Task, budget: &Budget, replayer: &mut dyn Replayer) -> Outcome {
        let sys = task.sliced;
        let mut notes = vec![];
        let mut check = TraceCheck::new(replayer);
        let accelerated = self.accelerate(task, &mut check, &mut notes);
        let searched = accelerated.as_ref().unwrap_or(sys);
        let mut oracle = None;
        if self.settings.brab > 0 {
            match explore(sys, self.settings.brab, budget.deadline, &mut check, &mut notes) {
                Explored::Trace(t) => return found(t, &mut check, notes),
                Explored::Oracle(o) => oracle = o.map(|o| *o),
            }
        }
        let mut run =
            Restarts { sys, searched, settings: &self.settings, budget, backend: self.backend(), stats: Stats::default(), notes: vec![], graph: None };
        let (answer, dropped) = run.run(oracle, &mut check);
        notes.append(&mut check.notes);
        notes.append(&mut run.notes);
        if !sys.hints.is_empty() {
            notes.push(hint_note(sys, dropped, &answer));
        }
        let answer = match answer {
            Answer::Unsafe(Counterexample::Trace(t, _)) => Answer::Unsafe(Counterexample::Trace(t, check.real.take())),
            a => a,
        };
        Outcome { graph: run.graph, ..Outcome::new(answer, run.stats, notes) }
    }
}

/// The note on the suggested invariants: how many were kept.
fn hint_note(sys: &System, dropped: usize, answer: &Answer) -> String {
    let kept = sys.hints.len() - dropped;
    match answer {
        Answer::Safe(_) => format!("{kept} of {} suggested invariants proven and used", sys.hints.len()),
        _ => format!("{kept} of {} suggested invariants not refuted (nor proven: no answer)", sys.hints.len()),
    }
}

/// An answer UNSAFE with a trace the service replayed.
fn found(t: AbstractTrace, check: &mut TraceCheck, notes: Vec<String>) -> Outcome {
    Outcome::new(Answer::Unsafe(Counterexample::Trace(t, check.real.take())), Stats::default(), notes)
}

impl Backward {
    /// The sliced system with accelerated companions of its counter loops
    /// (they come last: proofs name the original transitions by position),
    /// declared to the replay service as companions of the whole system's
    /// loops; `None` without any.
    fn accelerate(&self, task: &Task, check: &mut TraceCheck, notes: &mut Vec<String>) -> Option<System> {
        use crate::transform::companions::companions;
        if !self.settings.accelerate {
            return None;
        }
        let comps = companions(task.sliced);
        if comps.is_empty() {
            return None;
        }
        notes.push(format!("accelerated loops: {}", comps.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ")));
        let of_whole = companions(task.system);
        check.replayer().extend(comps.iter().map_while(|c| of_whole.iter().find(|m| m.name == c.name).cloned()).collect());
        let mut a = task.sliced.clone();
        a.transitions.extend(comps);
        Some(a)
    }
}

/// What exploring the oracle's instance gave.
enum Explored<'a> {
    /// A path of the instance to an unsafe state that replayed.
    Trace(AbstractTrace),
    /// The oracle (none when the system has no finite instance).
    Oracle(Option<Box<Oracle<'a>>>),
}

/// Explores the `procs`-process instance for the oracle. Its path to an
/// unsafe state, if it has one, is a candidate trace (the instance is never
/// trusted). Exploring ends at `deadline` (the instance then cut short).
/// When the exploration is cut short and the system has data that decide
/// no step, the oracle is its control part's instance (see
/// [`Oracle::abstracting_data`]), and candidates never name data.
fn explore<'a>(sys: &'a System, procs: usize, deadline: Option<Instant>, check: &mut TraceCheck, notes: &mut Vec<String>) -> Explored<'a> {
    let t0 = Instant::now();
    let mut oracle = match Oracle::exploring(sys, procs, first_cap(sys), true, deadline) {
        Ok(o) => o,
        Err(why) => {
            notes.push(format!("plain backward search (no finite instance: {why})"));
            return Explored::Oracle(None);
        }
    };
    if let Some(t) = oracle.unsafe_trace.take() {
        match check.replayer().replay_trace(&t) {
            Ok(Some(ct)) => {
                notes.push(format!("the {procs}-process instance reaches an unsafe state in {} steps; its path replayed", t.edges.len()));
                check.real = Some(ct);
                return Explored::Trace(t);
            }
            Ok(None) => notes.push(format!("the {procs}-process instance reaches an unsafe state, but its path did not replay: set aside")),
            Err(e) => notes.push(format!("the {procs}-process instance reaches an unsafe state; its path not replayed: {e}")),
        }
        // the exploration stopped there: the whole of it for the oracle
        match Oracle::new(sys, procs, first_cap(sys), deadline) {
            Ok(o) => oracle = o,
            Err(_) => return Explored::Oracle(None),
        }
    }
    // an instance too large to explore may have a control part that is not
    if !oracle.complete {
        if let Some(Ok(control)) = Oracle::abstracting_data(sys, procs, first_cap(sys), false, deadline) {
            notes.push(format!(
                "the {procs}-process instance exploration cut short at {} states: its control part (data variables left out, as they decide no step) for the oracle",
                oracle.states()
            ));
            oracle = control;
        }
    }
    let bounded = oracle.slack().map_or(String::new(), |s| format!(", growing numbers at most {s} beyond the system's literals"));
    notes.push(format!(
        "approximating with the {} reachable states of the {procs}-process instance{bounded}{} (explored in {:.2}s)",
        oracle.states(),
        if oracle.complete { "" } else { " (exploration cut short)" },
        t0.elapsed().as_secs_f64()
    ));
    Explored::Oracle(Some(Box::new(oracle.deepening_up_to(ORACLE_CAP))))
}

/// Backward searches restarted until one ends with an answer.
struct Restarts<'a, 's> {
    sys: &'a System,
    searched: &'a System,
    settings: &'s Settings,
    budget: &'s Budget,
    backend: Backend,
    /// Statistics over every search.
    stats: Stats,
    /// Notes on the restarts.
    notes: Vec<String>,
    /// The last search's graph, when the settings ask for it.
    graph: Option<crate::answer::SearchGraph>,
}

impl<'a> Restarts<'a, '_> {
    /// The searches' options, the limits being what is left of the run's.
    fn options(&self, exact: bool, dropped_hints: &[usize]) -> Options {
        Options {
            order: self.settings.order,
            timeout: self.budget.left(),
            max_nodes: self.budget.max_nodes.map(|n| n.saturating_sub(self.stats.nodes)),
            max_procs: self.settings.max_procs,
            backend: self.backend,
            postpone: if self.settings.postpone { Postpone::MoreProcs } else { Postpone::Never },
            dropped_hints: dropped_hints.to_vec(),
            exact,
            ..Options::default()
        }
    }

    /// Runs searches until one answers; the answer and the number of
    /// suggested invariants dropped on the way.
    fn run(&mut self, mut oracle: Option<Oracle<'a>>, check: &mut TraceCheck) -> (Answer, usize) {
        let start = Instant::now();
        let (mut exact, mut dropped_hints) = (false, vec![]);
        let (mut refuted_here, mut cannot_grow, mut glanced) = (0, false, false);
        // one solver for all the searches (each query is in a scope of its own)
        let mut solver = None;
        loop {
            let mut search = Search::new(self.searched, self.options(exact, &dropped_hints)).with_solver(solver.take());
            if let Some(or) = oracle.take() {
                search = search.with_oracle(or);
            }
            let sys = self.searched;
            let ended = search.run(&mut |t: &AbstractTrace| check.real(sys, t));
            oracle = search.take_oracle();
            if let Some(or) = oracle.as_mut() {
                self.notes.append(&mut or.notes);
            }
            solver = search.take_solver();
            self.stats.absorb(&search.stats);
            if self.settings.graph {
                self.graph = Some(search.graph());
            }
            let answer = match ended {
                Ended::Answer(a) => {
                    if let Some(or) = oracle.as_ref().filter(|o| o.learnt() > 0) {
                        self.notes.push(format!("the oracle learnt {} reachable states around walks into refuted approximations", or.learnt()));
                    }
                    return (a, dropped_hints.len());
                }
                Ended::Refuted(c) => {
                    let Some(or) = oracle.as_mut() else { return (Answer::Unknown("approximation refuted without an oracle".into()), dropped_hints.len()) };
                    tracing::debug!("refuted after {:.2}s ({} nodes): {c}", start.elapsed().as_secs_f64(), search.stats.nodes);
                    or.ban(&c);
                    refuted_here += 1;
                    if !glanced {
                        glanced = true;
                        if let Some(t) = self.glance(or, check) {
                            return (Answer::Unsafe(Counterexample::Trace(t, None)), dropped_hints.len());
                        }
                    }
                    if or.can_deepen() {
                        or.deepen();
                        None
                    } else if refuted_here >= GROW_AFTER && or.procs() < 4 && !cannot_grow {
                        refuted_here = 0;
                        match self.grow(or, check) {
                            Growth::Trace(t) => Some(Answer::Unsafe(Counterexample::Trace(t, None))),
                            Growth::Grown => None,
                            Growth::Cannot => {
                                cannot_grow = true;
                                None
                            }
                        }
                    } else {
                        None
                    }
                }
                Ended::Inexact => {
                    self.notes.push(format!(
                        "a trace was spurious because universal guards were only checked on the processes it names (after {:.2}s): searched again with exact universal guards",
                        start.elapsed().as_secs_f64()
                    ));
                    exact = true;
                    None
                }
                Ended::Seeded => None,
                Ended::RefutedHint(h) => {
                    self.notes.push(format!("suggested invariant {} is reachable: dropped", h + 1));
                    dropped_hints.push(h);
                    None
                }
            };
            if let Some(a) = answer {
                return (a, dropped_hints.len());
            }
            self.stats.restarts += 1;
        }
    }

    /// A glance at the next larger instance after the first refuted
    /// approximation, when the oracle's instance is small and complete
    /// (refutations say it may be too small): explored up to
    /// [`GLANCE_STATES`] times as many states, its path to an unsafe state
    /// if that replays (a bug may need one process more; a note says so).
    /// Bounded in states, not time, so that the same run finds the same
    /// bug; a search that refutes nothing never pays for it.
    fn glance(&mut self, or: &Oracle, check: &mut TraceCheck) -> Option<AbstractTrace> {
        if !or.complete || or.states() > GLANCE_BELOW {
            return None;
        }
        let procs = or.procs() + 1;
        let mut bigger = Oracle::exploring(self.sys, procs, GLANCE_STATES * or.states().max(100), true, self.budget.deadline).ok()?;
        let t = bigger.unsafe_trace.take()?;
        let ct = check.replayer().replay_trace(&t).ok()??;
        self.notes.push(format!("the {procs}-process instance reaches an unsafe state in {} steps; its path replayed", t.edges.len()));
        check.real = Some(ct);
        Some(t)
    }

    /// Explores the `procs`-process instance anew (at most `cap` states):
    /// `Err` with its path to an unsafe state when that replays (a
    /// candidate trace like the search's), else the oracle, if any.
    /// The oracle is the same kind as `like` (data abstracted or not).
    fn explore_again(&mut self, like: &Oracle<'a>, procs: usize, cap: usize, check: &mut TraceCheck) -> Result<Option<Oracle<'a>>, AbstractTrace> {
        let deadline = self.budget.deadline;
        let Ok(mut o) = like.alike(self.sys, procs, cap, true, deadline) else { return Ok(None) };
        match o.unsafe_trace.take() {
            Some(t) if check.real(self.sys, &t) => Err(t),
            // the exploration stopped there: the whole of it for the oracle
            Some(_) => Ok(like.alike(self.sys, procs, cap, false, deadline).ok()),
            None => Ok(Some(o)),
        }
    }

    /// Grows the oracle's instance by a process after many refuted
    /// approximations (the instance is too small to tell).
    fn grow(&mut self, or: &mut Oracle<'a>, check: &mut TraceCheck) -> Growth {
        let t0 = Instant::now();
        let n = GROW_AFTER;
        let procs = or.procs() + 1;
        let explored = match self.explore_again(or, procs, AT_ONCE, check) {
            Err(t) => {
                self.notes.push(format!("after {n} refuted approximations: the {procs}-process instance reaches an unsafe state; its path replayed"));
                return Growth::Trace(t);
            }
            Ok(o) => o,
        };
        // only an instance explored completely is a better oracle
        match explored {
            Some(mut bigger) if bigger.complete => {
                bigger.inherit(or);
                self.notes.push(format!(
                    "after {n} refuted approximations: the {}-process instance ({} states, explored in {:.2}s)",
                    bigger.procs(),
                    bigger.states(),
                    t0.elapsed().as_secs_f64()
                ));
                *or = bigger;
                Growth::Grown
            }
            _ => Growth::Cannot,
        }
    }
}

/// What growing the oracle's instance gave.
enum Growth {
    /// The bigger instance reaches an unsafe state by a path that replayed.
    Trace(AbstractTrace),
    /// The oracle is the bigger instance now.
    Grown,
    /// No complete exploration of the bigger instance: the oracle stays.
    Cannot,
}
