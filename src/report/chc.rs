//! Answers in the terms of Horn clauses, as CHC-COMP expects them: the
//! first line `sat` (the clauses have a model: the system is safe),
//! `unsat` (`false` is derivable: unsafe) or `unknown`. For `sat`, the
//! model: one `define-fun` per predicate, the certified invariant at the
//! predicate's location with the state variables renamed to its
//! parameters, checked against the clauses by the solver that certified
//! the invariant. For `unsat`, the replayed counterexample as a
//! derivation: each clause applied, with the atom it derives.

use super::summarise;
use crate::answer::{CheckResult, ConcreteTrace, Execution, Replayed, Value, Verdict};
use crate::certify::horn::{check_model, ModelCheck};
use crate::logic::{free_vars, substitute, Op, Sort, Term};
use crate::smt::smtlib;
use crate::system::cube::Cube;
use crate::system::horn::{Clauses, Horn};
use crate::system::System;
use crate::HashMap;
use std::fmt::Write as _;

/// Time limit of each clause's check of a model.
const MODEL_CHECK_MS: u64 = 20_000;

/// The definition of each predicate: the invariant clauses at its
/// location, over its parameters.
pub fn model(horn: &Horn, invariant: &[Cube]) -> Result<Vec<Term>, String> {
    let mut taken: Vec<String> = horn.clauses.names();
    let mut bound = HashMap::default();
    for c in invariant {
        for v in &c.vars {
            if !bound.contains_key(v) {
                let mut n = v.var_name().unwrap_or("z").to_string();
                while taken.contains(&n) {
                    n.push('!');
                }
                taken.push(n.clone());
                bound.insert(v.clone(), Term::var(&n, v.sort().clone()));
            }
        }
    }
    let clauses: Vec<Term> = invariant
        .iter()
        .map(|c| {
            let vars: Vec<Term> = c.vars.iter().map(|v| bound[v].clone()).collect();
            let m: HashMap<Term, Term> = c.vars.iter().cloned().zip(vars.iter().cloned()).collect();
            let lits = c.lits.iter().map(|l| substitute(l, &m)).collect();
            let others = c.others.iter().map(|l| substitute(l, &m)).collect();
            Cube { vars, lits, others }.negation()
        })
        .collect();
    let mut defs = vec![];
    for (p, place) in horn.clauses.predicates.iter().zip(&horn.map.places) {
        if let Some(d) = &place.definition {
            defs.push(d.clone());
            continue;
        }
        let mut m: HashMap<Term, Term> = place.fixed.iter().cloned().collect();
        if let (Some(pc), Some(l)) = (&horn.map.control, &place.location) {
            m.insert(pc.clone(), l.clone());
        }
        m.extend(place.args.iter().cloned().zip(p.params.iter().cloned()));
        let def = Term::and(clauses.iter().map(|c| substitute(c, &m)));
        if let Some(v) = free_vars(&def).into_iter().find(|v| !p.params.contains(v)) {
            return Err(format!("the invariant at {} mentions {v}, which is none of its arguments", p.name));
        }
        defs.push(def);
    }
    Ok(defs)
}

/// The model as SMT-LIB definitions.
pub fn model_text(clauses: &Clauses, defs: &[Term]) -> String {
    let mut out = String::new();
    for (p, d) in clauses.predicates.iter().zip(defs) {
        let params: Vec<String> = p.params.iter().map(|v| format!("({} {})", smtlib::term(v), smtlib::sort(v.sort()))).collect();
        let _ = writeln!(out, "  (define-fun {} ({}) Bool\n    {})", smtlib::symbol(&p.name), params.join(" "), smtlib::term(d));
    }
    out
}

/// The answer of a check in CHC terms and its exit code (0 `sat`, 1
/// `unsat`, 3 `unknown`).
pub fn answer(sys: &System, horn: &Horn, r: &CheckResult) -> (String, u8) {
    let mut out = String::new();
    match &r.verdict {
        Verdict::Safe => {
            let invariant = r.proof.as_ref().map(|p| p.invariant.as_slice()).unwrap_or_default();
            let defs = match model(horn, invariant) {
                Ok(d) => d,
                Err(why) => return (format!("unknown\n; no model: {why}\n"), 3),
            };
            let checker = r.solver.other();
            match check_model(&horn.clauses, &defs, checker, MODEL_CHECK_MS) {
                ModelCheck::Refuted(k) => {
                    let c = &horn.clauses.clauses[k];
                    return (format!("unknown\n; internal error: the model fails clause {} ({}) according to {checker}\n", k + 1, c.origin), 3);
                }
                ModelCheck::Valid(n) => {
                    let _ = writeln!(out, "sat\n; model checked against the {n} clauses by {checker}");
                }
                ModelCheck::Unknown(k, why) => {
                    let _ = writeln!(out, "sat\n; the model's check by {checker} left clause {} undecided ({why})", k + 1);
                }
            }
            let _ = writeln!(out, "(\n{})", model_text(&horn.clauses, &defs).trim_end());
            (out, 0)
        }
        Verdict::Unsafe => {
            out.push_str("unsat\n");
            out.push_str(&derivation(sys, horn, r));
            (out, 1)
        }
        Verdict::Unknown(why) => (format!("unknown\n; {why}\n"), 3),
    }
}

/// A clause's reference: its number (from 1) and origin.
fn clause_ref(horn: &Horn, k: usize) -> String {
    format!("(clause {} \"{}\")", k + 1, horn.clauses.clauses[k].origin)
}

/// A state as the values of the state symbols (integer-coded values or terms).
type State = HashMap<Term, String>;

/// Whether a state is at a place's location (a place without one, not
/// resolved away, holds everywhere).
fn at_place(horn: &Horn, place: &crate::system::horn::Place, st: &State) -> bool {
    match (&place.location, &horn.map.control) {
        (Some(l), Some(pc)) => st.get(pc).is_some_and(|v| *v == smtlib::term(l)),
        (None, _) => place.definition.is_none(),
        (Some(_), None) => false,
    }
}

/// The atom a state belongs to: the predicate at its location and the
/// values of its arguments (`None` where no predicate lives).
fn atom(horn: &Horn, st: &State) -> Option<String> {
    let k = horn.map.places.iter().position(|p| at_place(horn, p, st))?;
    let args: Vec<String> = horn.map.places[k].args.iter().map(|a| st.get(a).cloned().unwrap_or_else(|| "?".into())).collect();
    let name = smtlib::symbol(&horn.clauses.predicates[k].name);
    Some(if args.is_empty() { name } else { format!("({name} {})", args.join(" ")) })
}

/// What a clause derives when the state it reaches is not shown: `false`,
/// or its head predicate (arguments elided).
fn head_of(horn: &Horn, k: usize) -> String {
    match &horn.clauses.clauses[k].head {
        None => "false".into(),
        Some(h) if h.args.is_empty() => smtlib::symbol(&horn.clauses.predicates[h.pred].name),
        Some(h) => format!("({} …)", smtlib::symbol(&horn.clauses.predicates[h.pred].name)),
    }
}

/// Derivation lines: the chain of clauses one step stands for, the last
/// deriving `last` (when known).
struct Lines {
    out: String,
    n: u64,
}

impl Lines {
    fn chain(&mut self, horn: &Horn, chain: &[usize], last: Option<String>) {
        for (i, k) in chain.iter().enumerate() {
            let derived = if i + 1 == chain.len() { last.clone().unwrap_or_else(|| head_of(horn, *k)) } else { head_of(horn, *k) };
            let _ = writeln!(self.out, "  (step {} {} {derived})", self.n, clause_ref(horn, *k));
            self.n += 1;
        }
    }
}

/// The chain of clauses ending in the query an unsafe state answers: the
/// given cube's, or else that of the first cube with a chain at the
/// state's location, or else the first query read there.
fn query_chain(sys: &System, horn: &Horn, cube: Option<usize>, st: &State) -> Vec<usize> {
    let chain = |k: usize| horn.map.unsafe_.get(k).filter(|c| !c.is_empty());
    if let Some(c) = cube.and_then(chain) {
        return c.clone();
    }
    let located = |k: usize| match &horn.map.control {
        Some(pc) => sys.unsafe_[k].lits.iter().any(|l| {
            let place = l.args().iter().find(|a| *a != pc);
            matches!(l.op(), Op::Eq) && l.args().contains(pc) && place.is_some_and(|v| st.get(pc) == Some(&smtlib::term(v)))
        }),
        None => true,
    };
    if let Some(c) = (0..sys.unsafe_.len()).find(|k| chain(*k).is_some() && located(*k)).and_then(chain) {
        return c.clone();
    }
    let here = |c: &crate::system::horn::Clause| c.body.as_ref().is_some_and(|b| at_place(horn, &horn.map.places[b.pred], st));
    horn.clauses.clauses.iter().position(|c| c.head.is_none() && here(c)).into_iter().collect()
}

/// An integer-coded value of a sort, as SMT-LIB.
fn coded(v: i64, s: &Sort) -> String {
    match s {
        Sort::Bool => (v != 0).to_string(),
        _ => smtlib::term(&Term::int(v)),
    }
}

/// The derivation of `false`: the replayed trace or execution, clause by clause.
pub fn derivation(sys: &System, horn: &Horn, r: &CheckResult) -> String {
    let mut lines = Lines { out: String::new(), n: 1 };
    if let Some(t) = &r.trace {
        trace_steps(sys, horn, t, &mut lines);
    } else if let Some(ex) = &r.execution {
        execution_steps(sys, horn, ex, r.replayed.as_ref(), &mut lines);
    }
    format!("; derivation of false, replayed: (step n (clause k origin) derived atom)\n(derivation\n{})\n", lines.out)
}

fn trace_steps(sys: &System, horn: &Horn, t: &ConcreteTrace, lines: &mut Lines) {
    let state = |k: usize| -> State {
        let mut st = State::default();
        for (v, val) in sys.vars.iter().zip(&t.states[k]) {
            let text = match val {
                Value::Scalar(x) => smtlib::term(x),
                Value::Array(cells) => {
                    let cells = cells.iter().map(|(i, x)| format!(" ({} {})", i.first().map_or(0, |n| *n), smtlib::term(x)));
                    format!("(cells{})", cells.collect::<String>())
                }
            };
            st.insert(v.term.clone(), text);
        }
        st
    };
    if let Some(f) = horn.map.initial {
        lines.chain(horn, &[f], atom(horn, &state(0)));
    }
    for (k, (ti, _)) in t.steps.iter().enumerate() {
        let chain = horn.map.transitions.get(*ti).cloned().unwrap_or_default();
        lines.chain(horn, &chain, Some(atom(horn, &state(k + 1)).unwrap_or_else(|| "false".into())));
    }
    let last = state(t.states.len() - 1);
    if atom(horn, &last).is_some() {
        lines.chain(horn, &query_chain(sys, horn, None, &last), Some("false".into()));
    }
}

fn execution_steps(sys: &System, horn: &Horn, ex: &Execution, replayed: Option<&Replayed>, lines: &mut Lines) {
    let mut first = State::default();
    for (t, v) in &ex.scalars {
        first.insert(t.clone(), coded(*v, t.sort()));
    }
    for a in &ex.arrays {
        let v = &sys.vars[a.var];
        let es = v.value_sort();
        let base = format!("((as const {}) {})", smtlib::sort(v.term.sort()), coded(a.default, &es));
        let cells = a.cells.iter().fold(base, |acc, (i, x)| format!("(store {acc} {} {})", i.first().map_or(0, |n| *n), coded(*x, &es)));
        first.insert(v.term.clone(), cells);
    }
    if let Some(f) = horn.map.initial {
        lines.chain(horn, &[f], atom(horn, &first));
    }
    for (items, reps) in summarise(&ex.steps) {
        let len: u64 = items.iter().map(|i| i.1).sum::<u64>() * reps;
        if len == 1 {
            lines.chain(horn, &horn.map.transitions[items[0].0], None);
            continue;
        }
        let clauses: Vec<String> = items
            .iter()
            .map(|(t, k)| {
                let chain: Vec<String> = horn.map.transitions[*t].iter().map(|c| clause_ref(horn, *c)).collect();
                if *k == 1 {
                    chain.join(" ")
                } else {
                    format!("(repeat {k} {})", chain.join(" "))
                }
            })
            .collect();
        let body = if reps == 1 { clauses.join(" ") } else { format!("(repeat {reps} {})", clauses.join(" ")) };
        let _ = writeln!(lines.out, "  (steps {} {} {body})", lines.n, lines.n + len - 1);
        lines.n += len;
    }
    let mut last = State::default();
    if let Some(r) = replayed {
        for (t, v) in &r.scalars {
            last.insert(t.clone(), coded(*v, t.sort()));
        }
        for (a, i, v) in &r.reads {
            let es = a.sort().as_array().map(|s| s.elem.clone()).unwrap_or(Sort::Int);
            let cell = format!(" ({} {})", i.first().copied().unwrap_or(0), coded(*v, &es));
            last.entry(a.clone()).or_insert_with(|| "(cells".into()).push_str(&cell);
        }
        for v in last.values_mut().filter(|v| v.starts_with("(cells")) {
            v.push(')');
        }
        if let Some(a) = atom(horn, &last) {
            let _ = writeln!(lines.out, "  ; reached {a}");
        }
    }
    if atom(horn, &last).is_some() || horn.map.unsafe_.get(ex.cube).is_some_and(|c| !c.is_empty()) {
        lines.chain(horn, &query_chain(sys, horn, Some(ex.cube), &last), Some("false".into()));
    }
}
