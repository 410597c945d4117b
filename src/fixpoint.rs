//! The fixpoint (covering) test: is a new cube `∃z̄.ψ` implied by the
//! disjunction of visited cubes `⋁ ∃ȳ.φ`? The negation of each visited cube
//! is instantiated on the injective maps of its variables into the new
//! cube's variables (sound; complete up to the instantiation). Cheap
//! syntactic reasoning comes first: an instance contradicted by the new
//! cube's unit facts is irrelevant, an instance whose literals the new cube
//! contains covers it outright; only the remaining instances reach the solver.

use crate::cube::{resolve_distinct, Cube};
use crate::instantiate::injective_maps;
use crate::logic::{substitute, Op, Sort, Term};
use std::collections::{HashMap, HashSet};

/// The new cube's facts, for evaluating instances of visited cubes.
pub struct Facts {
    /// Unit definitions `t ↦ value` read off the literals.
    defs: HashMap<Term, Term>,
    /// The literals themselves.
    lits: HashSet<Term>,
    /// The cube's variables (pairwise distinct).
    vars: HashSet<Term>,
}

impl Facts {
    /// The facts of a cube.
    pub fn of(cube: &Cube) -> Facts {
        let mut defs = HashMap::new();
        for l in &cube.lits {
            match l.op() {
                Op::Eq if l.args()[1].is_value() => {
                    defs.insert(l.args()[0].clone(), l.args()[1].clone());
                }
                Op::Not if *l.args()[0].sort() == Sort::Bool && !matches!(l.args()[0].op(), Op::Eq | Op::Lt | Op::Le) => {
                    defs.insert(l.args()[0].clone(), Term::ff());
                }
                Op::Var(_) | Op::Select => {
                    defs.insert(l.clone(), Term::tt());
                }
                _ => {}
            }
        }
        Facts { defs, lits: cube.lits.iter().cloned().collect(), vars: cube.vars.iter().cloned().collect() }
    }

    /// A literal under the facts: `Some(true)` if implied syntactically,
    /// `Some(false)` if contradicted, else `None` (with the simplified literal).
    fn eval(&self, lit: &Term) -> (Option<bool>, Term) {
        if self.lits.contains(lit) {
            return (Some(true), lit.clone());
        }
        let l = resolve_distinct(&substitute(lit, &self.defs), &self.vars);
        if self.lits.contains(&l) {
            return (Some(true), l);
        }
        if self.lits.contains(&l.not()) {
            return (Some(false), l);
        }
        (l.as_bool(), l)
    }
}

/// The outcome of matching one visited cube against a new one.
pub enum Match {
    /// Some instance is contained in the new cube: covered, no solver
    /// needed; the images of the old cube's variables.
    Subsumed(Vec<Term>),
    /// The instances that the solver must consider: images of the old
    /// cube's variables, and the conjunction of the literals not decided by
    /// the facts.
    Instances(Vec<(Vec<Term>, Term)>),
}

/// Matches visited cube `old` against the new cube: all instances of `old`
/// over injective maps into the new cube's variables, minus those the new
/// cube's facts contradict.
pub fn match_cube(old: &Cube, new: &Cube, facts: &Facts) -> Match {
    if old.arity() > new.arity() {
        return Match::Instances(vec![]);
    }
    // Literals without variables do not depend on the map: check them once.
    let mut ground = vec![];
    let mut open = vec![];
    for l in &old.lits {
        if old.vars.iter().any(|v| crate::logic::occurs(v, l)) {
            open.push(l.clone());
        } else {
            match facts.eval(l) {
                (Some(true), _) => {}
                (Some(false), _) => return Match::Instances(vec![]),
                (None, l2) => ground.push(l2),
            }
        }
    }
    let mut out = vec![];
    'maps: for m in injective_maps(&old.vars, &new.vars) {
        let mut rest = ground.clone();
        for l in &open {
            match facts.eval(&substitute(l, &m)) {
                (Some(true), _) => {}
                (Some(false), _) => continue 'maps,
                (None, l2) => rest.push(l2),
            }
        }
        let images: Vec<Term> = old.vars.iter().map(|v| m[v].clone()).collect();
        if rest.is_empty() {
            return Match::Subsumed(images);
        }
        out.push((images, Term::and(rest)));
    }
    Match::Instances(out)
}

/// Whether `old` syntactically subsumes `new` (some instance of `old`'s
/// literals is contained in `new`, so `new ⊨ old`): the images of `old`'s
/// variables in that instance.
pub fn subsumes(old: &Cube, new: &Cube) -> Option<Vec<Term>> {
    if old.arity() > new.arity() || old.lits.len() > new.lits.len() {
        return None;
    }
    let lits: HashSet<&Term> = new.lits.iter().collect();
    injective_maps(&old.vars, &new.vars)
        .into_iter()
        .find(|m| old.lits.iter().all(|l| lits.contains(&substitute(l, m))))
        .map(|m| old.vars.iter().map(|v| m[v].clone()).collect())
}
