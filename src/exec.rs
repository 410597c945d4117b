//! Compiled forward execution of systems with integer indices (programs):
//! the guards, updates, initial and unsafe formulas of a [`System`] are
//! compiled once into expression trees over slots, and a [`State`] holds
//! scalars in a vector and arrays as cell maps with a default. Values are
//! integers: Booleans are 0/1, enumeration constants their number.
//! Arithmetic is checked: an overflow of `i64` stops the run (a
//! [`Fault`]), never wraps.
//!
//! What compiles (anything else is an [`Unsupported`] error, and the
//! forward engine answers UNKNOWN):
//! - transitions without universal guard (process parameters are inputs
//!   like nondeterministic values: pairwise distinct integers);
//! - array updates `λj̄. body` where the body differs from `a[j̄]` only at
//!   points named by equalities `j = e` (`ite(j = e, v, a[j])`, nested or
//!   Boolean forms): the body is evaluated at those points;
//! - initial formulas whose quantified literals read arrays only at the
//!   quantified variables (`∀x. a[x] = 0`, `∀x. 0 ≤ a[x]`…), and
//!   quantifier-free scalar literals;
//! - unsafe cubes whose variables do not occur in their body.

use crate::logic::{occurs, substitute, Op, Sort, Term};
use crate::system::{IndexKind, System};
use std::collections::HashMap;

/// Why an evaluation cannot go on (the run is abandoned, never wrong).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// An integer left the `i64` range.
    Overflow,
    /// A division or remainder by zero.
    DivByZero,
    /// A value left the range of its enumeration sort.
    Range,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Fault::Overflow => "integer overflow",
            Fault::DivByZero => "division by zero",
            Fault::Range => "value outside its sort",
        })
    }
}

/// Why a system cannot be executed by the compiled evaluator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

/// An operand: leaves inline (no recursion), other expressions boxed.
#[derive(Clone, Debug)]
pub enum Arg {
    /// A literal.
    Const(i64),
    /// The scalar in this slot.
    Scalar(usize),
    /// The local in this slot.
    Local(usize),
    /// Any other expression.
    Expr(Box<Expr>),
}

impl From<Expr> for Arg {
    fn from(e: Expr) -> Arg {
        match e {
            Expr::Const(n) => Arg::Const(n),
            Expr::Scalar(s) => Arg::Scalar(s),
            Expr::Local(l) => Arg::Local(l),
            e => Arg::Expr(Box::new(e)),
        }
    }
}

/// A compiled expression over integer-coded values.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A literal.
    Const(i64),
    /// The scalar in this slot.
    Scalar(usize),
    /// The local (nondeterministic value, bound variable) in this slot.
    Local(usize),
    /// A read of a one-dimensional array.
    Read1(usize, Arg),
    /// A read of a two-dimensional array.
    Read2(usize, Box<(Expr, Expr)>),
    /// Negation.
    Not(Box<Expr>),
    /// Conjunction (short-circuit).
    And(Vec<Expr>),
    /// Disjunction (short-circuit).
    Or(Vec<Expr>),
    /// If-then-else.
    Ite(Box<(Expr, Expr, Expr)>),
    /// Equality.
    Eq(Arg, Arg),
    /// `<`.
    Lt(Arg, Arg),
    /// `<=`.
    Le(Arg, Arg),
    /// Sum of two operands.
    Add2(Arg, Arg),
    /// Sum.
    Add(Vec<Expr>),
    /// Arithmetic negation.
    Neg(Box<Expr>),
    /// Product.
    Mul(Vec<Expr>),
    /// SMT-LIB `div` (Euclidean).
    Div(Box<(Expr, Expr)>),
    /// SMT-LIB `mod` (non-negative).
    Mod(Box<(Expr, Expr)>),
}

/// Chooses the content of array cells that the initial formula leaves
/// open, when they are first read.
pub trait CellOracle {
    /// The initial value of cell `idx` of array `array`, within `lo..=hi`.
    fn cell(&mut self, array: usize, idx: [i64; 2], lo: i64, hi: i64) -> i64;
}

/// The value given to the first parameter that a transition does not use
/// (the next ones get the next numbers): far from the indices programs use,
/// so that it differs from the other parameters.
const UNUSED_PARAM: i64 = 1 << 40;

/// Largest index stored densely (larger or negative ones go to a map).
const DENSE_LIMIT: i64 = 1 << 25;

/// The cells of one array: dense for small non-negative one-dimensional
/// indices, a map otherwise; unknown cells read the default, or are chosen
/// by the oracle when the array has no default.
#[derive(Clone, Debug)]
pub struct Cells {
    default: Option<i64>,
    lo: i64,
    hi: i64,
    dense: Vec<i64>,
    known: Vec<bool>,
    sparse: HashMap<[i64; 2], i64>,
}

impl Cells {
    /// An array whose cells all hold `default`, or (`None`) are chosen in `lo..=hi` when read.
    pub fn new(default: Option<i64>, lo: i64, hi: i64) -> Cells {
        Cells { default, lo, hi, dense: vec![], known: vec![], sparse: HashMap::new() }
    }
    fn get(&self, idx: [i64; 2]) -> Option<i64> {
        if idx[1] == 0 && (0..self.dense.len() as i64).contains(&idx[0]) {
            let k = idx[0] as usize;
            if self.known[k] {
                return Some(self.dense[k]);
            }
            return None;
        }
        self.sparse.get(&idx).copied()
    }
    /// Sets a cell.
    pub fn set(&mut self, idx: [i64; 2], v: i64) {
        if idx[1] == 0 && (0..DENSE_LIMIT).contains(&idx[0]) {
            let k = idx[0] as usize;
            if k >= self.dense.len() {
                let n = (k + 1).max(self.dense.len() * 2).min(DENSE_LIMIT as usize);
                self.dense.resize(n, 0);
                self.known.resize(n, false);
            }
            self.dense[k] = v;
            self.known[k] = true;
        } else {
            self.sparse.insert(idx, v);
        }
    }
    fn read(&mut self, array: usize, idx: [i64; 2], o: &mut impl CellOracle) -> i64 {
        if let Some(v) = self.get(idx) {
            return v;
        }
        match self.default {
            Some(d) => d,
            None => {
                let v = o.cell(array, idx, self.lo, self.hi);
                self.set(idx, v);
                v
            }
        }
    }
}

/// A concrete state: scalars by slot, arrays by slot.
#[derive(Clone, Debug)]
pub struct State {
    /// Scalar values (state scalars, then rigid constants).
    pub scalars: Vec<i64>,
    /// Array contents.
    pub arrays: Vec<Cells>,
}

fn pair(e: &(Expr, Expr), st: &mut State, loc: &[i64], o: &mut impl CellOracle) -> Result<(i64, i64), Fault> {
    Ok((st.eval(&e.0, loc, o)?, st.eval(&e.1, loc, o)?))
}

impl State {
    #[inline(always)]
    fn arg(&mut self, a: &Arg, loc: &[i64], o: &mut impl CellOracle) -> Result<i64, Fault> {
        match a {
            Arg::Const(n) => Ok(*n),
            Arg::Scalar(s) => Ok(self.scalars[*s]),
            Arg::Local(l) => Ok(loc[*l]),
            Arg::Expr(e) => self.eval(e, loc, o),
        }
    }

    /// Evaluates a compiled expression (locals from `loc`; unknown array
    /// cells without default are chosen by `o`).
    pub fn eval(&mut self, e: &Expr, loc: &[i64], o: &mut impl CellOracle) -> Result<i64, Fault> {
        Ok(match e {
            Expr::Const(n) => *n,
            Expr::Scalar(s) => self.scalars[*s],
            Expr::Local(l) => loc[*l],
            Expr::Read1(a, i) => {
                let i = self.arg(i, loc, o)?;
                self.arrays[*a].read(*a, [i, 0], o)
            }
            Expr::Read2(a, ij) => {
                let (i, j) = pair(ij, self, loc, o)?;
                self.arrays[*a].read(*a, [i, j], o)
            }
            Expr::Not(x) => 1 - self.eval(x, loc, o)?,
            Expr::And(xs) => {
                for x in xs {
                    if self.eval(x, loc, o)? == 0 {
                        return Ok(0);
                    }
                }
                1
            }
            Expr::Or(xs) => {
                for x in xs {
                    if self.eval(x, loc, o)? != 0 {
                        return Ok(1);
                    }
                }
                0
            }
            Expr::Ite(cte) => {
                if self.eval(&cte.0, loc, o)? != 0 {
                    self.eval(&cte.1, loc, o)?
                } else {
                    self.eval(&cte.2, loc, o)?
                }
            }
            Expr::Eq(a, b) => (self.arg(a, loc, o)? == self.arg(b, loc, o)?) as i64,
            Expr::Lt(a, b) => (self.arg(a, loc, o)? < self.arg(b, loc, o)?) as i64,
            Expr::Le(a, b) => (self.arg(a, loc, o)? <= self.arg(b, loc, o)?) as i64,
            Expr::Add2(a, b) => self.arg(a, loc, o)?.checked_add(self.arg(b, loc, o)?).ok_or(Fault::Overflow)?,
            Expr::Add(xs) => {
                let mut s = 0i64;
                for x in xs {
                    s = s.checked_add(self.eval(x, loc, o)?).ok_or(Fault::Overflow)?;
                }
                s
            }
            Expr::Neg(x) => self.eval(x, loc, o)?.checked_neg().ok_or(Fault::Overflow)?,
            Expr::Mul(xs) => {
                let mut s = 1i64;
                for x in xs {
                    s = s.checked_mul(self.eval(x, loc, o)?).ok_or(Fault::Overflow)?;
                }
                s
            }
            Expr::Div(ab) => {
                let (a, b) = pair(ab, self, loc, o)?;
                if b == 0 {
                    return Err(Fault::DivByZero);
                }
                a.checked_div_euclid(b).ok_or(Fault::Overflow)?
            }
            Expr::Mod(ab) => {
                let (a, b) = pair(ab, self, loc, o)?;
                if b == 0 {
                    return Err(Fault::DivByZero);
                }
                a.checked_rem_euclid(b).ok_or(Fault::Overflow)?
            }
        })
    }
}

impl State {
    fn arg_partial(&mut self, a: &Arg, unknown: &[usize], o: &mut impl CellOracle) -> Result<Option<i64>, Fault> {
        match a {
            Arg::Const(n) => Ok(Some(*n)),
            Arg::Scalar(s) => Ok((!unknown.contains(s)).then(|| self.scalars[*s])),
            Arg::Local(_) => Ok(None),
            Arg::Expr(e) => self.eval_partial(e, unknown, o),
        }
    }

    /// Evaluates with the scalars in `unknown` (and every local) unknown:
    /// `None` when the value may depend on them. An `ite` whose condition
    /// is unknown has a value when both branches have the same one;
    /// conjunctions and disjunctions when a known argument decides them.
    pub fn eval_partial(&mut self, e: &Expr, unknown: &[usize], o: &mut impl CellOracle) -> Result<Option<i64>, Fault> {
        Ok(match e {
            Expr::Const(n) => Some(*n),
            Expr::Scalar(s) => (!unknown.contains(s)).then(|| self.scalars[*s]),
            Expr::Local(_) => None,
            Expr::Read1(a, i) => match self.arg_partial(i, unknown, o)? {
                Some(i) => Some(self.arrays[*a].read(*a, [i, 0], o)),
                None => None,
            },
            Expr::Read2(a, ij) => match (self.eval_partial(&ij.0, unknown, o)?, self.eval_partial(&ij.1, unknown, o)?) {
                (Some(i), Some(j)) => Some(self.arrays[*a].read(*a, [i, j], o)),
                _ => None,
            },
            Expr::Not(x) => self.eval_partial(x, unknown, o)?.map(|v| 1 - v),
            Expr::And(xs) | Expr::Or(xs) => {
                let decisive = if matches!(e, Expr::And(_)) { 0 } else { 1 };
                let mut all = true;
                for x in xs {
                    match self.eval_partial(x, unknown, o)? {
                        Some(v) if v == decisive => return Ok(Some(decisive)),
                        Some(_) => {}
                        None => all = false,
                    }
                }
                all.then_some(1 - decisive)
            }
            Expr::Ite(cte) => match self.eval_partial(&cte.0, unknown, o)? {
                Some(c) => self.eval_partial(if c != 0 { &cte.1 } else { &cte.2 }, unknown, o)?,
                None => {
                    let (a, b) = (self.eval_partial(&cte.1, unknown, o)?, self.eval_partial(&cte.2, unknown, o)?);
                    if a.is_some() && a == b {
                        a
                    } else {
                        None
                    }
                }
            },
            Expr::Eq(a, b) | Expr::Lt(a, b) | Expr::Le(a, b) | Expr::Add2(a, b) => {
                let (Some(x), Some(y)) = (self.arg_partial(a, unknown, o)?, self.arg_partial(b, unknown, o)?) else {
                    return Ok(None);
                };
                Some(match e {
                    Expr::Eq(..) => (x == y) as i64,
                    Expr::Lt(..) => (x < y) as i64,
                    Expr::Le(..) => (x <= y) as i64,
                    _ => x.checked_add(y).ok_or(Fault::Overflow)?,
                })
            }
            Expr::Add(xs) | Expr::Mul(xs) => {
                let add = matches!(e, Expr::Add(_));
                let mut acc = if add { 0i64 } else { 1 };
                for x in xs {
                    let Some(v) = self.eval_partial(x, unknown, o)? else { return Ok(None) };
                    acc = if add { acc.checked_add(v) } else { acc.checked_mul(v) }.ok_or(Fault::Overflow)?;
                }
                Some(acc)
            }
            Expr::Neg(x) => match self.eval_partial(x, unknown, o)? {
                Some(v) => Some(v.checked_neg().ok_or(Fault::Overflow)?),
                None => None,
            },
            Expr::Div(ab) | Expr::Mod(ab) => {
                let (Some(x), Some(y)) = (self.eval_partial(&ab.0, unknown, o)?, self.eval_partial(&ab.1, unknown, o)?) else {
                    return Ok(None);
                };
                if y == 0 {
                    return Err(Fault::DivByZero);
                }
                let r = if matches!(e, Expr::Div(_)) { x.checked_div_euclid(y) } else { x.checked_rem_euclid(y) };
                Some(r.ok_or(Fault::Overflow)?)
            }
        })
    }
}

impl Expr {
    /// Whether the expression reads one of these scalar slots or a local.
    pub fn mentions(&self, slots: &[usize]) -> bool {
        let arg = |a: &Arg| match a {
            Arg::Const(_) => false,
            Arg::Scalar(s) => slots.contains(s),
            Arg::Local(_) => true,
            Arg::Expr(e) => e.mentions(slots),
        };
        match self {
            Expr::Const(_) => false,
            Expr::Scalar(s) => slots.contains(s),
            Expr::Local(_) => true,
            Expr::Read1(_, i) => arg(i),
            Expr::Read2(_, ij) | Expr::Div(ij) | Expr::Mod(ij) => ij.0.mentions(slots) || ij.1.mentions(slots),
            Expr::Not(x) | Expr::Neg(x) => x.mentions(slots),
            Expr::And(xs) | Expr::Or(xs) | Expr::Add(xs) | Expr::Mul(xs) => xs.iter().any(|x| x.mentions(slots)),
            Expr::Ite(cte) => cte.0.mentions(slots) || cte.1.mentions(slots) || cte.2.mentions(slots),
            Expr::Eq(a, b) | Expr::Lt(a, b) | Expr::Le(a, b) | Expr::Add2(a, b) => arg(a) || arg(b),
        }
    }

    /// Whether the expression is affine in these scalar slots (sums,
    /// negations, products with at most one factor mentioning them, and
    /// subexpressions not mentioning them).
    pub fn affine_in(&self, slots: &[usize]) -> bool {
        if !self.mentions(slots) {
            return true;
        }
        let arg = |a: &Arg| match a {
            Arg::Expr(e) => e.affine_in(slots),
            Arg::Local(_) => false,
            _ => true,
        };
        match self {
            Expr::Scalar(_) => true,
            Expr::Add2(a, b) => arg(a) && arg(b),
            Expr::Add(xs) => xs.iter().all(|x| x.affine_in(slots)),
            Expr::Neg(x) => x.affine_in(slots),
            Expr::Mul(xs) => xs.iter().filter(|x| x.mentions(slots)).count() == 1 && xs.iter().all(|x| x.affine_in(slots)),
            _ => false,
        }
    }
}

/// The range of values of a sort (Booleans 0..=1, enumerations their
/// range, integers unbounded).
pub fn sort_range(s: &Sort) -> Result<(i64, i64), Unsupported> {
    match s {
        Sort::Bool => Ok((0, 1)),
        Sort::Int => Ok((i64::MIN, i64::MAX)),
        Sort::Enum(_) => Ok(s.finite_range().expect("enumerations are finite")),
        other => Err(Unsupported(format!("values of sort {other} cannot be executed"))),
    }
}

/// Bounds on a value read off literals `v ⋈ e` (the `e` evaluated in the
/// current state): the value must lie in `max(lower) ..= min(upper)`, and
/// equal each of `equal`.
#[derive(Clone, Debug, Default)]
pub struct Bounds {
    /// The sort's range.
    pub range: (i64, i64),
    /// Expressions the value is at least.
    pub lower: Vec<Expr>,
    /// Expressions the value is at most.
    pub upper: Vec<Expr>,
    /// Expressions the value equals.
    pub equal: Vec<Expr>,
}

/// One array update of a transition: the new value at each point (the
/// product of the candidate indices per dimension) is the body evaluated
/// with the λ variables bound to the point; other cells keep their value.
#[derive(Clone, Debug)]
pub struct ArrayUpdate {
    /// The array's slot.
    pub array: usize,
    /// Per dimension, the index expressions naming points that may change.
    pub points: Vec<Vec<Expr>>,
    /// The λ body (λ variables are locals `first_local..`).
    pub body: Expr,
    /// Where the λ variables go among the locals.
    pub first_local: usize,
    /// The range of the element sort (checked on enumerations).
    pub range: (i64, i64),
}

/// A compiled transition.
#[derive(Clone, Debug)]
pub struct Step {
    /// The guard's conjuncts (without the dispatching program-counter
    /// test), those not mentioning nondeterministic values first.
    pub guard: Vec<Expr>,
    /// How many conjuncts come before the first that mentions a value.
    pub value_free: usize,
    /// Bounds of each input: parameters, then nondeterministic values
    /// (locals `0..values.len()`).
    pub values: Vec<Bounds>,
    /// Scalar updates: slot, new value, the sort's range.
    pub scalars: Vec<(usize, Expr, (i64, i64))>,
    /// Array updates.
    pub arrays: Vec<ArrayUpdate>,
    /// Locals needed (values, then λ variables).
    pub locals: usize,
}

/// The initial constraint of one scalar slot or array.
#[derive(Clone, Copy, Debug)]
pub struct Range {
    /// Least value.
    pub lo: i64,
    /// Greatest value.
    pub hi: i64,
}

/// A compiled system, ready to execute.
#[derive(Clone, Debug)]
pub struct Program {
    /// The term of each scalar slot (state scalars, then rigid constants).
    pub scalar_terms: Vec<Term>,
    /// The state-variable position of each array slot.
    pub array_vars: Vec<usize>,
    /// Initial range of each scalar slot (from literals `x = c`, `c ≤ x`…).
    pub scalar_init: Vec<Range>,
    /// Every quantifier-free initial literal, to check after choosing.
    pub init_check: Vec<Expr>,
    /// Initial content of each array: a fixed default, or cells chosen in a range.
    pub array_init: Vec<(Option<i64>, Range)>,
    /// The transitions, in system order.
    pub steps: Vec<Step>,
    /// The slot dispatching transitions (the program counter) and its least value.
    pub dispatch: Option<(usize, i64)>,
    /// Transitions per value of the dispatching slot.
    pub by_pc: Vec<Vec<usize>>,
    /// Transitions not tied to one program-counter value.
    pub others: Vec<usize>,
    /// The unsafe cubes' bodies (each a conjunction).
    pub unsafe_: Vec<Expr>,
    /// Per value of the dispatching slot, whether some unsafe cube can hold
    /// there (cubes testing the slot against a constant hold only at it).
    pub unsafe_at: Vec<bool>,
    /// Integer literals of the system (values suggested to the strategy).
    pub constants: Vec<i64>,
}

/// What compiling a term may refer to.
struct Scope<'a> {
    scalars: &'a HashMap<Term, usize>,
    arrays: &'a HashMap<Term, usize>,
    locals: HashMap<Term, usize>,
}

impl Scope<'_> {
    fn compile(&self, t: &Term) -> Result<Expr, Unsupported> {
        let c = |i: usize| self.compile(&t.args()[i]);
        let bin = |t: &Term| -> Result<Box<(Expr, Expr)>, Unsupported> {
            Ok(Box::new((self.compile(&t.args()[0])?, self.compile(&t.args()[1])?)))
        };
        // commutative arguments in the order of their text, so that the order
        // of evaluation (and of lazy cell choices) does not depend on term ids
        let all = |t: &Term| {
            let mut args: Vec<&Term> = t.args().iter().collect();
            args.sort_by_cached_key(|a| a.to_string());
            args.into_iter().map(|a| self.compile(a)).collect::<Result<Vec<_>, _>>()
        };
        Ok(match t.op() {
            Op::Var(n) => {
                if let Some(l) = self.locals.get(t) {
                    Expr::Local(*l)
                } else if let Some(s) = self.scalars.get(t) {
                    Expr::Scalar(*s)
                } else {
                    return Err(Unsupported(format!("unbound symbol '{n}'")));
                }
            }
            Op::Bool(b) => Expr::Const(*b as i64),
            Op::Int(n) | Op::EnumConst(n) => Expr::Const(*n),
            Op::Not => Expr::Not(Box::new(c(0)?)),
            Op::And => Expr::And(all(t)?),
            Op::Or => Expr::Or(all(t)?),
            Op::Ite => Expr::Ite(Box::new((c(0)?, c(1)?, c(2)?))),
            Op::Eq if t.args()[0].sort().as_array().is_some() => {
                return Err(Unsupported(format!("array equality {t}")))
            }
            Op::Eq => {
                let (x, y) = (&t.args()[0], &t.args()[1]);
                let (x, y) = if x.to_string() <= y.to_string() { (x, y) } else { (y, x) };
                Expr::Eq(self.compile(x)?.into(), self.compile(y)?.into())
            }
            Op::Lt => Expr::Lt(c(0)?.into(), c(1)?.into()),
            Op::Le => Expr::Le(c(0)?.into(), c(1)?.into()),
            Op::Add if *t.sort() == Sort::Real => return Err(Unsupported("real arithmetic".into())),
            Op::Add => {
                let mut xs = all(t)?;
                if xs.len() == 2 {
                    let b = xs.pop().unwrap();
                    Expr::Add2(xs.pop().unwrap().into(), b.into())
                } else {
                    Expr::Add(xs)
                }
            }
            Op::Neg => Expr::Neg(Box::new(c(0)?)),
            Op::Mul => Expr::Mul(all(t)?),
            Op::Div if *t.sort() == Sort::Real => return Err(Unsupported("real division".into())),
            Op::Div => Expr::Div(bin(t)?),
            Op::Mod => Expr::Mod(bin(t)?),
            Op::Select => {
                let a = &t.args()[0];
                let Some(&slot) = self.arrays.get(a) else {
                    return Err(Unsupported(format!("read of a non-variable array in {t}")));
                };
                match &t.args()[1..] {
                    [i] => Expr::Read1(slot, self.compile(i)?.into()),
                    [i, j] => Expr::Read2(slot, Box::new((self.compile(i)?, self.compile(j)?))),
                    _ => return Err(Unsupported("arrays of more than two dimensions".into())),
                }
            }
            Op::Real(..) => return Err(Unsupported("real numbers".into())),
            _ => return Err(Unsupported(format!("term {t}"))),
        })
    }
}

/// The conjuncts of a formula.
fn conjuncts(t: &Term) -> Vec<Term> {
    match t.op() {
        Op::And => t.args().to_vec(),
        Op::Bool(true) => vec![],
        _ => vec![t.clone()],
    }
}

/// `v ⋈ e` literals on `v`, as (kind, other side): kind -1 `v ≤ e - 1`
/// style is normalised to lower/upper/equal with an offset.
enum Side {
    /// `v >= e + k`.
    Lower(Term, i64),
    /// `v <= e + k`.
    Upper(Term, i64),
    /// `v = e`.
    Equal(Term),
}

fn side_of(lit: &Term, v: &Term) -> Option<Side> {
    let (neg, atom) = match lit.op() {
        Op::Not => (true, &lit.args()[0]),
        _ => (false, lit),
    };
    let a = atom.args();
    let (op, l, r) = match atom.op() {
        Op::Eq | Op::Lt | Op::Le if a.len() == 2 => (atom.op().clone(), &a[0], &a[1]),
        _ => return None,
    };
    // normalise: negations swap sides
    match (op, neg) {
        (Op::Eq, false) if l == v => Some(Side::Equal(r.clone())),
        (Op::Eq, false) if r == v => Some(Side::Equal(l.clone())),
        (Op::Le, false) if l == v => Some(Side::Upper(r.clone(), 0)),
        (Op::Le, false) if r == v => Some(Side::Lower(l.clone(), 0)),
        (Op::Lt, false) if l == v => Some(Side::Upper(r.clone(), -1)),
        (Op::Lt, false) if r == v => Some(Side::Lower(l.clone(), 1)),
        // ¬(l ≤ r) is r < l; ¬(l < r) is r ≤ l
        (Op::Le, true) if l == v => Some(Side::Lower(r.clone(), 1)),
        (Op::Le, true) if r == v => Some(Side::Upper(l.clone(), -1)),
        (Op::Lt, true) if l == v => Some(Side::Lower(r.clone(), 0)),
        (Op::Lt, true) if r == v => Some(Side::Upper(l.clone(), 0)),
        _ => None,
    }
}

fn offset(e: Expr, k: i64) -> Expr {
    if k == 0 {
        e
    } else {
        Expr::Add2(e.into(), Arg::Const(k))
    }
}

/// The points where `λ js. body` may differ from `a[js]`, per dimension:
/// the `e` of every equality `j = e` (e free of the λ variables); `None`
/// when making all of them false does not give `a[js]` back.
fn update_points(body: &Term, array: &Term, js: &[Term]) -> Option<Vec<Vec<Term>>> {
    let mut points: Vec<Vec<Term>> = vec![vec![]; js.len()];
    let mut atoms: HashMap<Term, Term> = HashMap::new();
    let eqs = crate::logic::collect(body, &|t: &Term| matches!(t.op(), Op::Eq));
    for eq in eqs {
        let a = eq.args();
        for (x, e) in [(&a[0], &a[1]), (&a[1], &a[0])] {
            if let Some(d) = js.iter().position(|j| j == x) {
                if js.iter().all(|j| !occurs(j, e)) {
                    if !points[d].contains(e) {
                        points[d].push(e.clone());
                    }
                    atoms.insert(eq.clone(), Term::ff());
                }
            }
        }
    }
    // per dimension: with its atoms false, nothing changes
    for j in js {
        let mine: HashMap<Term, Term> = atoms.iter().filter(|(a, _)| a.args().contains(j)).map(|(a, f)| (a.clone(), f.clone())).collect();
        if substitute(body, &mine) != Term::select(array, js) {
            return None;
        }
    }
    Some(points)
}

/// Compiles a system for forward execution.
pub fn compile(sys: &System) -> Result<Program, Unsupported> {
    if !matches!(sys.index, Some(IndexKind::Int) | Some(IndexKind::Nat)) {
        return Err(Unsupported("forward execution needs integer indices (:index int)".into()));
    }
    if !sys.axioms.is_empty() {
        return Err(Unsupported("systems with axioms".into()));
    }
    let mut scalars = HashMap::new();
    let mut arrays = HashMap::new();
    let mut scalar_terms = vec![];
    let mut array_vars = vec![];
    let mut scalar_sorts = vec![];
    for (i, v) in sys.vars.iter().enumerate() {
        if v.is_array {
            let dims = v.term.sort().as_array().map(|a| a.index.len()).unwrap_or(1);
            if dims > 2 {
                return Err(Unsupported(format!("array {} has more than two dimensions", v.name())));
            }
            sort_range(&v.value_sort())?;
            arrays.insert(v.term.clone(), array_vars.len());
            array_vars.push(i);
        } else {
            scalars.insert(v.term.clone(), scalar_terms.len());
            scalar_terms.push(v.term.clone());
            scalar_sorts.push(v.value_sort());
        }
    }
    for c in &sys.consts {
        scalars.insert(c.clone(), scalar_terms.len());
        scalar_terms.push(c.clone());
        scalar_sorts.push(c.sort().clone());
    }
    let scope = |locals: HashMap<Term, usize>| Scope { scalars: &scalars, arrays: &arrays, locals };
    let top = scope(HashMap::new());
    // initial states
    let mut scalar_init: Vec<Range> = Vec::new();
    for s in &scalar_sorts {
        let (lo, hi) = sort_range(s)?;
        scalar_init.push(Range { lo, hi });
    }
    let mut array_init: Vec<(Option<i64>, Range)> = Vec::new();
    for &vi in &array_vars {
        let (lo, hi) = sort_range(&sys.vars[vi].value_sort())?;
        array_init.push((None, Range { lo, hi }));
    }
    let mut init_check = vec![];
    for q in &sys.initial {
        for lit in &q.lits {
            let used: Vec<&Term> = q.vars.iter().filter(|x| occurs(x, lit)).collect();
            if used.is_empty() {
                for (slot, t) in scalar_terms.iter().enumerate() {
                    if let Some(side) = side_of(lit, t).or_else(|| bool_side(lit, t)) {
                        narrow(&mut scalar_init[slot], side);
                    }
                }
                init_check.push(top.compile(lit)?);
            } else {
                array_literal(lit, &q.vars, &arrays, &mut array_init)?;
            }
        }
    }
    // transitions
    let mut steps = vec![];
    let mut guards = vec![];
    for t in &sys.transitions {
        if t.uguard.is_some() {
            return Err(Unsupported(format!("transition {} has a universal guard", t.name)));
        }
        // parameters are inputs too: integers, pairwise distinct (non-negative for `nat`)
        let inputs = t.inputs();
        let mut locals: HashMap<Term, usize> = inputs.iter().cloned().enumerate().map(|(i, v)| (v, i)).collect();
        let nvals = inputs.len();
        let mut lits = conjuncts(&t.guard);
        let mentioned = |p: &Term| occurs(p, &t.guard) || t.updates.iter().any(|u| occurs(p, &u.value));
        let unused: Vec<&Term> = t.params.iter().filter(|p| !mentioned(p)).collect();
        if t.params.len() > 1 {
            lits.push(Term::distinct(&t.params));
        }
        if sys.index == Some(IndexKind::Nat) {
            lits.extend(t.params.iter().map(|p| Term::le(&Term::int(0), p)));
        }
        lits.sort_by_cached_key(|l| l.to_string());
        let sc = scope(locals.clone());
        let mut values = vec![];
        for v in &inputs {
            let (lo, hi) = sort_range(v.sort())?;
            let mut b = Bounds { range: (lo, hi), ..Bounds::default() };
            if let Some(k) = unused.iter().position(|p| *p == v) {
                // an unused parameter: any value distinct from the others
                b.equal.push(Expr::Const(UNUSED_PARAM + k as i64));
            }
            for lit in &lits {
                let side = side_of(lit, v).or_else(|| bool_side(lit, v));
                let free = |e: &Term| inputs.iter().all(|w| !occurs(w, e));
                match side {
                    Some(Side::Lower(e, k)) if free(&e) => b.lower.push(offset(top.compile(&e)?, k)),
                    Some(Side::Upper(e, k)) if free(&e) => b.upper.push(offset(top.compile(&e)?, k)),
                    Some(Side::Equal(e)) if free(&e) => b.equal.push(top.compile(&e)?),
                    _ => {}
                }
            }
            values.push(b);
        }
        let mut su = vec![];
        let mut au = vec![];
        let mut nlocals = nvals;
        for u in &t.updates {
            let sv = &sys.vars[u.var];
            let range = sort_range(&sv.value_sort())?;
            if !sv.is_array {
                su.push((scalars[&sv.term], sc.compile(&u.value)?, range));
                continue;
            }
            let Op::Lambda(js) = u.value.op() else {
                return Err(Unsupported(format!("update of {} in {} is not a λ-term", sv.name(), t.name)));
            };
            let body = &u.value.args()[0];
            let Some(points) = update_points(body, &sv.term, js) else {
                return Err(Unsupported(format!("update of {} in {} changes more than named cells", sv.name(), t.name)));
            };
            for (k, j) in js.iter().enumerate() {
                locals.insert(j.clone(), nvals + k);
            }
            nlocals = nlocals.max(nvals + js.len());
            let lsc = scope(locals.clone());
            let points = points.iter().map(|ps| ps.iter().map(|p| sc.compile(p)).collect::<Result<Vec<_>, _>>()).collect::<Result<Vec<_>, _>>()?;
            au.push(ArrayUpdate { array: arrays[&sv.term], points, body: lsc.compile(body)?, first_local: nvals, range });
        }
        guards.push(lits.clone());
        steps.push(Step { guard: vec![], value_free: 0, values, scalars: su, arrays: au, locals: nlocals.max(1) });
    }
    // dispatch on the enumeration scalar most guards test against a constant
    let pc_test = |lits: &[Term], slot: usize| -> Option<(usize, i64)> {
        lits.iter().enumerate().find_map(|(k, l)| match l.op() {
            Op::Eq => {
                let a = l.args();
                let var = &scalar_terms[slot];
                if a[0] == *var {
                    a[1].as_int().or(match a[1].op() { Op::EnumConst(n) => Some(*n), _ => None }).map(|n| (k, n))
                } else {
                    None
                }
            }
            _ => None,
        })
    };
    let mut dispatch = None;
    let mut best = 0;
    for (slot, s) in scalar_sorts.iter().enumerate() {
        if let (Sort::Enum(_), Some((lo, hi))) = (s, s.finite_range()) {
            let n = guards.iter().filter(|g| pc_test(g, slot).is_some()).count();
            if n > best && hi - lo < 1 << 20 {
                best = n;
                dispatch = Some((slot, lo, hi));
            }
        }
    }
    let mut by_pc = vec![];
    let mut others = vec![];
    for (ti, lits) in guards.iter().enumerate() {
        let sc = scope(sys.transitions[ti].inputs().into_iter().enumerate().map(|(i, v)| (v, i)).collect());
        let mut lits = lits.clone();
        match dispatch.and_then(|(slot, _, _)| pc_test(&lits, slot)) {
            Some((k, n)) => {
                let (_, lo, hi) = dispatch.unwrap();
                if by_pc.is_empty() {
                    by_pc = vec![vec![]; (hi - lo + 1) as usize];
                }
                lits.remove(k);
                if (lo..=hi).contains(&n) {
                    by_pc[(n - lo) as usize].push(ti);
                }
            }
            None => others.push(ti),
        }
        let mut guard: Vec<Expr> = lits.iter().map(|l| sc.compile(l)).collect::<Result<_, _>>()?;
        guard.sort_by_key(|g| g.mentions(&[]));
        steps[ti].value_free = guard.iter().filter(|g| !g.mentions(&[])).count();
        steps[ti].guard = guard;
    }
    // unsafe cubes: literals on scalars only come first (cheap rejection)
    let mut unsafe_ = vec![];
    let mut unsafe_at = vec![false; by_pc.len()];
    for q in &sys.unsafe_ {
        match dispatch.and_then(|(slot, lo, _)| pc_test(&q.lits, slot).map(|(_, n)| n - lo)) {
            Some(k) => {
                if let Some(b) = unsafe_at.get_mut(k as usize) {
                    *b = true;
                }
            }
            None => unsafe_at.iter_mut().for_each(|b| *b = true),
        }
        if q.vars.iter().any(|z| occurs(z, &q.body())) {
            return Err(Unsupported("unsafe cubes whose index variables occur".into()));
        }
        let mut lits = q.lits.clone();
        lits.sort_by_cached_key(|l| l.to_string());
        lits.sort_by_key(|l| crate::logic::collect(l, &|t: &Term| matches!(t.op(), Op::Select)).len());
        unsafe_.push(Expr::And(lits.iter().map(|l| top.compile(l)).collect::<Result<_, _>>()?));
    }
    let mut constants = vec![];
    let mut all_terms: Vec<Term> = sys.transitions.iter().map(|t| t.guard.clone()).collect();
    all_terms.extend(sys.unsafe_.iter().map(|q| q.body()));
    all_terms.extend(sys.transitions.iter().flat_map(|t| t.updates.iter().map(|u| u.value.clone())));
    for t in &all_terms {
        for n in crate::logic::collect(t, &|x: &Term| matches!(x.op(), Op::Int(_))) {
            let n = n.as_int().unwrap();
            for k in [n.saturating_sub(1), n, n.saturating_add(1)] {
                if !constants.contains(&k) {
                    constants.push(k);
                }
            }
        }
    }
    constants.sort();
    Ok(Program {
        scalar_terms,
        array_vars,
        scalar_init,
        init_check,
        array_init,
        steps,
        dispatch: dispatch.map(|(s, lo, _)| (s, lo)),
        by_pc,
        others,
        unsafe_,
        unsafe_at,
        constants,
    })
}

/// A Boolean literal `x` or `¬x` on the variable as an equality side.
fn bool_side(lit: &Term, v: &Term) -> Option<Side> {
    if lit == v {
        return Some(Side::Equal(Term::tt()));
    }
    if matches!(lit.op(), Op::Not) && lit.args()[0] == *v {
        return Some(Side::Equal(Term::ff()));
    }
    None
}

fn literal_value(t: &Term) -> Option<i64> {
    match t.op() {
        Op::Int(n) | Op::EnumConst(n) => Some(*n),
        Op::Bool(b) => Some(*b as i64),
        _ => None,
    }
}

/// Narrows an initial range by a literal with a constant side.
fn narrow(r: &mut Range, side: Side) {
    let (e, k, kind) = match side {
        Side::Lower(e, k) => (e, k, 0),
        Side::Upper(e, k) => (e, k, 1),
        Side::Equal(e) => (e, 0, 2),
    };
    let Some(c) = literal_value(&e).and_then(|c| c.checked_add(k)) else { return };
    if kind != 1 {
        r.lo = r.lo.max(c);
    }
    if kind != 0 {
        r.hi = r.hi.min(c);
    }
}

/// An initial literal under `∀ vars`: it must read one array at exactly
/// the quantified variables and compare it with a constant.
fn array_literal(
    lit: &Term,
    vars: &[Term],
    arrays: &HashMap<Term, usize>,
    init: &mut [(Option<i64>, Range)],
) -> Result<(), Unsupported> {
    let bad = || Unsupported(format!("initial literal {lit} (only ∀x̄. a[x̄] ⋈ constant)"));
    let reads = crate::logic::collect(lit, &|t: &Term| matches!(t.op(), Op::Select));
    let [read] = reads.as_slice() else { return Err(bad()) };
    let (a, idx) = (&read.args()[0], &read.args()[1..]);
    let Some(&slot) = arrays.get(a) else { return Err(bad()) };
    if idx.len() > vars.len() || idx.iter().any(|i| !vars.contains(i)) || idx.iter().collect::<std::collections::HashSet<_>>().len() != idx.len() {
        return Err(bad());
    }
    let Some(side) = side_of(lit, read).or_else(|| bool_side(lit, read)) else { return Err(bad()) };
    let fixed = matches!(side, Side::Equal(_));
    let before = init[slot].1;
    narrow(&mut init[slot].1, side);
    let r = init[slot].1;
    if before.lo == r.lo && before.hi == r.hi && !fixed {
        return Err(bad());
    }
    if fixed {
        if r.lo != r.hi {
            return Err(bad());
        }
        init[slot].0 = Some(r.lo);
    }
    Ok(())
}
