//! Path formulas. A backward path `v₀ ← v₁ ← … ← v_k` (node `v_j` is a
//! pre-image of `v_{j-1}` under transition `t_j`, `v₀` an unsafe cube) is
//! concrete when some initial state `s_k` runs through `t_k, …, t₁` into
//! `v₀`. Its formula is Skolemised (parameters and nondeterministic values
//! become fresh constants per step, the state at step `m` is a copy of the
//! state symbols named `x@m`) and instantiated: the universal quantifiers
//! of the initial formula, of the axioms and of universal guards are
//! replaced by their instances over the index terms of the formula — a
//! weakening, so an unsatisfiable path formula proves the path spurious.

use crate::logic::instantiate::instances;
use crate::logic::{collect, free_vars, substitute, Op, Term};
use crate::system::{IndexKind, System};
use crate::HashMap;

/// The copy of a symbol at step `m` of a path.
pub fn at(t: &Term, m: usize) -> Term {
    Term::var(&format!("{}@{m}", t.var_name().unwrap()), t.sort().clone())
}

/// The index terms of a formula: its free symbols of the index sort and
/// the index-sorted arguments of its array reads.
pub fn index_terms(sys: &System, f: &Term) -> Vec<Term> {
    let isort = sys.index_sort();
    let free = free_vars(f);
    let mut out: Vec<Term> = free.iter().filter(|v| *v.sort() == isort).cloned().collect();
    // reads under a binder (a λ-update's variable) are not terms of the formula
    for r in collect(f, &|t: &Term| matches!(t.op(), Op::Select)) {
        for i in &r.args()[1..] {
            if *i.sort() == isort && free_vars(i).iter().all(|v| free.contains(v)) {
                out.push(i.clone());
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// A quantifier-free part and universally quantified parts still to instantiate.
#[derive(Clone, Debug, Default)]
pub struct Formula {
    /// Conjuncts without quantifiers.
    pub ground: Vec<Term>,
    /// `∀ vars. body` conjuncts.
    pub universals: Vec<(Vec<Term>, Term)>,
}

impl Formula {
    /// The conjunction with every universal instantiated over the index
    /// terms of the ground part and of `extra` (one fresh index symbol when
    /// there are none), plus non-negativity of the index terms for `:index nat`.
    pub fn instantiate(&self, sys: &System, extra: &Term) -> Term {
        let ground = Term::and(self.ground.iter().cloned().chain([extra.clone()]));
        let mut terms = index_terms(sys, &ground);
        if terms.is_empty() {
            terms.push(Term::var("w@", sys.index_sort()));
        }
        let mut parts = self.ground.clone();
        for (vars, body) in &self.universals {
            parts.extend(instances(vars, body, &terms));
        }
        if sys.index_kind() == IndexKind::Nat {
            parts.extend(terms.iter().map(|t| Term::le(&Term::int(0), t)));
        }
        Term::and(parts)
    }
}

/// The states of a path prefix: the initial state at step `k`, the steps
/// `t_k … t_{j+1}`, and the state at step `j` with plain symbol names (so
/// that formulas over the current state speak about it).
///
/// `ts[m-1]` is the transition leading from the state at step `m` to the
/// state at step `m-1`.
pub fn prefix(sys: &System, ts: &[usize], j: usize) -> Formula {
    let k = ts.len();
    let name = |x: &Term, m: usize| if m == j { x.clone() } else { at(x, m) };
    let state = |m: usize| -> HashMap<Term, Term> { sys.vars.iter().map(|v| (v.term.clone(), name(&v.term, m))).collect() };
    let mut f = Formula::default();
    let sk = state(k);
    for q in &sys.initial {
        f.universals.push((q.vars.clone(), substitute(&q.body(), &sk)));
    }
    for m in j..=k {
        let sm = state(m);
        for q in &sys.axioms {
            f.universals.push((q.vars.clone(), substitute(&q.body(), &sm)));
        }
    }
    for m in (j + 1..=k).rev() {
        let t = &sys.transitions[ts[m - 1]];
        let mut map = state(m);
        let params: Vec<Term> = t.params.iter().map(|p| at(p, m)).collect();
        for (p, q) in t.params.iter().zip(&params) {
            map.insert(p.clone(), q.clone());
        }
        for v in &t.values {
            map.insert(v.clone(), at(v, m));
        }
        f.ground.push(Term::distinct(&params));
        f.ground.push(substitute(&t.guard, &map));
        for (i, v) in sys.vars.iter().enumerate() {
            let next = substitute(&sys.next_value(t, i), &map);
            let var = name(&v.term, m - 1);
            match next.op() {
                // arrays: a chain of writes when the update has that shape,
                // else the extensional definition, instantiated later
                Op::Lambda(js) => match as_stores(js, &next.args()[0]) {
                    Some(st) => f.ground.push(Term::eq(&var, &st)),
                    None => f.universals.push((js.to_vec(), Term::eq(&Term::select(&var, js), &next.args()[0]))),
                },
                _ => f.ground.push(Term::eq(&var, &next)),
            }
        }
        if let Some((jv, body)) = &t.uguard {
            f.universals.push((vec![jv.clone()], substitute(body, &map)));
        }
    }
    f
}

/// The body of `λ j̄. body` as writes into an array, when it has the shape
/// `ite(j̄ = e₁, v₁, ite(…, base[j̄]))` with `e`, `v`, `base` free of `j̄`.
fn as_stores(js: &[Term], body: &Term) -> Option<Term> {
    let free_of_j = |t: &Term| js.iter().all(|j| !crate::logic::occurs(j, t));
    let mut writes = vec![];
    let mut cur = body.clone();
    loop {
        match cur.op() {
            Op::Ite => {
                let (c, v, e) = (&cur.args()[0], &cur.args()[1], &cur.args()[2]);
                let eqs: Vec<Term> = match c.op() {
                    Op::And => c.args().to_vec(),
                    _ => vec![c.clone()],
                };
                let mut idx = vec![None; js.len()];
                for q in &eqs {
                    if !matches!(q.op(), Op::Eq) {
                        return None;
                    }
                    let (x, y) = (&q.args()[0], &q.args()[1]);
                    let (j, e) = if js.contains(x) {
                        (x, y)
                    } else if js.contains(y) {
                        (y, x)
                    } else {
                        return None;
                    };
                    if !free_of_j(e) {
                        return None;
                    }
                    idx[js.iter().position(|k| k == j)?] = Some(e.clone());
                }
                let idx: Vec<Term> = idx.into_iter().collect::<Option<_>>()?;
                if !free_of_j(v) {
                    return None;
                }
                writes.push((idx, v.clone()));
                cur = e.clone();
            }
            Op::Select if cur.args()[1..] == *js && free_of_j(&cur.args()[0]) => {
                let mut arr = cur.args()[0].clone();
                for (idx, v) in writes.into_iter().rev() {
                    arr = Term::store(&arr, &idx, &v);
                }
                return Some(arr);
            }
            _ => return None,
        }
    }
}
