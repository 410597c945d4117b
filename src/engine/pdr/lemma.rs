//! Lemmas: negations of ∃-cubes, `∀z̄. distinct(z̄) ⇒ ¬φ(z̄)`, and how they
//! enter solver queries.
//!
//! A query meets a quantified lemma either through its instances over the
//! query's index terms — the instantiation of the covering test and of the
//! certifier — or through the quantified formula itself, left to the
//! solver's quantifier support ([`Lemmas`]). Instances are implied by the
//! lemma, so an unsatisfiable query with instances is unsatisfiable with
//! the lemma: blocking and pushing stay sound. A satisfiable one may only be
//! satisfiable because an instance was missing: that is where the engine's
//! incompleteness comes from (a predecessor outside the frame, a lemma not
//! pushed), never a wrong answer, since the final invariant is certified.

use crate::logic::instantiate::injective_maps;
use crate::logic::{substitute, Op, Term};
use crate::system::cube::Cube;
use crate::HashMap;

/// How quantified lemmas enter queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Lemmas {
    /// Instances over the query's index terms (ground queries).
    Instances,
    /// The quantified formulas, for the solver's quantifier instantiation.
    Quantifiers,
}

/// The level of a lemma that holds in every frame (an inductive invariant
/// or a fact known by construction).
pub const INFINITY: usize = usize::MAX;

/// A lemma of the frames: the negation of a cube, holding in frames
/// `1…level`.
#[derive(Clone, Debug)]
pub struct Lemma {
    /// The blocked cube; the lemma is its negation.
    pub cube: Cube,
    /// The last frame the lemma belongs to ([`INFINITY`]: every frame).
    pub level: usize,
    /// The cube's literals that mention none of its variables (location
    /// literals), which decide whether the lemma can matter in a query.
    ground: Vec<Term>,
}

impl Lemma {
    /// The lemma excluding `cube` from frames `1…level`.
    pub fn new(cube: Cube, level: usize) -> Lemma {
        let ground = cube.lits.iter().filter(|l| !cube.vars.iter().any(|v| crate::logic::occurs(v, l))).cloned().collect();
        Lemma { cube, level, ground }
    }

    /// Whether the lemma can say something about states with the unit
    /// facts `units` (none of its ground literals is false there).
    pub fn relevant(&self, units: &HashMap<Term, Term>) -> bool {
        units.is_empty() || self.ground.iter().all(|l| substitute(l, units).as_bool() != Some(false))
    }
}

/// The unit facts of a conjunction of literals: `x = v` for a symbol and a
/// value, `p` and `¬p` for Boolean symbols.
pub fn units(lits: &[Term]) -> HashMap<Term, Term> {
    let mut out = HashMap::default();
    for l in lits {
        match l.op() {
            Op::Eq => {
                let (a, b) = (&l.args()[0], &l.args()[1]);
                if a.is_var() && b.is_value() {
                    out.insert(a.clone(), b.clone());
                } else if b.is_var() && a.is_value() {
                    out.insert(b.clone(), a.clone());
                }
            }
            Op::Var(_) => {
                out.insert(l.clone(), Term::tt());
            }
            Op::Not if l.args()[0].is_var() => {
                out.insert(l.args()[0].clone(), Term::ff());
            }
            _ => {}
        }
    }
    out
}

/// The instances `¬(distinct(images) ∧ φ(images))` of the negated cube over
/// injective maps of its variables into `terms` (trivial ones left out).
pub fn instances(cube: &Cube, terms: &[Term]) -> Vec<Term> {
    let body = cube.body();
    let mut out = vec![];
    for m in injective_maps(&cube.vars, terms) {
        let images: Vec<Term> = cube.vars.iter().map(|v| m[v].clone()).collect();
        let inst = Term::and([Term::distinct(&images), substitute(&body, &m)]).not();
        if inst.as_bool() != Some(true) {
            out.push(inst);
        }
    }
    out
}

/// The negated cube as one closed formula `∀z̄. ¬(distinct(z̄) ∧ φ(z̄))`.
pub fn quantified(cube: &Cube) -> Term {
    Term::forall(&cube.vars, &Term::and([Term::distinct(&cube.vars), cube.body()]).not())
}

/// How the lemmas `cubes` enter a query over `terms`: their instances, or
/// the quantified formulas.
pub fn assertions<'c>(cubes: impl IntoIterator<Item = &'c Cube>, terms: &[Term], mode: Lemmas) -> Vec<Term> {
    let mut out = vec![];
    for c in cubes {
        match mode {
            _ if c.vars.is_empty() => out.push(c.body().not()),
            Lemmas::Instances => out.extend(instances(c, terms)),
            Lemmas::Quantifiers => out.push(quantified(c)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::Sort;
    use crate::system::cube::zvar;

    #[test]
    fn instances_and_relevance() {
        let z = zvar(0, &Sort::Int);
        let a = Term::var("a", Sort::array(vec![Sort::Int], Sort::Int));
        let (i, pc) = (Term::var("i", Sort::Int), Term::var("pc", Sort::Int));
        // ¬∃z. pc = 1 ∧ 0 ≤ z < i ∧ a[z] ≠ 0
        let cube = Cube::plain(
            vec![z.clone()],
            vec![
                Term::eq(&pc, &Term::int(1)),
                Term::le(&Term::int(0), &z),
                Term::lt(&z, &i),
                Term::eq(&Term::select(&a, std::slice::from_ref(&z)), &Term::int(0)).not(),
            ],
        );
        let lemma = Lemma::new(cube.clone(), 3);
        assert!(lemma.relevant(&units(&[Term::eq(&pc, &Term::int(1))])));
        assert!(!lemma.relevant(&units(&[Term::eq(&pc, &Term::int(2))])));
        let k = Term::var("k", Sort::Int);
        // at i the instance is trivial (i < i is false)
        assert_eq!(instances(&cube, &[k.clone(), i.clone()]).len(), 1);
        assert!(matches!(quantified(&cube).op(), Op::Forall(_)));
    }
}
