//! The logic core: sorts, hash-consed terms with simplifying constructors,
//! substitution and SMT-LIB printing. Everything else speaks in these terms.

pub mod instantiate;
pub mod print;
pub mod projection;
pub mod sort;
pub mod subst;
pub mod term;
pub mod units;

pub use print::text;
pub use sort::{ArraySort, EnumDef, EnumValues, Sort};
pub use subst::{any_small, collect, conjuncts, free_vars, occurs, rename, rename_bound, replace, substitute, substitute_pairs};
pub use term::{BitKind, Bits, Op, Term};

#[cfg(test)]
mod tests;
