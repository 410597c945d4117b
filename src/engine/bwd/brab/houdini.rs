//! Candidate invariants read off the finite instance and kept while
//! inductive (invisible invariants, after Pnueli, Ruah and Zuck; filtered
//! like Houdini's, after Flanagan and Leino). Every cube of at most two
//! literals over the system's atoms that no reachable state of the
//! instance satisfies is a candidate, and so is each unsafe cube the
//! instance does not reach; a candidate one of whose pre-images
//! no surviving candidate subsumes is dropped, until none is. The
//! survivors are closed under pre-images (up to subsumption): those that
//! cover the unsafe cubes, with the ones their pre-images need, become
//! *seeds* of the backward search — proposed as approximations are and
//! refuted like them, so that nothing here is trusted.
//!
//! BRAB keeps the first candidate of a visited cube the instance does not
//! reach; which one comes first depends on the order of the literals, i.e.
//! on how the variables are named, and on a large protocol (FLASH) one
//! order converges in a second while another does not in minutes. Here no
//! candidate is preferred over another.

use super::Oracle;
use crate::logic::units::refuted_by_units;
use crate::logic::{occurs, EnumValues, Sort, Term};
use crate::reach::pre::pre_image;
use crate::reach::visited::Index;
use crate::system::cube::{zvar, Cube};
use crate::system::System;
use crate::HashSet;
use itertools::Itertools;
use std::time::Instant;

/// The most atoms candidates are built from (pairs of them are tried).
const MAX_ATOMS: usize = 300;

/// The seeds of the backward search: candidates the instance does not
/// reach, closed under pre-images, that subsume unsafe cubes, with those
/// their pre-images need (empty when none, or at `deadline`); and whether
/// they subsume every unsafe cube.
pub fn seeds(or: &mut Oracle, sys: &System, max_procs: usize, deadline: Option<Instant>) -> (Vec<Cube>, bool) {
    let zs: Vec<Term> = (0..or.procs().min(2)).map(|i| zvar(i, &sys.index_sort())).collect();
    // literals over data the instance leaves out would hold everywhere
    let lits = or.visible(&literals(sys, &zs)).into_owned();
    if lits.len() > 2 * MAX_ATOMS {
        return (vec![], false);
    }
    let Some(mut cands) = candidates(or, &lits, &zs, deadline) else { return (vec![], false) };
    // the unsafe cubes themselves, when the instance does not reach them
    let bad = unsafe_cubes(sys);
    let unreached: Vec<Cube> = bad.iter().filter(|u| !cands.contains(u) && or.reached(&u.lits, &u.vars) == Some(false)).cloned().collect();
    cands.extend(unreached);
    let mut fix = Fixpoint::new(sys, cands, max_procs);
    let seeds = fix.support(&bad, deadline).unwrap_or_default();
    // the index holds the live candidates only
    let all = !seeds.is_empty() && bad.iter().all(|u| fix.index.subsumer(u).is_some());
    tracing::debug!(
        "seeds: {} literals, {} candidates, {} checked, {} found not inductive",
        lits.len(),
        fix.cands.len(),
        fix.checked.iter().filter(|c| **c).count(),
        fix.alive.iter().filter(|a| !**a).count()
    );
    (seeds, all)
}

/// The unsafe cubes, normalised.
fn unsafe_cubes(sys: &System) -> Vec<Cube> {
    sys.unsafe_.iter().flat_map(|u| u.cubes(&sys.index_sort())).collect()
}

/// The literals candidates are built from, over processes `zs`: each
/// Boolean variable (at each process, for arrays), each value of each
/// enumerated one, and each equality between process-valued terms (the
/// processes themselves among them) or between terms of one uninterpreted
/// sort (data), with their negations.
fn literals(sys: &System, zs: &[Term]) -> Vec<Term> {
    let idx = sys.index_sort();
    let mut atoms = vec![];
    // terms compared by equality, by sort (the processes first)
    let mut alike: Vec<(Sort, Vec<Term>)> = vec![(idx.clone(), zs.to_vec())];
    for v in &sys.vars {
        let sort = v.value_sort();
        let terms: Vec<Term> = if v.is_array { zs.iter().map(|z| Term::select(&v.term, std::slice::from_ref(z))).collect() } else { vec![v.term.clone()] };
        match &sort {
            Sort::Bool => atoms.extend(terms),
            Sort::Enum(d) => {
                let (lo, hi) = sort.finite_range().unwrap_or((0, -1));
                atoms.extend(terms.iter().flat_map(|t| (lo..=hi).map(|k| Term::eq(t, &value(&sort, &d.values, k)))));
            }
            s if *s == idx || matches!(s, Sort::Uninterpreted(_)) => match alike.iter_mut().find(|(t, _)| t == s) {
                Some((_, ts)) => ts.extend(terms),
                None => alike.push((sort.clone(), terms)),
            },
            _ => {}
        }
    }
    for (a, b) in alike.iter().flat_map(|(_, ts)| ts.iter().tuple_combinations()) {
        if !(zs.contains(a) && zs.contains(b)) {
            atoms.push(Term::eq(a, b));
        }
    }
    atoms.iter().flat_map(|a| [a.clone(), a.not()]).collect()
}

/// The `k`-th value of an enumerated sort, as the front ends write it.
fn value(sort: &Sort, values: &EnumValues, k: i64) -> Term {
    match values {
        EnumValues::Subrange(..) => Term::int(k),
        EnumValues::Names(_) => Term::enum_const(sort.clone(), k),
    }
}

/// The canonical cubes of one or two of the literals, over at most the
/// instance's processes, that no reachable state satisfies (BRAB's
/// plausibility filter applies); `None` at the deadline. A cube a more
/// general candidate subsumes is kept: that one may not be inductive.
fn candidates(or: &mut Oracle, lits: &[Term], zs: &[Term], deadline: Option<Instant>) -> Option<Vec<Cube>> {
    let (mut out, mut seen) = (vec![], HashSet::default());
    for k in 1..=2 {
        for pick in (0..lits.len()).combinations(k) {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return None;
            }
            let ls: Vec<Term> = pick.iter().map(|&i| lits[i].clone()).collect();
            let vars: Vec<Term> = zs.iter().filter(|z| ls.iter().any(|l| occurs(z, l))).cloned().collect();
            if !super::plausible(&ls, &vars, or.procs()) {
                continue;
            }
            let mut cs = Cube::normalize_renaming(&vars, &ls);
            let Some((c, _)) = cs.pop().filter(|(c, _)| cs.is_empty() && c.lits.len() == k) else { continue };
            if or.banned.contains(&c) || !seen.insert(c.clone()) {
                continue;
            }
            if or.reached(&ls, &vars) == Some(false) {
                out.push(c);
            }
        }
    }
    Some(out)
}

/// Candidates filtered on demand: those the unsafe cubes need are checked,
/// then those their pre-images need, and so on; a candidate found not
/// inductive is withdrawn and those that relied on it are checked again.
struct Fixpoint<'s> {
    sys: &'s System,
    max_procs: usize,
    cands: Vec<Cube>,
    /// Not found non-inductive.
    alive: Vec<bool>,
    /// Checked, with every candidate it relies on alive.
    checked: Vec<bool>,
    /// Per candidate: the candidates subsuming its pre-images.
    used: Vec<Vec<usize>>,
    /// Per candidate: the candidates that relied on it.
    users: Vec<Vec<usize>>,
    index: Index,
    work: Vec<usize>,
}

impl<'s> Fixpoint<'s> {
    fn new(sys: &'s System, cands: Vec<Cube>, max_procs: usize) -> Self {
        let n = cands.len();
        let mut index = Index::default();
        cands.iter().enumerate().for_each(|(i, c)| index.insert(i, c));
        Fixpoint { sys, max_procs, cands, alive: vec![true; n], checked: vec![false; n], used: vec![vec![]; n], users: vec![vec![]; n], index, work: vec![] }
    }

    /// Survivors subsuming the unsafe cubes, each of whose pre-images
    /// (through any transition) a survivor subsumes, and so on: the
    /// greatest such set among the candidates met; `None` at the deadline.
    fn support(&mut self, unsafe_cubes: &[Cube], deadline: Option<Instant>) -> Option<Vec<Cube>> {
        loop {
            let roots: Vec<usize> = unsafe_cubes.iter().filter_map(|u| self.index.subsumer(u)).map(|(j, _)| j).collect();
            roots.iter().for_each(|&j| self.work.push(j));
            self.settle(deadline)?;
            if roots.iter().all(|&j| self.alive[j]) {
                return Some(self.closure(roots));
            }
        }
    }

    /// Checks the candidates in the work list and those they need.
    fn settle(&mut self, deadline: Option<Instant>) -> Option<()> {
        while let Some(i) = self.work.pop() {
            if !self.alive[i] || self.checked[i] {
                continue;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return None;
            }
            match covering(self.sys, &self.cands[i], &mut self.index, self.max_procs) {
                Some(deps) => {
                    self.checked[i] = true;
                    for &j in &deps {
                        self.users[j].push(i);
                        self.work.push(j);
                    }
                    self.used[i] = deps;
                }
                None => {
                    self.alive[i] = false;
                    self.index.withdraw(i);
                    for k in std::mem::take(&mut self.users[i]) {
                        if std::mem::replace(&mut self.checked[k], false) {
                            self.work.push(k);
                        }
                    }
                }
            }
        }
        Some(())
    }

    /// The candidates `roots` rely on, transitively.
    fn closure(&self, mut need: Vec<usize>) -> Vec<Cube> {
        let mut taken = vec![false; self.cands.len()];
        while let Some(j) = need.pop() {
            if !std::mem::replace(&mut taken[j], true) {
                need.extend(self.used[j].iter().copied());
            }
        }
        self.cands.iter().zip(taken).filter(|(_, t)| *t).map(|(c, _)| c.clone()).collect()
    }
}

/// The candidates subsuming the cube's pre-images (through every
/// transition), or `None` if one is subsumed by none. A transition that
/// writes nothing the cube reads has pre-images the cube itself subsumes.
fn covering(sys: &System, cube: &Cube, index: &mut Index, max_procs: usize) -> Option<Vec<usize>> {
    let read = cube.reads();
    let mut deps = vec![];
    for (ti, t) in sys.transitions.iter().enumerate() {
        if t.updates.iter().all(|u| !read.contains(&sys.vars[u.var].term)) {
            continue;
        }
        let (pres, dropped) = pre_image(sys, cube, ti, max_procs, false);
        if dropped {
            return None;
        }
        for (p, _) in pres {
            if refuted_by_units(&p.body()) {
                continue;
            }
            match index.subsumer(&p) {
                Some((j, _)) => deps.push(j),
                None => {
                    tracing::trace!("drop {cube}: {} gives {p}", sys.transitions[ti].name);
                    return None;
                }
            }
        }
    }
    deps.sort_unstable();
    deps.dedup();
    Some(deps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(name: &str) -> System {
        let src = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models").join(name)).unwrap();
        crate::frontend::parse_str(&src, crate::frontend::Format::Cubicle).unwrap().system
    }

    /// `∃z1. A[z1] = location k ∧ lits` in the mutex (0 Idle, 1 Trying, 2 Critical).
    fn at(sys: &System, k: i64, lock: Option<bool>) -> Cube {
        let z = zvar(0, &Sort::Index);
        let a = &sys.vars[0];
        let mut lits = vec![Term::eq(&Term::select(&a.term, std::slice::from_ref(&z)), &Term::enum_const(a.value_sort(), k))];
        lits.extend(lock.map(|l| if l { sys.vars[1].term.clone() } else { sys.vars[1].term.not() }));
        Cube::normalize(&[z], &lits).pop().unwrap()
    }

    /// Mutual exclusion needs "a critical process holds the lock": with
    /// it the unsafe cube's support is found; without it the unsafe
    /// cube's own candidate is not inductive and nothing is kept; a
    /// reachable cube among the candidates ("a process is trying") is
    /// withdrawn without taking the others with it.
    #[test]
    fn the_support_of_the_unsafe_cubes_is_inductive() {
        let sys = model("mutex.cub");
        let two = unsafe_cubes(&sys);
        let free = at(&sys, 2, Some(false));
        let trying = at(&sys, 1, None);
        let mut fix = Fixpoint::new(&sys, vec![trying.clone(), two[0].clone(), free.clone()], 4);
        let seeds = fix.support(&two, None).unwrap();
        assert!(seeds.contains(&two[0]) && seeds.contains(&free), "{seeds:?}");
        let mut alone = Fixpoint::new(&sys, vec![two[0].clone()], 4);
        assert!(alone.support(&two, None).unwrap().is_empty());
        // "trying" subsumes nothing the support needs: it is never checked
        assert!(!seeds.contains(&trying));
        let mut fix = Fixpoint::new(&sys, vec![trying.clone()], 4);
        fix.work.push(0);
        fix.settle(None).unwrap();
        assert!(!fix.alive[0], "a process becomes trying from idle, which no candidate subsumes");
    }

    /// On a directory protocol the seeds are unreachable in the instance,
    /// subsume every unsafe cube and are closed under pre-images: each
    /// pre-image of a seed is subsumed by a seed.
    #[test]
    fn seeds_are_closed_under_pre_images() {
        let sys = model("home_directory.cub");
        let mut or = Oracle::new(&sys, 2, 100_000, None).unwrap();
        assert!(or.complete);
        let (seeds, all) = seeds(&mut or, &sys, 8, None);
        assert!(all);
        assert!(!seeds.is_empty());
        let mut index = Index::default();
        seeds.iter().enumerate().for_each(|(i, c)| index.insert(i, c));
        for u in unsafe_cubes(&sys) {
            assert!(index.subsumer(&u).is_some(), "{u}");
        }
        for c in &seeds {
            assert!(or.states_in(c).is_empty(), "{c} is reachable in the instance");
            assert!(covering(&sys, c, &mut index, 8).is_some(), "a pre-image of {c} is subsumed by no seed");
        }
    }
}
