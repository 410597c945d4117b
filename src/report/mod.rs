//! Presenting results: readable formulas, invariants, traces, statistics,
//! the text of a check's answer, and its JSON report ([`json`]).

pub mod chc;
pub mod dot;
pub mod json;
pub mod source;
pub mod witness;

use crate::answer::{Certification, CheckResult, ConcreteTrace, Execution, Replayed, Stats, Value, Verdict};
use crate::frontend::c::source_map::SourceMap;
use crate::logic::{EnumValues, Op, Sort, Term};
use crate::system::cube::Cube;
use crate::system::System;
use std::fmt::Write as _;

/// A term in readable infix notation (`a[z1] = 3 ∧ ¬f`).
pub fn pretty(t: &Term) -> String {
    pretty_prec(t, 0)
}

fn pretty_prec(t: &Term, outer: u8) -> String {
    let a = t.args();
    let (s, prec) = match t.op() {
        Op::Var(_) | Op::Bool(_) | Op::Int(_) | Op::Real(..) | Op::EnumConst(_) => (leaf(t), 9),
        Op::Select => {
            let idx: Vec<String> = a[1..].iter().map(|i| pretty_prec(i, 0)).collect();
            (format!("{}[{}]", pretty_prec(&a[0], 9), idx.join(", ")), 9)
        }
        Op::Not => match a[0].op() {
            Op::Eq => (format!("{} ≠ {}", pretty_prec(&a[0].args()[0], 5), pretty_prec(&a[0].args()[1], 5)), 4),
            _ => (format!("¬{}", pretty_prec(&a[0], 8)), 8),
        },
        Op::And => (a.iter().map(|x| pretty_prec(x, 3)).collect::<Vec<_>>().join(" ∧ "), 3),
        Op::Or => (a.iter().map(|x| pretty_prec(x, 2)).collect::<Vec<_>>().join(" ∨ "), 2),
        Op::Eq => (format!("{} = {}", pretty_prec(&a[0], 5), pretty_prec(&a[1], 5)), 4),
        Op::Lt => (format!("{} < {}", pretty_prec(&a[0], 5), pretty_prec(&a[1], 5)), 4),
        Op::Le => (format!("{} ≤ {}", pretty_prec(&a[0], 5), pretty_prec(&a[1], 5)), 4),
        Op::Add => (a.iter().map(|x| pretty_prec(x, 5)).collect::<Vec<_>>().join(" + "), 5),
        Op::Mul => (a.iter().map(|x| pretty_prec(x, 6)).collect::<Vec<_>>().join("·"), 6),
        Op::Neg => (format!("-{}", pretty_prec(&a[0], 7)), 7),
        _ => (t.to_string(), 9),
    };
    if prec < outer {
        format!("({s})")
    } else {
        s
    }
}

fn leaf(t: &Term) -> String {
    match t.op() {
        Op::Var(n) => n.to_string(),
        Op::Int(n) if *t.sort() == Sort::Index => format!("#{}", n + 1),
        Op::Int(n) => n.to_string(),
        Op::EnumConst(k) => match t.sort() {
            Sort::Enum(d) => match &d.values {
                EnumValues::Names(ns) => ns[*k as usize].to_string(),
                EnumValues::Subrange(..) => k.to_string(),
            },
            _ => k.to_string(),
        },
        _ => t.to_string(),
    }
}

/// A cube `∃z̄. φ` in readable form.
pub fn cube(c: &Cube) -> String {
    let vars: Vec<String> = c.vars.iter().map(|v| v.to_string()).collect();
    let body: Vec<String> = c.lits.iter().map(|l| pretty_prec(l, 3)).collect();
    let body = if body.is_empty() { "true".to_string() } else { body.join(" ∧ ") };
    if vars.is_empty() {
        body
    } else {
        format!("∃{}. {body}", vars.join(" "))
    }
}

/// One invariant clause `∀z̄. ¬(cube)` in readable form, its variables
/// pairwise distinct (`∀z1 ≠ z2. …`, `∀ distinct z1 z2 z3. …`).
pub fn clause(c: &Cube) -> String {
    let vars: Vec<String> = c.vars.iter().map(|v| v.to_string()).collect();
    let mut parts: Vec<String> = c.lits.iter().map(|l| pretty_prec(l, 3)).collect();
    if !c.others.is_empty() {
        // what every process the clause does not name satisfies
        let apart = if vars.is_empty() { String::new() } else { format!(" ∉ {{{}}}", vars.join(", ")) };
        let each: Vec<String> = c.others.iter().map(|p| pretty_prec(p, 3)).collect();
        parts.push(format!("(∀o!{apart}. {})", each.join(" ∧ ")));
    }
    let body = if parts.is_empty() { "true".to_string() } else { parts.join(" ∧ ") };
    // the variables are pairwise distinct: say so, a clause read literally
    // over equal processes would say more than the invariant
    match vars.len() {
        0 => format!("¬({body})"),
        1 => format!("∀{}. ¬({body})", vars[0]),
        2 => format!("∀{} ≠ {}. ¬({body})", vars[0], vars[1]),
        _ => format!("∀ distinct {}. ¬({body})", vars.join(" ")),
    }
}

/// A concrete trace, step by step with the state after each step.
pub fn trace(sys: &System, t: &ConcreteTrace) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Counterexample with {} process(es):", t.procs);
    if names_outside(t) {
        let _ = writeln!(out, "  (identifiers from #{} on name no process of the instance)", t.procs + 1);
    }
    let state = |out: &mut String, s: &[Value]| {
        for (v, val) in sys.vars.iter().zip(s) {
            match val {
                Value::Scalar(x) => {
                    let _ = writeln!(out, "      {} = {}", v.name(), leaf(x));
                }
                Value::Array(cells) => {
                    let items: Vec<String> = cells
                        .iter()
                        .map(|(idx, x)| {
                            let i: Vec<String> = idx.iter().map(|p| format!("#{}", p + 1)).collect();
                            format!("{}:{}", i.join(","), leaf(x))
                        })
                        .collect();
                    let _ = writeln!(out, "      {}[] = {}", v.name(), items.join(" "));
                }
            }
        }
    };
    let _ = writeln!(out, "  initial state");
    state(&mut out, &t.states[0]);
    for (k, (ti, params)) in t.steps.iter().enumerate() {
        let ps: Vec<String> = params.iter().map(|p| format!("#{}", p + 1)).collect();
        let _ = writeln!(out, "  step {}: {}({})", k + 1, sys.transitions[*ti].name, ps.join(", "));
        state(&mut out, &t.states[k + 1]);
    }
    let _ = writeln!(out, "  reaches an unsafe state");
    out
}

/// Whether a state of the trace holds an index value that is no process
/// of its instance (see the system's processes and identifiers).
fn names_outside(t: &ConcreteTrace) -> bool {
    let outside = |x: &Term| *x.sort() == Sort::Index && x.as_int().is_some_and(|n| n >= t.procs as i64);
    t.states.iter().flatten().any(|v| match v {
        Value::Scalar(x) => outside(x),
        Value::Array(cells) => cells.iter().any(|(_, x)| outside(x)),
    })
}

/// An integer-coded value of a sort, readable (Booleans, enumeration
/// names, numbers).
pub fn value(v: i64, s: &Sort) -> String {
    match s {
        Sort::Bool => (v != 0).to_string(),
        Sort::Enum(d) => match &d.values {
            EnumValues::Names(ns) => ns.get(v as usize).map(|n| n.to_string()).unwrap_or_else(|| v.to_string()),
            EnumValues::Subrange(..) => v.to_string(),
        },
        _ => v.to_string(),
    }
}

/// Longest cycle (in run-length items) that [`summarise`] looks for.
const MAX_CYCLE: usize = 6;

/// One entry of a summarised execution: a cycle of run-length items
/// (transition, consecutive repetitions) repeated some number of times.
pub type Cycle = (Vec<(usize, u64)>, u64);

/// The steps of an execution with loop iterations summarised: the
/// run-length items (a transition repeated) grouped into cycles of up to a
/// few items that repeat exactly (an outer loop whose inner loop runs the
/// same number of times each time), chosen greedily: at each point the
/// cycle that covers the most steps.
pub fn summarise(steps: &[(usize, u64)]) -> Vec<Cycle> {
    let mut out = vec![];
    let mut p = 0;
    while p < steps.len() {
        let (mut best_len, mut best_reps, mut best_cover) = (1, 1usize, steps[p].1);
        for l in 2..=MAX_CYCLE.min(steps.len() - p) {
            let pat = &steps[p..p + l];
            let mut reps = 1;
            while p + (reps + 1) * l <= steps.len() && steps[p + reps * l..p + (reps + 1) * l] == *pat {
                reps += 1;
            }
            let cover = (reps as u64).saturating_mul(pat.iter().map(|s| s.1).sum::<u64>());
            if reps >= 2 && cover > best_cover {
                (best_len, best_reps, best_cover) = (l, reps, cover);
            }
        }
        out.push((steps[p..p + best_len].to_vec(), best_reps as u64));
        p += best_len * best_reps;
    }
    out
}

/// Summary lines printed at most (the first and the last ones).
const MAX_LINES: usize = 60;

/// A cycle in words: `t × n`, or `(t1, t2 × n, t3) × m`.
fn cycle_text(sys: &System, (items, reps): &Cycle) -> String {
    let item = |&(t, n): &(usize, u64)| {
        let name = &sys.transitions[t].name;
        if n == 1 {
            name.clone()
        } else {
            format!("{name} × {n}")
        }
    };
    match items.as_slice() {
        [one] if *reps == 1 => item(one),
        [(t, n)] => format!("{} × {}", sys.transitions[*t].name, n * reps),
        _ => format!("({}) × {reps}", items.iter().map(item).collect::<Vec<_>>().join(", ")),
    }
}

/// A concrete execution found by forward execution: the initial state,
/// the steps with loop iterations summarised (`l12-l12 × 99999`), the final
/// values of the scalars and of the array cells read at the end.
pub fn execution(sys: &System, ex: &Execution, replayed: Option<&Replayed>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Execution of {} steps{}:", ex.len(), if replayed.is_some() { " (replayed)" } else { "" });
    let scalars: Vec<String> = ex.scalars.iter().map(|(t, v)| format!("{t} = {}", value(*v, t.sort()))).collect();
    let _ = writeln!(out, "  initial state: {}", scalars.join(", "));
    for a in &ex.arrays {
        let sv = &sys.vars[a.var];
        let es = sv.value_sort();
        let shown: Vec<String> = a.cells.iter().take(4).map(|(i, v)| format!("{}[{}] = {}", sv.name(), join(i), value(*v, &es))).collect();
        let more = if a.cells.len() > 4 { ", …" } else { "" };
        let cells = if a.cells.is_empty() { String::new() } else { format!(" except {} chosen cells: {}{more}", a.cells.len(), shown.join(", ")) };
        let _ = writeln!(out, "    {}[] = {}{cells}", sv.name(), value(a.default, &es));
    }
    let lines = summarise(&ex.steps);
    let (mut first, mut cursor) = (1u64, 0usize);
    for (k, c) in lines.iter().enumerate() {
        let (items, reps) = c;
        let len = items.iter().map(|i| i.1).sum::<u64>() * reps;
        let inputs: usize = items.iter().map(|&(t, n)| sys.transitions[t].inputs().len() * n as usize).sum::<usize>() * *reps as usize;
        let shown = lines.len() <= MAX_LINES || k < MAX_LINES * 2 / 3 || k >= lines.len() - MAX_LINES / 4;
        if shown {
            let text = if len == 1 {
                let t = &sys.transitions[items[0].0];
                let vals: Vec<String> = t.inputs().iter().zip(&ex.values[cursor..]).map(|(v, x)| format!("{v} = {}", value(*x, v.sort()))).collect();
                let vals = if vals.is_empty() { String::new() } else { format!(" ({})", vals.join(", ")) };
                format!("  step {first}: {}{vals}", t.name)
            } else {
                format!("  steps {first}–{}: {}", first + len - 1, cycle_text(sys, c))
            };
            let _ = writeln!(out, "{text}");
        } else if k == MAX_LINES * 2 / 3 {
            let _ = writeln!(out, "  … ({} lines omitted)", lines.len() - MAX_LINES * 2 / 3 - MAX_LINES / 4);
        }
        first += len;
        cursor += inputs;
    }
    if let Some(r) = replayed {
        let fin: Vec<String> = r.scalars.iter().map(|(t, v)| format!("{t} = {}", value(*v, t.sort()))).collect();
        let _ = writeln!(out, "  final state: {}", fin.join(", "));
        if !r.reads.is_empty() {
            let cells: Vec<String> =
                r.reads.iter().map(|(a, i, v)| format!("{a}[{}] = {}", join(i), value(*v, a.sort().as_array().map(|s| &s.elem).unwrap_or(a.sort())))).collect();
            let _ = writeln!(out, "    cells read at the end: {}", cells.join(", "));
        }
    }
    let _ = writeln!(out, "  reaches unsafe cube {}: {}", ex.cube + 1, pretty(&sys.unsafe_[ex.cube].body()));
    out
}

/// A value as a JSON literal: Booleans, enumeration names as strings, numbers.
/// Statistics in readable form.
pub fn stats(s: &Stats) -> String {
    format!(
        "nodes {} (expanded {}, covered {}, of which syntactically {}, deleted {}, approximated {}), restarts {}, refinements {}, max processes {}, solver calls {} (safety {}, fixpoint {}, cube sat {}, interpolation {}), time: safety {:.2}s, fixpoint {:.2}s, pre-image {:.2}s",
        s.nodes,
        s.expanded,
        s.covered,
        s.subsumed,
        s.deleted,
        s.approximated,
        s.restarts,
        s.refinements,
        s.max_vars,
        s.solver_calls(),
        s.calls_safety,
        s.calls_fixpoint,
        s.calls_sat,
        s.calls_itp,
        s.t_safety.as_secs_f64(),
        s.t_fixpoint.as_secs_f64(),
        s.t_pre.as_secs_f64()
    ) + &pdr_stats(s)
}

/// IC3/PDR's statistics, when it ran.
fn pdr_stats(s: &Stats) -> String {
    if s.frames == 0 {
        return String::new();
    }
    format!(
        "; IC3/PDR: frames {}, lemmas {}, obligations {}, counterexamples to generalisation {}, solver calls {} ({:.2}s in the solver)",
        s.frames,
        s.lemmas,
        s.obligations,
        s.ctgs,
        s.calls_pdr,
        s.t_solver.as_secs_f64()
    )
}

/// How an answer was checked, in words (`no_certify`: checking was
/// switched off by the user).
pub fn certification_text(c: &Certification, no_certify: bool) -> String {
    match c {
        Certification::Certified(how) => format!("certified: {how}"),
        Certification::Uncertified(why) => format!("uncertified: {why}"),
        Certification::Skipped if no_certify => "not certified (--no-certify)".to_string(),
        Certification::Skipped => "nothing to certify".to_string(),
    }
}

/// The last line of a check: the verdict, with how it stands.
pub fn verdict_line(r: &CheckResult) -> String {
    match (&r.verdict, &r.certification) {
        (Verdict::Safe, Certification::Uncertified(why)) => format!("SAFE (uncertified: {why})"),
        (Verdict::Safe, _) => "SAFE".to_string(),
        (Verdict::Unsafe, Certification::Certified(_)) if r.replayed.is_some() => "UNSAFE (replayed)".to_string(),
        (Verdict::Unsafe, _) => "UNSAFE".to_string(),
        (Verdict::Unknown(why), _) => format!("UNKNOWN ({why})"),
    }
}

/// The whole text answer of a check: notes, the invariant or the
/// counterexample, statistics (with `verbose`, or when there is neither),
/// times, the certification and the verdict line.
pub fn text(sys: &System, r: &CheckResult, verbose: bool, no_certify: bool) -> String {
    text_in_source(sys, None, r, verbose, no_certify)
}

/// [`text`], with the counterexample of a C program in source terms when
/// its source map is given ([`source`]).
pub fn text_in_source(sys: &System, map: Option<&SourceMap>, r: &CheckResult, verbose: bool, no_certify: bool) -> String {
    let mut out = String::new();
    for n in &r.notes {
        let _ = writeln!(out, "note: {n}");
    }
    if let Some(p) = &r.proof {
        let _ = writeln!(out, "Inductive invariant ({} clauses):", p.invariant.len());
        for c in &p.invariant {
            let _ = writeln!(out, "  {}", clause(c));
        }
    }
    if let Some(t) = &r.trace {
        match map.and_then(|m| source::trace(sys, m, t)) {
            Some(text) => out.push_str(&text),
            None => out.push_str(&trace(sys, t)),
        }
    }
    if let Some(ex) = &r.execution {
        match map.and_then(|m| source::execution(sys, m, ex, r.replayed.as_ref())) {
            Some(text) => out.push_str(&text),
            None => out.push_str(&execution(sys, ex, r.replayed.as_ref())),
        }
    }
    if verbose || r.trace.is_none() && r.proof.is_none() && r.execution.is_none() && r.engine != "run" {
        let _ = writeln!(out, "statistics: {}", stats(&r.stats));
    }
    let _ = writeln!(out, "time: {:.3}s (checking the answer: {:.3}s)", r.time.as_secs_f64(), r.certify_time.as_secs_f64());
    let _ = writeln!(out, "{}", certification_text(&r.certification, no_certify));
    let _ = writeln!(out, "{}", verdict_line(r));
    out
}

fn join(xs: &[i64]) -> String {
    xs.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
}
