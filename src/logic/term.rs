//! Hash-consed terms. Every structurally equal term is one shared node, so
//! equality and hashing are pointer-cheap. Nodes are interned in a
//! thread-local table and live for the rest of the thread (model-checking
//! runs build a bounded vocabulary of terms and revisit them constantly).
//!
//! The constructors simplify as they build (constant folding, flattening,
//! `ite` and equality normalisation), so a term is always in a light normal
//! form; [`Term::raw`] builds a node exactly as given.

use super::sort::{EnumValues, Sort};
use crate::HashMap;
use std::cell::RefCell;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

/// The operator at the root of a term.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Op {
    /// A named constant or variable (free, or bound by a quantifier/lambda).
    Var(Rc<str>),
    /// A Boolean literal.
    Bool(bool),
    /// An integer literal.
    Int(i64),
    /// A rational literal `num/den` in lowest terms with `den > 0`.
    Real(i64, i64),
    /// The `k`-th constant of a named enumeration (the sort says which).
    EnumConst(i64),
    /// Negation.
    Not,
    /// Conjunction of any number of formulas.
    And,
    /// Disjunction of any number of formulas.
    Or,
    /// If-then-else.
    Ite,
    /// Equality of two terms.
    Eq,
    /// Strict order `<` on numbers or process indices.
    Lt,
    /// Non-strict order `<=`.
    Le,
    /// Sum of any number of terms.
    Add,
    /// Arithmetic negation.
    Neg,
    /// Product (linear: at most one non-constant factor survives simplification).
    Mul,
    /// Integer division (SMT-LIB `div`) or real division `/`.
    Div,
    /// Integer remainder (`mod`).
    Mod,
    /// A C bitwise operator on two's complement words ([`Bits`]).
    Bits(Bits),
    /// Array read `a[i1, ..., in]`.
    Select,
    /// Array write `a[i1, ..., in := v]` (args: array, indices..., value).
    Store,
    /// Universal quantification over the listed variables.
    Forall(Rc<[Term]>),
    /// Existential quantification over the listed variables.
    Exists(Rc<[Term]>),
    /// An array given by a function of its indices: `λ vars. body`.
    Lambda(Rc<[Term]>),
}

/// The bitwise operators of C.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum BitKind {
    /// `&`
    And,
    /// `|`
    Or,
    /// `^`
    Xor,
}

/// A C bitwise operator (`&`, `|`, `^`) on integers taken as `width`-bit
/// two's complement words (each argument modulo `2^width`); the resulting
/// word is read as a signed or an unsigned integer. Printed
/// `band.s32`, `bor.u32`, `bxor.s64`, …
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Bits {
    /// Which operator.
    pub kind: BitKind,
    /// The word width in bits (1 to 64).
    pub width: u8,
    /// Whether the result word is read as signed.
    pub signed: bool,
}

impl Bits {
    /// The value on two integers (`None` when it does not fit `i64`).
    pub fn apply(self, x: i64, y: i64) -> Option<i64> {
        let w = self.width as u32;
        let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
        let (a, b) = (x as u64 & mask, y as u64 & mask);
        let r = match self.kind {
            BitKind::And => a & b,
            BitKind::Or => a | b,
            BitKind::Xor => a ^ b,
        };
        if self.signed {
            let negative = w > 0 && (r >> (w - 1)) & 1 == 1;
            Some(if negative && w < 64 { r as i64 - (1i64 << (w - 1)) - (1i64 << (w - 1)) } else { r as i64 })
        } else {
            i64::try_from(r).ok()
        }
    }
    /// The printed name (`band.s32`).
    pub fn name(self) -> String {
        let op = match self.kind {
            BitKind::And => "band",
            BitKind::Or => "bor",
            BitKind::Xor => "bxor",
        };
        format!("{op}.{}{}", if self.signed { 's' } else { 'u' }, self.width)
    }
    /// The operator a printed name stands for.
    pub fn parse(name: &str) -> Option<Bits> {
        let (op, ty) = name.split_once('.')?;
        let kind = match op {
            "band" => BitKind::And,
            "bor" => BitKind::Or,
            "bxor" => BitKind::Xor,
            _ => return None,
        };
        let signed = match ty.as_bytes().first()? {
            b's' => true,
            b'u' => false,
            _ => return None,
        };
        let width: u8 = ty[1..].parse().ok().filter(|w| (1..=64).contains(w))?;
        Some(Bits { kind, width, signed })
    }
}

/// A shared, hash-consed term node.
pub struct Node {
    id: u32,
    op: Op,
    args: Box<[Term]>,
    sort: Sort,
}

/// A term: a cheap handle to an interned node.
#[derive(Clone)]
pub struct Term(Rc<Node>);

impl PartialEq for Term {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}
impl Eq for Term {}
impl Hash for Term {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.0.id.hash(h)
    }
}
impl PartialOrd for Term {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Term {
    /// Creation order: cheap and stable within one run (use the printed form
    /// for orders that must not depend on the run).
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.id.cmp(&other.0.id)
    }
}
impl fmt::Debug for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

thread_local! {
    /// Every node made on this thread, found by its content.
    static TABLE: RefCell<hashbrown::HashTable<Term>> = const { RefCell::new(hashbrown::HashTable::new()) };
}

/// The hash of a node's content.
fn content_hash(op: &Op, args: &[Term], sort: &Sort) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    op.hash(&mut h);
    args.hash(&mut h);
    sort.hash(&mut h);
    h.finish()
}

/// The number of distinct terms interned so far on this thread.
pub fn interned_count() -> usize {
    TABLE.with(|t| t.borrow().len())
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1) as i64
}

impl Term {
    /// Interns a node exactly as given (no simplification).
    pub fn raw(op: Op, args: Vec<Term>, sort: Sort) -> Term {
        let hash = content_hash(&op, &args, &sort);
        TABLE.with(|t| {
            let mut t = t.borrow_mut();
            if let Some(n) = t.find(hash, |n| n.0.op == op && *n.0.args == *args && n.0.sort == sort) {
                return n.clone();
            }
            let id = t.len() as u32;
            let node = Term(Rc::new(Node { id, op, args: args.into_boxed_slice(), sort }));
            t.insert_unique(hash, node.clone(), |n| content_hash(&n.0.op, &n.0.args, &n.0.sort));
            node
        })
    }

    /// The root operator.
    pub fn op(&self) -> &Op {
        &self.0.op
    }
    /// The arguments of the root operator.
    pub fn args(&self) -> &[Term] {
        &self.0.args
    }
    /// The sort of the term.
    pub fn sort(&self) -> &Sort {
        &self.0.sort
    }
    /// A number unique to this term on this thread.
    pub fn id(&self) -> u32 {
        self.0.id
    }
    /// The name, if the term is a variable or constant symbol.
    pub fn var_name(&self) -> Option<&str> {
        match &self.0.op {
            Op::Var(n) => Some(n),
            _ => None,
        }
    }
    /// Whether the term is a variable or constant symbol.
    pub fn is_var(&self) -> bool {
        matches!(self.0.op, Op::Var(_))
    }
    /// The Boolean value, if the term is `true` or `false`.
    pub fn as_bool(&self) -> Option<bool> {
        match self.0.op {
            Op::Bool(b) => Some(b),
            _ => None,
        }
    }
    /// The integer value, if the term is an integer literal.
    pub fn as_int(&self) -> Option<i64> {
        match self.0.op {
            Op::Int(n) => Some(n),
            _ => None,
        }
    }
    /// Whether the term is a literal value (Boolean, number or enumeration constant).
    pub fn is_value(&self) -> bool {
        matches!(self.0.op, Op::Bool(_) | Op::Int(_) | Op::Real(..) | Op::EnumConst(_))
    }
    /// A literal's value as a rational `(num, den)`, for numbers.
    fn as_rational(&self) -> Option<(i64, i64)> {
        match self.0.op {
            Op::Int(n) => Some((n, 1)),
            Op::Real(n, d) => Some((n, d)),
            _ => None,
        }
    }

    // ----- leaves -----

    /// A variable or constant symbol of the given sort.
    pub fn var(name: &str, sort: Sort) -> Term {
        Term::raw(Op::Var(name.into()), vec![], sort)
    }
    /// A Boolean literal.
    pub fn bool(b: bool) -> Term {
        Term::raw(Op::Bool(b), vec![], Sort::Bool)
    }
    /// `true`.
    pub fn tt() -> Term {
        Term::bool(true)
    }
    /// `false`.
    pub fn ff() -> Term {
        Term::bool(false)
    }
    /// An integer literal.
    pub fn int(n: i64) -> Term {
        Term::raw(Op::Int(n), vec![], Sort::Int)
    }
    /// A rational literal `num/den` (normalised; integral values stay `Real`).
    pub fn real(num: i64, den: i64) -> Term {
        assert!(den != 0, "zero denominator");
        let g = gcd(num, den) * den.signum();
        Term::raw(Op::Real(num / g, den / g), vec![], Sort::Real)
    }
    /// A number literal of the given numeric sort.
    fn number(num: i64, den: i64, sort: &Sort) -> Term {
        if *sort == Sort::Real {
            Term::real(num, den)
        } else {
            Term::int(num / den)
        }
    }
    /// The `k`-th constant of a named enumeration sort.
    pub fn enum_const(sort: Sort, k: i64) -> Term {
        Term::raw(Op::EnumConst(k), vec![], sort)
    }

    // ----- Boolean structure -----

    /// Negation, simplified.
    pub fn not(&self) -> Term {
        match self.op() {
            Op::Bool(b) => Term::bool(!b),
            Op::Not => self.args()[0].clone(),
            _ => Term::raw(Op::Not, vec![self.clone()], Sort::Bool),
        }
    }

    fn junction(is_and: bool, items: impl IntoIterator<Item = Term>) -> Term {
        let (unit, zero) = (is_and, !is_and);
        let op = if is_and { Op::And } else { Op::Or };
        let mut out: Vec<Term> = Vec::new();
        let mut stack: Vec<Term> = items.into_iter().collect();
        stack.reverse();
        while let Some(t) = stack.pop() {
            match t.op() {
                Op::Bool(b) if *b == unit => {}
                Op::Bool(_) => return Term::bool(zero),
                o if *o == op => {
                    for a in t.args().iter().rev() {
                        stack.push(a.clone());
                    }
                }
                _ => out.push(t),
            }
        }
        out.sort();
        out.dedup();
        // complementary pair?
        for t in &out {
            if let Op::Not = t.op() {
                if out.binary_search(&t.args()[0]).is_ok() {
                    return Term::bool(zero);
                }
            }
        }
        match out.len() {
            0 => Term::bool(unit),
            1 => out.pop().unwrap(),
            _ => Term::raw(op, out, Sort::Bool),
        }
    }
    /// Conjunction, flattened, deduplicated and folded.
    pub fn and(items: impl IntoIterator<Item = Term>) -> Term {
        Term::junction(true, items)
    }
    /// Disjunction, flattened, deduplicated and folded.
    pub fn or(items: impl IntoIterator<Item = Term>) -> Term {
        Term::junction(false, items)
    }
    /// Implication `a => b`, as `¬a ∨ b`.
    pub fn implies(a: &Term, b: &Term) -> Term {
        Term::or([a.not(), b.clone()])
    }
    /// If-then-else, simplified.
    pub fn ite(c: &Term, t: &Term, e: &Term) -> Term {
        match c.op() {
            Op::Bool(true) => return t.clone(),
            Op::Bool(false) => return e.clone(),
            Op::Not => return Term::ite(&c.args()[0], e, t),
            _ => {}
        }
        if t == e {
            return t.clone();
        }
        if *t.sort() == Sort::Bool {
            return match (t.as_bool(), e.as_bool()) {
                (Some(true), Some(false)) => c.clone(),
                (Some(false), Some(true)) => c.not(),
                (Some(true), None) => Term::or([c.clone(), e.clone()]),
                (Some(false), None) => Term::and([c.not(), e.clone()]),
                (None, Some(true)) => Term::or([c.not(), t.clone()]),
                (None, Some(false)) => Term::and([c.clone(), t.clone()]),
                _ => Term::raw(Op::Ite, vec![c.clone(), t.clone(), e.clone()], Sort::Bool),
            };
        }
        // ite(c, ite(c, a, b), e) = ite(c, a, e)
        if let Op::Ite = t.op() {
            if t.args()[0] == *c {
                return Term::ite(c, &t.args()[1], e);
            }
        }
        if let Op::Ite = e.op() {
            if e.args()[0] == *c {
                return Term::ite(c, t, &e.args()[2]);
            }
        }
        let sort = if t.sort() == e.sort() || !t.sort().is_int_like() { t.sort().clone() } else { Sort::Int };
        Term::raw(Op::Ite, vec![c.clone(), t.clone(), e.clone()], sort)
    }

    // ----- equality and order -----

    /// Equality, simplified: identical terms are equal, distinct literals are
    /// not, equalities with a Boolean literal become the formula or its negation.
    ///
    /// ```
    /// use arrax::logic::{Sort, Term};
    /// let p = Term::var("p", Sort::Bool);
    /// assert_eq!(Term::eq(&p, &Term::ff()), p.not());
    /// assert_eq!(Term::eq(&Term::int(1), &Term::int(2)), Term::ff());
    /// ```
    pub fn eq(a: &Term, b: &Term) -> Term {
        if a == b {
            return Term::tt();
        }
        if a.is_value() && b.is_value() {
            return Term::bool(match (a.as_rational(), b.as_rational()) {
                (Some(x), Some(y)) => x == y,
                _ => false,
            });
        }
        if *a.sort() == Sort::Bool {
            match (a.as_bool(), b.as_bool()) {
                (Some(true), _) => return b.clone(),
                (Some(false), _) => return b.not(),
                (_, Some(true)) => return a.clone(),
                (_, Some(false)) => return a.not(),
                _ => {}
            }
        }
        // Out-of-range literal against a finite sort.
        for (x, y) in [(a, b), (b, a)] {
            if let (Some(n), Some((lo, hi))) = (y.as_int(), x.sort().finite_range()) {
                if matches!(x.sort(), Sort::Enum(d) if matches!(d.values, EnumValues::Subrange(..))) && (n < lo || n > hi) {
                    return Term::ff();
                }
            }
        }
        // ite(c, v1, v2) = v with literals: fold to c or ¬c where decidable.
        for (x, y) in [(a, b), (b, a)] {
            if let Op::Ite = x.op() {
                if y.is_value() && x.args()[1].is_value() && x.args()[2].is_value() {
                    let (c, t, e) = (&x.args()[0], &x.args()[1], &x.args()[2]);
                    let et = Term::eq(t, y);
                    let ee = Term::eq(e, y);
                    return Term::or([Term::and([c.clone(), et]), Term::and([c.not(), ee])]);
                }
            }
        }
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        // put literals on the right for readability
        let (a, b) = if a.is_value() && !b.is_value() { (b, a) } else { (a, b) };
        Term::raw(Op::Eq, vec![a.clone(), b.clone()], Sort::Bool)
    }
    /// Pairwise distinctness of the given terms.
    pub fn distinct(items: &[Term]) -> Term {
        let mut cs = vec![];
        for i in 0..items.len() {
            for j in i + 1..items.len() {
                cs.push(Term::eq(&items[i], &items[j]).not());
            }
        }
        Term::and(cs)
    }
    /// Strict order `a < b`, folded on literals.
    pub fn lt(a: &Term, b: &Term) -> Term {
        if a == b {
            return Term::ff();
        }
        if let (Some((n1, d1)), Some((n2, d2))) = (a.as_rational(), b.as_rational()) {
            return Term::bool((n1 as i128) * (d2 as i128) < (n2 as i128) * (d1 as i128));
        }
        Term::raw(Op::Lt, vec![a.clone(), b.clone()], Sort::Bool)
    }
    /// Non-strict order `a <= b`, folded on literals.
    pub fn le(a: &Term, b: &Term) -> Term {
        if a == b {
            return Term::tt();
        }
        if let (Some((n1, d1)), Some((n2, d2))) = (a.as_rational(), b.as_rational()) {
            return Term::bool((n1 as i128) * (d2 as i128) <= (n2 as i128) * (d1 as i128));
        }
        Term::raw(Op::Le, vec![a.clone(), b.clone()], Sort::Bool)
    }
    /// `a > b`, as `b < a`.
    pub fn gt(a: &Term, b: &Term) -> Term {
        Term::lt(b, a)
    }
    /// `a >= b`, as `b <= a`.
    pub fn ge(a: &Term, b: &Term) -> Term {
        Term::le(b, a)
    }

    // ----- arithmetic -----

    fn arith_sort(items: &[Term]) -> Sort {
        if items.iter().any(|t| *t.sort() == Sort::Real) {
            Sort::Real
        } else {
            Sort::Int
        }
    }
    /// Sum, flattened, with constants folded.
    ///
    /// ```
    /// use arrax::logic::{Sort, Term};
    /// let x = Term::var("x", Sort::Int);
    /// let s = Term::add([Term::int(2), x.clone(), Term::int(3)]);
    /// assert_eq!(s, Term::add([x, Term::int(5)]));
    /// assert_eq!(Term::add([Term::int(2), Term::int(-2)]), Term::int(0));
    /// ```
    pub fn add(items: impl IntoIterator<Item = Term>) -> Term {
        let items: Vec<Term> = items.into_iter().collect();
        let sort = Term::arith_sort(&items);
        let (mut num, mut den) = (0i64, 1i64);
        let mut out = vec![];
        let mut stack = items;
        stack.reverse();
        while let Some(t) = stack.pop() {
            if let Some((n, d)) = t.as_rational() {
                num = num * d + n * den;
                den *= d;
                let g = gcd(num, den);
                (num, den) = (num / g, den / g);
            } else if let Op::Add = t.op() {
                for a in t.args().iter().rev() {
                    stack.push(a.clone());
                }
            } else {
                out.push(t);
            }
        }
        if num != 0 {
            out.push(Term::number(num, den, &sort));
        }
        match out.len() {
            0 => Term::number(0, 1, &sort),
            1 => out.pop().unwrap(),
            _ => Term::raw(Op::Add, out, sort),
        }
    }
    /// Arithmetic negation.
    pub fn neg(&self) -> Term {
        match self.op() {
            Op::Int(n) => Term::int(-n),
            Op::Real(n, d) => Term::real(-n, *d),
            Op::Neg => self.args()[0].clone(),
            _ => {
                let sort = Term::arith_sort(std::slice::from_ref(self));
                Term::raw(Op::Neg, vec![self.clone()], sort)
            }
        }
    }
    /// Difference `a - b`.
    pub fn sub(a: &Term, b: &Term) -> Term {
        Term::add([a.clone(), b.neg()])
    }
    /// Product, with constants folded.
    pub fn mul(items: impl IntoIterator<Item = Term>) -> Term {
        let items: Vec<Term> = items.into_iter().collect();
        let sort = Term::arith_sort(&items);
        let (mut num, mut den) = (1i64, 1i64);
        let mut out = vec![];
        for t in items {
            if let Some((n, d)) = t.as_rational() {
                num *= n;
                den *= d;
                let g = gcd(num, den);
                (num, den) = (num / g, den / g);
            } else {
                out.push(t);
            }
        }
        if num == 0 {
            return Term::number(0, 1, &sort);
        }
        if out.is_empty() {
            return Term::number(num, den, &sort);
        }
        if num == 1 && den == 1 && out.len() == 1 {
            return out.pop().unwrap();
        }
        if num == -1 && den == 1 && out.len() == 1 {
            return out[0].neg();
        }
        if num != 1 || den != 1 {
            out.insert(0, Term::number(num, den, &sort));
        }
        Term::raw(Op::Mul, out, sort)
    }
    /// Division (integer `div` on Int, `/` on Real); folded on literals.
    pub fn div(a: &Term, b: &Term) -> Term {
        let sort = Term::arith_sort(&[a.clone(), b.clone()]);
        if let (Some((n1, d1)), Some((n2, d2))) = (a.as_rational(), b.as_rational()) {
            if n2 != 0 {
                if sort == Sort::Real {
                    return Term::real(n1 * d2, d1 * n2);
                }
                return Term::int(n1.div_euclid(n2));
            }
        }
        if b.as_rational() == Some((1, 1)) {
            return a.clone();
        }
        Term::raw(Op::Div, vec![a.clone(), b.clone()], sort)
    }
    /// Integer remainder, folded on literals (SMT-LIB semantics: non-negative).
    pub fn modulo(a: &Term, b: &Term) -> Term {
        if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
            if y != 0 {
                return Term::int(x.rem_euclid(y));
            }
        }
        Term::raw(Op::Mod, vec![a.clone(), b.clone()], Sort::Int)
    }

    /// A C bitwise operator on two integers, folded on literals.
    pub fn bits(op: Bits, a: &Term, b: &Term) -> Term {
        if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
            if let Some(v) = op.apply(x, y) {
                return Term::int(v);
            }
        }
        Term::raw(Op::Bits(op), vec![a.clone(), b.clone()], Sort::Int)
    }

    // ----- arrays -----

    /// Array read `a[idx]`; reads through writes with syntactically decided
    /// indices and beta-reduces lambdas.
    pub fn select(a: &Term, idx: &[Term]) -> Term {
        match a.op() {
            Op::Lambda(vars) if **vars == *idx => return a.args()[0].clone(),
            Op::Lambda(vars) => {
                let map: HashMap<Term, Term> = vars.iter().cloned().zip(idx.iter().cloned()).collect();
                return super::subst::substitute(&a.args()[0], &map);
            }
            Op::Store => {
                let n = idx.len();
                let (base, rest) = a.args().split_first().unwrap();
                let (widx, val) = (&rest[..n], &rest[n]);
                if widx == idx {
                    return val.clone();
                }
                if widx.iter().zip(idx).any(|(w, i)| w.is_value() && i.is_value() && w != i) {
                    return Term::select(base, idx);
                }
            }
            _ => {}
        }
        let elem = a.sort().as_array().map(|s| s.elem.clone()).unwrap_or(Sort::Bool);
        let mut args = vec![a.clone()];
        args.extend(idx.iter().cloned());
        Term::raw(Op::Select, args, elem)
    }
    /// Array write `a[idx := v]`.
    pub fn store(a: &Term, idx: &[Term], v: &Term) -> Term {
        let mut args = vec![a.clone()];
        args.extend(idx.iter().cloned());
        args.push(v.clone());
        Term::raw(Op::Store, args, a.sort().clone())
    }

    // ----- binders -----

    fn binder(vars: &[Term], body: &Term, forall: bool) -> Term {
        let used = super::subst::free_vars(body);
        let vars: Vec<Term> = vars.iter().filter(|v| used.contains(v)).cloned().collect();
        if vars.is_empty() {
            return body.clone();
        }
        let op = if forall { Op::Forall(vars.into()) } else { Op::Exists(vars.into()) };
        Term::raw(op, vec![body.clone()], Sort::Bool)
    }
    /// `∀ vars. body` (variables not occurring in the body are dropped).
    pub fn forall(vars: &[Term], body: &Term) -> Term {
        Term::binder(vars, body, true)
    }
    /// `∃ vars. body` (variables not occurring in the body are dropped).
    pub fn exists(vars: &[Term], body: &Term) -> Term {
        Term::binder(vars, body, false)
    }
    /// The array `λ vars. body`.
    pub fn lambda(vars: &[Term], body: &Term) -> Term {
        let sort = Sort::array(vars.iter().map(|v| v.sort().clone()).collect(), body.sort().clone());
        Term::raw(Op::Lambda(vars.to_vec().into()), vec![body.clone()], sort)
    }

    /// Rebuilds a node of this term's shape over new arguments, simplifying.
    pub fn rebuild(&self, args: Vec<Term>) -> Term {
        let a = &args;
        match self.op() {
            Op::Var(_) | Op::Bool(_) | Op::Int(_) | Op::Real(..) | Op::EnumConst(_) => self.clone(),
            Op::Not => a[0].not(),
            Op::And => Term::and(args),
            Op::Or => Term::or(args),
            Op::Ite => Term::ite(&a[0], &a[1], &a[2]),
            Op::Eq => Term::eq(&a[0], &a[1]),
            Op::Lt => Term::lt(&a[0], &a[1]),
            Op::Le => Term::le(&a[0], &a[1]),
            Op::Add => Term::add(args),
            Op::Neg => a[0].neg(),
            Op::Mul => Term::mul(args),
            Op::Div => Term::div(&a[0], &a[1]),
            Op::Mod => Term::modulo(&a[0], &a[1]),
            Op::Bits(b) => Term::bits(*b, &a[0], &a[1]),
            Op::Select => Term::select(&a[0], &a[1..]),
            Op::Store => Term::store(&a[0], &a[1..a.len() - 1], &a[a.len() - 1]),
            Op::Forall(vs) => Term::forall(vs, &a[0]),
            Op::Exists(vs) => Term::exists(vs, &a[0]),
            Op::Lambda(vs) => Term::lambda(vs, &a[0]),
        }
    }
}
