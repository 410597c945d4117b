//! The portfolio: which engines run, in which order, with which share of
//! the time — as data ([`Phase`]) — and one loop ([`solve`]) that runs the
//! phases and stops at the first *checked* answer (a SAFE the other solver
//! certified, an UNSAFE replayed). A single engine is a plan of one phase.

use crate::answer::{CheckResult, Outcome, Verdict};
use crate::certify::service::{conclude, Service};
use crate::certify::SafeCertificate;
use crate::engine::{self, Budget, Choice, Settings, Task};
use crate::reach::interpolate::Method;
use std::time::{Duration, Instant};

/// One phase of a plan.
#[derive(Clone, Debug)]
pub struct Phase {
    /// The engine.
    pub engine: Choice,
    /// What the phase changes in the settings.
    pub tweak: Tweak,
    /// Its share of the time.
    pub share: Share,
    /// When it runs.
    pub when: When,
    /// The engine that takes over what is left of the phase's time when
    /// this one gives up for a reason other than a limit.
    pub fallback: Option<Choice>,
}

/// What a phase changes in the engines' settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tweak {
    /// Nothing.
    None,
    /// Lazy abstraction's interpolants split into cases.
    Cases,
    /// Forward execution's seed moved by this much (other runs).
    Reseed(u64),
}

/// A phase's share of the time.
#[derive(Clone, Copy, Debug)]
pub enum Share {
    /// The time limit divided by `of`, at most `cap` (`cap` without a limit).
    Part {
        /// The divisor.
        of: u32,
        /// The most.
        cap: Duration,
    },
    /// The time limit divided by `of`, at least `floor` but at most half of
    /// the limit (`floor` without a limit).
    AtLeast {
        /// The divisor.
        of: u32,
        /// The least.
        floor: Duration,
    },
    /// Half of the time left (`otherwise` without a limit; `None`: unbounded).
    HalfLeft {
        /// The share without a time limit.
        otherwise: Option<Duration>,
    },
    /// All the time left.
    Rest,
}

impl Share {
    /// The phase's time, given the run's limit and what is left of it.
    pub fn time(self, limit: Option<Duration>, left: Option<Duration>) -> Option<Duration> {
        match (self, limit) {
            (Share::Part { of, cap }, Some(t)) => Some((t / of).min(cap)),
            (Share::Part { cap, .. }, None) => Some(cap),
            (Share::AtLeast { of, floor }, Some(t)) => Some((t / of).max(floor).min(t / 2)),
            (Share::AtLeast { floor, .. }, None) => Some(floor),
            (Share::HalfLeft { .. }, Some(_)) => left.map(|l| l / 2),
            (Share::HalfLeft { otherwise }, None) => otherwise,
            (Share::Rest, _) => left,
        }
    }
}

/// When a phase runs.
#[derive(Clone, Copy, Debug)]
pub enum When {
    /// Always.
    Always,
    /// When the user did not choose the interpolation method and phase `k`
    /// met cubes that case splits would split.
    Splittable(usize),
    /// When phase `k` ended at its time limit.
    TimedOut(usize),
    /// When more than this much time is left (always without a limit).
    TimeLeft(Duration),
}

/// The plan for a choice of engine on a task: the program portfolio for
/// `auto` on a program, else the one engine (backward reachability for
/// `auto` on a protocol) with all the time.
pub fn plan(choice: Choice, task: &Task) -> Vec<Phase> {
    let one = |engine| vec![Phase { engine, tweak: Tweak::None, share: Share::Rest, when: When::Always, fallback: None }];
    match choice {
        Choice::Auto if task.program => programs(),
        Choice::Auto => one(Choice::Bwd),
        c => one(c),
    }
}

/// The portfolio for programs: a very short lazy abstraction (most proofs
/// take a few hundredths of a second), with case splits when projection
/// met cubes it would split; candidate invariants (proofs interpolants are
/// slow to find); a glance of forward execution (shallow errors); a short
/// lazy abstraction (and with case splits); a longer forward execution
/// (errors behind long loops); candidate invariants again if they ran out
/// of time; lazy abstraction with half the time left; execution again.
/// Lazy abstraction hands its phase over to backward reachability when it
/// gives up for a reason other than a limit.
pub fn programs() -> Vec<Phase> {
    let ms = Duration::from_millis;
    let secs = Duration::from_secs;
    let phase = |engine, tweak, share, when| Phase { engine, tweak, share, when, fallback: (engine == Choice::Lazy).then_some(Choice::Bwd) };
    vec![
        phase(Choice::Lazy, Tweak::None, Share::Part { of: 40, cap: ms(250) }, When::Always),
        phase(Choice::Lazy, Tweak::Cases, Share::Part { of: 40, cap: ms(250) }, When::Splittable(0)),
        phase(Choice::Houdini, Tweak::None, Share::Part { of: 4, cap: secs(8) }, When::Always),
        phase(Choice::Run, Tweak::None, Share::Part { of: 20, cap: ms(500) }, When::Always),
        phase(Choice::Lazy, Tweak::None, Share::Part { of: 4, cap: secs(2) }, When::Always),
        phase(Choice::Lazy, Tweak::Cases, Share::Part { of: 4, cap: secs(2) }, When::Splittable(4)),
        phase(Choice::Run, Tweak::None, Share::AtLeast { of: 10, floor: secs(3) }, When::Always),
        phase(Choice::Houdini, Tweak::None, Share::HalfLeft { otherwise: Some(secs(30)) }, When::TimedOut(2)),
        phase(Choice::Lazy, Tweak::None, Share::HalfLeft { otherwise: None }, When::Always),
        phase(Choice::Run, Tweak::Reseed(1_000_003), Share::Rest, When::TimeLeft(ms(500))),
    ]
}

/// What a phase ended with.
struct Ran {
    result: CheckResult,
    cert: Option<SafeCertificate>,
    time: Duration,
    splittable: usize,
}

/// The run's limits and checking.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The time limit of the whole run.
    pub timeout: Option<Duration>,
    /// The node limit of each search.
    pub max_nodes: Option<usize>,
    /// Whether answers are checked.
    pub certify: bool,
}

/// Runs the plan's phases until one gives a checked answer; that answer
/// (with a note on the phases before it when there were several), else
/// the last undecided answer of an engine that can prove safety.
pub fn solve(task: &Task, plan: &[Phase], settings: &Settings, limits: Limits) -> (CheckResult, Option<SafeCertificate>) {
    let start = Instant::now();
    let left = || limits.timeout.map(|t| t.saturating_sub(start.elapsed()));
    let mut ran: Vec<Option<Ran>> = vec![];
    let mut last: Option<Ran> = None;
    for (k, phase) in plan.iter().enumerate() {
        if !runs(phase, &ran, settings, left()) {
            ran.push(None);
            continue;
        }
        let time = if plan.len() == 1 { limits.timeout } else { phase.share.time(limits.timeout, left()) };
        let budget = Budget::new(time, limits.max_nodes);
        let mut r = run_phase(task, phase, settings, &budget, limits.certify);
        if matches!(r.result.verdict, Verdict::Safe | Verdict::Unsafe) {
            if plan.len() > 1 {
                r.result.notes.insert(0, note(plan, &ran, k, &r));
            }
            return (r.result, r.cert);
        }
        let proves = phase.engine != Choice::Run;
        ran.push(Some(Ran { result: r.result.clone(), cert: None, time: r.time, splittable: r.splittable }));
        if proves || last.is_none() {
            last = Some(r);
        }
    }
    let r = last.expect("a plan runs at least one phase");
    (r.result, r.cert)
}

/// Whether a phase runs, given what the earlier ones did.
fn runs(phase: &Phase, ran: &[Option<Ran>], settings: &Settings, left: Option<Duration>) -> bool {
    match phase.when {
        When::Always => true,
        When::Splittable(k) => settings.interpolation.is_none() && ran.get(k).and_then(|r| r.as_ref()).is_some_and(|r| r.splittable > 0),
        When::TimedOut(k) => ran.get(k).and_then(|r| r.as_ref()).is_some_and(|r| r.result.verdict == Verdict::Unknown("timeout".into())),
        When::TimeLeft(t) => left.is_none_or(|l| l > t),
    }
}

/// One phase: its engine, then its fallback with what is left of the
/// phase's time when the engine gave up for a reason other than a limit.
fn run_phase(task: &Task, phase: &Phase, settings: &Settings, budget: &Budget, certify: bool) -> Ran {
    let t0 = Instant::now();
    let mut s = settings.clone();
    match phase.tweak {
        Tweak::None => {}
        Tweak::Cases => s.interpolation = Some(Method::Cases),
        Tweak::Reseed(d) => s.seed = s.seed.wrapping_add(d),
    }
    let (mut result, mut cert, splittable) = run_engine(task, phase.engine, &s, budget, certify);
    if let (Some(fb), Verdict::Unknown(why)) = (phase.fallback, &result.verdict) {
        if why != "timeout" && why != "node limit" {
            let why = why.clone();
            let (mut r, c, _) = run_engine(task, fb, &s, budget, certify);
            r.notes.push(format!("{} gave up ({why}); {} took over", result.engine, r.engine));
            (result, cert) = (r, c);
        }
    }
    result.time = t0.elapsed();
    Ran { time: result.time, result, cert, splittable }
}

/// One engine on the task within the budget, its answer checked; and the
/// number of cubes case splits would have split.
pub fn run_engine(task: &Task, choice: Choice, settings: &Settings, budget: &Budget, certify: bool) -> (CheckResult, Option<SafeCertificate>, usize) {
    let mut engine = engine::build(choice, settings).expect("a plan names engines, not auto");
    let backend = engine.backend();
    let mut service = Service::new(task.system, backend, certify);
    let outcome: Outcome = engine.solve(task, budget, &mut service);
    let splittable = outcome.stats.splittable;
    let (mut result, cert) = conclude(task.system, outcome, engine.name(), backend, certify);
    result.certify_time += service.time;
    (result, cert, splittable)
}

/// The note on a phase that decided: the phases before it that ran.
fn note(plan: &[Phase], ran: &[Option<Ran>], k: usize, r: &Ran) -> String {
    let name = |p: &Phase| {
        let e = match p.engine {
            Choice::Houdini => "candidate invariants",
            Choice::Run => "forward execution",
            Choice::Lazy => "lazy abstraction",
            Choice::Bwd => "backward reachability",
            Choice::Pdr => "IC3/PDR",
            Choice::Auto => "auto",
        };
        match p.tweak {
            Tweak::Cases => format!("{e} with interpolants split into cases"),
            _ => e.to_string(),
        }
    };
    let before: Vec<String> = ran.iter().zip(plan).filter_map(|(r, p)| r.as_ref().map(|r| format!("{} {:.2}s", name(p), r.time.as_secs_f64()))).collect();
    let engine = if r.result.engine == "bwd" && plan[k].engine == Choice::Lazy { "backward reachability (after lazy abstraction gave up)".to_string() } else { name(&plan[k]) };
    if before.is_empty() {
        format!("portfolio: {engine} decided in {:.2}s (phase {} of {})", r.time.as_secs_f64(), k + 1, plan.len())
    } else {
        format!("portfolio: {engine} decided in {:.2}s (phase {} of {}); undecided before it: {}", r.time.as_secs_f64(), k + 1, plan.len(), before.join(", "))
    }
}
