//! The MCMT v2 input language, as the real benchmark files write it
//! (see `bench/NOTES.md`).
//!
//! A file is a sequence of keywords (`:local`, `:transition`, `:case`, …),
//! each followed by the s-expressions up to the next keyword; `:comment`
//! swallows the rest of its line. Reading happens in three passes:
//! 1. `items`: the keyword stream, with the comment lines preceding each keyword;
//! 2. `structure`: sections (`:initial`, `:transition`, …) with their parts;
//! 3. `Builder`: declarations, a small sort-inference pass for `int`
//!    state variables that hold process indices, then elaboration of every
//!    formula into the [`System`] IR.
//!
//! Semantics decided here (each checked on the real files):
//! - a global `f` is a scalar; a read `f[i]` means `f`;
//! - `:val` lines come one per `:local` and `:global`, in declaration order;
//! - a local's new value is `λj. ite(c1, v1, ite(c2, v2, … vn))` (first
//!   matching case wins; the last value is the final else);
//! - a global's new value is the `:val` of the case that is literally
//!   `(= p j)` with `j := p`; every other case must agree with it;
//! - the universal guard: the disjunction of the `:uguard` lines holds for
//!   every `j` that falls in a case other than a literal `(= p j)`, and
//!   some case applies to every `j` (else the transition is disabled); it
//!   is left out when it holds by index equalities alone (`j` is one of
//!   the pairwise distinct parameters or none of them);
//! - in an order-index system, an `int`/`nat` state variable compared with
//!   or assigned an index gets the index sort, and an integer literal
//!   where an index is expected is the process constant `#n` (a rigid
//!   constant of the index sort, added to [`System::consts`]);
//! - `(t v)`, a term applied to a literal, is read as `(= t v)` with a
//!   warning (szymanski_na.in writes `(s[y] false)` in a guard);
//! - suggested negated invariants are hints: an ill-typed one (including
//!   the `(t v)` form) is dropped with a warning;
//! - a transition is named after the first comment line before it that
//!   starts with a word (`:comment t3 send_inv: …` gives `t3_send_inv`),
//!   else `t<n>`.

mod build;
mod structure;

use crate::frontend::{Diagnostic, Parsed};
use build::*;
use structure::*;

/// Keywords that only make sense inside a section.
pub(super) const SUB_KEYWORDS: &[&str] = &["var", "cnj", "guard", "uguard", "numcases", "case", "val", "end_of_suggested_negated_invariants"];

/// Option keywords kept verbatim in [`System::options`].
pub(super) const OPTIONS: &[&str] = &[
    "key_search",
    "max_transitions_number",
    "dynamic_predicate_abstraction",
    "determine_bounds",
    "map_back",
    "no_backward_simplification",
    "display_accelerated_transitions",
];

/// Type names that cannot be redefined (MCMT's own and the canonical print's).
pub(super) const RESERVED_TYPES: &[&str] = &["bool", "int", "nat", "real", "Bool", "Int", "Real", "proc", "Array"];

/// Reads an MCMT file into a system.
pub fn parse(src: &str) -> Result<Parsed, Diagnostic> {
    let items = items(src)?;
    if items.is_empty() {
        return Err(Diagnostic::new(1, 1, "empty input: no MCMT declarations found"));
    }
    let raw = structure(src, items)?;
    Builder::build(src, raw)
}
