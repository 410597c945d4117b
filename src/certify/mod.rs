//! Checking answers before they are printed.
//!
//! SAFE: the invariant `⋀_i ∀z̄. distinct(z̄) ⇒ ¬φ_i(z̄)` is re-checked by
//! the *other* solver through obligations rebuilt from the system IR (not
//! from the search's pre-image code): initiation, consecution for every
//! transition (exact guards, universal guards, distinct parameters,
//! axioms) and exclusion of every unsafe cube. Universal quantifiers are
//! instantiated over ground index terms — first the instances the search
//! used (hints), then, if that does not suffice, every instance over the
//! obligation's index terms. An unsatisfiable instantiation proves an
//! obligation whatever instances were chosen; a satisfiable one refutes it
//! only when the instantiation is complete (order-only indices, no
//! index-valued arrays), otherwise the obligation stays unknown.
//!
//! Horn clauses: a model derived from a certified invariant is checked
//! against the clauses themselves by [`horn`].
//!
//! UNSAFE (forward execution): the concrete execution is re-executed on the
//! system by [`execution`], a separate evaluator of the IR terms.
//!
//! UNSAFE (backward search): the trace is replayed on a concrete instance with every process
//! it names (plus a few spare ones), universal guards evaluated over all of
//! them; the solver proposes values, and the trace is accepted only when
//! evaluating every step on those values gives `true`. A step of an
//! accelerated loop must check only processes of the instance, and is
//! then replaced by its iterations, each guard evaluated.

pub mod execution;
pub mod horn;
pub mod safe;
pub mod service;
pub mod trace;

pub use safe::{certify_safe, smtlib_script, Obligation, SafeCertificate, Status};
pub use trace::replay;
