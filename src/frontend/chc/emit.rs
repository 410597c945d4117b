//! A system written as linear Horn clauses (CHC-COMP's SMT-LIB), so that
//! any CHC solver runs on exactly the system arrax checks.
//!
//! The predicates: when the system has a control variable (a scalar of an
//! enumeration fixed by the initial formula and by every guard, and set
//! only to literals — `pc` of lowered C programs), one per location,
//! over every other state variable and rigid constant; otherwise one
//! predicate `inv` over all of them. A location that no transition leaves
//! and that is unsafe as a whole (`pc = error`) has no predicate: the steps
//! entering it are queries. Clauses: the initial formula is the fact, each
//! transition a clause from its location's predicate to its target's (its
//! process parameters and existential values universally quantified,
//! parameters pairwise distinct), each unsafe cube a query.
//!
//! Enumerations are integers with their ranges stated where a value is
//! chosen (facts, updates, existential values); array updates `λx̄. …` are
//! written as `store`s over an array or a constant array; a universally
//! quantified initial formula is written as constraints on the cells it
//! names and, for the other cells, an array equation (`a = (store
//! ((as const (Array Int Int)) 0) 3 (select a 3))`). Arrays of several
//! dimensions are nested arrays, as SeaHorn writes them: `(Array Int
//! (Array Int Int))`, `a[i, j]` as `(select (select a i) j)`, a write as
//! `(store a i (store (select a i) j v))`, constant arrays nested. C's
//! bitwise operators are exact over bit-vectors of their width (SMT-LIB
//! 2.7's `int_to_bv`, `ubv_to_int`/`sbv_to_int`, which z3's Spacer reads
//! in HORN; see [`crate::smt::smtlib`]). Outside what Horn clauses without
//! quantifiers say (universal guards, axioms, ordered or uninterpreted
//! sorts, reals, arrays of enumerations, other initial formulas or array
//! updates), the export fails with the reason.

use crate::logic::{collect, conjuncts, occurs, substitute, EnumValues, Op, Sort, Term};
use crate::system::horn::{Atom, Clause, Clauses, Correspondence, Horn, Place, Predicate};
use crate::system::{IndexKind, Quantified, System, Transition};
use crate::HashMap;

/// The system as Horn clauses, with how it stands for them.
pub fn clauses(sys: &System) -> Result<Horn, String> {
    supported(sys)?;
    let control = control(sys);
    let e = Emitter::new(sys, control);
    e.emit()
}

/// The system as an SMT-LIB script of Horn clauses; `header` lines head it as comments.
pub fn smtlib(sys: &System, header: &str) -> Result<String, String> {
    Ok(clauses(sys)?.clauses.smtlib(header))
}

/// Why the system cannot be written as quantifier-free Horn clauses, if it cannot.
fn supported(sys: &System) -> Result<(), String> {
    if sys.index_kind() == IndexKind::Order {
        return Err("only systems with integer indices can be written as Horn clauses (this one's processes are only ordered)".into());
    }
    if !sys.axioms.is_empty() {
        return Err("axioms (formulas holding in every state) cannot be written as quantifier-free Horn clauses".into());
    }
    if let Some(t) = sys.transitions.iter().find(|t| t.uguard.is_some() || t.checks.is_some()) {
        return Err(format!("transition {}: universal guards cannot be written as quantifier-free Horn clauses", t.name));
    }
    let symbols = sys.vars.iter().map(|v| &v.term).chain(&sys.consts);
    for s in symbols {
        let elem = s.sort().as_array().map(|a| a.elem.clone());
        let bad = match (&elem, s.sort()) {
            (Some(e), _) if !matches!(e, Sort::Int | Sort::Bool) => Some("arrays of enumerations, reals or uninterpreted values"),
            (None, Sort::Real) => Some("reals"),
            (None, Sort::Uninterpreted(_)) => Some("uninterpreted sorts"),
            _ => None,
        };
        if let Some(what) = bad {
            return Err(format!(
                "{s}: {what} are outside the Horn clauses arrax writes (Int, Bool, enumerations, arrays of one or more Int dimensions to Int or Bool)"
            ));
        }
    }
    Ok(())
}

/// The literal `v = c` among conjuncts, if any.
fn fixed_value(conj: &[Term], v: &Term) -> Option<Term> {
    conj.iter().find_map(|c| match c.op() {
        Op::Eq if c.args()[0] == *v && c.args()[1].is_value() => Some(c.args()[1].clone()),
        Op::Eq if c.args()[1] == *v && c.args()[0].is_value() => Some(c.args()[0].clone()),
        _ => None,
    })
}

/// The control variable: an enumeration scalar that the initial formula
/// and every guard fix and that updates set only to literals.
fn control(sys: &System) -> Option<usize> {
    let initial: Vec<Term> = sys.initial.iter().flat_map(|q| q.lits.iter().cloned()).collect();
    (0..sys.vars.len()).find(|&i| {
        let v = &sys.vars[i];
        !v.is_array
            && matches!(v.term.sort(), Sort::Enum(_))
            && fixed_value(&initial, &v.term).is_some()
            && sys.transitions.iter().all(|t| fixed_value(&conjuncts(&t.guard), &v.term).is_some())
            && sys.transitions.iter().all(|t| t.updates.iter().filter(|u| u.var == i).all(|u| u.value.is_value()))
    })
}

/// The name of a location: the enumeration's name, or `pc_3` for a subrange value.
fn location_name(pc: &Term, value: &Term) -> String {
    match (pc.sort(), value.op()) {
        (Sort::Enum(d), Op::EnumConst(k)) => match &d.values {
            EnumValues::Names(ns) => ns[*k as usize].to_string(),
            EnumValues::Subrange(..) => format!("{pc}_{k}"),
        },
        _ => format!("{}_{}", pc.var_name().unwrap_or("pc"), value.as_int().unwrap_or(0)),
    }
}

/// The sort a state symbol has in the clauses.
fn chc_sort(s: &Sort) -> Sort {
    match s {
        Sort::Enum(_) | Sort::Index => Sort::Int,
        other => other.clone(),
    }
}

/// `lo ≤ t ≤ hi` for a term of a finite sort (`true` otherwise or for a literal).
fn in_range(t: &Term, s: &Sort) -> Term {
    match s.finite_range() {
        Some((lo, hi)) if !t.is_value() => Term::and([Term::le(&Term::int(lo), t), Term::le(t, &Term::int(hi))]),
        _ => Term::tt(),
    }
}

struct Emitter<'s> {
    sys: &'s System,
    /// The control variable's term and its locations with a predicate.
    control: Option<(Term, Vec<Term>)>,
    /// Locations entered only as errors: steps there are queries.
    errors: Vec<Term>,
    /// The state symbols the predicates take, and their variables in the clauses.
    symbols: Vec<Term>,
    params: Vec<Term>,
}

impl<'s> Emitter<'s> {
    fn new(sys: &'s System, control: Option<usize>) -> Emitter<'s> {
        let symbols: Vec<Term> =
            sys.vars.iter().enumerate().filter(|(i, _)| Some(*i) != control).map(|(_, v)| v.term.clone()).chain(sys.consts.iter().cloned()).collect();
        let params = symbols.iter().map(|s| Term::var(s.var_name().unwrap_or("x"), chc_sort(s.sort()))).collect();
        let mut e = Emitter { sys, control: None, errors: vec![], symbols, params };
        if let Some(c) = control {
            let pc = sys.vars[c].term.clone();
            let mut locs: Vec<Term> = vec![];
            let initial: Vec<Term> = sys.initial.iter().flat_map(|q| q.lits.iter().cloned()).collect();
            locs.extend(fixed_value(&initial, &pc));
            for t in &sys.transitions {
                locs.extend(fixed_value(&conjuncts(&t.guard), &pc));
                locs.extend(t.updates.iter().filter(|u| u.var == c).map(|u| u.value.clone()));
            }
            let mut seen = vec![];
            locs.retain(|l| {
                !seen.contains(l) && {
                    seen.push(l.clone());
                    true
                }
            });
            let leaves = |l: &Term| sys.transitions.iter().any(|t| fixed_value(&conjuncts(&t.guard), &pc).as_ref() == Some(l));
            let whole = |l: &Term| sys.unsafe_.iter().any(|u| u.lits == [Term::eq(&pc, l)]);
            e.errors = locs.iter().filter(|l| !leaves(l) && whole(l)).cloned().collect();
            locs.retain(|l| !e.errors.contains(l));
            e.control = Some((pc, locs));
        }
        e
    }

    /// The predicates: one per location (or `inv`), named apart from the variables.
    fn predicates(&self) -> Vec<Predicate> {
        let names: Vec<String> = match &self.control {
            Some((pc, locs)) => locs.iter().map(|l| location_name(pc, l)).collect(),
            None => vec!["inv".to_string()],
        };
        let inputs = self.sys.transitions.iter().flat_map(|t| t.inputs());
        let cube_vars = self.sys.unsafe_.iter().flat_map(|u| u.vars.iter().cloned());
        let mut taken: Vec<String> = inputs.chain(cube_vars).chain(self.params.iter().cloned()).filter_map(|v| v.var_name().map(str::to_string)).collect();
        names
            .into_iter()
            .map(|n| {
                let mut name = n.clone();
                while taken.contains(&name) {
                    name.push('!');
                }
                taken.push(name.clone());
                Predicate { name, params: self.params.clone() }
            })
            .collect()
    }

    /// The predicate of a location (`None`: an error location).
    fn predicate_at(&self, loc: Option<&Term>) -> Option<usize> {
        match (&self.control, loc) {
            (Some((_, locs)), Some(l)) => locs.iter().position(|x| x == l),
            _ => Some(0),
        }
    }

    /// A system term over the clauses' variables, the control variable at `loc`.
    fn over_params(&self, t: &Term, loc: Option<&Term>) -> Term {
        let mut m: HashMap<Term, Term> = self.symbols.iter().cloned().zip(self.params.iter().cloned()).collect();
        if let (Some((pc, _)), Some(l)) = (&self.control, loc) {
            m.insert(pc.clone(), l.clone());
        }
        substitute(t, &m)
    }

    fn emit(&self) -> Result<Horn, String> {
        let predicates = self.predicates();
        let mut clauses = vec![];
        let mut map = Correspondence { control: self.control.as_ref().map(|(pc, _)| pc.clone()), ..Correspondence::default() };
        map.places = (0..predicates.len())
            .map(|p| Place { location: self.control.as_ref().map(|(_, locs)| locs[p].clone()), args: self.symbols.clone(), fixed: vec![], definition: None })
            .collect();
        clauses.push(self.fact()?);
        map.initial = Some(0);
        for t in &self.sys.transitions {
            map.transitions.push(vec![clauses.len()]);
            clauses.push(self.step(t)?);
        }
        for (k, u) in self.sys.unsafe_.iter().enumerate() {
            let first = clauses.len();
            clauses.extend(self.queries(k, u)?);
            map.unsafe_.push(if clauses.len() > first { vec![first] } else { vec![] });
        }
        Ok(Horn { clauses: Clauses { predicates, clauses }, map })
    }

    /// A clause over the given variables, its names made distinct.
    fn clause(&self, vars: Vec<Term>, body: Option<Atom>, constraint: Term, head: Option<Atom>, origin: String) -> Clause {
        let mut names: Vec<String> = vec![];
        let mut m = HashMap::default();
        let mut vars = vars;
        let mut seen = vec![];
        vars.retain(|v| {
            !seen.contains(v) && {
                seen.push(v.clone());
                true
            }
        });
        for v in &vars {
            let base = v.var_name().unwrap_or("v").to_string();
            let mut n = base.clone();
            while names.contains(&n) {
                n.push('!');
            }
            if n != base {
                m.insert(v.clone(), Term::var(&n, v.sort().clone()));
            }
            names.push(n);
        }
        let fix = |t: &Term| substitute(t, &m);
        let atom = |a: Atom| Atom { pred: a.pred, args: a.args.iter().map(fix).collect() };
        let vars = vars.iter().map(fix).collect();
        let constraint = fix(&constraint);
        Clause { vars, body: body.map(atom), constraint, head: head.map(atom), origin }
    }

    /// The fact: the initial formula as a constraint on the predicates' variables.
    fn fact(&self) -> Result<Clause, String> {
        let lits: Vec<Term> = self.sys.initial.iter().flat_map(|q| q.lits.iter().cloned()).collect();
        let loc = self.control.as_ref().and_then(|(pc, _)| fixed_value(&lits, pc));
        let mut cs = vec![];
        for q in &self.sys.initial {
            cs.extend(self.quantifier_free(q)?.iter().map(|c| self.over_params(c, loc.as_ref())));
        }
        for (s, p) in self.symbols.iter().zip(&self.params) {
            cs.push(in_range(p, s.sort()));
        }
        let head = self.head(loc.as_ref(), self.params.clone());
        Ok(self.clause(self.params.clone(), None, Term::and(cs), head, "initial states".into()))
    }

    /// The atom of a location over arguments (`None` at an error location).
    fn head(&self, loc: Option<&Term>, args: Vec<Term>) -> Option<Atom> {
        let p = self.predicate_at(loc)?;
        (!loc.is_some_and(|l| self.errors.contains(l))).then_some(Atom { pred: p, args })
    }

    /// The clause of a transition.
    fn step(&self, t: &Transition) -> Result<Clause, String> {
        let from = self.control.as_ref().and_then(|(pc, _)| fixed_value(&conjuncts(&t.guard), pc));
        let to = match &self.control {
            Some((pc, _)) => {
                let i = self.sys.var(pc.var_name().unwrap_or("")).expect("the control variable");
                let next = self.sys.next_value(t, i);
                if next == *pc {
                    from.clone()
                } else {
                    Some(next)
                }
            }
            None => None,
        };
        let mut cs = vec![self.over_params(&t.guard, from.as_ref()), Term::distinct(&t.params)];
        if self.sys.index_kind() == IndexKind::Nat {
            cs.extend(t.params.iter().map(|p| Term::le(&Term::int(0), p)));
        }
        cs.extend(t.values.iter().map(|v| in_range(v, v.sort())));
        let mut args = vec![];
        for (s, p) in self.symbols.iter().zip(&self.params) {
            let next = match self.sys.var(s.var_name().unwrap_or("")).filter(|i| self.sys.vars[*i].term == *s) {
                Some(i) => self.over_params(&self.sys.next_value(t, i), from.as_ref()),
                None => p.clone(),
            };
            let next = if s.sort().as_array().is_some() {
                array_term(&next).ok_or_else(|| format!("transition {}: the update of {s} is not a store or constant array", t.name))?
            } else {
                next
            };
            cs.push(in_range(&next, s.sort()));
            args.push(next);
        }
        let body = self.predicate_at(from.as_ref()).map(|p| Atom { pred: p, args: self.params.clone() });
        let body = body.ok_or_else(|| format!("transition {} leaves an error location", t.name))?;
        let head = self.head(to.as_ref(), args);
        let vars: Vec<Term> = self
            .params
            .iter()
            .cloned()
            .chain(t.params.iter().cloned())
            .chain(t.values.iter().map(|v| Term::var(v.var_name().unwrap_or("v"), chc_sort(v.sort()))))
            .collect();
        let constraint = self.no_lambdas(Term::and(cs), &t.name)?;
        let values: HashMap<Term, Term> = t.values.iter().map(|v| (v.clone(), Term::var(v.var_name().unwrap_or("v"), chc_sort(v.sort())))).collect();
        let head = head.map(|h| Atom { pred: h.pred, args: h.args.iter().map(|a| substitute(a, &values)).collect() });
        Ok(self.clause(vars, Some(body), substitute(&constraint, &values), head, format!("transition {}", t.name)))
    }

    /// The queries of unsafe cube `k`: one per location it may hold at.
    fn queries(&self, k: usize, u: &Quantified) -> Result<Vec<Clause>, String> {
        let locs: Vec<Option<Term>> = match &self.control {
            Some((pc, _)) if u.lits.len() == 1 && self.errors.iter().any(|e| u.lits[0] == Term::eq(pc, e)) => return Ok(vec![]),
            Some((pc, locs)) => match fixed_value(&u.lits, pc) {
                Some(l) if self.errors.contains(&l) => return Ok(vec![]),
                Some(l) => vec![Some(l)],
                None => locs.iter().cloned().map(Some).collect(),
            },
            None => vec![None],
        };
        let mut out = vec![];
        for loc in locs {
            let mut cs = vec![self.over_params(&u.body(), loc.as_ref()), Term::distinct(&u.vars)];
            if self.sys.index_kind() == IndexKind::Nat {
                cs.extend(u.vars.iter().map(|z| Term::le(&Term::int(0), z)));
            }
            let constraint = self.no_lambdas(Term::and(cs), "an unsafe cube")?;
            if constraint.as_bool() == Some(false) {
                continue;
            }
            // a location without a predicate is never entered: its cube needs no query
            let Some(p) = self.predicate_at(loc.as_ref()) else { continue };
            let body = Some(Atom { pred: p, args: self.params.clone() });
            let vars = self.params.iter().chain(&u.vars).cloned().collect();
            out.push(self.clause(vars, body, constraint, None, format!("unsafe cube {}", k + 1)));
        }
        Ok(out)
    }

    /// The constraint, refused when array terms other than stores and
    /// constant arrays are left in it.
    fn no_lambdas(&self, c: Term, what: &str) -> Result<Term, String> {
        let left = collect(&c, &|t: &Term| matches!(t.op(), Op::Lambda(vs) if vs.iter().any(|v| occurs(v, &t.args()[0]))));
        match left.first() {
            Some(l) => Err(format!("{what}: the array term {l} is not a store or constant array")),
            None => Ok(c),
        }
    }

    /// A universally quantified initial formula as quantifier-free
    /// constraints: at each point its variables are compared with, and
    /// for the other cells, an array equation.
    fn quantifier_free(&self, q: &Quantified) -> Result<Vec<Term>, String> {
        let body = q.body();
        let used: Vec<Term> = q.vars.iter().filter(|v| occurs(v, &body)).cloned().collect();
        if used.is_empty() {
            return Ok(q.lits.clone());
        }
        let bound: Vec<String> = used.iter().map(|v| v.to_string()).collect();
        let fail = || format!("the initial formula ∀{}. {} cannot be written without quantifiers", bound.join(" "), crate::report::pretty(&body));
        if self.sys.index_kind() != IndexKind::Int {
            return Err(fail());
        }
        let points = points(&body, &used).filter(|ps| ps.iter().all(|(_, at)| at.iter().all(Term::is_value))).ok_or_else(fail)?;
        let at = |p: &[Term]| substitute(&body, &used.iter().cloned().zip(p.iter().cloned()).collect());
        let mut out: Vec<Term> = points.iter().map(|(_, p)| at(p)).collect();
        // the other cells
        let elsewhere: HashMap<Term, Term> = points.iter().map(|(c, _)| (c.clone(), Term::ff())).collect();
        let rest = substitute(&body, &elsewhere);
        for lit in conjuncts(&rest) {
            let (cell, value) = match lit.op() {
                Op::Eq => (lit.args()[0].clone(), lit.args()[1].clone()),
                Op::Select => (lit.clone(), Term::tt()),
                Op::Not if matches!(lit.args()[0].op(), Op::Select) => (lit.args()[0].clone(), Term::ff()),
                _ => return Err(fail()),
            };
            let (cell, value) = if used.iter().any(|x| occurs(x, &value)) { (value, cell) } else { (cell, value) };
            let idx = match cell.op() {
                Op::Select if cell.args()[0].is_var() => &cell.args()[1..],
                _ => return Err(fail()),
            };
            let distinct_vars = idx.iter().enumerate().all(|(k, i)| used.contains(i) && !idx[..k].contains(i));
            let at_points = points.is_empty() || idx == used.as_slice();
            if !distinct_vars || !at_points || used.iter().any(|x| occurs(x, &value)) || !value.is_value() {
                return Err(fail());
            }
            let a = cell.args()[0].clone();
            let mut array = Term::lambda(idx, &value);
            for (_, p) in &points {
                array = Term::store(&array, p, &Term::select(&a, p));
            }
            out.push(Term::eq(&a, &array));
        }
        Ok(out)
    }
}

/// The points where `body` tests its variables `xs` all at once, each as
/// the condition and the values of `xs` there: for one variable each
/// equality `x = e`, for several each conjunction of one equality per
/// variable. `None` when an equality on a variable is part of no such
/// point or its value depends on the variables.
fn points(body: &Term, xs: &[Term]) -> Option<Vec<(Term, Vec<Term>)>> {
    let on_var = |e: &Term| -> Option<(usize, Term)> {
        if !matches!(e.op(), Op::Eq) {
            return None;
        }
        let (l, r) = (&e.args()[0], &e.args()[1]);
        xs.iter().position(|x| x == l).map(|k| (k, r.clone())).or_else(|| xs.iter().position(|x| x == r).map(|k| (k, l.clone())))
    };
    let point = |c: &Term| -> Option<Vec<Term>> {
        let eqs: Vec<Term> = if xs.len() == 1 {
            vec![c.clone()]
        } else if matches!(c.op(), Op::And) {
            c.args().to_vec()
        } else {
            return None;
        };
        let mut at: Vec<Option<Term>> = vec![None; xs.len()];
        for e in &eqs {
            let (k, v) = on_var(e)?;
            if at[k].replace(v).is_some() {
                return None;
            }
        }
        at.into_iter().collect()
    };
    let conds = collect(body, &|t: &Term| point(t).is_some());
    let mut out = vec![];
    for c in conds {
        let at = point(&c)?;
        if at.iter().any(|v| xs.iter().any(|x| occurs(x, v))) {
            return None;
        }
        out.push((c, at));
    }
    let elsewhere: HashMap<Term, Term> = out.iter().map(|(c, _)| (c.clone(), Term::ff())).collect();
    let stray = collect(&substitute(body, &elsewhere), &|t: &Term| on_var(t).is_some());
    stray.is_empty().then_some(out)
}

/// An array value `λx̄. body` as a term of stores over an array, a
/// constant array or an `ite` of such: the value at each point `x̄ = ē`
/// the body tests is the body at `ē`, elsewhere the body with those
/// tests false.
fn array_term(v: &Term) -> Option<Term> {
    let (xs, body) = match v.op() {
        Op::Lambda(vs) => (vs.to_vec(), v.args()[0].clone()),
        _ => return Some(v.clone()),
    };
    let points = points(&body, &xs)?;
    let elsewhere: HashMap<Term, Term> = points.iter().map(|(c, _)| (c.clone(), Term::ff())).collect();
    let mut array = base(&substitute(&body, &elsewhere), &xs)?;
    for (_, p) in &points {
        let at = substitute(&body, &xs.iter().cloned().zip(p.iter().cloned()).collect());
        array = Term::store(&array, p, &at);
    }
    Some(array)
}

/// The array `λx̄. body` for a body without tests of `x̄`: a read `a[x̄]`,
/// a value not depending on `x̄`, or an `ite` of those.
fn base(body: &Term, xs: &[Term]) -> Option<Term> {
    let free = |t: &Term| !xs.iter().any(|x| occurs(x, t));
    if free(body) {
        return Some(Term::lambda(xs, body));
    }
    match body.op() {
        Op::Select if body.args()[1..] == *xs && free(&body.args()[0]) => Some(body.args()[0].clone()),
        Op::Ite if free(&body.args()[0]) => {
            let (t, e) = (base(&body.args()[1], xs)?, base(&body.args()[2], xs)?);
            Some(Term::ite(&body.args()[0], &t, &e))
        }
        _ => None,
    }
}
