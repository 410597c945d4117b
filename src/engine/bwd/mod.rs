//! Backward reachability (MCMT, Cubicle): the search over cubes
//! ([`search`]) and its approximation by the reachable states of a finite
//! instance ([`brab`]).

pub mod brab;
pub mod search;

pub use search::{Options, Order, Postpone, Search};
