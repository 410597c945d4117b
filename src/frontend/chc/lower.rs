//! Linear Horn clauses lowered to an array-based system over integer
//! indices, exactly:
//!
//! - a control variable `pc` over an enumeration `loc` of the predicates,
//!   plus `error` (and `entry`, unless the initial states are one fact);
//! - the predicates' arguments are state variables: arguments of
//!   different predicates share one when they have the same sort and the
//!   same ordinal among their predicate's arguments of that sort (so a
//!   system written per location over the same variables reads back with
//!   those variables); a state variable a predicate does not use holds a
//!   fixed value at its location (0, `false`, the array of those), set by
//!   every step entering it;
//! - a clause `p(t̄) ∧ φ ⇒ q(ū)` is a transition from `p`'s location to
//!   `q`'s (`error` for a query): the body's variable arguments name `p`'s
//!   state variables (other arguments are equalities), body-only variables
//!   defined by a top-level equality `v = t` are replaced by `t`, the
//!   others are the transition's existential values; `q`'s state
//!   variables take the values `ū`; array terms are `λ`-terms (`store` and
//!   constant arrays), an equality of arrays a universal guard `∀j. a[j] = b[j]`;
//! - a fact `φ ⇒ q(ū)` leaves from `entry`, where every state variable is
//!   unconstrained, so the head's variables name `q`'s state variables
//!   there; when it is the only fact and needs no existential value, it is
//!   the initial formula instead (`pc = q ∧ φ`, array equalities such as a
//!   constant array as `∀z. a[z] = c`) and there is no `entry`;
//! - a query's existential integer values become the variables of unsafe
//!   cubes `∃z̄. pc = p ∧ φ` (one cube per way they may coincide, cube
//!   variables being pairwise distinct), which the engines can instantiate;
//!   other queries are steps to `error`, and `pc = error` is unsafe.
//!
//! Arrays of several indices (nested arrays in the clauses) are `λ`-terms
//! over as many bound variables.
//!
//! Refused (at the clause): an array variable that is neither an argument
//! of the body's predicate nor defined by an equality (an array chosen
//! freely in a step), an array equality under a negation or disjunction,
//! an equality of arrays of several dimensions in a step (a universal
//! guard has one variable; in the initial formula it is fine).

use crate::frontend::Diagnostic;
use crate::logic::{conjuncts, free_vars, occurs, substitute, EnumDef, EnumValues, Op, Sort, Term};
use crate::system::horn::{Clause, Clauses, Correspondence, Place};
use crate::system::{IndexKind, Quantified, StateVar, System, Transition, Update};
use crate::HashMap;
use std::rc::Rc;

/// The state layout: shared argument variables and the locations.
struct Layout {
    /// The argument state variables, in order of first use.
    slots: Vec<Term>,
    /// For each predicate, the slot of each argument.
    uses: Vec<Vec<usize>>,
    /// The bound variables of array terms (as many as an array has
    /// indices at most) and of universal guards (the first).
    js: Vec<Term>,
}

impl Layout {
    fn new(cs: &Clauses) -> Layout {
        let (mut keys, mut slots, mut uses) = (vec![], vec![], vec![]);
        for p in &cs.predicates {
            let mut mine = vec![];
            for (i, v) in p.params.iter().enumerate() {
                let ord = p.params[..i].iter().filter(|w| w.sort() == v.sort()).count();
                let key = (v.sort().clone(), ord);
                let k = keys.iter().position(|x| *x == key).unwrap_or_else(|| {
                    keys.push(key);
                    let name = fresh(v.var_name().unwrap_or("x"), |n| n == "pc" || slots.iter().any(|s: &Term| s.var_name() == Some(n)));
                    slots.push(Term::var(&name, v.sort().clone()));
                    slots.len() - 1
                });
                mine.push(k);
            }
            uses.push(mine);
        }
        let dims = slots.iter().map(|s| s.sort().as_array().map_or(1, |a| a.index.len())).max().unwrap_or(1);
        let mut js: Vec<Term> = vec![];
        for _ in 0..dims {
            let name = fresh("j!", |n| slots.iter().chain(&js).any(|s| s.var_name() == Some(n)));
            js.push(Term::var(&name, Sort::Int));
        }
        Layout { slots, uses, js }
    }

    fn slot(&self, pred: usize, arg: usize) -> &Term {
        &self.slots[self.uses[pred][arg]]
    }
}

/// `base`, or `base_2`, `base_3`, … : the first name `taken` refuses not.
fn fresh(base: &str, taken: impl Fn(&str) -> bool) -> String {
    let mut name = base.to_string();
    let mut k = 2;
    while taken(&name) {
        name = format!("{base}_{k}");
        k += 1;
    }
    name
}

/// The first of the bound variables `js`, one per index of an array of sort `s`.
fn indices<'j>(js: &'j [Term], s: &Sort) -> &'j [Term] {
    &js[..s.as_array().map_or(0, |a| a.index.len())]
}

/// The value a slot holds where its predicate does not use it.
fn default(s: &Term, js: &[Term]) -> Term {
    match s.sort().as_array() {
        Some(a) if a.elem == Sort::Bool => Term::lambda(indices(js, s.sort()), &Term::ff()),
        Some(_) => Term::lambda(indices(js, s.sort()), &Term::int(0)),
        None if *s.sort() == Sort::Bool => Term::ff(),
        None => Term::int(0),
    }
}

/// A clause over the current state: the guard, array equalities, the
/// existential values left and the head's new slot values.
struct Lowered {
    guard: Vec<Term>,
    arrays: Vec<(Term, Term)>,
    values: Vec<Term>,
    head: Vec<Term>,
}

/// Whether `v` is a clause variable not yet replaced (internal names contain `|`).
fn internal(v: &Term) -> bool {
    v.var_name().is_some_and(|n| n.contains('|'))
}

/// A definition `v = t` (or a Boolean `v`, `¬v`) of a clause variable among the conjuncts.
fn definition(conj: &[Term]) -> Option<(usize, Term, Term)> {
    conj.iter().enumerate().find_map(|(k, c)| match c.op() {
        Op::Eq => {
            let (a, b) = (&c.args()[0], &c.args()[1]);
            if internal(a) && !occurs(a, b) {
                Some((k, a.clone(), b.clone()))
            } else if internal(b) && !occurs(b, a) {
                Some((k, b.clone(), a.clone()))
            } else {
                None
            }
        }
        Op::Var(_) if internal(c) => Some((k, c.clone(), Term::tt())),
        Op::Not if internal(&c.args()[0]) => Some((k, c.args()[0].clone(), Term::ff())),
        _ => None,
    })
}

/// Array terms as `λ`-terms over `js` (stores, constant arrays, `ite` of
/// arrays), so that reads through them reduce.
fn lambdas(t: &Term, js: &[Term]) -> Term {
    if t.args().is_empty() {
        return t.clone();
    }
    let args: Vec<Term> = t.args().iter().map(|a| lambdas(a, js)).collect();
    let js = indices(js, t.sort());
    match t.op() {
        Op::Lambda(vs) => {
            let m: HashMap<Term, Term> = vs.iter().cloned().zip(js.iter().cloned()).collect();
            Term::lambda(js, &substitute(&args[0], &m))
        }
        Op::Store => {
            let at = Term::and(js.iter().zip(&args[1..=js.len()]).map(|(j, i)| Term::eq(j, i)));
            Term::lambda(js, &Term::ite(&at, &args[js.len() + 1], &Term::select(&args[0], js)))
        }
        Op::Ite if t.sort().as_array().is_some() => Term::lambda(js, &Term::ite(&args[0], &Term::select(&args[1], js), &Term::select(&args[2], js))),
        _ => t.rebuild(args),
    }
}

/// Whether `t` contains an equality of arrays.
fn has_array_eq(t: &Term) -> bool {
    (matches!(t.op(), Op::Eq) && t.args()[0].sort().as_array().is_some()) || t.args().iter().any(has_array_eq)
}

/// Lowers clause `c` over the current state. From `entry` (a fact) the
/// head's variables name the head predicate's slots, which are
/// unconstrained there.
fn lower_clause(src: &str, at: usize, c: &Clause, lay: &Layout, from_entry: bool) -> Result<Lowered, Diagnostic> {
    let err = |msg: String| Diagnostic::at(src, at, msg);
    let inner: HashMap<Term, Term> =
        c.vars.iter().enumerate().map(|(k, v)| (v.clone(), Term::var(&format!("{}|{k}", v.var_name().unwrap_or("v")), v.sort().clone()))).collect();
    let mut conj: Vec<Term> = conjuncts(&substitute(&c.constraint, &inner));
    let mut head: Vec<Term> = c.head.iter().flat_map(|h| h.args.iter()).map(|a| substitute(a, &inner)).collect();
    let mut named: HashMap<Term, Term> = HashMap::default();
    if let Some(b) = &c.body {
        for (i, a) in b.args.iter().enumerate() {
            let (a, slot) = (substitute(a, &inner), lay.slot(b.pred, i));
            if internal(&a) && !named.contains_key(&a) {
                named.insert(a, slot.clone());
            } else {
                conj.push(Term::eq(slot, &a));
            }
        }
    } else if let (true, Some(h)) = (from_entry, &c.head) {
        for (i, a) in head.iter().enumerate() {
            if internal(a) && !named.contains_key(a) {
                named.insert(a.clone(), lay.slot(h.pred, i).clone());
            }
        }
    }
    let apply = |m: &HashMap<Term, Term>, conj: &mut Vec<Term>, head: &mut Vec<Term>| {
        let new: Vec<Term> = conj.iter().flat_map(|t| conjuncts(&substitute(t, m))).collect();
        *conj = new;
        head.iter_mut().for_each(|h| *h = substitute(h, m));
    };
    apply(&named, &mut conj, &mut head);
    while let Some((k, v, t)) = definition(&conj) {
        conj.remove(k);
        apply(&HashMap::from_iter([(v, t)]), &mut conj, &mut head);
    }
    let mut left: Vec<Term> = vec![];
    for t in conj.iter().chain(&head) {
        for v in free_vars(t).into_iter().filter(internal) {
            if !left.contains(&v) {
                left.push(v);
            }
        }
    }
    let mut renaming = HashMap::default();
    let mut values = vec![];
    for v in left {
        let base = v.var_name().and_then(|n| n.split('|').next()).unwrap_or("v").to_string();
        if v.sort().as_array().is_some() {
            let msg = format!(
                "the array variable '{base}' is neither an argument of the body's predicate nor defined by an equality ({base} = …): an array chosen freely in a step is outside the fragment"
            );
            return Err(err(msg));
        }
        let taken = |n: &str| lay.js.iter().any(|j| j.var_name() == Some(n)) || lay.slots.iter().chain(&values).any(|s: &Term| s.var_name() == Some(n));
        let w = Term::var(&fresh(&base, taken), v.sort().clone());
        values.push(w.clone());
        renaming.insert(v, w);
    }
    apply(&renaming, &mut conj, &mut head);
    let (mut guard, mut arrays) = (vec![], vec![]);
    for t in conj.iter().map(|t| lambdas(t, &lay.js)) {
        match t.op() {
            Op::Eq if t.args()[0].sort().as_array().is_some() => arrays.push((t.args()[0].clone(), t.args()[1].clone())),
            _ if has_array_eq(&t) => return Err(err("an array equality under a negation or disjunction is outside the fragment".into())),
            _ => guard.push(t),
        }
    }
    let head = head.iter().map(|h| lambdas(h, &lay.js)).collect();
    Ok(Lowered { guard, arrays, values, head })
}

/// `∀j̄. a[j̄] = b[j̄]` for each array equality, as one formula over `js`.
fn array_body(arrays: &[(Term, Term)], js: &[Term]) -> Term {
    Term::and(arrays.iter().map(|(a, b)| {
        let js = indices(js, a.sort());
        Term::eq(&Term::select(a, js), &Term::select(b, js))
    }))
}

/// The bound variables the array equalities need.
fn array_vars(arrays: &[(Term, Term)], js: &[Term]) -> Vec<Term> {
    arrays.iter().map(|(a, _)| indices(js, a.sort())).max_by_key(|v| v.len()).unwrap_or_default().to_vec()
}

/// An array-valued update as a `λ`-term.
fn as_lambda(v: &Term, js: &[Term]) -> Term {
    match v.op() {
        Op::Lambda(_) => v.clone(),
        _ if v.sort().as_array().is_some() => Term::lambda(indices(js, v.sort()), &Term::select(v, indices(js, v.sort()))),
        _ => v.clone(),
    }
}

/// The set partitions of `n` elements, each as the block of every element
/// (blocks numbered in order of first element).
fn partitions(n: usize) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for _ in 0..n {
        out = out
            .into_iter()
            .flat_map(|p: Vec<usize>| {
                let blocks = p.iter().max().map_or(0, |m| m + 1);
                (0..=blocks).map(move |b| [p.clone(), vec![b]].concat())
            })
            .collect();
    }
    out
}

/// Largest number of integer values a query may leave as unsafe-cube
/// variables (one cube per way they may coincide), and of Boolean values
/// (one cube per assignment).
const CUBE_INTS: usize = 3;
const CUBE_BOOLS: usize = 2;

/// The unsafe cubes `∃z̄. pc = p ∧ φ` of a lowered query, its values the
/// cubes' variables (pairwise distinct: one cube per way they may
/// coincide; Boolean values by cases); `None` when it takes too many cubes
/// or needs array equalities.
fn query_cubes(l: &Lowered, at: &Term) -> Option<Vec<Quantified>> {
    let (ints, bools): (Vec<&Term>, Vec<&Term>) = l.values.iter().partition(|v| *v.sort() == Sort::Int);
    if !l.arrays.is_empty() || ints.len() + bools.len() != l.values.len() || ints.len() > CUBE_INTS || bools.len() > CUBE_BOOLS {
        return None;
    }
    let mut cubes = vec![];
    for blocks in partitions(ints.len()) {
        for bits in 0..1u32 << bools.len() {
            let mut m: HashMap<Term, Term> = HashMap::default();
            for (k, b) in bools.iter().enumerate() {
                m.insert((*b).clone(), Term::bool(bits >> k & 1 == 1));
            }
            let mut vars: Vec<Term> = vec![];
            for (v, b) in ints.iter().zip(&blocks) {
                match vars.get(*b) {
                    Some(rep) => {
                        m.insert((*v).clone(), rep.clone());
                    }
                    None => vars.push((*v).clone()),
                }
            }
            let body = Term::and(std::iter::once(at.clone()).chain(l.guard.iter().map(|g| substitute(g, &m))));
            if body.as_bool() != Some(false) {
                cubes.push(Quantified { vars, lits: conjuncts(&body) });
            }
        }
    }
    Some(cubes)
}

/// The system under construction: the layout, the locations, the control variable.
struct Builder<'c> {
    src: &'c str,
    cs: &'c Clauses,
    positions: &'c [usize],
    lay: Layout,
    /// The location names: `entry` (if any), the predicates, `error`.
    names: Vec<String>,
    loc: Sort,
    pc: Term,
    /// Each predicate's location among the enumeration's.
    locations: Vec<usize>,
}

impl Builder<'_> {
    fn at(&self, k: usize) -> Term {
        Term::enum_const(self.loc.clone(), k as i64)
    }
    fn place(&self, p: usize) -> Term {
        self.at(self.locations[p])
    }
    fn error(&self) -> Term {
        self.at(self.names.len() - 1)
    }
    fn state_index(&self, s: &Term) -> usize {
        1 + self.lay.slots.iter().position(|x| x == s).expect("a slot")
    }
    /// The slots predicate `p` does not use.
    fn unused(&self, p: usize) -> impl Iterator<Item = &Term> {
        let lay = &self.lay;
        (0..lay.slots.len()).filter(move |k| !lay.uses[p].contains(k)).map(move |k| &lay.slots[k])
    }

    /// The initial formula of a fact: `pc = q`, its constraint, the head's
    /// values, the unused slots' values.
    fn initial(&self, f: usize, l: &Lowered) -> Vec<Quantified> {
        let q = self.cs.clauses[f].head.as_ref().expect("a fact with a head").pred;
        let mut lits = vec![Term::eq(&self.pc, &self.place(q))];
        lits.extend(l.guard.iter().cloned());
        let mut arrays = l.arrays.clone();
        let slots_and_values = (0..l.head.len()).map(|i| (self.lay.slot(q, i).clone(), l.head[i].clone()));
        let resets = self.unused(q).map(|s| (s.clone(), default(s, &self.lay.js)));
        for (s, v) in slots_and_values.chain(resets).filter(|(s, v)| s != v) {
            if s.sort().as_array().is_some() {
                arrays.push((s, v));
            } else {
                lits.push(Term::eq(&s, &v));
            }
        }
        let mut out = vec![Quantified { vars: vec![], lits }];
        if !arrays.is_empty() {
            out.push(Quantified { vars: array_vars(&arrays, &self.lay.js), lits: conjuncts(&array_body(&arrays, &self.lay.js)) });
        }
        out
    }

    /// The transition of clause `k`, lowered as `l`.
    fn transition(&self, k: usize, l: Lowered) -> Transition {
        let c = &self.cs.clauses[k];
        let (src_at, src_slots): (Term, Vec<usize>) = match &c.body {
            Some(b) => (self.place(b.pred), self.lay.uses[b.pred].clone()),
            None => (self.at(0), (0..self.lay.slots.len()).collect()),
        };
        let mut updates = vec![];
        let dst_at = match &c.head {
            Some(h) => {
                for (i, v) in l.head.iter().enumerate() {
                    let s = self.lay.slot(h.pred, i);
                    if v != s {
                        updates.push(Update { var: self.state_index(s), value: as_lambda(v, &self.lay.js) });
                    }
                }
                for s in self.unused(h.pred).filter(|s| src_slots.contains(&(self.state_index(s) - 1))) {
                    updates.push(Update { var: self.state_index(s), value: default(s, &self.lay.js) });
                }
                self.place(h.pred)
            }
            None => self.error(),
        };
        if dst_at != src_at {
            updates.insert(0, Update { var: 0, value: dst_at.clone() });
        }
        let name_of = |t: &Term| match t.op() {
            Op::EnumConst(i) => self.names[*i as usize].clone(),
            _ => unreachable!("a location"),
        };
        let guard = Term::and(std::iter::once(Term::eq(&self.pc, &src_at)).chain(l.guard));
        let uguard = (!l.arrays.is_empty()).then(|| (self.lay.js[0].clone(), array_body(&l.arrays, &self.lay.js)));
        let name = format!("{}-{}", name_of(&src_at), name_of(&dst_at));
        Transition { name, params: vec![], values: l.values, guard, uguard, updates, checks: None }
    }
}

/// The clauses, the steps into predicates that only queries read (and no
/// fact derives) resolved with those queries where a step would otherwise
/// choose existential values: each such clause `B ∧ φ ⇒ q(t̄)` and each
/// query `q(ā) ∧ ψ ⇒ false` give the query `B ∧ φ ∧ ā = t̄ ∧ ψ ⇒ false`
/// (exact: `q` occurs in no other body). A property checked through an
/// error relation (`err`, `(query err)`) thus ends in a query whose
/// values can be unsafe-cube variables. Such a predicate's model is what
/// its queries leave possible, whichever way its steps are lowered.
struct Resolved {
    /// The clauses after resolution (the predicates unchanged).
    clauses: Clauses,
    /// For each clause, the original clauses it stands for, in order.
    sources: Vec<Vec<usize>>,
    /// For each clause, the byte offset of its first source.
    positions: Vec<usize>,
    /// For each predicate only queries read, its definition: what its queries leave possible.
    definitions: Vec<Option<Term>>,
}

/// Variables renamed apart from `taken` (suffixes `_2`, …).
fn apart(vars: &[Term], taken: &[String]) -> HashMap<Term, Term> {
    let mut names: Vec<String> = taken.to_vec();
    let mut m = HashMap::default();
    for v in vars {
        let n = fresh(v.var_name().unwrap_or("v"), |n| names.iter().any(|m| m == n));
        names.push(n.clone());
        m.insert(v.clone(), Term::var(&n, v.sort().clone()));
    }
    m
}

/// The queries reading predicate `q`.
fn queries(cs: &Clauses, q: usize) -> impl Iterator<Item = (usize, &Clause)> {
    cs.clauses.iter().enumerate().filter(move |(_, c)| c.body.as_ref().is_some_and(|b| b.pred == q))
}

/// What the queries of `q` leave possible, over its parameters (their
/// variable arguments are the parameters, their other variables universal).
fn left_possible(cs: &Clauses, q: usize) -> Term {
    let p = &cs.predicates[q];
    let names: Vec<String> = p.params.iter().filter_map(|v| v.var_name().map(str::to_string)).collect();
    Term::and(queries(cs, q).map(|(_, c)| {
        let args = &c.body.as_ref().expect("a query of q").args;
        let mut named: HashMap<Term, Term> = HashMap::default();
        for (a, y) in args.iter().zip(&p.params) {
            if a.is_var() && !named.contains_key(a) {
                named.insert(a.clone(), y.clone());
            }
        }
        let rest: Vec<Term> = c.vars.iter().filter(|v| !named.contains_key(v)).cloned().collect();
        let mut m = apart(&rest, &names);
        let vars: Vec<Term> = rest.iter().map(|v| m[v].clone()).collect();
        m.extend(named);
        let same = Term::and(p.params.iter().zip(args).map(|(y, a)| Term::eq(y, &substitute(a, &m))));
        Term::forall(&vars, &Term::and([same, substitute(&c.constraint, &m)]).not())
    }))
}

/// Resolves the clauses `resolve` selects (steps into predicates only
/// queries read) with those queries.
fn resolve(cs: &Clauses, positions: &[usize], resolve: impl Fn(usize) -> bool) -> Resolved {
    let fact = |q: usize| cs.clauses.iter().any(|c| c.body.is_none() && c.head.as_ref().is_some_and(|h| h.pred == q));
    let only_queried = |q: usize| queries(cs, q).next().is_some() && queries(cs, q).all(|(_, c)| c.head.is_none()) && !fact(q);
    let definitions = (0..cs.predicates.len()).map(|q| only_queried(q).then(|| left_possible(cs, q))).collect();
    let mut out = Resolved { clauses: Clauses { predicates: cs.predicates.clone(), clauses: vec![] }, sources: vec![], positions: vec![], definitions };
    for (k, c) in cs.clauses.iter().enumerate() {
        match &c.head {
            Some(h) if only_queried(h.pred) && resolve(k) => {
                let names: Vec<String> = c.vars.iter().filter_map(|v| v.var_name().map(str::to_string)).collect();
                for (j, query) in queries(cs, h.pred) {
                    let m = apart(&query.vars, &names);
                    let args = query.body.as_ref().expect("a query").args.iter().map(|a| substitute(a, &m));
                    let same = h.args.iter().zip(args).map(|(t, a)| Term::eq(t, &a));
                    let constraint = Term::and(same.chain([c.constraint.clone(), substitute(&query.constraint, &m)]));
                    let vars = c.vars.iter().cloned().chain(query.vars.iter().map(|v| m[v].clone())).collect();
                    let origin = format!("{} then {}", c.origin, query.origin);
                    out.clauses.clauses.push(Clause { vars, body: c.body.clone(), constraint, head: None, origin });
                    out.sources.push(vec![k, j]);
                    out.positions.push(positions[k]);
                }
            }
            _ => {
                out.clauses.clauses.push(c.clone());
                out.sources.push(vec![k]);
                out.positions.push(positions[k]);
            }
        }
    }
    out
}

/// Lowers the clauses: the system and how it stands for them.
pub(super) fn lower(src: &str, original: &Clauses, positions: &[usize]) -> Result<(System, Correspondence), Diagnostic> {
    let lay = Layout::new(original);
    let with_values = |k: usize| {
        let c = &original.clauses[k];
        c.body.is_some() && lower_clause(src, positions[k], c, &lay, false).is_ok_and(|l| !l.values.is_empty())
    };
    let r = resolve(original, positions, with_values);
    let (cs, positions) = (&r.clauses, &r.positions[..]);
    let facts: Vec<usize> = (0..cs.clauses.len()).filter(|k| cs.clauses[*k].body.is_none()).collect();
    // the only fact, when it needs no existential value, is the initial formula
    let mut initial = None;
    if let [f] = facts[..] {
        if cs.clauses[f].head.is_some() {
            let l = lower_clause(src, positions[f], &cs.clauses[f], &lay, true)?;
            if l.values.is_empty() {
                initial = Some((f, l));
            }
        }
    }
    let mut names: Vec<String> = cs.predicates.iter().map(|p| p.name.clone()).collect();
    let entry = initial.is_none().then(|| fresh("entry", |n| names.iter().any(|m| m == n)));
    let error = fresh("error", |n| names.iter().any(|m| m == n));
    names.splice(0..0, entry.clone());
    names.push(error);
    let first = usize::from(entry.is_some());
    let locations = (0..cs.predicates.len()).map(|p| first + p).collect();
    let def = Rc::new(EnumDef { name: "loc".into(), values: EnumValues::Names(names.iter().map(|n| n.as_str().into()).collect()) });
    let loc = Sort::Enum(def.clone());
    let pc = Term::var("pc", loc.clone());
    let b = Builder { src, cs, positions, lay, names, loc, pc: pc.clone(), locations };
    let mut sys = System { index: Some(IndexKind::Int), enums: vec![def], ..System::default() };
    sys.vars.push(StateVar { term: pc.clone(), is_array: false });
    sys.vars.extend(b.lay.slots.iter().map(|s| StateVar { term: s.clone(), is_array: s.sort().as_array().is_some() }));
    let mut map = Correspondence { control: Some(pc.clone()), ..Correspondence::default() };
    match &initial {
        Some((f, l)) => {
            sys.initial = b.initial(*f, l);
            map.initial = Some(r.sources[*f][0]);
        }
        None => sys.initial.push(Quantified { vars: vec![], lits: vec![Term::eq(&pc, &b.at(0))] }),
    }
    let mut used_names: Vec<String> = vec![];
    for (k, c) in cs.clauses.iter().enumerate() {
        if initial.as_ref().is_some_and(|(f, _)| *f == k) {
            continue;
        }
        let l = lower_clause(b.src, b.positions[k], c, &b.lay, c.body.is_none())?;
        if c.head.is_none() && !l.values.is_empty() {
            let at = Term::eq(&pc, &c.body.as_ref().map_or_else(|| b.at(0), |a| b.place(a.pred)));
            if let Some(cubes) = query_cubes(&l, &at) {
                map.unsafe_.extend(cubes.iter().map(|_| r.sources[k].clone()));
                sys.unsafe_.extend(cubes);
                continue;
            }
        }
        if l.arrays.iter().any(|(a, _)| indices(&b.lay.js, a.sort()).len() > 1) {
            let msg = "an equality of arrays of several dimensions in a step is outside the fragment (a step's universal guard has one variable)";
            return Err(Diagnostic::at(b.src, b.positions[k], msg));
        }
        let mut t = b.transition(k, l);
        t.name = fresh(&t.name, |n| used_names.iter().any(|m| m == n));
        used_names.push(t.name.clone());
        sys.transitions.push(t);
        map.transitions.push(r.sources[k].clone());
    }
    let to_error = sys.transitions.iter().any(|t| t.updates.first().is_some_and(|u| u.var == 0 && u.value == b.error()));
    if to_error || sys.unsafe_.is_empty() {
        sys.unsafe_.insert(0, Quantified { vars: vec![], lits: vec![Term::eq(&pc, &b.error())] });
        map.unsafe_.insert(0, vec![]);
    }
    map.places = (0..cs.predicates.len())
        .map(|p| Place {
            location: Some(b.place(p)),
            args: b.lay.uses[p].iter().map(|k| b.lay.slots[*k].clone()).collect(),
            fixed: b.unused(p).map(|s| (s.clone(), default(s, &b.lay.js))).collect(),
            definition: r.definitions[p].clone(),
        })
        .collect();
    Ok((sys, map))
}
