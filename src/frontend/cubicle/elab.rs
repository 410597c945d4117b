//! Elaboration of the Cubicle syntax tree: every formula type-checked and
//! the system built.

use super::*;
use crate::frontend::elab::is_reserved;
use crate::frontend::{line_col, Diagnostic, Parsed};
use crate::logic::{conjuncts, occurs, substitute, EnumDef, EnumValues, Sort, Term};
use crate::system::{IndexKind, Quantified, StateVar, System, Transition, Update};
use crate::{HashMap, HashSet};
use std::collections::BTreeMap;
use std::rc::Rc;

/// The most process variables the axiom of `number_procs` may quantify
/// (each query instantiates it over every tuple of its processes).
pub(super) const MAX_BOUND_VARS: usize = 4;

/// What a global name stands for.
#[derive(Clone)]
pub(super) enum Sym {
    /// A scalar state variable.
    Scalar(Term, usize),
    /// An array state variable.
    Array(Term, usize),
    /// A rigid constant or an enumeration constructor (not assignable).
    Rigid(Term),
}

pub(super) struct Predicate {
    pub(super) params: Vec<Name>,
    pub(super) body: Expr,
}

pub(super) struct Elab<'a> {
    pub(super) src: &'a str,
    pub(super) sys: System,
    pub(super) sorts: HashMap<String, Sort>,
    pub(super) globals: HashMap<String, (Sym, usize)>,
    /// Where each type and global name was declared.
    pub(super) declared: HashMap<String, usize>,
    pub(super) preds: HashMap<String, (Predicate, usize)>,
    /// Local names (parameters, bound variables, `let`s), innermost last.
    pub(super) locals: Vec<(String, Term)>,
    /// Names in use in the current item (for fresh names).
    pub(super) taken: HashSet<String>,
    /// The parameters of the transition being read.
    pub(super) params: Option<Vec<Term>>,
    pub(super) procs: BTreeMap<i64, Term>,
    /// `number_procs N` and where it is written.
    pub(super) number_procs: Option<(i64, usize)>,
    pub(super) warnings: Vec<Diagnostic>,
}

impl<'a> Elab<'a> {
    pub(super) fn new(src: &'a str) -> Self {
        let sorts =
            [("bool", Sort::Bool), ("int", Sort::Int), ("real", Sort::Real), ("proc", Sort::Index)].into_iter().map(|(n, s)| (n.to_string(), s)).collect();
        let mut globals = HashMap::default();
        globals.insert("True".to_string(), (Sym::Rigid(Term::tt()), 0));
        globals.insert("False".to_string(), (Sym::Rigid(Term::ff()), 0));
        Elab {
            src,
            sys: System { index: Some(IndexKind::Order), ..System::default() },
            sorts,
            globals,
            declared: HashMap::default(),
            preds: HashMap::default(),
            locals: vec![],
            taken: HashSet::default(),
            params: None,
            procs: BTreeMap::new(),
            number_procs: None,
            warnings: vec![],
        }
    }

    pub(super) fn err(&self, at: usize, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.src, at, msg)
    }

    pub(super) fn system(mut self, items: &[Item]) -> Result<Parsed, Diagnostic> {
        // Types first, then state and constants, then the rest in file order.
        for item in items {
            match item {
                Item::Type(name, ctors) => self.declare_type(name, ctors.as_deref())?,
                Item::NumberProcs(n, at) => {
                    if self.number_procs.is_some() {
                        return Err(self.err(*at, "number_procs is given twice"));
                    }
                    self.number_procs = Some((*n, *at));
                    self.sys.options.push(("number_procs".to_string(), n.to_string()));
                }
                _ => {}
            }
        }
        for item in items {
            match item {
                Item::Var { name, ty, rigid } => self.declare_var(name, ty, *rigid)?,
                Item::Array { name, dims, ty } => self.declare_array(name, dims, ty)?,
                _ => {}
            }
        }
        let mut init_at = None;
        // Cubicle accepts duplicate transition names; later ones get a suffix.
        let all_names: HashSet<&str> = items.iter().filter_map(|i| if let Item::Transition(t) = i { Some(t.name.0.as_str()) } else { None }).collect();
        let mut names: HashMap<String, usize> = HashMap::default();
        for item in items {
            match item {
                Item::Formula { section, pos, vars, body } => {
                    if *section == Section::Init {
                        if let Some(first) = init_at {
                            let (l, c) = line_col(self.src, first);
                            return Err(self.err(*pos, format!("only one 'init' is allowed (the first is at {l}:{c})")));
                        }
                        init_at = Some(*pos);
                    }
                    self.formula_item(*section, *pos, vars, body)?;
                }
                Item::Predicate { name, params, body } => self.define_predicate(name, params, body)?,
                Item::Transition(t) => {
                    let mut name = t.name.0.clone();
                    if let Some(&first) = names.get(&name) {
                        let k = (2..).find(|k| {
                            let n = format!("{name}_{k}");
                            !all_names.contains(n.as_str()) && !names.contains_key(&n)
                        });
                        name = format!("{name}_{}", k.expect("infinitely many suffixes"));
                        let (l, c) = line_col(self.src, first);
                        self.warnings
                            .push(self.err(t.name.1, format!("duplicate transition name '{}' (first at {l}:{c}): this one is named '{name}'", t.name.0)));
                    }
                    names.insert(name.clone(), t.name.1);
                    self.transition(t, &name)?;
                }
                _ => {}
            }
        }
        if init_at.is_none() {
            return Err(Diagnostic::new(1, 1, "no 'init' section"));
        }
        if self.sys.unsafe_.is_empty() {
            return Err(Diagnostic::new(1, 1, "no 'unsafe' section (nothing to check)"));
        }
        let procs: Vec<Term> = self.procs.values().cloned().collect();
        if procs.len() >= 2 {
            self.sys.axioms.push(Quantified { vars: vec![], lits: conjuncts(&Term::distinct(&procs)) });
        }
        if let Some((n, at)) = self.number_procs {
            self.process_bound(n, at, &procs);
        }
        self.sys.consts.extend(procs);
        self.warnings.sort_by_key(|w| (w.line, w.col));
        Ok(Parsed { system: self.sys, warnings: self.warnings, source: None })
    }

    /// The axiom of `number_procs n` (`n` ≥ 1; 0 leaves the number of
    /// processes open, as in Cubicle): at most `n` processes. The `m`
    /// process constants `procs` are pairwise distinct processes, so any
    /// `n + 1 − m` processes include one of them or two equal ones. Over
    /// more than [`MAX_BOUND_VARS`] variables the axiom is not stated (a
    /// warning says so): arrax then checks every number of processes.
    pub(super) fn process_bound(&mut self, n: i64, at: usize, procs: &[Term]) {
        let free = usize::try_from(n).unwrap_or(usize::MAX).saturating_add(1).saturating_sub(procs.len());
        if n == 0 || free == 0 {
            return;
        }
        if free > MAX_BOUND_VARS {
            let msg = format!(
                "number_procs {n} is not applied: bounding the processes takes an axiom over {free} process variables \
                 (at most {MAX_BOUND_VARS}); every number of processes is checked"
            );
            self.warnings.push(self.err(at, msg));
            return;
        }
        self.begin_item();
        let vars: Vec<Term> = (0..free).map(|_| Term::var(&self.fresh("p"), Sort::Index)).collect();
        let mut same = vec![];
        for (i, z) in vars.iter().enumerate() {
            same.extend(vars[..i].iter().chain(procs).map(|y| Term::eq(z, y)));
        }
        self.sys.axioms.push(Quantified { vars, lits: vec![Term::or(same)] });
    }

    // ----- declarations

    /// Records a new global name that names a symbol of the system,
    /// rejecting reserved names and duplicates.
    pub(super) fn declare_symbol(&mut self, name: &Name) -> Result<(), Diagnostic> {
        if is_reserved(&name.0) {
            return Err(self.err(name.1, format!("'{}' is reserved (an operator of arrax's canonical form)", name.0)));
        }
        self.declare_name(name)
    }

    /// Records a new global name, rejecting duplicates.
    pub(super) fn declare_name(&mut self, (name, at): &Name) -> Result<(), Diagnostic> {
        if let Some(first) = self.declared.get(name) {
            let (l, c) = line_col(self.src, *first);
            return Err(self.err(*at, format!("duplicate declaration of '{name}' (first declared at {l}:{c})")));
        }
        if self.globals.contains_key(name) || self.sorts.contains_key(name) {
            return Err(self.err(*at, format!("'{name}' is predefined and cannot be declared")));
        }
        self.declared.insert(name.clone(), *at);
        Ok(())
    }

    /// A type: an enumeration or an abstract sort. A type named like an
    /// operator of the canonical form (Cubicle allows `type mod`) is the
    /// sort `mod?` inside (no Cubicle name contains `?`).
    pub(super) fn declare_type(&mut self, name: &Name, ctors: Option<&[Name]>) -> Result<(), Diagnostic> {
        self.declare_name(name)?;
        let inner: Rc<str> = if is_reserved(&name.0) { format!("{}?", name.0).into() } else { name.0.as_str().into() };
        let sort = match ctors {
            None => {
                self.sys.sorts.push(inner.clone());
                Sort::Uninterpreted(inner)
            }
            Some(ctors) => {
                let def = Rc::new(EnumDef { name: inner, values: EnumValues::Names(ctors.iter().map(|(c, _)| Rc::from(c.as_str())).collect()) });
                let sort = Sort::Enum(def.clone());
                for (k, c) in ctors.iter().enumerate() {
                    self.declare_symbol(c)?;
                    self.globals.insert(c.0.clone(), (Sym::Rigid(Term::enum_const(sort.clone(), k as i64)), c.1));
                }
                self.sys.enums.push(def);
                sort
            }
        };
        self.sorts.insert(name.0.clone(), sort);
        Ok(())
    }

    pub(super) fn sort(&self, (name, at): &Name) -> Result<Sort, Diagnostic> {
        self.sorts.get(name).cloned().ok_or_else(|| self.err(*at, format!("unknown type '{name}'")))
    }

    pub(super) fn declare_var(&mut self, name: &Name, ty: &Name, rigid: bool) -> Result<(), Diagnostic> {
        let sort = self.sort(ty)?;
        self.declare_symbol(name)?;
        let term = Term::var(&name.0, sort);
        let sym = if rigid {
            self.sys.consts.push(term.clone());
            Sym::Rigid(term)
        } else {
            self.sys.vars.push(StateVar { term: term.clone(), is_array: false });
            Sym::Scalar(term, self.sys.vars.len() - 1)
        };
        self.globals.insert(name.0.clone(), (sym, name.1));
        Ok(())
    }

    pub(super) fn declare_array(&mut self, name: &Name, dims: &[Name], ty: &Name) -> Result<(), Diagnostic> {
        for d in dims {
            if self.sort(d)? != Sort::Index {
                return Err(self.err(d.1, format!("arrays are indexed by processes: expected 'proc', found '{}'", d.0)));
            }
        }
        let elem = self.sort(ty)?;
        self.declare_symbol(name)?;
        let term = Term::var(&name.0, Sort::array(vec![Sort::Index; dims.len()], elem));
        self.sys.vars.push(StateVar { term: term.clone(), is_array: true });
        self.globals.insert(name.0.clone(), (Sym::Array(term, self.sys.vars.len() - 1), name.1));
        Ok(())
    }

    /// A predicate (a macro), in a namespace of its own as in Cubicle.
    pub(super) fn define_predicate(&mut self, name: &Name, params: &[Name], body: &Expr) -> Result<(), Diagnostic> {
        if let Some((_, first)) = self.preds.get(&name.0) {
            let (l, c) = line_col(self.src, *first);
            return Err(self.err(name.1, format!("predicate '{}' is defined twice (first at {l}:{c})", name.0)));
        }
        let mut seen = HashSet::default();
        for (p, at) in params {
            if !seen.insert(p) {
                return Err(self.err(*at, format!("parameter '{p}' is listed twice")));
            }
        }
        // Only earlier predicates may be called: no recursion.
        self.check_calls(body)?;
        self.preds.insert(name.0.clone(), (Predicate { params: params.to_vec(), body: body.clone() }, name.1));
        Ok(())
    }

    pub(super) fn check_calls(&self, e: &Expr) -> Result<(), Diagnostic> {
        match &e.kind {
            ExprKind::Call(p, args) => {
                if !self.preds.contains_key(p) {
                    return Err(self.err(e.pos, format!("undefined predicate '{p}' (predicates are defined before use)")));
                }
                args.iter().try_for_each(|a| self.check_calls(a))
            }
            ExprKind::Read(_, args) => args.iter().try_for_each(|a| self.check_calls(a)),
            ExprKind::Neg(a) | ExprKind::Not(a) | ExprKind::Quant(_, _, a) => self.check_calls(a),
            ExprKind::Bin(_, a, b) => {
                self.check_calls(a)?;
                self.check_calls(b)
            }
            ExprKind::Ite(a, b, c) => {
                self.check_calls(a)?;
                self.check_calls(b)?;
                self.check_calls(c)
            }
            ExprKind::Name(_) | ExprKind::Proc(_) | ExprKind::Int(_) | ExprKind::Real(..) | ExprKind::Bool(_) => Ok(()),
        }
    }

    // ----- local names

    /// Starts an item: no locals, only global names taken.
    pub(super) fn begin_item(&mut self) {
        self.locals.clear();
        self.taken = self.declared.keys().cloned().collect();
        self.taken.extend(["True", "False"].map(String::from));
        self.params = None;
    }

    /// A fresh name based on `base`, not clashing with anything in use.
    pub(super) fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut k = 1;
        while self.taken.contains(&name) || is_reserved(&name) {
            name = format!("{base}{k}");
            k += 1;
        }
        self.taken.insert(name.clone());
        name
    }

    /// Index variables named by the user for a whole item (parameters,
    /// `init`/`unsafe` variables): pairwise distinct and not clashing with
    /// declarations; one named like an operator of the canonical form
    /// (Cubicle allows `transition t (select)`) gets a fresh name.
    pub(super) fn item_vars(&mut self, vars: &[Name], what: &str) -> Result<Vec<Term>, Diagnostic> {
        let mut out = vec![];
        let mut seen = HashSet::default();
        for (v, at) in vars {
            if let Some((_, first)) = self.globals.get(v) {
                let (l, c) = line_col(self.src, *first);
                return Err(self.err(*at, format!("{what} '{v}' has the name of a declaration (at {l}:{c})")));
            }
            if !seen.insert(v) {
                return Err(self.err(*at, format!("{what} '{v}' is listed twice")));
            }
            let t = Term::var(&self.fresh(v), Sort::Index);
            self.locals.push((v.clone(), t.clone()));
            out.push(t);
        }
        Ok(out)
    }

    /// Binds a user-named index variable under a fresh name; returns it.
    pub(super) fn bind_index(&mut self, name: &str) -> Term {
        let fresh = self.fresh(name);
        let t = Term::var(&fresh, Sort::Index);
        self.locals.push((name.to_string(), t.clone()));
        t
    }

    pub(super) fn lookup_local(&self, name: &str) -> Option<&Term> {
        self.locals.iter().rev().find(|(n, _)| n == name).map(|(_, t)| t)
    }

    // ----- terms and formulas

    pub(super) fn elab(&mut self, e: &Expr) -> Result<Term, Diagnostic> {
        match &e.kind {
            ExprKind::Int(n) => Ok(Term::int(*n)),
            ExprKind::Real(n, d) => Ok(Term::real(*n, *d)),
            ExprKind::Bool(b) => Ok(Term::bool(*b)),
            ExprKind::Proc(n) => self.proc_const(*n, e.pos),
            ExprKind::Name(s) => self.name(s, e.pos),
            ExprKind::Read(a, idx) => self.read(a, idx, e.pos),
            ExprKind::Call(p, args) => self.call(p, args, e.pos),
            ExprKind::Neg(a) => {
                let t = self.value(a)?;
                if !t.sort().is_numeric() {
                    return Err(self.err(a.pos, format!("'-' expects a number, found sort {}", t.sort())));
                }
                Ok(t.neg())
            }
            ExprKind::Not(a) => Ok(self.formula(a)?.not()),
            ExprKind::Bin(op, a, b) => self.binary(*op, a, b, e.pos),
            ExprKind::Ite(c, a, b) => {
                let c = self.formula(c)?;
                let (x, y) = (self.elab(a)?, self.elab(b)?);
                if *x.sort() == Sort::Bool && *y.sort() == Sort::Bool {
                    if has_quant(&c) || has_quant(&x) || has_quant(&y) {
                        return Ok(Term::or([Term::and([c.clone(), x]), Term::and([c.not(), y])]));
                    }
                    return Ok(Term::ite(&c, &x, &y));
                }
                let (x, y) = self.unify(x, y, a.pos, "the branches of 'if'")?;
                if has_quant(&c) {
                    return Err(self.err(e.pos, "the condition of an 'if' on values cannot contain a quantifier"));
                }
                Ok(Term::ite(&c, &x, &y))
            }
            ExprKind::Quant(q, vars, body) => self.quantifier(*q, vars, body, e.pos),
        }
    }

    /// A formula (Boolean).
    pub(super) fn formula(&mut self, e: &Expr) -> Result<Term, Diagnostic> {
        let t = self.elab(e)?;
        if *t.sort() != Sort::Bool {
            return Err(self.err(e.pos, format!("expected a formula, found a term of sort {}", t.sort())));
        }
        Ok(t)
    }

    /// A quantifier-free term.
    pub(super) fn value(&mut self, e: &Expr) -> Result<Term, Diagnostic> {
        let t = self.elab(e)?;
        if has_quant(&t) {
            return Err(self.err(e.pos, "a quantified formula cannot be used as a value here"));
        }
        Ok(t)
    }

    /// A quantifier-free term that fits sort `want`.
    pub(super) fn value_of(&mut self, e: &Expr, want: &Sort, what: &str) -> Result<Term, Diagnostic> {
        let t = self.value(e)?;
        coerce(&t, want).ok_or_else(|| self.err(e.pos, format!("sort mismatch in {what}: expected {want}, found {}", t.sort())))
    }

    pub(super) fn proc_const(&mut self, n: i64, at: usize) -> Result<Term, Diagnostic> {
        if let Some((max, _)) = self.number_procs {
            if n > max {
                return Err(self.err(at, format!("process constant #{n} exceeds number_procs {max}")));
            }
        }
        Ok(self.procs.entry(n).or_insert_with(|| Term::var(&format!("#{n}"), Sort::Index)).clone())
    }

    pub(super) fn name(&mut self, s: &str, at: usize) -> Result<Term, Diagnostic> {
        if let Some(t) = self.lookup_local(s) {
            return Ok(t.clone());
        }
        match self.globals.get(s) {
            Some((Sym::Scalar(t, _) | Sym::Rigid(t), _)) => Ok(t.clone()),
            Some((Sym::Array(..), _)) => Err(self.err(at, format!("array '{s}' is used without an index ('{s}[i]')"))),
            None if self.preds.contains_key(s) => Err(self.err(at, format!("predicate '{s}' is used without arguments ('{s}(…)')"))),
            None => Err(self.err(at, format!("undeclared identifier '{s}'"))),
        }
    }

    pub(super) fn index(&mut self, e: &Expr) -> Result<Term, Diagnostic> {
        let t = self.value(e)?;
        if *t.sort() != Sort::Index {
            return Err(self.err(e.pos, format!("an array index must be a process, found sort {}", t.sort())));
        }
        Ok(t)
    }

    pub(super) fn array(&self, name: &str, at: usize) -> Result<Term, Diagnostic> {
        match self.globals.get(name) {
            Some((Sym::Array(t, _), _)) => Ok(t.clone()),
            Some(_) => Err(self.err(at, format!("'{name}' is not an array"))),
            None if self.lookup_local(name).is_some() => Err(self.err(at, format!("'{name}' is not an array"))),
            None => Err(self.err(at, format!("undeclared array '{name}'"))),
        }
    }

    pub(super) fn read(&mut self, name: &str, idx: &[Expr], at: usize) -> Result<Term, Diagnostic> {
        let a = self.array(name, at)?;
        let dims = a.sort().as_array().map_or(0, |s| s.index.len());
        if dims != idx.len() {
            return Err(self.err(at, format!("array '{name}' takes {dims} indices, found {}", idx.len())));
        }
        let idx = idx.iter().map(|i| self.index(i)).collect::<Result<Vec<_>, _>>()?;
        Ok(Term::select(&a, &idx))
    }

    pub(super) fn call(&mut self, name: &str, args: &[Expr], at: usize) -> Result<Term, Diagnostic> {
        let Some((pred, _)) = self.preds.get(name) else {
            return Err(self.err(at, format!("undefined predicate '{name}'")));
        };
        let (params, body) = (pred.params.clone(), pred.body.clone());
        if params.len() != args.len() {
            return Err(self.err(at, format!("predicate '{name}' takes {} arguments, found {}", params.len(), args.len())));
        }
        let args = args.iter().map(|a| self.elab(a)).collect::<Result<Vec<_>, _>>()?;
        // The body sees the globals and its parameters only.
        let saved = std::mem::take(&mut self.locals);
        self.locals = params.iter().map(|(p, _)| p.clone()).zip(args).collect();
        let r = self.formula(&body);
        self.locals = saved;
        r.map_err(|d| {
            let (l, c) = line_col(self.src, at);
            Diagnostic { message: format!("{} (in predicate '{name}' called at {l}:{c})", d.message), ..d }
        })
    }

    /// `t` and `u` brought to one sort (an integer literal becomes real
    /// next to a real).
    pub(super) fn unify(&self, t: Term, u: Term, at: usize, what: &str) -> Result<(Term, Term), Diagnostic> {
        if let Some(u2) = coerce(&u, t.sort()) {
            return Ok((t, u2));
        }
        if let Some(t2) = coerce(&t, u.sort()) {
            return Ok((t2, u));
        }
        Err(self.err(at, format!("sort mismatch in {what}: {} and {}", t.sort(), u.sort())))
    }

    pub(super) fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, at: usize) -> Result<Term, Diagnostic> {
        match op {
            BinOp::And | BinOp::Or | BinOp::Imp | BinOp::Equiv => {
                let (x, y) = (self.formula(a)?, self.formula(b)?);
                Ok(match op {
                    BinOp::And => Term::and([x, y]),
                    BinOp::Or => Term::or([x, y]),
                    BinOp::Imp => Term::implies(&x, &y),
                    _ if has_quant(&x) || has_quant(&y) => Term::or([Term::and([x.clone(), y.clone()]), Term::and([x.not(), y.not()])]),
                    _ => Term::eq(&x, &y),
                })
            }
            BinOp::Eq | BinOp::Neq => {
                let (x, y) = (self.value(a)?, self.value(b)?);
                let (x, y) = self.unify(x, y, at, "a comparison")?;
                let eq = Term::eq(&x, &y);
                Ok(if op == BinOp::Eq { eq } else { eq.not() })
            }
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let (x, y) = (self.value(a)?, self.value(b)?);
                let (x, y) = self.unify(x, y, at, "a comparison")?;
                if !x.sort().is_numeric() && *x.sort() != Sort::Index {
                    return Err(self.err(at, format!("order comparison on sort {}: expected numbers or processes", x.sort())));
                }
                Ok(match op {
                    BinOp::Lt => Term::lt(&x, &y),
                    BinOp::Le => Term::le(&x, &y),
                    BinOp::Gt => Term::gt(&x, &y),
                    _ => Term::ge(&x, &y),
                })
            }
            BinOp::Add | BinOp::Sub | BinOp::Mul => {
                let (x, y) = (self.value(a)?, self.value(b)?);
                let (x, y) = self.unify(x, y, at, "arithmetic")?;
                if !x.sort().is_numeric() {
                    return Err(self.err(at, format!("arithmetic on sort {}: expected numbers", x.sort())));
                }
                let y = if op == BinOp::Sub { y.neg() } else { y };
                let items = [x, y];
                if op == BinOp::Mul {
                    if !items[0].is_value() && !items[1].is_value() {
                        return Err(self.err(at, "non-linear product: one factor must be a number literal"));
                    }
                    if !crate::frontend::elab::fold::product(&items) {
                        return Err(self.err(at, "constant arithmetic overflows 64-bit integers"));
                    }
                    return Ok(Term::mul(items));
                }
                if !crate::frontend::elab::fold::sum(&items) {
                    return Err(self.err(at, "constant arithmetic overflows 64-bit integers"));
                }
                Ok(Term::add(items))
            }
        }
    }

    pub(super) fn quantifier(&mut self, q: Quant, vars: &[Name], body: &Expr, at: usize) -> Result<Term, Diagnostic> {
        let params = match q {
            Quant::ForallOther | Quant::ExistsOther => match &self.params {
                Some(p) => p.clone(),
                None => {
                    let kw = if q == Quant::ForallOther { "forall_other" } else { "exists_other" };
                    return Err(self.err(at, format!("'{kw}' is only meaningful in a transition guard")));
                }
            },
            _ => vec![],
        };
        let depth = self.locals.len();
        let bound: Vec<Term> = vars.iter().map(|(v, _)| self.bind_index(v)).collect();
        let body = self.formula(body);
        self.locals.truncate(depth);
        let body = body?;
        // Distinct variables (`x <> y`) and the `_other` exclusions.
        let mut excluded = vec![];
        for (i, x) in bound.iter().enumerate() {
            excluded.extend(bound[..i].iter().map(|y| Term::eq(x, y)));
            excluded.extend(params.iter().map(|p| Term::eq(x, p)));
        }
        Ok(match q {
            Quant::Forall | Quant::ForallOther => Term::forall(&bound, &Term::or(excluded.into_iter().chain(std::iter::once(body)))),
            Quant::Exists | Quant::ExistsOther => Term::exists(&bound, &Term::and(excluded.iter().map(|e| e.not()).chain(std::iter::once(body)))),
        })
    }

    // ----- sections

    pub(super) fn formula_item(&mut self, section: Section, at: usize, vars: &[Name], body: &Expr) -> Result<(), Diagnostic> {
        self.begin_item();
        let declared = self.item_vars(vars, "variable")?;
        let body = nnf(&self.formula(body)?, false);
        if section == Section::Init {
            let (more, body) = lift_forall(&body).map_err(|m| self.err(at, m))?;
            let vars = [declared, more].concat();
            self.sys.initial.push(Quantified { vars, lits: conjuncts(&body) });
            return Ok(());
        }
        let cubes = cubes(&body, &declared).map_err(|m| self.err(at, m))?;
        let what = if section == Section::Unsafe { "unsafe" } else { "invariant" };
        if cubes.is_empty() {
            self.warnings.push(self.err(at, format!("this {what} formula is unsatisfiable and states nothing")));
        }
        if section == Section::Unsafe { &mut self.sys.unsafe_ } else { &mut self.sys.hints }.extend(cubes);
        Ok(())
    }

    pub(super) fn transition(&mut self, t: &TransitionAst, name: &str) -> Result<(), Diagnostic> {
        self.begin_item();
        let params = self.item_vars(&t.params, "parameter")?;
        self.params = Some(params.clone());
        let guard = match &t.guard {
            Some(g) => nnf(&self.formula(g)?, false),
            None => Term::tt(),
        };
        let guard_at = t.guard.as_ref().map_or(t.name.1, |g| g.pos);
        let cases = split_guard(&guard).map_err(|m| self.err(guard_at, m))?;
        for ((n, at), e) in &t.lets {
            let v = self.value(e)?;
            if self.lookup_local(n).is_some() || self.globals.contains_key(n) {
                return Err(self.err(*at, format!("'let {n}' hides another name")));
            }
            self.locals.push((n.clone(), v));
        }
        let mut updates: Vec<Update> = vec![];
        let mut values = vec![];
        let mut chosen = vec![];
        // Each update's λ-variables need only avoid the names in scope.
        let in_scope = self.taken.clone();
        for a in &t.actions {
            self.taken = in_scope.clone();
            self.taken.extend(values.iter().chain(&chosen).filter_map(|v: &Term| v.var_name().map(String::from)));
            let (name, at) = &a.target;
            let (var, is_array) = match self.globals.get(name) {
                Some((Sym::Scalar(_, k), _)) => (*k, false),
                Some((Sym::Array(_, k), _)) => (*k, true),
                Some((Sym::Rigid(_), _)) => return Err(self.err(*at, format!("'{name}' is a constant and cannot be assigned"))),
                None => return Err(self.err(*at, format!("assignment to undeclared variable '{name}'"))),
            };
            if updates.iter().any(|u| u.var == var) {
                return Err(self.err(*at, format!("'{name}' is assigned twice in transition '{}'", t.name.0)));
            }
            let sv = self.sys.vars[var].clone();
            let value = match (&a.index, is_array) {
                (None, false) => match &a.rhs {
                    Rhs::Nondet => self.nondet(name, &sv.value_sort(), &mut chosen, &mut values),
                    Rhs::Term(e) => self.value_of(e, &sv.value_sort(), &format!("the assignment to '{name}'"))?,
                    Rhs::Case(cases) => {
                        let open = cases.last().is_some_and(|(c, _)| c.is_some());
                        let otherwise = open.then(|| self.nondet(name, &sv.value_sort(), &mut chosen, &mut values));
                        self.cases(cases, &sv.value_sort(), name, otherwise)?
                    }
                },
                (None, true) => return Err(self.err(*at, format!("whole-array assignment to '{name}' is not supported (write '{name}[j] := case | _ : …')"))),
                (Some(_), false) => return Err(self.err(*at, format!("'{name}' is not an array"))),
                (Some(idx), true) => self.array_update(&sv, name, *at, idx, &a.rhs)?,
            };
            updates.push(Update { var, value });
        }
        updates.sort_by_key(|u| u.var);
        let transitions = instances(name, &params, cases, &chosen, &values, &updates);
        if transitions.is_empty() {
            self.warnings.push(self.err(t.name.1, format!("transition '{name}' can never fire (its guard is false)")));
        }
        self.sys.transitions.extend(transitions);
        Ok(())
    }

    /// A value chosen nondeterministically for the scalar `name` (`X := .`):
    /// a process is a new parameter (in `chosen`), any other value an
    /// existential value (in `values`).
    fn nondet(&mut self, name: &str, sort: &Sort, chosen: &mut Vec<Term>, values: &mut Vec<Term>) -> Term {
        let v = Term::var(&self.fresh(&format!("{name}?")), sort.clone());
        if *sort == Sort::Index { chosen } else { values }.push(v.clone());
        v
    }

    /// `case | c1 : v1 | … | _ : vn` as `ite(c1, v1, … vn)`; a case list
    /// without the default `| _ :` ends in `otherwise` (an error at its last
    /// condition when there is none).
    pub(super) fn cases(&mut self, cases: &[(Option<Expr>, Expr)], want: &Sort, name: &str, otherwise: Option<Term>) -> Result<Term, Diagnostic> {
        let what = format!("a case of the assignment to '{name}'");
        let (mut acc, rest) = match (cases.split_last().expect("at least one case"), otherwise) {
            ((last @ (None, _), rest), _) => (self.value_of(&last.1, want, &what)?, rest),
            ((_, _), Some(v)) => (v, cases),
            (((Some(c), _), _), None) => {
                let msg = format!(
                    "an element-wise case assignment to '{name}' without the default '| _ : …' is not supported \
                     (Cubicle leaves such elements arbitrary; add '| _ : {name}[…]' to keep them)"
                );
                return Err(self.err(c.pos, msg));
            }
        };
        let mut arms = vec![];
        for (cond, v) in rest {
            let Some(cond) = cond else {
                return Err(self.err(v.pos, "the default case '| _ : …' must come last"));
            };
            let c = self.formula(cond)?;
            if has_quant(&c) {
                return Err(self.err(cond.pos, "a case condition cannot contain a quantifier"));
            }
            arms.push((c, self.value_of(v, want, &what)?));
        }
        for (c, v) in arms.into_iter().rev() {
            acc = Term::ite(&c, &v, &acc);
        }
        Ok(acc)
    }

    /// The new value `λj̄. …` of an array assigned `A[j̄] := case …` or `A[x̄] := e`.
    pub(super) fn array_update(&mut self, sv: &StateVar, name: &str, at: usize, idx: &[Expr], rhs: &Rhs) -> Result<Term, Diagnostic> {
        let dims = sv.term.sort().as_array().map_or(0, |s| s.index.len());
        if dims != idx.len() {
            return Err(self.err(at, format!("array '{name}' takes {dims} indices, found {}", idx.len())));
        }
        let want = sv.value_sort();
        let depth = self.locals.len();
        let r = match rhs {
            Rhs::Nondet => Err(self.err(at, format!("nondeterministic assignment to an element of '{name}' is not supported"))),
            Rhs::Case(cases) => {
                let mut binders: Vec<Term> = vec![];
                for e in idx {
                    let ExprKind::Name(j) = &e.kind else {
                        return Err(self.err(e.pos, "the indices of a case assignment must be new variable names"));
                    };
                    if self.lookup_local(j).is_some() || self.globals.contains_key(j) {
                        return Err(self.err(e.pos, format!("'{j}' already has a meaning; a case assignment needs a new variable")));
                    }
                    if self.locals[depth..].iter().any(|(n, _)| n == j) {
                        return Err(self.err(e.pos, format!("index variable '{j}' is listed twice")));
                    }
                    binders.push(self.bind_index(j));
                }
                self.cases(cases, &want, name, None).map(|body| Term::lambda(&binders, &body))
            }
            Rhs::Term(e) => {
                let targets = idx.iter().map(|i| self.index(i)).collect::<Result<Vec<_>, _>>()?;
                let v = self.value_of(e, &want, &format!("the assignment to '{name}'"))?;
                let binders: Vec<Term> = (0..dims).map(|_| Term::var(&self.fresh("j"), Sort::Index)).collect();
                let hit = Term::and(binders.iter().zip(&targets).map(|(j, x)| Term::eq(j, x)));
                Ok(Term::lambda(&binders, &Term::ite(&hit, &v, &Term::select(&sv.term, &binders))))
            }
        };
        self.locals.truncate(depth);
        r
    }
}

/// The cubes of an `unsafe` or `invariant` body in negation normal form
/// over the `declared` variables: one per disjunct with quantifiers and
/// per identification of its existential variables. A cube's variables
/// are those its literals name (before distinctness simplifies them), as
/// Cubicle's cubes are over the processes they name: `unsafe (z1 z2) {
/// S[z1] = Crit }` does not ask for a second process.
pub(super) fn cubes(body: &Term, declared: &[Term]) -> Result<Vec<Quantified>, String> {
    let mut out = vec![];
    for (ex, lits) in split_cube(body)? {
        for (map, kept) in identifications(&ex, declared) {
            let named = substitute(&Term::and(lits.clone()), &map);
            let vars: Vec<Term> = declared.iter().chain(&kept).filter(|v| occurs(v, &named)).cloned().collect();
            let b = substitute(&named, &distinctness(&vars));
            if b.as_bool() != Some(false) {
                out.push(Quantified { vars, lits: conjuncts(&b) });
            }
        }
    }
    Ok(out)
}

/// The IR transitions of one Cubicle transition: one per guard
/// disjunct with quantifiers and per identification of its new
/// parameters (existentials, nondeterministic processes).
pub(super) fn instances(name: &str, params: &[Term], cases: Vec<GuardCase>, chosen: &[Term], values: &[Term], updates: &[Update]) -> Vec<Transition> {
    let mut out = vec![];
    for case in cases {
        let new = [case.exists.clone(), chosen.to_vec()].concat();
        for (map, kept) in identifications(&new, params) {
            let all = [params.to_vec(), kept].concat();
            let distinct = distinctness(&all);
            let apply = |t: &Term, map: &HashMap<Term, Term>| substitute(&substitute(t, map), &distinct);
            let guard = apply(&Term::and(case.lits.clone()), &map);
            if guard.as_bool() == Some(false) {
                continue;
            }
            let uguard = match case.univ.first() {
                None => None,
                Some((j, _)) => {
                    let parts = case.univ.iter().map(|(v, b)| {
                        let mut m = map.clone();
                        m.insert(v.clone(), j.clone());
                        apply(b, &m)
                    });
                    let body = Term::and(parts);
                    match body.as_bool() {
                        Some(true) => None,
                        Some(false) => continue,
                        None => Some((j.clone(), body)),
                    }
                }
            };
            let updates = updates.iter().map(|u| Update { var: u.var, value: apply(&u.value, &map) }).collect();
            out.push(Transition { name: name.to_string(), params: all, values: values.to_vec(), guard, uguard, updates, checks: None });
        }
    }
    if out.len() > 1 {
        for (k, tr) in out.iter_mut().enumerate() {
            tr.name = format!("{name}.{}", k + 1);
        }
    }
    out
}

/// `t` as a term of sort `want`, if it fits (an integer literal fits Real).
pub(super) fn coerce(t: &Term, want: &Sort) -> Option<Term> {
    if t.sort().compatible(want) {
        return Some(t.clone());
    }
    match (t.as_int(), want) {
        (Some(n), Sort::Real) => Some(Term::real(n, 1)),
        _ => None,
    }
}
