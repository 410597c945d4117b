//! arrax: a model checker for array-based systems (parameterised protocols
//! and array programs), by backward reachability over existential cubes,
//! with checked verdicts. See ARCHITECTURE.md for the map.

#![warn(missing_docs)]

pub mod answer;
pub mod bench;
pub mod certify;
pub mod driver;
pub mod engine;
pub mod exec;
pub mod frontend;
pub mod logic;
pub mod portfolio;
pub mod reach;
pub mod report;
pub mod smt;
pub mod system;
pub mod transform;
