//! Projection: eliminating integer symbols from a conjunction of literals,
//! `∃v. φ` as a conjunction without `v` (or weaker). Linear literals are
//! kept as [`Linear`] forms; a variable with a unit-coefficient equality is
//! substituted away, one with only unit-coefficient bounds is eliminated
//! by Fourier–Motzkin (exact over the integers for unit coefficients), and
//! disequalities on it are dropped (a weakening). A variable that occurs
//! elsewhere (under an array read, with a non-unit coefficient) stays.

use crate::logic::{occurs, substitute, Op, Sort, Term};
use crate::HashMap;
use std::collections::BTreeMap;

/// A linear integer expression `Σ cᵢ·tᵢ + k` over atoms `tᵢ` (variables,
/// array reads, any non-arithmetic integer term).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Linear {
    /// The atoms with their non-zero coefficients.
    pub coeffs: BTreeMap<Term, i64>,
    /// The constant.
    pub constant: i64,
}

impl Linear {
    /// The linear form of an integer term (`None` for other sorts or on overflow).
    pub fn of(t: &Term) -> Option<Linear> {
        if *t.sort() != Sort::Int {
            return None;
        }
        let mut out = Linear::default();
        out.add_term(t, 1)?;
        out.coeffs.retain(|_, c| *c != 0);
        Some(out)
    }

    fn add_term(&mut self, t: &Term, k: i64) -> Option<()> {
        match t.op() {
            Op::Int(n) => self.constant = self.constant.checked_add(n.checked_mul(k)?)?,
            Op::Add => {
                for a in t.args() {
                    self.add_term(a, k)?;
                }
            }
            Op::Neg => self.add_term(&t.args()[0], k.checked_neg()?)?,
            Op::Mul => {
                let consts: Vec<i64> = t.args().iter().filter_map(|a| a.as_int()).collect();
                let rest: Vec<&Term> = t.args().iter().filter(|a| a.as_int().is_none()).collect();
                let c = consts.iter().try_fold(k, |acc, c| acc.checked_mul(*c))?;
                match rest.as_slice() {
                    [] => self.constant = self.constant.checked_add(c)?,
                    [one] => self.add_term(one, c)?,
                    _ => self.add_atom(t, k)?,
                }
            }
            _ => self.add_atom(t, k)?,
        }
        Some(())
    }

    fn add_atom(&mut self, t: &Term, k: i64) -> Option<()> {
        let e = self.coeffs.entry(t.clone()).or_insert(0);
        *e = e.checked_add(k)?;
        Some(())
    }

    /// `self - other`.
    pub fn minus(&self, other: &Linear) -> Option<Linear> {
        let mut out = self.clone();
        for (t, c) in &other.coeffs {
            let e = out.coeffs.entry(t.clone()).or_insert(0);
            *e = e.checked_sub(*c)?;
        }
        out.constant = out.constant.checked_sub(other.constant)?;
        out.coeffs.retain(|_, c| *c != 0);
        Some(out)
    }

    /// `k · self`.
    pub fn scale(&self, k: i64) -> Option<Linear> {
        let mut out = Linear { coeffs: BTreeMap::new(), constant: self.constant.checked_mul(k)? };
        for (t, c) in &self.coeffs {
            out.coeffs.insert(t.clone(), c.checked_mul(k)?);
        }
        Some(out)
    }

    /// The expression as a term.
    pub fn term(&self) -> Term {
        let mut parts: Vec<Term> = self.coeffs.iter().map(|(t, c)| Term::mul([Term::int(*c), t.clone()])).collect();
        parts.push(Term::int(self.constant));
        Term::add(parts)
    }

    /// The constraint `self ≤ 0` as a readable literal: positive atoms on
    /// the left, negative ones on the right, strict when that saves a `+1`.
    pub fn le_zero(&self) -> Term {
        let side = |sign: i64| -> Vec<Term> {
            self.coeffs.iter().filter(|(_, c)| c.signum() == sign).map(|(t, c)| Term::mul([Term::int(c.abs()), t.clone()])).collect()
        };
        let (lhs, rhs) = (side(1), side(-1));
        match self.constant {
            1 => Term::lt(&Term::add(lhs), &Term::add(rhs)),
            k => Term::le(&Term::add(lhs), &Term::add(rhs.into_iter().chain([Term::int(-k)]))),
        }
    }

    /// The constraint `self = 0` as a literal.
    pub fn eq_zero(&self) -> Term {
        let side = |sign: i64| -> Vec<Term> {
            self.coeffs.iter().filter(|(_, c)| c.signum() == sign).map(|(t, c)| Term::mul([Term::int(c.abs()), t.clone()])).collect()
        };
        Term::eq(&Term::add(side(1)), &Term::add(side(-1).into_iter().chain([Term::int(-self.constant)])))
    }
}

/// A literal read as a linear constraint.
#[derive(Clone, Debug)]
enum Constraint {
    /// `e ≤ 0`.
    Le(Linear),
    /// `e = 0`.
    Eq(Linear),
    /// `e ≠ 0`.
    Ne(Linear),
}

fn constraint(l: &Term) -> Option<Constraint> {
    let (neg, a) = match l.op() {
        Op::Not => (true, &l.args()[0]),
        _ => (false, l),
    };
    let args = a.args();
    let lin = |x: &Term| Linear::of(x);
    match (a.op(), neg) {
        (Op::Le, false) => Some(Constraint::Le(lin(&args[0])?.minus(&lin(&args[1])?)?)),
        (Op::Lt, false) => {
            let mut e = lin(&args[0])?.minus(&lin(&args[1])?)?;
            e.constant = e.constant.checked_add(1)?;
            Some(Constraint::Le(e))
        }
        (Op::Le, true) => {
            let mut e = lin(&args[1])?.minus(&lin(&args[0])?)?;
            e.constant = e.constant.checked_add(1)?;
            Some(Constraint::Le(e))
        }
        (Op::Lt, true) => Some(Constraint::Le(lin(&args[1])?.minus(&lin(&args[0])?)?)),
        (Op::Eq, n) if *args[0].sort() == Sort::Int => {
            let e = lin(&args[0])?.minus(&lin(&args[1])?)?;
            Some(if n { Constraint::Ne(e) } else { Constraint::Eq(e) })
        }
        _ => None,
    }
}

/// Whether `v` occurs in the linear form other than as a top-level atom.
fn nested(e: &Linear, v: &Term) -> bool {
    e.coeffs.keys().any(|t| t != v && occurs(v, t))
}

/// `∃v. ⋀ lits` as literals without `v` (exact, or weaker when
/// disequalities on `v` are dropped); `None` when `v` cannot be eliminated.
pub fn eliminate(lits: &[Term], v: &Term) -> Option<Vec<Term>> {
    eliminate_with(lits, v, true)
}

/// Like [`eliminate`]; with `weaken` false, a variable with a disequality
/// (whose elimination would weaken the result) is not eliminated.
fn eliminate_with(lits: &[Term], v: &Term, weaken: bool) -> Option<Vec<Term>> {
    let (with, mut out): (Vec<&Term>, Vec<Term>) = {
        let (a, b): (Vec<&Term>, Vec<&Term>) = lits.iter().partition(|l| occurs(v, l));
        (a, b.into_iter().cloned().collect())
    };
    if with.is_empty() {
        return Some(out);
    }
    // a unit-coefficient equality defines v: substitute it everywhere
    for l in &with {
        if let Some(Constraint::Eq(e)) = constraint(l) {
            let c = e.coeffs.get(v).copied().unwrap_or(0);
            if c.abs() == 1 && !nested(&e, v) {
                // c·v + rest = 0  ⇒  v = -rest / c
                let mut rest = e.clone();
                rest.coeffs.remove(v);
                let def = rest.scale(-c)?.term();
                let map: HashMap<Term, Term> = [(v.clone(), def)].into_iter().collect();
                out.extend(with.iter().filter(|m| **m != *l).map(|m| substitute(m, &map)));
                return Some(out.into_iter().filter(|l| l.as_bool() != Some(true)).collect());
            }
        }
    }
    // bounds: Fourier–Motzkin on unit coefficients
    let mut lower: Vec<Linear> = vec![]; // v ≥ e
    let mut upper: Vec<Linear> = vec![]; // v ≤ e
    for l in &with {
        match constraint(l)? {
            Constraint::Le(e) if !nested(&e, v) => {
                let c = e.coeffs.get(v).copied().unwrap_or(0);
                if c == 0 {
                    out.push((*l).clone());
                    continue;
                }
                let mut rest = e.clone();
                rest.coeffs.remove(v);
                match c {
                    1 => upper.push(rest.scale(-1)?),
                    -1 => lower.push(rest),
                    _ => return None,
                }
            }
            Constraint::Ne(e) if !nested(&e, v) && weaken => {}
            _ => return None,
        }
    }
    for lo in &lower {
        for up in &upper {
            let l = lo.minus(up)?.le_zero();
            if l.as_bool() == Some(false) {
                return Some(vec![Term::ff()]);
            }
            if l.as_bool() != Some(true) {
                out.push(l);
            }
        }
    }
    Some(out)
}

/// Eliminates as many of `vars` as possible from the conjunction: the
/// resulting literals and the variables that remain.
pub fn project(lits: &[Term], vars: &[Term]) -> (Vec<Term>, Vec<Term>) {
    project_with(lits, vars, true)
}

/// Like [`project`], eliminating only where the result is exact.
pub fn project_exact(lits: &[Term], vars: &[Term]) -> (Vec<Term>, Vec<Term>) {
    project_with(lits, vars, false)
}

/// `∃vars. ⋀ lits` exactly, as a disjunction of conjunctions: each
/// disequality `e ≠ 0` on a variable to eliminate is split into `e < 0`
/// and `e > 0` (at most `max_splits` of them; the rest are dropped, a
/// weakening), then every case is projected. Each case comes with the
/// variables that could not be eliminated; unsatisfiable cases are left out.
pub fn project_cases(lits: &[Term], vars: &[Term], max_splits: usize) -> Vec<(Vec<Term>, Vec<Term>)> {
    split_cases(lits, vars, max_splits, &[]).into_iter().map(|c| project(&c, vars)).filter(|(l, _)| !l.iter().any(|x| x.as_bool() == Some(false))).collect()
}

/// The case split of a conjunction on its integer disequalities `e ≠ 0`
/// that mention one of `on`: `e < 0` in one case, `e > 0` in the other;
/// also on its inequalities `e ≤ 0` that mention one of `on` and otherwise
/// exactly one other term of `relations`, both with unit coefficients
/// (`count ≤ n`): `e < 0` in one case,
/// `e = 0` (where the term may be substituted away) in the other. At most
/// `max_splits` literals are split, in order. The cases' disjunction is
/// equivalent to `lits`.
pub fn split_cases(lits: &[Term], on: &[Term], max_splits: usize, relations: &[Term]) -> Vec<Vec<Term>> {
    let mut cases: Vec<Vec<Term>> = vec![vec![]];
    let mut splits = 0;
    for l in lits {
        let mentions = |e: &Linear| on.iter().any(|v| e.coeffs.contains_key(v));
        let (first, second) = match constraint(l) {
            Some(Constraint::Ne(e)) if splits < max_splits && mentions(&e) => {
                let mut lt = e.clone();
                lt.constant += 1; // e < 0  ⇔  e + 1 ≤ 0
                let gt = e.scale(-1).map(|mut m| {
                    m.constant += 1; // e > 0  ⇔  -e + 1 ≤ 0
                    m.le_zero()
                });
                (lt.le_zero(), gt.unwrap_or_else(Term::tt))
            }
            Some(Constraint::Le(e))
                if splits < max_splits && mentions(&e) && e.coeffs.len() == 2 && e.coeffs.iter().all(|(t, c)| c.abs() == 1 && relations.contains(t)) =>
            {
                let mut lt = e.clone();
                lt.constant += 1;
                (lt.le_zero(), e.eq_zero())
            }
            _ => {
                for c in cases.iter_mut() {
                    c.push(l.clone());
                }
                continue;
            }
        };
        splits += 1;
        let (lt, gt) = (first, second);
        cases = cases
            .into_iter()
            .flat_map(|c| {
                let mut a = c.clone();
                a.push(lt.clone());
                let mut b = c;
                b.push(gt.clone());
                [a, b]
            })
            .collect();
    }
    cases
}

fn project_with(lits: &[Term], vars: &[Term], weaken: bool) -> (Vec<Term>, Vec<Term>) {
    let mut lits = lits.to_vec();
    let mut kept = vec![];
    for v in vars {
        match eliminate_with(&lits, v, weaken) {
            Some(l) => lits = l,
            None => kept.push(v.clone()),
        }
    }
    lits.sort();
    lits.dedup();
    (lits, kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(n: &str) -> Term {
        Term::var(n, Sort::Int)
    }

    #[test]
    fn bounds_are_combined() {
        // ∃n. i ≥ n ∧ z < n  ≡  z < i
        let (i, n, z) = (int("i"), int("n"), int("z"));
        let (out, kept) = project(&[Term::le(&n, &i), Term::lt(&z, &n)], &[n]);
        assert!(kept.is_empty());
        assert_eq!(out, vec![Term::lt(&z, &i)]);
    }

    #[test]
    fn equalities_substitute() {
        let (i, v) = (int("i"), int("v"));
        let a = Term::var("a", Sort::array(vec![Sort::Int], Sort::Int));
        let lits = [Term::eq(&v, &Term::add([i.clone(), Term::int(1)])), Term::eq(&Term::select(&a, std::slice::from_ref(&v)), &Term::int(0))];
        let (out, kept) = project(&lits, &[v]);
        assert!(kept.is_empty());
        assert_eq!(out, vec![Term::eq(&Term::select(&a, &[Term::add([i, Term::int(1)])]), &Term::int(0))]);
    }

    #[test]
    fn reads_block_elimination() {
        let v = int("v");
        let a = Term::var("a", Sort::array(vec![Sort::Int], Sort::Int));
        let lits = [Term::eq(&Term::select(&a, std::slice::from_ref(&v)), &Term::int(0)), Term::le(&Term::int(0), &v)];
        let (out, kept) = project(&lits, std::slice::from_ref(&v));
        assert_eq!(kept, vec![v]);
        assert_eq!(out.len(), 2);
    }
}
