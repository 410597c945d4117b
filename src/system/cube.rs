//! ∃-cubes: `∃z1…zn. distinct(z1…zn) ∧ l1 ∧ … ∧ lm`, the symbolic states of
//! backward reachability, kept in a normal form: index variables canonically
//! named `z1…zn`, literals simplified and sorted, contradictions dropped.
//! A cube may also say what holds of every process it does not name
//! (`∀o ∉ z̄. ψ(o)`): exact universal guards leave such conditions behind.

use crate::logic::{any_small, collect, text, Op, Sort, Term};
use crate::{HashMap, HashSet};
use std::fmt;
use std::rc::Rc;

/// An existential cube over pairwise distinct index variables.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Cube {
    /// The index variables `z1…zn`, pairwise distinct.
    pub vars: Vec<Term>,
    /// The literals (atoms or negated atoms), sorted by printed form.
    pub lits: Vec<Term>,
    /// What holds of every other process: formulas over [`other`], each
    /// meaning `∀o ∉ z̄. ψ(o)` (empty for plain cubes), sorted.
    pub others: Vec<Term>,
}

/// The variable standing for "any process the cube does not name" in
/// [`Cube::others`].
pub fn other(sort: &Sort) -> Term {
    Term::var("o!", sort.clone())
}

impl fmt::Display for Cube {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.vars.is_empty() {
            write!(f, "∃")?;
            for (i, v) in self.vars.iter().enumerate() {
                write!(f, "{}{}", if i > 0 { "," } else { "" }, v)?;
            }
            write!(f, ". ")?;
        }
        if self.lits.is_empty() && self.others.is_empty() {
            return write!(f, "true");
        }
        for (i, l) in self.lits.iter().enumerate() {
            write!(f, "{}{}", if i > 0 { " ∧ " } else { "" }, l)?;
        }
        for (i, l) in self.others.iter().enumerate() {
            write!(f, "{}∀o!∉z̄. {}", if i > 0 || !self.lits.is_empty() { " ∧ " } else { "" }, l)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Cube {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// The canonical name of the `i`-th (0-based) cube variable.
pub fn zvar(i: usize, sort: &Sort) -> Term {
    Term::var(&format!("z{}", i + 1), sort.clone())
}

impl Cube {
    /// The conjunction of the literals (free in the variables).
    pub fn body(&self) -> Term {
        Term::and(self.lits.iter().cloned())
    }
    /// The symbols the cube reads (free in its literals or in its
    /// conditions on other processes), each once.
    pub fn reads(&self) -> Vec<Term> {
        let mut out: Vec<Term> = self.lits.iter().chain(&self.others).flat_map(crate::logic::free_vars).collect();
        out.sort();
        out.dedup();
        out
    }
    /// A plain cube (no condition on other processes).
    pub fn plain(vars: Vec<Term>, lits: Vec<Term>) -> Cube {
        Cube { vars, lits, others: vec![] }
    }
    /// The closed formula `∃z̄. distinct(z̄) ∧ body ∧ ∀o ∉ z̄. others(o)`.
    pub fn formula(&self) -> Term {
        Term::exists(&self.vars, &Term::and([Term::distinct(&self.vars), self.body(), self.outside()]))
    }
    /// The invariant clause the cube stands for: `∀z̄. distinct(z̄) ⇒ ¬(body ∧ ∀o ∉ z̄. others(o))`.
    pub fn negation(&self) -> Term {
        let body = Term::implies(&Term::distinct(&self.vars), &Term::and([self.body(), self.outside()]).not());
        Term::forall(&self.vars, &body)
    }
    /// `∀o. o ∉ z̄ ⇒ others(o)` (true for a plain cube).
    pub fn outside(&self) -> Term {
        match self.outside_condition() {
            Some((o, body)) => Term::forall(std::slice::from_ref(&o), &body),
            None => Term::tt(),
        }
    }
    /// The other process `o` and `o ∉ z̄ ⇒ others(o)`, for a cube with
    /// conditions on other processes.
    pub fn outside_condition(&self) -> Option<(Term, Term)> {
        // (the other process in its own sort, as written)
        let o = self.others.iter().flat_map(crate::logic::free_vars).find(|v| v.var_name() == Some("o!"))?;
        let apart = Term::and(self.vars.iter().map(|v| Term::eq(&o, v).not()));
        let body = Term::implies(&apart, &Term::and(self.others.iter().cloned()));
        Some((o, body))
    }
    /// The conditions on other processes at process term `t`.
    pub fn others_at(&self, t: &Term) -> Vec<Term> {
        let m: HashMap<Term, Term> = [(other(t.sort()), t.clone())].into_iter().collect();
        self.others.iter().map(|p| crate::logic::substitute(p, &m)).collect()
    }
    /// Sets the conditions on other processes, given over the variables
    /// `renaming` maps to this cube's: simplified (the other process is
    /// none of the cube's), trivial ones dropped, sorted.
    pub fn set_others(&mut self, others: &[Term], renaming: &HashMap<Term, Term>) {
        let sort = self.vars.first().map(|v| v.sort().clone()).unwrap_or(Sort::Index);
        let mut distinct: HashSet<Term> = self.vars.iter().cloned().collect();
        distinct.insert(other(&sort));
        let mut out: Vec<(String, Term)> = others
            .iter()
            .map(|p| resolve_distinct(&crate::logic::substitute(p, renaming), &distinct))
            .flat_map(|p| if matches!(p.op(), Op::And) { p.args().to_vec() } else { vec![p] })
            .filter(|p| p.as_bool() != Some(true))
            .map(|p| (p.to_string(), p))
            .collect();
        out.sort();
        out.dedup();
        // a process no literal speaks of stands for one the conditions no
        // longer bind (a pre-image fresh process they held of trivially
        // after the step); such cubes form endless chains, one more such
        // process each, whose limit is the cube without conditions: take it
        let loose = self.vars.iter().any(|v| !self.lits.iter().any(|l| crate::logic::occurs(v, l)));
        self.others = if loose { vec![] } else { out.into_iter().map(|(_, p)| p).collect() };
    }
    /// The number of index variables.
    pub fn arity(&self) -> usize {
        self.vars.len()
    }
    /// Whether the cube's satisfiability is not already settled by
    /// normalisation (order, arithmetic or equalities between non-values).
    pub fn needs_sat_check(&self) -> bool {
        self.lits.iter().any(|l| {
            let a = if let Op::Not = l.op() { &l.args()[0] } else { l };
            match a.op() {
                Op::Lt | Op::Le => true,
                Op::Eq => !a.args()[1].is_value(),
                _ => false,
            }
        })
    }

    /// ```
    /// use arrax::system::cube::{zvar, Cube};
    /// use arrax::logic::{Sort, Term};
    /// let (z1, z2) = (zvar(0, &Sort::Index), zvar(1, &Sort::Index));
    /// let a = Term::var("a", Sort::array(vec![Sort::Index], Sort::Int));
    /// let a1 = Term::select(&a, &[z1.clone()]);
    /// // z1 = z2 is false for distinct cube variables, so only one branch survives
    /// let f = Term::or([Term::eq(&z1, &z2), Term::eq(&a1, &Term::int(4))]);
    /// let cubes = Cube::normalize(&[z1, z2], &[f]);
    /// assert_eq!(cubes.len(), 1);
    /// assert_eq!(cubes[0].to_string(), "∃z1,z2. (= (select a z2) 4)"); // canonically renamed
    /// ```
    ///
    /// Normalises a conjunction of arbitrary quantifier-free formulas over
    /// the pairwise distinct index variables `vars` into cubes whose
    /// disjunction is equivalent to it: equalities between distinct
    /// variables are false, disjunctions and `ite`s are split, unit facts
    /// are propagated, enumerations are closed, syntactically
    /// contradictory cubes disappear.
    pub fn normalize(vars: &[Term], formulas: &[Term]) -> Vec<Cube> {
        Cube::normalize_renaming(vars, formulas).into_iter().map(|(c, _)| c).collect()
    }

    /// Like [`Cube::normalize`], also giving for each cube the renaming from
    /// `vars` to its canonical variables.
    pub fn normalize_renaming(vars: &[Term], formulas: &[Term]) -> Vec<(Cube, HashMap<Term, Term>)> {
        let distinct: HashSet<Term> = vars.iter().cloned().collect();
        let lits: Vec<Term> = formulas.iter().map(|f| resolve_distinct(f, &distinct)).collect();
        let mut out = vec![];
        let mut work = vec![lits];
        while let Some(lits) = work.pop() {
            match split_once(lits) {
                Split::Branches(bs) => work.extend(bs),
                Split::Done(lits) => {
                    if let Some(lits) = propagate(lits, &distinct) {
                        match split_once(lits) {
                            Split::Branches(bs) => work.extend(bs),
                            Split::Done(lits) => out.push(Cube::canonical(vars, lits)),
                            Split::False => {}
                        }
                    }
                }
                Split::False => {}
            }
        }
        out.sort_by_cached_key(|c| c.0.key());
        out.dedup_by(|a, b| a.0 == b.0);
        out
    }

    /// Renames the variables canonically (an order by the shape of the
    /// literals each variable occurs in) and sorts the literals.
    fn canonical(vars: &[Term], lits: Vec<Term>) -> (Cube, HashMap<Term, Term>) {
        let texts: Vec<Rc<str>> = lits.iter().map(text).collect();
        let names: Vec<Rc<str>> = vars.iter().map(text).collect();
        let mut sig: Vec<(Vec<String>, usize)> = vec![];
        for (i, v) in vars.iter().enumerate() {
            let mut s: Vec<String> = lits.iter().zip(&texts).filter(|(l, _)| crate::logic::occurs(v, l)).map(|(_, t)| mask(t, &names, i)).collect();
            s.sort();
            sig.push((s, i));
        }
        sig.sort();
        let sort = vars.first().map(|v| v.sort().clone()).unwrap_or(Sort::Index);
        let renaming: HashMap<Term, Term> = sig.iter().enumerate().map(|(k, (_, i))| (vars[*i].clone(), zvar(k, &sort))).collect();
        // (the renaming is simultaneous: no variable is renamed twice)
        let mut lits: Vec<(Rc<str>, Term)> = lits.iter().map(|l| crate::logic::substitute(l, &renaming)).map(|l| (text(&l), l)).collect();
        lits.sort();
        lits.dedup();
        let cube = Cube::plain((0..vars.len()).map(|k| zvar(k, &sort)).collect(), lits.into_iter().map(|(_, l)| l).collect());
        (cube, renaming)
    }

    /// A key equal for cubes equal up to renaming of variables (as far as
    /// the canonical order can tell).
    pub fn key(&self) -> String {
        let mut s = format!("{}|", self.vars.len());
        for l in &self.lits {
            s.push_str(&text(l));
            s.push(';');
        }
        for l in &self.others {
            s.push('∀');
            s.push_str(&l.to_string());
            s.push(';');
        }
        s
    }
}

/// Replaces each other variable name in `text` by `?` and variable `me` by `_`.
fn mask(text: &str, names: &[Rc<str>], me: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for tok in text.split_inclusive([' ', '(', ')']) {
        let (word, sep) = match tok.char_indices().last() {
            Some((i, c)) if c == ' ' || c == '(' || c == ')' => (&tok[..i], &tok[i..]),
            _ => (tok, ""),
        };
        match names.iter().position(|n| &**n == word) {
            Some(k) if k == me => out.push('_'),
            Some(_) => out.push('?'),
            None => out.push_str(word),
        }
        out.push_str(sep);
    }
    out
}

/// The most nodes of a formula searched without memory before a search
/// that visits each subterm once (see [`any_small`]).
const SMALL: usize = 64;

/// Simplifies equalities between two distinct cube variables to false.
pub fn resolve_distinct(t: &Term, distinct: &HashSet<Term>) -> Term {
    let between = |s: &Term| matches!(s.op(), Op::Eq) && s.args().iter().all(|a| distinct.contains(a)) && s.args()[0] != s.args()[1];
    if any_small(t, &between, &mut { SMALL }) == Some(false) {
        return t.clone();
    }
    let eqs = collect(t, &between);
    if eqs.is_empty() {
        return t.clone();
    }
    let map: HashMap<Term, Term> = eqs.into_iter().map(|e| (e, Term::ff())).collect();
    crate::logic::substitute(t, &map)
}

enum Split {
    Branches(Vec<Vec<Term>>),
    Done(Vec<Term>),
    False,
}

/// One step of splitting a conjunction into literals: flattens conjunctions,
/// branches on the first disjunction or on the condition of the first
/// non-Boolean `ite` found.
fn split_once(lits: Vec<Term>) -> Split {
    let mut flat = Vec::with_capacity(lits.len());
    let mut stack = lits;
    stack.reverse();
    while let Some(l) = stack.pop() {
        match l.op() {
            Op::Bool(true) => {}
            Op::Bool(false) => return Split::False,
            Op::And => stack.extend(l.args().iter().rev().cloned()),
            Op::Not if matches!(l.args()[0].op(), Op::Or) => stack.extend(l.args()[0].args().iter().rev().map(|a| a.not())),
            _ => flat.push(l),
        }
    }
    // disjunctions (also ¬(a ∧ b))
    for (i, l) in flat.iter().enumerate() {
        let disjuncts: Option<Vec<Term>> = match l.op() {
            Op::Or => Some(l.args().to_vec()),
            Op::Not if matches!(l.args()[0].op(), Op::And) => Some(l.args()[0].args().iter().map(|a| a.not()).collect()),
            _ => None,
        };
        if let Some(ds) = disjuncts {
            let rest: Vec<Term> = flat.iter().enumerate().filter(|(k, _)| *k != i).map(|(_, t)| t.clone()).collect();
            // exclusive branches: d1 | ¬d1 ∧ d2 | …, so that cubes do not overlap
            let mut branches = vec![];
            let mut negs: Vec<Term> = vec![];
            for d in ds {
                let mut b = rest.clone();
                b.extend(negs.iter().cloned());
                b.push(d.clone());
                branches.push(b);
                negs.push(d.not());
            }
            return Split::Branches(branches);
        }
    }
    // ite conditions
    let ite = |s: &Term| matches!(s.op(), Op::Ite);
    for l in &flat {
        if any_small(l, &ite, &mut { SMALL }) == Some(false) {
            continue;
        }
        let ites = collect(l, &ite);
        if let Some(ite) = ites.first() {
            let c = ite.args()[0].clone();
            let mut branches = vec![];
            for val in [true, false] {
                let map: HashMap<Term, Term> = [(c.clone(), Term::bool(val))].into_iter().collect();
                let mut b: Vec<Term> = flat.iter().map(|t| crate::logic::substitute(t, &map)).collect();
                b.push(if val { c.clone() } else { c.not() });
                branches.push(b);
            }
            return Split::Branches(branches);
        }
    }
    Split::Done(flat)
}

/// An integer comparison simplified: decided when its sides differ by a
/// constant (`z < z + 1`, `i ≠ i + 2`), with shared atoms cancelled when
/// the sides have some (`n + 42 = b[z] + n` is `b[z] = 42`); `None` when
/// there is nothing to simplify.
fn simplify_comparison(l: &Term) -> Option<Term> {
    use crate::logic::projection::Linear;
    let (neg, atom) = match l.op() {
        Op::Not => (true, &l.args()[0]),
        _ => (false, l),
    };
    if !matches!(atom.op(), Op::Lt | Op::Le | Op::Eq) {
        return None;
    }
    if *atom.args()[0].sort() == Sort::Real {
        let out = simplify_real_comparison(atom)?;
        return Some(if neg { out.not() } else { out });
    }
    if *atom.args()[0].sort() != Sort::Int {
        return None;
    }
    let (a, b) = (Linear::of(&atom.args()[0])?, Linear::of(&atom.args()[1])?);
    let d = a.minus(&b)?;
    if d.coeffs.is_empty() {
        let v = match atom.op() {
            Op::Lt => d.constant < 0,
            Op::Le => d.constant <= 0,
            _ => d.constant == 0,
        };
        return Some(Term::bool(v != neg));
    }
    if !a.coeffs.keys().any(|t| b.coeffs.contains_key(t)) {
        return None;
    }
    let out = match atom.op() {
        Op::Lt => {
            let mut e = d;
            e.constant = e.constant.checked_add(1)?;
            e.le_zero()
        }
        Op::Le => d.le_zero(),
        _ => d.eq_zero(),
    };
    Some(if neg { out.not() } else { out })
}

/// A real linear form `Σ cᵢ·tᵢ + k` with integer coefficients and an
/// integral constant (`None` for anything else).
fn real_linear(t: &Term, k: i64, out: &mut std::collections::BTreeMap<Term, i64>, constant: &mut i64) -> Option<()> {
    match t.op() {
        Op::Real(n, 1) => *constant = constant.checked_add(n.checked_mul(k)?)?,
        Op::Add => {
            for a in t.args() {
                real_linear(a, k, out, constant)?;
            }
        }
        Op::Neg => real_linear(&t.args()[0], k.checked_neg()?, out, constant)?,
        Op::Mul => {
            let mut c = k;
            let mut rest = vec![];
            for a in t.args() {
                match a.op() {
                    Op::Real(n, 1) => c = c.checked_mul(*n)?,
                    Op::Real(..) => return None,
                    _ => rest.push(a),
                }
            }
            match rest.as_slice() {
                [] => *constant = constant.checked_add(c)?,
                [one] => real_linear(one, c, out, constant)?,
                _ => return None,
            }
        }
        Op::Real(..) => return None,
        _ => {
            let e = out.entry(t.clone()).or_insert(0);
            *e = e.checked_add(k)?;
        }
    }
    Some(())
}

/// A real comparison (`<`, `<=`, `=`) with the atoms both sides share
/// cancelled (`a + Tick = b + Tick` is `a = b`), or decided when the sides
/// differ by a constant; `None` when there is nothing to simplify.
fn simplify_real_comparison(atom: &Term) -> Option<Term> {
    let mut lhs = std::collections::BTreeMap::new();
    let mut rhs = std::collections::BTreeMap::new();
    let (mut kl, mut kr) = (0i64, 0i64);
    real_linear(&atom.args()[0], 1, &mut lhs, &mut kl)?;
    real_linear(&atom.args()[1], 1, &mut rhs, &mut kr)?;
    lhs.retain(|_, c| *c != 0);
    rhs.retain(|_, c| *c != 0);
    let shared = lhs.keys().any(|t| rhs.contains_key(t));
    // d = lhs - rhs
    let mut d = lhs.clone();
    for (t, c) in &rhs {
        let e = d.entry(t.clone()).or_insert(0);
        *e = e.checked_sub(*c)?;
    }
    d.retain(|_, c| *c != 0);
    let k = kl.checked_sub(kr)?;
    if d.is_empty() {
        return Some(Term::bool(match atom.op() {
            Op::Lt => k < 0,
            Op::Le => k <= 0,
            _ => k == 0,
        }));
    }
    if !shared {
        return None;
    }
    let side = |sign: i64| -> Vec<Term> { d.iter().filter(|(_, c)| c.signum() == sign).map(|(t, c)| Term::mul([Term::real(c.abs(), 1), t.clone()])).collect() };
    let l = Term::add(side(1).into_iter().chain([Term::real(0, 1)]));
    let r = Term::add(side(-1).into_iter().chain([Term::real(-k, 1)]));
    Some(match atom.op() {
        Op::Lt => Term::lt(&l, &r),
        Op::Le => Term::le(&l, &r),
        _ => Term::eq(&l, &r),
    })
}

/// Unit propagation over literals: a literal `t = v` (v a value), `p` or
/// `¬p` replaces `t`/`p` in the other literals; an index term equal to a
/// cube variable is replaced by it; finite sorts are closed (all values but
/// one excluded gives an equality, all excluded a contradiction). Returns
/// `None` on a contradiction.
fn propagate(mut lits: Vec<Term>, distinct: &HashSet<Term>) -> Option<Vec<Term>> {
    loop {
        let mut map: HashMap<Term, Term> = HashMap::default();
        // a term defined twice: two values (or two distinct variables)
        // contradict each other; a value and a variable make the variable
        // equal to the value (`i = 0 ∧ z1 = i` is `z1 = 0`), the value
        // staying the definition
        let mut implied = vec![];
        for l in &lits {
            if let Some((t, v)) = definition(l, distinct) {
                match map.get(&t) {
                    Some(old) if *old == v => {}
                    Some(old) if old.is_value() == v.is_value() => return None,
                    Some(old) => {
                        let (value, var) = if old.is_value() { (old.clone(), v) } else { (v, old.clone()) };
                        implied.push(Term::eq(&var, &value));
                        map.insert(t, value);
                    }
                    None => {
                        map.insert(t, v);
                    }
                }
            }
        }
        if !implied.is_empty() {
            lits.extend(implied);
        }
        let mut changed = false;
        let mut next = Vec::with_capacity(lits.len());
        for l in &lits {
            let keep = match definition(l, distinct) {
                Some((t, v)) if map.get(&t) == Some(&v) => {
                    // a defining literal stays, but its defined term is not rewritten
                    let other: HashMap<Term, Term> = map.iter().filter(|(k, _)| **k != t).map(|(k, v)| (k.clone(), v.clone())).collect();
                    let l2 = crate::logic::substitute(l, &other);
                    resolve_distinct(&l2, distinct)
                }
                _ => resolve_distinct(&crate::logic::substitute(l, &map), distinct),
            };
            let keep = simplify_comparison(&keep).unwrap_or(keep);
            if keep != *l {
                changed = true;
            }
            match keep.op() {
                Op::Bool(true) => {}
                Op::Bool(false) => return None,
                _ => next.push(keep),
            }
        }
        next.sort();
        next.dedup();
        if next.len() != lits.len() {
            changed = true;
        }
        lits = next;
        if let Some(closed) = close_enums(&lits)? {
            lits = closed;
            changed = true;
        }
        if !changed || needs_resplit(&lits) {
            return Some(lits);
        }
    }
}

fn needs_resplit(lits: &[Term]) -> bool {
    lits.iter().any(|l| matches!(l.op(), Op::And | Op::Or) || !collect(l, &|s: &Term| matches!(s.op(), Op::Ite)).is_empty())
}

/// The term a literal defines and its value: `t = v` with v a value or a
/// cube variable (t not a cube variable), `p` (p := true), `¬p` (p := false).
fn definition(l: &Term, distinct: &HashSet<Term>) -> Option<(Term, Term)> {
    match l.op() {
        Op::Eq => {
            let (a, b) = (&l.args()[0], &l.args()[1]);
            let is_target = |t: &Term| t.is_value() || distinct.contains(t);
            if is_target(b) && !is_target(a) {
                Some((a.clone(), b.clone()))
            } else if is_target(a) && !is_target(b) {
                Some((b.clone(), a.clone()))
            } else {
                None
            }
        }
        Op::Not => {
            let a = &l.args()[0];
            (matches!(a.op(), Op::Var(_) | Op::Select)).then(|| (a.clone(), Term::ff()))
        }
        Op::Var(_) | Op::Select if *l.sort() == Sort::Bool => Some((l.clone(), Term::tt())),
        _ => None,
    }
}

/// Closes finite sorts: `Some(Some(lits))` when something changed,
/// `Some(None)` when nothing did, `None` on a contradiction.
fn close_enums(lits: &[Term]) -> Option<Option<Vec<Term>>> {
    // in order of first occurrence, so that results do not depend on hashing
    let mut excluded: Vec<(Term, Vec<i64>)> = vec![];
    for l in lits {
        if let Op::Not = l.op() {
            let e = &l.args()[0];
            if let Op::Eq = e.op() {
                let (a, b) = (&e.args()[0], &e.args()[1]);
                if let (Some(_), Some(v)) = (a.sort().finite_range(), literal_value(b)) {
                    match excluded.iter_mut().find(|(t, _)| t == a) {
                        Some((_, vs)) => vs.push(v),
                        None => excluded.push((a.clone(), vec![v])),
                    }
                }
            }
        }
    }
    let mut out: Option<Vec<Term>> = None;
    for (t, ex) in excluded {
        let (lo, hi) = t.sort().finite_range().unwrap();
        if hi - lo > 64 {
            continue;
        }
        let left: Vec<i64> = (lo..=hi).filter(|v| !ex.contains(v)).collect();
        match left.len() {
            0 => return None,
            1 => {
                let val = make_literal(&t, left[0]);
                let cur = out.get_or_insert_with(|| lits.to_vec());
                cur.retain(|l| {
                    !(matches!(l.op(), Op::Not)
                        && crate::logic::occurs(&t, l)
                        && matches!(l.args()[0].op(), Op::Eq)
                        && (l.args()[0].args()[0] == t || l.args()[0].args()[1] == t))
                });
                cur.push(Term::eq(&t, &val));
            }
            _ => {}
        }
    }
    Some(out)
}

fn literal_value(t: &Term) -> Option<i64> {
    match t.op() {
        Op::Int(n) | Op::EnumConst(n) => Some(*n),
        _ => None,
    }
}

fn make_literal(t: &Term, v: i64) -> Term {
    match t.sort() {
        Sort::Enum(d) if matches!(d.values, crate::logic::EnumValues::Names(_)) => Term::enum_const(t.sort().clone(), v),
        _ => Term::int(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr(name: &str, elem: Sort) -> Term {
        Term::var(name, Sort::array(vec![Sort::Index], elem))
    }

    #[test]
    fn distinct_variables_and_propagation() {
        let z1 = zvar(0, &Sort::Index);
        let z2 = zvar(1, &Sort::Index);
        let a = arr("a", Sort::Int);
        let a1 = Term::select(&a, std::slice::from_ref(&z1));
        let a2 = Term::select(&a, std::slice::from_ref(&z2));
        // a[z1] = 3 ∧ (z1 = z2 ∨ a[z1] = 4) is contradictory
        let f = [Term::eq(&a1, &Term::int(3)), Term::or([Term::eq(&z1, &z2), Term::eq(&a1, &Term::int(4))])];
        assert!(Cube::normalize(&[z1.clone(), z2.clone()], &f).is_empty());
        // a[z1] = ite(z1 = z2, 1, a[z2]) ∧ a[z2] = 5  gives a[z1] = 5
        let g = [Term::eq(&a1, &Term::ite(&Term::eq(&z1, &z2), &Term::int(1), &a2)), Term::eq(&a2, &Term::int(5))];
        let cs = Cube::normalize(&[z1.clone(), z2.clone()], &g);
        assert_eq!(cs.len(), 1);
        assert_eq!(cs[0].lits.len(), 2);
    }

    #[test]
    fn renaming_gives_the_same_cube() {
        let z1 = zvar(0, &Sort::Index);
        let z2 = zvar(1, &Sort::Index);
        let a = arr("a", Sort::Int);
        let sel = |z: &Term| Term::select(&a, std::slice::from_ref(z));
        let c1 = Cube::normalize(&[z1.clone(), z2.clone()], &[Term::eq(&sel(&z1), &Term::int(1)), Term::eq(&sel(&z2), &Term::int(2))]);
        let c2 = Cube::normalize(&[z1.clone(), z2.clone()], &[Term::eq(&sel(&z2), &Term::int(1)), Term::eq(&sel(&z1), &Term::int(2))]);
        assert_eq!(c1, c2);
        assert_eq!(c1[0].key(), c2[0].key());
    }

    #[test]
    fn conditions_on_other_processes_are_kept_only_while_every_process_is_bound() {
        let (z1, z2) = (zvar(0, &Sort::Index), zvar(1, &Sort::Index));
        let a = arr("a", Sort::Int);
        let d = arr("d", Sort::Bool);
        let o = other(&Sort::Index);
        let sel = |x: &Term, z: &Term| Term::select(x, std::slice::from_ref(z));
        let id: HashMap<Term, Term> = HashMap::default();
        // ¬d[o] ∨ o = z1 simplifies to ¬d[o]: o is none of the cube's processes
        let cond = Term::or([sel(&d, &o).not(), Term::eq(&o, &z1)]);
        let mut c = Cube::plain(vec![z1.clone(), z2.clone()], vec![Term::eq(&sel(&a, &z1), &Term::int(1)), sel(&d, &z2)]);
        c.set_others(std::slice::from_ref(&cond), &id);
        assert_eq!(c.others, vec![sel(&d, &o).not()]);
        assert_eq!(c.others_at(&z2), vec![sel(&d, &z2).not()]);
        assert!(c.key().contains('∀'));
        // z2 bound by no literal: the conditions go (the limit of z2, z2 z3, … chains)
        let mut loose = Cube::plain(vec![z1.clone(), z2.clone()], vec![Term::eq(&sel(&a, &z1), &Term::int(1))]);
        loose.set_others(&[cond], &id);
        assert!(loose.others.is_empty());
    }

    #[test]
    fn enumerations_are_closed() {
        let d = std::rc::Rc::new(crate::logic::EnumDef { name: "t".into(), values: crate::logic::EnumValues::Subrange(1, 3) });
        let s = Sort::Enum(d);
        let z1 = zvar(0, &Sort::Index);
        let a = arr("a", s.clone());
        let r = Term::select(&a, std::slice::from_ref(&z1));
        let ne = |v| Term::eq(&r, &Term::int(v)).not();
        assert!(Cube::normalize(std::slice::from_ref(&z1), &[ne(1), ne(2), ne(3)]).is_empty());
        let cs = Cube::normalize(std::slice::from_ref(&z1), &[ne(1), ne(2)]);
        assert_eq!(cs.len(), 1);
        assert_eq!(cs[0].lits, vec![Term::eq(&r, &Term::int(3))]);
    }

    #[test]
    fn real_comparisons_cancel_shared_atoms() {
        let z1 = zvar(0, &Sort::Index);
        let z2 = zvar(1, &Sort::Index);
        let aux = arr("aux", Sort::Real);
        let v = arr("v", Sort::Real);
        let tick = Term::var("tick", Sort::Real);
        let a1 = Term::select(&aux, std::slice::from_ref(&z1));
        let v2 = Term::select(&v, std::slice::from_ref(&z2));
        let vars = [z1.clone(), z2.clone()];
        // aux[z1] + tick = v[z2] + tick  is  aux[z1] = v[z2]
        let cs = Cube::normalize(&vars, &[Term::eq(&Term::add([a1.clone(), tick.clone()]), &Term::add([v2.clone(), tick.clone()]))]);
        let plain = Cube::normalize(&vars, &[Term::eq(&a1, &v2)]);
        assert_eq!(cs.len(), 1);
        assert_eq!(cs[0].key(), plain[0].key());
        // tick = aux[z1] + tick  is  aux[z1] = 0
        let cs = Cube::normalize(&vars, &[Term::eq(&tick, &Term::add([a1.clone(), tick.clone()]))]);
        assert_eq!(cs[0].lits, Cube::normalize(&vars, &[Term::eq(&a1, &Term::real(0, 1))])[0].lits);
        // tick + 1 < tick is false; tick <= tick + 2 is true
        assert!(Cube::normalize(&vars, &[Term::lt(&Term::add([tick.clone(), Term::real(1, 1)]), &tick)]).is_empty());
        let cs = Cube::normalize(&vars, &[Term::le(&tick, &Term::add([tick.clone(), Term::real(2, 1)])), Term::eq(&a1, &v2)]);
        assert_eq!(cs[0].lits, plain[0].lits);
    }
}

#[cfg(test)]
mod ite_cases {
    use super::*;
    use crate::logic::{Sort, Term};

    /// The pre-image of `b[z] ≠ N` under `b[j] := ite(i = 0, ite(j = 0, 1,
    /// b[j]), ite(i = j, x, b[j]))`: the case `i = 0 ∧ z = 0` (where `z = i`
    /// too) gives `N ≠ 1`; it was once lost, taken for a contradiction
    /// because `i` was defined both as 0 and as `z`.
    #[test]
    fn nested_ites_keep_every_case() {
        let z = zvar(0, &Sort::Int);
        let (i, n) = (Term::var("i", Sort::Int), Term::var("N", Sort::Int));
        let b = Term::var("b", Sort::array(vec![Sort::Int], Sort::Int));
        let x = Term::var("x", Sort::Int);
        let zero = Term::int(0);
        let bz = Term::select(&b, std::slice::from_ref(&z));
        let v = Term::ite(&Term::eq(&i, &zero), &Term::ite(&Term::eq(&z, &zero), &Term::int(1), &bz), &Term::ite(&Term::eq(&i, &z), &x, &bz));
        let lits = [Term::le(&zero, &z), Term::lt(&z, &Term::add([i.clone(), Term::int(1)])), Term::lt(&i, &n), Term::eq(&n, &v).not()];
        let cases: Vec<String> = Cube::normalize(std::slice::from_ref(&z), &lits).iter().map(|c| c.to_string()).collect();
        assert!(cases.iter().any(|c| c.contains("(= i 0)") && c.contains("(not (= N 1))")), "the case i = 0, z = 0 is missing: {cases:#?}");
    }
}
