//! Pre-images of cubes under transitions: `pre(∃z̄.φ, τ)` as a disjunction
//! of cubes. Each transition parameter is identified with a cube variable
//! or a fresh one; array reads of the next state are replaced by the
//! update's case expression and split; the universal guard is instantiated
//! on every index variable of the result. That alone over-approximates, as
//! in MCMT and Cubicle (a process met later in the search may have violated
//! the guard), which is why UNSAFE traces are replayed; an *exact*
//! pre-image also keeps the guard as a condition on every other process
//! (`∀o ∉ z̄. uguard(o)`, see [`Cube::others`]).

use crate::answer::Edge;
use crate::logic::{substitute, Op, Term};
use crate::system::cube::{other, zvar, Cube};
use crate::system::{System, Transition};
use crate::HashMap;

/// Every identification of the transition's parameters with distinct cube
/// variables or fresh ones: for each parameter, `Some(i)` (cube variable
/// `i`) or `None` (a fresh process).
pub fn identifications(n_params: usize, n_vars: usize) -> Vec<Vec<Option<usize>>> {
    let mut out = vec![vec![]];
    for _ in 0..n_params {
        let mut next = vec![];
        for p in &out {
            let choices = (0..n_vars).filter(|i| !p.contains(&Some(*i))).map(Some).chain([None]);
            for c in choices {
                let mut q: Vec<Option<usize>> = p.clone();
                q.push(c);
                next.push(q);
            }
        }
        out = next;
    }
    out
}

/// The pre-image of `cube` under transition number `ti`, with how each
/// resulting cube relates to `cube`. `max_vars` bounds the number of index
/// variables of the result: identifications needing more are skipped, and
/// the flag says whether any was. `exact` keeps the universal guard on the
/// processes the result does not name; the cube's own conditions on other
/// processes are always carried over.
pub fn pre_image(sys: &System, cube: &Cube, ti: usize, max_vars: usize, exact: bool) -> (Vec<(Cube, Edge)>, bool) {
    let t: &Transition = &sys.transitions[ti];
    let isort = sys.index_sort();
    let n = cube.arity();
    let mut out = vec![];
    let mut dropped = false;
    // only the updates of state variables the cube reads matter
    let read = cube.reads();
    let updates: Vec<_> = t.updates.iter().filter(|u| read.contains(&sys.vars[u.var].term)).collect();
    for ident in identifications(t.params.len(), n) {
        let fresh = ident.iter().filter(|c| c.is_none()).count();
        if n + fresh > max_vars {
            dropped = true;
            continue;
        }
        let vars: Vec<Term> = (0..n + fresh).map(|i| zvar(i, &isort)).collect();
        let mut k = n;
        let mut pmap: HashMap<Term, Term> = HashMap::default();
        let mut pvals = vec![];
        for (p, c) in t.params.iter().zip(&ident) {
            let v = match c {
                Some(i) => vars[*i].clone(),
                None => {
                    k += 1;
                    vars[k - 1].clone()
                }
            };
            pmap.insert(p.clone(), v.clone());
            pvals.push(v);
        }
        // nondeterministic values: fresh symbols, eliminated below
        let vals: Vec<Term> = t.values.iter().enumerate().map(|(k, v)| Term::var(&format!("v!{k}"), v.sort().clone())).collect();
        for (v, f) in t.values.iter().zip(&vals) {
            pmap.insert(v.clone(), f.clone());
        }
        let mut next: HashMap<Term, Term> = HashMap::default();
        for u in &updates {
            next.insert(sys.vars[u.var].term.clone(), substitute(&u.value, &pmap));
        }
        let mut parts: Vec<Term> = cube.lits.iter().map(|l| substitute(l, &next)).collect();
        parts.push(substitute(&t.guard, &pmap));
        // the fresh processes are among the cube's other processes
        for v in &vars[n..] {
            parts.extend(cube.others_at(v).iter().map(|p| substitute(p, &next)));
        }
        let mut others: Vec<Term> = cube.others.iter().map(|p| substitute(p, &next)).collect();
        if let Some((j, body)) = &t.uguard {
            let body = substitute(body, &pmap);
            for v in &vars {
                parts.push(substitute(&body, &[(j.clone(), v.clone())].into_iter().collect()));
            }
            if exact {
                others.push(substitute(&body, &[(j.clone(), other(&isort))].into_iter().collect()));
            }
        }
        let cubes = Cube::normalize_renaming(&vars, &parts).into_iter().map(|(mut c, ren)| {
            c.set_others(&others, &ren);
            (c, ren)
        });
        for (c, ren) in eliminate_values(&vals, cubes.collect()) {
            let edge = Edge {
                transition: ti,
                params: pvals.iter().map(|v| ren[v].clone()).collect(),
                succ_vars: cube.vars.iter().enumerate().map(|(i, _)| ren[&vars[i]].clone()).collect(),
            };
            out.push((c, edge));
        }
    }
    (out, dropped)
}

/// Projects nondeterministic values out of pre-image cubes: a value
/// defined by an equality is replaced by its definition; an integer value
/// bounded linearly is eliminated by Fourier–Motzkin; otherwise literals
/// about it are dropped (an over-approximation, which backward search
/// allows: traces are replayed, invariants certified).
fn eliminate_values(vals: &[Term], cubes: Vec<(Cube, HashMap<Term, Term>)>) -> Vec<(Cube, HashMap<Term, Term>)> {
    if vals.is_empty() {
        return cubes;
    }
    let mentions = |l: &Term, v: &Term| crate::logic::occurs(v, l);
    let mut out = vec![];
    for (mut c, ren) in cubes {
        // conditions on other processes about a value are dropped
        c.others.retain(|p| !vals.iter().any(|v| mentions(p, v)));
        if !c.lits.iter().any(|l| vals.iter().any(|v| mentions(l, v))) {
            out.push((c, ren));
            continue;
        }
        let mut cases: Vec<Vec<Term>> = vec![c.lits.clone()];
        for v in vals {
            let free_of_vals = |t: &Term| !vals.iter().any(|w| crate::logic::occurs(w, t));
            let mut next = vec![];
            for mut lits in cases {
                let def = lits.iter().position(|l| match l.op() {
                    Op::Eq => (l.args()[0] == *v && free_of_vals(&l.args()[1])) || (l.args()[1] == *v && free_of_vals(&l.args()[0])),
                    Op::Not => l.args()[0] == *v,
                    _ => *l == *v,
                });
                match def {
                    Some(k) => {
                        let l = lits.remove(k);
                        let value = match l.op() {
                            Op::Eq if l.args()[0] == *v => l.args()[1].clone(),
                            Op::Eq => l.args()[0].clone(),
                            Op::Not => Term::ff(),
                            _ => Term::tt(),
                        };
                        let m: HashMap<Term, Term> = [(v.clone(), value)].into_iter().collect();
                        next.push(lits.iter().map(|x| substitute(x, &m)).collect());
                    }
                    // an integer value with linear bounds: exact projection
                    // (disequalities split into cases); otherwise its
                    // literals go
                    None if *v.sort() == crate::logic::Sort::Int => {
                        for (rest, kept) in crate::logic::projection::project_cases(&lits, std::slice::from_ref(v), 4) {
                            if kept.is_empty() {
                                next.push(rest);
                            } else if let Some(weaker) = project_readable(&rest, v) {
                                next.push(weaker);
                            }
                        }
                    }
                    None => next.push(lits.into_iter().filter(|l| !mentions(l, v)).collect()),
                }
            }
            cases = next;
        }
        for lits in cases {
            for (mut c2, ren2) in Cube::normalize_renaming(&c.vars, &lits) {
                c2.set_others(&c.others, &ren2);
                let composed = ren.iter().map(|(a, b)| (a.clone(), ren2[b].clone())).collect();
                out.push((c2, composed));
            }
        }
    }
    out
}

/// `∃v. ⋀ lits` weakened: the literals on `v` that projection cannot read
/// (`v` under `mod`, a product, a read) go, the others are projected (so
/// that `v ≤ 0 ∧ v > 0 ∧ v mod 2³² ≤ k` is still empty); `None` when the
/// result is unsatisfiable.
fn project_readable(lits: &[Term], v: &Term) -> Option<Vec<Term>> {
    let readable = |l: &Term| !crate::logic::occurs(v, l) || crate::logic::projection::eliminate(std::slice::from_ref(l), v).is_some();
    let kept: Vec<Term> = lits.iter().filter(|l| readable(l)).cloned().collect();
    let (out, left) = crate::logic::projection::project(&kept, std::slice::from_ref(v));
    if !left.is_empty() {
        return Some(kept.into_iter().filter(|l| !crate::logic::occurs(v, l)).collect());
    }
    (!out.iter().any(|l| l.as_bool() == Some(false))).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identification_counts() {
        // one parameter, two cube variables: z1, z2 or fresh
        assert_eq!(identifications(1, 2).len(), 3);
        // two parameters, one variable: (z1,f) (f,z1) (f,f)
        assert_eq!(identifications(2, 1).len(), 3);
    }

    #[test]
    fn bounds_beside_a_modulus_still_project() {
        use crate::logic::Sort;
        let (v, x) = (Term::var("v", Sort::Int), Term::var("x", Sort::Int));
        let modulus = Term::le(&Term::modulo(&v, &Term::int(1 << 32)), &Term::int(536870911));
        // v ≤ 0 ∧ v > 0 ∧ v mod 2³² ≤ k: empty, though v sits under mod
        let empty = [Term::le(&v, &Term::int(0)), Term::lt(&Term::int(0), &v), modulus.clone()];
        assert_eq!(project_readable(&empty, &v), None);
        // x ≤ v ∧ v ≤ 5 ∧ v mod 2³² ≤ k: x ≤ 5 stays (the modulus goes)
        let kept = project_readable(&[Term::le(&x, &v), Term::le(&v, &Term::int(5)), modulus], &v).unwrap();
        assert_eq!(kept, vec![Term::le(&x, &Term::int(5))]);
    }
}
