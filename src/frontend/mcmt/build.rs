//! Building the system from an MCMT file's structure: sorts inferred,
//! formulas typed, cases of transitions lowered to guards, universal guards
//! and λ-updates.

use crate::frontend::elab::{excerpt, is_reserved, Binding, Env};
use crate::frontend::sexp::{Sexp, SexpKind};
use crate::frontend::{Diagnostic, Parsed};
use crate::logic::{conjuncts, free_vars, occurs, substitute, EnumDef, EnumValues, Sort, Term};
use crate::system::{IndexKind, Quantified, StateVar, System, Transition, Update};
use crate::{HashMap, HashSet};
use std::rc::Rc;

use super::*;
use crate::frontend::line_col;

/// Union–find over `int` state variables and the index sort (node 0), for
/// the sort-inference pass.
pub(super) struct Infer<'r> {
    pub(super) cand: &'r HashMap<String, usize>,
    pub(super) parent: Vec<usize>,
}

impl Infer<'_> {
    pub(super) fn find(&mut self, x: usize) -> usize {
        let mut r = x;
        while self.parent[r] != r {
            r = self.parent[r];
        }
        let mut y = x;
        while self.parent[y] != r {
            let next = self.parent[y];
            self.parent[y] = r;
            y = next;
        }
        r
    }

    pub(super) fn union(&mut self, a: usize, b: usize) -> usize {
        let (ra, rb) = (self.find(a), self.find(b));
        let (lo, hi) = (ra.min(rb), ra.max(rb));
        self.parent[hi] = lo;
        lo
    }

    pub(super) fn var(&self, name: &str, idx: &HashSet<String>) -> Option<usize> {
        if idx.contains(name) {
            None
        } else {
            self.cand.get(name).copied()
        }
    }

    /// Walks a formula; returns the class of the term when it is an index
    /// term (0) or an `int` state variable, unifying the classes of terms
    /// compared, or used as an array index.
    pub(super) fn walk(&mut self, e: &Sexp, idx: &HashSet<String>) -> Option<usize> {
        match &e.kind {
            SexpKind::Symbol(s) if idx.contains(s) => Some(0),
            SexpKind::Symbol(s) => self.var(s, idx),
            SexpKind::Select(a, is) => {
                for i in is {
                    if let Some(k) = self.walk(i, idx) {
                        self.union(k, 0);
                    }
                }
                a.symbol().and_then(|s| self.var(s, idx))
            }
            SexpKind::List(items) => {
                let head = items.first().and_then(|h| h.symbol());
                if let (Some("forall" | "exists" | "lambda"), [_, binders, body]) = (head, items.as_slice()) {
                    let mut inner = idx.clone();
                    for b in binders.list().unwrap_or_default() {
                        if let Some([n, s]) = b.list() {
                            if let Some(n) = n.symbol() {
                                if s.symbol() == Some("proc") {
                                    inner.insert(n.to_string());
                                } else {
                                    inner.remove(n);
                                }
                            }
                        }
                    }
                    self.walk(body, &inner);
                    return None;
                }
                let ks: Vec<Option<usize>> = items.iter().skip(1).map(|a| self.walk(a, idx)).collect();
                match head {
                    Some("=" | "distinct" | "<" | "<=" | ">" | ">=") => {
                        ks.into_iter().flatten().reduce(|a, b| self.union(a, b));
                        None
                    }
                    Some("ite") if ks.len() == 3 => match (ks[1], ks[2]) {
                        (Some(a), Some(b)) => Some(self.union(a, b)),
                        (a, b) => a.or(b),
                    },
                    _ => None,
                }
            }
            _ => None,
        }
    }

    pub(super) fn walk_all<'s>(&mut self, es: impl IntoIterator<Item = &'s Sexp>, idx: &HashSet<String>) {
        for e in es {
            self.walk(e, idx);
        }
    }
}

/// The symbols `z1`, `z2`, … occurring in `es` and not declared, sorted by number.
pub(super) fn implicit_vars(es: &[Sexp], declared: &HashMap<String, usize>) -> Vec<Sexp> {
    pub(super) fn collect<'s>(e: &'s Sexp, out: &mut Vec<&'s Sexp>) {
        match &e.kind {
            SexpKind::Symbol(_) => out.push(e),
            SexpKind::Select(a, is) => {
                collect(a, out);
                is.iter().for_each(|i| collect(i, out));
            }
            SexpKind::List(items) => items.iter().for_each(|i| collect(i, out)),
            _ => {}
        }
    }
    let mut syms = vec![];
    es.iter().for_each(|e| collect(e, &mut syms));
    let mut out: Vec<(u128, &Sexp)> = vec![];
    for s in syms {
        let name = s.symbol().unwrap_or_default();
        let Some(num) = name.strip_prefix('z') else { continue };
        let Ok(n) = num.parse::<u128>() else { continue };
        if !num.starts_with('+') && !declared.contains_key(name) && !out.iter().any(|(_, o)| o.symbol() == Some(name)) {
            out.push((n, s));
        }
    }
    out.sort_by_key(|(n, _)| *n);
    out.into_iter().map(|(_, s)| s.clone()).collect()
}

/// Whether `body(j)` holds for every index `j` by index equalities alone:
/// `j` is one of the (pairwise distinct) parameters or differs from all of
/// them. Used to drop universal guards such as the case coverage
/// `j = x ∨ (j = y ∧ j ≠ x) ∨ (j ≠ x ∧ j ≠ y)`.
pub(super) fn valid_for_every_index(body: &Term, j: &Term, params: &[Term]) -> bool {
    let other = (0..).map(|k| Term::var(&format!("#other{k}"), j.sort().clone())).find(|o| !params.contains(o)).expect("infinitely many names");
    let choices: Vec<Term> = params.iter().cloned().chain(std::iter::once(other)).collect();
    let mut distinct = HashMap::default();
    for (i, a) in choices.iter().enumerate() {
        for b in &choices[i + 1..] {
            distinct.insert(Term::eq(a, b), Term::ff());
        }
    }
    choices.iter().all(|c| {
        let t = substitute(body, &HashMap::from_iter([(j.clone(), c.clone())]));
        substitute(&t, &distinct).as_bool() == Some(true)
    })
}

/// Pass 3: declarations and elaboration into the IR.
pub(super) struct Builder<'a> {
    pub(super) src: &'a str,
    pub(super) env: Env<'a>,
    pub(super) sys: System,
    pub(super) warnings: Vec<Diagnostic>,
    /// Every declared symbol (constants, state variables, eevars) and where.
    pub(super) declared: HashMap<String, usize>,
    /// The `:eevar`s, and whether each was declared `nat`.
    pub(super) eevars: Vec<(Term, bool)>,
}

impl<'a> Builder<'a> {
    pub(super) fn err(&self, pos: usize, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.src, pos, msg)
    }

    pub(super) fn build(src: &'a str, raw: Raw) -> Result<Parsed, Diagnostic> {
        let index = match &raw.index {
            None => IndexKind::Order,
            Some(s) => match s.symbol() {
                Some("nat") => IndexKind::Nat,
                Some("int") => IndexKind::Int,
                _ => return Err(Diagnostic::at(src, s.start, format!("unknown index type '{}' (expected nat or int)", excerpt(src, s)))),
            },
        };
        let mut env = Env::new(src, index.sort());
        env.set_index_literals(true);
        env.set_loose_applications(true);
        for (name, sort) in [("bool", Sort::Bool), ("int", Sort::Int), ("nat", Sort::Int), ("real", Sort::Real)] {
            env.define_sort(name, sort);
        }
        for (name, sort) in [("Bool", Sort::Bool), ("Int", Sort::Int), ("Real", Sort::Real)] {
            env.define_sort(name, sort);
        }
        let mut b =
            Builder { src, env, sys: System { index: Some(index), ..System::default() }, warnings: vec![], declared: HashMap::default(), eevars: vec![] };
        if raw.initial.is_empty() {
            return Err(Diagnostic::new(1, 1, "no :initial section"));
        }
        if raw.unsafe_.is_empty() {
            return Err(Diagnostic::new(1, 1, "no unsafe states (:unsafe or :u_cnj)"));
        }
        for s in &raw.smt {
            b.smt(s)?;
        }
        b.declare_state(&raw)?;
        for c in &raw.axioms {
            let q = b.cube(c)?;
            b.sys.axioms.push(q);
        }
        for c in &raw.initial {
            let q = b.cube(c)?;
            b.sys.initial.push(q);
        }
        for c in &raw.unsafe_ {
            let q = b.cube(c)?;
            b.sys.unsafe_.push(q);
        }
        if let Some(h) = &raw.hints {
            b.hints(h)?;
        }
        let mut names = HashSet::default();
        for (n, t) in raw.transitions.iter().enumerate() {
            let tr = b.transition(t, n + 1, &mut names)?;
            b.sys.transitions.push(tr);
        }
        for a in &raw.abstract_ {
            b.no_eevar(a)?;
            let t = b.env.term(a)?;
            b.sys.abstract_terms.push(t);
        }
        b.sys.options = raw.options;
        b.sys.consts.extend(b.env.process_consts());
        b.warnings.extend(b.env.take_warnings());
        b.warnings.sort_by_key(|w| (w.line, w.col));
        Ok(Parsed { system: b.sys, warnings: b.warnings, source: None })
    }

    /// Records a new symbol, rejecting reserved names and duplicates.
    pub(super) fn declare_name(&mut self, name: &str, pos: usize) -> Result<(), Diagnostic> {
        if is_reserved(name) {
            return Err(self.err(pos, format!("'{name}' is reserved and cannot be declared")));
        }
        if let Some(&prev) = self.declared.get(name) {
            let (l, c) = line_col(self.src, prev);
            return Err(self.err(pos, format!("duplicate declaration of '{name}' (first declared at {l}:{c})")));
        }
        self.declared.insert(name.to_string(), pos);
        Ok(())
    }

    /// A fresh variable name based on `base`, not clashing with declared symbols.
    pub(super) fn fresh(&self, base: &str) -> String {
        if !self.declared.contains_key(base) {
            return base.to_string();
        }
        (1..).map(|i| format!("{base}{i}")).find(|n| !self.declared.contains_key(n)).expect("infinitely many names")
    }

    /// The axiom `v >= 0` for a `nat` state variable or constant.
    pub(super) fn nat_axiom(&self, t: &Term, is_array: bool) -> Quantified {
        if is_array {
            let x = Term::var(&self.fresh("x"), self.env.index_sort().clone());
            let read = Term::select(t, std::slice::from_ref(&x));
            Quantified { vars: vec![x], lits: vec![Term::ge(&read, &Term::int(0))] }
        } else {
            Quantified { vars: vec![], lits: vec![Term::ge(t, &Term::int(0))] }
        }
    }

    /// Resolves a declared type name; also says whether it was `nat`.
    pub(super) fn resolve_type(&self, ty: &Sexp) -> Result<(Sort, bool), Diagnostic> {
        let sort = self.env.sort(ty)?;
        Ok((sort, ty.symbol() == Some("nat")))
    }

    /// `:smt (define-type …)` and `:smt (define N::T)`.
    pub(super) fn smt(&mut self, s: &Sexp) -> Result<(), Diagnostic> {
        let bad = || self.err(s.start, "unsupported :smt command (expected (define-type T), (define-type T (subrange a b)) or (define N::T))");
        let items = s.list().ok_or_else(bad)?;
        match items {
            [head, name, rest @ ..] if head.symbol() == Some("define-type") => {
                let n = name.symbol().ok_or_else(|| self.err(name.start, "expected a type name"))?;
                if RESERVED_TYPES.contains(&n) {
                    return Err(self.err(name.start, format!("type name '{n}' is reserved")));
                }
                if self.env.lookup_sort(n).is_some() {
                    return Err(self.err(name.start, format!("duplicate declaration of type '{n}'")));
                }
                let sort = match rest {
                    [] => {
                        self.sys.sorts.push(n.into());
                        Sort::Uninterpreted(n.into())
                    }
                    [range] => {
                        let (lo, hi) = match range.list() {
                            Some([kw, lo, hi]) if kw.symbol() == Some("subrange") => match (&lo.kind, &hi.kind) {
                                (SexpKind::Int(lo), SexpKind::Int(hi)) => (*lo, *hi),
                                _ => return Err(self.err(range.start, "subrange bounds must be integer literals")),
                            },
                            _ => return Err(self.err(range.start, "expected (subrange LO HI)")),
                        };
                        if lo > hi {
                            return Err(self.err(range.start, format!("empty subrange {lo}..{hi}")));
                        }
                        let def = Rc::new(EnumDef { name: n.into(), values: EnumValues::Subrange(lo, hi) });
                        self.sys.enums.push(def.clone());
                        Sort::Enum(def)
                    }
                    [_, extra, ..] => return Err(self.err(extra.start, "unexpected argument in define-type")),
                };
                self.env.define_sort(n, sort);
                Ok(())
            }
            [head, decl] if head.symbol() == Some("define") => {
                let text = decl.symbol().ok_or_else(bad)?;
                let Some((name, ty)) = text.split_once("::") else {
                    return Err(self.err(decl.start, "expected NAME::TYPE, as in (define N::nat)"));
                };
                let ty_node = Sexp { kind: SexpKind::Symbol(ty.to_string()), start: decl.start + name.len() + 2, end: decl.end };
                if name.is_empty() {
                    return Err(self.err(decl.start, "expected NAME::TYPE, as in (define N::nat)"));
                }
                self.declare_name(name, decl.start)?;
                let (sort, nat) = self.resolve_type(&ty_node)?;
                let c = Term::var(name, sort);
                if nat {
                    let ax = self.nat_axiom(&c, false);
                    self.sys.axioms.push(ax);
                }
                self.env.bind(name, Binding::Term(c.clone()));
                self.sys.consts.push(c);
                Ok(())
            }
            _ => Err(bad()),
        }
    }

    /// `:local`, `:global`, `:eevar`, with the inference of index-valued `int`s.
    pub(super) fn declare_state(&mut self, raw: &Raw) -> Result<(), Diagnostic> {
        let mut resolved = vec![];
        for d in &raw.decls {
            let name = d.name.symbol().expect("checked by structure");
            self.declare_name(name, d.name.start)?;
            resolved.push(self.resolve_type(&d.ty)?);
        }
        let to_index = if self.sys.index_kind() == IndexKind::Order { self.infer_index_valued(raw, &resolved) } else { HashSet::default() };
        let index_sort = self.env.index_sort().clone();
        for (d, (sort, nat)) in raw.decls.iter().zip(resolved) {
            let name = d.name.symbol().expect("checked by structure");
            let (sort, nat) = if to_index.contains(name) { (index_sort.clone(), false) } else { (sort, nat) };
            match d.kind {
                DeclKind::Local => {
                    let term = Term::var(name, Sort::array(vec![index_sort.clone()], sort));
                    if nat {
                        let ax = self.nat_axiom(&term, true);
                        self.sys.axioms.push(ax);
                    }
                    self.env.bind(name, Binding::Term(term.clone()));
                    self.sys.vars.push(StateVar { term, is_array: true });
                }
                DeclKind::Global => {
                    let term = Term::var(name, sort);
                    if nat {
                        let ax = self.nat_axiom(&term, false);
                        self.sys.axioms.push(ax);
                    }
                    self.env.bind(name, Binding::Global(term.clone()));
                    self.sys.vars.push(StateVar { term, is_array: false });
                }
                DeclKind::Eevar => {
                    let term = Term::var(name, sort);
                    self.env.bind(name, Binding::Term(term.clone()));
                    self.eevars.push((term, nat));
                }
            }
        }
        Ok(())
    }

    /// In an order-index system, the `int`/`nat` state variables that are
    /// compared with, or assigned, process indices (`(= h[x] x)`, `:val x`):
    /// they get the index sort.
    pub(super) fn infer_index_valued(&self, raw: &Raw, resolved: &[(Sort, bool)]) -> HashSet<String> {
        let mut cand = HashMap::default();
        for (d, (sort, _)) in raw.decls.iter().zip(resolved) {
            if *sort == Sort::Int {
                cand.insert(d.name.symbol().unwrap_or_default().to_string(), cand.len() + 1);
            }
        }
        if cand.is_empty() {
            return HashSet::default();
        }
        let mut inf = Infer { cand: &cand, parent: (0..=cand.len()).collect() };
        let names = |vars: &[Sexp]| -> HashSet<String> { vars.iter().filter_map(|v| v.symbol()).map(String::from).collect() };
        let cubes = raw.axioms.iter().chain(&raw.initial).chain(&raw.unsafe_).chain(raw.hints.iter());
        for c in cubes {
            let all: Vec<Sexp> = c.cnjs.iter().flatten().cloned().collect();
            let idx = if c.implicit { names(&implicit_vars(&all, &self.declared)) } else { names(&c.vars) };
            inf.walk_all(&all, &idx);
        }
        let val_order: Vec<&str> = raw.decls.iter().filter(|d| d.kind != DeclKind::Eevar).map(|d| d.name.symbol().unwrap_or_default()).collect();
        for t in &raw.transitions {
            let idx = names(&t.vars);
            inf.walk_all(t.guard.iter().chain(t.uguards.iter().flatten()), &idx);
            for c in &t.cases {
                inf.walk_all(&c.cond, &idx);
                for (v, name) in c.vals.iter().zip(&val_order) {
                    if let (Some(k), Some(&n)) = (inf.walk(v, &idx), cand.get(*name)) {
                        inf.union(k, n);
                    }
                }
            }
        }
        inf.walk_all(&raw.abstract_, &HashSet::default());
        let root = inf.find(0);
        cand.iter().filter(|(_, &n)| inf.find(n) == root).map(|(name, _)| name.clone()).collect()
    }

    /// Index variables from `:var` symbols: distinct, not clashing with declarations.
    pub(super) fn index_vars(&self, vars: &[Sexp]) -> Result<Vec<Term>, Diagnostic> {
        let mut out: Vec<Term> = vec![];
        for v in vars {
            let name = v.symbol().expect("checked by structure");
            if is_reserved(name) {
                return Err(self.err(v.start, format!("'{name}' is reserved and cannot name a variable")));
            }
            if self.declared.contains_key(name) {
                return Err(self.err(v.start, format!("index variable '{name}' clashes with a declared symbol")));
            }
            if out.iter().any(|o| o.var_name() == Some(name)) {
                return Err(self.err(v.start, format!("repeated variable '{name}'")));
            }
            out.push(Term::var(name, self.env.index_sort().clone()));
        }
        Ok(out)
    }

    pub(super) fn bind_all(&mut self, vars: &[Term]) {
        for v in vars {
            self.env.bind(v.var_name().expect("a variable"), Binding::Term(v.clone()));
        }
    }

    /// An error at the first `:eevar` in `e`: those values are chosen by
    /// transitions, and mean nothing in initial, unsafe or axiom formulas,
    /// hints or abstracted terms (there they would be free symbols).
    pub(super) fn no_eevar(&self, e: &Sexp) -> Result<(), Diagnostic> {
        match &e.kind {
            SexpKind::Symbol(s) if self.eevars.iter().any(|(t, _)| t.var_name() == Some(s)) => {
                Err(self.err(e.start, format!("the :eevar '{s}' is chosen by transitions and cannot appear outside them")))
            }
            SexpKind::List(items) => items.iter().try_for_each(|i| self.no_eevar(i)),
            SexpKind::Select(name, idx) => std::iter::once(&**name).chain(idx).try_for_each(|i| self.no_eevar(i)),
            _ => Ok(()),
        }
    }

    /// Elaborates formulas outside transitions inside a scope binding `vars`.
    pub(super) fn formulas_with<'s>(&mut self, vars: &[Term], es: impl IntoIterator<Item = &'s Sexp>) -> Result<Vec<Term>, Diagnostic> {
        let es: Vec<&Sexp> = es.into_iter().collect();
        es.iter().try_for_each(|e| self.no_eevar(e))?;
        self.env.push_scope();
        self.bind_all(vars);
        let r = es.into_iter().map(|e| self.env.formula(e)).collect();
        self.env.pop_scope();
        r
    }

    pub(super) fn cube(&mut self, c: &RawCube) -> Result<Quantified, Diagnostic> {
        let all: Vec<Sexp> = c.cnjs.iter().flatten().cloned().collect();
        let var_nodes = if c.implicit { implicit_vars(&all, &self.declared) } else { c.vars.clone() };
        let vars = self.index_vars(&var_nodes)?;
        let lits = self.formulas_with(&vars, &all)?;
        Ok(Quantified { vars, lits: conjuncts(&Term::and(lits)) })
    }

    /// Suggested negated invariants: one cube per `:cnj` line over the
    /// variables it mentions; ill-typed ones become warnings.
    pub(super) fn hints(&mut self, h: &RawCube) -> Result<(), Diagnostic> {
        let vars = self.index_vars(&h.vars)?;
        for line in &h.cnjs {
            // A hint is optional: no guessing at sloppy forms, drop it if it is ill-typed.
            self.env.set_loose_applications(false);
            let r = self.formulas_with(&vars, line);
            self.env.set_loose_applications(true);
            match r {
                Ok(lits) => {
                    let lits = conjuncts(&Term::and(lits));
                    let used: Vec<Term> = vars.iter().filter(|v| lits.iter().any(|l| occurs(v, l))).cloned().collect();
                    self.sys.hints.push(Quantified { vars: used, lits });
                }
                Err(d) => {
                    let message = format!("suggested invariant dropped: {}", d.message);
                    self.warnings.push(Diagnostic { message, ..d });
                }
            }
        }
        Ok(())
    }

    /// The parameter `p` if the case condition is literally `(= p j)` or `(= j p)`.
    pub(super) fn literal_param(case: &RawCase, j: &str, params: &[Term]) -> Option<Term> {
        let [cond] = case.cond.as_slice() else { return None };
        let [eq, a, b] = cond.list()? else { return None };
        if eq.symbol() != Some("=") {
            return None;
        }
        let p = match (a.symbol()?, b.symbol()?) {
            (x, y) if y == j => x,
            (x, y) if x == j => y,
            _ => return None,
        };
        params.iter().find(|t| t.var_name() == Some(p)).cloned()
    }

    pub(super) fn transition(&mut self, t: &RawTransition, number: usize, names: &mut HashSet<String>) -> Result<Transition, Diagnostic> {
        if t.vars.is_empty() {
            return Err(self.err(t.pos, "transition without :var (the last :var is the case variable)"));
        }
        let vars = self.index_vars(&t.vars)?;
        let Some((numcases, nc_pos)) = t.numcases else {
            return Err(self.err(t.pos, "transition without :numcases"));
        };
        if t.cases.is_empty() {
            return Err(self.err(t.pos, "transition without :case"));
        }
        if numcases != t.cases.len() as i64 {
            return Err(self.err(nc_pos, format!(":numcases is {numcases} but the transition has {} :case lines", t.cases.len())));
        }
        let nvals = self.sys.vars.len();
        for c in &t.cases {
            if c.vals.len() != nvals {
                return Err(
                    self.err(c.pos, format!("this :case has {} :val lines, expected {nvals} (one per :local and :global, in declaration order)", c.vals.len()))
                );
            }
        }
        self.env.push_scope();
        self.bind_all(&vars);
        let r = self.transition_body(t, &vars, number, names);
        self.env.pop_scope();
        r
    }

    pub(super) fn transition_body(&mut self, t: &RawTransition, vars: &[Term], number: usize, names: &mut HashSet<String>) -> Result<Transition, Diagnostic> {
        let (j, params) = vars.split_last().expect("at least one :var");
        let j_node = t.vars.last().expect("at least one :var");
        let j_name = j.var_name().expect("a variable");
        let mut guard = vec![];
        for g in &t.guard {
            let f = self.env.formula(g)?;
            if occurs(j, &f) {
                return Err(self.err(g.start, format!("the guard mentions the case variable '{j_name}' (the last :var)")));
            }
            guard.push(f);
        }
        let mut lines = vec![];
        for line in &t.uguards {
            let fs = line.iter().map(|e| self.env.formula(e)).collect::<Result<Vec<_>, _>>()?;
            lines.push(Term::and(fs));
        }
        let u = if lines.is_empty() { Term::tt() } else { Term::or(lines) };
        let mut conds = vec![];
        let mut literal = vec![];
        let mut vals: Vec<Vec<Term>> = vec![];
        for c in &t.cases {
            let fs = c.cond.iter().map(|e| self.env.formula(e)).collect::<Result<Vec<_>, _>>()?;
            conds.push(Term::and(fs));
            literal.push(Self::literal_param(c, j_name, params));
            let mut vs = vec![];
            for (v, sv) in c.vals.iter().zip(&self.sys.vars) {
                vs.push(self.env.term_of_sort(v, &sv.value_sort())?);
            }
            vals.push(vs);
        }
        if conds.len() >= 2 && !conds.iter().any(|c| occurs(j, c)) {
            return Err(self.err(j_node.start, format!("the last :var '{j_name}' is the case variable, but no :case condition mentions it")));
        }
        let n = t.cases.len();
        let mut updates = vec![];
        for (k, sv) in self.sys.vars.iter().enumerate() {
            if sv.is_array {
                let mut acc = vals[n - 1][k].clone();
                for c in (0..n - 1).rev() {
                    acc = Term::ite(&conds[c], &vals[c][k], &acc);
                }
                if acc != Term::select(&sv.term, std::slice::from_ref(j)) {
                    updates.push(Update { var: k, value: Term::lambda(std::slice::from_ref(j), &acc) });
                }
            } else {
                let v = self.global_value(t, sv, k, j, &literal, &vals)?;
                if v != sv.term {
                    updates.push(Update { var: k, value: v });
                }
            }
        }
        // ∀j. ⋀_k (cond'_k(j) ⇒ U(j)) for non-literal cases, and some case applies.
        let mut parts = vec![];
        let mut earlier: Vec<Term> = vec![];
        for (c, lit) in conds.iter().zip(&literal) {
            if lit.is_none() {
                let first_match = Term::and(std::iter::once(c.clone()).chain(earlier.iter().cloned()));
                parts.push(Term::implies(&first_match, &u));
            }
            earlier.push(c.not());
        }
        parts.push(Term::or(conds.iter().cloned()));
        let body = Term::and(parts);
        let uguard = (!valid_for_every_index(&body, j, params)).then(|| (j.clone(), body));
        // Existential values used by the transition (nat ones are non-negative).
        let mut used = HashSet::default();
        let mentioned = guard.iter().chain(uguard.iter().map(|(_, b)| b)).chain(updates.iter().map(|u| &u.value));
        for term in mentioned {
            used.extend(free_vars(term));
        }
        let mut values = vec![];
        for (e, nat) in &self.eevars {
            if used.contains(e) {
                values.push(e.clone());
                if *nat {
                    guard.push(Term::ge(e, &Term::int(0)));
                }
            }
        }
        let base = t.comments.iter().find_map(|c| name_from_comment(c)).unwrap_or_else(|| format!("t{number}"));
        let mut name = base.clone();
        let mut k = number;
        while names.contains(&name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        names.insert(name.clone());
        Ok(Transition { name, params: params.to_vec(), values, guard: Term::and(guard), uguard, updates, checks: None })
    }

    /// The new value of global `sv` (position `k`): the value of a literal
    /// `(= p j)` case with `j := p`, which every other case must agree with.
    pub(super) fn global_value(
        &self,
        t: &RawTransition,
        sv: &StateVar,
        k: usize,
        j: &Term,
        literal: &[Option<Term>],
        vals: &[Vec<Term>],
    ) -> Result<Term, Diagnostic> {
        let first = literal.iter().position(|l| l.is_some()).unwrap_or(0);
        let order = std::iter::once(first).chain((0..vals.len()).filter(|&c| c != first));
        let mut reference: Option<Term> = None;
        for c in order {
            let node = &t.cases[c].vals[k];
            let w = match &literal[c] {
                Some(p) => substitute(&vals[c][k], &HashMap::from_iter([(j.clone(), p.clone())])),
                None => vals[c][k].clone(),
            };
            let differs = reference.as_ref().is_some_and(|r| *r != w);
            if occurs(j, &w) || differs {
                let why = if differs { "" } else { " (its value depends on the case variable)" };
                return Err(self.err(node.start, format!("global '{}' gets different values in different cases{why}", sv.name())));
            }
            reference.get_or_insert(w);
        }
        Ok(reference.expect("at least one case"))
    }
}
