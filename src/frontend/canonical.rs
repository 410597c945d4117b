//! arrax's canonical form of a [`System`]: a deterministic, human-readable
//! s-expression (files with extension `.arrax`), and a reader for it.
//!
//! ```text
//! (system
//!   (index order)
//!   (enum message (subrange 1 7))
//!   (sort data)
//!   (const N Int)
//!   (local a message)
//!   (global f Bool)
//!   (axiom (forall ((x proc)) (<= 0 c[x])))
//!   (initial (forall ((x proc)) (and (= a[x] 1) (not f))))
//!   (unsafe (exists ((z1 proc) (z2 proc)) (and (= a[z1] 3) (= a[z2] 3))))
//!   (transition t1
//!     (params (x proc))
//!     (values (e Int))
//!     (guard (= a[x] 1))
//!     (uguard (j proc) (or (= j x) (not (= a[j] 3))))
//!     (update a (lambda ((j proc)) (ite (= j x) 2 a[j])))
//!     (update f true))
//!   (hint (exists ((z1 proc)) (= a[z1] 7)))
//!   (abstract N)
//!   (option key_search "g"))
//! ```
//!
//! One item per line (a transition's parts on indented lines), in the
//! order of the IR's lists. Terms print in SMT-LIB syntax with array reads
//! of named arrays as `a[i]`; the arguments of `and`, `or` and `=` are
//! sorted by their printed text (literal values last), and a quantified conjunction prints its
//! literals sorted, so the output does not depend on the order in which
//! terms were created. Quantified items list all their variables (even
//! unused ones). Reading back gives a system with the same print.

use super::elab::{excerpt, fits, is_reserved, Binding, Env};
use super::sexp::{read_all, Sexp, SexpKind};
use super::{Diagnostic, Parsed};
use crate::logic::print::{op_name, symbol};
use crate::logic::{EnumDef, EnumValues, Op, Sort, Term};
use crate::system::{IndexKind, Quantified, StateVar, System, Transition, Update};
use crate::HashMap;
use std::rc::Rc;

/// Prints terms canonically, remembering the text of shared subterms.
struct Printer {
    memo: HashMap<Term, String>,
}

impl Printer {
    fn term(&mut self, t: &Term) -> String {
        if let Some(s) = self.memo.get(t) {
            return s.clone();
        }
        let s = match t.op() {
            Op::Var(_) | Op::Bool(_) | Op::Int(_) | Op::Real(..) | Op::EnumConst(_) => t.to_string(),
            Op::Forall(vs) | Op::Exists(vs) | Op::Lambda(vs) => {
                let kw = match t.op() {
                    Op::Forall(_) => "forall",
                    Op::Exists(_) => "exists",
                    _ => "lambda",
                };
                format!("({kw} ({}) {})", binders(vs), self.term(&t.args()[0]))
            }
            Op::Select if t.args()[0].is_var() => {
                let idx: Vec<String> = t.args()[1..].iter().map(|a| self.term(a)).collect();
                format!("{}[{}]", t.args()[0], idx.join(", "))
            }
            op => {
                let mut args: Vec<(bool, String)> = t.args().iter().map(|a| (a.is_value(), self.term(a))).collect();
                if matches!(op, Op::And | Op::Or | Op::Eq) {
                    args.sort();
                }
                let args: Vec<String> = args.into_iter().map(|(_, s)| s).collect();
                format!("({} {})", op_name(op, t.sort()), args.join(" "))
            }
        };
        self.memo.insert(t.clone(), s.clone());
        s
    }

    /// A quantified conjunction `(kw (vars) body)`, literals sorted.
    fn quantified(&mut self, kw: &str, q: &Quantified) -> String {
        let mut lits: Vec<String> = q.lits.iter().map(|l| self.term(l)).collect();
        lits.sort();
        let body = match lits.len() {
            0 => "true".to_string(),
            1 => lits.pop().expect("one literal"),
            _ => format!("(and {})", lits.join(" ")),
        };
        format!("({kw} ({}) {body})", binders(&q.vars))
    }

    fn transition(&mut self, sys: &System, t: &Transition) -> String {
        let mut parts = vec![format!("(transition {}", symbol(&t.name))];
        let params: Vec<String> = t.params.iter().map(binder).collect();
        parts.push(format!("(params{})", params.iter().map(|p| format!(" {p}")).collect::<String>()));
        if !t.values.is_empty() {
            let values: Vec<String> = t.values.iter().map(binder).collect();
            parts.push(format!("(values {})", values.join(" ")));
        }
        parts.push(format!("(guard {})", self.term(&t.guard)));
        if let Some((j, body)) = &t.uguard {
            parts.push(format!("(uguard {} {})", binder(j), self.term(body)));
        }
        for u in &t.updates {
            let name = sys.vars.get(u.var).map(|v| symbol(v.name())).unwrap_or_else(|| format!("|#{}|", u.var));
            parts.push(format!("(update {name} {})", self.term(&u.value)));
        }
        format!("{})", parts.join("\n    "))
    }
}

fn binder(v: &Term) -> String {
    format!("({} {})", v, v.sort())
}

fn binders(vs: &[Term]) -> String {
    vs.iter().map(binder).collect::<Vec<_>>().join(" ")
}

/// The SMT-LIB string literal for `s` (`"` doubled).
fn string_literal(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// The canonical print of a whole system (see the module documentation).
pub fn print(sys: &System) -> String {
    let mut p = Printer { memo: HashMap::default() };
    let mut items = vec![format!("(index {})", sys.index_kind().keyword())];
    for e in &sys.enums {
        let values = match &e.values {
            EnumValues::Subrange(lo, hi) => format!("(subrange {lo} {hi})"),
            EnumValues::Names(ns) => {
                format!("(names {})", ns.iter().map(|n| symbol(n)).collect::<Vec<_>>().join(" "))
            }
        };
        items.push(format!("(enum {} {values})", symbol(&e.name)));
    }
    items.extend(sys.sorts.iter().map(|s| format!("(sort {})", symbol(s))));
    items.extend(sys.consts.iter().map(|c| format!("(const {c} {})", c.sort())));
    for v in &sys.vars {
        let kw = if v.is_array { "local" } else { "global" };
        // A multi-dimensional array is written with its whole sort.
        let sort = match v.term.sort().as_array() {
            Some(a) if v.is_array && a.index.len() > 1 => v.term.sort().to_string(),
            _ => v.value_sort().to_string(),
        };
        items.push(format!("({kw} {} {sort})", symbol(v.name())));
    }
    for q in &sys.axioms {
        items.push(format!("(axiom {})", p.quantified("forall", q)));
    }
    for q in &sys.initial {
        items.push(format!("(initial {})", p.quantified("forall", q)));
    }
    for q in &sys.unsafe_ {
        items.push(format!("(unsafe {})", p.quantified("exists", q)));
    }
    for t in &sys.transitions {
        items.push(p.transition(sys, t));
    }
    for q in &sys.hints {
        items.push(format!("(hint {})", p.quantified("exists", q)));
    }
    for t in &sys.abstract_terms {
        items.push(format!("(abstract {})", p.term(t)));
    }
    for (k, v) in &sys.options {
        if v.is_empty() {
            items.push(format!("(option {})", symbol(k)));
        } else {
            items.push(format!("(option {} {})", symbol(k), string_literal(v)));
        }
    }
    format!("(system\n  {})\n", items.join("\n  "))
}

/// Reads a canonical print back into a system.
pub fn parse(src: &str) -> Result<Parsed, Diagnostic> {
    let nodes = read_all(src)?;
    let top = match nodes.as_slice() {
        [] => return Err(Diagnostic::new(1, 1, "empty input: expected (system ...)")),
        [top] => top,
        [_, extra, ..] => return Err(Diagnostic::at(src, extra.start, "unexpected text after (system ...)")),
    };
    let items = match top.list() {
        Some([head, items @ ..]) if head.symbol() == Some("system") => items,
        _ => return Err(Diagnostic::at(src, top.start, "expected (system ...)")),
    };
    let (index, rest) = match items.split_first() {
        Some((first, rest)) if first.head() == Some("index") => {
            let kind = match first.list() {
                Some([_, k]) => match k.symbol() {
                    Some("order") => IndexKind::Order,
                    Some("int") => IndexKind::Int,
                    Some("nat") => IndexKind::Nat,
                    _ => return Err(Diagnostic::at(src, k.start, "expected order, int or nat")),
                },
                _ => return Err(Diagnostic::at(src, first.start, "expected (index order|int|nat)")),
            };
            (kind, rest)
        }
        _ => (IndexKind::Order, items),
    };
    let mut env = Env::new(src, index.sort());
    env.set_nonlinear(true);
    for (name, sort) in [("Bool", Sort::Bool), ("Int", Sort::Int), ("Real", Sort::Real)] {
        env.define_sort(name, sort);
    }
    let mut r = Reader { env, sys: System { index: Some(index), ..System::default() } };
    for item in rest {
        r.item(item)?;
    }
    Ok(Parsed { system: r.sys, warnings: vec![], source: None })
}

/// The state of reading a canonical print.
struct Reader<'a> {
    env: Env<'a>,
    sys: System,
}

impl Reader<'_> {
    fn err(&self, e: &Sexp, msg: impl Into<String>) -> Diagnostic {
        self.env.error(e, msg)
    }

    fn name<'s>(&self, e: &'s Sexp) -> Result<&'s str, Diagnostic> {
        e.symbol().ok_or_else(|| self.err(e, format!("expected a name, found '{}'", excerpt(self.env.src(), e))))
    }

    /// Binds a new global symbol, rejecting reserved names and duplicates.
    fn declare(&mut self, e: &Sexp, t: Term) -> Result<(), Diagnostic> {
        let name = self.name(e)?;
        if is_reserved(name) {
            return Err(self.err(e, format!("'{name}' is reserved and cannot be declared")));
        }
        if self.env.lookup(name).is_some() {
            return Err(self.err(e, format!("duplicate declaration of '{name}'")));
        }
        self.env.bind(name, Binding::Term(t));
        Ok(())
    }

    fn new_sort(&mut self, e: &Sexp, sort: Sort) -> Result<(), Diagnostic> {
        let name = self.name(e)?;
        if self.env.lookup_sort(name).is_some() || name == "Array" {
            return Err(self.err(e, format!("duplicate declaration of type '{name}'")));
        }
        self.env.define_sort(name, sort);
        Ok(())
    }

    fn int(&self, e: &Sexp) -> Result<i64, Diagnostic> {
        match e.kind {
            SexpKind::Int(n) => Ok(n),
            _ => Err(self.err(e, "expected an integer literal")),
        }
    }

    fn item(&mut self, item: &Sexp) -> Result<(), Diagnostic> {
        let Some((head, args)) = item.list().and_then(|l| l.split_first()) else {
            return Err(self.err(item, "expected an item such as (local a Int)"));
        };
        let kw = self.name(head)?;
        let shape = |what: &str| self.err(item, format!("expected ({kw} {what})"));
        match (kw, args) {
            ("enum", [name, values]) => {
                let n = self.name(name)?;
                let def = match values.list() {
                    Some([k, lo, hi]) if k.symbol() == Some("subrange") => {
                        let (lo, hi) = (self.int(lo)?, self.int(hi)?);
                        if lo > hi {
                            return Err(self.err(values, format!("empty subrange {lo}..{hi}")));
                        }
                        EnumDef { name: n.into(), values: EnumValues::Subrange(lo, hi) }
                    }
                    Some([k, names @ ..]) if k.symbol() == Some("names") && !names.is_empty() => {
                        let ns = names.iter().map(|c| self.name(c).map(Rc::from)).collect::<Result<Vec<_>, _>>()?;
                        EnumDef { name: n.into(), values: EnumValues::Names(ns) }
                    }
                    _ => return Err(self.err(values, "expected (subrange LO HI) or (names A B ...)")),
                };
                let def = Rc::new(def);
                let sort = Sort::Enum(def.clone());
                self.new_sort(name, sort.clone())?;
                if let Some([_, names @ ..]) = values.list().filter(|_| matches!(def.values, EnumValues::Names(_))) {
                    for (k, c) in names.iter().enumerate() {
                        self.declare(c, Term::enum_const(sort.clone(), k as i64))?;
                    }
                }
                self.sys.enums.push(def);
            }
            ("sort", [name]) => {
                let n = self.name(name)?;
                self.new_sort(name, Sort::Uninterpreted(n.into()))?;
                self.sys.sorts.push(n.into());
            }
            ("const", [name, sort]) => {
                let t = Term::var(self.name(name)?, self.env.sort(sort)?);
                self.declare(name, t.clone())?;
                self.sys.consts.push(t);
            }
            ("local" | "global", [name, sort]) => {
                let elem = self.env.sort(sort)?;
                let is_array = kw == "local";
                let s = match elem.as_array() {
                    // (local a (Array proc proc E)): a multi-dimensional array
                    Some(a) if is_array && a.index.len() > 1 && a.index.iter().all(|i| i == self.env.index_sort()) => elem.clone(),
                    Some(_) => return Err(self.err(sort, "expected an element sort, or (Array proc proc ... E) for a multi-dimensional local")),
                    None if is_array => Sort::array(vec![self.env.index_sort().clone()], elem),
                    None => elem,
                };
                let term = Term::var(self.name(name)?, s);
                self.declare(name, term.clone())?;
                self.sys.vars.push(StateVar { term, is_array });
            }
            ("axiom" | "initial", [q]) => {
                let q = self.quantified(q, "forall")?;
                if kw == "axiom" { &mut self.sys.axioms } else { &mut self.sys.initial }.push(q);
            }
            ("unsafe" | "hint", [q]) => {
                let q = self.quantified(q, "exists")?;
                if kw == "unsafe" { &mut self.sys.unsafe_ } else { &mut self.sys.hints }.push(q);
            }
            ("transition", [name, parts @ ..]) => {
                let name = self.name(name)?.to_string();
                self.env.push_scope();
                let t = self.transition(name, parts);
                self.env.pop_scope();
                let t = t?;
                self.sys.transitions.push(t);
            }
            ("abstract", [t]) => {
                let t = self.env.term(t)?;
                self.sys.abstract_terms.push(t);
            }
            ("option", [name]) => {
                let n = self.name(name)?.to_string();
                self.sys.options.push((n, String::new()));
            }
            ("option", [name, value]) => {
                let n = self.name(name)?.to_string();
                let SexpKind::Str(v) = &value.kind else {
                    return Err(self.err(value, "expected a string literal"));
                };
                self.sys.options.push((n, v.clone()));
            }
            ("index", _) => return Err(self.err(item, "(index ...) must be the first item")),
            ("enum", _) => return Err(shape("NAME (subrange LO HI)")),
            ("sort", _) => return Err(shape("NAME")),
            ("const" | "local" | "global", _) => return Err(shape("NAME SORT")),
            ("axiom" | "initial", _) => return Err(shape("(forall (VARS) BODY)")),
            ("unsafe" | "hint", _) => return Err(shape("(exists (VARS) BODY)")),
            ("transition", _) => return Err(shape("NAME PARTS...")),
            ("abstract", _) => return Err(shape("TERM")),
            ("option", _) => return Err(shape("NAME \"VALUE\"")),
            _ => return Err(self.err(head, format!("unknown item '{kw}'"))),
        }
        Ok(())
    }

    /// `(forall|exists (VARS) BODY)`, the body a conjunction of literals.
    fn quantified(&mut self, e: &Sexp, want: &str) -> Result<Quantified, Diagnostic> {
        let Some([q, vars, body]) = e.list() else {
            return Err(self.err(e, format!("expected ({want} (VARS) BODY)")));
        };
        if q.symbol() != Some(want) {
            return Err(self.err(q, format!("expected '{want}'")));
        }
        let vars = self.env.binders(vars)?;
        let lit_nodes: &[Sexp] = match body.list() {
            Some([head, lits @ ..]) if head.symbol() == Some("and") => lits,
            _ if body.symbol() == Some("true") => &[],
            _ => std::slice::from_ref(body),
        };
        self.env.push_scope();
        self.bind_vars(&vars);
        let lits = lit_nodes.iter().map(|l| self.env.formula(l)).collect::<Result<Vec<_>, _>>();
        self.env.pop_scope();
        Ok(Quantified { vars, lits: lits? })
    }

    fn bind_vars(&mut self, vars: &[Term]) {
        for v in vars {
            self.env.bind(v.var_name().expect("a variable"), Binding::Term(v.clone()));
        }
    }

    fn index_binders(&mut self, items: &[Sexp]) -> Result<Vec<Term>, Diagnostic> {
        let vars = self.env.binder_items(items)?;
        for (v, node) in vars.iter().zip(items) {
            if v.sort() != self.env.index_sort() {
                return Err(self.err(node, format!("'{v}' must have the index sort {}", self.env.index_sort())));
            }
        }
        self.bind_vars(&vars);
        Ok(vars)
    }

    /// The parts of a transition, inside a scope the caller opens.
    fn transition(&mut self, name: String, parts: &[Sexp]) -> Result<Transition, Diagnostic> {
        let mut t = Transition { name, params: vec![], values: vec![], guard: Term::tt(), uguard: None, updates: vec![], checks: None };
        for part in parts {
            let Some((head, args)) = part.list().and_then(|l| l.split_first()) else {
                return Err(self.err(part, "expected a transition part such as (guard ...)"));
            };
            match (head.symbol().unwrap_or_default(), args) {
                ("params", vars) => t.params = self.index_binders(vars)?,
                ("values", vars) => {
                    t.values = self.env.binder_items(vars)?;
                    let values = t.values.clone();
                    self.bind_vars(&values);
                }
                ("guard", [g]) => t.guard = self.env.formula(g)?,
                ("uguard", [j, body]) => {
                    self.env.push_scope();
                    let r = self.uguard(j, body);
                    self.env.pop_scope();
                    t.uguard = Some(r?);
                }
                ("update", [name, value]) => {
                    let n = self.name(name)?;
                    let var = self.sys.var(n).ok_or_else(|| self.err(name, format!("unknown state variable '{n}'")))?;
                    if t.updates.iter().any(|u| u.var == var) {
                        return Err(self.err(name, format!("'{n}' is updated twice")));
                    }
                    let want = self.sys.vars[var].term.sort().clone();
                    let v = self.env.term(value)?;
                    if !fits(v.sort(), &want) {
                        return Err(self.err(value, format!("sort mismatch: expected {want}, found {} in '{}'", v.sort(), excerpt(self.env.src(), value))));
                    }
                    t.updates.push(Update { var, value: v });
                }
                _ => return Err(self.err(part, "expected (params ...), (values ...), (guard F), (uguard (j S) F) or (update NAME TERM)")),
            }
        }
        Ok(t)
    }

    fn uguard(&mut self, j: &Sexp, body: &Sexp) -> Result<(Term, Term), Diagnostic> {
        let vars = self.index_binders(std::slice::from_ref(j))?;
        Ok((vars[0].clone(), self.env.formula(body)?))
    }
}
