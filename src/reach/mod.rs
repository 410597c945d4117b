//! The reachability concepts engines share (MCMT, Cubicle, SAFARI): the
//! pre-image of a cube ([`pre`]), the safety test against the initial
//! states ([`safety`]), the fixpoint (covering) test ([`fixpoint`], with the index of visited
//! cubes [`visited`]), path
//! formulas of backward paths ([`path`]), interpolants for refinement
//! ([`interpolate`]) and term abstraction ([`abstraction`]).

pub mod abstraction;
pub mod dataflow;
pub mod fixpoint;
pub mod interpolate;
pub mod path;
pub mod pre;
pub mod safety;
pub mod uncovered;
pub mod visited;
