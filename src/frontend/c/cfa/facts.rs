//! What one construction of the automaton learns about the program, for
//! the next one: the automaton is built again with these facts until they
//! no longer change (usually twice). The walk over the program is the same
//! each time, so C objects are named by the order in which the walk
//! creates them (a region number, a field path and a component).
//!
//! The facts are the writes of every leaf (how many, and whether the only
//! one is an initialiser storing a constant: such an integer scalar is a
//! constant where a constant operand makes an operator linear), the
//! components of pointer leaves (a component every write stores the same
//! constant in needs no variable), the object each pointer leaf points
//! into, and the regions whose size `sizeof` reads.

use crate::{HashMap, HashSet};

/// A leaf of a region: its number and its field path.
pub type LeafKey = (usize, Vec<usize>);

/// Where a pointer leaf points: a region, a field path in it, how many
/// indices select the object, and whether the last one selects an element
/// of an array (so that pointer arithmetic moves it).
pub type TargetKey = (usize, Vec<usize>, usize, bool);

/// What the writes of one pointer component stored.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Comp {
    /// No write yet.
    #[default]
    Unwritten,
    /// Every write stored this constant.
    Const(i64),
    /// Writes stored different or non-constant values.
    Varying,
}

impl Comp {
    /// The component after one more write (`None`: not a constant).
    pub fn and(self, v: Option<i64>) -> Comp {
        match (self, v) {
            (Comp::Unwritten, Some(c)) => Comp::Const(c),
            (Comp::Const(a), Some(c)) if a == c => Comp::Const(a),
            _ => Comp::Varying,
        }
    }
}

/// What is known about one leaf.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct LeafFact {
    /// How many writes the walk met (initialisers included).
    pub writes: u32,
    /// For an integer scalar: the constant its initialiser stored, while
    /// that initialiser is its only write.
    pub init: Option<i64>,
    /// For a pointer leaf: each component's writes (validity flag first).
    pub comps: Vec<Comp>,
    /// For a pointer leaf: where its non-null values point.
    pub target: Option<TargetKey>,
    /// For a pointer leaf: whether it was given values pointing into two
    /// different objects (arrax rejects the program).
    pub conflict: bool,
}

/// Everything one construction learnt.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Facts {
    /// Per leaf.
    pub leaves: HashMap<LeafKey, LeafFact>,
    /// Regions whose size in bytes `sizeof` asks for.
    pub sized: HashSet<usize>,
    /// Whether some pointer's object was still unknown where it was used
    /// (the facts of such a construction may miss writes through it).
    pub incomplete: bool,
}

impl Facts {
    /// The constant an integer scalar leaf always holds after its
    /// initialiser (its only write), if it does.
    pub fn constant(&self, key: &LeafKey) -> Option<i64> {
        let f = self.leaves.get(key)?;
        (f.writes == 1).then_some(f.init).flatten()
    }

    /// The constant a pointer component always holds, if every write
    /// stored the same one.
    pub fn component(&self, key: &LeafKey, k: usize) -> Option<i64> {
        match self.leaves.get(key)?.comps.get(k)? {
            Comp::Const(c) => Some(*c),
            _ => None,
        }
    }

    /// Records a write of an integer leaf (`init`: by an initialiser,
    /// storing this constant if it is one).
    pub fn write_int(&mut self, key: LeafKey, initialiser: bool, value: Option<i64>) {
        let f = self.leaves.entry(key).or_default();
        f.writes += 1;
        f.init = if initialiser && f.writes == 1 { value } else { None };
    }

    /// Records a write of one component of a pointer leaf (`None`: not a
    /// known constant).
    pub fn write_component(&mut self, key: LeafKey, k: usize, value: Option<i64>) {
        let f = self.leaves.entry(key).or_default();
        f.writes += 1;
        if f.comps.len() <= k {
            f.comps.resize(k + 1, Comp::Unwritten);
        }
        f.comps[k] = f.comps[k].and(value);
    }

    /// Records a write of a pointer leaf: the components stored (`Some(None)`
    /// for one not known to be constant, `None` for one copied from itself,
    /// which changes nothing; only the flag for a null pointer) and the
    /// target of a non-null value.
    pub fn write_ptr(&mut self, key: LeafKey, comps: &[Option<Option<i64>>], target: Option<TargetKey>) {
        let f = self.leaves.entry(key).or_default();
        f.writes += 1;
        if f.comps.len() < comps.len() {
            f.comps.resize(comps.len(), Comp::Unwritten);
        }
        for (c, v) in f.comps.iter_mut().zip(comps) {
            if let Some(v) = v {
                *c = c.and(*v);
            }
        }
        if let Some(t) = target {
            match &f.target {
                Some(old) if *old != t => f.conflict = true,
                Some(_) => {}
                None => f.target = Some(t),
            }
        }
    }
}
