//! Presenting results: readable formulas, invariants, traces, statistics,
//! and JSON.

use crate::certify::{ConcreteTrace, Value};
use crate::cube::Cube;
use crate::engine::Stats;
use crate::logic::{EnumValues, Op, Sort, Term};
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

/// One invariant clause `∀z̄. ¬(cube)` in readable form.
pub fn clause(c: &Cube) -> String {
    let vars: Vec<String> = c.vars.iter().map(|v| v.to_string()).collect();
    let body = if c.lits.is_empty() {
        "true".to_string()
    } else {
        c.lits.iter().map(|l| pretty_prec(l, 3)).collect::<Vec<_>>().join(" ∧ ")
    };
    if vars.is_empty() {
        format!("¬({body})")
    } else {
        format!("∀{}. ¬({body})", vars.join(" "))
    }
}

/// The invariant as an SMT-LIB script defining `invariant` over the state variables.
pub fn invariant_smtlib(sys: &System, inv: &[Cube]) -> String {
    let mut out = String::from("; inductive invariant found by arrax: the conjunction of the negated cubes\n");
    for v in &sys.vars {
        let _ = writeln!(out, "(declare-const {} {})", v.term, smt_sort(v.term.sort()));
    }
    for c in &sys.consts {
        let _ = writeln!(out, "(declare-const {} {})", c, smt_sort(c.sort()));
    }
    let _ = writeln!(out, "(define-fun invariant () Bool (and");
    for c in inv {
        let body = Term::implies(&Term::distinct(&c.vars), &c.body().not());
        let f = Term::forall(&c.vars, &body);
        let _ = writeln!(out, "  {}", f.to_string().replace(" proc)", " Int)"));
    }
    out.push_str("  true))\n");
    out
}

fn smt_sort(s: &Sort) -> String {
    match s {
        Sort::Index | Sort::Enum(_) => "Int".into(),
        Sort::Array(a) => {
            let mut t = smt_sort(&a.elem);
            for i in a.index.iter().rev() {
                t = format!("(Array {} {})", smt_sort(i), t);
            }
            t
        }
        other => other.to_string(),
    }
}

/// A concrete trace, step by step with the state after each step.
pub fn trace(sys: &System, t: &ConcreteTrace) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Counterexample with {} process(es):", t.procs);
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
    )
}

/// A JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The statistics as a JSON object (names paired with their values, so
/// the two cannot drift apart).
pub fn stats_json(s: &Stats) -> String {
    let fields: [(&str, String); 18] = [
        ("nodes", s.nodes.to_string()),
        ("approximated", s.approximated.to_string()),
        ("restarts", s.restarts.to_string()),
        ("refinements", s.refinements.to_string()),
        ("expanded", s.expanded.to_string()),
        ("covered", s.covered.to_string()),
        ("subsumed", s.subsumed.to_string()),
        ("deleted", s.deleted.to_string()),
        ("max_procs", s.max_vars.to_string()),
        ("solver_calls", s.solver_calls().to_string()),
        ("calls_safety", s.calls_safety.to_string()),
        ("calls_fixpoint", s.calls_fixpoint.to_string()),
        ("calls_sat", s.calls_sat.to_string()),
        ("calls_interpolation", s.calls_itp.to_string()),
        ("spurious", s.spurious.to_string()),
        ("time_safety", format!("{:.4}", s.t_safety.as_secs_f64())),
        ("time_fixpoint", format!("{:.4}", s.t_fixpoint.as_secs_f64())),
        ("time_pre", format!("{:.4}", s.t_pre.as_secs_f64())),
    ];
    let body: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
    format!("{{{}}}", body.join(","))
}
