//! Compiling a [`System`] into a [`Program`]: slots for scalars and
//! arrays, expression trees for guards and updates, bounds of inputs read
//! off guard literals, initial ranges, the program-counter dispatch.

use super::{Arg, Expr, Unsupported};
use crate::logic::{conjuncts, occurs, substitute, Op, Sort, Term};
use crate::system::{IndexKind, System};
use crate::HashMap;

/// The value given to the first parameter that a transition does not use
/// (the next ones get the next numbers): far from the indices programs use,
/// so that it differs from the other parameters.
const UNUSED_PARAM: i64 = 1 << 40;

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
    /// Per value of the dispatching slot, whether its transitions exclude
    /// each other (any two have complementary literals without inputs), so
    /// that at most one is enabled.
    pub exclusive: Vec<bool>,
    /// The unsafe cubes' bodies (each a conjunction).
    pub unsafe_: Vec<Expr>,
    /// Per value of the dispatching slot, whether some unsafe cube can hold
    /// there (cubes testing the slot against a constant hold only at it).
    pub unsafe_at: Vec<bool>,
    /// Integer literals of the system (values suggested to the strategy).
    pub constants: Vec<i64>,
    /// Values a solver suggests from the error condition (set by the
    /// forward engine; tried exactly, and often, by its suggested mode).
    pub suggested: Vec<i64>,
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
        let bin = |t: &Term| -> Result<Box<(Expr, Expr)>, Unsupported> { Ok(Box::new((self.compile(&t.args()[0])?, self.compile(&t.args()[1])?))) };
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
            Op::Eq if t.args()[0].sort().as_array().is_some() => return Err(Unsupported(format!("array equality {t}"))),
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
            Op::Bits(b) => Expr::Bits(*b, bin(t)?),
            Op::Select => {
                let a = &t.args()[0];
                let Some(&slot) = self.arrays.get(a) else {
                    return Err(Unsupported(format!("read of a non-variable array in {t}")));
                };
                match &t.args()[1..] {
                    [i] => Expr::Read1(slot, self.compile(i)?.into()),
                    is if is.len() <= super::MAX_DIMS => Expr::ReadN(slot, is.iter().map(|i| self.compile(i)).collect::<Result<_, _>>()?),
                    _ => return Err(Unsupported(format!("arrays of more than {} dimensions", super::MAX_DIMS))),
                }
            }
            Op::Real(..) => return Err(Unsupported("real numbers".into())),
            _ => return Err(Unsupported(format!("term {t}"))),
        })
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
    let mut atoms: HashMap<Term, Term> = HashMap::default();
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
    let slots = Slots::of(sys)?;
    let (scalar_init, array_init, init_check) = slots.initial(sys)?;
    let (mut steps, guards) = slots.steps(sys)?;
    let dispatch = slots.dispatch(&guards);
    let (by_pc, others) = slots.buckets(sys, &guards, dispatch, &mut steps)?;
    let exclusive = exclusive_buckets(sys, &guards, &by_pc, &others);
    let (unsafe_, unsafe_at) = slots.unsafe_cubes(sys, dispatch, by_pc.len())?;
    Ok(Program {
        scalar_terms: slots.scalar_terms,
        array_vars: slots.array_vars,
        scalar_init,
        init_check,
        array_init,
        steps,
        dispatch: dispatch.map(|(s, lo, _)| (s, lo)),
        by_pc,
        others,
        exclusive,
        unsafe_,
        unsafe_at,
        constants: constants(sys),
        suggested: vec![],
    })
}

/// The slots of a system's variables: scalars (state scalars, then rigid
/// constants) and arrays, numbered in order.
struct Slots {
    scalars: HashMap<Term, usize>,
    arrays: HashMap<Term, usize>,
    scalar_terms: Vec<Term>,
    array_vars: Vec<usize>,
    scalar_sorts: Vec<Sort>,
}

/// The initial states as compiled: ranges of the scalars, defaults and
/// ranges of the arrays, and the literals to check.
type Initial = (Vec<Range>, Vec<(Option<i64>, Range)>, Vec<Expr>);

/// A dispatch variable's slot and the range of its values.
type Dispatch = Option<(usize, i64, i64)>;

impl Slots {
    fn of(sys: &System) -> Result<Slots, Unsupported> {
        let mut out = Slots { scalars: HashMap::default(), arrays: HashMap::default(), scalar_terms: vec![], array_vars: vec![], scalar_sorts: vec![] };
        for (i, v) in sys.vars.iter().enumerate() {
            if v.is_array {
                let dims = v.term.sort().as_array().map(|a| a.index.len()).unwrap_or(1);
                if dims > super::MAX_DIMS {
                    return Err(Unsupported(format!("array {} has more than {} dimensions", v.name(), super::MAX_DIMS)));
                }
                sort_range(&v.value_sort())?;
                out.arrays.insert(v.term.clone(), out.array_vars.len());
                out.array_vars.push(i);
            } else {
                out.scalars.insert(v.term.clone(), out.scalar_terms.len());
                out.scalar_terms.push(v.term.clone());
                out.scalar_sorts.push(v.value_sort());
            }
        }
        for c in &sys.consts {
            out.scalars.insert(c.clone(), out.scalar_terms.len());
            out.scalar_terms.push(c.clone());
            out.scalar_sorts.push(c.sort().clone());
        }
        Ok(out)
    }

    /// The scope of these slots with the given locals.
    fn scope(&self, locals: HashMap<Term, usize>) -> Scope<'_> {
        Scope { scalars: &self.scalars, arrays: &self.arrays, locals }
    }

    /// The initial states: ranges narrowed by the literals on scalars, the
    /// arrays' defaults, the ground literals to check.
    fn initial(&self, sys: &System) -> Result<Initial, Unsupported> {
        let top = self.scope(HashMap::default());
        let mut scalar_init: Vec<Range> = Vec::new();
        for s in &self.scalar_sorts {
            let (lo, hi) = sort_range(s)?;
            scalar_init.push(Range { lo, hi });
        }
        let mut array_init: Vec<(Option<i64>, Range)> = Vec::new();
        for &vi in &self.array_vars {
            let (lo, hi) = sort_range(&sys.vars[vi].value_sort())?;
            array_init.push((None, Range { lo, hi }));
        }
        let mut init_check = vec![];
        for q in &sys.initial {
            for lit in &q.lits {
                let used: Vec<&Term> = q.vars.iter().filter(|x| occurs(x, lit)).collect();
                if used.is_empty() {
                    for (slot, t) in self.scalar_terms.iter().enumerate() {
                        if let Some(side) = side_of(lit, t).or_else(|| bool_side(lit, t)) {
                            narrow(&mut scalar_init[slot], side);
                        }
                    }
                    init_check.push(top.compile(lit)?);
                } else {
                    array_literal(lit, &q.vars, &self.arrays, &mut array_init)?;
                }
            }
        }
        Ok((scalar_init, array_init, init_check))
    }

    /// Each transition's step (its guard compiled later, by
    /// [`Slots::buckets`]) and its guard's literals.
    fn steps(&self, sys: &System) -> Result<(Vec<Step>, Vec<Vec<Term>>), Unsupported> {
        let mut steps = vec![];
        let mut guards = vec![];
        for t in &sys.transitions {
            if t.uguard.is_some() {
                return Err(Unsupported(format!("transition {} has a universal guard", t.name)));
            }
            let (step, lits) = self.step(sys, t)?;
            steps.push(step);
            guards.push(lits);
        }
        Ok((steps, guards))
    }

    /// A transition's step: its inputs' bounds and its updates; with its
    /// guard's literals (parameters pairwise distinct, non-negative for
    /// `nat`).
    fn step(&self, sys: &System, t: &crate::system::Transition) -> Result<(Step, Vec<Term>), Unsupported> {
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
        let sc = self.scope(locals.clone());
        let values = inputs.iter().map(|v| self.bounds(v, &inputs, &unused, &lits)).collect::<Result<Vec<_>, _>>()?;
        let mut su = vec![];
        let mut au = vec![];
        let mut nlocals = nvals;
        for u in &t.updates {
            let sv = &sys.vars[u.var];
            let range = sort_range(&sv.value_sort())?;
            if !sv.is_array {
                su.push((self.scalars[&sv.term], sc.compile(&u.value)?, range));
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
            let lsc = self.scope(locals.clone());
            let points = points.iter().map(|ps| ps.iter().map(|p| sc.compile(p)).collect::<Result<Vec<_>, _>>()).collect::<Result<Vec<_>, _>>()?;
            au.push(ArrayUpdate { array: self.arrays[&sv.term], points, body: lsc.compile(body)?, first_local: nvals, range });
        }
        let step = Step { guard: vec![], value_free: 0, values, scalars: su, arrays: au, locals: nlocals.max(1) };
        Ok((step, lits))
    }

    /// The bounds the guard's literals `lits` put on input `v` (by terms
    /// free of inputs); an unused parameter is any value distinct from the
    /// others.
    fn bounds(&self, v: &Term, inputs: &[Term], unused: &[&Term], lits: &[Term]) -> Result<Bounds, Unsupported> {
        let top = self.scope(HashMap::default());
        let (lo, hi) = sort_range(v.sort())?;
        let mut b = Bounds { range: (lo, hi), ..Bounds::default() };
        if let Some(k) = unused.iter().position(|p| *p == v) {
            b.equal.push(Expr::Const(UNUSED_PARAM + k as i64));
        }
        for lit in lits {
            let side = side_of(lit, v).or_else(|| bool_side(lit, v));
            let free = |e: &Term| inputs.iter().all(|w| !occurs(w, e));
            match side {
                Some(Side::Lower(e, k)) if free(&e) => b.lower.push(offset(top.compile(&e)?, k)),
                Some(Side::Upper(e, k)) if free(&e) => b.upper.push(offset(top.compile(&e)?, k)),
                Some(Side::Equal(e)) if free(&e) => b.equal.push(top.compile(&e)?),
                _ => {}
            }
        }
        Ok(b)
    }

    /// The position of a literal among `lits` testing scalar `slot`
    /// against a constant, and the constant.
    fn pc_test(&self, lits: &[Term], slot: usize) -> Option<(usize, i64)> {
        let var = &self.scalar_terms[slot];
        lits.iter().enumerate().find_map(|(k, l)| match l.op() {
            Op::Eq if l.args()[0] == *var => {
                let a = l.args();
                a[1].as_int()
                    .or(match a[1].op() {
                        Op::EnumConst(n) => Some(*n),
                        _ => None,
                    })
                    .map(|n| (k, n))
            }
            _ => None,
        })
    }

    /// The enumeration scalar most guards test against a constant (with
    /// its range): transitions are dispatched on it.
    fn dispatch(&self, guards: &[Vec<Term>]) -> Dispatch {
        let mut dispatch = None;
        let mut best = 0;
        for (slot, s) in self.scalar_sorts.iter().enumerate() {
            if let (Sort::Enum(_), Some((lo, hi))) = (s, s.finite_range()) {
                let n = guards.iter().filter(|g| self.pc_test(g, slot).is_some()).count();
                if n > best && hi - lo < 1 << 20 {
                    best = n;
                    dispatch = Some((slot, lo, hi));
                }
            }
        }
        dispatch
    }

    /// The transitions by value of the dispatch variable, and the others;
    /// compiles each step's guard (without the dispatch test).
    fn buckets(&self, sys: &System, guards: &[Vec<Term>], dispatch: Dispatch, steps: &mut [Step]) -> Result<(Vec<Vec<usize>>, Vec<usize>), Unsupported> {
        let mut by_pc = vec![];
        let mut others = vec![];
        for (ti, lits) in guards.iter().enumerate() {
            let sc = self.scope(sys.transitions[ti].inputs().into_iter().enumerate().map(|(i, v)| (v, i)).collect());
            let mut lits = lits.clone();
            match dispatch.and_then(|(slot, lo, hi)| self.pc_test(&lits, slot).map(|t| (t, lo, hi))) {
                Some(((k, n), lo, hi)) => {
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
        Ok((by_pc, others))
    }

    /// The unsafe cubes compiled (literals on scalars only first, a cheap
    /// rejection), and the values of the dispatch variable where one may hold.
    fn unsafe_cubes(&self, sys: &System, dispatch: Dispatch, places: usize) -> Result<(Vec<Expr>, Vec<bool>), Unsupported> {
        let top = self.scope(HashMap::default());
        let mut unsafe_ = vec![];
        let mut unsafe_at = vec![false; places];
        for q in &sys.unsafe_ {
            match dispatch.and_then(|(slot, lo, _)| self.pc_test(&q.lits, slot).map(|(_, n)| n - lo)) {
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
        Ok((unsafe_, unsafe_at))
    }
}

/// For each bucket of transitions, whether they exclude each other (a
/// ground literal of one guard whose complement is in the other's).
fn exclusive_buckets(sys: &System, guards: &[Vec<Term>], by_pc: &[Vec<usize>], others: &[usize]) -> Vec<bool> {
    let exclusive_pair = |a: usize, b: usize| {
        let inputs: Vec<Term> = sys.transitions[a].inputs().into_iter().chain(sys.transitions[b].inputs()).collect();
        guards[a].iter().any(|l| inputs.iter().all(|v| !occurs(v, l)) && complements(l).iter().any(|c| guards[b].contains(c)))
    };
    by_pc.iter().map(|ts| others.is_empty() && ts.iter().enumerate().all(|(k, &a)| ts[k + 1..].iter().all(|&b| exclusive_pair(a, b)))).collect()
}

/// The integer literals of the system's guards, unsafe cubes and updates,
/// each ±1, sorted.
fn constants(sys: &System) -> Vec<i64> {
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
    constants
}

/// Literals equivalent to the negation of `l`: `¬l`, and for `a < b` also
/// `b ≤ a`, for `a ≤ b` also `b < a`.
fn complements(l: &Term) -> Vec<Term> {
    let mut out = vec![l.not()];
    match (l.op(), l.args()) {
        (Op::Lt, [a, b]) => out.push(Term::le(b, a)),
        (Op::Le, [a, b]) => out.push(Term::lt(b, a)),
        _ => {}
    }
    out
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
fn array_literal(lit: &Term, vars: &[Term], arrays: &HashMap<Term, usize>, init: &mut [(Option<i64>, Range)]) -> Result<(), Unsupported> {
    let bad = || Unsupported(format!("initial literal {lit} (only ∀x̄. a[x̄] ⋈ constant)"));
    let reads = crate::logic::collect(lit, &|t: &Term| matches!(t.op(), Op::Select));
    let [read] = reads.as_slice() else { return Err(bad()) };
    let (a, idx) = (&read.args()[0], &read.args()[1..]);
    let Some(&slot) = arrays.get(a) else { return Err(bad()) };
    if idx.len() > vars.len() || idx.iter().any(|i| !vars.contains(i)) || idx.iter().collect::<crate::HashSet<_>>().len() != idx.len() {
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
