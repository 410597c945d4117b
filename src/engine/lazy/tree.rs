//! Lazy abstraction with interpolants over ∃-labels (SAFARI).
//!
//! A backward abstract reachability tree: the roots are the unsafe cubes;
//! the child of a node under a transition is labelled with the
//! *abstraction* of the node's pre-image (literals about abstracted terms —
//! loop counters, array lengths — dropped), so the tree over-approximates
//! the states that reach an unsafe one. Every label is a disjunction of
//! cubes and, as an invariant of the tree, contains the pre-image of its
//! parent's label.
//!
//! - A node is *covered* when each of its cubes is implied by the labels of
//!   other live, uncovered nodes outside its subtree (the instantiation-based
//!   fixpoint test); covered nodes are not expanded.
//! - A node whose label meets the initial states yields an abstract path to
//!   the root. Its path formula ([`crate::reach::path`]) decides it: satisfiable,
//!   it is a counterexample candidate (replayed by the caller); otherwise
//!   the labels along the path are replaced by a sequence of interpolants
//!   `R_j = Itp(pre_{t_j}(R_{j-1}), prefix_j)` ([`crate::reach::interpolate`], with
//!   term abstraction), which keeps the invariant of the tree and makes the
//!   last label disjoint from the initial states. Subtrees hanging off
//!   relabelled nodes are discarded and nodes they covered are uncovered.
//! - When no node is left to expand, the labels of the uncovered nodes form
//!   an inductive invariant (certified by the caller).

use crate::answer::{AbstractTrace, Answer, Counterexample, Edge, EdgeKind, GraphEdge, GraphNode, Limit, NodeKind, Proof, SearchGraph, Stats};
use crate::logic::{substitute, Term};
use crate::reach::abstraction::abstract_cube;
use crate::reach::fixpoint::{match_cube, Facts, Match, Pattern};
use crate::reach::interpolate::{self, Failure, Method, Problem};
use crate::reach::path::{prefix, Formula};
use crate::reach::pre::pre_image;
use crate::reach::safety::{index_bounds, instantiate_all};
use crate::smt::{self, Backend, SatResult, Solver};
use crate::system::cube::Cube;
use crate::system::System;
use crate::HashSet;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Settings of a lazy-abstraction search.
#[derive(Clone, Debug)]
pub struct Options {
    /// Wall-clock limit.
    pub timeout: Option<Duration>,
    /// Limit on nodes created.
    pub max_nodes: Option<usize>,
    /// Limit on index variables per cube.
    pub max_procs: usize,
    /// The solver used by the search.
    pub backend: Backend,
    /// How interpolants are computed.
    pub method: Method,
    /// The terms to abstract.
    pub terms: Vec<Term>,
    /// Invariant literals known by construction (range facts of counters):
    /// conjoined to every label; their negations join the proof.
    pub facts: Vec<Term>,
    /// Facts holding at a location (`pc = l`, facts): conjoined to the
    /// cubes containing the location literal; `pc = l ∧ ¬fact` joins the proof.
    pub location_facts: Vec<(Term, Vec<Term>)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    /// Waiting for its checks and expansion.
    Queued,
    /// Expanded for every transition.
    Expanded,
    /// Covered by the labels of these nodes.
    Covered(Vec<usize>),
    /// Discarded.
    Deleted,
}

struct Node {
    label: Vec<Cube>,
    patterns: Vec<Pattern>,
    parent: Option<usize>,
    /// The transition under which the label contains the parent's pre-image.
    via: Option<usize>,
    children: Vec<usize>,
    /// Per transition: whether the node's pre-image under it is represented.
    expanded: Vec<bool>,
    state: State,
}

/// A lazy-abstraction search over one system.
pub struct Lazy<'a> {
    sys: &'a System,
    opts: Options,
    solver: Box<dyn Solver>,
    nodes: Vec<Node>,
    queue: VecDeque<usize>,
    /// Counters and timers.
    pub stats: Stats,
    start: Instant,
    /// Whether some pre-image was dropped for naming too many processes.
    pub truncated: bool,
}

fn keys(cs: &[Cube]) -> Vec<String> {
    let mut k: Vec<String> = cs.iter().map(|c| c.key()).collect();
    k.sort();
    k.dedup();
    k
}

fn dedup(cs: Vec<Cube>) -> Vec<Cube> {
    let mut seen = HashSet::default();
    cs.into_iter().filter(|c| seen.insert(c.key())).collect()
}

fn disjunction(cs: &[Cube]) -> Term {
    Term::or(cs.iter().map(|c| Term::and([Term::distinct(&c.vars), c.body()])))
}

/// The conjunction of two disjunctions of cubes, as cubes: each pair is
/// joined under every identification of the second cube's variables with
/// the first's (or fresh ones, up to `max_vars` in all); cubes implied by
/// another one of the result are dropped.
fn conjoin(l: &[Cube], i: &[Cube], max_vars: usize) -> Vec<Cube> {
    let mut out = vec![];
    for a in l {
        for b in i {
            let ws: Vec<Term> = b.vars.iter().enumerate().map(|(k, v)| Term::var(&format!("w!{k}"), v.sort().clone())).collect();
            let ren: crate::HashMap<Term, Term> = b.vars.iter().cloned().zip(ws.iter().cloned()).collect();
            let blits: Vec<Term> = b.lits.iter().map(|x| substitute(x, &ren)).collect();
            for ident in crate::reach::pre::identifications(ws.len(), a.arity()) {
                let fresh = ident.iter().filter(|c| c.is_none()).count();
                if a.arity() + fresh > max_vars {
                    continue;
                }
                let mut vars = a.vars.clone();
                let mut map = crate::HashMap::default();
                for (w, c) in ws.iter().zip(&ident) {
                    let v = match c {
                        Some(k) => a.vars[*k].clone(),
                        None => {
                            let v = Term::var(&format!("u!{}", vars.len()), w.sort().clone());
                            vars.push(v.clone());
                            v
                        }
                    };
                    map.insert(w.clone(), v);
                }
                let lits: Vec<Term> = a.lits.iter().cloned().chain(blits.iter().map(|x| substitute(x, &map))).collect();
                out.extend(Cube::normalize(&vars, &lits));
            }
        }
    }
    let out = dedup(out);
    // drop cubes that imply another one
    let pats: Vec<Pattern> = out.iter().cloned().map(Pattern::new).collect();
    (0..out.len())
        .filter(|&k| {
            !(0..out.len()).any(|m| {
                m != k
                    && crate::reach::fixpoint::subsumes(&pats[m], &out[k]).is_some()
                    && (crate::reach::fixpoint::subsumes(&pats[k], &out[m]).is_none() || m < k)
            })
        })
        .map(|k| out[k].clone())
        .collect()
}

/// Why a refinement did not happen.
enum Refusal {
    /// The path formula is satisfiable: a counterexample candidate.
    Concrete,
    /// Interpolation failed; why.
    Failed(String),
}

impl<'a> Lazy<'a> {
    /// A search on `sys`.
    pub fn new(sys: &'a System, opts: Options) -> Self {
        let solver = smt::solver(opts.backend);
        Lazy { sys, opts, solver, nodes: vec![], queue: VecDeque::new(), stats: Stats::default(), start: Instant::now(), truncated: false }
    }

    fn limit(&self) -> Option<Limit> {
        if self.opts.timeout.is_some_and(|t| self.start.elapsed() >= t) || crate::engine::interrupted() {
            return Some(Limit::Timeout);
        }
        if self.opts.max_nodes.is_some_and(|n| self.stats.nodes >= n) {
            return Some(Limit::NodeLimit);
        }
        None
    }

    fn check(&mut self, f: &Term) -> SatResult {
        let left = self.opts.timeout.map(|t| t.saturating_sub(self.start.elapsed()));
        smt::check_alone(self.solver.as_mut(), f, left)
    }

    /// A label conjoined with the known facts (cubes contradicting them dropped).
    fn with_facts(&self, label: Vec<Cube>) -> Vec<Cube> {
        if self.opts.facts.is_empty() && self.opts.location_facts.is_empty() {
            return label;
        }
        let extra = |c: &Cube| -> Vec<Term> {
            let mut out = self.opts.facts.clone();
            for (loc, fs) in &self.opts.location_facts {
                if c.lits.contains(loc) {
                    out.extend(fs.iter().cloned());
                }
            }
            out
        };
        dedup(label.into_iter().flat_map(|c| Cube::normalize(&c.vars, &c.lits.iter().cloned().chain(extra(&c)).collect::<Vec<_>>())).collect())
    }

    fn add(&mut self, label: Vec<Cube>, parent: Option<usize>, via: Option<usize>) -> usize {
        self.stats.nodes += 1;
        let id = self.nodes.len();
        let patterns = label.iter().cloned().map(Pattern::new).collect();
        self.stats.max_vars = self.stats.max_vars.max(label.iter().map(|c| c.arity()).max().unwrap_or(0));
        let n = self.sys.transitions.len();
        self.nodes.push(Node { label, patterns, parent, via, children: vec![], expanded: vec![false; n], state: State::Queued });
        if let Some(p) = parent {
            self.nodes[p].children.push(id);
        }
        self.queue.push_back(id);
        id
    }

    fn relabel(&mut self, id: usize, label: Vec<Cube>) {
        self.nodes[id].patterns = label.iter().cloned().map(Pattern::new).collect();
        self.nodes[id].label = label;
    }

    fn live(&self, id: usize) -> bool {
        matches!(self.nodes[id].state, State::Queued | State::Expanded)
    }

    fn subtree(&self, id: usize) -> Vec<usize> {
        let mut out = vec![id];
        let mut k = 0;
        while k < out.len() {
            out.extend(self.nodes[out[k]].children.iter().copied().filter(|c| self.nodes[*c].state != State::Deleted));
            k += 1;
        }
        out
    }

    /// Discards a subtree and uncovers the nodes it covered; the parent's
    /// pre-image under the subtree's transition is computed again.
    fn delete(&mut self, id: usize) {
        let gone = self.subtree(id);
        for &g in &gone {
            self.nodes[g].state = State::Deleted;
        }
        if let (Some(p), Some(via)) = (self.nodes[id].parent, self.nodes[id].via) {
            self.nodes[p].children.retain(|c| *c != id);
            self.nodes[p].expanded[via] = false;
            if self.nodes[p].state == State::Expanded {
                self.nodes[p].state = State::Queued;
                self.queue.push_back(p);
            }
        }
        self.uncover(&gone);
    }

    /// Nodes covered with the help of any of `changed` go back to the queue.
    fn uncover(&mut self, changed: &[usize]) {
        for k in 0..self.nodes.len() {
            if let State::Covered(by) = &self.nodes[k].state {
                if by.iter().any(|b| changed.contains(b)) {
                    self.nodes[k].state = State::Queued;
                    self.queue.push_back(k);
                }
            }
        }
    }

    /// Whether each cube of the node's label is implied by the labels of
    /// live uncovered nodes outside its subtree: those nodes, if so.
    fn covered(&mut self, id: usize) -> Result<Option<Vec<usize>>, String> {
        let own: HashSet<usize> = self.subtree(id).into_iter().collect();
        let label = self.nodes[id].label.clone();
        self.covered_by_others(&label, &own)
    }

    /// Whether each cube of `label` is implied by the labels of live
    /// uncovered nodes not in `own`: those nodes, if so.
    fn covered_by_others(&mut self, label: &[Cube], own: &HashSet<usize>) -> Result<Option<Vec<usize>>, String> {
        let others: Vec<usize> = (0..self.nodes.len()).filter(|k| !own.contains(k) && self.live(*k)).collect();
        let mut coverers = vec![];
        let mut syntactic = 0;
        for c in label {
            let facts = Facts::of(c);
            let mut used = vec![];
            let mut clauses = vec![];
            let mut subsumed = false;
            'outer: for &o in &others {
                for p in &self.nodes[o].patterns {
                    match match_cube(p, c, &facts) {
                        Match::Subsumed(_) => {
                            coverers.push(o);
                            subsumed = true;
                            break 'outer;
                        }
                        Match::Instances(is) => {
                            for (_, inst) in is {
                                clauses.push(inst.not());
                                used.push(o);
                            }
                        }
                    }
                }
            }
            if subsumed {
                syntactic += 1;
                continue;
            }
            if clauses.is_empty() || !self.refuted(c, clauses)? {
                return Ok(None);
            }
            used.sort();
            used.dedup();
            coverers.extend(used);
        }
        coverers.sort();
        coverers.dedup();
        if syntactic == label.len() {
            self.stats.subsumed += 1;
        }
        Ok(Some(coverers))
    }

    /// Whether the cube is implied by the disjunction of the cubes `by`
    /// (the instantiation-based covering test).
    fn implied(&mut self, c: &Cube, by: &[Cube]) -> Result<bool, String> {
        let facts = Facts::of(c);
        let mut clauses = vec![];
        for d in by {
            match match_cube(&Pattern::new(d.clone()), c, &facts) {
                Match::Subsumed(_) => return Ok(true),
                Match::Instances(is) => clauses.extend(is.into_iter().map(|(_, inst)| inst.not())),
            }
        }
        Ok(!clauses.is_empty() && self.refuted(c, clauses)?)
    }

    /// Whether the cube contradicts the clauses (negated instances of
    /// covering cubes), with the system's axioms and index bounds.
    fn refuted(&mut self, c: &Cube, clauses: Vec<Term>) -> Result<bool, String> {
        let mut parts = vec![c.body(), Term::distinct(&c.vars)];
        parts.extend(index_bounds(self.sys, &c.vars));
        parts.extend(instantiate_all(self.sys, &self.sys.axioms, &c.vars));
        parts.extend(clauses);
        self.stats.calls_fixpoint += 1;
        match self.check(&Term::and(parts)) {
            SatResult::Unsat => Ok(true),
            SatResult::Sat => Ok(false),
            SatResult::Unknown(why) => Err(why),
        }
    }

    /// The conjunction of a label with an interpolant: a cube of the
    /// interpolant that implies the label stays as it is, the others are
    /// conjoined with the label ([`conjoin`]).
    fn strengthen(&mut self, label: &[Cube], itp: &[Cube]) -> Vec<Cube> {
        let mut out = vec![];
        for c in itp {
            if self.implied(c, label) == Ok(true) {
                out.push(c.clone());
            } else {
                out.extend(conjoin(label, std::slice::from_ref(c), self.opts.max_procs));
            }
        }
        dedup(out)
    }

    /// The initial states as a formula instantiated for `f`.
    fn initial_for(&self, f: &Term) -> Term {
        Formula { ground: vec![f.clone()], universals: self.sys.initial.iter().chain(&self.sys.axioms).map(|q| (q.vars.clone(), q.body())).collect() }
            .instantiate(self.sys, &Term::tt())
    }

    /// Whether some cube of the label meets the initial states.
    fn meets_initial(&mut self, id: usize) -> Result<bool, String> {
        for c in self.nodes[id].label.clone() {
            let q = self.initial_for(&Term::and([Term::distinct(&c.vars), c.body()]));
            self.stats.calls_safety += 1;
            match self.check(&q) {
                SatResult::Sat => return Ok(true),
                SatResult::Unsat => {}
                SatResult::Unknown(why) => return Err(why),
            }
        }
        Ok(false)
    }

    /// The path from the root down to `id`, and the transitions along it
    /// (`ts[j-1]` leads from path node `j` to path node `j-1`).
    fn path(&self, id: usize) -> (Vec<usize>, Vec<usize>) {
        let mut nodes = vec![id];
        let mut cur = id;
        while let Some(p) = self.nodes[cur].parent {
            nodes.push(p);
            cur = p;
        }
        nodes.reverse();
        let ts = nodes[1..].iter().map(|n| self.nodes[*n].via.unwrap()).collect();
        (nodes, ts)
    }

    fn pre_all(&mut self, label: &[Cube], ti: usize) -> Vec<Cube> {
        let mut out = vec![];
        for c in label {
            let (ps, dropped) = pre_image(self.sys, c, ti, self.opts.max_procs, false);
            self.truncated |= dropped;
            out.extend(ps.into_iter().map(|(c, _)| c));
        }
        // cubes that normalisation could not tell unsatisfiable
        let mut kept = vec![];
        for c in dedup(out) {
            if c.needs_sat_check() {
                let mut parts = vec![c.body(), Term::distinct(&c.vars)];
                parts.extend(index_bounds(self.sys, &c.vars));
                self.stats.calls_sat += 1;
                if self.check(&Term::and(parts)) == SatResult::Unsat {
                    continue;
                }
            }
            kept.push(c);
        }
        kept
    }

    /// Refines the path ending at `leaf` with interpolants; whether a label changed.
    fn refine(&mut self, leaf: usize) -> Result<bool, Refusal> {
        let (path, ts) = self.path(leaf);
        let root = self.nodes[path[0]].label.clone();
        let full = prefix(self.sys, &ts, 0).instantiate(self.sys, &disjunction(&root));
        self.stats.calls_safety += 1;
        match self.check(&Term::and([full, disjunction(&root)])) {
            SatResult::Sat => return Err(Refusal::Concrete),
            SatResult::Unknown(why) => return Err(Refusal::Failed(format!("solver: {why}"))),
            SatResult::Unsat => {}
        }
        let shared: Vec<Term> = self.sys.vars.iter().map(|v| v.term.clone()).chain(self.sys.consts.iter().cloned()).collect();
        let mut labels: Vec<Vec<Cube>> = vec![];
        let mut prev = root;
        for j in 1..path.len() {
            if self.limit().is_some() {
                return Err(Refusal::Failed("timeout".into()));
            }
            let a = if prev.is_empty() {
                vec![]
            } else {
                let pre = self.pre_all(&prev, ts[j - 1]);
                self.with_facts(pre)
            };
            if a.is_empty() {
                labels.push(vec![]);
                prev = vec![];
                continue;
            }
            let b = prefix(self.sys, &ts, j).instantiate(self.sys, &disjunction(&a));
            tracing::debug!("  A[{j}] = {}", a.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ∨ "));
            // a prefix infeasible by itself (counters that cannot agree)
            // says nothing about this node: its label stays, and so does
            // the tree's invariant (pre-images are monotone)
            self.stats.calls_itp += 1;
            if self.check(&b) == SatResult::Unsat {
                let own = self.nodes[path[j]].label.clone();
                tracing::debug!("  itp[{j}] #{}: the prefix alone is infeasible; label kept", path[j]);
                labels.push(own.clone());
                prev = own;
                continue;
            }
            let p = Problem { a: &a, b: &b, local: &[], shared: &shared, abstracted: &self.opts.terms, index_sort: self.sys.index_sort() };
            let mut tally = interpolate::Tally::default();
            let itp = interpolate::interpolate(self.opts.method, self.solver.as_mut(), &mut tally, &p, 5_000);
            self.stats.calls_itp += tally.calls;
            self.stats.splittable += tally.splittable;
            let itp = itp.map_err(|f| match f {
                Failure::Satisfiable => Refusal::Failed(format!("path prefix of length {} meets the pre-image (instantiation too weak)", path.len() - 1 - j)),
                Failure::Unknown(w) => Refusal::Failed(format!("interpolation: {w}")),
            })?;
            tracing::debug!("  itp[{j}] #{}: {}", path[j], itp.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ∨ "));
            labels.push(itp.clone());
            prev = itp;
        }
        // labels only get stronger (conjoined with the interpolants), so
        // children keep containing their parents' pre-images and a node's
        // label cannot oscillate between the interpolants of different paths
        let mut changed = false;
        for j in 1..path.len() {
            let node = path[j];
            // a large product: the interpolants alone, which contain the
            // pre-image along the path but not what the node's other
            // children were computed from (those go)
            let replace = self.nodes[node].label.len() * labels[j - 1].len() > 16;
            let new = if replace {
                dedup(labels[j - 1].clone())
            } else {
                let old = self.nodes[node].label.clone();
                self.strengthen(&old, &labels[j - 1])
            };
            if keys(&new) == keys(&self.nodes[node].label) {
                continue;
            }
            // children computed from the weaker label are coarser than
            // the new pre-image: they go, and are computed again
            {
                let keep = path.get(j + 1).copied();
                for ch in self.nodes[node].children.clone() {
                    if Some(ch) != keep {
                        self.delete(ch);
                    }
                }
                // a transition whose pre-image of the old label was empty
                // may have one now (a replacing label can be weaker)
                let kept = keep.and_then(|k| self.nodes[k].via);
                for (ti, e) in self.nodes[node].expanded.iter_mut().enumerate() {
                    *e = Some(ti) == kept;
                }
            }
            changed = true;
            if new.is_empty() {
                self.delete(node);
                break;
            }
            self.relabel(node, new);
            if self.nodes[node].state == State::Expanded || node == leaf {
                self.nodes[node].state = State::Queued;
                self.queue.push_back(node);
            }
            self.uncover(&[node]);
        }
        Ok(changed)
    }

    /// The exact cubes along the path (one per node, each meeting the
    /// path prefix), as a trace for replay.
    fn candidate(&mut self, leaf: usize) -> Option<AbstractTrace> {
        let (path, ts) = self.path(leaf);
        let mut cubes: Vec<Cube> = vec![];
        let mut edges: Vec<Edge> = vec![];
        let root = self.nodes[path[0]].label.clone();
        let b0 = prefix(self.sys, &ts, 0);
        let mut cur = root.into_iter().find(|c| {
            let f = disjunction(std::slice::from_ref(c));
            let q = Term::and([b0.instantiate(self.sys, &f), f]);
            self.check(&q) == SatResult::Sat
        })?;
        cubes.push(cur.clone());
        for j in 1..path.len() {
            let (pres, _) = pre_image(self.sys, &cur, ts[j - 1], self.opts.max_procs, false);
            let bj = prefix(self.sys, &ts, j);
            let (c, e) = pres.into_iter().find(|(c, _)| {
                let f = disjunction(std::slice::from_ref(c));
                let q = Term::and([bj.instantiate(self.sys, &f), f]);
                self.check(&q) == SatResult::Sat
            })?;
            cubes.push(c.clone());
            edges.push(e);
            cur = c;
        }
        cubes.reverse();
        edges.reverse();
        Some(AbstractTrace { cubes, edges })
    }

    /// Runs the search; `replay` decides whether a candidate trace is real.
    pub fn run(&mut self, replay: &mut dyn FnMut(&AbstractTrace) -> bool) -> Answer {
        self.start = Instant::now();
        self.roots();
        let mut progress = crate::engine::Progress::new("lazy abstraction");
        while let Some(id) = self.queue.pop_front() {
            progress.tick(|| {
                format!(
                    "{} nodes, {} expanded, {} refinements, {} in the queue, {} solver calls",
                    self.stats.nodes,
                    self.stats.expanded,
                    self.stats.refinements,
                    self.queue.len(),
                    self.stats.solver_calls()
                )
            });
            if self.nodes[id].state != State::Queued {
                continue;
            }
            if let Some(l) = self.limit() {
                return Answer::Unknown(match l {
                    Limit::Timeout => "timeout".into(),
                    Limit::NodeLimit => "node limit".into(),
                });
            }
            let t0 = Instant::now();
            let cov = self.covered(id);
            self.stats.t_fixpoint += t0.elapsed();
            match cov {
                Err(why) => return Answer::Unknown(format!("solver: {why}")),
                Ok(Some(by)) => {
                    self.stats.covered += 1;
                    for ch in self.nodes[id].children.clone() {
                        self.delete(ch);
                    }
                    tracing::debug!("covered #{id} by {by:?}");
                    self.nodes[id].state = State::Covered(by);
                    continue;
                }
                Ok(None) => {}
            }
            let t0 = Instant::now();
            let meets = self.meets_initial(id);
            self.stats.t_safety += t0.elapsed();
            match meets {
                Err(why) => return Answer::Unknown(format!("solver: {why}")),
                Ok(true) => {
                    tracing::debug!("#{id} meets the initial states: {}", self.label_text(id));
                    self.queue.push_front(id);
                    match self.refine(id) {
                        Ok(true) => {
                            self.stats.refinements += 1;
                            continue;
                        }
                        Ok(false) => return Answer::Unknown("refinement made no progress".into()),
                        Err(Refusal::Failed(why)) => return Answer::Unknown(why),
                        Err(Refusal::Concrete) => {
                            return match self.candidate(id) {
                                Some(trace) if replay(&trace) => Answer::Unsafe(Counterexample::Trace(trace, None)),
                                Some(_) => {
                                    self.stats.spurious += 1;
                                    Answer::Unknown("counterexample candidate did not replay".into())
                                }
                                None => Answer::Unknown("counterexample candidate: no exact trace found".into()),
                            };
                        }
                    }
                }
                Ok(false) => {}
            }
            self.expand(id);
            self.nodes[id].state = State::Expanded;
        }
        if self.truncated {
            return Answer::Unknown(format!("process limit: pre-images naming more than {} processes were dropped", self.opts.max_procs));
        }
        Answer::Safe(self.proof())
    }

    /// Expands a node: a child per transition not yet expanded, labelled,
    /// cube by cube, with the exact pre-image where the tree already covers
    /// it (a loop whose body keeps the label) and its abstraction elsewhere;
    /// a child wholly covered is created covered.
    fn expand(&mut self, id: usize) {
        tracing::debug!("expand #{id}: {}", self.label_text(id));
        self.stats.expanded += 1;
        let t0 = Instant::now();
        for ti in 0..self.sys.transitions.len() {
            if self.nodes[id].expanded[ti] {
                continue;
            }
            self.nodes[id].expanded[ti] = true;
            let label = self.nodes[id].label.clone();
            let pre = self.pre_all(&label, ti);
            if pre.is_empty() {
                continue;
            }
            // cube by cube: the exact pre-image where the tree already
            // covers it (a loop whose body keeps the label), its
            // abstraction elsewhere; a child wholly covered is created
            // covered
            let exact = self.with_facts(pre.clone());
            if exact.is_empty() {
                continue;
            }
            let mut abs = vec![];
            let mut coverers: Option<Vec<usize>> = Some(vec![]);
            for c in &exact {
                match self.covered_by_others(std::slice::from_ref(c), &HashSet::default()) {
                    Ok(Some(by)) => {
                        abs.push(c.clone());
                        if let Some(all) = coverers.as_mut() {
                            all.extend(by);
                        }
                    }
                    _ => {
                        coverers = None;
                        abs.extend(self.with_facts(abstract_cube(c, &self.opts.terms)));
                    }
                }
            }
            if let Some(mut by) = coverers {
                by.sort();
                by.dedup();
                let child = self.add(exact, Some(id), Some(ti));
                self.stats.covered += 1;
                tracing::debug!("covered #{child} by {by:?} (exact pre-image)");
                self.nodes[child].state = State::Covered(by);
                continue;
            }
            let abs = dedup(abs);
            if !abs.is_empty() {
                let child = self.add(abs, Some(id), Some(ti));
                tracing::debug!("  child #{child} of #{id} under {}", self.sys.transitions[ti].name);
            }
        }
        self.stats.t_pre += t0.elapsed();
    }

    /// The roots: a node per unsafe cube.
    fn roots(&mut self) {
        let isort = self.sys.index_sort();
        for u in &self.sys.unsafe_ {
            let label = u.cubes(&isort);
            if !label.is_empty() {
                self.add(label, None, None);
            }
        }
    }

    /// The tree as a graph: each node with its label, an edge from a node
    /// to each child (under its transition), covering edges to the coverers.
    pub fn graph(&self) -> SearchGraph {
        let mut g = SearchGraph::default();
        for (id, n) in self.nodes.iter().enumerate() {
            let kind = match (&n.state, n.parent) {
                (State::Covered(_), _) => NodeKind::Covered,
                (State::Deleted, _) => NodeKind::Deleted,
                (State::Queued, _) => NodeKind::Pending,
                (State::Expanded, None) => NodeKind::Root,
                (State::Expanded, Some(_)) => NodeKind::Visited,
            };
            g.nodes.push(GraphNode { cubes: n.label.clone(), kind });
            if let (Some(p), Some(t)) = (n.parent, n.via) {
                g.edges.push(GraphEdge { from: p, to: id, kind: EdgeKind::Pre(self.sys.transitions[t].name.clone()) });
            }
            if let State::Covered(by) = &n.state {
                g.edges.extend(by.iter().map(|c| GraphEdge { from: id, to: *c, kind: EdgeKind::Covers }));
            }
        }
        g
    }

    fn label_text(&self, id: usize) -> String {
        self.nodes[id].label.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ∨ ")
    }

    /// The proof: the cubes of the expanded (uncovered) nodes, and the
    /// negated facts.
    fn proof(&self) -> Proof {
        let mut proof = Proof::default();
        for f in &self.opts.facts {
            proof.invariant.extend(Cube::normalize(&[], &[crate::reach::dataflow::violation(f)]));
            proof.hints.push(vec![]);
        }
        for (loc, fs) in &self.opts.location_facts {
            for f in fs {
                for c in Cube::normalize(&[], &[loc.clone(), crate::reach::dataflow::violation(f)]) {
                    proof.invariant.push(c);
                    proof.hints.push(vec![]);
                }
            }
        }
        for n in &self.nodes {
            if n.state == State::Expanded {
                for c in &n.label {
                    if !proof.invariant.iter().any(|d: &Cube| d.key() == c.key()) {
                        proof.invariant.push(c.clone());
                        proof.hints.push(vec![]);
                    }
                }
            }
        }
        proof
    }
}
