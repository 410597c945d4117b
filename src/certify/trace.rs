//! Replay of backward search's traces on a concrete instance: every
//! process the trace names plus spare ones, universal guards evaluated over
//! all of them (with order-only indices, index-valued state may also name
//! identifiers that are no process: see [`outside_ids`]); the solver proposes values and the trace is accepted only
//! when evaluating every step on them gives `true`; steps of accelerated
//! loops expanded into their iterations.

use crate::answer::{AbstractTrace, ConcreteTrace, Value};
use crate::logic::instantiate::all_maps;
use crate::logic::{substitute, Op, Sort, Term};
use crate::smt::{self, Backend, SatResult};
use crate::system::{System, Transition};
use crate::HashMap;

fn proc_lit(p: usize, isort: &Sort) -> Term {
    Term::raw(Op::Int(p as i64), vec![], isort.clone())
}

/// Model values as literals of their sorts: index values come back as
/// Int for Int-encoded sorts; values of an uninterpreted sort (`data!val!0`)
/// are numbered by first appearance, so that evaluation tells two apart.
#[derive(Default)]
struct Literals {
    /// The number of each value of an uninterpreted sort met so far.
    numbered: HashMap<Term, i64>,
}

impl Literals {
    fn of(&mut self, v: &Term, s: &Sort) -> Term {
        match (v.op(), s) {
            (Op::Int(n), Sort::Index) => proc_lit(*n as usize, s),
            (_, Sort::Uninterpreted(_)) if !v.is_value() => {
                let next = self.numbered.len() as i64;
                let n = *self.numbered.entry(v.clone()).or_insert(next);
                Term::raw(Op::Int(n), vec![], s.clone())
            }
            _ => v.clone(),
        }
    }
}

/// The finite-instance encoding of a trace: states as copies of the state
/// variables, one constraint list per part.
struct Unrolling {
    /// The state variables' copies at each state.
    states: Vec<HashMap<Term, Term>>,
    /// The symbols of the processes the trace names.
    named: Vec<Term>,
    /// Every constraint.
    constraints: Vec<Term>,
    /// The symbols of each step's nondeterministic values.
    values: Vec<Vec<Term>>,
}

/// The symbol standing for the `i`-th process named by the trace (its
/// number among `0..procs` is chosen by the solver, so that order
/// constraints between the trace's processes can be met).
fn named_proc(i: usize, isort: &Sort) -> Term {
    Term::var(&format!("p!{}", i + 1), isort.clone())
}

/// The steps of a trace: transition and the processes of its parameters.
type Steps = Vec<(usize, Vec<usize>)>;

/// How many identifiers beyond the processes an instance with `procs`
/// processes has: with order-only indices, an index-valued variable or cell
/// may name no process of the state (Cubicle's `Home <> p` for every `p`),
/// so every index-valued scalar and cell, and a step's chosen value, may
/// hold an identifier of its own; with integer indices none.
fn outside_ids(sys: &System, procs: usize) -> usize {
    if sys.index_kind() != crate::system::IndexKind::Order {
        return 0;
    }
    let isort = sys.index_sort();
    let cells: usize = sys
        .vars
        .iter()
        .filter(|v| v.value_sort() == isort)
        .map(|v| if v.is_array { procs.pow(v.term.sort().as_array().map_or(1, |a| a.index.len()) as u32) } else { 1 })
        .sum();
    let chosen = sys.transitions.iter().any(|t| t.values.iter().any(|v| *v.sort() == isort));
    cells + chosen as usize
}

/// The identifiers of an instance: its processes `0..procs`, then the
/// [`outside_ids`].
fn identifiers(sys: &System, procs: usize) -> Vec<Term> {
    let isort = sys.index_sort();
    (0..procs + outside_ids(sys, procs)).map(|p| proc_lit(p, &isort)).collect()
}

fn unroll(sys: &System, trace: &AbstractTrace, procs: usize) -> Option<(Unrolling, Steps)> {
    let isort = sys.index_sort();
    let ids = identifiers(sys, procs);
    let ps: Vec<Term> = ids[..procs].to_vec();
    let n0 = trace.cubes[0].arity();
    let named: Vec<Term> = (0..n0).map(|i| named_proc(i, &isort)).collect();
    let k = trace.edges.len();
    let states: Vec<HashMap<Term, Term>> =
        (0..=k).map(|s| sys.vars.iter().map(|v| (v.term.clone(), Term::var(&format!("{}@{}", v.name(), s), v.term.sort().clone()))).collect()).collect();
    let mut cs = vec![Term::distinct(&named)];
    // the trace's processes and the index constants (`#1`) are processes of the instance
    for p in named.iter().chain(sys.consts.iter().filter(|c| *c.sort() == isort)) {
        cs.push(Term::le(&ps[0], p));
        cs.push(Term::lt(p, &proc_lit(procs, &isort)));
    }
    // which named process each variable of the current cube is
    let mut assign: Vec<usize> = (0..n0).collect();
    let mut steps = vec![];
    let mut values = vec![];
    for s in 0..=k {
        let st = &states[s];
        for q in &sys.axioms {
            for m in all_maps(&q.vars, &ps) {
                cs.push(substitute(&substitute(&q.body(), &m), st));
            }
        }
        // index-valued state names an identifier of the instance
        for v in &sys.vars {
            if v.value_sort() == isort {
                for cell in cells(sys, v.is_array, &v.term, &ids) {
                    let c = substitute(&cell, st);
                    cs.push(Term::le(&ids[0], &c));
                    cs.push(Term::lt(&c, &proc_lit(ids.len(), &isort)));
                }
            }
        }
        if s == 0 {
            for q in &sys.initial {
                for m in all_maps(&q.vars, &ps) {
                    cs.push(substitute(&substitute(&q.body(), &m), st));
                }
            }
        }
        let cube = &trace.cubes[s];
        if s == k {
            let m: HashMap<Term, Term> = cube.vars.iter().zip(&assign).map(|(v, p)| (v.clone(), named[*p].clone())).collect();
            cs.push(substitute(&substitute(&cube.body(), &m), st));
            break;
        }
        let e = &trace.edges[s];
        let pos = |v: &Term| cube.vars.iter().position(|w| w == v);
        let params: Vec<usize> = e.params.iter().map(|v| pos(v).map(|i| assign[i])).collect::<Option<_>>()?;
        let t: &Transition = &sys.transitions[e.transition];
        let mut pm: HashMap<Term, Term> = t.params.iter().cloned().zip(params.iter().map(|p| named[*p].clone())).collect();
        let mut mine = vec![];
        for (vi, v) in t.values.iter().enumerate() {
            let copy = Term::var(&format!("{}@{}!{}", v.var_name().unwrap_or("v"), s, vi), v.sort().clone());
            mine.push(copy.clone());
            pm.insert(v.clone(), copy);
        }
        values.push(mine);
        cs.push(substitute(&substitute(&t.guard, &pm), st));
        // a step standing for loop iterations: every process it checks exists
        if let Some((lo, hi)) = &t.checks {
            cs.push(Term::le(&ps[0], &substitute(&substitute(lo, &pm), st)));
            cs.push(Term::le(&substitute(&substitute(hi, &pm), st), &proc_lit(procs, &isort)));
        }
        if let Some((j, body)) = &t.uguard {
            for p in &ps {
                let mut m = pm.clone();
                m.insert(j.clone(), p.clone());
                cs.push(substitute(&substitute(body, &m), st));
            }
        }
        let nx = &states[s + 1];
        for (vi, v) in sys.vars.iter().enumerate() {
            let val = substitute(&substitute(&sys.next_value(t, vi), &pm), st);
            if v.is_array {
                for cell in cells(sys, true, &v.term, &ids) {
                    let idx = &cell.args()[1..];
                    cs.push(Term::eq(&substitute(&cell, nx), &Term::select(&val, idx)));
                }
            } else {
                cs.push(Term::eq(&nx[&v.term], &val));
            }
        }
        steps.push((e.transition, params.clone()));
        assign = e.succ_vars.iter().map(|v| pos(v).map(|i| assign[i])).collect::<Option<_>>()?;
    }
    Some((Unrolling { states, named, constraints: cs, values }, steps))
}

/// The cells of a state variable over the processes: the variable itself
/// for a scalar, its reads at every index tuple for an array.
fn cells(sys: &System, is_array: bool, v: &Term, ps: &[Term]) -> Vec<Term> {
    if !is_array {
        return vec![v.clone()];
    }
    let dims = v.sort().as_array().map(|a| a.index.len()).unwrap_or(1);
    let isort = sys.index_sort();
    let dummy: Vec<Term> = (0..dims).map(|d| Term::var(&format!("d!{d}"), isort.clone())).collect();
    all_maps(&dummy, ps).into_iter().map(|m| Term::select(v, &dummy.iter().map(|d| m[d].clone()).collect::<Vec<_>>())).collect()
}

/// Replays a candidate trace on concrete instances with as many processes
/// as it names, then one more for each index constant (`#1`), and two
/// more; the concrete trace if one checks out.
pub fn replay(sys: &System, trace: &AbstractTrace, backend: Backend, timeout_ms: u64) -> Result<Option<ConcreteTrace>, String> {
    let n0 = trace.cubes[0].arity().max(1);
    let isort = sys.index_sort();
    let constants = sys.consts.iter().filter(|c| *c.sort() == isort).count();
    for procs in n0..=n0 + constants + 2 {
        let Some((u, steps)) = unroll(sys, trace, procs) else {
            return Err("trace does not name its processes consistently".into());
        };
        let mut solver = smt::solver(backend);
        solver.set_timeout_ms(timeout_ms);
        solver.assert(&Term::and(u.constraints.iter().cloned()));
        match solver.check() {
            SatResult::Unsat => {
                if tracing::enabled!(tracing::Level::DEBUG) {
                    // the shortest infeasible prefix, for diagnosis
                    for k in 0..=trace.edges.len() {
                        let prefix = AbstractTrace { cubes: trace.cubes[..=k].to_vec(), edges: trace.edges[..k].to_vec() };
                        if let Some((u, _)) = unroll(sys, &prefix, procs) {
                            let mut s2 = smt::solver(backend);
                            s2.assert(&Term::and(u.constraints.iter().cloned()));
                            if s2.check() == SatResult::Unsat {
                                tracing::debug!("replay with {procs} processes: infeasible after {k} of {} steps", trace.edges.len());
                                break;
                            }
                        }
                    }
                }
                continue;
            }
            SatResult::Unknown(why) => return Err(format!("replay undecided: {why}")),
            SatResult::Sat => {}
        }
        let ids = identifiers(sys, procs);
        let mut lits = Literals::default();
        // read the concrete states off the model
        let mut vals: HashMap<Term, Term> = HashMap::default();
        let mut numbers = vec![];
        for p in &u.named {
            let v = solver.value(p).ok_or("no model value for a process")?;
            numbers.push(v.as_int().ok_or("a process is not a number")? as usize);
            vals.insert(p.clone(), lits.of(&v, &isort));
        }
        let steps: Vec<(usize, Vec<usize>)> = steps.into_iter().map(|(t, ps)| (t, ps.into_iter().map(|i| numbers[i]).collect())).collect();
        let mut states = vec![];
        for st in &u.states {
            let mut row = vec![];
            for v in &sys.vars {
                let copy = &st[&v.term];
                if v.is_array {
                    let mut cellsv = vec![];
                    for cell in cells(sys, true, copy, &ids) {
                        let val = solver.value(&cell).ok_or("no model value")?;
                        let val = lits.of(&val, cell.sort());
                        vals.insert(cell.clone(), val.clone());
                        let idx: Vec<usize> = cell.args()[1..]
                            .iter()
                            .map(|a| {
                                a.as_int().unwrap_or_else(|| match a.op() {
                                    Op::Int(n) => *n,
                                    _ => 0,
                                }) as usize
                            })
                            .collect();
                        // the state shows the processes' cells
                        if idx.iter().all(|&i| i < procs) {
                            cellsv.push((idx, val));
                        }
                    }
                    row.push(Value::Array(cellsv));
                } else {
                    let val = solver.value(copy).ok_or("no model value")?;
                    let val = lits.of(&val, copy.sort());
                    vals.insert(copy.clone(), val.clone());
                    row.push(Value::Scalar(val));
                }
            }
            states.push(row);
        }
        // existential values of transitions
        for c in &u.constraints {
            for v in crate::logic::free_vars(c) {
                if !vals.contains_key(&v) && v.sort().as_array().is_none() {
                    if let Some(val) = solver.value(&v) {
                        vals.insert(v.clone(), lits.of(&val, v.sort()));
                    }
                }
            }
        }
        // evaluate every constraint on the concrete values
        for c in &u.constraints {
            let e = evaluate(c, &vals);
            if e != Term::tt() {
                return Err(format!("replay: the solver's values do not satisfy {c} (evaluates to {e})"));
            }
        }
        // the steps' nondeterministic values
        let values = u.values.iter().map(|vs| vs.iter().map(|v| vals.get(v).cloned().unwrap_or_else(|| Term::int(0))).collect()).collect();
        let trace = ConcreteTrace { procs, states, steps, values };
        return expand_loops(sys, trace).map(Some);
    }
    Ok(None)
}

/// The concrete trace with each step of an accelerated loop (a transition
/// with [`Transition::checks`], named `t1|t2*` after the iterations it
/// stands for) replaced by those iterations, one per checked process, each
/// iteration's guard evaluated on its state: a trace of the transitions as
/// written. An error if no iteration fits or the iterations do not reach
/// the step's successor.
fn expand_loops(sys: &System, t: ConcreteTrace) -> Result<ConcreteTrace, String> {
    if t.steps.iter().all(|(ti, _)| sys.transitions[*ti].checks.is_none()) {
        return Ok(t);
    }
    let mut states = vec![t.states[0].clone()];
    let mut steps = vec![];
    for (k, (ti, params)) in t.steps.iter().enumerate() {
        let tr = &sys.transitions[*ti];
        if tr.checks.is_none() {
            steps.push((*ti, params.clone()));
            states.push(t.states[k + 1].clone());
            continue;
        }
        let names: Vec<&str> = tr.name.trim_end_matches('*').split('|').collect();
        let loops: Vec<usize> =
            (0..sys.transitions.len()).filter(|&i| names.contains(&sys.transitions[i].name.as_str()) && sys.transitions[i].checks.is_none()).collect();
        let counter = tr.updates[0].var;
        let x = params[0];
        let cell = |st: &[Value]| -> Option<i64> {
            match &st[counter] {
                Value::Array(cells) => cells.iter().find(|(idx, _)| idx == &[x]).and_then(|(_, v)| v.as_int()),
                Value::Scalar(_) => None,
            }
        };
        let (from, to) = (cell(&t.states[k]).ok_or("accelerated loop: no counter")?, cell(&t.states[k + 1]).ok_or("accelerated loop: no counter")?);
        let mut cur = t.states[k].clone();
        for y in from..to {
            let y = usize::try_from(y).map_err(|_| "accelerated loop: a negative process")?;
            let it = loops
                .iter()
                .copied()
                .find(|&i| holds(sys, &sys.transitions[i].guard, &sys.transitions[i].params, &[x, y], &cur))
                .ok_or_else(|| format!("accelerated loop {}: no iteration at process #{}", tr.name, y + 1))?;
            if let Value::Array(cells) = &mut cur[counter] {
                for (idx, v) in cells.iter_mut() {
                    if idx == &[x] {
                        *v = Term::raw(Op::Int(y as i64 + 1), vec![], v.sort().clone());
                    }
                }
            }
            steps.push((it, vec![x, y]));
            // the state between iterations satisfies the system's axioms
            let ps: Vec<usize> = (0..t.procs).collect();
            for q in &sys.axioms {
                for m in all_maps(&q.vars, &ps.iter().map(|p| proc_lit(*p, &sys.index_sort())).collect::<Vec<_>>()) {
                    let at: Vec<usize> = q.vars.iter().map(|v| m[v].as_int().unwrap_or(0) as usize).collect();
                    if !holds(sys, &q.body(), &q.vars, &at, &cur) {
                        return Err(format!("accelerated loop {}: an axiom fails between iterations", tr.name));
                    }
                }
            }
            states.push(cur.clone());
        }
        if cur != t.states[k + 1] {
            return Err(format!("accelerated loop {}: its iterations do not reach the step's successor", tr.name));
        }
    }
    let values = vec![vec![]; steps.len()];
    Ok(ConcreteTrace { procs: t.procs, states, steps, values })
}

/// Whether a transition's guard holds with these parameters in a concrete state.
fn holds(sys: &System, guard: &Term, params: &[Term], procs: &[usize], st: &[Value]) -> bool {
    let isort = sys.index_sort();
    let mut m: HashMap<Term, Term> = params.iter().cloned().zip(procs.iter().map(|p| proc_lit(*p, &isort))).collect();
    for (v, val) in sys.vars.iter().zip(st) {
        match val {
            Value::Scalar(c) => {
                m.insert(v.term.clone(), c.clone());
            }
            Value::Array(cells) => {
                for (idx, c) in cells {
                    let at: Vec<Term> = idx.iter().map(|p| proc_lit(*p, &isort)).collect();
                    m.insert(Term::select(&v.term, &at), c.clone());
                }
            }
        }
    }
    evaluate(guard, &m) == Term::tt()
}

/// A formula evaluated on concrete values (symbols and cells to values),
/// substituting until nothing changes.
fn evaluate(f: &Term, values: &HashMap<Term, Term>) -> Term {
    let mut e = f.clone();
    for _ in 0..8 {
        let e2 = substitute(&e, values);
        if e2 == e {
            break;
        }
        e = e2;
    }
    e
}
