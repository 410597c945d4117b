//! Constrained Horn clauses (CHC) in SMT-LIB, in both dialects in use:
//!
//! - CHC-COMP's: `(set-logic HORN)`, predicates declared by
//!   `(declare-fun p (S…) Bool)`, clauses `(assert (forall (…) (=> body
//!   head)))`, facts, queries with head `false` (also written
//!   `(assert (forall (…) (not body)))` or `(assert (not (exists (…) body)))`);
//! - z3's rule format: `(declare-rel p (S…))`, `(declare-var x S)`,
//!   `(rule F [name])` (the declared variables free in `F` are universally
//!   quantified), `(query p)` (the clause `p(x̄) ⇒ false`; z3 answers
//!   `sat` when `p` is derivable, the opposite of CHC-COMP's convention,
//!   which arrax's answers follow for both dialects).
//!
//! The dialect is told by the commands (a file may not mix `assert` with
//! `rule`/`query`). Terms: `let`, `ite`, `and`/`or`/`not`/`=>`, `=`,
//! `distinct`, linear integer arithmetic (`*` by literals, `div`/`mod` by
//! non-zero literals), `Bool`, `Int`, `(Array Int Int)`, `(Array Int Bool)`
//! and arrays of those (`(Array Int (Array Int Int))`, read as arrays of
//! several indices: `(select (select a i) j)` is `a[i, j]`, `(store a i
//! (store (select a i) j v))` the write `a[i, j] := v`), `select`,
//! `store`, constant arrays `((as const (Array Int Int)) 0)`, and C's
//! bitwise operators as the export writes them, `(sbv_to_int (bvand ((_
//! int_to_bv 32) x) ((_ int_to_bv 32) y)))` (`ubv_to_int`, `bvor`,
//! `bvxor`; z3's `bv2nat`, `int2bv`); other bit-vector terms are refused.
//!
//! A formula is elaborated with predicate applications as opaque atoms
//! (markers, see [`elab::Application`]) and then read as clauses: a
//! conjunction is several clauses; a clause is a disjunction whose positive
//! atoms are its head (at most one) and whose negated atoms are its body.
//! Clauses with two or more body atoms (non-linear) are refused, as are
//! atoms under other connectives, quantifiers inside a clause, reals and
//! anything else outside the fragment, each at its position; the system is
//! built only after the whole file has been read ([`lower`]).

pub mod emit;
mod lower;

use super::elab::{self, Binding, Env};
use super::sexp::{read_all, Sexp, SexpKind};
use super::{Diagnostic, Parsed};
use crate::logic::{free_vars, Op, Sort, Term};
use crate::system::horn::{Atom, Clause, Clauses, Horn, Predicate};
use crate::HashMap;

/// The two ways of writing Horn clauses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// CHC-COMP's `set-logic HORN` / `declare-fun` / `assert`.
    Comp,
    /// z3's `declare-rel` / `declare-var` / `rule` / `query`.
    Rules,
}

/// Commands that are read and have no effect on the clauses.
const IGNORED: &[&str] = &["set-info", "set-option", "check-sat", "get-model", "get-proof", "get-info", "echo"];

/// Reads Horn clauses and lowers them: the system and the correspondence.
pub fn read(src: &str) -> Result<(Parsed, Horn), Diagnostic> {
    let nodes = read_all(src)?;
    let mut r =
        Reader { env: Env::new(src, Sort::Int), clauses: Clauses::default(), positions: vec![], dialect: None, declared: vec![], names: HashMap::default() };
    r.env.define_sort("Int", Sort::Int);
    r.env.define_sort("Bool", Sort::Bool);
    r.env.set_horn(true);
    for n in &nodes {
        if n.head() == Some("exit") {
            break;
        }
        r.command(n)?;
    }
    let names = r.names;
    let mut clauses = r.clauses;
    for (k, p) in clauses.predicates.iter_mut().enumerate() {
        p.params = params(k, p, &names);
    }
    let (system, map) = lower::lower(src, &clauses, &r.positions)?;
    Ok((Parsed { system, warnings: vec![], source: None }, Horn { clauses, map }))
}

/// Reads a model of `clauses` as a CHC solver prints it (`define-fun`s,
/// at the top level or in one list): one definition per predicate over its
/// parameters, bound variables renamed apart from every name the clauses
/// use. A predicate without a definition is an error.
pub fn read_model(text: &str, clauses: &Clauses) -> Result<Vec<Term>, Diagnostic> {
    let nodes = read_all(text)?;
    let defs: Vec<&Sexp> = match &nodes[..] {
        [one] if one.head() != Some("define-fun") => one.list().map(|l| l.iter().collect()).unwrap_or_default(),
        _ => nodes.iter().collect(),
    };
    let mut env = Env::new(text, Sort::Int);
    env.define_sort("Int", Sort::Int);
    env.define_sort("Bool", Sort::Bool);
    env.set_horn(true);
    let mut out: Vec<Option<Term>> = vec![None; clauses.predicates.len()];
    let avoid = clauses.names();
    for d in defs {
        let Some([_, name, params, _, body]) = d.list().filter(|_| d.head() == Some("define-fun")) else {
            return Err(env.error(d, "expected (define-fun name ((x S) ...) Bool body)"));
        };
        let p = name.symbol().and_then(|n| clauses.predicates.iter().position(|p| p.name == n));
        let p = p.ok_or_else(|| env.error(name, "a definition of no predicate of the clauses"))?;
        let vars = env.binders(params)?;
        env.push_scope();
        for v in &vars {
            env.bind(v.var_name().expect("a variable"), Binding::Term(v.clone()));
        }
        let t = env.formula(body);
        env.pop_scope();
        let t = crate::logic::rename_bound(&t?, &avoid);
        let m: HashMap<Term, Term> = vars.into_iter().zip(clauses.predicates[p].params.iter().cloned()).collect();
        out[p] = Some(crate::logic::substitute(&t, &m));
    }
    match out.iter().position(Option::is_none) {
        Some(p) => Err(Diagnostic::new(1, 1, format!("the model does not define '{}'", clauses.predicates[p].name))),
        None => Ok(out.into_iter().flatten().collect()),
    }
}

/// Reads Horn clauses into a system.
pub fn parse(src: &str) -> Result<Parsed, Diagnostic> {
    read(src).map(|(p, _)| p)
}

/// Parameter names of predicate `k`: those the first application with
/// pairwise distinct variables as arguments gives them, else `x!i`.
fn params(k: usize, p: &Predicate, names: &HashMap<usize, Vec<String>>) -> Vec<Term> {
    let given = names.get(&k);
    p.params
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let n = given.map(|g| g[i].clone()).unwrap_or_else(|| format!("x!{i}"));
            Term::var(&n, v.sort().clone())
        })
        .collect()
}

struct Reader<'a> {
    env: Env<'a>,
    clauses: Clauses,
    /// The byte offset of each clause's command.
    positions: Vec<usize>,
    /// The dialect and the command that settled it.
    dialect: Option<(Dialect, usize)>,
    /// The variables of `declare-var` (rule format).
    declared: Vec<Term>,
    /// Parameter names found for predicates (by position).
    names: HashMap<usize, Vec<String>>,
}

impl<'a> Reader<'a> {
    fn err(&self, e: &Sexp, msg: impl Into<String>) -> Diagnostic {
        self.env.error(e, msg)
    }

    fn command(&mut self, n: &Sexp) -> Result<(), Diagnostic> {
        let Some(items) = n.list().filter(|l| !l.is_empty()) else {
            return Err(self.err(n, "expected a command such as (declare-fun ...), (assert ...) or (rule ...)"));
        };
        let Some(cmd) = items[0].symbol() else {
            return Err(self.err(n, "expected a command name"));
        };
        let args = &items[1..];
        match cmd {
            "set-logic" => self.set_logic(n, args),
            "declare-fun" => self.declare_predicate(n, args, Dialect::Comp),
            "declare-rel" => self.declare_predicate(n, args, Dialect::Rules),
            "declare-var" => self.declare_var(n, args),
            "assert" => self.clause_command(n, args, Dialect::Comp),
            "rule" => self.clause_command(n, args, Dialect::Rules),
            "query" => self.query(n, args),
            c if IGNORED.contains(&c) => Ok(()),
            "declare-const" => Err(self.err(n, "uninterpreted constants are outside the Horn fragment arrax reads (only predicates are declared)")),
            c => Err(self.err(&items[0], format!("unsupported command '{c}' in Horn clauses"))),
        }
    }

    /// Fixes the dialect at the first command that tells it.
    fn dialect(&mut self, n: &Sexp, d: Dialect) -> Result<(), Diagnostic> {
        match self.dialect {
            None => {
                self.dialect = Some((d, n.start));
                Ok(())
            }
            Some((had, _)) if had == d => Ok(()),
            Some((had, at)) => {
                let (line, col) = super::line_col(self.env.src(), at);
                let what = |d| if d == Dialect::Comp { "CHC-COMP's declare-fun/assert" } else { "z3's declare-rel/declare-var/rule/query" };
                Err(self.err(n, format!("this file mixes {} with {} (used from {line}:{col})", what(d), what(had))))
            }
        }
    }

    fn set_logic(&mut self, n: &Sexp, args: &[Sexp]) -> Result<(), Diagnostic> {
        match args {
            [l] if l.symbol() == Some("HORN") => Ok(()),
            [l] => Err(self.err(l, format!("expected (set-logic HORN), found logic '{}'", elab::excerpt(self.env.src(), l)))),
            _ => Err(self.err(n, "expected (set-logic HORN)")),
        }
    }

    fn sort(&self, e: &Sexp) -> Result<Sort, Diagnostic> {
        let outside = |what: &str| {
            self.err(e, format!("sort {what} is outside the fragment (Int, Bool, arrays from Int to them or to such arrays: (Array Int (Array Int Int)))"))
        };
        if let Some(name) = e.symbol().filter(|n| self.env.lookup_sort(n).is_none()) {
            return Err(outside(name));
        }
        let s = self.env.sort(e)?;
        let ok = match s.as_array() {
            Some(a) => a.index.iter().all(|i| *i == Sort::Int) && matches!(a.elem, Sort::Int | Sort::Bool),
            None => matches!(s, Sort::Int | Sort::Bool),
        };
        if !ok {
            return Err(outside(&s.to_string()));
        }
        Ok(s)
    }

    fn declare_predicate(&mut self, n: &Sexp, args: &[Sexp], d: Dialect) -> Result<(), Diagnostic> {
        self.dialect(n, d)?;
        let (name, sorts) = match (d, args) {
            (Dialect::Comp, [name, sorts, result]) => {
                if result.symbol() != Some("Bool") {
                    let msg = "uninterpreted functions are outside the Horn fragment (a predicate's result sort is Bool)";
                    return Err(self.err(result, msg));
                }
                (name, sorts)
            }
            (Dialect::Rules, [name, sorts] | [name, sorts, _]) => (name, sorts),
            (Dialect::Comp, _) => return Err(self.err(n, "expected (declare-fun name (sorts) Bool)")),
            (Dialect::Rules, _) => return Err(self.err(n, "expected (declare-rel name (sorts))")),
        };
        let p = name.symbol().ok_or_else(|| self.err(name, "expected a predicate name"))?;
        if self.clauses.predicates.iter().any(|q| q.name == p) || self.env.lookup(p).is_some() {
            return Err(self.err(name, format!("'{p}' is declared twice")));
        }
        if elab::is_reserved(p) {
            return Err(self.err(name, format!("'{p}' is reserved and cannot name a predicate")));
        }
        let items = sorts.list().ok_or_else(|| self.err(sorts, "expected a list of argument sorts"))?;
        let sorts = items.iter().map(|s| self.sort(s)).collect::<Result<Vec<_>, _>>()?;
        self.env.declare_predicate(p, sorts.clone());
        let params = sorts.into_iter().enumerate().map(|(i, s)| Term::var(&format!("x!{i}"), s)).collect();
        self.clauses.predicates.push(Predicate { name: p.to_string(), params });
        Ok(())
    }

    fn declare_var(&mut self, n: &Sexp, args: &[Sexp]) -> Result<(), Diagnostic> {
        self.dialect(n, Dialect::Rules)?;
        let [name, sort] = args else {
            return Err(self.err(n, "expected (declare-var name sort)"));
        };
        let x = name.symbol().ok_or_else(|| self.err(name, "expected a variable name"))?;
        if elab::is_reserved(x) || x.contains('|') {
            return Err(self.err(name, format!("'{x}' cannot name a variable")));
        }
        if self.env.lookup(x).is_some() || self.clauses.predicates.iter().any(|p| p.name == x) {
            return Err(self.err(name, format!("'{x}' is declared twice")));
        }
        let v = Term::var(x, self.sort(sort)?);
        self.env.bind(x, Binding::Term(v.clone()));
        self.declared.push(v);
        Ok(())
    }

    /// `assert` and `rule`: the clauses the formula stands for.
    fn clause_command(&mut self, n: &Sexp, args: &[Sexp], d: Dialect) -> Result<(), Diagnostic> {
        self.dialect(n, d)?;
        self.env.clear_applications();
        let (f, name) = match args {
            [f] => (f, None),
            [f, name] if d == Dialect::Rules => (f, Some(name.symbol().ok_or_else(|| self.err(name, "expected a rule name"))?)),
            _ if d == Dialect::Rules => return Err(self.err(n, "expected (rule formula) or (rule formula name)")),
            _ => return Err(self.err(n, "expected (assert formula)")),
        };
        let formula = self.closed_formula(f)?;
        self.add_clauses(n, &formula, name)
    }

    /// `(query p)` (options `:key value` after `p` are ignored): the clause `p(x̄) ⇒ false`.
    fn query(&mut self, n: &Sexp, args: &[Sexp]) -> Result<(), Diagnostic> {
        self.dialect(n, Dialect::Rules)?;
        let Some((p, options)) = args.split_first() else {
            return Err(self.err(n, "expected (query predicate)"));
        };
        if let Some(o) = options.iter().step_by(2).find(|o| !matches!(o.kind, SexpKind::Keyword(_))) {
            return Err(self.err(o, "expected an option :key value after the queried predicate"));
        }
        let Some(pred) = p.symbol().and_then(|s| self.clauses.predicates.iter().find(|q| q.name == s)) else {
            return Err(self.err(p, "expected a declared predicate (z3's query names a relation)"));
        };
        let (name, vars) = (pred.name.clone(), pred.params.clone());
        let atom = self.env.apply_predicate(&name, vars, p.start);
        self.add_clauses(n, &atom.not(), None)
    }

    /// Adds the clauses a command's formula stands for.
    fn add_clauses(&mut self, n: &Sexp, formula: &Term, name: Option<&str>) -> Result<(), Diagnostic> {
        let mut found = vec![];
        split(formula, &mut found);
        let k0 = self.clauses.clauses.len();
        let (line, col) = super::line_col(self.env.src(), n.start);
        for disjuncts in found {
            let origin = match name {
                Some(r) => format!("{line}:{col} {r}"),
                None => format!("{line}:{col}"),
            };
            let c = self.clause(n, &disjuncts, origin)?;
            self.clauses.clauses.push(c);
            self.positions.push(n.start);
        }
        for c in k0..self.clauses.clauses.len() {
            self.remember_names(c);
        }
        Ok(())
    }

    /// A clause's formula with its outer quantifier taken off (its
    /// variables bound while the body is elaborated).
    fn closed_formula(&mut self, f: &Sexp) -> Result<Term, Diagnostic> {
        let (vars, body, negate) = match f.list() {
            Some([q, vs, body]) if q.symbol() == Some("forall") => (Some(vs), body, false),
            Some([not, inner]) if not.symbol() == Some("not") => match inner.list() {
                Some([q, vs, body]) if q.symbol() == Some("exists") => (Some(vs), body, true),
                _ => (None, f, false),
            },
            _ => (None, f, false),
        };
        let bound = match vars {
            Some(vs) => {
                let items = vs.list().ok_or_else(|| self.err(vs, "expected a list of variable declarations ((x S) ...)"))?;
                for b in items {
                    if let Some([_, s]) = b.list() {
                        self.sort(s)?;
                    }
                }
                self.env.binders(vs)?
            }
            None => vec![],
        };
        if let Some(v) = bound.iter().find(|v| v.var_name().is_some_and(|n| n.contains('|'))) {
            return Err(self.err(f, format!("'{v}' cannot name a variable")));
        }
        self.outside_fragment(body)?;
        self.env.push_scope();
        for v in &bound {
            self.env.bind(v.var_name().expect("a variable"), Binding::Term(v.clone()));
        }
        let t = self.env.formula(body);
        self.env.pop_scope();
        let t = t?;
        Ok(if negate { t.not() } else { t })
    }

    /// Refuses, at its position, what elaboration would accept but Horn
    /// clauses of the fragment do not contain: quantifiers and `lambda`
    /// inside a clause, reals, MCMT's `a[i]`.
    fn outside_fragment(&self, e: &Sexp) -> Result<(), Diagnostic> {
        match &e.kind {
            SexpKind::Decimal(..) => Err(self.err(e, "real numbers are outside the fragment (linear integer arithmetic)")),
            SexpKind::Select(..) => Err(self.err(e, "expected SMT-LIB (select a i), not a[i]")),
            SexpKind::Symbol(s) if s == "/" => Err(self.err(e, "real division is outside the fragment (linear integer arithmetic)")),
            SexpKind::Symbol(s) if matches!(s.as_str(), "forall" | "exists" | "lambda") => {
                Err(self.err(e, format!("'{s}' inside a clause is outside the fragment (quantifiers only around a whole clause)")))
            }
            SexpKind::List(items) => items.iter().try_for_each(|i| self.outside_fragment(i)),
            _ => Ok(()),
        }
    }

    /// A clause from the disjuncts of its formula: positive atoms are the
    /// head, negated atoms the body, the rest (negated) the constraint.
    fn clause(&self, n: &Sexp, disjuncts: &[Term], origin: String) -> Result<Clause, Diagnostic> {
        let (mut heads, mut body, mut rest) = (vec![], vec![], vec![]);
        for d in disjuncts {
            if let Some(a) = self.env.application(d) {
                heads.push(a);
            } else if let Some(a) = (matches!(d.op(), Op::Not)).then(|| self.env.application(&d.args()[0])).flatten() {
                body.push(a);
            } else if let Some(a) = free_vars(d).iter().find_map(|v| self.env.application(v)) {
                let msg = format!("predicate '{}' under a negation, disjunction, ite or equality: not a Horn clause", a.predicate);
                return Err(Diagnostic::at(self.env.src(), a.at, msg));
            } else {
                rest.push(d.not());
            }
        }
        if heads.len() > 1 {
            let names: Vec<&str> = heads.iter().map(|a| a.predicate.as_str()).collect();
            return Err(self.err(n, format!("not a Horn clause: {} predicates in the head ({})", heads.len(), names.join(", "))));
        }
        if body.len() > 1 {
            let src = self.env.src();
            let apps: Vec<String> = body
                .iter()
                .map(|a| {
                    let (l, c) = super::line_col(src, a.at);
                    format!("{} at {l}:{c}", a.predicate)
                })
                .collect();
            let msg = format!(
                "non-linear clause: its body applies {} predicates ({}); arrax reads linear clauses only (at most one predicate in a body)",
                body.len(),
                apps.join(", ")
            );
            return Err(self.err(n, msg));
        }
        let atom = |a: &elab::Application| Atom { pred: self.predicate(&a.predicate), args: a.args.clone() };
        let body = body.first().map(|a| atom(a));
        let head = heads.first().map(|a| atom(a));
        let constraint = Term::and(rest);
        let mut vars: Vec<Term> = vec![];
        for t in body.iter().chain(&head).flat_map(|a| a.args.iter()).chain([&constraint]) {
            for v in free_vars(t) {
                if !vars.contains(&v) {
                    vars.push(v);
                }
            }
        }
        Ok(Clause { vars, body, constraint, head, origin })
    }

    fn predicate(&self, name: &str) -> usize {
        self.clauses.predicates.iter().position(|p| p.name == name).expect("a declared predicate")
    }

    /// Takes parameter names from clause `c`'s atoms whose arguments are
    /// pairwise distinct variables (the first such atom of each predicate).
    fn remember_names(&mut self, c: usize) {
        let clause = &self.clauses.clauses[c];
        for a in clause.body.iter().chain(&clause.head) {
            if self.names.contains_key(&a.pred) || a.args.is_empty() {
                continue;
            }
            let names: Vec<String> = a.args.iter().filter_map(|t| t.var_name().filter(|n| !n.contains('|')).map(str::to_string)).collect();
            let distinct = names.iter().enumerate().all(|(i, n)| !names[..i].contains(n));
            if names.len() == a.args.len() && distinct {
                self.names.insert(a.pred, names);
            }
        }
    }
}

/// The clauses a formula stands for, each as its list of disjuncts: a
/// conjunction is one clause per conjunct (`true` is none).
fn split(f: &Term, out: &mut Vec<Vec<Term>>) {
    match f.op() {
        Op::Bool(true) => {}
        Op::And => f.args().iter().for_each(|a| split(a, out)),
        Op::Not if matches!(f.args()[0].op(), Op::Or) => f.args()[0].args().iter().for_each(|a| split(&a.not(), out)),
        _ => {
            let mut ds = vec![];
            disjuncts(f, &mut ds);
            out.push(ds);
        }
    }
}

/// The disjuncts of a formula (`¬(a ∧ b)` is `¬a ∨ ¬b`).
fn disjuncts(f: &Term, out: &mut Vec<Term>) {
    match f.op() {
        Op::Bool(false) => {}
        Op::Or => f.args().iter().for_each(|a| disjuncts(a, out)),
        Op::Not if matches!(f.args()[0].op(), Op::And) => f.args()[0].args().iter().for_each(|a| disjuncts(&a.not(), out)),
        _ => out.push(f.clone()),
    }
}
