//! The path a violation witness describes: the `__VERIFIER_nondet_*`
//! calls an error run executes, in order, with their values, and the
//! failing call. It is read off a concrete execution by following it with
//! the replay's evaluator ([`Machine`]) and asking, at each step, which of
//! the step's inputs its code executes (the source map's conditions).
//! Traces of the searches over cubes become executions first, and are
//! replayed as such before they are used.

use crate::answer::{ArrayContent, ConcreteTrace, Execution, Value};
use crate::certify::execution::{replay, Machine};
use crate::frontend::c::source_map::{Site, SourceMap, Step};
use crate::logic::{Op, Term};
use crate::system::System;

/// One executed call of a `__VERIFIER_nondet_*` function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// The function called.
    pub callee: String,
    /// Where (the call's closing parenthesis).
    pub site: Site,
    /// The value it returned.
    pub value: i64,
}

/// A run to the error in source terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    /// The calls, in order of execution.
    pub calls: Vec<Call>,
    /// The failing call.
    pub target: Site,
    /// The steps of the run.
    pub steps: u64,
}

/// The integer a concrete value stands for (Booleans 0/1, enumeration
/// constants by number).
pub fn number(t: &Term) -> Option<i64> {
    match t.op() {
        Op::Int(n) | Op::EnumConst(n) => Some(*n),
        Op::Bool(b) => Some(*b as i64),
        Op::Neg => number(&t.args()[0]).and_then(|n| n.checked_neg()),
        _ => None,
    }
}

/// A trace of a search over cubes as an execution of a program (integer
/// indices, no parameters), checked by [`replay`]: cells the trace's
/// instance did not have start at 0.
pub fn execution_of_trace(sys: &System, tr: &ConcreteTrace) -> Result<Execution, String> {
    let first = tr.states.first().ok_or("an empty trace")?;
    let mut scalars = vec![];
    let mut arrays = vec![];
    for (k, (v, val)) in sys.vars.iter().zip(first).enumerate() {
        match val {
            Value::Scalar(x) => scalars.push((v.term.clone(), number(x).ok_or_else(|| format!("the value {x} of {} is not a number", v.name()))?)),
            Value::Array(cells) => {
                let cells = cells
                    .iter()
                    .map(|(idx, x)| Ok((idx.iter().map(|i| *i as i64).collect(), number(x).ok_or("an array cell is not a number")?)))
                    .collect::<Result<Vec<_>, String>>()?;
                arrays.push(ArrayContent { var: k, default: 0, cells });
            }
        }
    }
    let mut steps: Vec<(usize, u64)> = vec![];
    let mut values = vec![];
    for (k, (t, params)) in tr.steps.iter().enumerate() {
        if !params.is_empty() {
            return Err("a step with process parameters".into());
        }
        match steps.last_mut() {
            Some((last, n)) if last == t => *n += 1,
            _ => steps.push((*t, 1)),
        }
        let vals = tr.values.get(k).map(|v| v.as_slice()).unwrap_or(&[]);
        if vals.len() != sys.transitions[*t].values.len() {
            return Err("the trace does not record the values of a step".into());
        }
        for x in vals {
            values.push(number(x).ok_or("a value is not a number")?);
        }
    }
    let ex = Execution { scalars, arrays, steps, values, cube: 0, cube_values: vec![] };
    replay(sys, &ex).map_err(|e| format!("the trace does not replay as an execution: {e}"))?;
    Ok(ex)
}

/// The value given to an input the transition does not use: 0 in range.
pub fn unused_value(range: (i64, i64)) -> i64 {
    0i64.clamp(range.0, range.1)
}

/// The inputs of a step of `step` with the transition's own values: those
/// the transition leaves out (not used on its path) at [`unused_value`].
pub fn all_inputs(step: &Step, own: &[(Term, i64)]) -> Vec<(Term, i64)> {
    let mut all = own.to_vec();
    for i in &step.inputs {
        if !all.iter().any(|(v, _)| *v == i.symbol) {
            all.push((i.symbol.clone(), unused_value(i.range)));
        }
    }
    all
}

/// The calls a step executes, with their values, and for a step into the
/// error location the failing call (`m`: the state before the step).
pub fn executed(m: &mut Machine, step: &Step, inputs: &[(Term, i64)]) -> Result<(Vec<Call>, Option<Site>), String> {
    let mut calls = vec![];
    for i in &step.inputs {
        if let Some((callee, site)) = &i.call {
            if m.eval(&i.when, inputs)? != 0 {
                let value = inputs.iter().find(|(v, _)| *v == i.symbol).map(|p| p.1).ok_or("an input without a value")?;
                calls.push(Call { callee: callee.clone(), site: site.clone(), value });
            }
        }
    }
    let mut target = None;
    for f in &step.failures {
        if m.eval(&f.when, inputs)? != 0 {
            target = Some(f.site.clone());
            break;
        }
    }
    if target.is_none() {
        target = step.failures.first().map(|f| f.site.clone());
    }
    Ok((calls, target))
}

/// What one step (or a run of repetitions replayed at once) did in source terms.
#[derive(Clone, Debug)]
pub struct Event {
    /// The number of the step's first repetition (1-based).
    pub first: u64,
    /// The transition.
    pub transition: usize,
    /// The repetitions it stands for.
    pub reps: u64,
    /// The calls it executed.
    pub calls: Vec<Call>,
    /// For a step into the error location: the failing call.
    pub target: Option<Site>,
}

/// Follows an execution step by step, telling `on` what each step does
/// (runs of a self-loop without inputs at once, when they replay in closed form).
pub fn walk(sys: &System, map: &SourceMap, ex: &Execution, mut on: impl FnMut(Event)) -> Result<(), String> {
    if map.steps.len() != sys.transitions.len() {
        return Err("the source map does not match the system".into());
    }
    let mut m = Machine::new(sys, &ex.scalars, &ex.arrays)?;
    let mut cursor = 0usize;
    let mut k = 0u64;
    for &(ti, reps) in &ex.steps {
        let t = sys.transitions.get(ti).ok_or("a step names no transition")?;
        let step = &map.steps[ti];
        let has_calls = step.inputs.iter().any(|i| i.call.is_some());
        if reps >= 2 && t.values.is_empty() && !has_calls && m.fire_many(ti, reps)? {
            on(Event { first: k + 1, transition: ti, reps, calls: vec![], target: None });
            k += reps;
            continue;
        }
        for _ in 0..reps {
            let base = cursor + t.params.len();
            let own = t
                .values
                .iter()
                .enumerate()
                .map(|(j, v)| Ok((v.clone(), *ex.values.get(base + j).ok_or("too few recorded inputs")?)))
                .collect::<Result<Vec<_>, String>>()?;
            cursor += t.params.len() + t.values.len();
            let all = all_inputs(step, &own);
            let (calls, target) = executed(&mut m, step, &all)?;
            k += 1;
            on(Event { first: k, transition: ti, reps: 1, calls, target });
            m.fire(ti, &all)?;
        }
    }
    Ok(())
}

/// The path of an execution that reaches the error location.
pub fn of_execution(sys: &System, map: &SourceMap, ex: &Execution) -> Result<Path, String> {
    let mut calls = vec![];
    let mut target = None;
    walk(sys, map, ex, |mut e| {
        calls.append(&mut e.calls);
        if e.target.is_some() {
            target = e.target;
        }
    })?;
    let last = ex.steps.last().map(|s| s.0).ok_or("an execution without steps")?;
    if map.locations.get(map.steps[last].to).map(|l| l.name.as_str()) != Some("error") {
        return Err("the execution does not end in the error location".into());
    }
    let target = target.ok_or("no failing call is known for the last step")?;
    Ok(Path { calls, target, steps: ex.len() })
}
