//! Backward reachability (MCMT, Cubicle): from the unsafe cubes, compute
//! pre-images breadth- or depth-first; stop when a cube meets the initial
//! states (a candidate trace, replayed by the caller) or when every new cube
//! is covered by the visited ones (safe: their negations form an inductive
//! invariant). Visited cubes subsumed by a newer one are deleted.

use crate::answer::{AbstractTrace, Answer, Counterexample, Edge, EdgeKind, GraphEdge, GraphNode, Hint, Limit, NodeKind, Proof, SearchGraph, Stats};
use crate::logic::units::refuted_by_units;
use crate::logic::{Op, Sort, Term};
use crate::reach::fixpoint::{match_cube, Facts, Match, Pattern};
use crate::reach::pre::pre_image;
use crate::reach::safety::{index_bounds, initial_query, instantiate_all};
use crate::reach::visited::Index;
use crate::smt::{self, Backend, SatResult, Solver};
use crate::system::cube::Cube;
use crate::system::System;
use crate::{HashMap, HashSet};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The exploration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Breadth-first: shortest traces, smallest invariants in practice.
    Bfs,
    /// Depth-first.
    Dfs,
}

/// Which pre-images wait until the queue is empty (Cubicle's postponement):
/// exploring the others first finds more general cubes earlier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Postpone {
    /// None.
    Never,
    /// Those naming more processes than their successor.
    MoreProcs,
}

/// Settings of a backward search.
#[derive(Clone, Debug)]
pub struct Options {
    /// Exploration order.
    pub order: Order,
    /// Wall-clock limit.
    pub timeout: Option<Duration>,
    /// Limit on nodes created.
    pub max_nodes: Option<usize>,
    /// Limit on index variables per cube (processes a cube may name).
    pub max_procs: usize,
    /// The solver used by the search.
    pub backend: Backend,
    /// Which pre-images are postponed.
    pub postpone: Postpone,
    /// Suggested invariants known to be false (not used as roots).
    pub dropped_hints: Vec<usize>,
    /// Exact universal guards: pre-images keep them as conditions on the
    /// processes they do not name (else they are only instantiated on the
    /// named ones, and a spurious trace stops the search for another try).
    pub exact: bool,
    /// Nodes after which a search with an oracle has it sow its seeds
    /// (see `brab::houdini`): most searches end long before.
    pub sow_after: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            order: Order::Bfs,
            timeout: None,
            max_nodes: None,
            max_procs: 8,
            backend: Backend::Z3,
            postpone: Postpone::MoreProcs,
            dropped_hints: vec![],
            exact: false,
            sow_after: 10_000,
        }
    }
}

/// What became of a node.
#[derive(Clone, Debug)]
enum Fate {
    /// Still queued.
    Pending,
    /// Expanded and kept among the visited cubes.
    Visited,
    /// Covered by these instances of visited nodes (node, images of its variables).
    Covered(Vec<(usize, Vec<Term>)>),
}

struct Node {
    cube: Cube,
    /// The cube prepared for matching, once visited.
    pattern: Option<Pattern>,
    parent: Option<usize>,
    edge: Option<Edge>,
    /// Set when a newer node subsumed this visited one: (that node, images
    /// of its variables among this node's variables).
    deleted: Option<(usize, Vec<Term>)>,
    fate: Fate,
    /// Pre-images: the node holding each (None: unsatisfiable) and the edge.
    children: Vec<(Option<usize>, Edge)>,
    /// For a root standing for a suggested invariant: which one.
    hint: Option<usize>,
    /// When the node's cube was replaced by an approximation: the original
    /// cube's variables, and the images of the approximation's variables
    /// among them.
    approx: Option<(Vec<Term>, Vec<Term>)>,
}

/// A backward reachability search over one system.
pub struct Search<'a> {
    sys: &'a System,
    opts: Options,
    /// The solver, made at the first query unit propagation does not refute.
    solver: Option<Box<dyn Solver>>,
    nodes: Vec<Node>,
    visited: Vec<usize>,
    /// The visited cubes indexed for the syntactic covering test.
    index: Index,
    /// The node of each cube met (canonical cubes: equality is identity of their terms).
    seen: HashMap<Cube, usize>,
    /// Counters and timers.
    pub stats: Stats,
    start: Instant,
    /// The approximation oracle (BRAB), if any.
    oracle: Option<crate::engine::bwd::brab::Oracle<'a>>,
    /// The approximated nodes whose approximation a complete exploration
    /// of the instance allowed: no state of the instance reaches them, so
    /// no walk of the instance refutes them.
    unrefutable: HashSet<usize>,
    /// Whether some pre-image was dropped for naming too many processes
    /// (then the search cannot conclude SAFE).
    truncated: bool,
    /// Whether trying the covering instances local to a cube first pays.
    local_first: LocalFirst,
}

/// The record that decides whether the fixpoint test tries the instances
/// over a cube's own terms alone before all of them: that pays when the
/// local part is unsatisfiable often enough. On some protocols it nearly
/// always is (Ricart–Agrawala: every time, where the whole query takes
/// twice as long); on FLASH nearly never (1 in 136), and each try costs
/// about a third of a whole check. Counts, not times, decide, so that a
/// run does the same checks every time.
#[derive(Default)]
struct LocalFirst {
    tries: u32,
    hits: u32,
}

impl LocalFirst {
    /// The number of local checks made before their record decides.
    const TRIAL: u32 = 8;

    /// Whether the next cube's local part is worth a check of its own:
    /// while its estimated chance of success (Laplace's rule) is at least
    /// a quarter.
    fn worth(&self) -> bool {
        self.tries < Self::TRIAL || 4 * (self.hits + 1) >= self.tries + 2
    }
    fn tried(&mut self, hit: bool) {
        self.tries += 1;
        self.hits += hit as u32;
    }
}

/// What the safety test of a node found.
enum Safety {
    /// The cube does not meet the initial states.
    Disjoint,
    /// It does, along a spurious trace: the search goes on.
    Spurious,
    /// The search ends.
    End(Ended),
}

/// How one search ended: with an answer, or with a reason to search again.
#[derive(Clone, Debug)]
pub enum Ended {
    /// An answer (a trace is already replayed by the caller's `replay`).
    Answer(Answer),
    /// An approximation met the initial states: ban this cube (the
    /// approximation) and search again.
    Refuted(Cube),
    /// A trace reached this suggested invariant: drop it and search again.
    RefutedHint(usize),
    /// A trace was spurious while universal guards were approximated:
    /// search again with exact ones.
    Inexact,
    /// The oracle has seeds for the search (see `brab::houdini`): search
    /// again from them.
    Seeded,
}

/// How many states reachable from a walk into a refuted approximation
/// the oracle learns besides the walk's own (see `Oracle::learn`).
const LEARN_AROUND: usize = 2000;

impl<'a> Search<'a> {
    /// A search on `sys` with the given options.
    pub fn new(sys: &'a System, opts: Options) -> Self {
        Search {
            sys,
            opts,
            solver: None,
            nodes: vec![],
            visited: vec![],
            index: Index::default(),
            seen: HashMap::default(),
            stats: Stats::default(),
            start: Instant::now(),
            oracle: None,
            unrefutable: HashSet::default(),
            truncated: false,
            local_first: LocalFirst::default(),
        }
    }

    /// Uses this solver (one an earlier search made) instead of making one.
    pub fn with_solver(mut self, solver: Option<Box<dyn Solver>>) -> Self {
        self.solver = solver;
        self
    }

    /// Gives the solver back, if the search made or was given one.
    pub fn take_solver(&mut self) -> Option<Box<dyn Solver>> {
        self.solver.take()
    }

    /// Uses the oracle to approximate visited cubes (BRAB).
    pub fn with_oracle(mut self, oracle: crate::engine::bwd::brab::Oracle<'a>) -> Self {
        self.oracle = Some(oracle);
        self
    }

    /// Gives the oracle back (with what it learnt).
    pub fn take_oracle(&mut self) -> Option<crate::engine::bwd::brab::Oracle<'a>> {
        self.oracle.take()
    }

    /// The hint at the root of a node's path, if the root is a hint.
    fn root_hint(&self, mut id: usize) -> Option<usize> {
        while let Some(p) = self.nodes[id].parent {
            id = p;
        }
        self.nodes[id].hint
    }

    /// The nearest node on the path to the root (itself included) whose
    /// cube is an approximation.
    fn approximated_ancestor(&self, mut id: usize) -> Option<usize> {
        loop {
            if self.nodes[id].approx.is_some() {
                return Some(id);
            }
            id = self.nodes[id].parent?;
        }
    }

    fn limit(&self) -> Option<Limit> {
        if self.opts.timeout.is_some_and(|t| self.start.elapsed() >= t) || crate::engine::interrupted() {
            return Some(Limit::Timeout);
        }
        if let Some(n) = self.opts.max_nodes {
            if self.stats.nodes >= n {
                return Some(Limit::NodeLimit);
            }
        }
        None
    }

    /// Whether `f` is satisfiable: unsatisfiable without a solver when unit
    /// propagation refutes it, else by the solver (made on first use), the
    /// call counted by `count`.
    fn check(&mut self, f: &Term, count: fn(&mut Stats) -> &mut usize) -> SatResult {
        if refuted_by_units(f) {
            return SatResult::Unsat;
        }
        *count(&mut self.stats) += 1;
        let solver = self.solver.get_or_insert_with(|| smt::checker(self.opts.backend));
        solver.push();
        solver.assert(f);
        let r = solver.check();
        solver.pop();
        r
    }

    /// Runs the search. `replay` decides whether a candidate trace is real
    /// (it replays it on a concrete instance); spurious ones are set aside
    /// and the search goes on, ending UNKNOWN if no real trace appears.
    pub fn run(&mut self, replay: &mut dyn FnMut(&AbstractTrace) -> bool) -> Ended {
        self.start = Instant::now();
        let mut queue = self.roots();
        let mut spurious = false;
        let mut hit_limit: Option<Limit> = None;
        let mut postponed: Vec<usize> = vec![];
        let mut progress = crate::engine::Progress::new("backward search");
        loop {
            progress.tick(|| {
                let s = &self.stats;
                format!(
                    "{} nodes, {} visited, {} covered, {} in the queue, max processes {}, {} solver calls",
                    s.nodes,
                    self.visited.len(),
                    s.covered,
                    queue.len() + postponed.len(),
                    s.max_vars,
                    s.solver_calls()
                )
            });
            if queue.is_empty() {
                queue.extend(postponed.drain(..));
            }
            let Some(id) = (match self.opts.order {
                Order::Bfs => queue.pop_front(),
                Order::Dfs => queue.pop_back(),
            }) else {
                break;
            };
            if let Some(l) = self.limit() {
                hit_limit = Some(l);
                break;
            }
            if self.stats.nodes >= self.opts.sow_after && self.sow() {
                // seeds covering every unsafe cube end the search from them
                // alone; others join this search, explored next
                if self.oracle.as_ref().is_some_and(|o| o.seeds_suffice) {
                    return Ended::Seeded;
                }
                let mut next = self.plant();
                next.push(id);
                self.next(&mut queue, next);
                continue;
            }
            let cube = self.nodes[id].cube.clone();
            if let Fate::Visited = self.nodes[id].fate {
                // a seed, visited when planted: its safety test, then its pre-images
                match self.safety(id, &cube, replay) {
                    Safety::End(e) => return e,
                    Safety::Spurious => spurious = true,
                    Safety::Disjoint => {}
                }
                if self.nodes[id].deleted.is_none() {
                    let children = self.expand(id, &cube);
                    self.enqueue(&mut queue, &mut postponed, children);
                }
                continue;
            }
            // fixpoint, syntactic part: a cube subsumed by a visited one is
            // covered (and, like it, disjoint from the initial states)
            let t0 = Instant::now();
            let matched = self.match_visited(&cube);
            self.stats.t_fixpoint += t0.elapsed();
            let (used, clauses) = match matched {
                Err(subsumer) => {
                    self.stats.covered += 1;
                    self.stats.subsumed += 1;
                    self.nodes[id].fate = Fate::Covered(vec![subsumer]);
                    continue;
                }
                Ok(x) => x,
            };
            match self.safety(id, &cube, replay) {
                Safety::Disjoint => {}
                Safety::Spurious => spurious = true,
                Safety::End(e) => return e,
            }
            // fixpoint, semantic part (also drops unsatisfiable cubes)
            let t0 = Instant::now();
            let covered = self.covered(&cube, used, clauses);
            self.stats.t_fixpoint += t0.elapsed();
            if let Some(instances) = covered {
                self.stats.covered += 1;
                self.nodes[id].fate = Fate::Covered(instances);
                continue;
            }
            if let Some(refuted) = self.refuted_by_oracle(id, &cube) {
                return Ended::Refuted(refuted);
            }
            let cube = self.approximate(id, cube);
            self.visit(id, &cube);
            let children = self.expand(id, &cube);
            self.enqueue(&mut queue, &mut postponed, children);
        }
        Ended::Answer(self.end(hit_limit, spurious))
    }

    /// The roots of the search: the unsafe cubes, then the hints still
    /// believed (suggested negated invariants, proven along the way: a
    /// trace reaching one refutes it).
    fn roots(&mut self) -> VecDeque<usize> {
        let mut queue = VecDeque::new();
        let hints: Vec<(usize, &crate::system::Quantified)> = self.sys.hints.iter().enumerate().filter(|(k, _)| !self.opts.dropped_hints.contains(k)).collect();
        let roots = self.sys.unsafe_.iter().map(|u| (None, u)).chain(hints.into_iter().map(|(k, h)| (Some(k), h)));
        for (hint, u) in roots {
            for c in u.cubes(&self.sys.index_sort()) {
                if !self.seen.contains_key(&c) {
                    let id = self.add(c, None, None);
                    self.nodes[id].hint = hint;
                    queue.push_back(id);
                }
            }
        }
        let seeds = self.plant();
        self.next(&mut queue, seeds);
        queue
    }

    /// Puts pre-images in the queue, or among the postponed ones.
    fn enqueue(&self, queue: &mut VecDeque<usize>, postponed: &mut Vec<usize>, children: Vec<(usize, bool)>) {
        for (child, later) in children {
            if later {
                postponed.push(child);
            } else {
                queue.push_back(child);
            }
        }
    }

    /// Puts nodes in the queue to be explored next, in their order.
    fn next(&self, queue: &mut VecDeque<usize>, nodes: Vec<usize>) {
        for n in nodes.into_iter().rev() {
            match self.opts.order {
                Order::Bfs => queue.push_front(n),
                Order::Dfs => queue.push_back(n),
            }
        }
    }

    /// The safety test of a node: whether its cube meets the initial
    /// states, and if so what that means (a real trace, a refuted
    /// approximation or hint, a spurious trace).
    fn safety(&mut self, id: usize, cube: &Cube, replay: &mut dyn FnMut(&AbstractTrace) -> bool) -> Safety {
        let t0 = Instant::now();
        let q = initial_query(self.sys, cube);
        let r = self.check(&q, |s| &mut s.calls_safety);
        self.stats.t_safety += t0.elapsed();
        match r {
            SatResult::Unsat => Safety::Disjoint,
            SatResult::Unknown(why) => Safety::End(Ended::Answer(Answer::Unknown(format!("solver: {why}")))),
            SatResult::Sat => {
                if let Some(a) = self.approximated_ancestor(id) {
                    return Safety::End(Ended::Refuted(self.nodes[a].cube.clone()));
                }
                if let Some(h) = self.root_hint(id) {
                    return Safety::End(Ended::RefutedHint(h));
                }
                let trace = self.trace(id);
                if replay(&trace) {
                    return Safety::End(Ended::Answer(Answer::Unsafe(Counterexample::Trace(trace, None))));
                }
                self.stats.spurious += 1;
                if !self.opts.exact && self.sys.transitions.iter().any(|t| t.uguard.is_some()) {
                    return Safety::End(Ended::Inexact);
                }
                // a longer trace through the same cube may still be real:
                // keep exploring from it (SAFE is out of reach now)
                Safety::Spurious
            }
        }
    }

    /// Has the oracle compute its seeds (see `brab::houdini`), if it has
    /// not yet; whether it found some.
    fn sow(&mut self) -> bool {
        let deadline = self.opts.timeout.map(|t| self.start + t);
        match self.oracle.as_mut() {
            Some(o) if !o.sown() => {
                o.sow(self.sys, self.opts.max_procs, deadline);
                o.seeds().is_some_and(|s| !s.is_empty())
            }
            _ => false,
        }
    }

    /// Adds the oracle's seeds not met yet as visited nodes, each standing
    /// as an approximation of itself (a trace reaching one refutes it),
    /// so that they cover cubes before any is expanded.
    fn plant(&mut self) -> Vec<usize> {
        let Some(seeds) = self.oracle.as_ref().and_then(|o| o.seeds()) else { return vec![] };
        let complete = self.oracle.as_ref().is_some_and(|o| o.complete);
        let mut out = vec![];
        for c in seeds {
            if self.seen.contains_key(&c) {
                continue;
            }
            let id = self.add(c.clone(), None, None);
            self.nodes[id].approx = Some((c.vars.clone(), c.vars.clone()));
            if complete {
                self.unrefutable.insert(id);
            }
            self.visit(id, &c);
            out.push(id);
        }
        out
    }

    /// The node's cube or, with an oracle (BRAB), a more general candidate
    /// that does not meet the initial states.
    fn approximate(&mut self, id: usize, cube: Cube) -> Cube {
        let Some((c, images)) = self.oracle.as_mut().and_then(|o| o.approximate(&cube)) else { return cube };
        let q = initial_query(self.sys, &c);
        if self.check(&q, |s| &mut s.calls_safety) != SatResult::Unsat {
            if let Some(o) = self.oracle.as_mut() {
                o.ban(&c);
            }
            return cube;
        }
        tracing::debug!("approximate #{id}: {cube}  ~>  {c}");
        self.stats.approximated += 1;
        if self.oracle.as_mut().is_some_and(|o| o.exact(&c)) {
            self.unrefutable.insert(id);
        }
        self.nodes[id].approx = Some((cube.vars.clone(), images));
        self.nodes[id].cube = c.clone();
        c
    }

    /// The approximation the node descends from, when the oracle's instance
    /// has a reachable state in the node's cube that steps along the
    /// search's path into that approximation (see `Oracle::walk_into`);
    /// the oracle learns the walk's states. The path is built only for a
    /// cube the instance reaches.
    fn refuted_by_oracle(&mut self, id: usize, cube: &Cube) -> Option<Cube> {
        let a = self.approximated_ancestor(self.nodes[id].parent?)?;
        if self.unrefutable.contains(&a) {
            return None;
        }
        let starts = self.oracle.as_mut()?.states_in(cube);
        if starts.is_empty() {
            return None;
        }
        let t = self.trace_to(id, Some(a));
        let oracle = self.oracle.as_mut()?;
        let path = oracle.walk_into(starts, &t.cubes, &t.edges)?;
        tracing::debug!("#{id}: a reachable state of the instance steps into approximation #{a} in {} steps", t.edges.len());
        let near = oracle.around(path, LEARN_AROUND);
        oracle.learn(near);
        Some(self.nodes[a].cube.clone())
    }

    /// Makes the node visited, deleting the visited cubes its cube subsumes.
    fn visit(&mut self, id: usize, cube: &Cube) {
        let newp = Pattern::new(cube.clone());
        let deleted = self.index.remove_subsumed(&newp);
        for (v, images) in &deleted {
            self.nodes[*v].deleted = Some((id, images.clone()));
        }
        if !deleted.is_empty() {
            self.visited.retain(|&v| self.nodes[v].deleted.is_none());
        }
        self.stats.deleted += deleted.len();
        tracing::debug!("visit #{id} (depth {}): {cube}", self.depth(id));
        self.visited.push(id);
        self.index.insert(id, cube);
        self.nodes[id].fate = Fate::Visited;
        self.nodes[id].pattern = Some(newp);
        self.stats.expanded += 1;
    }

    /// The node's pre-images, new ones as nodes: each with whether it waits
    /// until the queue is empty (postponement).
    fn expand(&mut self, id: usize, cube: &Cube) -> Vec<(usize, bool)> {
        let t0 = Instant::now();
        let mut out = vec![];
        for ti in 0..self.sys.transitions.len() {
            let (pres, dropped) = pre_image(self.sys, cube, ti, self.opts.max_procs, self.opts.exact);
            self.truncated |= dropped;
            for (c, e) in pres {
                if let Some(&old) = self.seen.get(&c) {
                    self.nodes[id].children.push((Some(old), e));
                    continue;
                }
                self.stats.max_vars = self.stats.max_vars.max(c.arity());
                let later = match self.opts.postpone {
                    Postpone::Never => false,
                    Postpone::MoreProcs => c.arity() > cube.arity(),
                };
                let child = self.add(c, Some(id), Some(e.clone()));
                self.nodes[id].children.push((Some(child), e));
                out.push((child, later));
            }
        }
        self.stats.t_pre += t0.elapsed();
        out
    }

    /// The answer when the queue is empty or a limit was hit.
    fn end(&self, hit_limit: Option<Limit>, spurious: bool) -> Answer {
        if let Some(l) = hit_limit {
            return Answer::Unknown(match l {
                Limit::Timeout => "timeout".into(),
                Limit::NodeLimit => "node limit".into(),
            });
        }
        if spurious {
            return Answer::Unknown("only spurious traces found (universal guards)".into());
        }
        if self.truncated {
            return Answer::Unknown(format!("process limit: pre-images naming more than {} processes were dropped", self.opts.max_procs));
        }
        Answer::Safe(self.proof())
    }

    /// The search as a graph: each node with its cube, pre-image edges
    /// from a cube to its pre-images, covering edges to the coverers.
    pub fn graph(&self) -> SearchGraph {
        let mut g = SearchGraph::default();
        for (id, n) in self.nodes.iter().enumerate() {
            let kind = match (&n.fate, n.deleted.is_some(), n.parent) {
                (_, true, _) => NodeKind::Deleted,
                (Fate::Covered(_), ..) => NodeKind::Covered,
                (Fate::Pending, ..) => NodeKind::Pending,
                (Fate::Visited, _, None) => NodeKind::Root,
                (Fate::Visited, _, Some(_)) => NodeKind::Visited,
            };
            g.nodes.push(GraphNode { cubes: vec![n.cube.clone()], kind });
            if let (Some(p), Some(e)) = (n.parent, &n.edge) {
                g.edges.push(GraphEdge { from: p, to: id, kind: EdgeKind::Pre(self.sys.transitions[e.transition].name.clone()) });
            }
            if let Fate::Covered(by) = &n.fate {
                g.edges.extend(by.iter().map(|(c, _)| GraphEdge { from: id, to: *c, kind: EdgeKind::Covers }));
            }
        }
        g
    }

    fn add(&mut self, cube: Cube, parent: Option<usize>, edge: Option<Edge>) -> usize {
        self.stats.nodes += 1;
        self.seen.insert(cube.clone(), self.nodes.len());
        self.nodes.push(Node { cube, pattern: None, parent, edge, deleted: None, fate: Fate::Pending, children: vec![], approx: None, hint: None });
        self.nodes.len() - 1
    }

    /// Follows deletions: an instance of node `k` at `images` as an instance
    /// of a surviving visited node.
    fn resolve(&self, mut k: usize, mut images: Vec<Term>) -> (usize, Vec<Term>) {
        while let Some((k2, imgs2)) = &self.nodes[k].deleted {
            // node k2's variables map into node k's variables, which map to `images`
            let pos = |v: &Term| self.nodes[k].cube.vars.iter().position(|w| w == v).unwrap();
            images = imgs2.iter().map(|v| images[pos(v)].clone()).collect();
            k = *k2;
        }
        (k, images)
    }

    /// The instances (surviving node, images) discharging node `k` seen
    /// with its own variables as `images`.
    fn discharge(&self, k: usize, images: &[Term]) -> Vec<(usize, Vec<Term>)> {
        // an approximated node stands for its original cube: translate
        let approx_images: Vec<Term>;
        let images = match &self.nodes[k].approx {
            Some((orig, imgs)) => {
                let pos = |v: &Term| orig.iter().position(|w| w == v).unwrap();
                approx_images = imgs.iter().map(|v| images[pos(v)].clone()).collect();
                &approx_images[..]
            }
            None => images,
        };
        match &self.nodes[k].fate {
            Fate::Visited => vec![self.resolve(k, images.to_vec())],
            Fate::Covered(insts) => {
                let pos = |v: &Term| self.nodes[k].cube.vars.iter().position(|w| w == v).unwrap();
                insts.iter().map(|(n, imgs)| self.resolve(*n, imgs.iter().map(|v| images[pos(v)].clone()).collect())).collect()
            }
            Fate::Pending => vec![],
        }
    }

    /// The proof: surviving visited cubes with the hints for their pre-images.
    fn proof(&self) -> Proof {
        let index: HashMap<usize, usize> = self.visited.iter().enumerate().map(|(i, &v)| (v, i)).collect();
        let mut proof = Proof { self_checked: true, ..Proof::default() };
        for &v in &self.visited {
            proof.invariant.push(self.nodes[v].cube.clone());
            let mut hints = vec![];
            for (child, edge) in &self.nodes[v].children {
                let instances = match child {
                    None => vec![],
                    Some(c) => {
                        // the pre-image as it was computed (before any approximation)
                        let vars = match &self.nodes[*c].approx {
                            Some((orig, _)) => orig.clone(),
                            None => self.nodes[*c].cube.vars.clone(),
                        };
                        self.discharge(*c, &vars).into_iter().filter_map(|(n, imgs)| index.get(&n).map(|&i| (i, imgs))).collect()
                    }
                };
                hints.push(Hint { edge: edge.clone(), instances });
            }
            proof.hints.push(hints);
        }
        proof
    }

    fn depth(&self, mut id: usize) -> usize {
        let mut d = 0;
        while let Some(p) = self.nodes[id].parent {
            d += 1;
            id = p;
        }
        d
    }

    fn trace(&self, id: usize) -> AbstractTrace {
        self.trace_to(id, None)
    }

    /// The path from a node to its ancestor `stop` (to the root without).
    fn trace_to(&self, mut id: usize, stop: Option<usize>) -> AbstractTrace {
        let mut cubes = vec![];
        let mut edges = vec![];
        loop {
            let n = &self.nodes[id];
            cubes.push(n.cube.clone());
            match (&n.parent, &n.edge) {
                (Some(p), Some(e)) if stop != Some(id) => {
                    edges.push(e.clone());
                    id = *p;
                }
                _ => break,
            }
        }
        AbstractTrace { cubes, edges }
    }

    /// Matches a cube against the visited ones: `Err` with a subsuming
    /// instance (the index's, else one whose literals the cube's facts
    /// decide), or the instances the solver must consider (with their
    /// negations as clauses).
    #[allow(clippy::type_complexity)]
    fn match_visited(&mut self, cube: &Cube) -> Result<(Vec<(usize, Vec<Term>)>, Vec<Term>), (usize, Vec<Term>)> {
        if let Some(hit) = self.index.subsumer(cube) {
            return Err(hit);
        }
        let facts = Facts::of(cube);
        let mut used = vec![];
        let mut clauses = vec![];
        for &v in &self.visited {
            let old = &self.nodes[v];
            match match_cube(old.pattern.as_ref().unwrap(), cube, &facts) {
                Match::Subsumed(images) => return Err((v, images)),
                Match::Instances(is) => {
                    for (images, inst) in is {
                        used.push((v, images));
                        clauses.push(inst.not());
                    }
                }
            }
        }
        Ok((used, clauses))
    }

    /// The fixpoint test's solver part: whether the cube with the negated
    /// instances is unsatisfiable (then the instances cover it; an
    /// unsatisfiable cube is covered by none). The instances that speak
    /// only of the cube's own terms are tried alone first: most covering
    /// cubes are covered by those, and an unsatisfiable part is enough.
    fn covered(&mut self, cube: &Cube, used: Vec<(usize, Vec<Term>)>, clauses: Vec<Term>) -> Option<Vec<(usize, Vec<Term>)>> {
        if clauses.is_empty() && !cube.needs_sat_check() {
            return None;
        }
        // one copy of each instance
        let mut seen = HashSet::default();
        let (used, clauses): (Vec<_>, Vec<_>) = used.into_iter().zip(clauses).filter(|(_, c)| seen.insert(c.clone())).unzip();
        if self.sys.axioms.is_empty() && crate::reach::uncovered::witness(&cube.vars, &cube.lits, &clauses) {
            self.stats.uncovered_models += 1;
            return None;
        }
        let mut parts = vec![cube.body(), Term::distinct(&cube.vars)];
        parts.extend(index_bounds(self.sys, &cube.vars));
        parts.extend(instantiate_all(self.sys, &self.sys.axioms, &cube.vars));
        if clauses.is_empty() {
            return (self.check(&Term::and(parts), |s| &mut s.calls_sat) == SatResult::Unsat).then_some(used);
        }
        let own = cube_terms(&cube.lits);
        let local: Vec<usize> = (0..clauses.len()).filter(|&k| cube_terms(std::slice::from_ref(&clauses[k])).is_subset(&own)).collect();
        if !local.is_empty() && local.len() < clauses.len() && self.local_first.worth() {
            let mut first = parts.clone();
            first.extend(local.iter().map(|&k| clauses[k].clone()));
            let hit = self.check(&Term::and(first), |s| &mut s.calls_fixpoint) == SatResult::Unsat;
            self.local_first.tried(hit);
            if hit {
                return Some(local.iter().map(|&k| used[k].clone()).collect());
            }
        }
        parts.extend(clauses);
        (self.check(&Term::and(parts), |s| &mut s.calls_fixpoint) == SatResult::Unsat).then_some(used)
    }
}

/// The state terms a formula speaks of: array reads and symbols other than
/// process variables.
fn cube_terms(lits: &[Term]) -> HashSet<Term> {
    let mut out = HashSet::default();
    for l in lits {
        for t in crate::logic::collect(l, &|t: &Term| matches!(t.op(), Op::Select) || (matches!(t.op(), Op::Var(_)) && *t.sort() != Sort::Index)) {
            out.insert(t);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::bwd::brab::Oracle;

    /// A search that sows the seeds of a protocol whose seeds cover every
    /// unsafe cube ends to search again; the next search, from the seeds,
    /// proves the protocol safe, visiting no more cubes than the seeds and
    /// the unsafe cubes.
    #[test]
    fn seeds_covering_the_unsafe_cubes_end_the_search() {
        let src = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/home_directory.cub")).unwrap();
        let sys = crate::frontend::parse_str(&src, crate::frontend::Format::Cubicle).unwrap().system;
        let opts = Options { sow_after: 0, ..Options::default() };
        let mut first = Search::new(&sys, opts.clone()).with_oracle(Oracle::new(&sys, 2, 10_000, None).unwrap());
        assert!(matches!(first.run(&mut |_| false), Ended::Seeded));
        let oracle = first.take_oracle().unwrap();
        let seeds = oracle.seeds().unwrap().len();
        let mut second = Search::new(&sys, opts).with_oracle(oracle);
        match second.run(&mut |_| false) {
            Ended::Answer(Answer::Safe(_)) => {}
            _ => panic!("not proved safe from the seeds"),
        }
        assert!(second.stats.expanded <= seeds + sys.unsafe_.len(), "{} visited, {seeds} seeds", second.stats.expanded);
        assert_eq!(second.stats.approximated, 0);
    }
}
