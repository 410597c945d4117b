//! Constrained Horn clauses (CHC) over the IR's terms, and how an
//! array-based system stands for a set of them ([`Correspondence`]).
//!
//! The CHC front end lowers clauses to a system; the export writes a
//! system as clauses. Both record which location of the control variable
//! and which state symbols stand for each predicate, and which clause each
//! transition, the initial formula and each unsafe cube come from, so that
//! answers can be given in the clauses' terms: a model (one definition per
//! predicate) for SAFE, a derivation for UNSAFE.

use crate::logic::{substitute, Sort, Term};
use crate::smt::smtlib;
use crate::HashMap;
use std::fmt::Write as _;

/// A predicate (an uninterpreted relation) of the clauses.
#[derive(Clone, Debug)]
pub struct Predicate {
    /// Its name.
    pub name: String,
    /// Its parameters: variables of the argument sorts (Int, Bool or
    /// arrays from Int), named for a model's `define-fun`.
    pub params: Vec<Term>,
}

impl Predicate {
    /// The argument sorts.
    pub fn sorts(&self) -> Vec<Sort> {
        self.params.iter().map(|p| p.sort().clone()).collect()
    }
}

/// An application `p(t1, …, tn)` of a predicate.
#[derive(Clone, Debug)]
pub struct Atom {
    /// The predicate (position in [`Clauses::predicates`]).
    pub pred: usize,
    /// The arguments.
    pub args: Vec<Term>,
}

/// A linear clause `∀vars. body ∧ constraint ⇒ head`.
#[derive(Clone, Debug)]
pub struct Clause {
    /// The universally quantified variables.
    pub vars: Vec<Term>,
    /// The predicate application of the body, if any (a fact has none).
    pub body: Option<Atom>,
    /// The constraint: a quantifier-free formula over `vars`.
    pub constraint: Term,
    /// The head's predicate application; `None` for `false` (a query).
    pub head: Option<Atom>,
    /// Where the clause comes from, for messages and derivations: a
    /// source position `line:col`, or what it was written for.
    pub origin: String,
}

/// A set of linear Horn clauses over declared predicates.
#[derive(Clone, Debug, Default)]
pub struct Clauses {
    /// The predicates, in declaration order.
    pub predicates: Vec<Predicate>,
    /// The clauses, in order.
    pub clauses: Vec<Clause>,
}

/// Where a predicate lives in the system.
#[derive(Clone, Debug)]
pub struct Place {
    /// The value of the control variable at the predicate's location
    /// (`None`: the predicate holds of every state).
    pub location: Option<Term>,
    /// For each argument, the state symbol (state variable or rigid
    /// constant) holding it.
    pub args: Vec<Term>,
    /// State symbols the predicate does not use, with the value they hold
    /// at its location.
    pub fixed: Vec<(Term, Term)>,
    /// For a predicate resolved away (read only by queries, so it has no
    /// location), its definition over its parameters: what the queries
    /// leave possible.
    pub definition: Option<Term>,
}

/// How a system stands for a set of clauses.
#[derive(Clone, Debug, Default)]
pub struct Correspondence {
    /// The control variable, whose value says which predicate a state belongs to.
    pub control: Option<Term>,
    /// For each predicate, its place.
    pub places: Vec<Place>,
    /// For each transition of the system, the clauses it stands for, in
    /// the order a derivation applies them (one, or a clause into a
    /// resolved predicate and the query reading it).
    pub transitions: Vec<Vec<usize>>,
    /// The fact whose head the initial states are, if one is.
    pub initial: Option<usize>,
    /// For each unsafe cube, the clauses whose last one is the query it
    /// stands for (none: the cube is the error location, which query
    /// transitions reach).
    pub unsafe_: Vec<Vec<usize>>,
}

/// Clauses and the system standing for them.
#[derive(Clone, Debug, Default)]
pub struct Horn {
    /// The clauses.
    pub clauses: Clauses,
    /// How the system stands for them.
    pub map: Correspondence,
}

/// A predicate or variable name as SMT-LIB writes it.
fn name(n: &str) -> String {
    smtlib::symbol(n)
}

/// An atom in SMT-LIB.
fn atom_text(preds: &[Predicate], a: &Atom) -> String {
    let p = name(&preds[a.pred].name);
    if a.args.is_empty() {
        return p;
    }
    let args: Vec<String> = a.args.iter().map(smtlib::term).collect();
    format!("({p} {})", args.join(" "))
}

impl Clauses {
    /// The clauses as an SMT-LIB script in the CHC-COMP format
    /// (`set-logic HORN`, one `declare-fun` per predicate, one `assert`
    /// per clause); `header` lines become comments.
    pub fn smtlib(&self, header: &str) -> String {
        let mut out = String::new();
        for line in header.lines() {
            let _ = writeln!(out, "; {line}");
        }
        out.push_str("(set-logic HORN)\n");
        for p in &self.predicates {
            let sorts: Vec<String> = p.params.iter().map(|v| smtlib::sort(v.sort())).collect();
            let _ = writeln!(out, "(declare-fun {} ({}) Bool)", name(&p.name), sorts.join(" "));
        }
        for c in &self.clauses {
            let _ = writeln!(out, "; {}", c.origin);
            let _ = writeln!(out, "(assert {})", self.clause_text(c));
        }
        out.push_str("(check-sat)\n(exit)\n");
        out
    }

    /// One clause as an SMT-LIB formula `(forall (…) (=> body head))`.
    pub fn clause_text(&self, c: &Clause) -> String {
        let mut body: Vec<String> = c.body.iter().map(|a| atom_text(&self.predicates, a)).collect();
        body.extend(crate::logic::conjuncts(&c.constraint).iter().map(smtlib::term));
        let head = c.head.as_ref().map(|a| atom_text(&self.predicates, a)).unwrap_or_else(|| "false".into());
        let f = match body.len() {
            0 => head,
            1 => format!("(=> {} {head})", body[0]),
            _ => format!("(=> (and {}) {head})", body.join(" ")),
        };
        if c.vars.is_empty() {
            return f;
        }
        let vars: Vec<String> = c.vars.iter().map(|v| format!("({} {})", name(v.var_name().unwrap_or("?")), smtlib::sort(v.sort()))).collect();
        format!("(forall ({}) {f})", vars.join(" "))
    }

    /// What violates clause `k` when each predicate is replaced by a
    /// definition over its parameters: `body ∧ constraint ∧ ¬head`, over
    /// the clause's variables (satisfiable exactly when the clause fails).
    pub fn violation(&self, k: usize, defs: &[Term]) -> Term {
        let c = &self.clauses[k];
        let at = |a: &Atom| {
            let m: HashMap<Term, Term> = self.predicates[a.pred].params.iter().cloned().zip(a.args.iter().cloned()).collect();
            substitute(&defs[a.pred], &m)
        };
        let head = c.head.as_ref().map(at).unwrap_or_else(Term::ff);
        Term::and(c.body.iter().map(at).chain([c.constraint.clone(), head.not()]))
    }

    /// Every variable name the clauses use (quantified variables and parameters).
    pub fn names(&self) -> Vec<String> {
        let vars = self.clauses.iter().flat_map(|c| c.vars.iter());
        let params = self.predicates.iter().flat_map(|p| p.params.iter());
        vars.chain(params).filter_map(|v| v.var_name().map(str::to_string)).collect()
    }
}
