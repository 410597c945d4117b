//! Houdini's fixpoint over candidate invariants kept as ∃-cubes: members
//! meeting the initial states dropped, then rounds in which every live
//! member's pre-images are checked against the members' instances (a
//! counter-model drops each member whose pre-image it satisfies), until
//! every survivor's pre-images are covered.

use super::Options;
use crate::answer::{Answer, Proof, Stats};
use crate::logic::instantiate::all_maps;
use crate::logic::{free_vars, substitute, Sort, Term};
use crate::reach::fixpoint::Facts;
use crate::reach::path::index_terms;
use crate::reach::pre::pre_image;
use crate::reach::safety::{index_bounds, initial_query, instantiate_all};
use crate::smt::{self, SatResult, Solver};
use crate::system::cube::Cube;
use crate::system::System;
use crate::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// Candidates surviving sampling at most (else the fixpoint would be slow).
const MAX_SURVIVORS: usize = 4_000;

/// Backward cubes added to the fixpoint at most.
const MAX_BACKWARD: usize = 8;

/// Why a solver call gave no answer: the time limit, when (about) at its
/// end, else what the solver says.
fn unknown(why: String, deadline: Option<Instant>) -> String {
    if deadline.is_some_and(|d| Instant::now() + Duration::from_millis(100) >= d) {
        "timeout".into()
    } else {
        why
    }
}

/// One cube of the fixpoint.
struct Member {
    cube: Cube,
    /// An unsafe cube or a pre-image of one: never dropped.
    mandatory: bool,
    alive: bool,
}

/// Pre-images of members at one location, ready to be checked together.
struct Prepared {
    /// Where they are (their literals on the control variable).
    place: String,
    /// The literals without variables they share, to evaluate instances
    /// with.
    facts: Facts,
    /// Their index terms, which members are instantiated over.
    terms: Vec<Term>,
    /// The literal defining each pre-image in the solver.
    defining: Vec<Term>,
}

/// The outcome of checking a batch of pre-images.
enum Batch {
    /// All covered; the members needed.
    Covered(Vec<usize>),
    /// These pre-images (positions in the prepared batch) hold in a
    /// counter-model.
    Violated(Vec<usize>),
}

/// A candidate-invariant search over one program.
pub struct Houdini<'a> {
    pub(super) sys: &'a System,
    pub(super) opts: Options,
    solver: Box<dyn Solver>,
    members: Vec<Member>,
    pub(super) start: Instant,
    /// Counters and timers.
    pub stats: Stats,
    /// Candidates generated, left after sampling, left at the fixpoint;
    /// steps of the sampled executions.
    pub counts: (usize, usize, usize, u64),
    /// Instances asserted at the base level of a place's solver, by
    /// place and member.
    asserted: HashSet<(String, usize, Term)>,
    /// The literal defining each pre-image at the base level, by member
    /// and pre-image.
    defined: HashMap<(usize, String), Term>,
    /// The index terms each member is instantiated over at each place,
    /// and whether any instance was relevant there.
    instantiated: HashMap<(usize, String), (HashSet<Term>, bool)>,
    /// The solvers of the fixpoint checks, by place.
    solvers: HashMap<String, Box<dyn Solver>>,
    /// The sampled execution that reached an unsafe state, if one did.
    pub unsafe_run: Option<crate::engine::run::Opening>,
    /// The control variable, if the system has one.
    control: Option<Term>,
}

impl<'a> Houdini<'a> {
    /// A search over `sys`.
    pub fn new(sys: &'a System, opts: Options) -> Self {
        let solver = smt::solver(opts.backend);
        Houdini {
            sys,
            opts,
            solver,
            members: vec![],
            start: Instant::now(),
            stats: Stats::default(),
            counts: (0, 0, 0, 0),
            asserted: HashSet::default(),
            defined: HashMap::default(),
            instantiated: HashMap::default(),
            solvers: HashMap::default(),
            unsafe_run: None,
            control: crate::reach::dataflow::control_variable(sys).map(|k| sys.vars[k].term.clone()),
        }
    }

    /// When the time limit ends, if there is one.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.opts.timeout.map(|t| self.start + t)
    }

    pub(super) fn timed_out(&self) -> bool {
        self.opts.timeout.is_some_and(|t| self.start.elapsed() >= t) || crate::engine::interrupted()
    }

    /// The time left.
    pub(super) fn left(&self) -> Option<Duration> {
        self.opts.timeout.map(|t| t.saturating_sub(self.start.elapsed()))
    }

    pub(super) fn add(&mut self, cube: Cube, mandatory: bool) -> usize {
        self.stats.nodes += 1;
        self.members.push(Member { cube, mandatory, alive: true });
        self.members.len() - 1
    }

    /// The cubes that do not meet the initial states: checked together,
    /// each counter-model removing the cubes it satisfies.
    fn disjoint_from_initial(&mut self, mut cubes: Vec<Cube>) -> Result<Vec<Cube>, String> {
        loop {
            if cubes.is_empty() {
                return Ok(cubes);
            }
            if self.timed_out() {
                return Err("timeout".into());
            }
            let ds: Vec<Term> = (0..cubes.len()).map(|j| Term::var(&format!("houdini!init{j}"), Sort::Bool)).collect();
            let mut parts: Vec<Term> = cubes.iter().zip(&ds).map(|(c, d)| Term::eq(d, &initial_query(self.sys, c))).collect();
            parts.push(Term::or(ds.iter().cloned()));
            self.stats.calls_safety += 1;
            let left = self.left();
            smt::limit_to(self.solver.as_mut(), left);
            self.solver.push();
            self.solver.assert(&Term::and(parts));
            let r = self.solver.check();
            let met: Vec<bool> = match &r {
                SatResult::Sat => ds.iter().map(|d| self.solver.value(d).and_then(|v| v.as_bool()) == Some(true)).collect(),
                _ => vec![],
            };
            self.solver.pop();
            match r {
                SatResult::Unsat => return Ok(cubes),
                SatResult::Sat if met.iter().any(|m| *m) => {
                    let mut k = 0;
                    cubes.retain(|_| {
                        k += 1;
                        !met[k - 1]
                    });
                }
                SatResult::Sat => return Err("no cube holds in the model of their disjunction".into()),
                SatResult::Unknown(why) => return Err(unknown(why, self.deadline())),
            }
        }
    }

    /// Where a pre-image is: its literals on the control variable.
    fn place(&self, p: &Cube) -> String {
        p.lits.iter().filter(|l| self.control.as_ref().is_some_and(|c| free_vars(l).contains(c))).map(|l| l.to_string()).collect::<Vec<_>>().join(" ")
    }

    /// The solver that checks the pre-images at one place: each place's
    /// definitions and instances in a solver of their own.
    fn solver_at(&mut self, place: &str) -> &mut Box<dyn Solver> {
        let backend = self.opts.backend;
        self.solvers.entry(place.to_string()).or_insert_with(|| smt::solver(backend))
    }

    /// Prepares pre-images of members at one location for checking
    /// together: their shared literals without variables, their index
    /// terms, and the literal defining each (asserted once, at the base
    /// level).
    fn prepare(&mut self, batch: &[(usize, Cube)]) -> Prepared {
        // the literals without variables all pre-images share (the location)
        let common: Vec<Term> = batch[0]
            .1
            .lits
            .iter()
            .filter(|l| batch.iter().all(|(_, p)| p.lits.contains(l)) && free_vars(l).iter().all(|v| !batch[0].1.vars.contains(v)))
            .cloned()
            .collect();
        let place = self.place(&batch[0].1);
        let facts = Facts::of(&Cube::plain(vec![], common));
        let mut terms: Vec<Term> = batch.iter().flat_map(|(_, p)| index_terms(self.sys, &p.body())).collect();
        terms.sort();
        terms.dedup();
        let mut definitions = vec![];
        let mut defining = vec![];
        for (k, p) in batch {
            let n = self.defined.len();
            let d = self.defined.entry((*k, p.key())).or_insert_with(|| {
                let d = Term::var(&format!("houdini!pre{n}"), Sort::Bool);
                let mut body = vec![p.body(), Term::distinct(&p.vars)];
                body.extend(index_bounds(self.sys, &p.vars));
                body.extend(instantiate_all(self.sys, &self.sys.axioms, &p.vars));
                definitions.push(Term::eq(&d, &Term::and(body)));
                d
            });
            defining.push(d.clone());
        }
        if !definitions.is_empty() {
            self.solver_at(&place).assert(&Term::and(definitions));
        }
        Prepared { place, facts, terms, defining }
    }

    /// Checks the prepared pre-images at positions `live` together: whether
    /// the live members cover all of them (instantiation-based fixpoint
    /// test: each member's negation instantiated over the pre-images'
    /// index terms) — then the members an unsat core needs — or else which
    /// of them (positions) a counter-model satisfies.
    fn check_batch(&mut self, prep: &Prepared, live: &[usize]) -> Result<Batch, String> {
        let (place, facts, terms) = (&prep.place, &prep.facts, &prep.terms);
        let t_inst = Instant::now();
        let disjuncts: Vec<&Term> = live.iter().map(|&j| &prep.defining[j]).collect();
        // the members' instances stay asserted, each under its member's
        // selector (assumed only while the member lives): later batches
        // reuse them
        let mut selectors = vec![];
        let mut fresh = vec![];
        for k in 0..self.members.len() {
            if !self.members[k].alive {
                continue;
            }
            let m = &self.members[k].cube;
            // literals without variables first: most members are at another location
            let ground = m.lits.iter().filter(|l| m.vars.iter().all(|v| !free_vars(l).contains(v)));
            if ground.into_iter().any(|l| facts.eval(l).0 == Some(false)) {
                continue;
            }
            let selector = Term::var(&format!("houdini!{k}"), Sort::Bool);
            // instances over a superset of these terms at this location are
            // asserted already (a batch shrinks as its pre-images drop)
            let done = self.instantiated.entry((k, place.clone())).or_default();
            if terms.iter().all(|t| done.0.contains(t)) {
                if done.1 {
                    selectors.push((selector, k));
                }
                continue;
            }
            done.0.extend(terms.iter().cloned());
            let mut any = false;
            for map in all_maps(&m.vars, terms) {
                let lits: Vec<Term> = m.lits.iter().map(|l| substitute(l, &map)).collect();
                if lits.iter().any(|l| facts.eval(l).0 == Some(false)) {
                    continue;
                }
                any = true;
                let images: Vec<Term> = m.vars.iter().map(|v| map[v].clone()).collect();
                // the member speaks of distinct variables only
                let clause = Term::or([Term::distinct(&images).not(), Term::and(lits).not()]);
                if self.asserted.insert((place.clone(), k, clause.clone())) {
                    fresh.push(Term::implies(&selector, &clause));
                }
            }
            if any {
                self.instantiated.entry((k, place.clone())).or_default().1 = true;
                selectors.push((selector, k));
            }
        }
        let (n_fresh, t_inst) = (fresh.len(), t_inst.elapsed());
        let left = self.left();
        let deadline = self.deadline();
        let solver = self.solvers.get_mut(place).expect("prepared");
        if !fresh.is_empty() {
            solver.assert(&Term::and(fresh));
        }
        self.stats.calls_fixpoint += 1;
        let t0 = Instant::now();
        smt::limit_to(solver.as_mut(), left);
        solver.push();
        solver.assert(&Term::or(disjuncts.iter().map(|d| (*d).clone())));
        let assumed: Vec<Term> = selectors.iter().map(|(s, _)| s.clone()).collect();
        let r = solver.check_assuming(&assumed);
        let out = match r {
            SatResult::Unsat => {
                let core = solver.unsat_core();
                Ok(Batch::Covered(selectors.into_iter().filter(|(s, _)| core.contains(s)).map(|(_, k)| k).collect()))
            }
            SatResult::Sat => {
                Ok(Batch::Violated(live.iter().copied().filter(|&j| solver.value(&prep.defining[j]).and_then(|v| v.as_bool()) == Some(true)).collect()))
            }
            SatResult::Unknown(why) => Err(unknown(why, deadline)),
        };
        solver.pop();
        tracing::debug!(
            "houdini: check at {place}: {} pre-images, {} members, {n_fresh} new instances ({:.3}s), {:.3}s",
            live.len(),
            assumed.len(),
            t_inst.as_secs_f64(),
            t0.elapsed().as_secs_f64()
        );
        self.stats.t_fixpoint += t0.elapsed();
        out
    }

    /// The pre-images of a member (an empty one is covered by any member:
    /// the covering query finds it unsatisfiable).
    fn pre_images(&mut self, c: &Cube) -> Vec<Cube> {
        let t0 = Instant::now();
        let mut out = vec![];
        for ti in 0..self.sys.transitions.len() {
            out.extend(pre_image(self.sys, c, ti, self.opts.max_procs, false).0.into_iter().map(|(p, _)| p));
        }
        self.stats.t_pre += t0.elapsed();
        out
    }

    /// Runs the search: a proof, or why there is none.
    pub fn run(&mut self) -> Answer {
        match self.search() {
            Ok(o) => o,
            Err(why) => Answer::Unknown(why),
        }
    }

    /// Samples, then runs the fixpoint on the candidates of one quantified
    /// variable at most at visited locations, then, if they prove nothing,
    /// with the others added.
    fn search(&mut self) -> Result<Answer, String> {
        let (cubes, more) = self.sampled()?;
        tracing::debug!(
            "houdini: {} candidates, {} after sampling {} steps ({:.2}s)",
            self.counts.0,
            self.counts.1,
            self.counts.3,
            self.start.elapsed().as_secs_f64()
        );
        let first = self.fixpoint(cubes);
        if more.is_empty() || self.timed_out() || matches!(first, Ok(Answer::Safe(_))) {
            return first;
        }
        // a fresh start: the first attempt's solvers go, its survivors
        // stay (those it dropped are not tried again)
        let survivors: Vec<Cube> = self.members.iter().filter(|m| m.alive && !m.mandatory).map(|m| m.cube.clone()).collect();
        self.members.clear();
        self.asserted.clear();
        self.defined.clear();
        self.instantiated.clear();
        self.solvers.clear();
        self.solver = smt::solver(self.opts.backend);
        self.fixpoint(survivors.into_iter().chain(more).collect())
    }

    /// The candidates that survive sampled executions and are inductive
    /// together (Houdini's greatest fixpoint, without the unsafe cubes):
    /// cubes whose negations hold in every reachable state, whatever the
    /// property. Empty when sampling reaches an unsafe state; `Err` at the
    /// time limit or when the solver gives up.
    pub fn invariants(&mut self) -> Result<Vec<Cube>, String> {
        let (mut cubes, more) = self.sampled()?;
        cubes.extend(more);
        self.members_of(cubes, false)?;
        match self.rounds(&mut HashMap::default())? {
            Some(Answer::Unknown(why)) => return Err(why),
            Some(_) => return Err("the fixpoint without unsafe cubes ended with an answer".into()),
            None => {}
        }
        Ok(self.members.iter().filter(|m| m.alive).map(|m| m.cube.clone()).collect())
    }

    /// The fixpoint's members: the unsafe cubes (if `unsafe_`, never
    /// dropped), and the candidate cubes disjoint from the initial states.
    fn members_of(&mut self, cubes: Vec<Cube>, unsafe_: bool) -> Result<(), String> {
        if cubes.len() > MAX_SURVIVORS {
            return Err(format!("too many candidates ({}) survive sampling", cubes.len()));
        }
        if unsafe_ {
            for q in self.sys.unsafe_.clone() {
                for c in Cube::normalize(&q.vars, &q.lits) {
                    self.add(c, true);
                }
            }
        }
        for c in self.disjoint_from_initial(cubes)? {
            self.add(c, false);
        }
        Ok(())
    }

    /// Houdini's fixpoint over the candidates' cubes: the proof, or why
    /// there is none.
    fn fixpoint(&mut self, cubes: Vec<Cube>) -> Result<Answer, String> {
        self.members_of(cubes, true)?;
        tracing::debug!("houdini: {} members after the initial states ({:.2}s)", self.members.len(), self.start.elapsed().as_secs_f64());
        for m in &self.members {
            tracing::trace!("houdini member {}", m.cube);
        }
        let mut pre_cache: HashMap<usize, Vec<Cube>> = HashMap::default();
        if let Some(stop) = self.rounds(&mut pre_cache)? {
            return Ok(stop);
        }
        self.proof(&pre_cache)
    }

    /// Houdini's fixpoint, by rounds: the pre-images of the live members
    /// (cached in `pre_cache`), location by location, checked together; a
    /// counter-model drops the members whose pre-images it satisfies (or,
    /// for unsafe and backward cubes, adds those pre-images), until a round
    /// drops nothing. An answer when the search must stop (timeout, an
    /// unsafe pre-image not covered).
    fn rounds(&mut self, pre_cache: &mut HashMap<usize, Vec<Cube>>) -> Result<Option<Answer>, String> {
        let mut backward = 0;
        let mut progress = crate::engine::Progress::new("candidate invariants");
        loop {
            progress.tick(|| {
                format!(
                    "fixpoint: {} of {} members live, {} solver calls",
                    self.members.iter().filter(|m| m.alive).count(),
                    self.members.len(),
                    self.stats.solver_calls()
                )
            });
            let mut changed = false;
            for (_, batch) in self.batches(pre_cache) {
                let prep = self.prepare(&batch);
                loop {
                    if self.timed_out() {
                        return Ok(Some(Answer::Unknown("timeout".into())));
                    }
                    let live: Vec<usize> = (0..batch.len()).filter(|&j| self.members[batch[j].0].alive).collect();
                    if live.is_empty() {
                        break;
                    }
                    self.stats.expanded += 1;
                    match self.check_batch(&prep, &live)? {
                        Batch::Covered(_) => {
                            self.stats.covered += live.len();
                            break;
                        }
                        Batch::Violated(js) => {
                            changed = true;
                            for j in js {
                                if let Some(stop) = self.violated(&batch[j], &mut backward)? {
                                    return Ok(Some(stop));
                                }
                            }
                        }
                    }
                }
            }
            if !changed {
                return Ok(None);
            }
        }
    }

    /// The pre-images of the live members (computed once, kept in
    /// `pre_cache`) by the place they are checked at, each with its member.
    fn batches(&mut self, pre_cache: &mut HashMap<usize, Vec<Cube>>) -> std::collections::BTreeMap<String, Vec<(usize, Cube)>> {
        let mut batches: std::collections::BTreeMap<String, Vec<(usize, Cube)>> = std::collections::BTreeMap::new();
        for k in 0..self.members.len() {
            if !self.members[k].alive {
                continue;
            }
            if let std::collections::hash_map::Entry::Vacant(e) = pre_cache.entry(k) {
                let cube = self.members[k].cube.clone();
                let p = self.pre_images(&cube);
                for q in &p {
                    tracing::trace!("houdini: pre-image of {cube}: {q}");
                }
                e.insert(p);
            }
            for p in &pre_cache[&k] {
                batches.entry(self.place(p)).or_default().push((k, p.clone()));
            }
        }
        batches
    }

    /// A member `k` whose pre-image `p` the members do not cover: a
    /// candidate goes; an unsafe or backward cube gains `p` as a backward
    /// cube (one more of `backward`, up to a bound). An answer when the
    /// search must stop.
    fn violated(&mut self, (k, p): &(usize, Cube), backward: &mut usize) -> Result<Option<Answer>, String> {
        if self.members[*k].mandatory {
            // a step of backward reachability
            if *backward >= MAX_BACKWARD {
                tracing::debug!("houdini: uncovered pre-image of a mandatory cube: {p}");
                return Ok(Some(Answer::Unknown("the candidates do not cover the unsafe states' pre-images".into())));
            }
            if self.disjoint_from_initial(vec![p.clone()])?.is_empty() {
                return Ok(Some(Answer::Unknown("a pre-image of the unsafe states meets the initial states".into())));
            }
            *backward += 1;
            self.add(p.clone(), true);
        } else if self.members[*k].alive {
            tracing::debug!("houdini: dropped {}\n    pre-image not covered: {p}", self.members[*k].cube);
            self.members[*k].alive = false;
        }
        Ok(None)
    }

    /// The proof once the rounds are done: the unsafe cubes and,
    /// transitively, the members that cover their pre-images, each
    /// pre-image checked alone (the batches' cores are unions).
    fn proof(&mut self, pre_cache: &HashMap<usize, Vec<Cube>>) -> Result<Answer, String> {
        // the proof: the unsafe cubes and, transitively, the members that
        // cover their pre-images, each pre-image checked alone (the batches'
        // cores are unions)
        let mut keep: Vec<usize> = (0..self.members.len()).filter(|&k| self.members[k].alive && self.members[k].mandatory).collect();
        let mut kept: HashSet<usize> = keep.iter().copied().collect();
        let mut i = 0;
        while i < keep.len() {
            let k = keep[i];
            for p in pre_cache.get(&k).cloned().unwrap_or_default() {
                if self.timed_out() {
                    return Ok(Answer::Unknown("timeout".into()));
                }
                let prep = self.prepare(&[(k, p)]);
                let core = match self.check_batch(&prep, &[0])? {
                    Batch::Covered(core) => core,
                    Batch::Violated(_) => return Ok(Answer::Unknown("a pre-image covered in its batch is not covered alone".into())),
                };
                for b in core {
                    if kept.insert(b) {
                        keep.push(b);
                    }
                }
            }
            i += 1;
        }
        keep.sort();
        let proof = Proof { invariant: keep.iter().map(|&k| self.members[k].cube.clone()).collect(), hints: vec![], self_checked: false };
        self.counts.2 = proof.invariant.len();
        let n = proof.invariant.len();
        Ok(Answer::Safe(Proof { hints: vec![vec![]; n], ..proof }))
    }
}
