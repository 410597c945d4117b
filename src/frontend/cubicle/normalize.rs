//! Normal forms of Cubicle formulas before they enter the IR: negation
//! normal form, cubes split at quantified disjunctions, universal
//! quantifiers lifted, guards split into cases, identifications of new
//! variables with old ones.

use crate::logic::{collect, Op, Term};
use crate::HashMap;

/// Whether a formula contains a quantifier.
pub(super) fn has_quant(t: &Term) -> bool {
    !collect(t, &|s: &Term| matches!(s.op(), Op::Forall(_) | Op::Exists(_))).is_empty()
}

/// Negation normal form: negations pushed through the connectives and
/// quantifiers down to the atoms.
pub(super) fn nnf(t: &Term, negate: bool) -> Term {
    let args = t.args();
    match t.op() {
        Op::Not => nnf(&args[0], !negate),
        Op::And | Op::Or => {
            let parts: Vec<Term> = args.iter().map(|a| nnf(a, negate)).collect();
            if matches!(t.op(), Op::And) != negate {
                Term::and(parts)
            } else {
                Term::or(parts)
            }
        }
        Op::Forall(vs) | Op::Exists(vs) => {
            let body = nnf(&args[0], negate);
            if matches!(t.op(), Op::Forall(_)) != negate {
                Term::forall(vs, &body)
            } else {
                Term::exists(vs, &body)
            }
        }
        _ if negate => t.not(),
        _ => t.clone(),
    }
}

/// The substitution making equalities between distinct variables false.
pub(super) fn distinctness(vars: &[Term]) -> HashMap<Term, Term> {
    let mut map = HashMap::default();
    for (i, a) in vars.iter().enumerate() {
        for b in &vars[i + 1..] {
            map.insert(Term::eq(a, b), Term::ff());
        }
    }
    map
}

/// A cube before identification: its existential variables and literals.
pub(super) type RawCube = (Vec<Term>, Vec<Term>);

/// A formula in negation normal form as a disjunction of cubes: each with
/// its existential variables and literals. Universal quantifiers are errors.
pub(super) fn split_cube(t: &Term) -> Result<Vec<RawCube>, String> {
    if !has_quant(t) {
        return Ok(vec![(vec![], vec![t.clone()])]);
    }
    match t.op() {
        Op::And => {
            let mut acc = vec![(vec![], vec![])];
            for a in t.args() {
                let parts = split_cube(a)?;
                let mut next = vec![];
                for (v1, l1) in &acc {
                    for (v2, l2) in &parts {
                        next.push(([v1.clone(), v2.clone()].concat(), [l1.clone(), l2.clone()].concat()));
                    }
                }
                acc = next;
            }
            Ok(acc)
        }
        Op::Or => Ok(t.args().iter().map(split_cube).collect::<Result<Vec<_>, _>>()?.concat()),
        Op::Exists(vs) => Ok(split_cube(&t.args()[0])?.into_iter().map(|(v, l)| ([vs.to_vec(), v].concat(), l)).collect()),
        _ => Err("a universal quantifier (after pushing negations inward) cannot be part of an unsafe or invariant cube".to_string()),
    }
}

/// Pulls the universal quantifiers of a formula in negation normal form
/// out (their variables are already named apart); existentials are errors.
pub(super) fn lift_forall(t: &Term) -> Result<(Vec<Term>, Term), String> {
    if !has_quant(t) {
        return Ok((vec![], t.clone()));
    }
    match t.op() {
        Op::And | Op::Or => {
            let mut vars = vec![];
            let mut parts = vec![];
            for a in t.args() {
                let (v, b) = lift_forall(a)?;
                vars.extend(v);
                parts.push(b);
            }
            Ok((vars, if matches!(t.op(), Op::And) { Term::and(parts) } else { Term::or(parts) }))
        }
        Op::Forall(vs) => {
            let (more, body) = lift_forall(&t.args()[0])?;
            Ok(([vs.to_vec(), more].concat(), body))
        }
        _ => Err("an existential quantifier (after pushing negations inward) cannot be part of 'init'".to_string()),
    }
}

/// One disjunct of a transition guard: literals, universal guards `(j, φ)`
/// and existential variables to become parameters.
#[derive(Clone, Default)]
pub(super) struct GuardCase {
    pub(super) lits: Vec<Term>,
    pub(super) univ: Vec<(Term, Term)>,
    pub(super) exists: Vec<Term>,
}

/// A guard in negation normal form as a disjunction of [`GuardCase`]s.
pub(super) fn split_guard(t: &Term) -> Result<Vec<GuardCase>, String> {
    if !has_quant(t) {
        return Ok(vec![GuardCase { lits: vec![t.clone()], ..GuardCase::default() }]);
    }
    match t.op() {
        Op::And => {
            let mut acc = vec![GuardCase::default()];
            for a in t.args() {
                let parts = split_guard(a)?;
                let mut next = vec![];
                for x in &acc {
                    for y in &parts {
                        next.push(GuardCase {
                            lits: [x.lits.clone(), y.lits.clone()].concat(),
                            univ: [x.univ.clone(), y.univ.clone()].concat(),
                            exists: [x.exists.clone(), y.exists.clone()].concat(),
                        });
                    }
                }
                acc = next;
            }
            Ok(acc)
        }
        Op::Or => Ok(t.args().iter().map(split_guard).collect::<Result<Vec<_>, _>>()?.concat()),
        Op::Exists(vs) => Ok(split_guard(&t.args()[0])?
            .into_iter()
            .map(|mut c| {
                c.exists.splice(0..0, vs.iter().cloned());
                c
            })
            .collect()),
        Op::Forall(vs) => {
            let body = &t.args()[0];
            if let Op::And = body.op() {
                // ∀j. (A ∧ B) is (∀j. A) ∧ (∀j. B).
                return split_guard(&Term::and(body.args().iter().map(|b| Term::forall(vs, b))));
            }
            if has_quant(body) {
                return Err("quantifiers nested inside a universal guard are not supported".to_string());
            }
            let [v] = &vs[..] else {
                return Err(format!("a universal guard over {} variables is not supported (the IR has one universal guard variable)", vs.len()));
            };
            Ok(vec![GuardCase { univ: vec![(v.clone(), body.clone())], ..GuardCase::default() }])
        }
        _ => Err(format!("unexpected quantified formula {t}")),
    }
}

/// Every way to identify each of the `new` variables with one of `old` or
/// keep it as a new one distinct from all others: the substitution and the
/// variables kept.
pub(super) fn identifications(new: &[Term], old: &[Term]) -> Vec<(HashMap<Term, Term>, Vec<Term>)> {
    let mut acc: Vec<(HashMap<Term, Term>, Vec<Term>)> = vec![(HashMap::default(), vec![])];
    for v in new {
        let mut next = vec![];
        for (map, kept) in &acc {
            for o in old.iter().chain(kept) {
                let mut m = map.clone();
                m.insert(v.clone(), o.clone());
                next.push((m, kept.clone()));
            }
            let mut k = kept.clone();
            k.push(v.clone());
            next.push((map.clone(), k));
        }
        acc = next;
    }
    acc
}
