//! Forward execution (`--engine run`): the system, compiled by
//! [`crate::exec`], is executed concretely from an initial state, choosing
//! nondeterministic values, initial values and open array cells by a
//! seeded [`Mode`], until an unsafe cube holds. Several runs with different
//! modes and seeds, under per-run step limits that grow by rounds (1M, 4M,
//! 16M… steps, up to the maximum) and the overall time limit. An unsafe
//! state reached gives an [`Execution`], which the caller replays with the
//! independent checker; no error found is never a proof of safety.

pub mod self_loops;

use crate::answer::{ArrayContent, Execution};
use crate::exec::{compile, idx1, CellOracle, Cells, Fault, Idx, Program, State, Unsupported, MAX_DIMS};
use crate::system::System;
use self_loops::{self as accel, Loop};
use std::time::{Duration, Instant};

/// How a run chooses values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// 0, or the bound nearest to it.
    Zero,
    /// A mixture: uniform in the range (capped to 32 bits), its bounds,
    /// small values, and constants of the system ±1.
    Random,
    /// A strictly decreasing sequence 0, -1, -2, …
    Decreasing,
    /// A strictly increasing sequence 0, 1, 2, …
    Increasing,
    /// The greatest value of the range (capped to 32 bits).
    High,
    /// The least value of the range (capped to 32 bits).
    Low,
    /// Uniform in -3..=3 (many repetitions).
    Small,
    /// Uniform in 0..=40: sizes of a few dozen, loops that end.
    Moderate,
    /// Constants of the system and values a solver suggests from the error
    /// condition, ±1.
    Suggested,
    /// 0, except the `n`-th choice of the run (`n` = the round) which is
    /// the greatest value of the range: a unique maximum.
    SpikeHigh,
    /// 0, except the `n`-th choice, the least value: a unique minimum.
    SpikeLow,
}

impl Mode {
    /// The modes in the order runs use them.
    pub const ALL: [Mode; 11] = [
        Mode::Zero,
        Mode::Random,
        Mode::Decreasing,
        Mode::Increasing,
        Mode::Small,
        Mode::High,
        Mode::Low,
        Mode::Suggested,
        Mode::SpikeHigh,
        Mode::SpikeLow,
        Mode::Moderate,
    ];
    /// A lower-case name for notes.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Zero => "zero",
            Mode::Random => "random",
            Mode::Decreasing => "decreasing",
            Mode::Increasing => "increasing",
            Mode::High => "high",
            Mode::Low => "low",
            Mode::Small => "small",
            Mode::Moderate => "moderate",
            Mode::Suggested => "suggested",
            Mode::SpikeHigh => "spike-high",
            Mode::SpikeLow => "spike-low",
        }
    }
}

/// Settings of the forward engine.
#[derive(Clone, Debug)]
pub struct Options {
    /// Overall wall-clock limit.
    pub timeout: Option<Duration>,
    /// The largest step limit of one run.
    pub max_steps: u64,
    /// The seed of the first run.
    pub seed: u64,
    /// A run to make first (one that sampling saw reach an unsafe state).
    pub opening: Option<Opening>,
}

/// An unsafe state reached.
#[derive(Clone, Debug)]
pub struct Found {
    /// The execution, to be replayed.
    pub execution: Execution,
    /// The run (0-based) that found it.
    pub run: usize,
    /// Its mode.
    pub mode: Mode,
}

/// What the forward engine did.
#[derive(Clone, Debug)]
pub struct Summary {
    /// The execution found, if any.
    pub found: Option<Found>,
    /// Runs started.
    pub runs: usize,
    /// Steps executed over all runs (accelerated ones included).
    pub steps: u64,
    /// Of those, steps done by accelerating self-loops.
    pub accelerated: u64,
    /// The largest per-run step limit used.
    pub limit: u64,
    /// Runs abandoned on an arithmetic fault (overflow, division by zero, range).
    pub faults: usize,
    /// The last such fault.
    pub fault: Option<Fault>,
    /// Whether the time limit ended the search.
    pub timed_out: bool,
    /// Time spent.
    pub time: Duration,
}

impl Summary {
    /// Steps executed one by one per second.
    pub fn steps_per_sec(&self) -> f64 {
        (self.steps - self.accelerated) as f64 / self.time.as_secs_f64().max(1e-9)
    }
}

/// A small seeded generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi as i128 - lo as i128 + 1) as u128;
        (lo as i128 + (self.next() as u128 % span) as i128) as i64
    }
}

/// The value chooser of one run; it also records the open array cells it chose.
struct Chooser<'a> {
    mode: Mode,
    rng: Rng,
    counter: i64,
    constants: &'a [i64],
    /// Values a solver suggested (a subset of `constants`).
    suggested: &'a [i64],
    /// Choices made so far (values from a range of several, transitions among several enabled).
    choices: u64,
    /// Which choice after the initial state the spike modes make extreme.
    spike: u64,
    /// Choices made for the initial state.
    initial: u64,
    /// Chosen cells: array slot, index, value.
    cells: Vec<(usize, Idx, i64)>,
}

impl<'a> Chooser<'a> {
    /// A chooser at the start of a run.
    fn new(mode: Mode, seed: u64, prog: &'a Program, spike: u64) -> Chooser<'a> {
        let (constants, suggested) = (&prog.constants[..], &prog.suggested[..]);
        Chooser { mode, rng: Rng(seed), counter: 0, constants, suggested, choices: 0, spike, initial: u64::MAX, cells: vec![] }
    }

    /// A value in `lo..=hi` by the mode.
    fn pick(&mut self, lo: i64, hi: i64) -> i64 {
        if lo == hi {
            return lo;
        }
        let nth = self.choices;
        self.choices += 1;
        let (nlo, nhi) = (lo.max(i32::MIN as i64), hi.min(i32::MAX as i64));
        let (nlo, nhi) = if nlo <= nhi { (nlo, nhi) } else { (lo, hi) };
        let clamp = |v: i64| v.clamp(lo, hi);
        match self.mode {
            Mode::Zero => clamp(0),
            Mode::High => nhi,
            Mode::Low => nlo,
            Mode::Increasing | Mode::Decreasing => {
                let c = self.counter;
                self.counter += 1;
                clamp(if self.mode == Mode::Increasing { c } else { -c })
            }
            Mode::Small => clamp(self.rng.range(-3, 3)),
            Mode::Moderate => clamp(self.rng.range(0, 40)),
            Mode::SpikeHigh | Mode::SpikeLow if nth == self.initial.saturating_add(self.spike) => {
                if self.mode == Mode::SpikeHigh {
                    nhi
                } else {
                    nlo
                }
            }
            Mode::SpikeHigh | Mode::SpikeLow => clamp(0),
            Mode::Suggested => self.suggested(lo, hi),
            Mode::Random => match self.rng.next() % 10 {
                0 => nlo,
                1 => nhi,
                2 => clamp(self.rng.range(-2, 2)),
                3 => self.suggested(lo, hi),
                _ => self.rng.range(nlo, nhi),
            },
        }
    }
    /// A constant of the system (±1) in range, half the time one a solver
    /// suggested exactly.
    fn suggested(&mut self, lo: i64, hi: i64) -> i64 {
        let exact = self.rng.next().is_multiple_of(2) && self.suggested.iter().any(|c| (lo..=hi).contains(c));
        let pool = if exact { self.suggested } else { self.constants };
        let inside = || pool.iter().copied().filter(|c| (lo..=hi).contains(c));
        let n = inside().count() as u64;
        if n == 0 {
            return 0i64.clamp(lo, hi);
        }
        let k = self.rng.next() % n;
        inside().nth(k as usize).expect("k < n")
    }
}

impl CellOracle for Chooser<'_> {
    fn cell(&mut self, array: usize, idx: Idx, lo: i64, hi: i64) -> i64 {
        let v = self.pick(lo, hi);
        self.cells.push((array, idx, v));
        v
    }
}

/// How one run ended.
enum End {
    /// An unsafe cube holds.
    Found(Box<Execution>),
    /// The step limit was reached.
    Limit,
    /// The time limit was reached.
    Timeout,
    /// No transition is enabled (the program ended), or no initial state was found.
    Stuck,
    /// An arithmetic fault.
    Fault(Fault),
}

/// The values recorded along a run.
struct Record {
    steps: Vec<(usize, u64)>,
    values: Vec<i64>,
}

/// Largest number of recorded inputs, and of run-length items, of one run
/// (a run reaching it ends as if at its step limit).
const MAX_RECORD: usize = 1 << 24;

/// Chooses values for a transition's nondeterministic inputs and checks
/// its guard; `Ok(false)` when no attempt satisfied it.
fn enabled(prog: &Program, t: usize, st: &mut State, ch: &mut Chooser, loc: &mut [i64]) -> Result<bool, Fault> {
    let step = &prog.steps[t];
    let (fixed, rest) = step.guard.split_at(step.value_free);
    for g in fixed {
        if st.eval(g, loc, ch)? == 0 {
            return Ok(false);
        }
    }
    if step.values.is_empty() {
        return Ok(true);
    }
    let guard_holds = |st: &mut State, ch: &mut Chooser, loc: &[i64]| -> Result<bool, Fault> {
        for g in rest {
            if st.eval(g, loc, ch)? == 0 {
                return Ok(false);
            }
        }
        Ok(true)
    };
    for attempt in 0..6 {
        for (k, b) in step.values.iter().enumerate() {
            let (mut lo, mut hi) = b.range;
            for e in &b.lower {
                lo = lo.max(st.eval(e, loc, ch)?);
            }
            for e in &b.upper {
                hi = hi.min(st.eval(e, loc, ch)?);
            }
            if lo > hi {
                return Ok(false);
            }
            loc[k] = match b.equal.first() {
                Some(e) => st.eval(e, loc, ch)?,
                None => match attempt {
                    4 => lo.max(i32::MIN as i64),
                    5 => hi.min(i32::MAX as i64),
                    _ => ch.pick(lo, hi),
                },
            };
        }
        if guard_holds(st, ch, loc)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Executes the updates of transition `t` with the values in `loc`.
fn apply(
    prog: &Program,
    t: usize,
    st: &mut State,
    ch: &mut Chooser,
    loc: &mut [i64],
    news: &mut Vec<(usize, i64)>,
    writes: &mut Vec<(usize, Idx, i64)>,
) -> Result<(), Fault> {
    let step = &prog.steps[t];
    news.clear();
    writes.clear();
    for (slot, e, (lo, hi)) in &step.scalars {
        let v = st.eval(e, loc, ch)?;
        if v < *lo || v > *hi {
            return Err(Fault::Range);
        }
        news.push((*slot, v));
    }
    for u in &step.arrays {
        let check = |v: i64| if v < u.range.0 || v > u.range.1 { Err(Fault::Range) } else { Ok(v) };
        if let [ps] = u.points.as_slice() {
            for p in ps {
                let i = st.eval(p, loc, ch)?;
                loc[u.first_local] = i;
                let v = check(st.eval(&u.body, loc, ch)?)?;
                writes.push((u.array, idx1(i), v));
            }
            continue;
        }
        // every combination of the points of each dimension
        let values: Vec<Vec<i64>> = u.points.iter().map(|ps| ps.iter().map(|p| st.eval(p, loc, ch)).collect::<Result<_, _>>()).collect::<Result<_, _>>()?;
        let mut at = vec![0usize; values.len()];
        while values.iter().all(|v| !v.is_empty()) {
            let mut idx: Idx = [0; MAX_DIMS];
            for (d, &k) in at.iter().enumerate() {
                idx[d] = values[d][k];
                loc[u.first_local + d] = values[d][k];
            }
            let v = check(st.eval(&u.body, loc, ch)?)?;
            writes.push((u.array, idx, v));
            // the next combination, the last dimension fastest
            let Some(d) = (0..at.len()).rev().find(|&d| at[d] + 1 < values[d].len()) else { break };
            at[d] += 1;
            at[d + 1..].iter_mut().for_each(|k| *k = 0);
        }
    }
    for &(s, v) in news.iter() {
        st.scalars[s] = v;
    }
    for &(a, idx, v) in writes.iter() {
        st.arrays[a].set(idx, v);
    }
    Ok(())
}

/// The index of the first unsafe cube that holds.
fn unsafe_hit(prog: &Program, st: &mut State, ch: &mut Chooser) -> Result<Option<usize>, Fault> {
    for (k, u) in prog.unsafe_.iter().enumerate() {
        if st.eval(u, &[], ch)? != 0 {
            return Ok(Some(k));
        }
    }
    Ok(None)
}

/// How one run went: its end, the steps it executed, the choices it made
/// (none: every run from the same system does the same).
struct RunEnd {
    end: End,
    steps: u64,
    accelerated: u64,
    choices: u64,
}

/// What every run of a search shares.
struct Setting<'a> {
    sys: &'a System,
    prog: &'a Program,
    loops: &'a [Option<Loop>],
    deadline: Option<Instant>,
}

/// One run from a fresh initial state.
fn run_once(set: &Setting, mode: Mode, seed: u64, spike: u64, limit: u64) -> RunEnd {
    let mut ch = Chooser::new(mode, seed, set.prog, spike);
    let (end, steps, accelerated) = execute(set, &mut ch, limit, &mut |_, _| true);
    RunEnd { end, steps, accelerated, choices: ch.choices }
}

/// One run of the forward engine: how it chooses values (mode, seed, the
/// position of a spike) and for how many steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opening {
    /// How values are chosen.
    pub mode: Mode,
    /// The random generator's seed.
    pub seed: u64,
    /// Which choice the spike modes make extreme.
    pub spike: u64,
    /// The step limit.
    pub limit: u64,
}

/// The mode and spike position of sampled run `r`: every mode once with
/// spikes at the first choice, then the spike modes at later choices
/// (the second element of an array is as often special as the first).
fn sampled_mode(r: usize) -> (Mode, u64) {
    let n = Mode::ALL.len();
    if r < n {
        return (Mode::ALL[r], 0);
    }
    let spikes = [Mode::SpikeHigh, Mode::SpikeLow];
    (spikes[(r - n) % 2], 1 + ((r - n) / 2) as u64)
}

/// Reachable states by sampling: `runs` runs (every mode in turn, then
/// spikes at later positions, seeded by `seed`), each from a fresh initial
/// state and up to `limit(r)` steps for run `r`, show every state they
/// pass through to `observe`, with the transition taken from it (states
/// that accelerated self-loops jump over are not shown; a run ends when
/// `observe` says so). Sampling stops at the first unsafe state, at the
/// deadline, or when a run makes no choice. The run that reached an unsafe
/// state, if one did (sampling stops there: a forward execution repeats
/// it, recorded, to be replayed).
pub fn sample(
    sys: &System,
    prog: &Program,
    runs: usize,
    seed: u64,
    deadline: Option<Instant>,
    limit: &mut impl FnMut(usize) -> u64,
    observe: &mut impl FnMut(&State, usize) -> bool,
) -> Option<Opening> {
    let loops = accel::analyse(prog);
    let set = Setting { sys, prog, loops: &loops, deadline };
    for r in 0..runs {
        let (mode, spike) = sampled_mode(r);
        let seed = seed.wrapping_add((r as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));
        let mut ch = Chooser::new(mode, seed, prog, spike);
        let limit = limit(r);
        let (end, _, _) = execute(&set, &mut ch, limit, observe);
        if matches!(end, End::Found(_)) {
            return Some(Opening { mode, seed, spike, limit });
        }
        if ch.choices == 0 || matches!(end, End::Timeout) || deadline.is_some_and(|d| Instant::now() >= d) || crate::engine::interrupted() {
            break;
        }
    }
    None
}

/// Executes from a fresh initial state with the chooser's values, up to
/// `limit` steps; how it ended, the steps and of those the accelerated ones.
fn execute(set: &Setting, ch: &mut Chooser, limit: u64, observe: &mut impl FnMut(&State, usize) -> bool) -> (End, u64, u64) {
    let (sys, prog, loops, deadline) = (set.sys, set.prog, set.loops, set.deadline);
    let mut st = match initial_state(prog, ch) {
        Ok(st) => st,
        Err(e) => return (e, 0, 0),
    };
    let initial = st.scalars.clone();
    ch.initial = ch.choices;
    let width = prog.steps.iter().map(|s| s.locals).max().unwrap_or(1);
    let (mut loc, mut chosen) = (vec![0i64; width], vec![0i64; width]);
    let (mut news, mut writes) = (vec![], vec![]);
    let mut rec = Record { steps: vec![], values: vec![] };
    let mut last = vec![0usize; prog.by_pc.len()];
    let mut steps = 0u64;
    let mut jumped = 0u64;
    let mut ticks = 0u32;
    let end = 'run: loop {
        let at = match prog.dispatch {
            Some((slot, lo)) => st.scalars[slot].wrapping_sub(lo) as usize,
            None => usize::MAX,
        };
        if prog.unsafe_at.get(at).copied().unwrap_or(prog.dispatch.is_none()) {
            match unsafe_hit(prog, &mut st, ch) {
                Ok(Some(cube)) => break 'run Ok(cube),
                Ok(None) => {}
                Err(f) => break 'run Err(End::Fault(f)),
            }
        }
        if steps >= limit {
            break Err(End::Limit);
        }
        ticks = ticks.wrapping_add(1);
        if ticks & 0xffff == 0 && (deadline.is_some_and(|d| Instant::now() >= d) || crate::engine::interrupted()) {
            break Err(End::Timeout);
        }
        let pick = match choose(prog, at, &mut st, ch, &mut loc, &mut chosen, &mut last) {
            Ok(Some(t)) => t,
            Ok(None) => break Err(End::Stuck),
            Err(f) => break 'run Err(End::Fault(f)),
        };
        if !observe(&st, pick) {
            break Err(End::Limit);
        }
        if let Err(f) = apply(prog, pick, &mut st, ch, &mut chosen, &mut news, &mut writes) {
            break Err(End::Fault(f));
        }
        steps += 1;
        let repeated = match rec.steps.last_mut() {
            Some((t, n)) if *t == pick => {
                *n += 1;
                *n
            }
            _ => {
                if rec.steps.len() >= MAX_RECORD {
                    break Err(End::Limit);
                }
                rec.steps.push((pick, 1));
                1
            }
        };
        // a self-loop repeated 8, 16, 32… times: try to jump to its exit
        if repeated >= 8 && repeated.is_power_of_two() {
            if let Some(lp) = &loops[pick] {
                let at = prog.dispatch.map_or(usize::MAX, |(slot, lo)| st.scalars[slot].wrapping_sub(lo) as usize);
                if !prog.unsafe_at.get(at).copied().unwrap_or(prog.dispatch.is_none()) {
                    match accel::accelerate(prog, lp, pick, &mut st, ch, limit - steps) {
                        Ok(k) => {
                            steps += k;
                            jumped += k;
                            rec.steps.last_mut().expect("just pushed").1 += k;
                        }
                        Err(f) => break Err(End::Fault(f)),
                    }
                }
            }
        }
        let n = prog.steps[pick].values.len();
        if n > 0 {
            rec.values.extend_from_slice(&chosen[..n]);
            if rec.values.len() > MAX_RECORD {
                break Err(End::Limit);
            }
        }
    };
    let cube = match end {
        Ok(c) => c,
        Err(e) => return (e, steps, jumped),
    };
    (End::Found(Box::new(recorded(sys, prog, ch, initial, rec, cube))), steps, jumped)
}

/// A fresh initial state with the chooser's values (up to 32 tries to
/// satisfy the initial formula's checks).
fn initial_state(prog: &Program, ch: &mut Chooser) -> Result<State, End> {
    let arrays: Vec<Cells> = prog.array_init.iter().map(|(d, r)| Cells::new(*d, r.lo, r.hi)).collect();
    let mut st = State { scalars: vec![0; prog.scalar_terms.len()], arrays };
    for _ in 0..32 {
        for (slot, r) in prog.scalar_init.iter().enumerate() {
            st.scalars[slot] = ch.pick(r.lo, r.hi);
        }
        let mut ok = true;
        for c in &prog.init_check {
            match st.eval(c, &[], ch) {
                Ok(0) => ok = false,
                Ok(_) => {}
                Err(f) => return Err(End::Fault(f)),
            }
        }
        if ok {
            return Ok(st);
        }
    }
    Err(End::Stuck)
}

/// The transition taken at location `at` (`None`: none is enabled), its
/// inputs left in `chosen`: where transitions exclude each other, the one
/// taken last here is tried first; otherwise one of the enabled ones at
/// random.
#[inline]
fn choose(
    prog: &Program,
    at: usize,
    st: &mut State,
    ch: &mut Chooser,
    loc: &mut [i64],
    chosen: &mut [i64],
    last: &mut [usize],
) -> Result<Option<usize>, Fault> {
    let cands: &[usize] = prog.by_pc.get(at).map(|v| v.as_slice()).unwrap_or(&[]);
    if prog.exclusive.get(at).copied().unwrap_or(false) {
        let n = cands.len();
        for off in 0..n {
            let k = (last[at] + off) % n;
            let t = cands[k];
            if enabled(prog, t, st, ch, loc)? {
                last[at] = k;
                let m = prog.steps[t].values.len();
                chosen[..m].copy_from_slice(&loc[..m]);
                return Ok(Some(t));
            }
        }
        return Ok(None);
    }
    let mut count = 0u64;
    let mut pick = None;
    for &t in cands.iter().chain(&prog.others) {
        if enabled(prog, t, st, ch, loc)? {
            count += 1;
            if count > 1 {
                ch.choices += 1;
            }
            if count == 1 || ch.rng.next().is_multiple_of(count) {
                pick = Some(t);
                let m = prog.steps[t].values.len();
                chosen[..m].copy_from_slice(&loc[..m]);
            }
        }
    }
    Ok(pick)
}

/// The execution a run recorded, ending in unsafe cube `cube`.
fn recorded(sys: &System, prog: &Program, ch: &Chooser, initial: Vec<i64>, rec: Record, cube: usize) -> Execution {
    let scalars = prog.scalar_terms.iter().cloned().zip(initial).collect();
    let arrays = prog
        .array_init
        .iter()
        .enumerate()
        .map(|(slot, (d, r))| ArrayContent {
            var: prog.array_vars[slot],
            default: d.unwrap_or(0i64.clamp(r.lo, r.hi)),
            cells: ch.cells.iter().filter(|c| c.0 == slot).map(|&(_, idx, v)| (idx[..dims(sys, prog, slot)].to_vec(), v)).collect(),
        })
        .collect();
    let cube_values = (0..sys.unsafe_[cube].vars.len() as i64).collect();
    Execution { scalars, arrays, steps: rec.steps, values: rec.values, cube, cube_values }
}

fn dims(sys: &System, prog: &Program, slot: usize) -> usize {
    sys.vars[prog.array_vars[slot]].term.sort().as_array().map(|a| a.index.len()).unwrap_or(1)
}

/// Runs the forward engine on `sys`.
pub fn search(sys: &System, opts: &Options) -> Result<Summary, Unsupported> {
    let mut prog = compile(sys)?;
    // the constants mode also tries the values a solver suggests
    prog.suggested = suggested_values(sys);
    for &v in &prog.suggested {
        for k in [v.saturating_sub(1), v, v.saturating_add(1)] {
            if !prog.constants.contains(&k) {
                prog.constants.push(k);
            }
        }
    }
    prog.constants.sort();
    let loops = accel::analyse(&prog);
    let start = Instant::now();
    let deadline = opts.timeout.map(|t| start + t);
    let mut sum = Summary { found: None, runs: 0, steps: 0, accelerated: 0, limit: 0, faults: 0, fault: None, timed_out: false, time: Duration::ZERO };
    let mut limit = opts.max_steps.min(1 << 20);
    // a run that made no choice is the only run there is
    let set = Setting { sys, prog: &prog, loops: &loops, deadline };
    let mut deterministic = false;
    // the opening run, if any, comes first
    let mut opening = opts.opening;
    let mut round = 0;
    let mut progress = crate::engine::Progress::new("forward execution");
    loop {
        sum.limit = limit;
        let planned: Vec<(Mode, Option<Opening>)> =
            opening.take().map(|o| (o.mode, Some(o))).into_iter().chain(Mode::ALL.into_iter().map(|m| (m, None))).collect();
        for (mode, fixed) in planned {
            if fixed.is_none() && deterministic && mode != Mode::ALL[0] {
                continue;
            }
            let out = match fixed {
                Some(o) => run_once(&set, o.mode, o.seed, o.spike, o.limit.min(opts.max_steps)),
                None => {
                    let seed = opts.seed.wrapping_add((sum.runs as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));
                    run_once(&set, mode, seed, round, limit)
                }
            };
            sum.runs += 1;
            sum.steps += out.steps;
            progress.tick(|| format!("{} runs, {} steps, step limit {limit}", sum.runs, sum.steps));
            sum.accelerated += out.accelerated;
            deterministic |= out.choices == 0;
            match out.end {
                End::Found(execution) => {
                    sum.found = Some(Found { execution: *execution, run: sum.runs - 1, mode });
                    sum.time = start.elapsed();
                    return Ok(sum);
                }
                End::Timeout => {
                    sum.timed_out = true;
                    sum.time = start.elapsed();
                    return Ok(sum);
                }
                End::Fault(f) => {
                    sum.faults += 1;
                    sum.fault = Some(f);
                }
                End::Stuck if deterministic => {
                    sum.time = start.elapsed();
                    return Ok(sum);
                }
                End::Limit | End::Stuck => {}
            }
        }
        if limit >= opts.max_steps {
            break;
        }
        limit = limit.saturating_mul(4).min(opts.max_steps);
        round += 1;
    }
    sum.time = start.elapsed();
    Ok(sum)
}

/// Values a solver suggests from the error condition: for each transition,
/// a model of "its guard holds and its successor is unsafe" (the unsafe
/// cube's index variables and the inputs free), and the integer values it
/// gives the formula's symbols.
fn suggested_values(sys: &System) -> Vec<i64> {
    use crate::logic::{free_vars, substitute, Sort, Term};
    let mut solver = crate::smt::solver(crate::smt::Backend::Z3);
    solver.set_timeout_ms(200);
    let mut out = vec![];
    for u in &sys.unsafe_ {
        for t in &sys.transitions {
            let next: crate::HashMap<Term, Term> = (0..sys.vars.len()).map(|k| (sys.vars[k].term.clone(), sys.next_value(t, k))).collect();
            let f = Term::and([t.guard.clone(), substitute(&u.body(), &next)]);
            if f.as_bool() == Some(false) {
                continue;
            }
            solver.push();
            solver.assert(&f);
            if solver.check() == crate::smt::SatResult::Sat {
                for v in free_vars(&f).into_iter().filter(|v| *v.sort() == Sort::Int) {
                    if let Some(n) = solver.value(&v).and_then(|x| x.as_int()) {
                        if !out.contains(&n) {
                            out.push(n);
                        }
                    }
                }
            }
            solver.pop();
        }
    }
    out
}

/// The forward execution engine: runs under growing step limits until one
/// reaches an unsafe state, whose execution the replay service checks.
/// It never answers SAFE.
pub struct ForwardExecution {
    settings: crate::engine::Settings,
    opening: Option<Opening>,
}

impl ForwardExecution {
    /// The engine with these settings.
    pub fn new(settings: crate::engine::Settings) -> Self {
        ForwardExecution { settings, opening: None }
    }

    /// The engine making `opening` its first run (one that sampling saw
    /// reach an unsafe state).
    pub fn opening(settings: crate::engine::Settings, opening: Opening) -> Self {
        ForwardExecution { settings, opening: Some(opening) }
    }
}

impl crate::engine::Engine for ForwardExecution {
    fn name(&self) -> &'static str {
        "run"
    }

    fn backend(&self) -> crate::smt::Backend {
        self.settings.backend_or(crate::smt::Backend::Z3)
    }

    fn solve(&mut self, task: &crate::engine::Task, budget: &crate::engine::Budget, replayer: &mut dyn crate::answer::Replayer) -> crate::answer::Outcome {
        use crate::answer::{Answer, Counterexample, Outcome};
        // the search leaves a share of the time limit to the replay
        let opts = Options {
            timeout: budget.left().map(|t| t.mul_f64(0.85)),
            max_steps: self.settings.max_steps.max(1),
            seed: self.settings.seed,
            opening: self.opening,
        };
        let sum = match search(task.system, &opts) {
            Ok(s) => s,
            Err(u) => return Outcome::of(Answer::Unknown(format!("run engine: {}", u.0))),
        };
        let jumped = if sum.accelerated > 0 { format!(", {} of them by accelerating self-loops", sum.accelerated) } else { String::new() };
        let mut notes = vec![format!(
            "run engine: {} run(s), {} steps{jumped} in {:.2}s ({:.1}M steps/s one by one)",
            sum.runs,
            sum.steps,
            sum.time.as_secs_f64(),
            sum.steps_per_sec() / 1e6
        )];
        if let Some(f) = sum.fault {
            notes.push(format!("{} run(s) abandoned on an arithmetic fault (last: {f})", sum.faults));
        }
        let answer = match sum.found {
            None => {
                let why = if sum.timed_out { " (time limit reached)" } else { "" };
                Answer::Unknown(format!("run engine: no error within {} steps × {} runs{why}", sum.limit, sum.runs))
            }
            Some(found) => {
                notes.push(format!("unsafe state reached by run {} ({} values) after {} steps", found.run + 1, found.mode.name(), found.execution.len()));
                match replayer.replay_execution(&found.execution, budget.deadline) {
                    Ok(rep) => Answer::Unsafe(Counterexample::Execution(found.execution, rep)),
                    Err(e) if e.starts_with(crate::answer::REPLAY_TIMED_OUT) => Answer::Unknown(format!("run engine: {e}")),
                    Err(e) => Answer::Unknown(format!("run engine: the execution found does not replay: {e}")),
                }
            }
        };
        Outcome::new(answer, crate::answer::Stats::default(), notes)
    }
}
