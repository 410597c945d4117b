//! The IC3/PDR loop (Spacer's shape over the system IR): frames `F_1 … F_k`
//! of lemmas; at each `k`, every unsafe cube meeting `F_k` becomes a proof
//! obligation, blocked recursively ([`Search::block`]): an obligation at
//! level `j` either has a predecessor in `F_{j-1}` (a new obligation one
//! level down; one in the initial states ends the round with a candidate
//! trace) or is blocked, and its generalisation becomes a lemma
//! ([`super::generalize`], [`super::quantify`]). Then lemmas are pushed
//! forward while they stay relatively inductive; a frame left without
//! lemmas of its own level equals the next one, and its lemmas form the
//! inductive invariant (certified by the caller with the other solver).

use super::abstraction::Abstraction;
use super::domain::Domain;
use super::frame::Frames;
use super::lemma::{Lemmas, INFINITY};
use super::obligation::{Obligation, Obligations};
use super::query::{Frame, Queries, Relative};
use super::Abstracting;
use crate::answer::{AbstractTrace, Answer, Counterexample, Proof, Stats};
use crate::logic::Term;
use crate::smt::Backend;
use crate::system::cube::Cube;
use crate::system::System;
use std::time::Instant;

/// Settings of one PDR search.
#[derive(Clone, Debug)]
pub struct Options {
    /// When the search must end.
    pub deadline: Option<Instant>,
    /// The proof obligations the search may create.
    pub max_obligations: Option<usize>,
    /// Index variables a pre-image cube may have.
    pub max_procs: usize,
    /// The search's solver.
    pub backend: Backend,
    /// How quantified lemmas enter queries.
    pub lemmas: Lemmas,
    /// Whether blocked cubes are quantified (Quic3) before minimisation.
    pub quantify: bool,
    /// Whether minimisation blocks counterexamples to generalisation.
    pub ctg: bool,
    /// Terms term abstraction names (counters and sizes): literals about
    /// them alone are dropped first.
    pub terms: Vec<Term>,
    /// Cubes whose negations hold by construction (range and location
    /// facts): lemmas of every frame, and part of the invariant.
    pub facts: Vec<Cube>,
    /// When the seeder runs, if the search is still undecided then.
    pub seed_at: Option<Instant>,
    /// The abstraction the search refines, if any.
    pub abstraction: Abstracting,
}

/// Invariants found apart from the search (cubes whose negations hold in
/// every reachable state), asked for once the search has run for a
/// while; `Err` ends the search with that reason.
pub type Seeder<'a> = Box<dyn FnOnce() -> Result<Vec<Cube>, String> + 'a>;

/// Frame `j` of `frames` as queries see it (`F_0`: the initial states).
pub fn frame(frames: &Frames, j: usize) -> Frame<'_> {
    if j == 0 {
        Frame::Initial
    } else {
        Frame::Lemmas(frames.at(j).collect())
    }
}

/// One IC3/PDR search over a system.
pub struct Search<'a> {
    pub(super) sys: &'a System,
    pub(super) opts: Options,
    pub(super) q: Queries<'a>,
    pub(super) frames: Frames,
    /// The last frame.
    pub(super) k: usize,
    /// Counters and timers.
    pub stats: Stats,
    /// The seeder, until it has run.
    seeder: Option<Seeder<'a>>,
    /// CTIGAR's domain, when the search abstracts lemmas.
    domain: Option<Domain>,
    /// The frame of the abstraction's last refinement (or its start).
    refined_at: usize,
}

/// Frames a search on an abstraction of the transitions may open after
/// its last refinement before the abstraction is given up (Spacer bounds
/// each abstraction's search: a spurious trace through a long loop would
/// take as many frames as iterations to show).
const ABSTRACT_FRAMES: usize = 6;

impl<'a> Search<'a> {
    /// A search on `sys`.
    pub fn new(sys: &'a System, opts: Options) -> Search<'a> {
        let mut q = Queries::new(sys, opts.backend, opts.lemmas, opts.max_procs, opts.deadline);
        if opts.abstraction == Abstracting::Transitions {
            q = q.abstracted(Abstraction::initial(sys));
        }
        let mut frames = Frames::default();
        for f in &opts.facts {
            frames.add(f.clone(), INFINITY);
        }
        Search { sys, opts, q, frames, k: 1, stats: Stats::default(), seeder: None, domain: None, refined_at: 1 }
    }

    /// The search with a seeder, run at `opts.seed_at`.
    pub fn seeded(mut self, seeder: Seeder<'a>) -> Search<'a> {
        self.seeder = Some(seeder);
        self
    }

    /// Runs the seeder once its time has come: its invariants join every
    /// frame (they hold in every reachable state, so adding them at any
    /// time keeps each frame an over-approximation of the states reachable
    /// within its bound).
    fn seed(&mut self) -> Result<(), String> {
        if self.opts.seed_at.is_none_or(|t| Instant::now() < t) {
            return Ok(());
        }
        let Some(seeder) = self.seeder.take() else { return Ok(()) };
        for c in seeder()? {
            self.frames.add(c, INFINITY);
        }
        Ok(())
    }

    /// Why the search must stop now, if it must.
    pub(super) fn limit(&self) -> Option<String> {
        if self.opts.deadline.is_some_and(|d| Instant::now() >= d) {
            return Some("timeout".into());
        }
        if self.opts.max_obligations.is_some_and(|n| self.stats.obligations >= n) {
            return Some("node limit".into());
        }
        None
    }

    /// The unsafe cubes in normal form.
    fn roots(&self) -> Vec<Cube> {
        let isort = self.sys.index_sort();
        let mut out = vec![];
        for u in &self.sys.unsafe_ {
            out.extend(u.cubes(&isort));
        }
        out
    }

    /// Runs the search; `replay` decides whether a candidate trace is real.
    pub fn run(&mut self, replay: &mut dyn FnMut(&AbstractTrace) -> bool) -> Answer {
        let roots = self.roots();
        self.stats.frames = self.k;
        if self.opts.abstraction == Abstracting::Domain {
            self.domain = Some(Domain::new(&roots));
        }
        for u in &roots {
            match self.q.initial(u) {
                Ok(None) => {
                    return self
                        .refute(AbstractTrace { cubes: vec![u.clone()], edges: vec![] }, replay)
                        .unwrap_or_else(|| Answer::Unknown("an abstraction refined on an empty path".into()))
                }
                Ok(Some(_)) => {}
                Err(w) => return Answer::Unknown(format!("solver: {w}")),
            }
        }
        loop {
            for u in &roots {
                loop {
                    if let Some(why) = self.limit() {
                        return Answer::Unknown(why);
                    }
                    match self.q.meets(&frame(&self.frames, self.k), u, &[]) {
                        Ok(false) => break,
                        Ok(true) => {}
                        Err(w) => return Answer::Unknown(format!("solver: {w}")),
                    }
                    if let Err(why) = self.seed() {
                        return Answer::Unknown(why);
                    }
                    match self.block(u.clone()) {
                        Ok(None) => {}
                        Ok(Some(trace)) => {
                            if let Some(answer) = self.refute(trace, replay) {
                                return answer;
                            }
                        }
                        Err(why) => return Answer::Unknown(why),
                    }
                }
            }
            match self.invariant_alone(&roots) {
                Ok(true) => return Answer::Safe(self.proof(INFINITY - 1)),
                Ok(false) => {}
                Err(w) => return Answer::Unknown(format!("solver: {w}")),
            }
            match self.propagate() {
                Ok(Some(j)) => return Answer::Safe(self.proof(j)),
                Ok(None) => {}
                Err(why) => return Answer::Unknown(why),
            }
            self.progress();
            self.k += 1;
            if self.k > self.refined_at + ABSTRACT_FRAMES && self.q.concretise() {
                tracing::debug!("abstraction given up at frame {}", self.k);
            }
            self.stats.frames = self.k;
        }
    }

    /// A candidate trace: answered UNSAFE when it replays; else the search
    /// goes on (`None`) when the abstraction of the transitions, if any, is
    /// refined on it, and ends otherwise (a spurious chain then comes from
    /// instantiation's incompleteness).
    fn refute(&mut self, trace: AbstractTrace, replay: &mut dyn FnMut(&AbstractTrace) -> bool) -> Option<Answer> {
        if replay(&trace) {
            return Some(Answer::Unsafe(Counterexample::Trace(trace, None)));
        }
        self.stats.spurious += 1;
        match self.q.refine(&trace) {
            Ok(0) => Some(Answer::Unknown("candidate counterexample did not replay".into())),
            Ok(shown) => {
                self.stats.refinements += 1;
                self.refined_at = self.k;
                tracing::debug!("abstraction refined: {shown} conjuncts of guards made visible");
                None
            }
            Err(w) => Some(Answer::Unknown(format!("solver: {w}"))),
        }
    }

    /// Blocks the unsafe cube `root` at the last frame: `Ok(None)` once it
    /// is, a candidate trace when a chain of obligations meets the initial
    /// states, `Err` at a limit or when the solver gives up.
    fn block(&mut self, root: Cube) -> Result<Option<AbstractTrace>, String> {
        let mut obs = Obligations::default();
        obs.push(Obligation { cube: root, level: self.k, parent: None, edge: None, depth: 0 });
        self.stats.obligations += 1;
        while let Some(id) = obs.pop() {
            if let Some(why) = self.limit() {
                return Err(why);
            }
            self.seed()?;
            let (c, j, depth) = (obs.get(id).cube.clone(), obs.get(id).level, obs.get(id).depth);
            if obs.get(id).parent.is_some() && !self.q.meets(&frame(&self.frames, j), &c, &[]).map_err(|w| format!("solver: {w}"))? {
                continue;
            }
            tracing::debug!("obligation at level {j}: {c}");
            if self.block_abstraction(&c, j) {
                continue;
            }
            match self.q.relative(&frame(&self.frames, j - 1), &c, true) {
                Relative::Predecessor(p, e, _) => {
                    let pred = Obligation { cube: p, level: j - 1, parent: Some(id), edge: Some(e), depth: depth + 1 };
                    self.stats.obligations += 1;
                    match self.q.initial(&pred.cube) {
                        Ok(None) => {
                            let pid = obs.push(pred);
                            return Ok(Some(obs.trace(pid)));
                        }
                        Ok(Some(_)) if j == 1 => return Err("a predecessor in the initial states that the initial states exclude (instantiation)".into()),
                        Ok(Some(_)) => {}
                        Err(w) => return Err(format!("solver: {w}")),
                    }
                    obs.push(pred);
                    obs.requeue(id);
                }
                Relative::Blocked(core) => {
                    self.refine_domain(&c, &core);
                    let (g, level) = self.generalize(&c, &core, j);
                    self.learn(g, level);
                }
                Relative::Unknown(w) => return Err(format!("solver: {w}")),
            }
        }
        Ok(None)
    }

    /// CTIGAR: blocks the obligation `c` at level `j` in its abstraction
    /// ([`Domain::abstraction`]) when it can, learning the abstraction's
    /// lemma; whether it did.
    fn block_abstraction(&mut self, c: &Cube, j: usize) -> bool {
        let Some(a) = self.domain.as_ref().and_then(|d| d.abstraction(c)) else { return false };
        if !matches!(self.q.initial(&a), Ok(Some(_))) {
            return false;
        }
        match self.q.relative(&frame(&self.frames, j - 1), &a, true) {
            Relative::Blocked(core) => {
                let (g, level) = self.generalize(&a, &core, j);
                self.learn(g, level);
                true
            }
            _ => false,
        }
    }

    /// CTIGAR: after the obligation `c` was blocked with the literals
    /// `core` where its abstraction was not (or had none), the core's
    /// literals join the domain.
    fn refine_domain(&mut self, c: &Cube, core: &[usize]) {
        if let Some(d) = self.domain.as_mut() {
            if d.refine(c, core) > 0 {
                self.stats.refinements += 1;
            }
        }
    }

    /// Whether the lemmas of every frame (inductive by themselves) keep
    /// every unsafe cube out.
    fn invariant_alone(&mut self, roots: &[Cube]) -> Result<bool, String> {
        for u in roots {
            if self.q.meets(&frame(&self.frames, INFINITY), u, &[])? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Pushes lemmas forward frame by frame; the first frame left without
    /// lemmas of its own level, if any (a fixpoint).
    fn propagate(&mut self) -> Result<Option<usize>, String> {
        for j in 1..=self.k {
            for c in self.frames.exactly(j) {
                if let Some(why) = self.limit() {
                    return Err(why);
                }
                if let Relative::Blocked(_) = self.q.relative(&frame(&self.frames, j), &c, true) {
                    self.frames.promote(&c, j, j + 1);
                }
            }
            if self.frames.exactly(j).is_empty() {
                return Ok(Some(j));
            }
        }
        Ok(None)
    }

    /// The proof once `F_j = F_{j+1}`: the cubes of the lemmas above `j`.
    fn proof(&self, j: usize) -> Proof {
        let mut invariant: Vec<Cube> = vec![];
        for c in self.frames.invariant(j) {
            for n in Cube::normalize(&c.vars, &c.lits) {
                if !invariant.iter().any(|d| d.key() == n.key()) {
                    invariant.push(n);
                }
            }
        }
        let hints = vec![vec![]; invariant.len()];
        Proof { invariant, hints, self_checked: false }
    }

    /// Reports the frames (`-v`: one line per frame).
    fn progress(&mut self) {
        self.stats.calls_pdr = self.q.calls;
        self.stats.t_solver = self.q.time;
        let (per, every) = self.frames.profile(self.k + 1);
        tracing::info!(
            "IC3/PDR: frame {}: {} lemmas in frames 1…{} ({} of level {}), {} inductive; obligations {}, solver calls {} ({:.2}s)",
            self.k,
            per.iter().sum::<usize>(),
            self.k + 1,
            per[self.k - 1],
            self.k,
            every,
            self.stats.obligations,
            self.q.calls,
            self.q.time.as_secs_f64()
        );
    }
}
