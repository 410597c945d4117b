//! Abstraction refined on counterexamples (placeholder: none yet).

use super::search::Search;
use crate::answer::AbstractTrace;

/// Which abstraction the search refines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Abstraction {
    /// The concrete system.
    None,
}

impl Search<'_> {
    /// Refines the abstraction after the spurious trace; whether it changed.
    pub(super) fn refine(&mut self, _trace: &AbstractTrace) -> bool {
        false
    }
}
