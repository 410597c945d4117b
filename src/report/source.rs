//! Counterexamples of C programs in source terms: each step as the source
//! lines it runs (`line 9 → line 9, lines 9–11`), the values of the
//! `__VERIFIER_nondet_*` calls it executes (`__VERIFIER_nondet_int() = 5
//! at line 12`), the variables under their C names, the failing call.
//! The source map says what each part of the lowered system stands for;
//! the steps' calls are found by following the run
//! ([`super::witness::path::walk`]).

use super::witness::path::{self, Call, Event};
use super::{summarise, value};
use crate::answer::{ConcreteTrace, Execution, Replayed, Value};
use crate::frontend::c::source_map::{Site, SourceMap};
use crate::system::System;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A step's transition in words: `line 9 → line 12 (lines 9–11)`.
fn step_text(map: &SourceMap, t: usize) -> String {
    let Some(s) = map.steps.get(t) else { return format!("transition {t}") };
    let lines = if s.lines.0 == s.lines.1 { format!("line {}", s.lines.0) } else { format!("lines {}–{}", s.lines.0, s.lines.1) };
    format!("{} → {} ({lines})", map.location_text(s.from), map.location_text(s.to),)
}

fn call_text(c: &Call) -> String {
    format!("{}() = {} at line {}", c.callee, c.value, c.site.line)
}

fn failure_text(s: &Site) -> String {
    format!("fails at line {}, column {} (in {})", s.line, s.column, s.function)
}

/// The scalars of a state under their C names (the program counter left out).
fn scalars_text(sys: &System, map: &SourceMap, state: &[Value], before: Option<&[Value]>) -> Vec<String> {
    let mut out = vec![];
    for (k, (v, val)) in sys.vars.iter().zip(state).enumerate().skip(1) {
        if before.is_some_and(|b| b.get(k) == Some(val)) {
            continue;
        }
        let name = map.display_name(k, v.name());
        match val {
            Value::Scalar(x) => out.push(format!("{name} = {}", path::number(x).map_or_else(|| x.to_string(), |n| n.to_string()))),
            Value::Array(cells) => {
                let old: Option<&Vec<(Vec<usize>, crate::logic::Term)>> = before.and_then(|b| match b.get(k) {
                    Some(Value::Array(c)) => Some(c),
                    _ => None,
                });
                for (idx, x) in cells {
                    if old.is_some_and(|o| o.iter().any(|(i, y)| i == idx && y == x)) {
                        continue;
                    }
                    let i: String = idx.iter().map(|p| format!("[{p}]")).collect();
                    out.push(format!("{name}{i} = {}", path::number(x).map_or_else(|| x.to_string(), |n| n.to_string())));
                }
            }
        }
    }
    out
}

/// A trace of a search over cubes on a C program (`None` when the source
/// map cannot follow it: the caller prints it the usual way).
pub fn trace(sys: &System, map: &SourceMap, t: &ConcreteTrace) -> Option<String> {
    let ex = path::execution_of_trace(sys, t).ok()?;
    let mut events = vec![];
    path::walk(sys, map, &ex, |e| events.push(e)).ok()?;
    if events.len() != t.steps.len() {
        return None;
    }
    let mut out = String::new();
    let _ = writeln!(out, "Counterexample (C program, {} steps):", t.steps.len());
    let _ = writeln!(out, "  initial state: {}", scalars_text(sys, map, &t.states[0], None).join(", "));
    for (k, e) in events.iter().enumerate() {
        let _ = writeln!(out, "  step {}: {}", k + 1, step_text(map, e.transition));
        for c in &e.calls {
            let _ = writeln!(out, "      {}", call_text(c));
        }
        let changed = scalars_text(sys, map, &t.states[k + 1], Some(&t.states[k]));
        if !changed.is_empty() {
            let _ = writeln!(out, "      {}", changed.join(", "));
        }
        if let Some(s) = &e.target {
            let _ = writeln!(out, "      {}", failure_text(s));
        }
    }
    let _ = writeln!(out, "  reaches the error");
    Some(out)
}

/// Lines of a summarised execution printed at most.
const MAX_LINES: usize = 60;

/// Calls listed per summarised line at most.
const MAX_CALLS: usize = 4;

/// An execution of forward execution on a C program, in source terms
/// (`None` when the source map cannot follow it).
pub fn execution(sys: &System, map: &SourceMap, ex: &Execution, replayed: Option<&Replayed>) -> Option<String> {
    let mut calls: BTreeMap<u64, Vec<Call>> = BTreeMap::new();
    let mut target = None;
    path::walk(sys, map, ex, |e: Event| {
        if !e.calls.is_empty() {
            calls.insert(e.first, e.calls);
        }
        if e.target.is_some() {
            target = e.target;
        }
    })
    .ok()?;
    let name_of = |t: &crate::logic::Term| -> String {
        match sys.vars.iter().position(|v| v.term == *t) {
            Some(k) => map.display_name(k, &t.to_string()),
            None => t.to_string(),
        }
    };
    let mut out = String::new();
    let _ = writeln!(out, "Execution of {} steps{} (C program):", ex.len(), if replayed.is_some() { " (replayed)" } else { "" });
    let init: Vec<String> = ex.scalars.iter().skip(1).map(|(t, v)| format!("{} = {}", name_of(t), value(*v, t.sort()))).collect();
    let _ = writeln!(out, "  initial state: {}", init.join(", "));
    for a in &ex.arrays {
        let sv = &sys.vars[a.var];
        let name = map.display_name(a.var, sv.name());
        let shown: Vec<String> =
            a.cells.iter().take(4).map(|(i, v)| format!("{name}{} = {v}", i.iter().map(|x| format!("[{x}]")).collect::<String>())).collect();
        let more = if a.cells.len() > 4 { ", …" } else { "" };
        let cells = if a.cells.is_empty() { String::new() } else { format!(" except {} chosen cells: {}{more}", a.cells.len(), shown.join(", ")) };
        let _ = writeln!(out, "    {name}[] = {}{cells}", a.default);
    }
    let lines = summarise(&ex.steps);
    let mut first = 1u64;
    for (k, (items, reps)) in lines.iter().enumerate() {
        let len = items.iter().map(|i| i.1).sum::<u64>() * reps;
        let shown = lines.len() <= MAX_LINES || k < MAX_LINES * 2 / 3 || k >= lines.len() - MAX_LINES / 4;
        if shown {
            let text = if len == 1 {
                format!("  step {first}: {}", step_text(map, items[0].0))
            } else {
                let body: Vec<String> = items.iter().map(|&(t, n)| if n == 1 { step_text(map, t) } else { format!("{} × {n}", step_text(map, t)) }).collect();
                let body = if items.len() == 1 && *reps > 1 {
                    format!("{} × {}", step_text(map, items[0].0), items[0].1 * reps)
                } else if items.len() == 1 {
                    body[0].clone()
                } else {
                    format!("({}) × {reps}", body.join(", "))
                };
                format!("  steps {first}–{}: {body}", first + len - 1)
            };
            let _ = writeln!(out, "{text}");
            let here: Vec<&Call> = calls.range(first..first + len).flat_map(|(_, c)| c).collect();
            for c in here.iter().take(MAX_CALLS) {
                let _ = writeln!(out, "      {}", call_text(c));
            }
            if here.len() > MAX_CALLS {
                let _ = writeln!(out, "      … ({} more calls)", here.len() - MAX_CALLS);
            }
        } else if k == MAX_LINES * 2 / 3 {
            let _ = writeln!(out, "  … ({} lines omitted)", lines.len() - MAX_LINES * 2 / 3 - MAX_LINES / 4);
        }
        first += len;
    }
    if let Some(r) = replayed {
        let fin: Vec<String> = r.scalars.iter().skip(1).map(|(t, v)| format!("{} = {}", name_of(t), value(*v, t.sort()))).collect();
        let _ = writeln!(out, "  final state: {}", fin.join(", "));
        if !r.reads.is_empty() {
            let cells: Vec<String> =
                r.reads.iter().map(|(a, i, v)| format!("{}{} = {v}", name_of(a), i.iter().map(|x| format!("[{x}]")).collect::<String>())).collect();
            let _ = writeln!(out, "    cells read at the end: {}", cells.join(", "));
        }
    }
    match target {
        Some(s) => {
            let _ = writeln!(out, "  reaches the error: {}", failure_text(&s));
        }
        None => {
            let _ = writeln!(out, "  reaches the error");
        }
    }
    Some(out)
}
