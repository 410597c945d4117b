//! Substitution and traversals: replacing subterms, free variables, and
//! collecting subterms of a given shape.

use super::term::{Op, Term};
use crate::{HashMap, HashSet};

/// Replaces every occurrence of a key of `map` in `t` by its value
/// (simultaneously; variables bound inside `t` are not replaced), and
/// re-simplifies the result.
pub fn substitute(t: &Term, map: &HashMap<Term, Term>) -> Term {
    if map.is_empty() {
        return t.clone();
    }
    let mut cache = HashMap::default();
    subst_rec(t, map, &mut cache)
}

fn subst_rec(t: &Term, map: &HashMap<Term, Term>, cache: &mut HashMap<Term, Term>) -> Term {
    if let Some(r) = map.get(t) {
        return r.clone();
    }
    if t.args().is_empty() {
        return t.clone();
    }
    if let Some(r) = cache.get(t) {
        return r.clone();
    }
    let r = match t.op() {
        Op::Forall(vs) | Op::Exists(vs) | Op::Lambda(vs) if vs.iter().any(|v| map.contains_key(v)) => {
            let inner: HashMap<Term, Term> = map.iter().filter(|(k, _)| !vs.contains(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
            t.rebuild(vec![substitute(&t.args()[0], &inner)])
        }
        _ => {
            let args: Vec<Term> = t.args().iter().map(|a| subst_rec(a, map, cache)).collect();
            if args.iter().zip(t.args()).all(|(a, b)| a == b) {
                t.clone()
            } else {
                t.rebuild(args)
            }
        }
    };
    cache.insert(t.clone(), r.clone());
    r
}

/// `t` with every occurrence of `from` replaced by `to` (not under a binder
/// of `from`), re-simplified: [`substitute`] for one pair, without building
/// a map (the covering test's hot path on small literals).
pub fn replace(t: &Term, from: &Term, to: &Term) -> Term {
    if t == from {
        return to.clone();
    }
    if t.args().is_empty() {
        return t.clone();
    }
    if let Op::Forall(vs) | Op::Exists(vs) | Op::Lambda(vs) = t.op() {
        if vs.contains(from) {
            return t.clone();
        }
    }
    let args: Vec<Term> = t.args().iter().map(|a| replace(a, from, to)).collect();
    if args.iter().zip(t.args()).all(|(a, b)| a == b) {
        t.clone()
    } else {
        t.rebuild(args)
    }
}

/// `t` with each `from[k]` replaced by `to[k]` (simultaneously, not under a
/// binder of one of them), re-simplified: [`substitute`] for a few pairs,
/// without a map or a cache (the covering test's hot path on small
/// literals).
pub fn substitute_pairs(t: &Term, from: &[Term], to: &[Term]) -> Term {
    if let Some(k) = from.iter().position(|f| f == t) {
        return to[k].clone();
    }
    if t.args().is_empty() {
        return t.clone();
    }
    if let Op::Forall(vs) | Op::Exists(vs) | Op::Lambda(vs) = t.op() {
        if vs.iter().any(|v| from.contains(v)) {
            let map: HashMap<Term, Term> = from.iter().cloned().zip(to.iter().cloned()).collect();
            return substitute(t, &map);
        }
    }
    let args: Vec<Term> = t.args().iter().map(|a| substitute_pairs(a, from, to)).collect();
    if args.iter().zip(t.args()).all(|(a, b)| a == b) {
        t.clone()
    } else {
        t.rebuild(args)
    }
}

/// The conjuncts of a formula: the arguments of a conjunction (flattened
/// by construction), none for `true`, else the formula itself.
pub fn conjuncts(t: &Term) -> Vec<Term> {
    match t.op() {
        Op::And => t.args().to_vec(),
        Op::Bool(true) => vec![],
        _ => vec![t.clone()],
    }
}

/// The term with every bound variable whose name is in `avoid` renamed
/// (`name!`, `name!!`, … until free of `avoid` and of every name the body
/// uses), so that substituting terms over those names into it captures
/// nothing.
pub fn rename_bound(t: &Term, avoid: &[String]) -> Term {
    rename_bound_rec(t, avoid, &mut HashMap::default())
}

fn rename_bound_rec(t: &Term, avoid: &[String], memo: &mut HashMap<Term, Term>) -> Term {
    if let Some(r) = memo.get(t) {
        return r.clone();
    }
    let r = match t.op() {
        Op::Forall(vs) | Op::Exists(vs) | Op::Lambda(vs) => {
            let body = &t.args()[0];
            let mut used = vec![];
            names_in(body, &mut HashSet::default(), &mut used);
            let mut map = HashMap::default();
            let fresh: Vec<Term> = vs
                .iter()
                .map(|v| {
                    let base = v.var_name().unwrap_or("v").to_string();
                    let mut n = base.clone();
                    while avoid.contains(&n) || (n != base && used.contains(&n)) {
                        n.push('!');
                    }
                    used.push(n.clone());
                    let w = Term::var(&n, v.sort().clone());
                    map.insert(v.clone(), w.clone());
                    w
                })
                .collect();
            let body = rename_bound_rec(&substitute(body, &map), avoid, memo);
            match t.op() {
                Op::Forall(_) => Term::forall(&fresh, &body),
                Op::Exists(_) => Term::exists(&fresh, &body),
                _ => Term::lambda(&fresh, &body),
            }
        }
        _ if t.args().is_empty() => t.clone(),
        _ => t.rebuild(t.args().iter().map(|a| rename_bound_rec(a, avoid, memo)).collect()),
    };
    memo.insert(t.clone(), r.clone());
    r
}

/// The names of every variable in `t`, bound ones included.
fn names_in(t: &Term, seen: &mut HashSet<Term>, out: &mut Vec<String>) {
    if !seen.insert(t.clone()) {
        return;
    }
    match t.op() {
        Op::Var(n) => out.push(n.to_string()),
        Op::Forall(vs) | Op::Exists(vs) | Op::Lambda(vs) => {
            vs.iter().for_each(|v| names_in(v, seen, out));
            names_in(&t.args()[0], seen, out);
        }
        _ => t.args().iter().for_each(|a| names_in(a, seen, out)),
    }
}

/// Replaces each variable by the term the function gives (or keeps it).
pub fn rename(t: &Term, f: impl Fn(&Term) -> Option<Term>) -> Term {
    let map: HashMap<Term, Term> = free_vars(t).into_iter().filter_map(|v| f(&v).map(|w| (v, w))).collect();
    substitute(t, &map)
}

/// The free variables and constant symbols of `t`, in order of first occurrence.
pub fn free_vars(t: &Term) -> Vec<Term> {
    let mut out = vec![];
    let mut seen = HashSet::default();
    fv_rec(t, &mut vec![], &mut seen, &mut out);
    out
}

fn fv_rec(t: &Term, bound: &mut Vec<Term>, seen: &mut HashSet<Term>, out: &mut Vec<Term>) {
    match t.op() {
        Op::Var(_) => {
            if !bound.contains(t) && seen.insert(t.clone()) {
                out.push(t.clone());
            }
        }
        Op::Forall(vs) | Op::Exists(vs) | Op::Lambda(vs) => {
            let n = bound.len();
            bound.extend(vs.iter().cloned());
            fv_rec(&t.args()[0], bound, seen, out);
            bound.truncate(n);
        }
        _ => {
            if bound.is_empty() && !seen.insert(t.clone()) {
                return;
            }
            for a in t.args() {
                fv_rec(a, bound, seen, out);
            }
        }
    }
}

/// Every distinct subterm of `t` (including `t`) satisfying `pred`, in
/// post-order of first occurrence; does not look inside binders.
pub fn collect(t: &Term, pred: &impl Fn(&Term) -> bool) -> Vec<Term> {
    let mut out = vec![];
    let mut seen = HashSet::default();
    collect_rec(t, pred, &mut seen, &mut out);
    out
}

fn collect_rec(t: &Term, pred: &impl Fn(&Term) -> bool, seen: &mut HashSet<Term>, out: &mut Vec<Term>) {
    if !seen.insert(t.clone()) {
        return;
    }
    if !matches!(t.op(), Op::Forall(_) | Op::Exists(_) | Op::Lambda(_)) {
        for a in t.args() {
            collect_rec(a, pred, seen, out);
        }
    }
    if pred(t) {
        out.push(t.clone());
    }
}

/// Whether some subterm of `t` (including `t`, not inside binders)
/// satisfies `pred`, looked for without memory (each path of the term
/// followed); `None` once more than `budget` nodes were visited, as a DAG
/// with much sharing is better searched by [`collect`], which visits each
/// subterm once. For small terms such as a cube's literals, where
/// `collect`'s set costs more than the search.
pub fn any_small(t: &Term, pred: &impl Fn(&Term) -> bool, budget: &mut usize) -> Option<bool> {
    *budget = budget.checked_sub(1)?;
    if pred(t) {
        return Some(true);
    }
    if matches!(t.op(), Op::Forall(_) | Op::Exists(_) | Op::Lambda(_)) {
        return Some(false);
    }
    for a in t.args() {
        if any_small(a, pred, budget)? {
            return Some(true);
        }
    }
    Some(false)
}

/// Whether `needle` occurs in `t`.
pub fn occurs(needle: &Term, t: &Term) -> bool {
    t == needle || t.args().iter().any(|a| occurs(needle, a))
}
