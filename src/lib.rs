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

/// The hash map used throughout: FxHash, fast and the same from run to run.
/// Keys are mostly interned terms hashed by their number, where SipHash's
/// defence against chosen collisions buys nothing and costs a tenth of a
/// search (measured on FLASH).
pub type HashMap<K, V> = std::collections::HashMap<K, V, rustc_hash::FxBuildHasher>;
/// The hash set used throughout (see [`HashMap`]).
pub type HashSet<K> = std::collections::HashSet<K, rustc_hash::FxBuildHasher>;
