//! Sampling for candidate invariants: executions of the program shown to
//! the candidates of each location they visit (violated ones go), and the
//! seeding of locations sampling never reached.

use super::affine::{Hulls, HULL_LOOKS};
use super::fixpoint::Houdini;
use super::templates::{candidates, Atom, Candidate, Shape, Vocabulary, PAIR_LOOKS, RANGE_CAP};
use crate::exec::State;
use crate::logic::{Op, Term};
use crate::system::cube::Cube;
use crate::system::System;
use crate::HashSet;
use std::cell::Cell;

/// Sampled states each location's candidates are evaluated on at most.
const MAX_LOOKS: u64 = 256;

/// Sampled executions at most: every mode of choosing values, then
/// spikes at the second choice.
const SAMPLED_RUNS: usize = 13;

/// Steps of the first sampled execution.
const FIRST_RUN: u64 = 1 << 18;

/// Steps of sampled executions without a new location or a violated
/// candidate after which the run ends (and later runs grow no longer).
const STALE_STEPS: u64 = 1 << 21;

/// Candidates generated at most (else the vocabulary is too large to guess in).
const MAX_CANDIDATES: usize = 200_000;

impl Houdini<'_> {
    /// The candidates that survive sampled executions, as cubes: those of
    /// one quantified variable at most at visited locations, and the
    /// others (of two variables, or at locations never visited).
    pub(super) fn sampled(&mut self) -> Result<(Vec<Cube>, Vec<Cube>), String> {
        let sys = self.sys;
        let prog = crate::exec::compile(sys).map_err(|u| u.0)?;
        let control = crate::reach::dataflow::control_variable(sys);
        let pc = control.and_then(|k| prog.scalar_terms.iter().position(|t| *t == sys.vars[k].term));
        let voc = Vocabulary { sys, prog: &prog, pc };
        let cands = if self.opts.templates { candidates(&voc) } else { vec![] };
        self.counts.0 = cands.len();
        if cands.len() > MAX_CANDIDATES {
            return Err(format!("too many candidates ({}) for the program's vocabulary", cands.len()));
        }
        // by location, so that a state is shown only its location's
        // candidates: locations numbered from the control variable's least value
        let base = pc.map_or(0, |p| prog.scalar_terms[p].sort().finite_range().map_or(0, |r| r.0));
        let slot = |loc: Option<i64>| loc.map_or(0, |l| (l - base) as usize);
        let locations = pc.and_then(|p| prog.scalar_terms[p].sort().finite_range()).map_or(1, |(lo, hi)| (hi - lo + 1) as usize);
        let mut by_loc = by_slot(cands, &slot, locations);
        let places = by_loc.len();
        let mut visits: Vec<u64> = vec![0; places];
        let mut looked: Vec<u64> = vec![0; places];
        let share = self.opts.timeout.map(|t| t / 3);
        let deadline = share.map(|s| self.start + s);
        let stays = staying(sys, control);
        let mut hulls = Hulls::new(&voc, places);
        let mut entered = true;
        let (steps, mut progress) = (Cell::new(0u64), 0u64);
        // runs as long as twice the deepest first visit to a location so
        // far, and slowly longer (locations behind long loops)
        // (after many steps that taught nothing, the run ends and the rest
        // are only as long as twice the deepest first visit)
        let (started, deepest, stale) = (Cell::new(0u64), Cell::new(0u64), Cell::new(false));
        let mut limit = |r: usize| {
            started.set(steps.get());
            let growth = if stale.get() { 0 } else { r / 3 };
            (2 * deepest.get()).max(FIRST_RUN << growth)
        };
        let mut observe = |st: &State, taken: usize| {
            steps.set(steps.get() + 1);
            let steps = steps.get();
            if !stale.get() && steps - progress > STALE_STEPS {
                stale.set(true);
                return false;
            }
            let at = pc.map_or(0, |p| (st.scalars[p] - base) as usize);
            let Some(n) = visits.get_mut(at) else { return true };
            *n += 1;
            if *n == 1 {
                progress = steps;
                deepest.set(deepest.get().max(steps - started.get()));
            }
            // the first visits, entries to and exits from a location, then ever more rarely
            let edge = std::mem::replace(&mut entered, !stays[taken]) || !stays[taken];
            if *n > 16 && !edge && !n.is_power_of_two() && *n % 4096 != 0 {
                return true;
            }
            // a bounded number of looks per location
            let looks = &mut looked[at];
            *looks += 1;
            if *looks > MAX_LOOKS {
                return true;
            }
            if *looks <= HULL_LOOKS {
                hulls.look(at, st, *looks);
            }
            if show(&mut by_loc[at], st, pc, *looks) {
                progress = steps;
            }
            true
        };
        let reached = crate::engine::run::sample(sys, &prog, SAMPLED_RUNS, 0x5eed, deadline, &mut limit, &mut observe);
        self.counts.3 = steps.get();
        if reached.is_some() {
            self.unsafe_run = reached;
            return Err("a sampled execution reaches an unsafe state".into());
        }
        // a location never visited: the candidates that hold where its
        // entries come from (and its own comparisons of scalars), or that
        // it is unreachable
        if let Some(p) = pc {
            seed_unvisited(sys, &prog.scalar_terms[p], &|l| slot(Some(l)), base, &mut by_loc, &visits);
        }
        let (mut cubes, more) = self.survivors(&voc, by_loc, &visits, base);
        let solved = hulls.cubes(&voc, &|k| pc.map(|_| base + k as i64));
        add_affine(&mut cubes, &more, solved);
        self.counts.1 = cubes.len() + more.len();
        Ok((cubes, more))
    }

    /// The candidates that survived sampling, as cubes: those of the first
    /// attempt, and those the second adds (of two variables, or at
    /// locations never visited); a location never visited may also be
    /// unreachable; the location facts join the first.
    fn survivors(&self, voc: &Vocabulary, by_loc: Vec<Vec<Candidate>>, visits: &[u64], base: i64) -> (Vec<Cube>, Vec<Cube>) {
        let (pc, prog) = (voc.pc, voc.prog);
        let mut cubes = vec![];
        let mut more = vec![];
        let mut seen = HashSet::default();
        for (at, cs) in by_loc.into_iter().enumerate() {
            let visited = visits[at] > 0;
            let loc = pc.map(|_| base + at as i64);
            for c in cs {
                if c.range.is_some() && !c.seen {
                    continue;
                }
                for cube in voc.cubes(&c) {
                    if seen.insert(cube.key()) {
                        if c.range2.is_some() || !visited { &mut more } else { &mut cubes }.push(cube);
                    }
                }
            }
            if !visited {
                if let (Some(l), Some(p)) = (loc, pc) {
                    let v = &prog.scalar_terms[p];
                    for cube in Cube::normalize(&[], &[Term::eq(v, &Term::enum_const(v.sort().clone(), l))]) {
                        if seen.insert(cube.key()) {
                            cubes.push(cube);
                        }
                    }
                }
            }
        }
        for (loc, fs) in &self.opts.location_facts {
            for f in fs {
                for cube in Cube::normalize(&[], &[loc.clone(), crate::reach::dataflow::violation(f)]) {
                    if seen.insert(cube.key()) {
                        cubes.push(cube);
                    }
                }
            }
        }
        (cubes, more)
    }
}

/// The candidates by the slot of their location (`slot`), a slot for each
/// of the `locations` at least (sampled states of every location feed the
/// affine hulls, whether or not a template gave it candidates).
fn by_slot(cands: Vec<Candidate>, slot: &dyn Fn(Option<i64>) -> usize, locations: usize) -> Vec<Vec<Candidate>> {
    let places = cands.iter().map(|c| slot(c.loc) + 1).max().unwrap_or(1).max(locations);
    let mut by_loc: Vec<Vec<Candidate>> = vec![vec![]; places];
    for c in cands {
        by_loc[slot(c.loc)].push(c);
    }
    by_loc
}

/// Whether each transition stays at its location (a loop body): it sets
/// the control variable `control` to the location its guard tests (every
/// transition, without a control variable).
fn staying(sys: &System, control: Option<usize>) -> Vec<bool> {
    sys.transitions
        .iter()
        .map(|t| match control {
            Some(k) => t.updates.iter().all(|u| u.var != k || crate::reach::dataflow::location_test(&t.guard, &sys.vars[k].term).as_ref() == Some(&u.value)),
            None => true,
        })
        .collect()
}

/// Shows a sampled state, the `looks`-th one at its location, to the
/// location's candidates `cands`; those it violates go. Whether any went.
fn show(cands: &mut Vec<Candidate>, st: &State, pc: Option<usize>, looks: u64) -> bool {
    // whole ranges (up to a bound) at first, then their ends
    let window = if looks <= 8 { RANGE_CAP } else { 16 };
    // (pairs, costlier, only on the first looks once their ranges
    // were seen non-empty)
    let pairs = looks <= PAIR_LOOKS;
    let before = cands.len();
    cands.retain_mut(|c| !(pairs || c.range2.is_none() || !c.seen) || !c.violated(st, pc, window));
    cands.len() < before
}

/// Adds the affine equalities `solved` from the hulls to the first
/// attempt's `cubes`, but those already among the candidates (`more`
/// included).
fn add_affine(cubes: &mut Vec<Cube>, more: &[Cube], solved: Vec<Cube>) {
    let known: HashSet<_> = cubes.iter().chain(more).map(|c| c.key()).collect();
    tracing::debug!("houdini: {} candidates from affine hulls", solved.len());
    for c in &solved {
        tracing::trace!("houdini: affine candidate {c}");
    }
    cubes.extend(solved.into_iter().filter(|c| !known.contains(&c.key())));
}

/// Gives each location that no sampled state visited (`visits`, by slot)
/// the candidates of the locations its entries come from — those that
/// survived sampling there, or were given there in turn — and its own
/// comparisons of scalars; `pc` is the control variable, `slot` maps its
/// values to slots, the slot of `base + k` being `k`.
fn seed_unvisited(sys: &System, pc: &Term, slot: &dyn Fn(i64) -> usize, base: i64, by_loc: &mut [Vec<Candidate>], visits: &[u64]) {
    let slot_of = |t: &Term| match t.op() {
        Op::EnumConst(l) => Some(slot(*l)),
        _ => None,
    };
    let edges: Vec<(usize, usize)> = sys
        .transitions
        .iter()
        .filter_map(|t| {
            let from = slot_of(&crate::reach::dataflow::location_test(&t.guard, pc)?)?;
            let to = match t.updates.iter().find(|u| sys.vars[u.var].term == *pc) {
                Some(u) => slot_of(&u.value)?,
                None => from,
            };
            Some((from, to))
        })
        .collect();
    let shape = |c: &Candidate| -> Shape { (c.range, c.range2, c.cond, c.also, c.rel, c.lhs, c.rhs) };
    let survived = |c: &&Candidate| c.range.is_none() || c.seen;
    let scalar = |a: Atom| matches!(a, Atom::Num(_) | Atom::Scalar(..));
    let mut seeded: Vec<HashSet<Shape>> = vec![HashSet::default(); by_loc.len()];
    for (at, cs) in by_loc.iter().enumerate() {
        if visits[at] == 0 {
            seeded[at].extend(cs.iter().filter(|c| c.range.is_none() && scalar(c.lhs) && scalar(c.rhs)).map(shape));
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for &(from, to) in &edges {
            if from == to || from >= by_loc.len() || to >= by_loc.len() || visits[to] > 0 {
                continue;
            }
            let incoming: Vec<Shape> =
                if visits[from] > 0 { by_loc[from].iter().filter(survived).map(shape).collect() } else { seeded[from].iter().copied().collect() };
            for sh in incoming {
                changed |= seeded[to].insert(sh);
            }
        }
    }
    for (at, shapes) in seeded.into_iter().enumerate() {
        if visits[at] == 0 {
            let loc = Some(base + at as i64);
            by_loc[at] = shapes
                .into_iter()
                .map(|(range, range2, cond, also, rel, lhs, rhs)| Candidate { loc, range, range2, cond, also, rel, lhs, rhs, seen: true })
                .collect();
        }
    }
}
