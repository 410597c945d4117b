//! Frames `F_0 ⊆ F_1 … F_k` of IC3/PDR, held as one list of lemmas with
//! levels (delta encoding): a lemma at level `j` belongs to frames
//! `F_1 … F_j`; `F_0` is the initial states. Frames only get stronger, so
//! every frame keeps over-approximating the states reachable in as many
//! steps; when no lemma is left at some level `j`, `F_j = F_{j+1}` is an
//! inductive invariant.

use super::lemma::{Lemma, INFINITY};
use crate::reach::fixpoint::{subsumes, Pattern};
use crate::system::cube::Cube;

/// The frames' lemmas.
#[derive(Default)]
pub struct Frames {
    lemmas: Vec<Lemma>,
}

impl Frames {
    /// The lemmas of frame `F_j` (`j ≥ 1`): those of level `j` or more.
    pub fn at(&self, j: usize) -> impl Iterator<Item = &Lemma> {
        self.lemmas.iter().filter(move |l| l.level >= j)
    }

    /// The cubes of the lemmas of level exactly `j`.
    pub fn exactly(&self, j: usize) -> Vec<Cube> {
        self.lemmas.iter().filter(|l| l.level == j).map(|l| l.cube.clone()).collect()
    }

    /// Adds the lemma `¬cube` at `level`, unless a lemma at that level or
    /// above already implies it (some instance of its cube is contained in
    /// `cube`); lemmas it implies at that level or below go. Whether it was
    /// added.
    pub fn add(&mut self, cube: Cube, level: usize) -> bool {
        let new = Pattern::new(cube.clone());
        if self.lemmas.iter().any(|l| l.level >= level && subsumes(&Pattern::new(l.cube.clone()), &cube).is_some()) {
            return false;
        }
        self.lemmas.retain(|l| l.level > level || subsumes(&new, &l.cube).is_none());
        self.lemmas.push(Lemma::new(cube, level));
        true
    }

    /// Moves the lemma `¬cube` from level `from` to level `to`.
    pub fn promote(&mut self, cube: &Cube, from: usize, to: usize) {
        if let Some(l) = self.lemmas.iter_mut().find(|l| l.level == from && l.cube == *cube) {
            l.level = to;
        }
    }

    /// The lemmas per level `1…k` (for progress reports), then those of
    /// every frame.
    pub fn profile(&self, k: usize) -> (Vec<usize>, usize) {
        let per = (1..=k).map(|j| self.lemmas.iter().filter(|l| l.level == j).count()).collect();
        (per, self.lemmas.iter().filter(|l| l.level == INFINITY || l.level > k).count())
    }

    /// The cubes whose negations form the invariant `F_j` once `F_j =
    /// F_{j+1}`: every lemma of level above `j`.
    pub fn invariant(&self, j: usize) -> Vec<Cube> {
        self.lemmas.iter().filter(|l| l.level > j).map(|l| l.cube.clone()).collect()
    }
}
