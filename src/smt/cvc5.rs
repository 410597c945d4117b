//! The cvc5 backend, through the `cvc5` crate (cvc5 1.4 C API).
//!
//! Ownership: since cvc5 1.4 the term manager is a reference-counted arena
//! and the crate's `Solver`, `Term` and `Sort` each hold their own reference
//! to it, so none of them borrows the `TermManager` binding and both can
//! live side by side in one struct without a lifetime.
//!
//! Terms are translated once and cached by term. Constants are declared on
//! demand; bound variables are first translated as constants and then
//! replaced by cvc5 bound variables at their binder (so a cached translation
//! is right in every context). cvc5's arrays have no lambda, so array
//! lambdas are removed beforehand: a lambda updating finitely many cells
//! (`λ i. ite(i = p, v, a[i])`) becomes writes (`a[p := v]`), a constant
//! lambda becomes a constant array (which needs cvc5's `arrays-exp`), reads
//! of a lambda are beta-reduced, and any other equation between arrays
//! involving a lambda becomes the pointwise equation under a fresh universal
//! quantifier (extensionality). cvc5 often answers `Unknown` (INCOMPLETE)
//! for satisfiable queries with such quantifiers.

use super::{enum_terms, guarded_body, range_fact, Backend, RangeFacts, SatResult, Solver};
use crate::logic::{free_vars, substitute, BitKind, Bits, EnumValues, Op, Sort, Term};
use crate::HashMap;
use cvc5::{Kind, TermManager};

/// An incremental cvc5 solver over arrax terms; it can also compute Craig
/// interpolants ([`Cvc5Solver::interpolant`]).
pub struct Cvc5Solver {
    tm: TermManager,
    solver: cvc5::Solver,
    cache: HashMap<Term, cvc5::Term>,
    sorts: HashMap<Sort, cvc5::Sort>,
    /// Every declared constant, to read cvc5 terms back.
    symbols: HashMap<cvc5::Term, Term>,
    /// Terms with their array lambdas removed.
    lambda_free: HashMap<Term, Term>,
    /// Whether a term contains an array lambda.
    has_lambda: HashMap<Term, bool>,
    /// Counter for fresh variable names.
    fresh: usize,
    ranges: RangeFacts,
    /// Per scope (the base one and one per `push`): why one of its
    /// assertions could not be translated, if one could not.
    errors: Vec<Option<String>>,
    /// Whether the last check was `Sat` and nothing changed since.
    sat: bool,
    /// The unsat core of the last check, if it was `Unsat`.
    core: Vec<Term>,
    /// Whether models and unsat assumptions are produced.
    explain: bool,
}

impl Default for Cvc5Solver {
    fn default() -> Self {
        Cvc5Solver::new()
    }
}

/// Sets cvc5 options, stopping at the first failure.
fn configure(s: &mut cvc5::Solver, options: &[(&str, &str)]) -> Result<(), String> {
    s.set_logic("ALL").map_err(|e| e.to_string())?;
    for (k, v) in options {
        s.set_option(k, v).map_err(|e| format!("option {k}={v}: {e}"))?;
    }
    Ok(())
}

impl Cvc5Solver {
    /// A fresh solver (logic ALL, models, unsat assumptions, incremental)
    /// with no assertions and no time limit.
    pub fn new() -> Self {
        Cvc5Solver::configured(true)
    }

    /// A fresh solver that only answers satisfiability: no models, no unsat
    /// assumptions ([`Solver::value`] and [`Solver::unsat_core`] give
    /// nothing). Producing unsat assumptions makes cvc5 track proofs in its
    /// CNF conversion, which about doubles the cost of small checks.
    pub fn unsat_only() -> Self {
        Cvc5Solver::configured(false)
    }

    fn configured(explain: bool) -> Self {
        let tm = TermManager::new();
        let mut solver = cvc5::Solver::new(&tm);
        let flag = if explain { "true" } else { "false" };
        let setup = configure(&mut solver, &[("produce-models", flag), ("produce-unsat-assumptions", flag), ("incremental", "true"), ("arrays-exp", "true")]);
        Cvc5Solver {
            tm,
            solver,
            cache: HashMap::default(),
            sorts: HashMap::default(),
            symbols: HashMap::default(),
            lambda_free: HashMap::default(),
            has_lambda: HashMap::default(),
            fresh: 0,
            ranges: RangeFacts::new(),
            errors: vec![setup.err()],
            sat: false,
            core: vec![],
            explain,
        }
    }

    /// A Craig interpolant of `a` and `b`: a formula `I` over the symbols
    /// they share with `a ⊨ I` and `I ∧ b` unsatisfiable (enumeration ranges
    /// included on both sides). `Ok(None)` when cvc5 finds none within
    /// `timeout_ms` milliseconds (0: no limit), e.g. because `a ∧ b` is
    /// satisfiable; `Err` when the formulas or the interpolant fall outside
    /// what arrax terms express. Uses a fresh internal cvc5 solver; the
    /// assertions of this one play no part.
    pub fn interpolant(&mut self, a: &Term, b: &Term, timeout_ms: u64) -> Result<Option<Term>, String> {
        let ca = self.with_ranges(a)?;
        let cb = self.with_ranges(b)?;
        let conj = self.tm.mk_term(Kind::Not, &[cb]).map_err(|e| e.to_string())?;
        let mut s = cvc5::Solver::new(&self.tm);
        // Verbosity -1 silences cvc5's SyGuS warnings on stderr.
        let limit = timeout_ms.to_string();
        // SyGuS enumeration does not always look at the clock: bound its
        // resources too (about a second's worth per millisecond budget unit)
        let resources = (timeout_ms.max(1) * 200).to_string();
        configure(
            &mut s,
            &[("produce-interpolants", "true"), ("tlimit-per", &limit), ("rlimit-per", &resources), ("arrays-exp", "true"), ("verbosity", "-1")],
        )?;
        s.assert_formula(ca).map_err(|e| e.to_string())?;
        // cvc5: assertions ⊨ I and I ⊨ conj, so I ∧ b is unsatisfiable.
        match s.get_interpolant(conj) {
            Ok(Some(i)) => self.back(&i, &mut HashMap::default()).map(Some),
            Ok(None) => Ok(None),
            Err(e) => Err(e.to_string()),
        }
    }

    /// The translation of a formula conjoined with all its range facts.
    fn with_ranges(&mut self, t: &Term) -> Result<cvc5::Term, String> {
        let t = self.lambda_free(t)?;
        let mut all: Vec<Term> = enum_terms(&t).iter().filter_map(range_fact).collect();
        all.push(t);
        self.tr_bool(&Term::and(all))
    }

    // ----- array lambdas -----

    fn has_lambda(&mut self, t: &Term) -> bool {
        if let Some(b) = self.has_lambda.get(t) {
            return *b;
        }
        let b = matches!(t.op(), Op::Lambda(_)) || t.args().iter().any(|a| self.has_lambda(a));
        self.has_lambda.insert(t.clone(), b);
        b
    }

    /// `t` without array lambdas (cached), except constant ones `λ vs. v`
    /// for a literal `v` (cvc5 constant arrays). A lambda that updates
    /// finitely many cells of an array, `λ i. ite(i = p, v, a[i])`, becomes
    /// writes `a[p := v]`; other lambdas must be read (beta-reduced) or
    /// compared (pointwise under a fresh `∀`), else `Err`.
    fn lambda_free(&mut self, t: &Term) -> Result<Term, String> {
        if !self.has_lambda(t) {
            return Ok(t.clone());
        }
        if let Some(r) = self.lambda_free.get(t) {
            return Ok(r.clone());
        }
        let args = t.args();
        let r = match t.op() {
            Op::Eq if args.len() == 2 && args[0].sort().as_array().is_some() => match (self.lambda_free(&args[0]), self.lambda_free(&args[1])) {
                (Ok(a), Ok(b)) => Term::eq(&a, &b),
                _ => {
                    let dims = args[0].sort().as_array().map(|a| a.index.clone()).unwrap_or_default();
                    let vs: Vec<Term> = dims
                        .iter()
                        .map(|s| {
                            self.fresh += 1;
                            Term::var(&format!("arrax!ext{}", self.fresh), s.clone())
                        })
                        .collect();
                    let pointwise = Term::eq(&read(&args[0], &vs), &read(&args[1], &vs));
                    self.lambda_free(&Term::forall(&vs, &pointwise))?
                }
            },
            Op::Select if args.len() >= 2 && self.has_lambda(&args[0]) && read(&args[0], &args[1..]) != *t => self.lambda_free(&read(&args[0], &args[1..]))?,
            Op::Lambda(vs) if args.len() == 1 => {
                let body = self.lambda_free(&args[0])?;
                match as_writes(vs, &body) {
                    Some(w) if matches!(w.op(), Op::Lambda(_)) => w,
                    Some(w) => self.lambda_free(&w)?,
                    None => return Err(format!("array lambda neither read nor compared: {t}")),
                }
            }
            _ => {
                let new = args.iter().map(|a| self.lambda_free(a)).collect::<Result<Vec<_>, _>>()?;
                t.rebuild(new)
            }
        };
        self.lambda_free.insert(t.clone(), r.clone());
        Ok(r)
    }

    // ----- translation to cvc5 -----

    fn err(e: cvc5::Error) -> String {
        e.message().to_string()
    }

    fn mk(&mut self, k: Kind, args: &[cvc5::Term]) -> Result<cvc5::Term, String> {
        self.tm.mk_term(k, args).map_err(Cvc5Solver::err)
    }

    /// The cvc5 sort of an arrax sort: Index and enumerations are Int,
    /// multi-dimensional arrays are nested arrays.
    fn sort(&mut self, s: &Sort) -> Result<cvc5::Sort, String> {
        if let Some(c) = self.sorts.get(s) {
            return Ok(c.clone());
        }
        let c = match s {
            Sort::Bool => self.tm.boolean_sort(),
            Sort::Int | Sort::Index | Sort::Enum(_) => self.tm.integer_sort(),
            Sort::Real => self.tm.real_sort(),
            Sort::Uninterpreted(n) => {
                if n.contains('\0') {
                    return Err(format!("sort name with a NUL character: {n:?}"));
                }
                self.tm.mk_uninterpreted_sort(n)
            }
            Sort::Array(a) => {
                let mut c = self.sort(&a.elem)?;
                for i in a.index.iter().rev() {
                    let i = self.sort(i)?;
                    c = self.tm.mk_array_sort(i, c).map_err(Cvc5Solver::err)?;
                }
                c
            }
        };
        self.sorts.insert(s.clone(), c.clone());
        Ok(c)
    }

    /// The translation of a lambda-free term, cached.
    fn tr(&mut self, t: &Term) -> Result<cvc5::Term, String> {
        if let Some(c) = self.cache.get(t) {
            return Ok(c.clone());
        }
        let c = self.tr_node(t)?;
        self.cache.insert(t.clone(), c.clone());
        Ok(c)
    }

    /// The translation of a lambda-free formula.
    fn tr_bool(&mut self, t: &Term) -> Result<cvc5::Term, String> {
        let c = self.tr(t)?;
        if c.sort().is_boolean() {
            Ok(c)
        } else {
            Err(format!("not a formula: {t}"))
        }
    }

    /// The cvc5 node of a lambda-free term whose operands are translated
    /// (and cached) by [`Cvc5Solver::tr`]: the logical operators here, the
    /// other families in their own functions.
    fn tr_node(&mut self, t: &Term) -> Result<cvc5::Term, String> {
        let args = t.args();
        let arity = |n: usize| super::check_arity(t, n);
        match t.op() {
            Op::Var(_) | Op::Bool(_) | Op::Int(_) | Op::EnumConst(_) | Op::Real(..) => self.tr_leaf(t),
            Op::Not => {
                arity(1)?;
                let a = self.tr_bool(&args[0])?;
                self.mk(Kind::Not, &[a])
            }
            Op::And | Op::Or => {
                let mut bs = args.iter().map(|a| self.tr_bool(a)).collect::<Result<Vec<_>, _>>()?;
                let and = matches!(t.op(), Op::And);
                match bs.len() {
                    0 => Ok(self.tm.mk_boolean(and)),
                    1 => Ok(bs.remove(0)),
                    _ => self.mk(if and { Kind::And } else { Kind::Or }, &bs),
                }
            }
            Op::Ite => {
                arity(3)?;
                let c = self.tr_bool(&args[0])?;
                let (a, b) = self.unify(&args[1], &args[2], t)?;
                self.mk(Kind::Ite, &[c, a, b])
            }
            Op::Eq => {
                arity(2)?;
                let (a, b) = self.unify(&args[0], &args[1], t)?;
                self.mk(Kind::Equal, &[a, b])
            }
            Op::Lt | Op::Le | Op::Add | Op::Mul | Op::Neg | Op::Div | Op::Mod => self.tr_arith(t),
            Op::Bits(b) => self.tr_bits(*b, t),
            Op::Select | Op::Store | Op::Lambda(_) => self.tr_array(t),
            Op::Forall(vs) | Op::Exists(vs) => self.tr_quantifier(vs, t),
        }
    }

    /// A symbol (a constant declared from its name and sort, remembered to
    /// read terms back) or a literal.
    fn tr_leaf(&mut self, t: &Term) -> Result<cvc5::Term, String> {
        match t.op() {
            Op::Var(name) => {
                if name.contains('\0') {
                    return Err(format!("symbol name with a NUL character: {name:?}"));
                }
                let s = self.sort(t.sort())?;
                let c = self.tm.mk_const(s, name).map_err(Cvc5Solver::err)?;
                self.symbols.insert(c.clone(), t.clone());
                Ok(c)
            }
            Op::Bool(b) => Ok(self.tm.mk_boolean(*b)),
            Op::Int(n) | Op::EnumConst(n) => Ok(self.tm.mk_integer(*n)),
            Op::Real(n, d) => {
                // Normalised literals have d > 0; raw ones are brought there.
                let (n, d) = if *d < 0 { (n.checked_neg(), d.checked_neg()) } else { (Some(*n), Some(*d)) };
                match (n, d) {
                    (Some(n), Some(d)) if d != 0 => self.tm.mk_real_from_rational(n, d).map_err(Cvc5Solver::err),
                    _ => Err(format!("malformed rational literal: {t}")),
                }
            }
            _ => unreachable!("symbols and literals only"),
        }
    }

    /// An arithmetic comparison or operation, over Int or (if an operand is
    /// Real) Real operands.
    fn tr_arith(&mut self, t: &Term) -> Result<cvc5::Term, String> {
        let args = t.args();
        let arity = |n: usize| super::check_arity(t, n);
        match t.op() {
            Op::Lt | Op::Le => {
                arity(2)?;
                let (xs, _) = self.numbers(args, t)?;
                self.mk(if matches!(t.op(), Op::Lt) { Kind::Lt } else { Kind::Leq }, &xs)
            }
            Op::Add | Op::Mul => {
                let (mut xs, _) = self.numbers(args, t)?;
                match xs.len() {
                    0 => Err(format!("empty sum or product: {t}")),
                    1 => Ok(xs.remove(0)),
                    _ => self.mk(if matches!(t.op(), Op::Add) { Kind::Add } else { Kind::Mult }, &xs),
                }
            }
            Op::Neg => {
                arity(1)?;
                let (xs, _) = self.numbers(args, t)?;
                self.mk(Kind::Neg, &xs)
            }
            Op::Div => {
                arity(2)?;
                let (xs, real) = self.numbers(args, t)?;
                self.mk(if real { Kind::Division } else { Kind::IntsDivision }, &xs)
            }
            Op::Mod => {
                arity(2)?;
                let (xs, real) = self.numbers(args, t)?;
                if real {
                    return Err(format!("mod needs integer operands: {t}"));
                }
                self.mk(Kind::IntsModulus, &xs)
            }
            _ => unreachable!("arithmetic operators only"),
        }
    }

    /// A bitwise operator on integers, exact: the words of the arguments,
    /// the operator, the word read back.
    fn tr_bits(&mut self, b: Bits, t: &Term) -> Result<cvc5::Term, String> {
        super::check_arity(t, 2)?;
        let (xs, real) = self.numbers(t.args(), t)?;
        if real {
            return Err(format!("bitwise operators need integer operands: {t}"));
        }
        let to_bv = self.tm.mk_op(Kind::IntToBitvector, &[b.width as u32]).map_err(Cvc5Solver::err)?;
        let mut words = vec![];
        for x in xs {
            words.push(self.tm.mk_term_from_op(to_bv.clone(), &[x]).map_err(Cvc5Solver::err)?);
        }
        let k = match b.kind {
            BitKind::And => Kind::BitvectorAnd,
            BitKind::Or => Kind::BitvectorOr,
            BitKind::Xor => Kind::BitvectorXor,
        };
        let r = self.mk(k, &words)?;
        self.mk(if b.signed { Kind::BitvectorSbvToInt } else { Kind::BitvectorUbvToInt }, &[r])
    }

    /// An array read or write (curried over several indices), or a
    /// constant array (the only lambda left after [`Cvc5Solver::lambda_free`]).
    fn tr_array(&mut self, t: &Term) -> Result<cvc5::Term, String> {
        let args = t.args();
        match t.op() {
            Op::Select => {
                if args.len() < 2 {
                    return Err(format!("array read without index: {t}"));
                }
                let mut a = self.tr(&args[0])?;
                for i in &args[1..] {
                    let i = self.index(&a, i, t)?;
                    a = self.mk(Kind::Select, &[a, i])?;
                }
                Ok(a)
            }
            Op::Store => {
                if args.len() < 3 {
                    return Err(format!("array write without index: {t}"));
                }
                let a = self.tr(&args[0])?;
                self.store(a, &args[1..args.len() - 1], &args[args.len() - 1], t)
            }
            Op::Lambda(_) if args.len() == 1 && args[0].is_value() => {
                // A constant array, nested for several dimensions.
                let dims = t.sort().as_array().map(|a| a.index.len()).unwrap_or(0);
                let mut c = self.tr(&args[0])?;
                for d in (0..dims).rev() {
                    let s = self.sort(&array_suffix(t.sort(), d))?;
                    c = self.tm.mk_const_array(s, c).map_err(Cvc5Solver::err)?;
                }
                Ok(c)
            }
            Op::Lambda(_) => Err(format!("array lambda in an unsupported position: {t}")),
            _ => unreachable!("array operators only"),
        }
    }

    /// A universal or existential quantifier over `vs` (its body guarded
    /// by the variables' ranges), the constants standing for them in the
    /// body replaced by cvc5 bound variables.
    fn tr_quantifier(&mut self, vs: &[Term], t: &Term) -> Result<cvc5::Term, String> {
        super::check_arity(t, 1)?;
        let forall = matches!(t.op(), Op::Forall(_));
        let body = guarded_body(vs, &t.args()[0], forall);
        let body = self.tr_bool(&body)?;
        let mut consts = vec![];
        let mut vars = vec![];
        for v in vs.iter() {
            let name = v.var_name().ok_or_else(|| format!("binder over a non-variable: {t}"))?;
            consts.push(self.tr(v)?);
            let s = self.sort(v.sort())?;
            vars.push(self.tm.mk_var(s, name).map_err(Cvc5Solver::err)?);
        }
        if vars.is_empty() {
            return Ok(body);
        }
        let body = body.substitute_terms(&consts, &vars).map_err(Cvc5Solver::err)?;
        let list = self.mk(Kind::VariableList, &vars)?;
        self.mk(if forall { Kind::Forall } else { Kind::Exists }, &[list, body])
    }

    /// Two operands of one sort (an Int and a Real become two Reals).
    fn unify(&mut self, a: &Term, b: &Term, t: &Term) -> Result<(cvc5::Term, cvc5::Term), String> {
        let (a, b) = (self.tr(a)?, self.tr(b)?);
        let (sa, sb) = (a.sort(), b.sort());
        if sa == sb {
            Ok((a, b))
        } else if sa.is_integer() && sb.is_real() {
            Ok((self.mk(Kind::ToReal, &[a])?, b))
        } else if sa.is_real() && sb.is_integer() {
            let b = self.mk(Kind::ToReal, &[b])?;
            Ok((a, b))
        } else {
            Err(format!("operands of different sorts ({sa} and {sb}) in {t}"))
        }
    }

    /// Numeric operands, all Int or (if any is Real, as the flag says) all Real.
    fn numbers(&mut self, args: &[Term], t: &Term) -> Result<(Vec<cvc5::Term>, bool), String> {
        let xs = args.iter().map(|a| self.tr(a)).collect::<Result<Vec<_>, _>>()?;
        if let Some(x) = xs.iter().find(|x| !x.sort().is_integer() && !x.sort().is_real()) {
            return Err(format!("non-numeric operand {x} in {t}"));
        }
        if xs.iter().all(|x| x.sort().is_integer()) {
            return Ok((xs, false));
        }
        let xs = xs.into_iter().map(|x| if x.sort().is_integer() { self.mk(Kind::ToReal, &[x]) } else { Ok(x) }).collect::<Result<Vec<_>, _>>()?;
        Ok((xs, true))
    }

    /// The translation of an index of array `a`, checked against its index sort.
    fn index(&mut self, a: &cvc5::Term, i: &Term, t: &Term) -> Result<cvc5::Term, String> {
        let s = a.sort();
        if !s.is_array() {
            return Err(format!("read or write of a non-array in {t}"));
        }
        let dom = s.array_index_sort().map_err(Cvc5Solver::err)?;
        self.fit(i, &dom, t)
    }

    /// The translation of `v` as a term of sort `s` (an Int becomes a Real if needed).
    fn fit(&mut self, v: &Term, s: &cvc5::Sort, t: &Term) -> Result<cvc5::Term, String> {
        let c = self.tr(v)?;
        let cs = c.sort();
        if cs == *s {
            Ok(c)
        } else if cs.is_integer() && s.is_real() {
            self.mk(Kind::ToReal, &[c])
        } else {
            Err(format!("{v} of sort {cs} where {s} is expected in {t}"))
        }
    }

    /// `a[i1][i2]... := v` on nested arrays.
    fn store(&mut self, a: cvc5::Term, idx: &[Term], v: &Term, t: &Term) -> Result<cvc5::Term, String> {
        let i = self.index(&a, &idx[0], t)?;
        let v = if idx.len() == 1 {
            let elem = a.sort().array_element_sort().map_err(Cvc5Solver::err)?;
            self.fit(v, &elem, t)?
        } else {
            let inner = self.mk(Kind::Select, &[a.clone(), i.clone()])?;
            self.store(inner, &idx[1..], v, t)?
        };
        self.mk(Kind::Store, &[a, i, v])
    }

    // ----- translation back from cvc5 -----

    /// The arrax term of a cvc5 term (an interpolant): declared constants
    /// map back to their variables, bound variables to fresh ones.
    fn back(&mut self, c: &cvc5::Term, bound: &mut HashMap<cvc5::Term, Term>) -> Result<Term, String> {
        let k = c.kind();
        let n = c.num_children();
        let kids = |me: &mut Self, bound: &mut HashMap<cvc5::Term, Term>| -> Result<Vec<Term>, String> {
            (0..n).map(|i| me.back(&c.child(i).map_err(Cvc5Solver::err)?, bound)).collect()
        };
        let unsupported = || format!("cannot read back cvc5 term {c} ({})", cvc5::kind_to_string(k));
        Ok(match k {
            Kind::ConstBoolean => Term::bool(c.boolean_value().map_err(Cvc5Solver::err)?),
            Kind::ConstInteger if c.is_int64_value() => Term::int(c.int64_value().map_err(Cvc5Solver::err)?),
            Kind::ConstRational if c.is_real64_value() => {
                let (num, den) = c.real64_value().map_err(Cvc5Solver::err)?;
                let den = i64::try_from(den).map_err(|_| unsupported())?;
                if den == 0 {
                    return Err(unsupported());
                }
                Term::real(num, den)
            }
            Kind::Constant => self.symbols.get(c).cloned().ok_or_else(unsupported)?,
            Kind::Variable => bound.get(c).cloned().ok_or_else(unsupported)?,
            Kind::Not | Kind::And | Kind::Or | Kind::Implies | Kind::Xor | Kind::Ite | Kind::Equal | Kind::Distinct => {
                let a = kids(self, bound)?;
                match (k, &a[..]) {
                    (Kind::Not, [x]) => x.not(),
                    (Kind::And, _) => Term::and(a),
                    (Kind::Or, _) => Term::or(a),
                    (Kind::Implies, [.., last]) => Term::implies(&Term::and(a[..a.len() - 1].iter().cloned()), last),
                    (Kind::Xor, [x, y]) => Term::eq(x, y).not(),
                    (Kind::Ite, [x, y, z]) => Term::ite(x, y, z),
                    (Kind::Equal, _) => Term::and(a.windows(2).map(|w| {
                        let (x, y) = enum_literals(&w[0], &w[1]);
                        Term::eq(&x, &y)
                    })),
                    (Kind::Distinct, _) => Term::distinct(&a),
                    _ => return Err(unsupported()),
                }
            }
            Kind::Add | Kind::Mult | Kind::Sub | Kind::Neg | Kind::ToReal => {
                let a = kids(self, bound)?;
                match (k, &a[..]) {
                    (Kind::Add, _) => Term::add(a),
                    (Kind::Mult, _) => Term::mul(a),
                    (Kind::Sub, [x, rest @ ..]) => Term::add(std::iter::once(x.clone()).chain(rest.iter().map(|r| r.neg()))),
                    (Kind::Neg, [x]) => x.neg(),
                    (Kind::ToReal, [x]) => x.clone(),
                    _ => return Err(unsupported()),
                }
            }
            Kind::Division | Kind::IntsDivision | Kind::IntsModulus => match &kids(self, bound)?[..] {
                [x, y] if k == Kind::IntsModulus => Term::modulo(x, y),
                [x, y] => Term::div(x, y),
                _ => return Err(unsupported()),
            },
            Kind::Lt | Kind::Leq | Kind::Gt | Kind::Geq => {
                let a = kids(self, bound)?;
                Term::and(a.windows(2).map(|w| match k {
                    Kind::Lt => Term::lt(&w[0], &w[1]),
                    Kind::Leq => Term::le(&w[0], &w[1]),
                    Kind::Gt => Term::gt(&w[0], &w[1]),
                    _ => Term::ge(&w[0], &w[1]),
                }))
            }
            Kind::Select => {
                // Nested reads of a multi-dimensional array become one read.
                let mut idx = vec![];
                let mut base = c.clone();
                while base.kind() == Kind::Select && base.num_children() == 2 {
                    idx.push(base.child(1).map_err(Cvc5Solver::err)?);
                    base = base.child(0).map_err(Cvc5Solver::err)?;
                }
                idx.reverse();
                let arr = self.back(&base, bound)?;
                let dims = arr.sort().as_array().map(|a| a.index.len()).ok_or_else(unsupported)?;
                if dims != idx.len() {
                    return Err(unsupported());
                }
                let idx = idx.iter().map(|i| self.back(i, bound)).collect::<Result<Vec<_>, _>>()?;
                Term::select(&arr, &idx)
            }
            Kind::Store => match &kids(self, bound)?[..] {
                [a, i, v] if a.sort().as_array().map(|s| s.index.len()) == Some(1) => Term::store(a, std::slice::from_ref(i), v),
                _ => return Err(unsupported()),
            },
            Kind::Forall | Kind::Exists if n >= 2 => {
                let list = c.child(0).map_err(Cvc5Solver::err)?;
                let mut vars = vec![];
                for i in 0..list.num_children() {
                    let v = list.child(i).map_err(Cvc5Solver::err)?;
                    let sort = self.sort_back(&v.sort()).ok_or_else(unsupported)?;
                    self.fresh += 1;
                    let var = Term::var(&format!("arrax!q{}", self.fresh), sort);
                    bound.insert(v, var.clone());
                    vars.push(var);
                }
                let body = self.back(&c.child(1).map_err(Cvc5Solver::err)?, bound)?;
                if k == Kind::Forall {
                    Term::forall(&vars, &body)
                } else {
                    Term::exists(&vars, &body)
                }
            }
            _ => return Err(unsupported()),
        })
    }

    /// The arrax sort of a cvc5 sort, for bound variables (Int stands for
    /// every integer-encoded sort).
    fn sort_back(&self, s: &cvc5::Sort) -> Option<Sort> {
        if s.is_boolean() {
            Some(Sort::Bool)
        } else if s.is_integer() {
            Some(Sort::Int)
        } else if s.is_real() {
            Some(Sort::Real)
        } else {
            self.sorts.iter().find(|(a, c)| matches!(a, Sort::Uninterpreted(_)) && *c == s).map(|(a, _)| a.clone())
        }
    }

    // ----- solver interface helpers -----

    /// Asserts a formula in the current scope, with the range facts it needs.
    fn assert_checked(&mut self, t: &Term) -> Result<(), String> {
        let t = self.lambda_free(t)?;
        for f in self.ranges.take_new(&t) {
            let f = self.tr_bool(&f)?;
            self.solver.assert_formula(f).map_err(Cvc5Solver::err)?;
        }
        let c = self.tr_bool(&t)?;
        self.solver.assert_formula(c).map_err(Cvc5Solver::err)
    }

    /// The translation of an assumption (asserting the range facts it needs).
    fn assumption(&mut self, a: &Term) -> Result<cvc5::Term, String> {
        let a = self.lambda_free(a)?;
        for f in self.ranges.take_new(&a) {
            let f = self.tr_bool(&f)?;
            self.solver.assert_formula(f).map_err(Cvc5Solver::err)?;
        }
        self.tr_bool(&a)
    }

    fn check_checked(&mut self, assumptions: &[Term]) -> Result<SatResult, String> {
        let mut cs = vec![];
        let mut back: HashMap<cvc5::Term, Vec<Term>> = HashMap::default();
        for a in assumptions {
            let c = self.assumption(a)?;
            back.entry(c.clone()).or_default().push(a.clone());
            cs.push(c);
        }
        let r = if cs.is_empty() { self.solver.check_sat() } else { self.solver.check_sat_assuming(&cs) };
        let r = r.map_err(Cvc5Solver::err)?;
        Ok(if r.is_sat() {
            self.sat = true;
            SatResult::Sat
        } else if r.is_unsat() {
            if !cs.is_empty() && self.explain {
                let used = self.solver.get_unsat_assumptions().map_err(Cvc5Solver::err)?;
                self.core = used.iter().filter_map(|u| back.get(u)).flatten().cloned().collect();
            }
            SatResult::Unsat
        } else {
            SatResult::Unknown(cvc5::unknown_explanation_to_string(r.unknown_explanation()))
        })
    }

    /// A cvc5 model value as an arrax literal of the given sort.
    fn literal(v: &cvc5::Term, sort: &Sort) -> Option<Term> {
        match sort {
            Sort::Bool => v.boolean_value().ok().map(Term::bool),
            Sort::Real => {
                if !v.is_real64_value() {
                    return None;
                }
                let (n, d) = v.real64_value().ok()?;
                let d = i64::try_from(d).ok().filter(|d| *d != 0)?;
                Some(Term::real(n, d))
            }
            Sort::Int | Sort::Index | Sort::Enum(_) => {
                if !v.is_int64_value() {
                    return None;
                }
                let n = v.int64_value().ok()?;
                match sort {
                    Sort::Enum(def) => match &def.values {
                        EnumValues::Subrange(..) => Some(Term::int(n)),
                        EnumValues::Names(ns) => (0..ns.len() as i64).contains(&n).then(|| Term::enum_const(sort.clone(), n)),
                    },
                    _ => Some(Term::int(n)),
                }
            }
            Sort::Uninterpreted(_) => {
                v.is_uninterpreted_sort_value().then(|| v.uninterpreted_sort_value().ok()).flatten().map(|name| Term::var(&name, sort.clone()))
            }
            Sort::Array(_) => None,
        }
    }
}

/// A read of `arr` at `idx`, through the writes, `ite`s and lambdas `arr` is built from.
fn read(arr: &Term, idx: &[Term]) -> Term {
    let args = arr.args();
    match arr.op() {
        Op::Lambda(vs) if vs.len() == idx.len() && args.len() == 1 => {
            let map: HashMap<Term, Term> = vs.iter().cloned().zip(idx.iter().cloned()).collect();
            substitute(&args[0], &map)
        }
        Op::Store if args.len() == idx.len() + 2 => {
            let hit = Term::and(args[1..=idx.len()].iter().zip(idx).map(|(w, i)| Term::eq(w, i)));
            Term::ite(&hit, &args[idx.len() + 1], &read(&args[0], idx))
        }
        Op::Ite if args.len() == 3 => Term::ite(&args[0], &read(&args[1], idx), &read(&args[2], idx)),
        _ => Term::select(arr, idx),
    }
}

/// `λ vs. body` as writes into a lambda-free array, when `body` is a
/// chain `ite(vs = p1, v1, ite(vs = p2, v2, ... a[vs]))` ending in a read of
/// an array not mentioning `vs` or in a literal (kept as the constant
/// lambda, which cvc5 has as a constant array).
fn as_writes(vs: &[Term], body: &Term) -> Option<Term> {
    let args = body.args();
    match body.op() {
        _ if body.is_value() => Some(Term::lambda(vs, body)),
        Op::Select if !args.is_empty() && args[1..] == *vs && !mentions(&args[0], vs) => Some(args[0].clone()),
        Op::Ite if args.len() == 3 => {
            let idx = point(&args[0], vs)?;
            let map: HashMap<Term, Term> = vs.iter().cloned().zip(idx.iter().cloned()).collect();
            let rest = as_writes(vs, &args[2])?;
            Some(Term::store(&rest, &idx, &substitute(&args[1], &map)))
        }
        _ => None,
    }
}

/// Whether `t` mentions one of `vs`.
fn mentions(t: &Term, vs: &[Term]) -> bool {
    free_vars(t).iter().any(|v| vs.contains(v))
}

/// The point `p` if `c` is `vs = p` (one equation per variable, `p` not mentioning `vs`).
fn point(c: &Term, vs: &[Term]) -> Option<Vec<Term>> {
    let eqs = if matches!(c.op(), Op::And) { c.args().to_vec() } else { vec![c.clone()] };
    if eqs.len() != vs.len() {
        return None;
    }
    let mut idx: Vec<Option<Term>> = vec![None; vs.len()];
    for e in &eqs {
        let (x, y) = match (e.op(), e.args()) {
            (Op::Eq, [x, y]) => (x, y),
            _ => return None,
        };
        let (v, p) = if vs.contains(x) { (x, y) } else { (y, x) };
        let k = vs.iter().position(|w| w == v)?;
        if mentions(p, vs) || idx[k].is_some() {
            return None;
        }
        idx[k] = Some(p.clone());
    }
    idx.into_iter().collect()
}

/// The sort of the arrays over the dimensions of `s` from the `d`-th on.
fn array_suffix(s: &Sort, d: usize) -> Sort {
    match s.as_array() {
        Some(a) => Sort::array(a.index[d..].to_vec(), a.elem.clone()),
        None => s.clone(),
    }
}

/// An equation's sides with an integer literal facing a Names-enumeration
/// term turned into that enumeration's constant.
fn enum_literals(a: &Term, b: &Term) -> (Term, Term) {
    let conv = |lit: &Term, other: &Term| -> Term {
        match (lit.as_int(), other.sort()) {
            (Some(k), Sort::Enum(d)) if matches!(&d.values, EnumValues::Names(ns) if (0..ns.len() as i64).contains(&k)) => {
                Term::enum_const(other.sort().clone(), k)
            }
            _ => lit.clone(),
        }
    };
    (conv(a, b), conv(b, a))
}

impl Solver for Cvc5Solver {
    fn backend(&self) -> Backend {
        Backend::Cvc5
    }

    fn assert(&mut self, t: &Term) {
        self.sat = false;
        if let Err(e) = self.assert_checked(t) {
            if let Some(top) = self.errors.last_mut() {
                top.get_or_insert(e);
            }
        }
    }

    fn push(&mut self) {
        self.sat = false;
        if let Err(e) = self.solver.push(1) {
            if let Some(top) = self.errors.last_mut() {
                top.get_or_insert(Cvc5Solver::err(e));
            }
        }
        self.ranges.push();
        self.errors.push(None);
    }

    /// Closes the innermost scope; popping the base scope does nothing.
    fn pop(&mut self) {
        self.sat = false;
        if self.errors.len() > 1 {
            self.errors.pop();
            self.ranges.pop();
            if let Err(e) = self.solver.pop(1) {
                if let Some(top) = self.errors.last_mut() {
                    top.get_or_insert(Cvc5Solver::err(e));
                }
            }
        }
    }

    fn check_assuming(&mut self, assumptions: &[Term]) -> SatResult {
        self.sat = false;
        self.core.clear();
        if let Some(e) = self.errors.iter().flatten().next() {
            return SatResult::Unknown(format!("untranslatable assertion: {e}"));
        }
        self.check_checked(assumptions).unwrap_or_else(|e| SatResult::Unknown(format!("cvc5: {e}")))
    }

    /// After `Sat`, until the next assertion, push or pop. Names-enumeration
    /// values outside the enumeration and array values give `None`.
    fn value(&mut self, t: &Term) -> Option<Term> {
        if !self.sat || !self.explain {
            return None;
        }
        let lf = self.lambda_free(t).ok()?;
        let c = self.tr(&lf).ok()?;
        let v = self.solver.get_value(c).ok()?;
        Cvc5Solver::literal(&v, t.sort())
    }

    fn unsat_core(&mut self) -> Vec<Term> {
        self.core.clone()
    }

    fn set_timeout_ms(&mut self, ms: u64) {
        if let Err(e) = self.solver.set_option("tlimit-per", &ms.to_string()) {
            if let Some(top) = self.errors.first_mut() {
                top.get_or_insert(Cvc5Solver::err(e));
            }
        }
    }
}
