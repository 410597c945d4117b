//! Facts about programs that hold by construction, found by static
//! analysis of the transitions: range facts of counters, the control
//! variable (program counter) and its locations, and location-sensitive
//! bounds and differences of integer scalars (a forward dataflow analysis).
//! Engines add them to what they search with; their negations join the
//! invariant as cubes, so the certifier checks them like any other clause.

use crate::logic::projection::Linear;
use crate::logic::{occurs, Op, Sort, Term};
use crate::system::{IndexKind, System};

/// The integer a conjunction of literals fixes `x` to (`x = 3`), if one does.
fn constant_of<'t>(lits: impl IntoIterator<Item = &'t Term>, x: &Term) -> Option<i64> {
    lits.into_iter().find_map(|l| match l.op() {
        Op::Eq if l.args()[0] == *x => l.args()[1].as_int(),
        Op::Eq if l.args()[1] == *x => l.args()[0].as_int(),
        _ => None,
    })
}

/// Range facts of counters, invariant by construction: a scalar whose
/// every update adds a non-negative constant to it or sets it to a
/// constant never drops below the least of those constants and its initial
/// value (and symmetrically for counters that only decrease). Each fact is
/// a literal; its negation joins the invariant as a cube to certify.
pub fn range_facts(sys: &System) -> Vec<Term> {
    if sys.index_kind() == IndexKind::Order {
        return vec![];
    }
    let mut out = vec![];
    for (k, v) in sys.vars.iter().enumerate() {
        if v.is_array || *v.term.sort() != Sort::Int {
            continue;
        }
        let x = &v.term;
        // the initial value, when the initial formula fixes it
        let init = constant_of(sys.initial.iter().flat_map(|q| q.lits.iter()), x);
        let Some(init) = init else { continue };
        let (mut lo, mut hi) = (Some(init), Some(init));
        for t in &sys.transitions {
            for u in t.updates.iter().filter(|u| u.var == k) {
                if let Some(c) = u.value.as_int() {
                    lo = lo.map(|l| l.min(c));
                    hi = hi.map(|h| h.max(c));
                    continue;
                }
                match Linear::of(&u.value).and_then(|l| l.minus(&Linear::of(x)?)) {
                    Some(d) if d.coeffs.is_empty() => {
                        if d.constant < 0 {
                            lo = None;
                        }
                        if d.constant > 0 {
                            hi = None;
                        }
                    }
                    _ => {
                        lo = None;
                        hi = None;
                    }
                }
            }
        }
        if let Some(l) = lo {
            out.push(Term::le(&Term::int(l), x));
        }
        if let Some(h) = hi {
            out.push(Term::le(x, &Term::int(h)));
        }
    }
    out
}

/// The control variable of a program: a scalar of an enumerated sort that
/// every transition tests for one value (its source location) and sets to
/// a constant (its target; unchanged when not updated).
pub fn control_variable(sys: &System) -> Option<usize> {
    (0..sys.vars.len()).find(|&k| {
        let v = &sys.vars[k];
        !v.is_array
            && matches!(v.term.sort(), Sort::Enum(_))
            && !sys.transitions.is_empty()
            && sys.transitions.iter().all(|t| {
                location_test(&t.guard, &v.term).is_some() && t.updates.iter().filter(|u| u.var == k).all(|u| matches!(u.value.op(), Op::EnumConst(_)))
            })
    })
}

/// The value `c` of a top-level conjunct `x = c` of a guard.
pub(crate) fn location_test(guard: &Term, x: &Term) -> Option<Term> {
    let conj: Vec<Term> = match guard.op() {
        Op::And => guard.args().to_vec(),
        _ => vec![guard.clone()],
    };
    conj.iter().find_map(|l| match l.op() {
        Op::Eq if l.args()[0] == *x && matches!(l.args()[1].op(), Op::EnumConst(_)) => Some(l.args()[1].clone()),
        Op::Eq if l.args()[1] == *x && matches!(l.args()[0].op(), Op::EnumConst(_)) => Some(l.args()[0].clone()),
        _ => None,
    })
}

/// Location-sensitive lower bounds of integer scalars, by a dataflow
/// analysis over the control variable's locations: a scalar set to a
/// constant, or to another scalar plus a constant, and afterwards only
/// increased, stays above that value until it is set otherwise. The result
/// pairs each location literal `pc = l` with the facts `c ≤ x` holding
/// there; both are literals, and `pc = l ∧ x < c` is unreachable.
pub fn location_facts(sys: &System) -> Vec<(Term, Vec<Term>)> {
    use crate::HashMap;
    let Some(pcv) = control_variable(sys) else { return vec![] };
    let pc = sys.vars[pcv].term.clone();
    let ints: Vec<usize> = (0..sys.vars.len()).filter(|&k| !sys.vars[k].is_array && *sys.vars[k].term.sort() == Sort::Int).collect();
    type Bounds = HashMap<usize, i64>;
    // the entry: the initial location with the initial equalities
    let init_lits: Vec<&Term> =
        sys.initial.iter().filter(|q| q.vars.is_empty() || q.lits.iter().all(|l| q.vars.iter().all(|v| !occurs(v, l)))).flat_map(|q| q.lits.iter()).collect();
    let entry = init_lits.iter().find_map(|l| location_test(l, &pc));
    let Some(entry) = entry else { return vec![] };
    let mut start = Bounds::default();
    for &k in &ints {
        if let Some(c) = constant_of(init_lits.iter().copied(), &sys.vars[k].term) {
            start.insert(k, c);
        }
    }
    let mut at: HashMap<Term, Bounds> = HashMap::default();
    at.insert(entry.clone(), start);
    let mut rounds = 0;
    loop {
        rounds += 1;
        let mut changed = false;
        for t in &sys.transitions {
            let src = location_test(&t.guard, &pc).unwrap();
            let Some(before) = at.get(&src).cloned() else { continue };
            let dst = t.updates.iter().find(|u| u.var == pcv).map(|u| u.value.clone()).unwrap_or(src.clone());
            let mut after = Bounds::default();
            for &k in &ints {
                let x = &sys.vars[k].term;
                let value = sys.next_value(t, k);
                let bound = if value == *x {
                    before.get(&k).copied()
                } else if let Some(c) = value.as_int() {
                    Some(c)
                } else {
                    // y + c with a bound on y (y may be x itself)
                    Linear::of(&value).and_then(|lin| {
                        let mut it = lin.coeffs.iter();
                        match (it.next(), it.next()) {
                            (Some((y, 1)), None) => {
                                let ky = ints.iter().copied().find(|&m| sys.vars[m].term == *y)?;
                                if ky == k && lin.constant < 0 {
                                    return None;
                                }
                                before.get(&ky).and_then(|b| b.checked_add(lin.constant))
                            }
                            _ => None,
                        }
                    })
                };
                if let Some(b) = bound {
                    after.insert(k, b);
                }
            }
            match at.get_mut(&dst) {
                None => {
                    at.insert(dst, after);
                    changed = true;
                }
                Some(old) => {
                    // join: the weaker bound; widening after a few rounds
                    let keys: Vec<usize> = old.keys().copied().collect();
                    for k in keys {
                        let o = old[&k];
                        match after.get(&k) {
                            Some(&n) if n >= o => {}
                            Some(&n) if rounds < 8 => {
                                old.insert(k, n);
                                changed = true;
                            }
                            _ => {
                                old.remove(&k);
                                changed = true;
                            }
                        }
                    }
                }
            }
        }
        if !changed || rounds > 50 {
            break;
        }
    }
    let diffs = differences(sys, pcv, &ints, &entry, &init_lits);
    let mut locs: Vec<&Term> = at.keys().chain(diffs.keys()).collect();
    locs.sort();
    locs.dedup();
    let mut out: Vec<(Term, Vec<Term>)> = locs
        .into_iter()
        .map(|l| {
            let mut facts: Vec<Term> = at.get(l).into_iter().flatten().map(|(k, c)| Term::le(&Term::int(*c), &sys.vars[*k].term)).collect();
            for ((x, y, m), c) in diffs.get(l).into_iter().flatten() {
                let (tx, ty) = (&sys.vars[*x].term, &sys.vars[*y].term);
                let my = if *m == 1 { ty.clone() } else { Term::mul([Term::int(*m), ty.clone()]) };
                facts.push(if x == y { Term::eq(tx, &Term::int(*c)) } else { Term::eq(tx, &Term::add([my, Term::int(*c)])) });
            }
            facts.sort();
            (Term::eq(&pc, l), facts)
        })
        .filter(|(_, f)| !f.is_empty())
        .collect();
    out.sort();
    out
}

/// Constant values and constant differences of integer scalars per
/// location (`x = c`, `x = y + c` wherever control is at `l`): a forward
/// dataflow analysis where an update to a constant (or a known one) fixes a
/// value, adding constants to both scalars shifts their difference, and
/// anything else forgets it.
fn differences(
    sys: &System,
    pcv: usize,
    ints: &[usize],
    entry: &Term,
    init: &[&Term],
) -> crate::HashMap<Term, std::collections::BTreeMap<(usize, usize, i64), i64>> {
    use crate::HashMap;
    use std::collections::BTreeMap;
    // (x, y, m) stands for `x - m·y`, (x, x, 0) for the value of x
    type Facts = BTreeMap<(usize, usize, i64), i64>;
    let pc = sys.vars[pcv].term.clone();
    // multipliers: 1, and the ratio of two increments in one transition
    // (`i += 5; j += 1` relates i and 5·j)
    let step = |t: &crate::system::Transition, k: usize| -> Option<i64> {
        let d = Linear::of(&sys.next_value(t, k))?.minus(&Linear::of(&sys.vars[k].term)?)?;
        (d.coeffs.is_empty() && d.constant != 0).then_some(d.constant)
    };
    let mut pairs: Vec<(usize, usize, i64)> = ints.iter().map(|&x| (x, x, 0)).collect();
    for (a, &x) in ints.iter().enumerate() {
        for &y in &ints[a + 1..] {
            let mut ms = vec![1];
            for t in &sys.transitions {
                if let (Some(dx), Some(dy)) = (step(t, x), step(t, y)) {
                    if dx % dy == 0 {
                        ms.push(dx / dy);
                    }
                    if dy % dx == 0 {
                        pairs.push((y, x, dy / dx));
                    }
                }
            }
            ms.sort();
            ms.dedup();
            pairs.extend(ms.into_iter().map(|m| (x, y, m)));
        }
    }
    pairs.sort();
    pairs.dedup();
    let mut start = Facts::new();
    for &k in ints {
        if let Some(c) = constant_of(init.iter().copied(), &sys.vars[k].term) {
            start.insert((k, k, 0), c);
        }
    }
    // a next value as a linear form, known constants put in
    let value = |t: &crate::system::Transition, k: usize, before: &Facts| -> Option<Linear> {
        let mut l = Linear::of(&sys.next_value(t, k))?;
        for &m in ints {
            let x = &sys.vars[m].term;
            if let (Some(c), Some(&v)) = (l.coeffs.get(x).copied(), before.get(&(m, m, 0))) {
                l.coeffs.remove(x);
                l.constant = l.constant.checked_add(c.checked_mul(v)?)?;
            }
        }
        Some(l)
    };
    let mut at: HashMap<Term, Facts> = HashMap::default();
    at.insert(entry.clone(), start);
    for _ in 0..100 {
        let mut changed = false;
        for t in &sys.transitions {
            let Some(src) = location_test(&t.guard, &pc) else { continue };
            let Some(before) = at.get(&src).cloned() else { continue };
            let dst = t.updates.iter().find(|u| u.var == pcv).map(|u| u.value.clone()).unwrap_or(src.clone());
            let mut after = Facts::new();
            for &(x, y, m) in &pairs {
                let (tx, ty) = (&sys.vars[x].term, &sys.vars[y].term);
                let Some(vx) = value(t, x, &before) else { continue };
                let fact = if x == y {
                    vx.coeffs.is_empty().then_some(vx.constant)
                } else {
                    let Some(d) = value(t, y, &before).and_then(|vy| vx.minus(&vy.scale(m)?)) else { continue };
                    match d.coeffs.len() {
                        0 => Some(d.constant),
                        2 if d.coeffs.get(tx) == Some(&1) && d.coeffs.get(ty) == Some(&-m) => before.get(&(x, y, m)).and_then(|c| c.checked_add(d.constant)),
                        _ => None,
                    }
                };
                if let Some(c) = fact {
                    after.insert((x, y, m), c);
                }
            }
            match at.get_mut(&dst) {
                None => {
                    at.insert(dst, after);
                    changed = true;
                }
                Some(old) => {
                    let n = old.len();
                    old.retain(|k, v| after.get(k) == Some(v));
                    changed |= old.len() != n;
                }
            }
        }
        if !changed {
            break;
        }
    }
    at.retain(|_, d| !d.is_empty());
    at
}

/// The literal saying that a fact fails (`c ≤ x` fails as `x < c`).
pub fn violation(fact: &Term) -> Term {
    match fact.op() {
        Op::Le => Term::lt(&fact.args()[1], &fact.args()[0]),
        _ => fact.not(),
    }
}

/// Whether an integer literal is a bound of one of C's integer types
/// (±2⁷, 2⁸, 2¹⁵, 2¹⁶, 2³¹ and beyond) rather than a size of the program.
pub fn is_type_bound(v: i64) -> bool {
    [127, 128, 255, 256, 32767, 32768, 65535, 65536].contains(&v.abs()) || v.abs() >= 2_147_483_647
}
