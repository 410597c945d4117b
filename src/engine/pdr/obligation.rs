//! Proof obligations: cubes of states from which an unsafe state is
//! reachable, each to be excluded from a frame. An obligation at level `j`
//! is blocked by showing that no state of `F_{j-1}` steps into it; else a
//! predecessor becomes an obligation at level `j-1`. A chain of
//! obligations from one meeting the initial states to an unsafe cube is a
//! candidate counterexample: its cubes and edges form an
//! [`AbstractTrace`], which the replay service checks.

use crate::answer::{AbstractTrace, Edge};
use crate::system::cube::Cube;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One proof obligation.
#[derive(Clone, Debug)]
pub struct Obligation {
    /// The states to exclude.
    pub cube: Cube,
    /// The frame to exclude them from.
    pub level: usize,
    /// The obligation this one is a predecessor of (`None`: an unsafe cube).
    pub parent: Option<usize>,
    /// How the cube steps into the parent's (the pre-image edge).
    pub edge: Option<Edge>,
    /// The number of steps to an unsafe cube.
    pub depth: usize,
}

/// A queue entry: level, then deepest, then newest first.
type Entry = Reverse<(usize, Reverse<usize>, Reverse<usize>)>;

/// The obligations of one blocking round: an arena (for traces) and a
/// queue, lowest level first, then deepest, then newest.
#[derive(Default)]
pub struct Obligations {
    arena: Vec<Obligation>,
    queue: BinaryHeap<Entry>,
}

impl Obligations {
    /// Adds an obligation and queues it; its number.
    pub fn push(&mut self, ob: Obligation) -> usize {
        let id = self.arena.len();
        self.arena.push(ob);
        self.requeue(id);
        id
    }

    /// Queues an obligation again (it still waits for its predecessor to
    /// be blocked).
    pub fn requeue(&mut self, id: usize) {
        let ob = &self.arena[id];
        self.queue.push(Reverse((ob.level, Reverse(ob.depth), Reverse(id))));
    }

    /// The next obligation to work on.
    pub fn pop(&mut self) -> Option<usize> {
        self.queue.pop().map(|Reverse((_, _, Reverse(id)))| id)
    }

    /// Obligation `id`.
    pub fn get(&self, id: usize) -> &Obligation {
        &self.arena[id]
    }

    /// The chain from obligation `id` to its unsafe cube, as a trace from
    /// the initial end to the unsafe end.
    pub fn trace(&self, id: usize) -> AbstractTrace {
        let mut cubes = vec![];
        let mut edges = vec![];
        let mut cur = Some(id);
        while let Some(k) = cur {
            let ob = &self.arena[k];
            cubes.push(ob.cube.clone());
            edges.extend(ob.edge.clone());
            cur = ob.parent;
        }
        AbstractTrace { cubes, edges }
    }
}
