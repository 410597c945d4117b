//! The array-based transition system: the one intermediate representation
//! every front end produces and every engine consumes.
//!
//! State: arrays indexed by processes (`local`s) and scalars (`global`s).
//! Initial states `∀x̄. I`, unsafe states `⋁ ∃z̄. U` (cubes), transitions
//! `∃x̄. guard ∧ ∀j. uguard(j) ∧ a' = λj. … ∧ g' = …`.
//!
//! Processes and identifiers: with order-only indices a state has a
//! finite set of processes, over which the quantifiers of the initial
//! formula, the axioms, universal guards, unsafe cubes and invariants
//! range and from which transitions take their parameters; an
//! index-valued scalar or cell holds an identifier, which need not be one
//! of the state's processes (Cubicle's semantics: `init (p) { Home <> p }`
//! makes `Home` a node outside the processes' arrays; a cube meets the
//! initial states when the initial formula holds at its own processes).
//! Rigid index constants (`#1`) are processes. With integer indices every
//! integer is an index.

pub mod cube;
pub mod horn;

use crate::logic::{free_vars, EnumDef, Sort, Term};
use std::rc::Rc;

/// What process indices support.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum IndexKind {
    /// Protocols: equality and the order `<` only (sort [`Sort::Index`]).
    Order,
    /// Programs: integer indices with linear arithmetic (sort [`Sort::Int`]).
    Int,
    /// Like `Int`, with every index non-negative (MCMT `:index nat`).
    Nat,
}

impl IndexKind {
    /// The sort of index variables.
    pub fn sort(self) -> Sort {
        match self {
            IndexKind::Order => Sort::Index,
            IndexKind::Int | IndexKind::Nat => Sort::Int,
        }
    }
    /// The keyword used in the canonical print.
    pub fn keyword(self) -> &'static str {
        match self {
            IndexKind::Order => "order",
            IndexKind::Int => "int",
            IndexKind::Nat => "nat",
        }
    }
}

/// A state variable: an array over processes or a scalar.
#[derive(Clone, Debug)]
pub struct StateVar {
    /// The symbol standing for the variable's current value.
    pub term: Term,
    /// Whether it is an array indexed by processes (else a scalar).
    pub is_array: bool,
}

impl StateVar {
    /// The variable's name.
    pub fn name(&self) -> &str {
        self.term.var_name().unwrap()
    }
    /// The element sort of an array, or the sort of a scalar.
    pub fn value_sort(&self) -> Sort {
        match self.term.sort().as_array() {
            Some(a) if self.is_array => a.elem.clone(),
            _ => self.term.sort().clone(),
        }
    }
}

/// A conjunction of literals over some index variables, quantified
/// existentially (a cube: unsafe states, hints) or universally (initial
/// states, axioms) depending on where it stands.
#[derive(Clone, Debug)]
pub struct Quantified {
    /// The quantified index variables (pairwise distinct in cubes).
    pub vars: Vec<Term>,
    /// The literals of the conjunction.
    pub lits: Vec<Term>,
}

impl Quantified {
    /// The conjunction as normalised cubes over `z1, z2, …` (of the index sort `isort`).
    pub fn cubes(&self, isort: &Sort) -> Vec<cube::Cube> {
        let vars: Vec<Term> = (0..self.vars.len()).map(|i| cube::zvar(i, isort)).collect();
        let map = self.vars.iter().cloned().zip(vars.iter().cloned()).collect();
        let lits: Vec<Term> = self.lits.iter().map(|l| crate::logic::substitute(l, &map)).collect();
        cube::Cube::normalize(&vars, &lits)
    }
    /// The conjunction of the literals.
    pub fn body(&self) -> Term {
        Term::and(self.lits.iter().cloned())
    }
}

/// How one state variable changes in a transition.
#[derive(Clone, Debug)]
pub struct Update {
    /// Which state variable (position in [`System::vars`]).
    pub var: usize,
    /// Its new value: a `λ`-term for arrays, a term for scalars, over the
    /// transition's parameters, its existential values and the current state.
    pub value: Term,
}

/// A transition: `∃ params (pairwise distinct), values. guard ∧ ∀j. uguard ∧ updates`.
#[derive(Clone, Debug)]
pub struct Transition {
    /// A name for traces.
    pub name: String,
    /// The process parameters, pairwise distinct.
    pub params: Vec<Term>,
    /// Existentially chosen non-index values (nondeterministic inputs).
    pub values: Vec<Term>,
    /// The guard: a quantifier-free formula over parameters and state.
    pub guard: Term,
    /// The universal guard `∀j. body`, if any: (j, body).
    pub uguard: Option<(Term, Term)>,
    /// The updated state variables; the others keep their values.
    pub updates: Vec<Update>,
    /// For a step standing for several iterations of a loop over processes
    /// (an accelerated companion): the integer range `[lo, hi)` of the
    /// processes it checks, each of which must exist (the processes of a
    /// concrete instance are `0…n-1`).
    pub checks: Option<(Term, Term)>,
}

impl Transition {
    /// The parameters, then the existential values: the inputs a concrete
    /// step chooses.
    pub fn inputs(&self) -> Vec<Term> {
        self.params.iter().chain(&self.values).cloned().collect()
    }
}

/// An array-based transition system.
#[derive(Clone, Debug, Default)]
pub struct System {
    /// What indices are.
    pub index: Option<IndexKind>,
    /// Enumerated types, in declaration order.
    pub enums: Vec<Rc<EnumDef>>,
    /// Uninterpreted sorts, in declaration order.
    pub sorts: Vec<Rc<str>>,
    /// Rigid constants (parameters such as `N`): never change.
    pub consts: Vec<Term>,
    /// State variables (arrays and scalars), in declaration order.
    pub vars: Vec<StateVar>,
    /// Axioms `∀x̄. φ` holding in every state.
    pub axioms: Vec<Quantified>,
    /// The initial states `∀x̄. I` (a conjunction of such formulas).
    pub initial: Vec<Quantified>,
    /// The unsafe states: a disjunction of cubes `∃z̄. U`.
    pub unsafe_: Vec<Quantified>,
    /// The transitions.
    pub transitions: Vec<Transition>,
    /// Suggested negated invariants: cubes believed unreachable, to be proven.
    pub hints: Vec<Quantified>,
    /// Terms to abstract in lazy abstraction (user-given).
    pub abstract_terms: Vec<Term>,
    /// Options of the source format kept for reference (name, value) and
    /// not otherwise interpreted.
    pub options: Vec<(String, String)>,
}

impl System {
    /// The index kind (order-only when not declared).
    pub fn index_kind(&self) -> IndexKind {
        self.index.unwrap_or(IndexKind::Order)
    }
    /// The sort of process indices.
    pub fn index_sort(&self) -> Sort {
        self.index_kind().sort()
    }
    /// The state variable with this name.
    pub fn var(&self, name: &str) -> Option<usize> {
        self.vars.iter().position(|v| v.name() == name)
    }
    /// The primed copy (next-state symbol) of state variable `i`.
    pub fn primed(&self, i: usize) -> Term {
        let v = &self.vars[i].term;
        Term::var(&format!("{}'", v.var_name().unwrap()), v.sort().clone())
    }
    /// The new value of state variable `i` under transition `t` (its
    /// current value when `t` does not update it).
    pub fn next_value(&self, t: &Transition, i: usize) -> Term {
        t.updates.iter().find(|u| u.var == i).map(|u| u.value.clone()).unwrap_or_else(|| self.vars[i].term.clone())
    }
    /// The index terms that are state scalars or rigid constants of the
    /// index sort (identifiers the state points to).
    pub fn index_scalars(&self) -> Vec<Term> {
        let isort = self.index_sort();
        let mut out: Vec<Term> = self.vars.iter().filter(|v| !v.is_array && v.value_sort() == isort).map(|v| v.term.clone()).collect();
        out.extend(self.consts.iter().filter(|c| *c.sort() == isort).cloned());
        out
    }
    /// The index scalars that denote a process of every state, so that
    /// quantifiers over processes are instantiated at them: with
    /// order-only indices the rigid constants (`#1`) only, since an
    /// index-valued state variable may name no process of the state (see
    /// the module documentation); with integer indices every index scalar
    /// (every integer is an index).
    pub fn process_scalars(&self) -> Vec<Term> {
        match self.index_kind() {
            IndexKind::Order => self.consts.iter().filter(|c| *c.sort() == Sort::Index).cloned().collect(),
            IndexKind::Int | IndexKind::Nat => self.index_scalars(),
        }
    }
    /// Whether `t` is a state-variable symbol.
    pub fn is_state_var(&self, t: &Term) -> bool {
        self.vars.iter().any(|v| v.term == *t)
    }
}

/// The free index variables of a formula among the given candidates.
pub fn index_vars_in(t: &Term, index_sort: &Sort) -> Vec<Term> {
    free_vars(t).into_iter().filter(|v| v.sort() == index_sort).collect()
}
