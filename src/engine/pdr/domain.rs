//! CTIGAR's abstract domain (Birgmeier, Bradley, Weissenbacher:
//! "Counterexample to Induction-Guided Abstraction-Refinement"), as an
//! option of the engine, over the literals of cubes: an obligation is
//! first blocked in its abstraction — the cube cut down to the literals of
//! the domain, a larger set of states, so its lemma is stronger. When the
//! abstraction has a predecessor (a counterexample to induction) but the
//! obligation itself is blocked, that predecessor was spurious: the
//! literals of the obligation's refutation (its unsat core) join the
//! domain. The domain starts with the unsafe cubes' literals; location
//! literals always belong to it.

use super::abstraction::is_location;
use super::generalize::keep;
use crate::logic::Term;
use crate::system::cube::Cube;
use crate::HashSet;

/// The literals lemmas are first built from.
#[derive(Clone, Debug, Default)]
pub struct Domain {
    literals: HashSet<Term>,
}

impl Domain {
    /// The domain of the unsafe cubes' literals.
    pub fn new(roots: &[Cube]) -> Domain {
        Domain { literals: roots.iter().flat_map(|c| c.lits.iter().cloned()).collect() }
    }

    /// The cube cut down to the domain's literals and its location
    /// literals, when that drops some literal but not all.
    pub fn abstraction(&self, c: &Cube) -> Option<Cube> {
        let kept: Vec<Term> = c.lits.iter().filter(|l| is_location(l) || self.literals.contains(*l)).cloned().collect();
        let informative = kept.iter().any(|l| !is_location(l));
        (informative && kept.len() < c.lits.len()).then(|| keep(c, kept))
    }

    /// Adds the cube's literals at positions `core` (a refutation's core);
    /// how many were new.
    pub fn refine(&mut self, c: &Cube, core: &[usize]) -> usize {
        core.iter().filter(|&&i| self.literals.insert(c.lits[i].clone())).count()
    }
}
