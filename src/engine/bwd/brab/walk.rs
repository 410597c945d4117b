//! Refutation by the oracle: a cube of the backward search that a
//! reachable state of the finite instance satisfies, and from which that
//! state steps along the search's path into the approximation the cube
//! descends from, shows that approximation reachable — long before the
//! backward search itself would meet the initial states (a wrong
//! approximation's pre-images can go on for dozens of steps).
//!
//! Each step is checked on the instance: the edge's transition, with its
//! parameters at the processes the walk has reached, must be enabled and
//! lead to a state satisfying the axioms. A pre-image computed with
//! universal guards checked only on the cube's processes, or through an
//! accelerated transition, may hold states with no such step: the walk
//! then fails, and nothing is concluded.

use super::instance::{completions, State};
use super::Oracle;
use crate::answer::Edge;
use crate::logic::instantiate::injective_maps;
use crate::logic::{Op, Sort, Term};
use crate::system::cube::Cube;

/// The most states of the first cube a walk starts from.
const STARTS: usize = 16;

/// The most states a walk visits in all (branching on open values).
const STEPS: usize = 4096;

impl Oracle<'_> {
    /// Whether a reachable state of the instance satisfies `cubes[0]` and
    /// steps along `edges` (edge `i` from `cubes[i]` to `cubes[i + 1]`,
    /// naming its parameters and the next cube's variables as variables of
    /// `cubes[i]`) to a state satisfying the last cube, which is then
    /// reachable. Cubes with conditions on other processes are not
    /// evaluated (false).
    pub fn reaches_along(&mut self, cubes: &[Cube], edges: &[Edge]) -> bool {
        let (first, last) = (&cubes[0], &cubes[cubes.len() - 1]);
        if cubes.len() != edges.len() + 1 || !first.others.is_empty() || !last.others.is_empty() || first.arity() > self.inst.procs {
            return false;
        }
        let procs: Vec<Term> = (0..self.inst.procs).map(|p| Term::raw(Op::Int(p as i64), vec![], Sort::Index)).collect();
        let mut steps = 0;
        for m in injective_maps(&first.vars, &procs) {
            let ps: Vec<i64> = first.vars.iter().map(|v| m[v].as_int().unwrap()).collect();
            for st in self.satisfying(first, &ps) {
                if self.walk(st, ps.clone(), cubes, edges, &mut steps) {
                    return true;
                }
                if steps >= STEPS {
                    return false;
                }
            }
        }
        false
    }

    /// Up to [`STARTS`] reachable states satisfying the cube with its
    /// variables at processes `ps`, open values fixed as far as the
    /// literals read them.
    fn satisfying(&mut self, cube: &Cube, ps: &[i64]) -> Vec<State> {
        let mut acc: Option<Vec<u64>> = None;
        for l in &cube.lits {
            let Some(s) = self.set(l, &cube.vars, ps) else { return vec![] };
            acc = Some(match acc {
                None => s.clone(),
                Some(a) => a.iter().zip(s).map(|(x, y)| x & y).collect(),
            });
        }
        let hits = acc.unwrap_or_else(|| vec![u64::MAX; self.states.len().div_ceil(64)]);
        let ks = (0..self.states.len()).filter(|&k| hits[k / 64] & (1 << (k % 64)) != 0);
        let mut out = vec![];
        for k in ks {
            out.extend(self.completed(self.states[k].clone(), cube, ps));
            if out.len() >= STARTS {
                break;
            }
        }
        out.truncate(STARTS);
        out
    }

    /// The completions of a state satisfying the cube at processes `ps`.
    fn completed(&self, st: State, cube: &Cube, ps: &[i64]) -> Vec<State> {
        let env: Vec<(Term, i64)> = cube.vars.iter().cloned().zip(ps.iter().cloned()).collect();
        let (code, regs) = self.inst.compile(&Term::and(cube.lits.clone()), &env);
        let mut regs = vec![0i64; regs];
        let done = completions(st, &self.open, |s| self.inst.val(&code, s, &mut regs)).unwrap_or_default();
        done.into_iter().filter(|(_, v)| *v != 0).map(|(s, _)| s).collect()
    }

    /// One step of the walk from `st`, which satisfies `cubes[0]` with its
    /// variables at `ps`: the first edge's transition taken, then the rest
    /// of the walk; at the last cube, whether `st` satisfies it.
    fn walk(&self, st: State, ps: Vec<i64>, cubes: &[Cube], edges: &[Edge], steps: &mut usize) -> bool {
        *steps += 1;
        let Some(edge) = edges.first() else {
            return !self.completed(st, &cubes[0], &ps).is_empty();
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
        let Ok(parts) = completions(st, &self.open, |s| self.inst.successors(s)) else { return false };
        for (_, succs) in parts {
            for ((t, args), s) in succs {
                if t != edge.transition || *args != *params {
                    continue;
                }
                for s in self.admissible(s) {
                    if self.walk(s, next.clone(), &cubes[1..], &edges[1..], steps) {
                        return true;
                    }
                }
            }
        }
        false
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
        assert!(o.reaches_along(&[cube, target], &[edge]));
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
                assert!(!o.reaches_along(&[cube, target.clone()], &[edge]), "{name}");
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
        assert!(!o.reaches_along(&[at(&sys, 0), target], &[edge]));
    }
}
