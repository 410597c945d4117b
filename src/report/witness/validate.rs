//! Validation of violation witnesses by replay (`arrax validate`): the
//! witness's `function_return` waypoints give, in order, the values of the
//! program's `__VERIFIER_nondet_*` calls; the program is run concretely on
//! its lowered system, each executed call taking the next value (its
//! location must be the waypoint's), until it reaches the error location
//! at the target waypoint's call. What the witness cannot say (the
//! contents of uninitialised variables and arrays) is tried with a few
//! choices (0, 1, -1, 7, the type's bounds; a run that goes on without
//! reaching the error for [`MAX_STEPS`] steps ends the attempts). The run found is then checked
//! like any execution ([`crate::certify::execution::replay`]) before the
//! witness is confirmed.

use super::format::{Entry, SegmentItem};
use super::path::{all_inputs, executed, unused_value, Path};
use crate::answer::{ArrayContent, Execution};
use crate::certify::execution::{replay, Machine};
use crate::frontend::c::source_map::{Site, SourceMap, Step};
use crate::frontend::Diagnostic;
use crate::logic::{Op, Term};
use crate::system::System;
use std::time::Instant;

/// A waypoint of a witness as validation uses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    /// Its line and column (the column when given).
    pub line: usize,
    /// The column (1-based), when given.
    pub column: Option<usize>,
    /// For a `function_return` waypoint: the value (`\result == v`).
    pub value: Option<i64>,
}

/// A violation witness: the returns to follow, in order, and the target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    /// The `function_return` waypoints.
    pub returns: Vec<Point>,
    /// The `target` waypoint.
    pub target: Point,
}

/// The outcome of a validation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A run following the witness reaches the error at its target (and
    /// replays as an execution of the system): the path it took.
    Confirmed(Path),
    /// No run found follows the witness to the error: why.
    NotConfirmed(String),
}

/// The position of the `n`-th occurrence of `needle` in `src` (1:1 when absent).
fn nth(src: &str, needle: &str, n: usize) -> (usize, usize) {
    match src.match_indices(needle).nth(n) {
        Some((k, _)) => crate::frontend::line_col(src, k),
        None => (1, 1),
    }
}

fn yaml_error(e: serde_yaml_ng::Error) -> Diagnostic {
    crate::frontend::yaml_diagnostic(e, "witness")
}

/// The value of a constraint `\result == v` (also `v == \result`, with
/// parentheses and integer suffixes).
pub fn result_value(c: &str) -> Option<i64> {
    let s: String = c.chars().filter(|c| !c.is_whitespace()).collect();
    let s = s.trim_start_matches('(').trim_end_matches(')');
    let (a, b) = s.split_once("==")?;
    let v = match (a, b) {
        ("\\result", v) | (v, "\\result") => v,
        _ => return None,
    };
    let v = v.trim_start_matches('(').trim_end_matches(')');
    let v = v.trim_end_matches(['u', 'U', 'l', 'L']);
    v.parse().ok()
}

/// Reads a violation witness (YAML format 2.0): the first entry of type
/// `violation_sequence`. Errors are located in the witness's text.
pub fn read(src: &str) -> Result<Witness, Diagnostic> {
    let raw: Vec<serde_yaml_ng::Value> = serde_yaml_ng::from_str(src).map_err(yaml_error)?;
    let kinds: Vec<Option<String>> = raw.iter().map(|e| e.get("entry_type").and_then(|t| t.as_str()).map(String::from)).collect();
    let Some(k) = kinds.iter().position(|t| t.as_deref() == Some("violation_sequence")) else {
        let (line, col) = nth(src, "entry_type", 0);
        return Err(Diagnostic::new(line, col, "witness: no entry of type violation_sequence (only violation witnesses are validated)"));
    };
    let entries: Vec<Entry<SegmentItem>> = serde_yaml_ng::from_str(src).map_err(yaml_error)?;
    let entry = &entries[k];
    let mut returns = vec![];
    let mut target = None;
    let (mut seen_returns, mut seen_targets) = (0, 0);
    for (n, seg) in entry.content.iter().enumerate() {
        let at = |msg: String| {
            let (line, col) = nth(src, "segment", n);
            Diagnostic::new(line, col, format!("witness: {msg}"))
        };
        if target.is_some() {
            return Err(at("a segment after the target waypoint".into()));
        }
        for w in &seg.segment {
            let w = &w.waypoint;
            let point = Point { line: w.location.line, column: w.location.column, value: None };
            match (w.kind.as_str(), w.action.as_str()) {
                ("function_return", "follow") => {
                    let c = w.constraint.as_ref().ok_or_else(|| at("a function_return waypoint without a constraint".into()))?;
                    let Some(v) = result_value(&c.value) else {
                        let (line, col) = nth(src, "\\result", seen_returns);
                        return Err(Diagnostic::new(
                            line,
                            col,
                            format!("witness: cannot read the constraint `{}` (expected `\\result == <integer>`)", c.value),
                        ));
                    };
                    seen_returns += 1;
                    returns.push(Point { value: Some(v), ..point });
                }
                ("target", "follow") => {
                    seen_targets += 1;
                    target = Some(point);
                }
                (kind, action) => {
                    let (line, col) = nth(src, "type:", seen_returns + seen_targets);
                    return Err(Diagnostic::new(
                        line,
                        col,
                        format!("witness: unsupported waypoint `{kind}` with action `{action}` (arrax follows function_return and target waypoints)"),
                    ));
                }
            }
        }
    }
    let target = target.ok_or_else(|| {
        let (line, col) = nth(src, "content", 0);
        Diagnostic::new(line, col, "witness: no target waypoint")
    })?;
    Ok(Witness { returns, target })
}

/// The choices tried for values the witness does not give.
const CHOICES: [i64; 6] = [0, 1, -1, 7, i64::MAX, i64::MIN];

/// Largest number of steps of one run.
pub const MAX_STEPS: u64 = 20_000_000;

/// Validates a witness on the program's system: a run following it to the
/// error, checked by replay (see the module documentation).
pub fn validate(sys: &System, map: &SourceMap, w: &Witness, deadline: Option<Instant>) -> Outcome {
    let mut why = String::new();
    for choice in CHOICES {
        match follow(sys, map, w, choice, deadline) {
            Ok((ex, path)) => match replay(sys, &ex) {
                Ok(_) => return Outcome::Confirmed(path),
                Err(e) => why = format!("the run found does not replay: {e}"),
            },
            Err(e) => {
                // a run that neither ends nor fails would not with other choices either, as a rule
                let stop = e.starts_with(TIMEOUT) || e.starts_with(NO_ERROR);
                why = e;
                if stop {
                    break;
                }
            }
        }
    }
    Outcome::NotConfirmed(why)
}

const TIMEOUT: &str = "the time limit ran out";
const NO_ERROR: &str = "no error within";

/// The initial state: the initial formula's values (scalars set by
/// equalities, array cells listed by global initialisers, default 0 for
/// global arrays); everything else `choice`, in its type's range.
fn initial(sys: &System, map: &SourceMap, choice: i64) -> (Vec<(Term, i64)>, Vec<ArrayContent>) {
    let range = |k: usize| map.variables.get(k).and_then(|v| v.as_ref()).map_or((i64::MIN, i64::MAX), |v| v.range);
    let mut scalars: Vec<(Term, i64)> =
        sys.vars.iter().enumerate().filter(|(_, v)| !v.is_array).map(|(k, v)| (v.term.clone(), choice.clamp(range(k).0, range(k).1))).collect();
    let mut arrays: Vec<ArrayContent> = sys
        .vars
        .iter()
        .enumerate()
        .filter(|(_, v)| v.is_array)
        .map(|(k, _)| ArrayContent { var: k, default: choice.clamp(range(k).0, range(k).1), cells: vec![] })
        .collect();
    for q in &sys.initial {
        for lit in &q.lits {
            let a = lit.args();
            if q.vars.is_empty() {
                if let (Op::Eq, Some(n)) = (lit.op(), a.get(1).and_then(super::path::number)) {
                    if let Some(s) = scalars.iter_mut().find(|s| s.0 == a[0]) {
                        s.1 = n;
                    }
                }
                continue;
            }
            // `∀x̄. … ∨ a[x̄] = c`: listed cells (`x ≠ k ∨ …`) or the default
            let Op::Or = lit.op() else { continue };
            let Some(last) = a.last() else { continue };
            let (Op::Eq, Some(c)) = (last.op(), last.args().get(1).and_then(super::path::number)) else { continue };
            let cell = &last.args()[0];
            if !matches!(cell.op(), Op::Select) {
                continue;
            }
            let Some(arr) = sys.vars.iter().position(|v| v.term == cell.args()[0]) else { continue };
            let Some(content) = arrays.iter_mut().find(|x| x.var == arr) else { continue };
            let xs = &cell.args()[1..];
            let guards = &a[..a.len() - 1];
            let listed = guards.iter().all(|g| matches!(g.op(), Op::Eq));
            if listed {
                content.default = c;
                continue;
            }
            // each guard `¬(x = k)` or `¬(x1 = k1 ∧ …)`
            let mut idx = vec![0i64; xs.len()];
            let mut ok = guards.len() == 1;
            if let Some(Op::Not) = guards.first().map(|g| g.op()) {
                let inner = &guards[0].args()[0];
                let eqs: Vec<Term> = match inner.op() {
                    Op::And => inner.args().to_vec(),
                    _ => vec![inner.clone()],
                };
                for e in eqs {
                    match (e.op(), xs.iter().position(|x| *x == e.args()[0]), e.args().get(1).and_then(super::path::number)) {
                        (Op::Eq, Some(p), Some(k)) => idx[p] = k,
                        _ => ok = false,
                    }
                }
            } else {
                ok = false;
            }
            if ok {
                content.cells.push((idx, c));
            }
        }
    }
    (scalars, arrays)
}

/// One run following the witness, unknowns given `choice`: the execution
/// and its path, or why it does not follow the witness to the error.
fn follow(sys: &System, map: &SourceMap, w: &Witness, choice: i64, deadline: Option<Instant>) -> Result<(Execution, Path), String> {
    if map.steps.len() != sys.transitions.len() {
        return Err("the source map does not match the system".into());
    }
    let (scalars, arrays) = initial(sys, map, choice);
    let mut m = Machine::new(sys, &scalars, &arrays)?;
    let pc = sys.vars.first().map(|v| v.term.clone()).ok_or("no program counter")?;
    let error = map.locations.iter().position(|l| l.name == "error").ok_or("no error location")?;
    let mut cursor = 0usize;
    let (mut steps, mut values, mut calls): (Vec<(usize, u64)>, Vec<i64>, Vec<super::path::Call>) = (vec![], vec![], vec![]);
    let mut k = 0u64;
    loop {
        let loc = m.scalar(&pc).ok_or("no program counter value")? as usize;
        if loc == error {
            break;
        }
        if map.locations.get(loc).is_some_and(|l| l.name == "exit") {
            return Err(format!("the run ends (at the exit location) after {k} steps and {cursor} of the witness's {} values", w.returns.len()));
        }
        k += 1;
        if k > MAX_STEPS {
            return Err(format!("{NO_ERROR} {MAX_STEPS} steps"));
        }
        if k & 0xffff == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(format!("{TIMEOUT} after {k} steps"));
        }
        let (ti, all, next) = next_step(&mut m, map, loc, w, cursor, choice)?;
        let (mut c, target) = executed(&mut m, &map.steps[ti], &all)?;
        calls.append(&mut c);
        let target = if map.steps[ti].to == error { Some(at_target(w, target, next)?) } else { None };
        record(&mut steps, &mut values, sys, ti, &all);
        m.fire(ti, &all)?;
        cursor = next;
        if let Some(target) = target {
            let ex = Execution { scalars, arrays, steps, values, cube: 0, cube_values: vec![] };
            let path = Path { calls, target, steps: k };
            return Ok((ex, path));
        }
    }
    Err("the initial state is the error location".into())
}

/// Values of inputs, by their symbols.
type Assignment = Vec<(Term, i64)>;

/// The first step from location `loc` that the witness's values fit (see
/// [`witness_inputs`]) and that is enabled: its transition, all its inputs
/// and the next waypoint; else why no step fits (the last mismatch met).
fn next_step(m: &mut Machine, map: &SourceMap, loc: usize, w: &Witness, cursor: usize, choice: i64) -> Result<(usize, Assignment, usize), String> {
    let mut mismatch = None;
    for (ti, step) in map.steps.iter().enumerate().filter(|(_, s)| s.from == loc) {
        let (assigned, next) = match witness_inputs(m, step, w, cursor, choice) {
            Ok(fit) => fit,
            Err(why) => {
                mismatch = Some(why);
                continue;
            }
        };
        let all = all_inputs(step, &assigned);
        if m.enabled(ti, &all)? {
            return Ok((ti, all, next));
        }
    }
    Err(mismatch.unwrap_or_else(|| format!("no step from {} fits the witness's values", map.location_text(loc))))
}

/// The values of a step's inputs in order of execution: each executed call
/// takes the value of the next waypoint from `cursor` on (at the call's
/// position, within its range), a call not executed a value it does not
/// need, any other input `choice`; with the waypoint after them, or why
/// the witness does not fit the step.
fn witness_inputs(m: &mut Machine, step: &Step, w: &Witness, cursor: usize, choice: i64) -> Result<(Assignment, usize), String> {
    let mut assigned: Assignment = vec![];
    let mut next = cursor;
    for i in &step.inputs {
        let run = match m.eval(&i.when, &assigned) {
            Ok(v) => v != 0,
            Err(_) => false,
        };
        let v = match (&i.call, run) {
            (Some((callee, site)), true) => {
                let Some(p) = w.returns.get(next) else {
                    return Err(format!("the run calls {callee}() at line {} after the witness's {} values", site.line, w.returns.len()));
                };
                if p.line != site.line || p.column.is_some_and(|c| c != site.column) {
                    return Err(format!(
                        "waypoint {} is at line {}{}, the run's next call ({callee}) at line {}, column {}",
                        next + 1,
                        p.line,
                        p.column.map_or(String::new(), |c| format!(", column {c}")),
                        site.line,
                        site.column
                    ));
                }
                let v = p.value.unwrap_or(0);
                if v < i.range.0 || v > i.range.1 {
                    return Err(format!("waypoint {}: {callee}() cannot return {v}", next + 1));
                }
                next += 1;
                v
            }
            (Some(_), false) => unused_value(i.range),
            (None, _) => choice.clamp(i.range.0, i.range.1),
        };
        assigned.push((i.symbol.clone(), v));
    }
    Ok((assigned, next))
}

/// The failing call of a step into the error, when it is the witness's
/// target and the run used all the witness's values (`next` of them).
fn at_target(w: &Witness, target: Option<Site>, next: usize) -> Result<Site, String> {
    let target = target.ok_or("no failing call is known for the step into the error")?;
    if target.line != w.target.line || w.target.column.is_some_and(|c| c != target.column) {
        return Err(format!(
            "the run fails at line {}, column {}, the witness's target is at line {}{}",
            target.line,
            target.column,
            w.target.line,
            w.target.column.map_or(String::new(), |c| format!(", column {c}"))
        ));
    }
    if next < w.returns.len() {
        return Err(format!("the run reaches the error with {} of the witness's values unused", w.returns.len() - next));
    }
    Ok(target)
}

/// Appends a step (run-length encoded) and the transition's own values.
fn record(steps: &mut Vec<(usize, u64)>, values: &mut Vec<i64>, sys: &System, ti: usize, all: &[(Term, i64)]) {
    match steps.last_mut() {
        Some((t, n)) if *t == ti => *n += 1,
        _ => steps.push((ti, 1)),
    }
    for v in &sys.transitions[ti].values {
        values.push(all.iter().find(|(s, _)| s == v).map_or(0, |p| p.1));
    }
}
