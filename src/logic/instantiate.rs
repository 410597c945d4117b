//! Instantiation of quantified variables over finite sets of index terms:
//! the maps that the safety, covering and certification tests enumerate.

use crate::logic::{substitute, Term};
use crate::HashMap;

/// Every injective map from `from` into `to`, as substitutions
/// (`|to|! / (|to| - |from|)!` of them; none when `|from| > |to|`).
pub fn injective_maps(from: &[Term], to: &[Term]) -> Vec<HashMap<Term, Term>> {
    let mut out = vec![];
    let mut used = vec![false; to.len()];
    let mut cur = HashMap::default();
    inj_rec(from, to, 0, &mut used, &mut cur, &mut out);
    out
}

fn inj_rec(from: &[Term], to: &[Term], k: usize, used: &mut Vec<bool>, cur: &mut HashMap<Term, Term>, out: &mut Vec<HashMap<Term, Term>>) {
    if k == from.len() {
        out.push(cur.clone());
        return;
    }
    for i in 0..to.len() {
        if !used[i] {
            used[i] = true;
            cur.insert(from[k].clone(), to[i].clone());
            inj_rec(from, to, k + 1, used, cur, out);
            used[i] = false;
        }
    }
    cur.remove(&from[k]);
}

/// Every map (not necessarily injective) from `from` into `to`.
pub fn all_maps(from: &[Term], to: &[Term]) -> Vec<HashMap<Term, Term>> {
    let mut out = vec![HashMap::default()];
    for v in from {
        let mut next = vec![];
        for m in &out {
            for t in to {
                let mut m2 = m.clone();
                m2.insert(v.clone(), t.clone());
                next.push(m2);
            }
        }
        out = next;
    }
    out
}

/// The instances of `∀vars. body` over all maps of `vars` into `terms`.
pub fn instances(vars: &[Term], body: &Term, terms: &[Term]) -> Vec<Term> {
    all_maps(vars, terms).iter().map(|m| substitute(body, m)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::Sort;

    #[test]
    fn counts() {
        let v = |n: &str| Term::var(n, Sort::Index);
        let (a, b, c) = (v("a"), v("b"), v("c"));
        assert_eq!(injective_maps(&[a.clone(), b.clone()], &[a.clone(), b.clone(), c.clone()]).len(), 6);
        assert_eq!(injective_maps(&[a.clone(), b.clone(), c.clone()], std::slice::from_ref(&a)).len(), 0);
        assert_eq!(all_maps(&[a.clone(), b.clone()], &[a, b, c]).len(), 9);
    }
}
