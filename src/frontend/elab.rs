//! Elaboration: from s-expressions to sorted, simplified [`Term`]s.
//!
//! An [`Env`] maps symbols to what they stand for (state variables,
//! constants, bound index variables, enumeration constants) and sort names
//! to sorts. Elaboration type-checks every application and reports the
//! first problem at the offending node. Terms are built only with the
//! simplifying constructors of [`Term`].

use super::sexp::{Sexp, SexpKind};
use super::Diagnostic;
use crate::logic::{Sort, Term};
use crate::HashMap;

/// What a symbol stands for.
#[derive(Clone, Debug)]
pub enum Binding {
    /// A term standing for itself: a bound variable, a constant, an
    /// enumeration constant, a scalar or array state variable.
    Term(Term),
    /// An MCMT global: a scalar that may also be read as `g[i]` (meaning `g`).
    Global(Term),
}

impl Binding {
    fn term(&self) -> &Term {
        match self {
            Binding::Term(t) | Binding::Global(t) => t,
        }
    }
}

/// The operators elaboration knows.
const OPERATORS: &[&str] = &[
    "and", "or", "not", "=>", "implies", "ite", "=", "distinct", "<", "<=", ">", ">=", "+", "-", "*", "div", "mod", "/", "select", "store", "forall", "exists",
    "lambda", "let", "!",
];

/// An application of a declared predicate (constrained Horn clauses),
/// elaborated as an opaque Boolean atom: its marker.
#[derive(Clone, Debug)]
pub struct Application {
    /// The predicate's name.
    pub predicate: String,
    /// The arguments, of the predicate's argument sorts.
    pub args: Vec<Term>,
    /// The Boolean symbol standing for the application in the elaborated
    /// term (its name contains `|`, which no input symbol can).
    pub marker: Term,
    /// Byte offset of the first application written this way.
    pub at: usize,
}

/// Whether `name` is an operator or a Boolean literal (and cannot name a
/// symbol). SMT-LIB's annotation `!` is an operator only at the head of an
/// application: MCMT files name variables `!`.
pub fn is_reserved(name: &str) -> bool {
    (OPERATORS.contains(&name) && name != "!") || name == "true" || name == "false"
}

/// Whether a term of sort `found` may stand where `want` is expected:
/// [`Sort::compatible`], extended to arrays with compatible elements.
pub fn fits(found: &Sort, want: &Sort) -> bool {
    match (found.as_array(), want.as_array()) {
        (Some(f), Some(w)) => f.index == w.index && fits(&f.elem, &w.elem),
        _ => found.compatible(want),
    }
}

/// A short one-line excerpt of a node's source text, for messages.
pub fn excerpt(src: &str, e: &Sexp) -> String {
    let text: String = e.text(src).split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() > 60 {
        format!("{}...", text.chars().take(57).collect::<String>())
    } else {
        text
    }
}

/// An elaboration environment over one source text.
pub struct Env<'a> {
    src: &'a str,
    names: HashMap<String, Vec<Binding>>,
    scopes: Vec<Vec<String>>,
    sorts: HashMap<String, Sort>,
    index_sort: Sort,
    /// MCMT: integer literals may stand for process indices.
    index_literals: bool,
    /// MCMT: `(t v)` may be read as `(= t v)`.
    loose_applications: bool,
    /// Canonical form: products of non-literals, `div` and `mod` by
    /// non-literals and C's bitwise operators (`band.s32` …) are read.
    nonlinear: bool,
    /// Horn clauses: nested arrays are arrays of several indices (read
    /// and written a level at a time), and C's bitwise operators are read
    /// in their bit-vector form ([`crate::smt::smtlib::term`]).
    horn: bool,
    /// The process constants `#n` created for integer literals used as indices.
    process_consts: Vec<(i64, Term)>,
    /// Remarks on loose readings.
    warnings: Vec<Diagnostic>,
    /// Declared predicates (Horn clauses) and their argument sorts.
    predicates: HashMap<String, Vec<Sort>>,
    /// The predicate applications elaborated so far, each once.
    applications: Vec<Application>,
}

impl<'a> Env<'a> {
    /// An empty environment for `src` whose process indices have sort `index_sort`
    /// (named `proc` in binders).
    pub fn new(src: &'a str, index_sort: Sort) -> Self {
        let mut sorts = HashMap::default();
        sorts.insert("proc".to_string(), index_sort.clone());
        Env {
            src,
            names: HashMap::default(),
            scopes: vec![vec![]],
            sorts,
            index_sort,
            index_literals: false,
            loose_applications: false,
            nonlinear: false,
            horn: false,
            process_consts: vec![],
            warnings: vec![],
            predicates: HashMap::default(),
            applications: vec![],
        }
    }

    /// Declares a predicate of Horn clauses: its applications elaborate to
    /// markers ([`Application`]).
    pub fn declare_predicate(&mut self, name: &str, sorts: Vec<Sort>) {
        self.predicates.insert(name.to_string(), sorts);
    }

    /// Forgets the applications elaborated so far (their markers are reused).
    pub fn clear_applications(&mut self) {
        self.applications.clear();
    }

    /// The application a marker stands for.
    pub fn application(&self, marker: &Term) -> Option<&Application> {
        self.applications.iter().find(|a| a.marker == *marker)
    }

    /// The marker of `predicate(args)` (one per distinct application),
    /// written at byte offset `at`.
    pub fn apply_predicate(&mut self, predicate: &str, args: Vec<Term>, at: usize) -> Term {
        if let Some(a) = self.applications.iter().find(|a| a.predicate == predicate && a.args == args) {
            return a.marker.clone();
        }
        let marker = Term::var(&format!("{predicate}|{}", self.applications.len()), Sort::Bool);
        self.applications.push(Application { predicate: predicate.to_string(), args, marker: marker.clone(), at });
        marker
    }

    /// When on, an integer literal `n` where a process index of the
    /// order-only sort is expected stands for the rigid process constant
    /// `#n` (MCMT indices are integers: `(= h[x] 1)` names process 1).
    pub fn set_index_literals(&mut self, on: bool) {
        self.index_literals = on;
    }

    /// When on, an application `(t v)` of a non-function term `t` (an
    /// array read or a declared symbol) to a literal `v` is read as
    /// `(= t v)`, with a warning (a sloppy form found in MCMT files).
    pub fn set_loose_applications(&mut self, on: bool) {
        self.loose_applications = on;
    }
    /// Whether non-linear arithmetic and C's bitwise operators are read
    /// (the canonical form of lowered C programs).
    pub fn set_nonlinear(&mut self, on: bool) {
        self.nonlinear = on;
    }

    /// Whether Horn clauses' arrays of arrays and bit-vector forms of C's
    /// bitwise operators are read (see [`Env`]'s `horn`).
    pub fn set_horn(&mut self, on: bool) {
        self.horn = on;
    }

    /// The process constants `#n` created so far, ordered by `n`.
    pub fn process_consts(&self) -> Vec<Term> {
        let mut cs = self.process_consts.clone();
        cs.sort_by_key(|(n, _)| *n);
        cs.into_iter().map(|(_, t)| t).collect()
    }

    /// Takes the warnings about loose readings collected so far.
    pub fn take_warnings(&mut self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.warnings)
    }

    /// The source text diagnostics refer to.
    pub fn src(&self) -> &'a str {
        self.src
    }

    /// The sort of process indices.
    pub fn index_sort(&self) -> &Sort {
        &self.index_sort
    }

    /// A diagnostic located at the start of `e`.
    pub fn error(&self, e: &Sexp, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.src, e.start, msg)
    }

    /// Makes `name` denote `sort` in sort positions.
    pub fn define_sort(&mut self, name: &str, sort: Sort) {
        self.sorts.insert(name.to_string(), sort);
    }

    /// The sort a name denotes.
    pub fn lookup_sort(&self, name: &str) -> Option<&Sort> {
        self.sorts.get(name)
    }

    /// Binds `name` in the innermost open scope (shadowing outer bindings).
    pub fn bind(&mut self, name: &str, b: Binding) {
        self.names.entry(name.to_string()).or_default().push(b);
        self.scopes.last_mut().expect("the outermost scope is never closed").push(name.to_string());
    }

    /// What `name` currently stands for.
    pub fn lookup(&self, name: &str) -> Option<&Binding> {
        self.names.get(name).and_then(|v| v.last())
    }

    /// Opens a scope for local bindings.
    pub fn push_scope(&mut self) {
        self.scopes.push(vec![]);
    }

    /// Closes the innermost scope, dropping its bindings (the outermost scope stays).
    pub fn pop_scope(&mut self) {
        if self.scopes.len() > 1 {
            for name in self.scopes.pop().unwrap_or_default() {
                if let Some(v) = self.names.get_mut(&name) {
                    v.pop();
                }
            }
        }
    }

    /// Elaborates a sort: a declared name or `(Array S1 … Sn E)`.
    pub fn sort(&self, e: &Sexp) -> Result<Sort, Diagnostic> {
        match &e.kind {
            SexpKind::Symbol(s) => self.sorts.get(s).cloned().ok_or_else(|| self.error(e, format!("undeclared type '{s}'"))),
            SexpKind::List(items) if items.len() >= 3 && items[0].symbol() == Some("Array") => {
                let sorts = items[1..].iter().map(|s| self.sort(s)).collect::<Result<Vec<_>, _>>()?;
                let (elem, index) = sorts.split_last().expect("at least two sorts");
                match elem.as_array() {
                    // an array of arrays: one array of all their indices
                    Some(inner) if self.horn => Ok(Sort::array([index, &inner.index[..]].concat(), inner.elem.clone())),
                    _ => Ok(Sort::array(index.to_vec(), elem.clone())),
                }
            }
            _ => Err(self.error(e, format!("expected a type, found '{}'", excerpt(self.src, e)))),
        }
    }

    /// Elaborates binders `((x S) …)` into fresh variables (not yet bound).
    pub fn binders(&self, e: &Sexp) -> Result<Vec<Term>, Diagnostic> {
        let items = e.list().ok_or_else(|| self.error(e, "expected a list of variable declarations ((x S) ...)"))?;
        self.binder_items(items)
    }

    /// Elaborates the declarations `(x S) …` of a binder list into fresh,
    /// pairwise distinct variables (not yet bound).
    pub fn binder_items(&self, items: &[Sexp]) -> Result<Vec<Term>, Diagnostic> {
        let mut vars: Vec<Term> = vec![];
        for b in items {
            match b.list() {
                Some([name, sort]) => {
                    let n = name.symbol().ok_or_else(|| self.error(name, "expected a variable name"))?;
                    if is_reserved(n) {
                        return Err(self.error(name, format!("'{n}' is reserved and cannot name a variable")));
                    }
                    if vars.iter().any(|v| v.var_name() == Some(n)) {
                        return Err(self.error(name, format!("repeated variable '{n}'")));
                    }
                    vars.push(Term::var(n, self.sort(sort)?));
                }
                _ => return Err(self.error(b, "expected a variable declaration (x S)")),
            }
        }
        Ok(vars)
    }

    /// Elaborates a formula (a term of sort Bool).
    pub fn formula(&mut self, e: &Sexp) -> Result<Term, Diagnostic> {
        let t = self.term(e)?;
        self.expect(e, t, &Sort::Bool, e)
    }

    /// Elaborates a term that must fit `sort` (integer literals become reals where a Real is expected).
    pub fn term_of_sort(&mut self, e: &Sexp, sort: &Sort) -> Result<Term, Diagnostic> {
        let t = self.term(e)?;
        self.expect(e, t, sort, e)
    }

    fn mismatch(&self, at: &Sexp, want: &dyn std::fmt::Display, found: &Sort, ctx: &Sexp) -> Diagnostic {
        self.error(at, format!("sort mismatch: expected {want}, found {found} in '{}'", excerpt(self.src, ctx)))
    }

    fn expect(&mut self, at: &Sexp, t: Term, want: &Sort, ctx: &Sexp) -> Result<Term, Diagnostic> {
        let t = match t.as_int() {
            Some(n) if *want == Sort::Real => Term::real(n, 1),
            Some(n) if *want == Sort::Index && self.index_literals => self.process_const(n),
            _ => t,
        };
        if fits(t.sort(), want) {
            Ok(t)
        } else {
            Err(self.mismatch(at, want, t.sort(), ctx))
        }
    }

    /// The process constant `#n`.
    fn process_const(&mut self, n: i64) -> Term {
        let c = Term::var(&format!("#{n}"), Sort::Index);
        if !self.process_consts.iter().any(|(m, _)| *m == n) {
            self.process_consts.push((n, c.clone()));
        }
        c
    }

    /// Elaborates any term.
    pub fn term(&mut self, e: &Sexp) -> Result<Term, Diagnostic> {
        match &e.kind {
            SexpKind::Int(n) => Ok(Term::int(*n)),
            SexpKind::Decimal(n, d) => Ok(Term::real(*n, *d)),
            SexpKind::Str(_) => Err(self.error(e, "unexpected string literal in a formula")),
            SexpKind::Keyword(k) => Err(self.error(e, format!("unexpected keyword ':{k}' inside a formula"))),
            SexpKind::Symbol(s) => match s.as_str() {
                "true" => Ok(Term::tt()),
                "false" => Ok(Term::ff()),
                _ if self.lookup(s).is_none() && self.predicates.get(s).is_some_and(|a| a.is_empty()) => Ok(self.apply_predicate(s, vec![], e.start)),
                _ => match self.lookup(s) {
                    Some(b) => Ok(b.term().clone()),
                    None if OPERATORS.contains(&s.as_str()) => Err(self.error(e, format!("operator '{s}' used without arguments"))),
                    None => Err(self.error(e, format!("undeclared symbol '{s}'"))),
                },
            },
            SexpKind::Select(arr, idx) => self.read(arr, idx, e),
            SexpKind::List(items) => self.app(e, items),
        }
    }

    /// `name[i1, …]`: an array read, or an MCMT global read with a (meaningless) index.
    fn read(&mut self, arr: &Sexp, idx: &[Sexp], e: &Sexp) -> Result<Term, Diagnostic> {
        let name = arr.symbol().ok_or_else(|| self.error(arr, "expected an array name before '['"))?;
        let binding = self.lookup(name).cloned().ok_or_else(|| self.error(arr, format!("undeclared array '{name}'")))?;
        match binding {
            Binding::Global(g) => {
                let [i] = idx else {
                    return Err(self.error(e, format!("global '{name}' is read with {} indices, expected 1", idx.len())));
                };
                let index_sort = self.index_sort.clone();
                self.term_of_sort(i, &index_sort)?;
                Ok(g)
            }
            Binding::Term(a) => {
                let Some(asort) = a.sort().as_array() else {
                    return Err(self.error(arr, format!("'{name}' is not an array")));
                };
                if asort.index.len() != idx.len() {
                    return Err(self.error(e, format!("array '{name}' takes {} indices, found {}", asort.index.len(), idx.len())));
                }
                let want = asort.index.clone();
                let idx = idx.iter().zip(&want).map(|(i, s)| self.term_of_sort(i, s)).collect::<Result<Vec<_>, _>>()?;
                Ok(Term::select(&a, &idx))
            }
        }
    }

    fn arity(&self, e: &Sexp, op: &str, args: &[Sexp], min: usize, max: Option<usize>) -> Result<(), Diagnostic> {
        let n = args.len();
        let ok = n >= min && max.is_none_or(|m| n <= m);
        if ok {
            return Ok(());
        }
        let want = match max {
            Some(m) if m == min => format!("{min}"),
            Some(m) => format!("{min} to {m}"),
            None => format!("at least {min}"),
        };
        Err(self.error(e, format!("'{op}' expects {want} arguments, found {n}")))
    }

    /// Elaborates `args` to terms of one common sort (promoting integer
    /// literals to Real when some argument is Real); returns the terms and
    /// the sort.
    fn same_sort(&mut self, app: &Sexp, args: &[Sexp]) -> Result<(Vec<Term>, Sort), Diagnostic> {
        let mut terms = args.iter().map(|a| self.term(a)).collect::<Result<Vec<_>, _>>()?;
        let real = terms.iter().any(|t| *t.sort() == Sort::Real);
        let reference = match terms.iter().find(|t| !t.is_value()) {
            _ if real => Sort::Real,
            Some(t) => t.sort().clone(),
            None => terms[0].sort().clone(),
        };
        for (t, a) in terms.iter_mut().zip(args) {
            *t = self.expect(a, t.clone(), &reference, app)?;
        }
        Ok((terms, reference))
    }

    fn numeric(&mut self, app: &Sexp, args: &[Sexp]) -> Result<Vec<Term>, Diagnostic> {
        let (terms, sort) = self.same_sort(app, args)?;
        if !sort.is_numeric() {
            return Err(self.mismatch(&args[0], &"a number", &sort, app));
        }
        Ok(terms)
    }

    fn chain(terms: &[Term], f: fn(&Term, &Term) -> Term) -> Term {
        Term::and(terms.windows(2).map(|w| f(&w[0], &w[1])))
    }

    fn nonzero_literal(&self, at: &Sexp, t: &Term) -> Result<(), Diagnostic> {
        if !t.is_value() || *t == Term::int(0) || *t == Term::real(0, 1) {
            return Err(self.error(at, "the divisor must be a non-zero number literal (linear arithmetic)"));
        }
        Ok(())
    }

    fn folds(&self, e: &Sexp, ok: bool) -> Result<(), Diagnostic> {
        if ok {
            Ok(())
        } else {
            Err(self.error(e, "constant arithmetic overflows 64-bit integers"))
        }
    }

    /// An application `(head args…)`: a loose equation, a constant array,
    /// a predicate or a bitwise operator by its head, else an operator of
    /// one of the families below.
    fn app(&mut self, e: &Sexp, items: &[Sexp]) -> Result<Term, Diagnostic> {
        let Some((head, args)) = items.split_first() else {
            return Err(self.error(e, "empty application '()'"));
        };
        let literal = |e: &Sexp| matches!(e.kind, SexpKind::Int(_) | SexpKind::Decimal(..)) || matches!(e.symbol(), Some("true" | "false"));
        let applicable = match &head.kind {
            SexpKind::Select(..) => true,
            SexpKind::Symbol(s) => self.lookup(s).is_some(),
            _ => false,
        };
        if self.loose_applications && applicable && args.len() == 1 && literal(&args[0]) {
            let (ts, _) = self.same_sort(e, items)?;
            let (t, v) = (excerpt(self.src, head), excerpt(self.src, &args[0]));
            self.warnings.push(self.error(e, format!("read '({t} {v})' as '(= {t} {v})'")));
            return Ok(Term::eq(&ts[0], &ts[1]));
        }
        if let Some(sort) = self.constant_array_sort(head)? {
            return self.constant_array(e, &sort, args);
        }
        if let Some(sorts) = head.symbol().filter(|s| self.lookup(s).is_none()).and_then(|s| self.predicates.get(s)) {
            return self.predicate_application(e, head, sorts.clone(), args);
        }
        if let Some(to_int) = head.symbol().filter(|s| self.horn && self.lookup(s).is_none() && BV_TO_INT.contains(s)) {
            return self.bitwise(e, to_int, args);
        }
        if let (true, Some(b)) = (self.nonlinear, head.symbol().and_then(crate::logic::Bits::parse)) {
            self.arity(e, &b.name(), args, 2, Some(2))?;
            let ts = self.numeric(e, args)?;
            return Ok(Term::bits(b, &ts[0], &ts[1]));
        }
        let op = match &head.kind {
            SexpKind::Symbol(s) if OPERATORS.contains(&s.as_str()) => s.as_str(),
            SexpKind::Symbol(s) if self.lookup(s).is_some() || s == "true" || s == "false" => return Err(self.error(head, format!("'{s}' is not a function"))),
            SexpKind::Symbol(s) => return Err(self.error(head, format!("unknown function '{s}'"))),
            _ => return Err(self.error(head, format!("'{}' is not a function", excerpt(self.src, head)))),
        };
        match op {
            "not" | "and" | "or" | "=>" | "implies" | "ite" | "=" | "distinct" => self.logical(e, op, args),
            "<" | "<=" | ">" | ">=" | "+" | "-" | "*" | "div" | "mod" | "/" => self.arithmetic(e, op, args),
            "select" | "store" => self.array_access(e, op, args),
            "let" => self.let_binding(e, args),
            "!" => {
                // an annotated term `(! t :key value …)`: the attributes do not change `t`
                self.arity(e, op, args, 1, None)?;
                self.term(&args[0])
            }
            "forall" | "exists" | "lambda" => self.binder(e, op, args),
            _ => unreachable!("every operator is handled"),
        }
    }

    /// A connective, a conditional term, an equation or `distinct`.
    fn logical(&mut self, e: &Sexp, op: &str, args: &[Sexp]) -> Result<Term, Diagnostic> {
        match op {
            "not" => {
                self.arity(e, op, args, 1, Some(1))?;
                Ok(self.formula(&args[0])?.not())
            }
            "and" | "or" => {
                let fs = args.iter().map(|a| self.formula(a)).collect::<Result<Vec<_>, _>>()?;
                Ok(if op == "and" { Term::and(fs) } else { Term::or(fs) })
            }
            "=>" | "implies" => {
                self.arity(e, op, args, 2, None)?;
                let fs = args.iter().map(|a| self.formula(a)).collect::<Result<Vec<_>, _>>()?;
                let (last, init) = fs.split_last().expect("at least two arguments");
                Ok(init.iter().rev().fold(last.clone(), |acc, a| Term::implies(a, &acc)))
            }
            "ite" => {
                self.arity(e, op, args, 3, Some(3))?;
                let c = self.formula(&args[0])?;
                let (bs, _) = self.same_sort(e, &args[1..])?;
                Ok(Term::ite(&c, &bs[0], &bs[1]))
            }
            "=" | "distinct" => {
                self.arity(e, op, args, 2, None)?;
                let (ts, _) = self.same_sort(e, args)?;
                Ok(if op == "=" { Self::chain(&ts, Term::eq) } else { Term::distinct(&ts) })
            }
            _ => unreachable!("logical operators only"),
        }
    }

    /// A comparison (of numbers or process indices) or an arithmetic
    /// operation, linear unless non-linear arithmetic is allowed, with
    /// constant arithmetic that must not overflow.
    fn arithmetic(&mut self, e: &Sexp, op: &str, args: &[Sexp]) -> Result<Term, Diagnostic> {
        match op {
            "<" | "<=" | ">" | ">=" => {
                self.arity(e, op, args, 2, None)?;
                let (ts, sort) = self.same_sort(e, args)?;
                if !sort.is_numeric() && sort != Sort::Index {
                    return Err(self.mismatch(&args[0], &"a number or a process index", &sort, e));
                }
                let f: fn(&Term, &Term) -> Term = match op {
                    "<" => Term::lt,
                    "<=" => Term::le,
                    ">" => Term::gt,
                    _ => Term::ge,
                };
                Ok(Self::chain(&ts, f))
            }
            "+" => {
                self.arity(e, op, args, 1, None)?;
                let ts = self.numeric(e, args)?;
                self.folds(e, fold::sum(&ts))?;
                Ok(Term::add(ts))
            }
            "-" => {
                self.arity(e, op, args, 1, None)?;
                let ts = self.numeric(e, args)?;
                match ts.split_first() {
                    Some((a, [])) => Ok(a.neg()),
                    Some((a, rest)) => {
                        let ts: Vec<Term> = std::iter::once(a.clone()).chain(rest.iter().map(|t| t.neg())).collect();
                        self.folds(e, fold::sum(&ts))?;
                        Ok(Term::add(ts))
                    }
                    None => unreachable!("arity checked"),
                }
            }
            "*" => {
                self.arity(e, op, args, 1, None)?;
                let ts = self.numeric(e, args)?;
                if !self.nonlinear && ts.iter().filter(|t| !t.is_value()).count() > 1 {
                    return Err(self.error(e, "non-linear product: at most one factor may be a non-literal"));
                }
                self.folds(e, fold::product(&ts))?;
                Ok(Term::mul(ts))
            }
            "div" | "mod" => {
                self.arity(e, op, args, 2, Some(2))?;
                let ts = self.numeric(e, args)?;
                if !ts[0].sort().is_int_like() {
                    return Err(self.mismatch(&args[0], &Sort::Int, ts[0].sort(), e));
                }
                if !self.nonlinear || ts[1].is_value() {
                    self.nonzero_literal(&args[1], &ts[1])?;
                }
                Ok(if op == "div" { Term::div(&ts[0], &ts[1]) } else { Term::modulo(&ts[0], &ts[1]) })
            }
            "/" => {
                self.arity(e, op, args, 2, Some(2))?;
                let a = self.term_of_sort(&args[0], &Sort::Real)?;
                let b = self.term_of_sort(&args[1], &Sort::Real)?;
                self.nonzero_literal(&args[1], &b)?;
                self.folds(e, fold::quotient(&a, &b))?;
                Ok(Term::div(&a, &b))
            }
            _ => unreachable!("arithmetic operators only"),
        }
    }

    /// `select` or `store`, with one index per dimension of the array.
    fn array_access(&mut self, e: &Sexp, op: &str, args: &[Sexp]) -> Result<Term, Diagnostic> {
        self.arity(e, op, args, if op == "select" { 2 } else { 3 }, None)?;
        let a = self.term(&args[0])?;
        let Some(asort) = a.sort().as_array().cloned() else {
            return Err(self.error(&args[0], format!("'{}' is not an array", excerpt(self.src, &args[0]))));
        };
        let nidx = asort.index.len();
        let given = if op == "select" { args.len() - 1 } else { args.len() - 2 };
        // an array of several indices is read and written a level at a time in Horn clauses
        if given != nidx && !(self.horn && (1..nidx).contains(&given)) {
            let want = if op == "select" { nidx + 1 } else { nidx + 2 };
            return Err(self.error(e, format!("'{op}' on this array expects {want} arguments, found {}", args.len())));
        }
        let idx = args[1..=given].iter().zip(&asort.index).map(|(i, s)| self.term_of_sort(i, s)).collect::<Result<Vec<_>, _>>()?;
        let rest = Sort::array(asort.index[given..].to_vec(), asort.elem.clone());
        match op {
            "select" if given < nidx => Ok(row(&a, &idx)),
            "select" => Ok(Term::select(&a, &idx)),
            _ if given < nidx => {
                let v = self.term_of_sort(&args[given + 1], &rest)?;
                Ok(store_row(&a, &idx, &v))
            }
            _ => {
                let v = self.term_of_sort(&args[nidx + 1], &asort.elem)?;
                Ok(Term::store(&a, &idx, &v))
            }
        }
    }

    /// `(ubv_to_int (bvand ((_ int_to_bv w) x) ((_ int_to_bv w) y)))` and
    /// the like (`sbv_to_int`; `bvor`, `bvxor`; z3's `bv2nat`, `bv2int`,
    /// `int2bv`): C's bitwise operator on `w`-bit words, the only
    /// bit-vector terms read.
    fn bitwise(&mut self, e: &Sexp, to_int: &str, args: &[Sexp]) -> Result<Term, Diagnostic> {
        let form = "bit-vectors are read only as C's bitwise operators: (ubv_to_int (bvand ((_ int_to_bv w) x) ((_ int_to_bv w) y))), sbv_to_int for a signed result, bvor or bvxor for bvand";
        let op = match args {
            [op] => op,
            _ => return Err(self.error(e, form)),
        };
        let kind = match op.head() {
            Some("bvand") => crate::logic::BitKind::And,
            Some("bvor") => crate::logic::BitKind::Or,
            Some("bvxor") => crate::logic::BitKind::Xor,
            _ => return Err(self.error(op, form)),
        };
        let Some([_, x, y]) = op.list() else {
            return Err(self.error(op, form));
        };
        let mut words = vec![];
        for w in [x, y] {
            let conversion = match w.list() {
                Some([f, arg]) => f
                    .list()
                    .filter(|f| f.len() == 3 && f[0].symbol() == Some("_") && matches!(f[1].symbol(), Some("int_to_bv" | "int2bv")))
                    .map(|f| (&f[2], arg)),
                _ => None,
            };
            let Some((width, arg)) = conversion else {
                return Err(self.error(w, form));
            };
            let width = match width.kind {
                SexpKind::Int(n) if (1..=64).contains(&n) => n as u8,
                _ => return Err(self.error(width, "a word width from 1 to 64 bits")),
            };
            words.push((width, self.term_of_sort(arg, &Sort::Int)?));
        }
        if words[0].0 != words[1].0 {
            return Err(self.error(op, "the two words of a bitwise operator have different widths"));
        }
        let b = crate::logic::Bits { kind, width: words[0].0, signed: to_int == "sbv_to_int" };
        Ok(Term::bits(b, &words[0].1, &words[1].1))
    }

    /// `forall`, `exists` or `lambda`: its variables bound in a scope of
    /// their own while the body is elaborated.
    fn binder(&mut self, e: &Sexp, op: &str, args: &[Sexp]) -> Result<Term, Diagnostic> {
        self.arity(e, op, args, 2, Some(2))?;
        let vars = self.binders(&args[0])?;
        self.push_scope();
        for v in &vars {
            self.bind(v.var_name().expect("a variable"), Binding::Term(v.clone()));
        }
        let body = if op == "lambda" { self.term(&args[1]) } else { self.formula(&args[1]) };
        self.pop_scope();
        let body = body?;
        Ok(match op {
            "forall" => Term::forall(&vars, &body),
            "exists" => Term::exists(&vars, &body),
            _ => Term::lambda(&vars, &body),
        })
    }
}

/// The conversions from a bit-vector to an integer read (see [`Env::set_horn`]).
const BV_TO_INT: &[&str] = &["ubv_to_int", "sbv_to_int", "bv2nat", "bv2int"];

/// The bound variables of array terms the elaborator builds (named with
/// `|`, which no input symbol contains, so no capture): `j|d` for index `d`.
fn index_vars(sorts: &[Sort], from: usize) -> Vec<Term> {
    sorts.iter().enumerate().map(|(d, s)| Term::var(&format!("j|{}", from + d), s.clone())).collect()
}

/// The row `a[ī]` of an array of more indices than `ī`: `λj̄. a[ī, j̄]`.
fn row(a: &Term, idx: &[Term]) -> Term {
    let index = &a.sort().as_array().expect("an array").index;
    let js = index_vars(&index[idx.len()..], idx.len());
    Term::lambda(&js, &Term::select(a, &[idx, &js[..]].concat()))
}

/// `a` with its row `a[ī]` replaced by `r`: writes into the row itself
/// (`(store a i (store (select a i) j v))`) as writes into `a`, else
/// `λk̄ j̄. ite(k̄ = ī, r[j̄], a[k̄, j̄])`.
fn store_row(a: &Term, idx: &[Term], r: &Term) -> Term {
    if *r == row(a, idx) {
        return a.clone();
    }
    if matches!(r.op(), crate::logic::Op::Store) {
        let args = r.args();
        let (inner, at, v) = (&args[0], &args[1..args.len() - 1], &args[args.len() - 1]);
        return Term::store(&store_row(a, idx, inner), &[idx, at].concat(), v);
    }
    let index = &a.sort().as_array().expect("an array").index;
    let ks = index_vars(index, 0);
    let (outer, inner) = ks.split_at(idx.len());
    let here = Term::and(outer.iter().zip(idx).map(|(k, i)| Term::eq(k, i)));
    Term::lambda(&ks, &Term::ite(&here, &Term::select(r, inner), &Term::select(a, &ks)))
}

impl Env<'_> {
    /// The array sort of a constant-array head `(as const S)`, if `head` is one.
    fn constant_array_sort(&self, head: &Sexp) -> Result<Option<Sort>, Diagnostic> {
        match head.list() {
            Some([as_, c, s]) if as_.symbol() == Some("as") && c.symbol() == Some("const") => {
                let sort = self.sort(s)?;
                if sort.as_array().is_none() {
                    return Err(self.error(s, format!("a constant array needs an array sort, found {sort}")));
                }
                Ok(Some(sort))
            }
            _ => Ok(None),
        }
    }

    /// `((as const S) v)`: the array of sort `S` holding `v` everywhere, as
    /// `λ j̄. v`.
    fn constant_array(&mut self, e: &Sexp, sort: &Sort, args: &[Sexp]) -> Result<Term, Diagnostic> {
        self.arity(e, "(as const ...)", args, 1, Some(1))?;
        let asort = sort.as_array().expect("an array sort").clone();
        let vars = index_vars(&asort.index, 0);
        let v = self.term(&args[0])?;
        // in Horn clauses, the value of an array of arrays is an array (its first index nested away)
        match v.sort().as_array() {
            Some(inner) if self.horn && asort.index.len() == 1 + inner.index.len() => {
                let v = self.expect(&args[0], v.clone(), &Sort::array(asort.index[1..].to_vec(), asort.elem.clone()), e)?;
                Ok(Term::lambda(&vars, &Term::select(&v, &vars[1..])))
            }
            _ => {
                let v = self.expect(&args[0], v, &asort.elem, e)?;
                Ok(Term::lambda(&vars, &v))
            }
        }
    }

    /// `(p a1 … an)` for a declared predicate `p`: its marker.
    fn predicate_application(&mut self, e: &Sexp, head: &Sexp, sorts: Vec<Sort>, args: &[Sexp]) -> Result<Term, Diagnostic> {
        let name = head.symbol().expect("a predicate name");
        if args.len() != sorts.len() {
            return Err(self.error(e, format!("predicate '{name}' takes {} arguments, found {}", sorts.len(), args.len())));
        }
        let args = args.iter().zip(&sorts).map(|(a, s)| self.term_of_sort(a, s)).collect::<Result<Vec<_>, _>>()?;
        Ok(self.apply_predicate(name, args, e.start))
    }

    /// `(let ((x1 t1) … (xn tn)) body)`: the bindings are elaborated in the
    /// outer scope (in parallel), then the body with them.
    fn let_binding(&mut self, e: &Sexp, args: &[Sexp]) -> Result<Term, Diagnostic> {
        self.arity(e, "let", args, 2, Some(2))?;
        let items = args[0].list().filter(|l| !l.is_empty()).ok_or_else(|| self.error(&args[0], "expected a list of bindings ((x t) ...)"))?;
        let mut bound: Vec<(String, Term)> = vec![];
        for b in items {
            let Some([name, value]) = b.list() else {
                return Err(self.error(b, "expected a binding (x t)"));
            };
            let n = name.symbol().ok_or_else(|| self.error(name, "expected a variable name"))?;
            if is_reserved(n) {
                return Err(self.error(name, format!("'{n}' is reserved and cannot name a variable")));
            }
            if bound.iter().any(|(m, _)| m == n) {
                return Err(self.error(name, format!("'{n}' is bound twice in one let")));
            }
            bound.push((n.to_string(), self.term(value)?));
        }
        self.push_scope();
        for (n, t) in bound {
            self.bind(&n, Binding::Term(t));
        }
        let body = self.term(&args[1]);
        self.pop_scope();
        body
    }
}

/// Checks, before calling the term constructors, that folding the number
/// literals of an arithmetic term stays within 64-bit integers (the
/// constructors compute in `i64`). Each check replays the constructor's
/// folding in `i128`. Shared by the front ends.
pub(crate) mod fold {
    use crate::logic::{Op, Term};

    fn small(x: i128) -> Option<i128> {
        (x.abs() <= i64::MAX as i128).then_some(x)
    }

    fn gcd(a: i128, b: i128) -> i128 {
        let (mut a, mut b) = (a.abs(), b.abs());
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a.max(1)
    }

    fn rational(t: &Term) -> Option<(i128, i128)> {
        match t.op() {
            Op::Int(n) => Some((*n as i128, 1)),
            Op::Real(n, d) => Some((*n as i128, *d as i128)),
            _ => None,
        }
    }

    /// Whether the literals of a sum (and of the sums it flattens) fold safely.
    pub fn sum(ts: &[Term]) -> bool {
        let flat = ts.iter().flat_map(|t| if let Op::Add = t.op() { t.args() } else { std::slice::from_ref(t) });
        let (mut num, mut den) = (0i128, 1i128);
        for (n, d) in flat.filter_map(rational) {
            let step = || {
                let s = small(small(num * d)? + small(n * den)?)?;
                let dd = small(den * d)?;
                let g = gcd(s, dd);
                Some((s / g, dd / g))
            };
            match step() {
                Some(r) => (num, den) = r,
                None => return false,
            }
        }
        true
    }

    /// Whether the literals of a product fold safely.
    pub fn product(ts: &[Term]) -> bool {
        let (mut num, mut den) = (1i128, 1i128);
        for (n, d) in ts.iter().filter_map(rational) {
            match (small(num * n), small(den * d)) {
                (Some(a), Some(b)) => {
                    let g = gcd(a, b);
                    (num, den) = (a / g, b / g);
                }
                _ => return false,
            }
        }
        true
    }

    /// Whether a real quotient of literals folds safely.
    pub fn quotient(a: &Term, b: &Term) -> bool {
        match (rational(a), rational(b)) {
            (Some((n1, d1)), Some((n2, d2))) => small(n1 * d2).is_some() && small(d1 * n2).is_some(),
            _ => true,
        }
    }
}
