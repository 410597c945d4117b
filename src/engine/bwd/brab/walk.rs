//! Refutation by the oracle: a cube of the backward search that a
//! reachable state of the finite instance satisfies, and from which that
//! state steps along the search's path into the approximation the cube
//! descends from, shows that approximation reachable — long before the
//! backward search itself would meet the initial states (a wrong
//! approximation's pre-images can go on for dozens of steps).
//!
//! The starting states are found first ([`Oracle::states_in`]), so that
//! the search's path is only built for a cube the instance reaches.
//!
//! Each step is checked on the instance: the edge's transition, with its
//! parameters at the processes the walk has reached, must be enabled and
//! lead to a state satisfying the axioms. A pre-image computed with
//! universal guards checked only on the cube's processes, or through an
//! accelerated transition, may hold states with no such step: the walk
//! then fails, and nothing is concluded.

use super::instance::{completions, Move, State};
use super::Oracle;
use crate::answer::Edge;
use crate::logic::Term;
use crate::system::cube::Cube;

/// The most states of the first cube a walk starts from.
const STARTS: usize = 16;

/// The most states a walk visits in all (branching on open values).
const STEPS: usize = 4096;

/// A state to walk from, with the processes of its cube's variables.
pub type Start = (State, Vec<i64>);

impl Oracle<'_> {
    /// Up to [`STARTS`] reachable states of the instance in `cube` (open
    /// values fixed as far as its literals read them), each with the
    /// processes of the cube's variables. None for a cube with conditions
    /// on other processes or more variables than the instance has processes.
    pub fn states_in(&mut self, cube: &Cube) -> Vec<Start> {
        let mut out = vec![];
        if !cube.others.is_empty() || cube.arity() > self.inst.procs {
            return out;
        }
        let lits = self.visible(&cube.lits);
        for ps in self.assignments(&cube.vars) {
            let Some(hits) = self.hits(&lits, &cube.vars, &ps) else { return out };
            self.satisfying(&hits, &lits, &cube.vars, &ps, |s| {
                out.push((s.into(), ps.clone()));
                out.len() >= STARTS
            });
            if out.len() >= STARTS {
                break;
            }
        }
        out
    }

    /// The states of a walk from one of `starts` (states in `cubes[0]`)
    /// along `edges` (edge `i` from `cubes[i]` to `cubes[i + 1]`, naming its
    /// parameters and the next cube's variables as variables of
    /// `cubes[i]`) to a state satisfying the last cube, which is then
    /// reachable: the states after each step, the last one in the last
    /// cube. `None` if no start walks there; a last cube with conditions on
    /// other processes is not evaluated (`None`).
    pub fn walk_into(&self, starts: Vec<Start>, cubes: &[Cube], edges: &[Edge]) -> Option<Vec<State>> {
        if cubes.len() != edges.len() + 1 || !cubes[cubes.len() - 1].others.is_empty() {
            return None;
        }
        let (mut steps, mut path) = (0, vec![]);
        starts.into_iter().any(|(st, ps)| steps < STEPS && self.walk(st, ps, cubes, edges, &mut steps, &mut path)).then_some(path)
    }

    /// One step of the walk from `st`, which satisfies `cubes[0]` with its
    /// variables at `ps`: the first edge's transition taken, then the rest
    /// of the walk; at the last cube, whether `st` satisfies it. A walk
    /// that arrives leaves its states after `st` in `path`, in order.
    fn walk(&self, st: State, ps: Vec<i64>, cubes: &[Cube], edges: &[Edge], steps: &mut usize, path: &mut Vec<State>) -> bool {
        *steps += 1;
        let Some(edge) = edges.first() else {
            let (code, regs) = self.conjunction(&self.visible(&cubes[0].lits), &cubes[0].vars, &ps);
            return self.completions_where(&st, &code, regs).is_some_and(|c| !c.is_empty());
        };
        if *steps > STEPS || edge.transition >= self.inst.transitions() {
            return false;
        }
        let at = |v: &Term| cubes[0].vars.iter().position(|x| x == v).map(|i| ps[i]);
        let (Some(params), Some(next)) =
            (edge.params.iter().map(at).collect::<Option<Vec<i64>>>(), edge.succ_vars.iter().map(at).collect::<Option<Vec<i64>>>())
        else {
            return false;
        };
        let Some(succs) = self.steps(st) else { return false };
        for ((t, args), s) in succs {
            if t != edge.transition || *args != *params {
                continue;
            }
            for s in self.admissible(s) {
                let depth = path.len();
                path.push(s.clone());
                if self.walk(s, next.clone(), &cubes[1..], &edges[1..], steps, path) {
                    return true;
                }
                path.truncate(depth);
            }
        }
        false
    }

    /// `from` (reachable states) and up to `most` states reachable from
    /// them, breadth-first.
    pub fn around(&self, from: Vec<State>, most: usize) -> Vec<State> {
        let mut seen: crate::HashSet<State> = from.iter().cloned().collect();
        let mut out = from;
        let limit = out.len() + most;
        let mut next = 0;
        while next < out.len() && out.len() < limit {
            let st = out[next].clone();
            next += 1;
            let Some(succs) = self.steps(st) else { continue };
            for s in succs.flat_map(|(_, s)| self.admissible(s)) {
                if out.len() >= limit {
                    break;
                }
                if seen.insert(s.clone()) {
                    out.push(s);
                }
            }
        }
        out
    }

    /// The steps of a reachable state, its open values fixed as far as the
    /// guards and updates read them (the successors not yet checked
    /// against the axioms: see [`Oracle::admissible`]); `None` if the
    /// instance cannot evaluate them.
    fn steps(&self, st: State) -> Option<impl Iterator<Item = (Move, State)>> {
        let parts = completions(st, &self.open, |s| self.inst.successors(s)).ok()?;
        Some(parts.into_iter().flat_map(|(_, succs)| succs))
    }

    /// The completions of a successor state that satisfy the axioms.
    fn admissible(&self, st: State) -> Vec<State> {
        let judged = completions(st, &self.open, |s| self.inst.holds_axioms(s));
        judged.unwrap_or_default().into_iter().filter(|(_, ok)| *ok).map(|(s, _)| s).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::Sort;
    use crate::reach::pre::pre_image;
    use crate::system::cube::zvar;
    use crate::system::System;

    fn mutex() -> System {
        let src = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mutex.cub")).unwrap();
        crate::frontend::parse_str(&src, crate::frontend::Format::Cubicle).unwrap().system
    }

    /// `∃z1. A[z1] = location k` (0 Idle, 1 Trying, 2 Critical).
    fn at(sys: &System, k: i64) -> Cube {
        let z = zvar(0, &Sort::Index);
        let a = &sys.vars[0];
        Cube::plain(vec![z.clone()], vec![Term::eq(&Term::select(&a.term, &[z]), &Term::enum_const(a.value_sort(), k))])
    }

    /// The pre-images of `cube` under the named transition, with their edges.
    fn pre(sys: &System, cube: &Cube, name: &str) -> Vec<(Cube, Edge)> {
        let ti = sys.transitions.iter().position(|t| t.name == name).unwrap();
        pre_image(sys, cube, ti, 4, true).0
    }

    /// "A process is critical", its pre-image by one process's
    /// test-and-set and that step.
    fn entering(sys: &System) -> (Cube, Cube, Edge) {
        let target = at(sys, 2);
        let (cube, edge) = pre(sys, &target, "test_and_set").into_iter().find(|(c, _)| c.arity() == 1).unwrap();
        (target, cube, edge)
    }

    /// A trying process with the lock free is reachable and its
    /// test-and-set makes it critical: the walk confirms the step.
    #[test]
    fn a_reachable_cube_steps_into_its_successor() {
        let sys = mutex();
        let (target, cube, edge) = entering(&sys);
        let mut o = Oracle::new(&sys, 2, 1000, None).unwrap();
        let starts = o.states_in(&cube);
        let path = o.walk_into(starts, &[cube, target], &[edge]).expect("the step is confirmed");
        assert_eq!(path.len(), 1, "one state after one step");
    }

    /// Two critical processes are unreachable, so no pre-image of them is
    /// confirmed.
    #[test]
    fn an_unreachable_target_is_never_confirmed() {
        let sys = mutex();
        let q = &sys.unsafe_[0];
        let target = Cube::plain(q.vars.clone(), q.lits.clone());
        let mut o = Oracle::new(&sys, 2, 1000, None).unwrap();
        for name in ["request", "test_and_set", "release"] {
            for (cube, edge) in pre(&sys, &target, name) {
                let starts = o.states_in(&cube);
                assert!(o.walk_into(starts, &[cube, target.clone()], &[edge]).is_none(), "{name}");
            }
        }
    }

    /// A reachable state that cannot take the edge's step (an idle process
    /// has no test-and-set) confirms nothing.
    #[test]
    fn a_step_the_state_cannot_take_confirms_nothing() {
        let sys = mutex();
        let (target, _, edge) = entering(&sys);
        let mut o = Oracle::new(&sys, 2, 1000, None).unwrap();
        let idle = at(&sys, 0);
        let starts = o.states_in(&idle);
        assert!(!starts.is_empty(), "an idle process is reachable");
        assert!(o.walk_into(starts, &[idle, target], &[edge]).is_none());
    }

    /// An exploration cut short at the initial state takes "a process is
    /// critical" for unreachable; once the oracle learns the states around
    /// it, no candidate a learnt state satisfies is proposed, and the
    /// learnt states survive a deeper exploration.
    #[test]
    fn learnt_states_refute_candidates() {
        let sys = mutex();
        let mut o = Oracle::new(&sys, 2, 1, None).unwrap().deepening_up_to(2);
        assert!(!o.complete);
        let (z1, z2) = (zvar(0, &Sort::Index), zvar(1, &Sort::Index));
        let a = &sys.vars[0];
        let at = |z: &Term, k: i64| Term::eq(&Term::select(&a.term, std::slice::from_ref(z)), &Term::enum_const(a.value_sort(), k));
        let cube = Cube::plain(vec![z1.clone(), z2.clone()], vec![at(&z1, 2), at(&z2, 1)]);
        let (cand, _) = o.approximate(&cube).expect("a sample of one state reaches no critical process");
        assert_eq!(cand.lits.len(), 1, "{cand}");
        let near = o.around(o.states.clone(), 100);
        assert_eq!(near.len(), 8, "the whole 2-process instance");
        o.learn(near);
        assert!(o.approximate(&cube).is_none(), "every part of a reachable cube is reached");
        o.deepen();
        assert!(o.states() >= 8 && o.learnt() == 8);
        assert!(o.approximate(&cube).is_none());
    }
}
