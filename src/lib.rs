//! arrax: a model checker for array-based systems (parameterised protocols
//! and array programs), by backward reachability over existential cubes,
//! with checked verdicts. See ARCHITECTURE.md for the map.

pub mod frontend;
pub mod logic;
pub mod system;
