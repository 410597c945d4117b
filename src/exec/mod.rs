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

mod compile;

pub use compile::{compile, ArrayUpdate, Bounds, Program, Range, Step};

use crate::HashMap;

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
    /// A read of an array of two to [`MAX_DIMS`] dimensions.
    ReadN(usize, Box<[Expr]>),
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
    /// A C bitwise operator on two's complement words.
    Bits(crate::logic::Bits, Box<(Expr, Expr)>),
}

/// Chooses the content of array cells that the initial formula leaves
/// open, when they are first read.
pub trait CellOracle {
    /// The initial value of cell `idx` of array `array`, within `lo..=hi`.
    fn cell(&mut self, array: usize, idx: Idx, lo: i64, hi: i64) -> i64;
}

/// The most dimensions an array may have in execution.
pub const MAX_DIMS: usize = 4;

/// The index of a cell: one integer per dimension, 0 beyond the array's
/// dimensions.
pub type Idx = [i64; MAX_DIMS];

/// The index of a cell of a one-dimensional array.
pub fn idx1(i: i64) -> Idx {
    [i, 0, 0, 0]
}

/// Whether a cell index names a cell of a one-dimensional array (or one
/// whose other indices are 0).
fn flat(idx: &Idx) -> bool {
    idx[1..].iter().all(|&k| k == 0)
}

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
    sparse: HashMap<Idx, i64>,
}

impl Cells {
    /// An array whose cells all hold `default`, or (`None`) are chosen in `lo..=hi` when read.
    pub fn new(default: Option<i64>, lo: i64, hi: i64) -> Cells {
        Cells { default, lo, hi, dense: vec![], known: vec![], sparse: HashMap::default() }
    }
    fn get(&self, idx: Idx) -> Option<i64> {
        if flat(&idx) && (0..self.dense.len() as i64).contains(&idx[0]) {
            let k = idx[0] as usize;
            if self.known[k] {
                return Some(self.dense[k]);
            }
            return None;
        }
        self.sparse.get(&idx).copied()
    }
    /// The values a cell may hold: its value when known (set, or the
    /// array's default), else the range it would be chosen from.
    pub fn peek(&self, idx: Idx) -> (i64, i64) {
        match self.get(idx).or(self.default) {
            Some(v) => (v, v),
            None => (self.lo, self.hi),
        }
    }
    /// Sets a cell.
    pub fn set(&mut self, idx: Idx, v: i64) {
        if flat(&idx) && (0..DENSE_LIMIT).contains(&idx[0]) {
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
    /// Reads cell `i` of a one-dimensional array (the dense cells first).
    #[inline(always)]
    fn read1(&mut self, array: usize, i: i64, o: &mut impl CellOracle) -> i64 {
        if let Some(k) = usize::try_from(i).ok().filter(|&k| k < self.dense.len() && self.known[k]) {
            return self.dense[k];
        }
        self.read(array, idx1(i), o)
    }
    fn read(&mut self, array: usize, idx: Idx, o: &mut impl CellOracle) -> i64 {
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
                self.arrays[*a].read1(*a, i, o)
            }
            Expr::ReadN(a, is) => {
                let mut idx: Idx = [0; MAX_DIMS];
                for (d, i) in is.iter().enumerate() {
                    idx[d] = self.eval(i, loc, o)?;
                }
                self.arrays[*a].read(*a, idx, o)
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
            Expr::Bits(op, ab) => {
                let (a, b) = pair(ab, self, loc, o)?;
                op.apply(a, b).ok_or(Fault::Overflow)?
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
                Some(i) => Some(self.arrays[*a].read(*a, idx1(i), o)),
                None => None,
            },
            Expr::ReadN(a, is) => {
                let mut idx: Idx = [0; MAX_DIMS];
                for (d, i) in is.iter().enumerate() {
                    match self.eval_partial(i, unknown, o)? {
                        Some(v) => idx[d] = v,
                        None => return Ok(None),
                    }
                }
                Some(self.arrays[*a].read(*a, idx, o))
            }
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
            Expr::Bits(op, ab) => {
                let (Some(x), Some(y)) = (self.eval_partial(&ab.0, unknown, o)?, self.eval_partial(&ab.1, unknown, o)?) else {
                    return Ok(None);
                };
                Some(op.apply(x, y).ok_or(Fault::Overflow)?)
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
            Expr::ReadN(_, is) => is.iter().any(|i| i.mentions(slots)),
            Expr::Div(ij) | Expr::Mod(ij) | Expr::Bits(_, ij) => ij.0.mentions(slots) || ij.1.mentions(slots),
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
