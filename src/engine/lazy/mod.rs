//! Lazy abstraction (SAFARI): a backward tree refined by interpolants
//! ([`tree`]).

pub mod tree;

pub use tree::{Lazy, Options};
