//! The z3 backend, through the `z3` crate (which works in an implicit
//! thread-local z3 context: a [`Z3Solver`] belongs to the thread that made it,
//! like the terms it reads).
//!
//! Terms are translated once and cached by term. Constants are declared on
//! demand from the variables' names and sorts; bound variables are ordinary
//! constants abstracted by z3's `forall_const`/`exists_const`/`lambda_const`,
//! so a cached translation is right in every context. Every operand's sort
//! is checked before a z3 node is built (the crate panics on ill-sorted
//! nodes), so a malformed term makes the check answer `Unknown` instead.
//! Assumptions go through fresh indicator literals `ind ⇒ assumption`, so
//! unsat cores map back to the assumption terms.

use super::{guarded_body, Backend, RangeFacts, SatResult, Solver};
use crate::logic::{BitKind, Bits, EnumValues, Op, Sort, Term};
use crate::HashMap;
use z3::ast::{Array, Ast, Bool, Dynamic, Int, Real};
use z3::{Params, SortKind, Symbol};

/// What one push-scope added besides its assertions.
#[derive(Default)]
struct Scope {
    /// Why an assertion of this scope could not be translated, if one could not.
    error: Option<String>,
    /// Indicator literals of the assumptions first used in this scope.
    indicators: HashMap<Term, Bool>,
}

/// An incremental z3 solver over arrax terms.
pub struct Z3Solver {
    solver: z3::Solver,
    cache: HashMap<Term, Dynamic>,
    sorts: HashMap<Sort, z3::Sort>,
    ranges: RangeFacts,
    /// The base scope and one per `push`.
    scopes: Vec<Scope>,
    /// Whether the last check was `Sat` and nothing changed since.
    sat: bool,
    /// The model of that check, fetched on the first `value`.
    model: Option<z3::Model>,
    /// The unsat core of the last check, if it was `Unsat`.
    core: Vec<Term>,
    /// The time limit of a check (0: none), see [`Solver::set_timeout_ms`].
    timeout_ms: u64,
}

/// The resource budget of a check's first attempt when a time limit is
/// set (z3's `rlimit`, counted per check). z3 enforces a time limit with a
/// timer thread, whose start and stop cost about as much as a small check
/// (`sched_yield`, futex wake-ups); checks under this budget, nearly all of
/// them (certifying FLASH: at most a few thousand units each), never start
/// it. A check that exhausts the budget is tried again under the time limit.
const FIRST_RLIMIT: u32 = 2_000_000;

impl Default for Z3Solver {
    fn default() -> Self {
        Z3Solver::new()
    }
}

impl Z3Solver {
    /// Sets the time limit (ms; z3's "no limit" is the largest u32) and
    /// the resource limit (0: none) of the next checks.
    fn limit(&mut self, timeout: u32, rlimit: u32) {
        let mut p = Params::new();
        p.set_u32("timeout", timeout);
        p.set_u32("rlimit", rlimit);
        self.solver.set_params(&p);
    }

    /// A fresh solver with no assertions and no time limit.
    pub fn new() -> Self {
        Z3Solver {
            solver: z3::Solver::new(),
            cache: HashMap::default(),
            sorts: HashMap::default(),
            ranges: RangeFacts::new(),
            scopes: vec![Scope::default()],
            sat: false,
            timeout_ms: 0,
            model: None,
            core: vec![],
        }
    }

    /// The z3 sort of an arrax sort: Index and enumerations are Int,
    /// multi-dimensional arrays are nested arrays.
    fn sort(&mut self, s: &Sort) -> Result<z3::Sort, String> {
        if let Some(z) = self.sorts.get(s) {
            return Ok(z.clone());
        }
        let z = match s {
            Sort::Bool => z3::Sort::bool(),
            Sort::Int | Sort::Index | Sort::Enum(_) => z3::Sort::int(),
            Sort::Real => z3::Sort::real(),
            Sort::Uninterpreted(n) => {
                if n.contains('\0') {
                    return Err(format!("sort name with a NUL character: {n:?}"));
                }
                z3::Sort::uninterpreted(Symbol::String(n.to_string()))
            }
            Sort::Array(a) => {
                let mut z = self.sort(&a.elem)?;
                for i in a.index.iter().rev() {
                    z = z3::Sort::array(&self.sort(i)?, &z);
                }
                z
            }
        };
        self.sorts.insert(s.clone(), z.clone());
        Ok(z)
    }

    /// The translation of a term, cached.
    fn tr(&mut self, t: &Term) -> Result<Dynamic, String> {
        if let Some(d) = self.cache.get(t) {
            return Ok(d.clone());
        }
        let d = self.tr_node(t)?;
        self.cache.insert(t.clone(), d.clone());
        Ok(d)
    }

    /// The translation of a formula.
    fn tr_bool(&mut self, t: &Term) -> Result<Bool, String> {
        let d = self.tr(t)?;
        as_bool(&d, t)
    }

    /// The z3 node of a term whose operands are translated (and cached) by
    /// [`Z3Solver::tr`]: the logical operators here, the other families
    /// in their own functions.
    fn tr_node(&mut self, t: &Term) -> Result<Dynamic, String> {
        let args = t.args();
        let arity = |n: usize| super::check_arity(t, n);
        Ok(match t.op() {
            Op::Var(_) | Op::Bool(_) | Op::Int(_) | Op::EnumConst(_) | Op::Real(..) => self.tr_leaf(t)?,
            Op::Not => {
                arity(1)?;
                self.tr_bool(&args[0])?.not().into()
            }
            Op::And | Op::Or => {
                let bs = args.iter().map(|a| self.tr_bool(a)).collect::<Result<Vec<_>, _>>()?;
                if matches!(t.op(), Op::And) {
                    Bool::and(&bs).into()
                } else {
                    Bool::or(&bs).into()
                }
            }
            Op::Ite => {
                arity(3)?;
                let c = self.tr_bool(&args[0])?;
                let (a, b) = unify(self.tr(&args[1])?, self.tr(&args[2])?, t)?;
                c.ite(&a, &b)
            }
            Op::Eq => {
                arity(2)?;
                let (a, b) = unify(self.tr(&args[0])?, self.tr(&args[1])?, t)?;
                a.safe_eq(&b).map_err(|e| format!("{e} in {t}"))?.into()
            }
            Op::Lt | Op::Le | Op::Add | Op::Mul | Op::Neg | Op::Div | Op::Mod => self.tr_arith(t)?,
            Op::Bits(b) => self.tr_bits(*b, t)?,
            Op::Select | Op::Store | Op::Lambda(_) => self.tr_array(t)?,
            Op::Forall(vs) | Op::Exists(vs) => self.tr_quantifier(vs, t)?,
        })
    }

    /// A symbol (a constant declared from its name and sort) or a literal.
    fn tr_leaf(&mut self, t: &Term) -> Result<Dynamic, String> {
        Ok(match t.op() {
            Op::Var(name) => {
                if name.contains('\0') {
                    return Err(format!("symbol name with a NUL character: {name:?}"));
                }
                let s = self.sort(t.sort())?;
                Dynamic::new_const(name.to_string(), &s)
            }
            Op::Bool(b) => Bool::from_bool(*b).into(),
            Op::Int(n) | Op::EnumConst(n) => Int::from_i64(*n).into(),
            Op::Real(n, d) => {
                // Normalised literals have d > 0; raw ones are brought there.
                let (n, d) = if *d < 0 { (n.checked_neg(), d.checked_neg()) } else { (Some(*n), Some(*d)) };
                match (n, d) {
                    (Some(n), Some(d)) if d != 0 => Real::from_rational(n, d).into(),
                    _ => return Err(format!("malformed rational literal: {t}")),
                }
            }
            _ => unreachable!("symbols and literals only"),
        })
    }

    /// An arithmetic comparison or operation, over Int or (if an operand is
    /// Real) Real operands.
    fn tr_arith(&mut self, t: &Term) -> Result<Dynamic, String> {
        let args = t.args();
        let arity = |n: usize| super::check_arity(t, n);
        Ok(match t.op() {
            Op::Lt | Op::Le => {
                arity(2)?;
                let xs = self.numbers(args, t)?;
                let lt = matches!(t.op(), Op::Lt);
                match &xs[..] {
                    [Num::Int(a), Num::Int(b)] => if lt { a.lt(b) } else { a.le(b) }.into(),
                    [Num::Real(a), Num::Real(b)] => if lt { a.lt(b) } else { a.le(b) }.into(),
                    _ => return Err(format!("malformed comparison: {t}")),
                }
            }
            Op::Add | Op::Mul => {
                if args.is_empty() {
                    return Err(format!("empty sum or product: {t}"));
                }
                let xs = self.numbers(args, t)?;
                let add = matches!(t.op(), Op::Add);
                if let Some(is) = ints(&xs) {
                    if add { Int::add(&is) } else { Int::mul(&is) }.into()
                } else {
                    let rs = reals(xs);
                    if add { Real::add(&rs) } else { Real::mul(&rs) }.into()
                }
            }
            Op::Neg => {
                arity(1)?;
                match self.numbers(args, t)?.pop() {
                    Some(Num::Int(a)) => a.unary_minus().into(),
                    Some(Num::Real(a)) => a.unary_minus().into(),
                    None => return Err(format!("malformed negation: {t}")),
                }
            }
            Op::Div => {
                arity(2)?;
                match &self.numbers(args, t)?[..] {
                    [Num::Int(a), Num::Int(b)] => a.div(b).into(),
                    [Num::Real(a), Num::Real(b)] => a.div(b).into(),
                    _ => return Err(format!("malformed division: {t}")),
                }
            }
            Op::Mod => {
                arity(2)?;
                match &self.numbers(args, t)?[..] {
                    [Num::Int(a), Num::Int(b)] => a.modulo(b).into(),
                    _ => return Err(format!("mod needs integer operands: {t}")),
                }
            }
            _ => unreachable!("arithmetic operators only"),
        })
    }

    /// A bitwise operator on integers, exact: the words of the arguments,
    /// the operator, the word read back.
    fn tr_bits(&mut self, b: Bits, t: &Term) -> Result<Dynamic, String> {
        super::check_arity(t, 2)?;
        match &self.numbers(t.args(), t)?[..] {
            [Num::Int(x), Num::Int(y)] => {
                let (x, y) = (z3::ast::BV::from_int(x, b.width as u32), z3::ast::BV::from_int(y, b.width as u32));
                let r = match b.kind {
                    BitKind::And => x.bvand(&y),
                    BitKind::Or => x.bvor(&y),
                    BitKind::Xor => x.bvxor(&y),
                };
                Ok(r.to_int(b.signed).into())
            }
            _ => Err(format!("bitwise operators need integer operands: {t}")),
        }
    }

    /// An array read, write or lambda (curried over several indices).
    fn tr_array(&mut self, t: &Term) -> Result<Dynamic, String> {
        let args = t.args();
        match t.op() {
            Op::Select => {
                if args.len() < 2 {
                    return Err(format!("array read without index: {t}"));
                }
                let mut a = self.tr(&args[0])?;
                for i in &args[1..] {
                    let i = self.tr(i)?;
                    a = select(&a, &i, t)?;
                }
                Ok(a)
            }
            Op::Store => {
                if args.len() < 3 {
                    return Err(format!("array write without index: {t}"));
                }
                let a = self.tr(&args[0])?;
                let idx = args[1..args.len() - 1].iter().map(|i| self.tr(i)).collect::<Result<Vec<_>, _>>()?;
                let v = self.tr(&args[args.len() - 1])?;
                store(&a, &idx, &v, t)
            }
            Op::Lambda(vs) => {
                super::check_arity(t, 1)?;
                if vs.is_empty() {
                    return Err(format!("lambda without variables: {t}"));
                }
                let mut body = self.tr(&args[0])?;
                for v in self.bound_vars(vs, t)?.iter().rev() {
                    body = z3::ast::lambda_const(&[v as &dyn Ast], &body).into();
                }
                Ok(body)
            }
            _ => unreachable!("array operators only"),
        }
    }

    /// A universal or existential quantifier over `vs` (its body guarded
    /// by the variables' ranges).
    fn tr_quantifier(&mut self, vs: &[Term], t: &Term) -> Result<Dynamic, String> {
        super::check_arity(t, 1)?;
        let forall = matches!(t.op(), Op::Forall(_));
        let body = guarded_body(vs, &t.args()[0], forall);
        let body = self.tr_bool(&body)?;
        let bound = self.bound_vars(vs, t)?;
        let bound: Vec<&dyn Ast> = bound.iter().map(|b| b as &dyn Ast).collect();
        Ok(if forall { z3::ast::forall_const(&bound, &[], &body).into() } else { z3::ast::exists_const(&bound, &[], &body).into() })
    }

    /// The constants standing for a binder's variables.
    fn bound_vars(&mut self, vs: &[Term], t: &Term) -> Result<Vec<Dynamic>, String> {
        vs.iter().map(|v| if v.is_var() { self.tr(v) } else { Err(format!("binder over a non-variable: {t}")) }).collect()
    }

    /// The translations of numeric operands, all Int or (if any is Real) all Real.
    fn numbers(&mut self, args: &[Term], t: &Term) -> Result<Vec<Num>, String> {
        let xs = args
            .iter()
            .map(|a| {
                let d = self.tr(a)?;
                match d.sort_kind() {
                    SortKind::Int => d.as_int().map(Num::Int),
                    SortKind::Real => d.as_real().map(Num::Real),
                    _ => None,
                }
                .ok_or_else(|| format!("non-numeric operand {a} in {t}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(match ints(&xs) {
            Some(_) => xs,
            None => reals(xs).into_iter().map(Num::Real).collect(),
        })
    }

    /// Asserts a formula in the current scope, with the range facts it needs.
    fn assert_checked(&mut self, t: &Term) -> Result<(), String> {
        for f in self.ranges.take_new(t) {
            let f = self.tr_bool(&f)?;
            self.solver.assert(&f);
        }
        let b = self.tr_bool(t)?;
        self.solver.assert(&b);
        Ok(())
    }

    /// Drops the last check's model (the solver's state changed).
    fn forget_model(&mut self) {
        self.sat = false;
        self.model = None;
    }

    /// The indicator literal of an assumption (asserting `ind ⇒ a` the first time).
    fn indicator(&mut self, a: &Term) -> Result<Bool, String> {
        if let Some(i) = self.scopes.iter().find_map(|s| s.indicators.get(a)) {
            return Ok(i.clone());
        }
        for f in self.ranges.take_new(a) {
            let f = self.tr_bool(&f)?;
            self.solver.assert(&f);
        }
        let b = self.tr_bool(a)?;
        let ind = Bool::fresh_const("arrax_assumption");
        self.solver.assert(ind.implies(&b));
        if let Some(top) = self.scopes.last_mut() {
            top.indicators.insert(a.clone(), ind.clone());
        }
        Ok(ind)
    }

    /// The model's value of a term as an arrax literal of the term's sort.
    fn literal(v: &Dynamic, sort: &Sort) -> Option<Term> {
        match sort {
            Sort::Bool => v.as_bool()?.as_bool().map(Term::bool),
            Sort::Real => {
                let (n, d) = v.as_real()?.as_rational()?;
                (d != 0).then(|| Term::real(n, d))
            }
            Sort::Int | Sort::Index => v.as_int()?.as_i64().map(Term::int),
            Sort::Enum(def) => {
                let n = v.as_int()?.as_i64()?;
                match &def.values {
                    EnumValues::Subrange(..) => Some(Term::int(n)),
                    EnumValues::Names(ns) => (0..ns.len() as i64).contains(&n).then(|| Term::enum_const(sort.clone(), n)),
                }
            }
            Sort::Uninterpreted(_) => (v.sort_kind() == SortKind::Uninterpreted).then(|| Term::var(&v.to_string(), sort.clone())),
            Sort::Array(_) => None,
        }
    }
}

/// A numeric operand.
enum Num {
    Int(Int),
    Real(Real),
}

/// The operands as integers, if they all are.
fn ints(xs: &[Num]) -> Option<Vec<Int>> {
    xs.iter()
        .map(|x| match x {
            Num::Int(i) => Some(i.clone()),
            Num::Real(_) => None,
        })
        .collect()
}

/// The operands as reals (integers converted).
fn reals(xs: Vec<Num>) -> Vec<Real> {
    xs.into_iter()
        .map(|x| match x {
            Num::Int(i) => i.to_real(),
            Num::Real(r) => r,
        })
        .collect()
}

fn as_bool(d: &Dynamic, t: &Term) -> Result<Bool, String> {
    d.as_bool().ok_or_else(|| format!("not a formula: {t}"))
}

/// Two operands of one sort (an Int and a Real become two Reals).
fn unify(a: Dynamic, b: Dynamic, t: &Term) -> Result<(Dynamic, Dynamic), String> {
    if a.get_sort() == b.get_sort() {
        return Ok((a, b));
    }
    match (a.sort_kind(), b.sort_kind()) {
        (SortKind::Int, SortKind::Real) => Ok((a.as_int().map(|i| i.to_real().into()).unwrap_or(a), b)),
        (SortKind::Real, SortKind::Int) => Ok((a, b.as_int().map(|i| i.to_real().into()).unwrap_or(b))),
        _ => Err(format!("operands of different sorts ({} and {}) in {t}", a.get_sort(), b.get_sort())),
    }
}

/// `a` as an array whose index sort fits `i` (an Int index of a Real-indexed array is converted).
fn array_and_index(a: &Dynamic, i: &Dynamic, t: &Term) -> Result<(Array, Dynamic), String> {
    let arr = a.as_array().ok_or_else(|| format!("read or write of a non-array in {t}"))?;
    let dom = a.get_sort().array_domain().ok_or_else(|| format!("array without domain in {t}"))?;
    if i.get_sort() == dom {
        return Ok((arr, i.clone()));
    }
    match (dom.kind(), i.as_int()) {
        (SortKind::Real, Some(n)) => Ok((arr, n.to_real().into())),
        _ => Err(format!("index of sort {} for an array over {dom} in {t}", i.get_sort())),
    }
}

fn select(a: &Dynamic, i: &Dynamic, t: &Term) -> Result<Dynamic, String> {
    let (arr, i) = array_and_index(a, i, t)?;
    Ok(arr.select(&i))
}

/// `a[i1][i2]... := v` on nested arrays.
fn store(a: &Dynamic, idx: &[Dynamic], v: &Dynamic, t: &Term) -> Result<Dynamic, String> {
    let (arr, i) = array_and_index(a, &idx[0], t)?;
    let v = if idx.len() == 1 { v.clone() } else { store(&arr.select(&i), &idx[1..], v, t)? };
    let range = a.get_sort().array_range().ok_or_else(|| format!("array without range in {t}"))?;
    let v = if v.get_sort() == range {
        v
    } else {
        match (range.kind(), v.as_int()) {
            (SortKind::Real, Some(n)) => n.to_real().into(),
            _ => return Err(format!("value of sort {} stored in an array of {range} in {t}", v.get_sort())),
        }
    };
    Ok(arr.store(&i, &v).into())
}

impl Solver for Z3Solver {
    fn backend(&self) -> Backend {
        Backend::Z3
    }

    fn assert(&mut self, t: &Term) {
        self.forget_model();
        if let Err(e) = self.assert_checked(t) {
            if let Some(top) = self.scopes.last_mut() {
                top.error.get_or_insert(e);
            }
        }
    }

    fn push(&mut self) {
        self.forget_model();
        self.solver.push();
        self.ranges.push();
        self.scopes.push(Scope::default());
    }

    /// Closes the innermost scope; popping the base scope does nothing.
    fn pop(&mut self) {
        self.forget_model();
        if self.scopes.len() > 1 {
            self.solver.pop(1);
            self.ranges.pop();
            self.scopes.pop();
        }
    }

    fn check_assuming(&mut self, assumptions: &[Term]) -> SatResult {
        self.forget_model();
        self.core.clear();
        if let Some(e) = self.scopes.iter().find_map(|s| s.error.as_ref()) {
            return SatResult::Unknown(format!("untranslatable assertion: {e}"));
        }
        let mut inds = vec![];
        for a in assumptions {
            match self.indicator(a) {
                Ok(i) => inds.push(i),
                Err(e) => return SatResult::Unknown(format!("untranslatable assumption: {e}")),
            }
        }
        let mut r = self.solver.check_assumptions(&inds);
        if r == z3::SatResult::Unknown && self.timeout_ms > 0 {
            // the budget ran out (or z3 gave up): again, under the time limit
            self.limit(self.timeout_ms as u32, 0);
            r = self.solver.check_assumptions(&inds);
            self.limit(u32::MAX, FIRST_RLIMIT);
        }
        match r {
            z3::SatResult::Sat => {
                self.sat = true;
                SatResult::Sat
            }
            z3::SatResult::Unsat => {
                let back: HashMap<Bool, &Term> = inds.iter().cloned().zip(assumptions).collect();
                self.core = self.solver.get_unsat_core().iter().filter_map(|c| back.get(c)).map(|t| (*t).clone()).collect();
                SatResult::Unsat
            }
            z3::SatResult::Unknown => SatResult::Unknown(self.solver.get_reason_unknown().unwrap_or_else(|| "unknown".into())),
        }
    }

    /// After `Sat`, until the next assertion, push or pop. Names-enumeration
    /// values outside the enumeration and array values give `None`.
    fn value(&mut self, t: &Term) -> Option<Term> {
        if !self.sat {
            return None;
        }
        if self.model.is_none() {
            self.model = self.solver.get_model();
        }
        let d = self.tr(t).ok()?;
        let v = self.model.as_ref()?.eval(&d, true)?;
        Z3Solver::literal(&v, t.sort())
    }

    fn unsat_core(&mut self) -> Vec<Term> {
        self.core.clone()
    }

    /// Each check is first tried under a resource budget, without z3's
    /// timer (see [`FIRST_RLIMIT`]), then under the time limit.
    fn set_timeout_ms(&mut self, ms: u64) {
        self.timeout_ms = ms.min(u32::MAX as u64 - 1);
        if ms == 0 {
            self.limit(u32::MAX, 0);
        } else {
            self.limit(u32::MAX, FIRST_RLIMIT);
        }
    }
}
