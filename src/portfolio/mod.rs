//! The portfolio: which engines run, in which order, with which share of
//! the time — as data ([`Phase`]) — and one loop ([`solve`]) that runs the
//! phases and stops at the first *checked* answer (a SAFE the other solver
//! certified, an UNSAFE replayed). A single engine is a plan of one phase.

use crate::answer::{CheckResult, Outcome, Verdict};
use crate::certify::service::{conclude, Checking, Service};
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
    /// Backward reachability in the other order (depth-first instead of
    /// breadth-first, or back).
    Flip,
    /// Backward reachability judging approximations on an instance of one
    /// process more (Cubicle's `-brab 3` beside `-brab 2`: candidates of
    /// up to 4 literals reading 2 arrays, which 2 processes cannot tell
    /// from artefacts).
    Larger,
}

/// Which part of a parallel portfolio a run is: lane `index` of `of`
/// (`of` is 1 for the sequential portfolio). Lanes run at once, each in
/// a process of its own; the first checked answer ends them all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lane {
    /// This lane, from 0.
    pub index: usize,
    /// The number of lanes (1 or 2).
    pub of: usize,
}

impl Lane {
    /// The sequential portfolio: one lane.
    pub const ALONE: Lane = Lane { index: 0, of: 1 };
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
    /// What phase `k` left of its own share.
    LeftOf(usize),
}

impl Share {
    /// The phase's time, given the run's limit and what is left of it.
    fn time(self, limit: Option<Duration>, left: Option<Duration>, ran: &[Option<Ran>]) -> Option<Duration> {
        match (self, limit) {
            (Share::LeftOf(k), _) => ran.get(k).and_then(|r| r.as_ref()).and_then(|r| r.given.map(|g| g.saturating_sub(r.time))),
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
    /// When phase `k` gave up for a reason other than a limit.
    GaveUp(usize),
    /// When backward reachability approximates (`--brab` above 0), or,
    /// with `false`, when it does not.
    Approximating(bool),
}

/// The plan for a choice of engine on a task, in a lane: the program
/// portfolio for `auto` on a program (split between two lanes: proofs by
/// lazy abstraction and candidate invariants in the first, forward
/// execution and IC3/PDR in the second), else the one engine (backward
/// reachability for `auto` on a protocol with all the time in the first
/// lane, and [`second_protocol_lane`] in the second).
pub fn plan(choice: Choice, task: &Task, lane: Lane) -> Vec<Phase> {
    let one = |engine, tweak| vec![Phase { engine, tweak, share: Share::Rest, when: When::Always }];
    let part = (lane.of > 1).then_some(lane.index);
    match choice {
        Choice::Auto if task.program => programs(part),
        Choice::Auto if part == Some(1) => second_protocol_lane(),
        Choice::Auto => one(Choice::Bwd, Tweak::None),
        c => one(c, Tweak::None),
    }
}

/// The second lane for a protocol: backward reachability in the other
/// order (depth-first: deep bugs, and searches whose breadth-first order
/// restarts many times) for a sixth of the time, at most 10 s, then on an
/// instance of a process more with the time left; plain search (no
/// instance to enlarge) in the other order with all the time.
fn second_protocol_lane() -> Vec<Phase> {
    let phase = |tweak, share, when| Phase { engine: Choice::Bwd, tweak, share, when };
    vec![
        phase(Tweak::Flip, Share::Part { of: 6, cap: Duration::from_secs(10) }, When::Approximating(true)),
        phase(Tweak::Larger, Share::Rest, When::Approximating(true)),
        phase(Tweak::Flip, Share::Rest, When::Approximating(false)),
    ]
}

/// The portfolio for programs: a very short lazy abstraction (most proofs
/// take a few hundredths of a second), with case splits when projection
/// met cubes it would split; candidate invariants (proofs interpolants are
/// slow to find); a glance of forward execution (shallow errors); a short
/// lazy abstraction (and with case splits); a longer forward execution
/// (errors behind long loops); candidate invariants again if they ran out
/// of time; a short IC3/PDR (proofs of facts on both sides of a counter
/// that no template states, a few seconds where it proves them); lazy abstraction with half the time left; execution again.
/// Backward reachability takes over what is left of a lazy abstraction
/// phase that gave up for a reason other than a limit.
///
/// With `part`, one of two lanes run at once: lane 0 the proofs (lazy
/// abstraction, candidate invariants; the last lazy abstraction with all
/// the time left), lane 1 the rest (forward execution, a longer IC3/PDR,
/// forward execution with all the time left).
pub fn programs(part: Option<usize>) -> Vec<Phase> {
    let ms = Duration::from_millis;
    let secs = Duration::from_secs;
    let alone = part.is_none();
    let mut plan = vec![];
    // a phase of lane `lane` (its index in the plan; none outside the lane)
    let mut add = |lane: usize, engine, tweak, share, when| {
        if part.is_some_and(|p| p != lane) {
            return usize::MAX;
        }
        plan.push(Phase { engine, tweak, share, when });
        if engine == Choice::Lazy {
            let k = plan.len() - 1;
            plan.push(Phase { engine: Choice::Bwd, tweak: Tweak::None, share: Share::LeftOf(k), when: When::GaveUp(k) });
        }
        plan.len() - 1
    };
    let first = add(0, Choice::Lazy, Tweak::None, Share::Part { of: 40, cap: ms(250) }, When::Always);
    add(0, Choice::Lazy, Tweak::Cases, Share::Part { of: 40, cap: ms(250) }, When::Splittable(first.wrapping_sub(1)));
    let guess = add(0, Choice::Houdini, Tweak::None, Share::Part { of: 4, cap: secs(8) }, When::Always);
    add(1, Choice::Run, Tweak::None, Share::Part { of: 20, cap: ms(500) }, When::Always);
    if !alone {
        add(1, Choice::Pdr, Tweak::None, Share::Part { of: 3, cap: secs(20) }, When::Always);
    }
    let quick = add(0, Choice::Lazy, Tweak::None, Share::Part { of: 4, cap: secs(2) }, When::Always);
    add(0, Choice::Lazy, Tweak::Cases, Share::Part { of: 4, cap: secs(2) }, When::Splittable(quick.wrapping_sub(1)));
    add(1, Choice::Run, Tweak::None, Share::AtLeast { of: 10, floor: secs(3) }, When::Always);
    add(0, Choice::Houdini, Tweak::None, Share::HalfLeft { otherwise: Some(secs(30)) }, When::TimedOut(guess));
    if alone {
        add(1, Choice::Pdr, Tweak::None, Share::Part { of: 6, cap: secs(5) }, When::Always);
        add(0, Choice::Lazy, Tweak::None, Share::HalfLeft { otherwise: None }, When::Always);
    } else {
        add(0, Choice::Lazy, Tweak::None, Share::Rest, When::Always);
    }
    add(1, Choice::Run, Tweak::Reseed(1_000_003), Share::Rest, When::TimeLeft(ms(500)));
    plan
}

/// What a phase ended with.
struct Ran {
    result: CheckResult,
    /// The time it was given.
    given: Option<Duration>,
    /// The time it took.
    time: Duration,
    splittable: usize,
}

/// The run's limits and checking.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The time limit of the whole run.
    pub timeout: Option<Duration>,
    /// The node limit of each search.
    pub max_nodes: Option<usize>,
    /// Whether answers are checked, and where proofs are written.
    pub checking: Checking,
}

/// The least time a phase of a plan of several is given; one with less is
/// skipped.
const MIN_PHASE: Duration = Duration::from_millis(50);

/// Runs the plan's phases until one gives a checked answer; that answer
/// (with a note on the phases before it when there were several), else
/// the last undecided answer of an engine that can prove safety.
pub fn solve(task: &Task, plan: &[Phase], settings: &Settings, limits: &Limits) -> CheckResult {
    let start = Instant::now();
    let left = || limits.timeout.map(|t| t.saturating_sub(start.elapsed()));
    let mut ran: Vec<Option<Ran>> = vec![];
    let mut last: Option<CheckResult> = None;
    let names: Vec<String> = plan.iter().map(label).collect();
    for (k, phase) in plan.iter().enumerate() {
        if !runs(phase, &ran, settings, left()) {
            ran.push(None);
            continue;
        }
        let given = if plan.len() == 1 { limits.timeout } else { phase.share.time(limits.timeout, left(), &ran) };
        if plan.len() > 1 && given.is_some_and(|g| g < MIN_PHASE) {
            // no time to do anything in (and engines' set-up, such as
            // BRAB's exploration of a finite instance, would overrun it)
            ran.push(None);
            continue;
        }
        let s = tweaked(settings, phase.tweak);
        tracing::info!(
            "phase {} of {}: {} for {}",
            k + 1,
            plan.len(),
            names[k],
            given.map_or("the rest of the run".to_string(), |g| format!("{:.2}s", g.as_secs_f64()))
        );
        let t0 = Instant::now();
        let (mut result, splittable) = run_engine(task, phase.engine, &s, &Budget::new(given, limits.max_nodes), &limits.checking);
        let time = t0.elapsed();
        if matches!(result.verdict, Verdict::Safe | Verdict::Unsafe) {
            if plan.len() > 1 {
                result.notes.insert(0, note(&names, &ran, k, time));
            }
            return result;
        }
        if let Some(why) = crate::engine::stopped() {
            result.verdict = Verdict::Unknown(why.reason().into());
            return result;
        }
        if phase.engine != Choice::Run || last.is_none() {
            last = Some(result.clone());
        }
        ran.push(Some(Ran { result, given, time, splittable }));
    }
    let mut r = last.expect("a plan runs at least one phase");
    // a timeout is the reason only when the run's time is up
    if let (Verdict::Unknown(why), Some(l)) = (&r.verdict, left()) {
        if why == "timeout" && l > Duration::from_secs(1) {
            let each: Vec<String> = ran.iter().zip(&names).filter_map(|(r, n)| r.as_ref().map(|r| format!("{n}: {}", reason(&r.result.verdict)))).collect();
            r.verdict = Verdict::Unknown(format!("every phase ended undecided with {:.1}s of the time limit left ({})", l.as_secs_f64(), each.join("; ")));
        }
    }
    r
}

/// Why an undecided phase ended (a phase's timeout is its share's end).
fn reason(v: &Verdict) -> String {
    match v {
        Verdict::Unknown(why) if why == "timeout" => "its share of the time ended".into(),
        Verdict::Unknown(why) => why.clone(),
        v => v.word().to_lowercase(),
    }
}

/// Whether a phase runs, given what the earlier ones did.
fn runs(phase: &Phase, ran: &[Option<Ran>], settings: &Settings, left: Option<Duration>) -> bool {
    let at = |k: usize| ran.get(k).and_then(|r| r.as_ref());
    match phase.when {
        When::Always => true,
        When::Splittable(k) => settings.interpolation.is_none() && at(k).is_some_and(|r| r.splittable > 0),
        When::TimedOut(k) => at(k).is_some_and(|r| r.result.verdict == Verdict::Unknown("timeout".into())),
        When::TimeLeft(t) => left.is_none_or(|l| l > t),
        When::GaveUp(k) => at(k).is_some_and(|r| matches!(&r.result.verdict, Verdict::Unknown(why) if why != "timeout" && why != "node limit")),
        When::Approximating(yes) => (settings.brab > 0) == yes,
    }
}

/// The settings with a phase's tweak.
fn tweaked(settings: &Settings, tweak: Tweak) -> Settings {
    let mut s = settings.clone();
    match tweak {
        Tweak::None => {}
        Tweak::Cases => s.interpolation = Some(Method::Cases),
        Tweak::Reseed(d) => s.seed = s.seed.wrapping_add(d),
        Tweak::Larger => s.brab += 1,
        Tweak::Flip => {
            s.order = match s.order {
                crate::engine::bwd::Order::Bfs => crate::engine::bwd::Order::Dfs,
                crate::engine::bwd::Order::Dfs => crate::engine::bwd::Order::Bfs,
            }
        }
    }
    s
}

/// One engine on the task within the budget, its answer checked; and the
/// number of cubes case splits would have split.
pub fn run_engine(task: &Task, choice: Choice, settings: &Settings, budget: &Budget, checking: &Checking) -> (CheckResult, usize) {
    let t0 = Instant::now();
    let mut engine = engine::build(choice, settings).expect("a plan names engines, not auto");
    let backend = engine.backend();
    let mut service = Service::new(task.system, backend, checking.certify);
    let outcome: Outcome = engine.solve(task, budget, &mut service);
    let splittable = outcome.stats.splittable;
    let mut result = conclude(task.system, outcome, engine.name(), backend, checking);
    result.certify_time += service.time;
    result.time = t0.elapsed();
    (result, splittable)
}

/// A phase as notes name it.
fn label(p: &Phase) -> String {
    let e = match p.engine {
        Choice::Houdini => "candidate invariants",
        Choice::Run => "forward execution",
        Choice::Lazy => "lazy abstraction",
        Choice::Bwd => "backward reachability",
        Choice::Pdr => "IC3/PDR",
        Choice::Auto => "auto",
    };
    match (p.tweak, p.when) {
        (Tweak::Cases, _) => format!("{e} with interpolants split into cases"),
        (Tweak::Flip, _) => format!("{e} in the other order"),
        (Tweak::Larger, _) => format!("{e} on a larger instance"),
        (_, When::GaveUp(_)) => format!("{e} (after lazy abstraction gave up)"),
        _ => e.to_string(),
    }
}

/// The note on phase `k`, which decided in `time`: the phases before it that ran.
fn note(names: &[String], ran: &[Option<Ran>], k: usize, time: Duration) -> String {
    let before: Vec<String> = ran.iter().zip(names).filter_map(|(r, n)| r.as_ref().map(|r| format!("{n} {:.2}s", r.time.as_secs_f64()))).collect();
    let head = format!("portfolio: {} decided in {:.2}s (phase {} of {})", names[k], time.as_secs_f64(), k + 1, names.len());
    if before.is_empty() {
        head
    } else {
        format!("{head}; undecided before it: {}", before.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A protocol's second lane searches in the other order for a share
    /// of the time, then approximates on an instance of one process more
    /// (`--brab` plus one); with plain search it searches in the other
    /// order with all the time. The first lane searches as asked.
    #[test]
    fn a_protocols_second_lane_flips_the_order_then_enlarges_the_instance() {
        // a lock taken by one process at a time
        let src = "type state = Idle | Crit\nvar Free : bool\narray S[proc] : state\n\
                   init (z) { Free = True && S[z] = Idle }\n\
                   unsafe (z1 z2) { S[z1] = Crit && S[z2] = Crit }\n\
                   transition enter (i) requires { Free = True && S[i] = Idle } { Free := False; S[i] := Crit }\n\
                   transition leave (i) requires { S[i] = Crit } { Free := True; S[i] := Idle }\n";
        let sys = crate::frontend::parse_str(src, crate::frontend::Format::Cubicle).unwrap().system;
        let task = Task::new(&sys, &sys);
        assert!(!task.program);
        let first = plan(Choice::Auto, &task, Lane { index: 0, of: 2 });
        assert_eq!(first.iter().map(|p| (p.engine, p.tweak)).collect::<Vec<_>>(), [(Choice::Bwd, Tweak::None)]);
        let second = plan(Choice::Auto, &task, Lane { index: 1, of: 2 });
        let runs_with = |brab: usize| -> Vec<(Tweak, usize, crate::engine::bwd::Order)> {
            let settings = Settings { brab, ..Settings::default() };
            let run = second.iter().filter(|p| p.engine == Choice::Bwd && runs(p, &[], &settings, None));
            run.map(|p| (p.tweak, tweaked(&settings, p.tweak))).map(|(t, s)| (t, s.brab, s.order)).collect()
        };
        use crate::engine::bwd::Order::{Bfs, Dfs};
        assert_eq!(runs_with(2), [(Tweak::Flip, 2, Dfs), (Tweak::Larger, 3, Bfs)]);
        assert_eq!(runs_with(0), [(Tweak::Flip, 0, Dfs)]);
        // the depth-first phase has a sixth of the time, at most 10 s; the larger instance the rest
        let limit = Some(Duration::from_secs(60));
        assert_eq!(second[0].share.time(limit, limit, &[]), Some(Duration::from_secs(10)));
        assert_eq!(second[1].share.time(limit, Some(Duration::from_secs(50)), &[]), Some(Duration::from_secs(50)));
    }
}
