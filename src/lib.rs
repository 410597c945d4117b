//! arrax: a model checker for array-based systems (parameterised protocols
//! and array programs), by backward reachability over existential cubes,
//! with checked verdicts. See ARCHITECTURE.md for the map.

pub mod bench;
pub mod abstraction;
pub mod acceleration;
pub mod approx;
pub mod certify;
pub mod cube;
pub mod driver;
pub mod exec;
pub mod engine;
pub mod finite;
pub mod fixpoint;
pub mod frontend;
pub mod instantiate;
pub mod interpolate;
pub mod logic;
pub mod path;
pub mod pre;
pub mod projection;
pub mod report;
pub mod safety;
pub mod slice;
pub mod smt;
pub mod system;
