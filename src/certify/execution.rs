//! Replay of a concrete [`Execution`] found by forward execution,
//! independent of the engine's compiled evaluator: a tree-walking
//! evaluator of the IR terms re-executes every step, checking
//! - the initial state against the initial formula: scalars and rigid
//!   constants as recorded, arrays as their default plus the recorded
//!   cells; a `∀x̄` formula whose variables occur only as array indices is
//!   evaluated at every recorded coordinate plus one fresh value per
//!   variable (which stands for all unrecorded cells); other shapes are
//!   refused;
//! - every guard with the recorded inputs: parameters (pairwise distinct
//!   integers, non-negative for `nat` indices) and nondeterministic values
//!   (in their sorts' ranges); transitions with universal guards are
//!   refused;
//! - every update: scalars by evaluation; arrays `λj̄. body` at the points
//!   named by equalities `j = e` in the body, after checking that the body
//!   with those equalities false is `a[j̄]` (no other cell changes);
//! - the final state against the unsafe cube, its variables bound to the
//!   recorded pairwise distinct values.
//!
//! A run of `n` repetitions of one transition is replayed at once when the
//! transition has no nondeterministic values and no array update, its
//! updates are counters `c := c + d` and updates that a three-valued
//! evaluation (counters unknown) shows to leave their scalar unchanged,
//! and every guard conjunct is either true whatever the counters or an
//! affine comparison of the counters (`≤`, `<`, `=`, negated `≤`, `<`):
//! such a conjunct holds at every iteration when it holds at the first and
//! the last (its truth set is an interval), and nothing else changes.
//! Otherwise the run is replayed step by step.

use crate::answer::{Execution, Replayed};
use crate::logic::{collect, occurs, substitute, Op, Sort, Term};
use crate::system::{Quantified, System};
use crate::HashMap;
use std::collections::BTreeSet;
use std::time::Instant;

/// How an error of [`replay_until`] at its deadline starts.
pub const TIMED_OUT: &str = crate::answer::REPLAY_TIMED_OUT;

/// Steps at the end whose reads are reported.
const LAST_STEPS: u64 = 3;

/// Largest number of instances of one initial formula.
const MAX_INSTANCES: usize = 10_000_000;

type Map<K, V> = HashMap<K, V>;

/// The most dimensions of an array the replay reads and writes.
const DIMS: usize = 4;

/// A cell's index, 0 beyond the array's dimensions.
type Key = [i64; DIMS];

struct Arr {
    default: i64,
    cells: Map<Key, i64>,
}

/// The concrete state and the bound variables.
struct Env {
    vals: Map<Term, i64>,
    arrays: Map<Term, Arr>,
    locals: Map<Term, i64>,
    reads: Option<Vec<(Term, Vec<i64>, i64)>>,
}

fn range(s: &Sort) -> Result<(i64, i64), String> {
    match s {
        Sort::Bool => Ok((0, 1)),
        Sort::Int => Ok((i64::MIN, i64::MAX)),
        Sort::Enum(_) => Ok(s.finite_range().unwrap_or((i64::MIN, i64::MAX))),
        other => Err(format!("values of sort {other} cannot be replayed")),
    }
}

fn in_range(what: &str, v: i64, s: &Sort) -> Result<i64, String> {
    let (lo, hi) = range(s)?;
    if v < lo || v > hi {
        return Err(format!("{what} = {v} is outside its sort {s}"));
    }
    Ok(v)
}

fn overflow() -> String {
    "integer overflow during replay".into()
}

impl Env {
    fn eval(&mut self, t: &Term) -> Result<i64, String> {
        let a = t.args();
        Ok(match t.op() {
            Op::Var(n) => match self.locals.get(t).or_else(|| self.vals.get(t)) {
                Some(v) => *v,
                None => return Err(format!("no value for '{n}'")),
            },
            Op::Bool(b) => *b as i64,
            Op::Int(n) | Op::EnumConst(n) => *n,
            Op::Not => (self.eval(&a[0])? == 0) as i64,
            Op::And => {
                for x in a {
                    if self.eval(x)? == 0 {
                        return Ok(0);
                    }
                }
                1
            }
            Op::Or => {
                for x in a {
                    if self.eval(x)? != 0 {
                        return Ok(1);
                    }
                }
                0
            }
            Op::Ite => {
                if self.eval(&a[0])? != 0 {
                    self.eval(&a[1])?
                } else {
                    self.eval(&a[2])?
                }
            }
            Op::Eq if a[0].sort().as_array().is_none() => (self.eval(&a[0])? == self.eval(&a[1])?) as i64,
            Op::Lt => (self.eval(&a[0])? < self.eval(&a[1])?) as i64,
            Op::Le => (self.eval(&a[0])? <= self.eval(&a[1])?) as i64,
            Op::Add if *t.sort() != Sort::Real => {
                let mut s = 0i64;
                for x in a {
                    s = s.checked_add(self.eval(x)?).ok_or_else(overflow)?;
                }
                s
            }
            Op::Neg => self.eval(&a[0])?.checked_neg().ok_or_else(overflow)?,
            Op::Mul if *t.sort() != Sort::Real => {
                let mut s = 1i64;
                for x in a {
                    s = s.checked_mul(self.eval(x)?).ok_or_else(overflow)?;
                }
                s
            }
            Op::Div | Op::Mod if *t.sort() != Sort::Real => {
                let (x, y) = (self.eval(&a[0])?, self.eval(&a[1])?);
                if y == 0 {
                    return Err("division by zero during replay".into());
                }
                let r = if matches!(t.op(), Op::Div) { x.checked_div_euclid(y) } else { x.checked_rem_euclid(y) };
                r.ok_or_else(overflow)?
            }
            Op::Bits(b) => bitwise(*b, self.eval(&a[0])?, self.eval(&a[1])?).ok_or_else(overflow)?,
            Op::Select => {
                let mut idx: Key = [0; DIMS];
                if a.len() > DIMS + 1 {
                    return Err(format!("arrays of more than {DIMS} dimensions"));
                }
                for (k, i) in a[1..].iter().enumerate() {
                    idx[k] = self.eval(i)?;
                }
                let Some(arr) = self.arrays.get(&a[0]) else {
                    return Err(format!("read of a non-variable array in {t}"));
                };
                let v = arr.cells.get(&idx).copied().unwrap_or(arr.default);
                if let Some(r) = &mut self.reads {
                    r.push((a[0].clone(), idx[..a.len() - 1].to_vec(), v));
                }
                v
            }
            _ => return Err(format!("cannot evaluate {t}")),
        })
    }

    fn holds(&mut self, t: &Term) -> Result<bool, String> {
        Ok(self.eval(t)? != 0)
    }

    /// Three-valued evaluation: `None` when the value may depend on the
    /// `unknown` symbols.
    fn partial(&mut self, t: &Term, unknown: &[Term]) -> Result<Option<i64>, String> {
        let a = t.args();
        if !unknown.iter().any(|u| occurs(u, t)) {
            return Ok(Some(self.eval(t)?));
        }
        Ok(match t.op() {
            Op::Var(_) => None,
            Op::Not => self.partial(&a[0], unknown)?.map(|v| (v == 0) as i64),
            Op::And | Op::Or => {
                let decisive = if matches!(t.op(), Op::And) { 0 } else { 1 };
                let mut all = true;
                for x in a {
                    match self.partial(x, unknown)? {
                        Some(v) if (v != 0) as i64 == decisive => return Ok(Some(decisive)),
                        Some(_) => {}
                        None => all = false,
                    }
                }
                all.then_some(1 - decisive)
            }
            Op::Ite => match self.partial(&a[0], unknown)? {
                Some(c) => self.partial(if c != 0 { &a[1] } else { &a[2] }, unknown)?,
                None => {
                    let (x, y) = (self.partial(&a[1], unknown)?, self.partial(&a[2], unknown)?);
                    if x.is_some() && x == y {
                        x
                    } else {
                        None
                    }
                }
            },
            // any other operator with an unknown argument is unknown
            _ => None,
        })
    }
}

/// A C bitwise operator on integers, computed on their values modulo
/// `2^width` (independently of [`crate::logic::Bits::apply`]).
fn bitwise(b: crate::logic::Bits, x: i64, y: i64) -> Option<i64> {
    let m = 1i128 << b.width;
    let (x, y) = ((x as i128).rem_euclid(m), (y as i128).rem_euclid(m));
    let r = match b.kind {
        crate::logic::BitKind::And => x & y,
        crate::logic::BitKind::Or => x | y,
        crate::logic::BitKind::Xor => x ^ y,
    };
    let r = if b.signed && r >= m / 2 { r - m } else { r };
    i64::try_from(r).ok()
}

/// The increment `d` when `value` is `x + d` for a literal `d ≠ 0`.
fn increment(value: &Term, x: &Term) -> Option<i64> {
    match (value.op(), value.args()) {
        (Op::Add, [p, q]) => {
            let (d, y) = if p.as_int().is_some() { (p, q) } else { (q, p) };
            (y == x).then(|| d.as_int()).flatten().filter(|d| *d != 0)
        }
        _ => None,
    }
}

/// Whether `t` is affine in the counters.
fn affine(t: &Term, counters: &[Term]) -> bool {
    if !counters.iter().any(|c| occurs(c, t)) || counters.contains(t) {
        return true;
    }
    let mentions = |x: &Term| counters.iter().any(|c| occurs(c, x));
    match t.op() {
        Op::Add => t.args().iter().all(|x| affine(x, counters)),
        Op::Neg => affine(&t.args()[0], counters),
        Op::Mul => t.args().iter().filter(|x| mentions(x)).count() == 1 && t.args().iter().all(|x| affine(x, counters)),
        _ => false,
    }
}

/// Whether `g` is a comparison (`≤`, `<`, `=`, negated `≤`, `<`) of affine terms.
fn affine_comparison(g: &Term, counters: &[Term]) -> bool {
    let atom = match g.op() {
        Op::Not if matches!(g.args()[0].op(), Op::Lt | Op::Le) => &g.args()[0],
        _ => g,
    };
    matches!(atom.op(), Op::Eq | Op::Lt | Op::Le) && atom.args()[0].sort().is_int_like() && atom.args().iter().all(|x| affine(x, counters))
}

/// Replays `reps` repetitions of `t` at once (see the module comment);
/// `Ok(false)` when `t` does not qualify here, an error when an iteration's
/// guard fails.
fn accelerate(env: &mut Env, sys: &System, t: &crate::system::Transition, reps: u64, first: u64) -> Result<bool, String> {
    if reps < 2 || !t.values.is_empty() || !t.params.is_empty() || t.uguard.is_some() {
        return Ok(false);
    }
    let mut counters = vec![];
    let mut steps = vec![];
    let mut others = vec![];
    for u in &t.updates {
        let sv = &sys.vars[u.var];
        if sv.is_array {
            return Ok(false);
        }
        match increment(&u.value, &sv.term) {
            Some(d) => {
                counters.push(sv.term.clone());
                steps.push(d);
            }
            None => others.push((sv.term.clone(), u.value.clone())),
        }
    }
    if counters.is_empty() {
        return Ok(false);
    }
    for (x, e) in &others {
        if env.partial(e, &counters)? != Some(env.vals[x]) {
            return Ok(false);
        }
    }
    let conj = match t.guard.op() {
        Op::And => t.guard.args().to_vec(),
        _ => vec![t.guard.clone()],
    };
    let mut cmp = vec![];
    for g in conj {
        if env.partial(&g, &counters)? == Some(1) {
            continue;
        }
        if !affine_comparison(&g, &counters) {
            return Ok(false);
        }
        cmp.push(g);
    }
    let start: Vec<i64> = counters.iter().map(|c| env.vals[c]).collect();
    let at = |k: u64| -> Result<Vec<i64>, String> {
        start
            .iter()
            .zip(&steps)
            .map(|(c0, d)| i64::try_from(k).ok().and_then(|k| k.checked_mul(*d)).and_then(|x| x.checked_add(*c0)).ok_or_else(overflow))
            .collect()
    };
    for k in [0, reps - 1] {
        for (c, v) in counters.iter().zip(at(k)?) {
            env.vals.insert(c.clone(), v);
        }
        for g in &cmp {
            if !env.holds(g)? {
                return Err(format!("step {}: the guard of {} does not hold", first + k, t.name));
            }
        }
    }
    for (c, v) in counters.iter().zip(at(reps)?) {
        let v = in_range(&c.to_string(), v, c.sort())?;
        env.vals.insert(c.clone(), v);
    }
    Ok(true)
}

/// The points where `λ js. body` may differ from `a[js]`, per dimension;
/// an error when some other cell could change.
fn points(body: &Term, array: &Term, js: &[Term]) -> Result<Vec<Vec<Term>>, String> {
    let mut pts: Vec<Vec<Term>> = vec![vec![]; js.len()];
    let mut atoms: Vec<(usize, Term)> = vec![];
    for eq in collect(body, &|t: &Term| matches!(t.op(), Op::Eq)) {
        for (x, e) in [(&eq.args()[0], &eq.args()[1]), (&eq.args()[1], &eq.args()[0])] {
            if let Some(d) = js.iter().position(|j| j == x) {
                if js.iter().all(|j| !occurs(j, e)) {
                    pts[d].push(e.clone());
                    atoms.push((d, eq.clone()));
                }
            }
        }
    }
    for d in 0..js.len() {
        let off: HashMap<Term, Term> = atoms.iter().filter(|(k, _)| *k == d).map(|(_, a)| (a.clone(), Term::ff())).collect();
        if substitute(body, &off) != Term::select(array, js) {
            return Err(format!("the update λ{:?}. {body} may change cells not named by an equality", js));
        }
    }
    Ok(pts)
}

/// Checks one `∀ vars. lits` initial formula on the initial state.
fn check_initial(env: &mut Env, q: &Quantified) -> Result<(), String> {
    let body = q.body();
    let used: Vec<Term> = q.vars.iter().filter(|x| occurs(x, &body)).cloned().collect();
    if used.is_empty() {
        return if env.holds(&body)? { Ok(()) } else { Err(format!("the initial state violates {body}")) };
    }
    // variables may occur only as whole indices of array reads
    let reads = collect(&body, &|t: &Term| matches!(t.op(), Op::Select) && t.args()[1..].iter().any(|i| used.contains(i)));
    let mut holes = HashMap::default();
    for (k, r) in reads.iter().enumerate() {
        if !r.args()[1..].iter().all(|i| used.contains(i)) {
            return Err(format!("initial formula {body}: index variables inside index expressions"));
        }
        holes.insert(r.clone(), Term::var(&format!("cell!{k}"), r.sort().clone()));
    }
    if used.iter().any(|x| occurs(x, &substitute(&body, &holes))) {
        return Err(format!("initial formula {body}: index variables outside array reads"));
    }
    let mut cand: Vec<BTreeSet<i64>> = vec![BTreeSet::new(); used.len()];
    for r in &reads {
        let arr = env.arrays.get(&r.args()[0]).ok_or("read of a non-variable array")?;
        for idx in arr.cells.keys() {
            for (p, i) in r.args()[1..].iter().enumerate() {
                let k = used.iter().position(|x| x == i).expect("checked above");
                cand[k].insert(idx[p]);
            }
        }
    }
    // per variable, a value that no recorded cell has at its positions
    for c in cand.iter_mut() {
        let fresh = (0..).find(|v| !c.contains(v)).expect("finitely many candidates");
        c.insert(fresh);
    }
    let total = cand.iter().try_fold(1usize, |acc, c| acc.checked_mul(c.len())).unwrap_or(usize::MAX);
    if total > MAX_INSTANCES {
        return Err(format!("initial formula {body}: too many instances ({total})"));
    }
    let cand: Vec<Vec<i64>> = cand.into_iter().map(|c| c.into_iter().collect()).collect();
    let mut pos = vec![0usize; used.len()];
    loop {
        for (k, x) in used.iter().enumerate() {
            env.locals.insert(x.clone(), cand[k][pos[k]]);
        }
        if !env.holds(&body)? {
            let at: Vec<String> = used.iter().zip(&pos).enumerate().map(|(k, (x, p))| format!("{x} = {}", cand[k][*p])).collect();
            return Err(format!("the initial state violates {body} at {}", at.join(", ")));
        }
        // next instance
        let mut k = 0;
        loop {
            if k == used.len() {
                env.locals.clear();
                return Ok(());
            }
            pos[k] += 1;
            if pos[k] < cand[k].len() {
                break;
            }
            pos[k] = 0;
            k += 1;
        }
    }
}

/// Replays `ex` on `sys`; what the final state looks like, or why the
/// execution is not one of the system.
pub fn replay(sys: &System, ex: &Execution) -> Result<Replayed, String> {
    replay_until(sys, ex, None)
}

/// [`replay`], giving up (with an error saying so) at the deadline.
pub fn replay_until(sys: &System, ex: &Execution, deadline: Option<Instant>) -> Result<Replayed, String> {
    if !sys.axioms.is_empty() {
        return Err("systems with axioms are not replayed".into());
    }
    let mut env = initial_env(sys, &ex.scalars, &ex.arrays)?;
    for q in &sys.initial {
        check_initial(&mut env, q)?;
    }
    // the steps
    let total = ex.len();
    let mut cursor = 0usize;
    let mut k = 0u64;
    let nat = sys.index == Some(crate::system::IndexKind::Nat);
    let mut accelerated = 0;
    let mut news: Vec<(Term, i64)> = vec![];
    let mut writes: Vec<(Term, Key, i64)> = vec![];
    let mut point_cache: HashMap<Term, Vec<Vec<Term>>> = HashMap::default();
    for &(ti, reps) in &ex.steps {
        let t = sys.transitions.get(ti).ok_or("a step names no transition")?;
        if t.uguard.is_some() {
            return Err(format!("transition {} has a universal guard: not replayed here", t.name));
        }
        let inputs = t.inputs();
        if total - k - reps >= LAST_STEPS && accelerate(&mut env, sys, t, reps, k + 1)? {
            k += reps;
            accelerated += reps;
            continue;
        }
        for _ in 0..reps {
            k += 1;
            if k & 0xffff == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(format!("{TIMED_OUT} after {k} of {total} steps"));
            }
            if total - k < LAST_STEPS && env.reads.is_none() {
                env.reads = Some(vec![]);
            }
            env.locals.clear();
            for v in &inputs {
                let x = *ex.values.get(cursor).ok_or("too few recorded inputs")?;
                cursor += 1;
                env.locals.insert(v.clone(), in_range(&v.to_string(), x, v.sort())?);
            }
            let ps: BTreeSet<i64> = t.params.iter().map(|p| env.locals[p]).collect();
            if ps.len() != t.params.len() || nat && ps.iter().any(|p| *p < 0) {
                return Err(format!("step {k}: the parameters of {} are not distinct (non-negative) indices", t.name));
            }
            if !env.holds(&t.guard)? {
                return Err(format!("step {k}: the guard of {} does not hold", t.name));
            }
            apply(&mut env, sys, t, k, &mut point_cache, &mut news, &mut writes)?;
        }
    }
    finish(env, sys, ex, cursor, total, accelerated)
}

/// The state an execution starts in: its recorded scalars and array
/// contents (every state variable and constant given, in its sort's range).
fn initial_env(sys: &System, scalars: &[(Term, i64)], arrays: &[crate::answer::ArrayContent]) -> Result<Env, String> {
    let mut env = Env { vals: Map::default(), arrays: Map::default(), locals: Map::default(), reads: None };
    for (t, v) in scalars {
        let known = sys.vars.iter().any(|sv| !sv.is_array && sv.term == *t) || sys.consts.contains(t);
        if !known {
            return Err(format!("'{t}' is not a scalar of the system"));
        }
        env.vals.insert(t.clone(), in_range(&t.to_string(), *v, t.sort())?);
    }
    for a in arrays {
        let sv = sys.vars.get(a.var).filter(|v| v.is_array).ok_or("an array content names no array")?;
        let dims = sv.term.sort().as_array().map(|s| s.index.len()).unwrap_or(1);
        if dims > DIMS {
            return Err(format!("arrays of more than {DIMS} dimensions"));
        }
        let es = sv.value_sort();
        let mut cells = Map::default();
        for (idx, v) in &a.cells {
            if idx.len() != dims {
                return Err(format!("a cell of {} has {} indices", sv.name(), idx.len()));
            }
            let mut key: Key = [0; DIMS];
            key[..dims].copy_from_slice(idx);
            cells.insert(key, in_range(sv.name(), *v, &es)?);
        }
        env.arrays.insert(sv.term.clone(), Arr { default: in_range(sv.name(), a.default, &es)?, cells });
    }
    for sv in &sys.vars {
        let given = if sv.is_array { env.arrays.contains_key(&sv.term) } else { env.vals.contains_key(&sv.term) };
        if !given {
            return Err(format!("no initial value for {}", sv.name()));
        }
    }
    for c in &sys.consts {
        if !env.vals.contains_key(c) {
            return Err(format!("no value for the constant {c}"));
        }
    }
    Ok(env)
}

/// Applies the updates of `t` (step `k`) with the inputs in `env.locals`.
fn apply(
    env: &mut Env,
    sys: &System,
    t: &crate::system::Transition,
    k: u64,
    point_cache: &mut HashMap<Term, Vec<Vec<Term>>>,
    news: &mut Vec<(Term, i64)>,
    writes: &mut Vec<(Term, Key, i64)>,
) -> Result<(), String> {
    news.clear();
    writes.clear();
    for u in &t.updates {
        let sv = &sys.vars[u.var];
        if !sv.is_array {
            let v = env.eval(&u.value)?;
            news.push((sv.term.clone(), in_range(sv.name(), v, &sv.value_sort())?));
            continue;
        }
        let Op::Lambda(js) = u.value.op() else {
            return Err(format!("step {k}: the update of {} is not a λ-term", sv.name()));
        };
        let body = &u.value.args()[0];
        if !point_cache.contains_key(&u.value) {
            point_cache.insert(u.value.clone(), points(body, &sv.term, js)?);
        }
        let pts = &point_cache[&u.value];
        // the points: every combination of the candidate indices
        let coords: Vec<Vec<i64>> = pts.iter().map(|ps| ps.iter().map(|p| env.eval(p)).collect::<Result<_, _>>()).collect::<Result<_, _>>()?;
        for key in combinations(&coords) {
            for (j, v) in js.iter().zip(key) {
                env.locals.insert(j.clone(), v);
            }
            let v = in_range(sv.name(), env.eval(body)?, &sv.value_sort())?;
            writes.push((sv.term.clone(), key, v));
        }
    }
    for (t, v) in news.drain(..) {
        env.vals.insert(t, v);
    }
    for (a, key, v) in writes.drain(..) {
        env.arrays.get_mut(&a).expect("arrays are all present").cells.insert(key, v);
    }
    Ok(())
}

/// Every index with one coordinate from each dimension's values (0 in the
/// dimensions beyond them).
fn combinations(coords: &[Vec<i64>]) -> Vec<Key> {
    let mut out: Vec<Key> = vec![[0; DIMS]];
    for (d, values) in coords.iter().enumerate() {
        out = out
            .iter()
            .flat_map(|k| {
                values.iter().map(move |&v| {
                    let mut k = *k;
                    k[d] = v;
                    k
                })
            })
            .collect();
    }
    out
}

/// The end of a replay: every input used, the final state in the unsafe cube.
fn finish(mut env: Env, sys: &System, ex: &Execution, cursor: usize, total: u64, accelerated: u64) -> Result<Replayed, String> {
    let nat = sys.index == Some(crate::system::IndexKind::Nat);
    if cursor != ex.values.len() {
        return Err(format!("{} recorded inputs left over", ex.values.len() - cursor));
    }
    // the unsafe cube
    let cube = sys.unsafe_.get(ex.cube).ok_or("the execution names no unsafe cube")?;
    if cube.vars.len() != ex.cube_values.len()
        || ex.cube_values.iter().collect::<BTreeSet<_>>().len() != ex.cube_values.len()
        || nat && ex.cube_values.iter().any(|v| *v < 0)
    {
        return Err("the cube's variables need pairwise distinct (non-negative) values".into());
    }
    env.locals.clear();
    env.reads.get_or_insert_with(Vec::new);
    for (z, v) in cube.vars.iter().zip(&ex.cube_values) {
        env.locals.insert(z.clone(), *v);
    }
    if !env.holds(&cube.body())? {
        return Err(format!("the final state does not satisfy the unsafe cube {}", cube.body()));
    }
    // the cells read at the end, with their final values
    let mut reads = env.reads.take().unwrap_or_default();
    let mut seen = BTreeSet::new();
    reads.retain(|(a, i, _)| seen.insert((a.id(), i.clone())));
    reads.sort_by(|x, y| (x.0.to_string(), &x.1).cmp(&(y.0.to_string(), &y.1)));
    for (a, i, v) in &mut reads {
        let arr = &env.arrays[a];
        let mut key: Key = [0; DIMS];
        key[..i.len()].copy_from_slice(i);
        *v = arr.cells.get(&key).copied().unwrap_or(arr.default);
    }
    let scalars = sys.vars.iter().filter(|v| !v.is_array).map(|v| &v.term).chain(&sys.consts).map(|t| (t.clone(), env.vals[t])).collect();
    Ok(Replayed { steps: total, accelerated, scalars, reads })
}

/// A concrete state of a system stepped by the replay's evaluator, for
/// tools that follow an execution step by step (witnesses: which calls a
/// step executes, a witness's values followed through the program). Its
/// answers are not checked: whatever it produces is checked by
/// [`replay`] before it counts.
pub struct Machine<'s> {
    sys: &'s System,
    env: Env,
    points: HashMap<Term, Vec<Vec<Term>>>,
    steps: u64,
}

impl<'s> Machine<'s> {
    /// The state given by recorded scalars and array contents (every state
    /// variable and constant must be given; the initial formula is not
    /// checked here).
    pub fn new(sys: &'s System, scalars: &[(Term, i64)], arrays: &[crate::answer::ArrayContent]) -> Result<Machine<'s>, String> {
        Ok(Machine { sys, env: initial_env(sys, scalars, arrays)?, points: HashMap::default(), steps: 0 })
    }

    /// The value of `t` in the current state, the symbols of `inputs`
    /// having the given values (Booleans 0 or 1).
    pub fn eval(&mut self, t: &Term, inputs: &[(Term, i64)]) -> Result<i64, String> {
        self.env.locals.clear();
        for (v, x) in inputs {
            self.env.locals.insert(v.clone(), *x);
        }
        self.env.eval(t)
    }

    /// The value of a scalar state variable.
    pub fn scalar(&self, v: &Term) -> Option<i64> {
        self.env.vals.get(v).copied()
    }

    /// Whether transition `t` may fire with these inputs (its guard holds).
    pub fn enabled(&mut self, t: usize, inputs: &[(Term, i64)]) -> Result<bool, String> {
        let tr = self.sys.transitions.get(t).ok_or("no such transition")?;
        if tr.uguard.is_some() || !tr.params.is_empty() {
            return Err(format!("transition {} has parameters or a universal guard", tr.name));
        }
        let guard = tr.guard.clone();
        Ok(self.eval(&guard, inputs)? != 0)
    }

    /// Fires transition `t` with these inputs (its guard is not checked).
    pub fn fire(&mut self, t: usize, inputs: &[(Term, i64)]) -> Result<(), String> {
        let sys = self.sys;
        let tr = sys.transitions.get(t).ok_or("no such transition")?;
        self.env.locals.clear();
        for (v, x) in inputs {
            self.env.locals.insert(v.clone(), in_range(&v.to_string(), *x, v.sort())?);
        }
        self.steps += 1;
        apply(&mut self.env, sys, tr, self.steps, &mut self.points, &mut vec![], &mut vec![])
    }

    /// Fires `reps` repetitions of `t` (a transition without inputs) at
    /// once when they qualify for replay in closed form; `Ok(false)` when
    /// they do not (nothing changed).
    pub fn fire_many(&mut self, t: usize, reps: u64) -> Result<bool, String> {
        let sys = self.sys;
        let tr = sys.transitions.get(t).ok_or("no such transition")?;
        let done = accelerate(&mut self.env, sys, tr, reps, self.steps + 1)?;
        if done {
            self.steps += reps;
        }
        Ok(done)
    }
}
