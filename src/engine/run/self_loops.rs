//! Acceleration of self-loops during forward execution. A transition
//! without nondeterministic values or array updates, whose scalar updates
//! are counters `c := c + d` plus updates that leave their scalar
//! unchanged in the current state whatever the counters (checked by
//! partial evaluation), repeats as long as its guard holds; when the
//! guard's conjuncts that mention the counters are affine comparisons
//! (`≤`, `<`, `=` and negated `≤`, `<`), the set of iterations where each
//! holds is an interval, so the number of iterations `K` is found by
//! exponential and binary search, and the counters jump by `K·d`. The
//! execution is the same as stepping `K` times (the replay checks it so).

use crate::exec::{CellOracle, Expr, Fault, Program, State};

/// A transition that may be accelerated.
#[derive(Clone, Debug)]
pub struct Loop {
    /// Counter slots and their increments.
    counters: Vec<(usize, i64)>,
    /// The counters' slots.
    slots: Vec<usize>,
    /// Other scalar updates (positions in the step's scalar updates).
    others: Vec<usize>,
    /// Guard conjuncts not mentioning the counters.
    fixed: Vec<usize>,
    /// Guard conjuncts that are affine comparisons of the counters.
    affine: Vec<usize>,
    /// Other guard conjuncts (must be true whatever the counters).
    partial: Vec<usize>,
}

fn counter(slot: usize, e: &Expr) -> Option<i64> {
    use crate::exec::Arg;
    match e {
        Expr::Add2(Arg::Scalar(s), Arg::Const(d)) | Expr::Add2(Arg::Const(d), Arg::Scalar(s)) if *s == slot && *d != 0 => Some(*d),
        _ => None,
    }
}

fn affine_literal(g: &Expr, slots: &[usize]) -> bool {
    let g = match g {
        Expr::Not(x) if matches!(**x, Expr::Lt(..) | Expr::Le(..)) => &**x,
        g => g,
    };
    match g {
        Expr::Eq(a, b) | Expr::Lt(a, b) | Expr::Le(a, b) => {
            let e = Expr::Add2(a.clone(), b.clone());
            e.affine_in(slots)
        }
        _ => false,
    }
}

/// The transitions that may be accelerated (by position).
pub fn analyse(prog: &Program) -> Vec<Option<Loop>> {
    prog.steps
        .iter()
        .map(|step| {
            if !step.values.is_empty() || !step.arrays.is_empty() {
                return None;
            }
            let mut counters = vec![];
            let mut others = vec![];
            for (k, (slot, e, _)) in step.scalars.iter().enumerate() {
                match counter(*slot, e) {
                    Some(d) => counters.push((*slot, d)),
                    None => others.push(k),
                }
            }
            if counters.is_empty() {
                return None;
            }
            let slots: Vec<usize> = counters.iter().map(|c| c.0).collect();
            let (mut fixed, mut affine, mut partial) = (vec![], vec![], vec![]);
            for (k, g) in step.guard.iter().enumerate() {
                if !g.mentions(&slots) {
                    fixed.push(k);
                } else if affine_literal(g, &slots) {
                    affine.push(k);
                } else {
                    partial.push(k);
                }
            }
            Some(Loop { counters, slots, others, fixed, affine, partial })
        })
        .collect()
}

/// Whether the affine conjuncts hold after `k` more iterations.
fn holds_at(lp: &Loop, step: &crate::exec::Step, st: &mut State, o: &mut impl CellOracle, start: &[i64], k: u64) -> Result<bool, Fault> {
    for (&(slot, d), c0) in lp.counters.iter().zip(start) {
        match (k as i64).checked_mul(d).and_then(|x| x.checked_add(*c0)) {
            Some(v) if k <= i64::MAX as u64 => st.scalars[slot] = v,
            _ => return Ok(false),
        }
    }
    let mut ok = true;
    for &g in &lp.affine {
        if st.eval(&step.guard[g], &[], o)? == 0 {
            ok = false;
            break;
        }
    }
    for (&(slot, _), c0) in lp.counters.iter().zip(start) {
        st.scalars[slot] = *c0;
    }
    Ok(ok)
}

/// Accelerates transition `t` from the current state by up to `max`
/// iterations; the iterations done (0 when the loop does not qualify here).
pub fn accelerate(prog: &Program, lp: &Loop, t: usize, st: &mut State, o: &mut impl CellOracle, max: u64) -> Result<u64, Fault> {
    let step = &prog.steps[t];
    for &k in &lp.others {
        let (slot, e, _) = &step.scalars[k];
        if st.eval_partial(e, &lp.slots, o)? != Some(st.scalars[*slot]) {
            return Ok(0);
        }
    }
    for &g in &lp.partial {
        if st.eval_partial(&step.guard[g], &lp.slots, o)? != Some(1) {
            return Ok(0);
        }
    }
    for &g in &lp.fixed {
        if st.eval(&step.guard[g], &[], o)? == 0 {
            return Ok(0);
        }
    }
    let start: Vec<i64> = lp.counters.iter().map(|c| st.scalars[c.0]).collect();
    if max == 0 || !holds_at(lp, step, st, o, &start, 0)? {
        return Ok(0);
    }
    // largest n ≤ max with the conjuncts holding at n - 1
    let mut lo = 1u64;
    while lo < max && holds_at(lp, step, st, o, &start, (lo * 2).min(max) - 1)? {
        lo = (lo * 2).min(max);
    }
    let mut hi = (lo * 2).min(max + 1);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if holds_at(lp, step, st, o, &start, mid - 1)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // the counters after `lo` iterations, within their sorts
    let mut ends = vec![];
    for (&(slot, d), c0) in lp.counters.iter().zip(&start) {
        let range = step.scalars.iter().find(|s| s.0 == slot).map(|s| s.2).expect("a counter is updated");
        match (lo as i64).checked_mul(d).and_then(|x| x.checked_add(*c0)) {
            Some(v) if v >= range.0 && v <= range.1 => ends.push((slot, v)),
            _ => return Ok(0),
        }
    }
    for (slot, v) in ends {
        st.scalars[slot] = v;
    }
    Ok(lo)
}
