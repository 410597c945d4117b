//! Approximations of cubes by candidate invariants (Cubicle's BRAB): a
//! visited cube may be replaced by a more general one — a subset of its
//! literals over at most as many processes as a small finite instance has —
//! when no reachable state of that instance satisfies it. A candidate is
//! only a guess: backward search goes on from it, and if a trace from the
//! initial states reaches it, it is banned and the search restarts. The
//! final invariant is certified like any other.

mod houdini;
pub mod instance;
pub mod symmetry;
mod walk;

use crate::logic::instantiate::injective_maps;
use crate::logic::{Op, Sort, Term};
use crate::system::cube::Cube;
use crate::system::System;
use crate::{HashMap, HashSet};
use instance::{Code, Instance, OpenValues, State, Stuck};
use itertools::Itertools;
use std::time::{Duration, Instant};

/// The oracle: the reachable states of a finite instance, and what it
/// has learnt about candidates.
pub struct Oracle<'a> {
    inst: Instance<'a>,
    /// The reachable states (with open values: see [`instance::State`]).
    states: Vec<State>,
    /// The values of the states' open values.
    open: OpenValues,
    /// Whether `states` is every reachable state of the instance.
    pub complete: bool,
    /// The most states the exploration was allowed.
    cap: usize,
    /// The most states a deeper exploration may be allowed.
    limit: usize,
    /// How long the last exploration took.
    explored_in: Duration,
    /// When the last exploration ended.
    since: Instant,
    /// What happened to the oracle during a search (deeper explorations).
    pub notes: Vec<String>,
    /// Per (literal, processes of its variables, those variables): the states satisfying it.
    sets: HashMap<(Term, Vec<i64>, Vec<Term>), Vec<u64>>,
    /// Per cell: its values in every state (built on demand).
    columns: HashMap<usize, Vec<i64>>,
    /// Candidates shown reachable (canonical cubes).
    banned: HashSet<Cube>,
    /// Largest number of literals of a candidate: one more than the
    /// instance's processes (Cubicle's `-brab N` allows N + 1).
    pub max_lits: usize,
    /// A path of the instance to an unsafe state found while exploring, as
    /// a candidate trace (to be replayed: the instance is only an oracle).
    pub unsafe_trace: Option<crate::answer::AbstractTrace>,
    /// See [`Oracle::slack`].
    slack: Option<i64>,
    /// Reachable states found outside the exploration (see [`Oracle::learn`]).
    learnt: Vec<State>,
    /// Seeds of the search (see [`houdini`]), once computed.
    seeds: Option<Vec<Cube>>,
    /// Whether the seeds subsumed every unsafe cube when they were computed.
    pub seeds_suffice: bool,
}

/// The factor by which an incomplete oracle's exploration grows.
const DEEPEN_BY: usize = 5;

/// Explores the instance (at most `cap` states; with `stop`, up to the
/// first unsafe state). Growing numbers make an instance infinite: the
/// deepest bounded instance (see `Instance::bound_growing`) explored
/// completely within the cap, the slack doubled until its states stop
/// changing; the exploration and that slack.
fn explore(inst: &mut Instance, cap: usize, stop: bool) -> Result<(instance::Exploration, Option<i64>), String> {
    let mut bounded: Option<(instance::Exploration, i64)> = None;
    let mut slack = 2;
    while slack <= 32 && inst.bound_growing(Some(slack)) {
        let ex = inst.reachable(cap, stop)?;
        if !ex.complete && ex.unsafe_state.is_none() {
            break;
        }
        let (n, found) = (ex.states.len(), ex.unsafe_state.is_some());
        let same = bounded.as_ref().is_some_and(|(e, _)| e.states.len() == n);
        bounded = Some((ex, slack));
        if same || found || n * 10 > cap {
            break;
        }
        slack *= 2;
    }
    inst.bound_growing(bounded.as_ref().map(|(_, s)| *s));
    Ok(match bounded {
        Some((ex, slack)) => (ex, Some(slack)),
        None => (inst.reachable(cap, stop)?, None),
    })
}

impl<'a> Oracle<'a> {
    /// Explores the instance of `sys` with `procs` processes (at most `cap` states).
    pub fn new(sys: &'a System, procs: usize, cap: usize, deadline: Option<std::time::Instant>) -> Result<Self, String> {
        Self::exploring(sys, procs, cap, false, deadline)
    }

    /// The oracle of [`Oracle::new`], whose exploration ends, with `stop`,
    /// at the first unsafe state (then its path is [`Oracle::unsafe_trace`]
    /// and the states are a prefix of the reachable ones).
    pub fn exploring(sys: &'a System, procs: usize, cap: usize, stop: bool, deadline: Option<std::time::Instant>) -> Result<Self, String> {
        Self::of_instance(Instance::new(sys, procs)?, cap, stop, deadline)
    }

    /// The oracle of [`Oracle::exploring`] on the instance of `sys`'s
    /// control part (see [`Instance::abstracting_data`]): literals over the
    /// data left out hold on every state, for the instance cannot tell;
    /// `None` when `sys` has no data to leave out.
    pub fn abstracting_data(sys: &System, procs: usize, cap: usize, stop: bool, deadline: Option<Instant>) -> Option<Result<Oracle<'static>, String>> {
        Instance::abstracting_data(sys, procs).map(|inst| Oracle::of_instance(inst?, cap, stop, deadline))
    }

    /// The same kind of oracle (data abstracted or not) on the instance of
    /// `sys` with `procs` processes.
    pub fn alike(&self, sys: &'a System, procs: usize, cap: usize, stop: bool, deadline: Option<Instant>) -> Result<Oracle<'a>, String> {
        match self.inst.abstracts_data() {
            true => Oracle::abstracting_data(sys, procs, cap, stop, deadline).unwrap_or_else(|| Err("no data to abstract".into())),
            false => Oracle::exploring(sys, procs, cap, stop, deadline),
        }
    }

    /// Whether the oracle's instance leaves data out.
    pub fn abstracts_data(&self) -> bool {
        self.inst.abstracts_data()
    }

    fn of_instance(mut inst: Instance<'a>, cap: usize, stop: bool, deadline: Option<Instant>) -> Result<Self, String> {
        let t0 = Instant::now();
        inst.deadline = deadline;
        let (ex, slack) = explore(&mut inst, cap, stop)?;
        let unsafe_trace = inst.unsafe_trace(&ex)?;
        let (states, complete, open) = (ex.states, ex.complete, ex.open);
        let max_lits = inst.procs + 1;
        Ok(Oracle {
            inst,
            states,
            open,
            complete,
            cap,
            limit: cap,
            explored_in: t0.elapsed(),
            since: Instant::now(),
            notes: vec![],
            sets: HashMap::default(),
            columns: HashMap::default(),
            banned: HashSet::default(),
            max_lits,
            unsafe_trace,
            slack,
            learnt: vec![],
            seeds: None,
            seeds_suffice: false,
        })
    }

    /// The oracle, whose incomplete exploration may grow up to `limit`
    /// states (see [`Oracle::deepen`]).
    pub fn deepening_up_to(mut self, limit: usize) -> Self {
        self.limit = limit.max(self.cap);
        self
    }

    /// Whether a candidate is settled by a complete exploration: no
    /// reachable state of the instance satisfies its literals over what
    /// the instance sees (no search may refute it).
    pub fn exact(&mut self, c: &Cube) -> bool {
        if !self.complete {
            return false;
        }
        self.reached(&c.lits, &c.vars) == Some(false)
    }

    /// Explores an incomplete instance further: [`DEEPEN_BY`] times as many
    /// states, up to the limit (a note says so). Done when an approximation
    /// it allowed is refuted, and once the search has run as long as the
    /// deeper exploration is expected to take (so at most about half the
    /// time goes to exploring).
    pub fn deepen(&mut self) {
        if !self.can_deepen() {
            return;
        }
        let t0 = Instant::now();
        self.cap = (self.cap * DEEPEN_BY).min(self.limit);
        let Ok((ex, slack)) = explore(&mut self.inst, self.cap, false) else {
            self.cap = self.limit;
            return;
        };
        (self.states, self.complete, self.open, self.slack) = (ex.states, ex.complete, ex.open, slack);
        self.states.extend(self.learnt.iter().cloned());
        self.sets.clear();
        self.columns.clear();
        self.explored_in = t0.elapsed();
        self.since = Instant::now();
        let cut = if self.complete { "" } else { " (exploration cut short)" };
        self.notes.push(format!(
            "the {}-process instance explored further: {} reachable states{cut} (in {:.2}s)",
            self.inst.procs,
            self.states.len(),
            self.explored_in.as_secs_f64()
        ));
    }

    /// Adds reachable states the exploration has not met (a walk's states
    /// into a refuted approximation: see [`Oracle::walk_into`]) to the
    /// states candidates are checked on, so that no candidate they satisfy
    /// is proposed again — every candidate one wrong guess shares with it
    /// is refuted with it (Cubicle bans the candidates a refuting trace's
    /// states satisfy). Kept over deeper explorations. A state the
    /// exploration has already met counts twice, which changes no answer.
    pub fn learn(&mut self, states: Vec<State>) {
        if states.is_empty() {
            return;
        }
        self.learnt.extend(states.iter().cloned());
        self.states.extend(states);
        self.sets.clear();
        self.columns.clear();
    }

    /// The number of reachable states learnt outside the exploration.
    pub fn learnt(&self) -> usize {
        self.learnt.len()
    }

    /// Whether [`Oracle::deepen`] would explore further.
    pub fn can_deepen(&self) -> bool {
        !self.complete && self.cap < self.limit
    }

    /// [`Oracle::deepen`] once the search has used the time it is expected to take.
    fn deepen_when_due(&mut self) {
        if self.can_deepen() && self.since.elapsed() > self.explored_in * DEEPEN_BY as u32 {
            self.deepen();
        }
    }

    /// The number of reachable states found.
    pub fn states(&self) -> usize {
        self.states.len()
    }

    /// The seeds of the backward search (see [`houdini`]) not refuted yet;
    /// `None` before [`Oracle::sow`].
    pub fn seeds(&self) -> Option<Vec<Cube>> {
        Some(self.seeds.as_ref()?.iter().filter(|c| !self.banned.contains(c)).cloned().collect())
    }

    /// Whether the seeds have been computed.
    pub fn sown(&self) -> bool {
        self.seeds.is_some()
    }

    /// Computes the seeds (see [`Oracle::seeds`]) of `sys`'s search, pre-images
    /// naming at most `max_procs` processes, the instance first explored as
    /// far as it may be; empty at `deadline`. A note says what was found.
    pub fn sow(&mut self, sys: &System, max_procs: usize, deadline: Option<Instant>) {
        while self.can_deepen() {
            self.deepen();
        }
        let t0 = Instant::now();
        let (seeds, all) = houdini::seeds(self, sys, max_procs, deadline);
        let which = if all { "every unsafe cube" } else { "some unsafe cubes" };
        let secs = t0.elapsed().as_secs_f64();
        self.notes.push(match seeds.len() {
            0 => format!("no candidate invariants of the instance, inductive together, cover an unsafe cube (looked for in {secs:.2}s)"),
            n => format!("{n} candidate invariants of the instance, inductive together, cover {which}: seeds of the search (found in {secs:.2}s)"),
        });
        self.seeds = Some(seeds);
        self.seeds_suffice = all;
    }

    /// Marks a candidate as refuted (reachable): it is never proposed again.
    pub fn ban(&mut self, c: &Cube) {
        self.banned.insert(c.clone());
    }

    /// The number of refuted candidates.
    pub fn banned(&self) -> usize {
        self.banned.len()
    }

    /// How far beyond the system's integers growing numbers may go in
    /// the instance (see [`Instance::bound_growing`]); `None` when unbounded.
    pub fn slack(&self) -> Option<i64> {
        self.slack
    }

    /// The number of processes of the instance.
    pub fn procs(&self) -> usize {
        self.inst.procs
    }

    /// Takes over the candidates another oracle has seen refuted.
    pub fn inherit(&mut self, other: &Oracle) {
        self.banned.extend(other.banned.iter().cloned());
    }

    /// Makes sure the values of a cell in every state (in the order of
    /// `states`) are at hand in `columns`.
    fn column(&mut self, cell: usize) {
        let states = &self.states;
        self.columns.entry(cell).or_insert_with(|| states.iter().map(|st| st[cell]).collect());
    }

    /// The states satisfying a literal whose variables stand for the given
    /// processes, as a bit set (`None` if it cannot be evaluated); a state
    /// whose open values the literal reads counts as satisfying it (see
    /// [`Oracle::reached`]).
    fn set(&mut self, lit: &Term, vars: &[Term], procs: &[i64]) -> Option<&Vec<u64>> {
        let env: Vec<(Term, i64)> = vars.iter().cloned().zip(procs.iter().cloned()).filter(|(v, _)| crate::logic::occurs(v, lit)).collect();
        let key = (lit.clone(), env.iter().map(|(_, p)| *p).collect::<Vec<i64>>(), env.iter().map(|(v, _)| v.clone()).collect::<Vec<Term>>());
        if !self.sets.contains_key(&key) {
            let (code, regs) = self.inst.compile(lit, &env);
            let bits = match self.simple(&code) {
                Some(bits) => bits,
                None => {
                    let mut bits = vec![0u64; self.states.len().div_ceil(64)];
                    let mut regs = vec![0i64; regs];
                    for (k, st) in self.states.iter().enumerate() {
                        match self.inst.val(&code, st, &mut regs) {
                            Ok(0) => {}
                            Ok(_) | Err(Stuck::Open(_)) => bits[k / 64] |= 1 << (k % 64),
                            Err(Stuck::Unsupported(_)) => return None,
                        }
                    }
                    bits
                }
            };
            self.sets.insert(key.clone(), bits);
        }
        self.sets.get(&key)
    }

    /// The bit set of a literal about cells only (`c`, `c = v`, `c = d`
    /// and their negations), computed column by column; `None` for others.
    fn simple(&mut self, code: &Code) -> Option<Vec<u64>> {
        let (neg, atom) = match code {
            Code::Not(x) => (true, &**x),
            x => (false, x),
        };
        let cells: Vec<usize> = match atom {
            Code::Cell(a) => vec![*a],
            Code::Eq(b) => match (&b.0, &b.1) {
                (Code::Cell(a), Code::Lit(_)) | (Code::Lit(_), Code::Cell(a)) => vec![*a],
                (Code::Cell(a), Code::Cell(c)) => vec![*a, *c],
                _ => return None,
            },
            _ => return None,
        };
        for &c in &cells {
            self.column(c);
        }
        let col = |i: usize| &self.columns[&cells[i]];
        let n = self.states.len();
        let mut bits = vec![0u64; n.div_ceil(64)];
        // a state with an open value in these cells may satisfy the literal
        let cols: Vec<&Vec<i64>> = cells.iter().map(|c| &self.columns[c]).collect();
        let open = |k: usize| cols.iter().any(|col| instance::open(col[k]).is_some());
        let mut fill = |pred: &dyn Fn(usize) -> bool| {
            for k in 0..n {
                if open(k) || pred(k) != neg {
                    bits[k / 64] |= 1 << (k % 64);
                }
            }
        };
        match atom {
            Code::Cell(_) => {
                let x = col(0);
                fill(&|k| x[k] != 0)
            }
            Code::Eq(b) => match (&b.0, &b.1) {
                (Code::Cell(_), Code::Lit(v)) | (Code::Lit(v), Code::Cell(_)) => {
                    let x = col(0);
                    fill(&|k| x[k] == *v)
                }
                _ => {
                    let (x, y) = (col(0), col(1));
                    fill(&|k| x[k] == y[k])
                }
            },
            _ => unreachable!("only cell literals get here"),
        }
        Some(bits)
    }

    /// The literals the instance evaluates: over data it leaves out (see
    /// [`Instance::abstracting_data`]) a literal is unknown, and taken to
    /// hold (Cubicle's abstract types), so that a cube is unreachable only
    /// when its literals over the control are.
    fn visible<'l>(&self, lits: &'l [Term]) -> std::borrow::Cow<'l, [Term]> {
        if !self.inst.abstracts_data() {
            return std::borrow::Cow::Borrowed(lits);
        }
        std::borrow::Cow::Owned(lits.iter().filter(|l| self.inst.sees(l)).cloned().collect())
    }

    /// Every assignment of distinct processes of the instance to `vars`.
    fn assignments(&self, vars: &[Term]) -> Vec<Vec<i64>> {
        let procs: Vec<Term> = (0..self.inst.procs).map(|p| Term::raw(Op::Int(p as i64), vec![], Sort::Index)).collect();
        injective_maps(vars, &procs).into_iter().map(|m| vars.iter().map(|v| m[v].as_int().unwrap()).collect()).collect()
    }

    /// The states that may satisfy every literal (their variables at
    /// processes `ps`), as the intersection of the literals' bit sets;
    /// `None` if a literal cannot be evaluated.
    fn hits(&mut self, lits: &[Term], vars: &[Term], ps: &[i64]) -> Option<Vec<u64>> {
        let n = self.states.len();
        let mut acc: Vec<u64> = (0..n.div_ceil(64)).map(|w| if (w + 1) * 64 <= n { u64::MAX } else { (1 << (n % 64)) - 1 }).collect();
        for l in lits {
            let s = self.set(l, vars, ps)?;
            acc.iter_mut().zip(s).for_each(|(a, b)| *a &= b);
        }
        Some(acc)
    }

    /// The literals' conjunction compiled, their variables at processes `ps`.
    fn conjunction(&self, lits: &[Term], vars: &[Term], ps: &[i64]) -> (Code, usize) {
        let env: Vec<(Term, i64)> = vars.iter().cloned().zip(ps.iter().cloned()).collect();
        self.inst.compile(&Term::and(lits.to_vec()), &env)
    }

    /// The completions of a state (its open values fixed as far as `code`
    /// reads them) on which `code` holds; `None` if it cannot be evaluated.
    fn completions_where(&self, st: &[i64], code: &Code, regs: usize) -> Option<Vec<State>> {
        let mut regs = vec![0i64; regs];
        let done = instance::completions(st.into(), &self.open, |s| self.inst.val(code, s, &mut regs)).ok()?;
        Some(done.into_iter().filter(|(_, v)| *v != 0).map(|(s, _)| s).collect())
    }

    /// Whether some reachable state satisfies the literals (over `vars`,
    /// pairwise distinct processes) that the instance sees (see
    /// [`Oracle::visible`]); `None` if they cannot be evaluated. The
    /// literals' bit sets tell which states may; a state with open values
    /// among them is checked exactly, its open values fixed in every way
    /// the literals read.
    fn reached(&mut self, lits: &[Term], vars: &[Term]) -> Option<bool> {
        let lits = self.visible(lits);
        for ps in self.assignments(vars) {
            let hits = self.hits(&lits, vars, &ps)?;
            if self.satisfying(&hits, &lits, vars, &ps, |_| true)? {
                return Some(true);
            }
        }
        Some(false)
    }

    /// Calls `f` on the states of `hits` that satisfy the literals (their
    /// variables at processes `ps`) — a state without open values as it
    /// is, others completed as far as the literals read — until it returns
    /// true; whether it did (`None` if a state cannot be evaluated).
    fn satisfying(&self, hits: &[u64], lits: &[Term], vars: &[Term], ps: &[i64], mut f: impl FnMut(&[i64]) -> bool) -> Option<bool> {
        let mut code = None;
        for (w, &word) in hits.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let k = w * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                let st = &self.states[k];
                if !instance::partial(st) {
                    if f(st) {
                        return Some(true);
                    }
                    continue;
                }
                let (code, regs) = code.get_or_insert_with(|| self.conjunction(lits, vars, ps));
                if self.completions_where(st, code, *regs)?.iter().any(|s| f(s)) {
                    return Some(true);
                }
            }
        }
        Some(false)
    }

    /// A more general cube than `cube` (fewer literals) that no reachable
    /// state of the instance satisfies, with the images of its variables
    /// among `cube`'s; smallest candidates first.
    pub fn approximate(&mut self, cube: &Cube) -> Option<(Cube, Vec<Term>)> {
        self.deepen_when_due();
        let n = cube.lits.len();
        // an instance without initial states (an initial formula that no
        // two processes satisfy together, say) tells literals nothing, but
        // the cube without literals — as many processes as the cube names
        // exist — is unreachable in it
        if self.states.is_empty() {
            if n == 0 || cube.arity() > self.inst.procs {
                return None;
            }
            let (c, ren) = Cube::normalize_renaming(&cube.vars, &[]).pop()?;
            if self.banned.contains(&c) {
                return None;
            }
            let back: HashMap<&Term, &Term> = ren.iter().map(|(a, b)| (b, a)).collect();
            return Some((c.clone(), c.vars.iter().map(|v| back[v].clone()).collect()));
        }
        // the cube's literals the instance sees (a candidate never names data
        // it leaves out, as in Cubicle), then weaker ones they imply; fewer
        // literals first
        let pool: Vec<Term> = self.visible(&cube.lits).iter().cloned().chain(weakenings(cube)).collect();
        for k in 1..=n.min(self.max_lits) {
            for pick in (0..pool.len()).combinations(k) {
                let lits: Vec<Term> = pick.iter().map(|&i| pool[i].clone()).collect();
                let vars: Vec<Term> = cube.vars.iter().filter(|v| lits.iter().any(|l| crate::logic::occurs(v, l))).cloned().collect();
                if vars.len() > self.inst.procs || (k == n && vars.len() == cube.arity()) || !plausible(&lits, &cube.vars, self.inst.procs) {
                    continue;
                }
                let mut cands = Cube::normalize_renaming(&vars, &lits);
                if cands.len() != 1 {
                    continue;
                }
                let (c, ren) = cands.pop().unwrap();
                if self.banned.contains(&c) {
                    continue;
                }
                if self.reached(&lits, &vars) != Some(false) {
                    continue;
                }
                // images of the candidate's variables among the cube's
                let back: HashMap<&Term, &Term> = ren.iter().map(|(a, b)| (b, a)).collect();
                let images: Vec<Term> = c.vars.iter().map(|v| back[v].clone()).collect();
                return Some((c, images));
            }
        }
        None
    }
}

/// Whether a set of literals is worth proposing as a candidate (Cubicle's
/// BRAB heuristics): a literal comparing a process variable itself
/// (`p = Owner`, `p ≠ q`) only with other literals about that process,
/// and three or more literals with fewer array reads (see [`array_reads`])
/// than the instance's processes (many of them make candidates that only
/// a larger instance refutes).
fn plausible(lits: &[Term], vars: &[Term], procs: usize) -> bool {
    fn bare<'t>(l: &'t Term, vars: &[Term]) -> Vec<&'t Term> {
        let atom = if *l.op() == Op::Not { &l.args()[0] } else { l };
        if *atom.op() != Op::Eq {
            return vec![];
        }
        atom.args().iter().filter(|a| vars.contains(a)).collect()
    }
    let bare = |l| bare(l, vars);
    let anchored = lits
        .iter()
        .enumerate()
        .all(|(i, l)| bare(l).iter().all(|v| lits.iter().enumerate().any(|(j, m)| j != i && bare(m).is_empty() && crate::logic::occurs(v, m))));
    let arrays: usize = lits.iter().map(array_reads).sum();
    anchored && (lits.len() < 3 || arrays < procs)
}

/// How many array reads a literal compares with symbols (Cubicle's count:
/// `A[p] = C`, `A[p] < x` and a Boolean `A[p]` count one, `A[p] = B[q]`
/// two, `A[p] = 3` none). A value of an enumeration is a symbol however
/// the enumeration is written (MCMT's subranges are numbers).
fn array_reads(l: &Term) -> usize {
    let atom = if *l.op() == Op::Not { &l.args()[0] } else { l };
    let enumerated = atom.args().iter().any(|a| matches!(a.sort(), Sort::Enum(_)));
    match atom.op() {
        Op::Select => 1,
        Op::Eq | Op::Lt | Op::Le if enumerated || !atom.args().iter().any(|a| matches!(a.op(), Op::Int(_) | Op::Real(..))) => {
            atom.args().iter().filter(|a| *a.op() == Op::Select).count()
        }
        _ => 0,
    }
}

/// Strict comparisons a cube implies that are weaker than its own
/// equalities: `a = b + p₁ + … + pₖ`, where each `pᵢ` is a positive number
/// or a term the cube says is positive (`0 < pᵢ`), gives `b < a`; and
/// `a = c` for a number `c ≠ 0` gives `0 < a` or `a < 0` (Cubicle's
/// approximation of arithmetic literals). Candidates built from them
/// generalise cubes that differ only in how far a clock has advanced
/// (`ts = Timer + Tick`, `ts = Timer + Tick + Tick`, …) into one.
fn weakenings(cube: &Cube) -> Vec<Term> {
    let zero = |t: &Term| matches!(t.op(), Op::Int(0) | Op::Real(0, _));
    let positive: Vec<&Term> = cube
        .lits
        .iter()
        .filter_map(|l| match l.op() {
            Op::Lt if zero(&l.args()[0]) => Some(&l.args()[1]),
            _ => None,
        })
        .collect();
    let is_positive = |t: &Term| match t.op() {
        Op::Int(n) => *n > 0,
        Op::Real(n, d) => (*n > 0) == (*d > 0) && *n != 0,
        _ => positive.contains(&t),
    };
    let mut out = vec![];
    for l in &cube.lits {
        if *l.op() != Op::Eq || !matches!(l.args()[0].sort(), Sort::Int | Sort::Real) {
            continue;
        }
        for (a, b) in [(&l.args()[0], &l.args()[1]), (&l.args()[1], &l.args()[0])] {
            if *b.op() == Op::Add {
                let (pos, rest): (Vec<&Term>, Vec<&Term>) = b.args().iter().partition(|t| is_positive(t));
                if !pos.is_empty() && !rest.is_empty() {
                    out.push(Term::lt(&Term::add(rest.into_iter().cloned()), a));
                }
            } else if b.is_value() && !zero(b) && !a.is_value() {
                let z = Term::add([b.clone(), b.neg()]);
                out.push(if is_positive(b) { Term::lt(&z, a) } else { Term::lt(a, &z) });
            }
        }
    }
    out.retain(|w| !cube.lits.contains(w) && !w.is_value());
    out.sort();
    out.dedup();
    out
}

/// Whether BRAB applies to the system (a finite instance can be explored).
pub fn applicable(sys: &System) -> bool {
    Instance::new(sys, 2).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A literal comparing a process variable itself needs another literal
    /// about that process; three literals may compare array reads with
    /// symbols at most `procs - 1` times.
    #[test]
    fn candidates_follow_cubicles_heuristics() {
        let (z1, z2) = (Term::var("z1", Sort::Index), Term::var("z2", Sort::Index));
        let owner = Term::var("Owner", Sort::Index);
        let arr = Term::var("A", Sort::array(vec![Sort::Index], Sort::Bool));
        let (busy, dirty) = (Term::var("Busy", Sort::Bool), Term::var("Dirty", Sort::Bool));
        let a = |z: &Term| Term::select(&arr, std::slice::from_ref(z));
        let vars = [z1.clone(), z2.clone()];
        // `Owner ≠ z2` alone says nothing about z2's state
        assert!(!plausible(&[a(&z1), Term::eq(&owner, &z2).not()], &vars, 2));
        assert!(plausible(&[a(&z2), Term::eq(&owner, &z2).not()], &vars, 2));
        assert!(!plausible(&[Term::eq(&z1, &z2).not(), a(&z1)], &vars, 2));
        // three literals, two of them array reads
        assert!(!plausible(&[a(&z1), a(&z2), busy.clone()], &vars, 2));
        assert!(plausible(&[a(&z1), a(&z2), busy.clone()], &vars, 3));
        assert!(plausible(&[a(&z1), dirty.clone(), busy.clone()], &vars, 2));
        assert!(plausible(&[a(&z1), a(&z2)], &vars, 2));
        // reads compared with numbers do not count
        let num = Term::var("N", Sort::array(vec![Sort::Index], Sort::Int));
        let n = |z: &Term, k: i64| Term::eq(&Term::select(&num, std::slice::from_ref(z)), &Term::int(k));
        assert!(plausible(&[n(&z1, 3), n(&z2, 4), busy.clone()], &vars, 2));
        // values of an enumeration are symbols, even as numbers (MCMT's subranges)
        let def = std::rc::Rc::new(crate::logic::EnumDef { name: "cmd".into(), values: crate::logic::EnumValues::Subrange(1, 3) });
        let cmd = Term::var("Cmd", Sort::array(vec![Sort::Index], Sort::Enum(def)));
        let c = |z: &Term, k: i64| Term::eq(&Term::select(&cmd, std::slice::from_ref(z)), &Term::int(k));
        assert!(!plausible(&[c(&z1, 3), c(&z2, 2), busy.clone()], &vars, 2));
    }

    /// With data left out of the instance, a cube whose literals over the
    /// control some state satisfies counts as reached (the instance cannot
    /// tell); candidates never name the data; only a candidate its control
    /// literals settle is exact (no search may refute it).
    #[test]
    fn candidates_never_name_data_the_instance_leaves_out() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/abstract_data_directory.cub");
        let sys = crate::frontend::parse_str(&std::fs::read_to_string(path).unwrap(), crate::frontend::Format::Cubicle).unwrap().system;
        let var = |n: &str| sys.vars[sys.var(n).unwrap()].term.clone();
        let (z1, z2) = (crate::system::cube::zvar(0, &sys.index_sort()), crate::system::cube::zvar(1, &sys.index_sort()));
        let read = |a: &str, z: &Term| Term::select(&var(a), std::slice::from_ref(z));
        let state = var("Cache").sort().as_array().unwrap().elem.clone();
        let cache = |z: &Term, k: i64| Term::eq(&read("Cache", z), &Term::enum_const(state.clone(), k));
        let stale_data = Term::eq(&read("CData", &z1), &var("Curr")).not();
        // a shared copy holding another value than the current one, two owners
        let stale = Cube::plain(vec![z1.clone()], vec![cache(&z1, 1), stale_data.clone()]);
        let clash = Cube::plain(vec![z1.clone(), z2.clone()], vec![cache(&z1, 2), cache(&z2, 1)]);
        let mut control = Oracle::abstracting_data(&sys, 2, 100_000, false, None).expect("the model has data").unwrap();
        assert!(control.complete && control.abstracts_data());
        assert_eq!(control.reached(&stale.lits, &stale.vars), Some(true), "the control instance cannot tell");
        assert_eq!(control.reached(&clash.lits, &clash.vars), Some(false));
        assert!(!control.exact(&stale) && control.exact(&clash));
        // an unreachable cube naming data: its candidates are over the control
        let mut both = clash.clone();
        both.lits.push(Term::eq(&read("CData", &z2), &var("Curr")).not());
        let (cand, _) = control.approximate(&both).expect("the owners' clash");
        assert!(cand.lits.iter().all(|l| control.inst.sees(l)), "{cand}");
        // the whole instance reaches no stale copy either, but the control cannot say so
        let mut whole = Oracle::new(&sys, 2, 100_000, None).unwrap();
        assert!(whole.complete && !whole.abstracts_data());
        assert_eq!(whole.reached(&stale.lits, &stale.vars), Some(false));
        assert!(control.approximate(&stale).is_none());
    }

    /// `ts = Timer + Tick + Tick ∧ 0 < Tick` is weakened to `Timer < ts`;
    /// `Timer = 1` to `0 < Timer`; nothing else is proposed.
    #[test]
    fn clock_offsets_are_weakened_to_comparisons() {
        let (timer, tick) = (Term::var("Timer", Sort::Real), Term::var("Tick", Sort::Real));
        let ts = Term::var("ts", Sort::Real);
        let zero = Term::real(0, 1);
        let lits = vec![Term::eq(&ts, &Term::add([timer.clone(), tick.clone(), tick.clone()])), Term::lt(&zero, &tick), Term::eq(&timer, &Term::real(1, 1))];
        let w = weakenings(&Cube::plain(vec![], lits.clone()));
        assert!(w.contains(&Term::lt(&timer, &ts)), "{w:?}");
        assert!(w.contains(&Term::lt(&zero, &timer)), "{w:?}");
        assert_eq!(w.len(), 2, "{w:?}");
        // without `0 < Tick` the offset may be negative: no weakening
        assert!(weakenings(&Cube::plain(vec![], vec![lits[0].clone()])).is_empty());
    }
}
