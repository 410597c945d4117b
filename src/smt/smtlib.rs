//! SMT-LIB scripts as the solvers see our formulas: process indices and
//! enumerations are integers (an enumeration's values numbered from 0, or
//! its subrange), with the same range facts the backends assert (every
//! enumeration-sorted constant and read, and under a quantifier the ranges
//! of its variables and of the reads that depend on them as guards);
//! uninterpreted sorts are declared, every free symbol is declared. Every
//! file arrax writes for another solver to read (proof obligations, the
//! invariant, exported systems) goes through this one writer, so that what
//! a reader checks is what arrax's own solvers were asked.

use super::{enum_terms, guarded_body, range_fact};
use crate::logic::print::op_name;
use crate::logic::{BitKind, Op, Sort, Term};
use std::fmt::Write as _;

/// SMT-LIB's reserved words and command names, which a symbol can only be
/// written as quoted (`|exit|`).
const RESERVED: &[&str] = &[
    "!",
    "_",
    "as",
    "BINARY",
    "DECIMAL",
    "exists",
    "HEXADECIMAL",
    "forall",
    "lambda",
    "let",
    "match",
    "NUMERAL",
    "par",
    "STRING",
    "assert",
    "check-sat",
    "check-sat-assuming",
    "declare-const",
    "declare-datatype",
    "declare-datatypes",
    "declare-fun",
    "declare-sort",
    "define-fun",
    "define-fun-rec",
    "define-funs-rec",
    "define-sort",
    "echo",
    "exit",
    "get-assertions",
    "get-assignment",
    "get-info",
    "get-model",
    "get-option",
    "get-proof",
    "get-unsat-assumptions",
    "get-unsat-core",
    "get-value",
    "pop",
    "push",
    "reset",
    "reset-assertions",
    "set-info",
    "set-logic",
    "set-option",
];

/// A symbol as a script for another solver needs it: bare when it is a
/// simple symbol and not reserved, else `|quoted|`.
pub fn symbol(name: &str) -> String {
    if RESERVED.contains(&name) {
        format!("|{name}|")
    } else {
        crate::logic::print::symbol(name)
    }
}

/// The SMT-LIB sort a sort is encoded as.
pub fn sort(s: &Sort) -> String {
    match s {
        Sort::Index | Sort::Enum(_) | Sort::Int => "Int".into(),
        Sort::Array(a) => {
            let mut t = sort(&a.elem);
            for i in a.index.iter().rev() {
                t = format!("(Array {} {})", sort(i), t);
            }
            t
        }
        Sort::Uninterpreted(n) => symbol(n),
        other => other.to_string(),
    }
}

/// The sorts of an array of several indices as the solvers curry it: the
/// whole array, then the array of each later level.
fn curried(s: &Sort) -> Vec<String> {
    match s {
        Sort::Array(a) => (0..a.index.len()).map(|k| sort(&Sort::array(a.index[k..].to_vec(), a.elem.clone()))).collect(),
        other => vec![sort(other)],
    }
}

/// `a[i0][i1]… := v` on a curried array: a store at `i0` of the inner
/// array with the rest stored.
fn curried_store(a: &str, indices: &[String], v: &str) -> String {
    match indices {
        [] => v.to_string(),
        [i, rest @ ..] => format!("(store {a} {i} {})", curried_store(&format!("(select {a} {i})"), rest, v)),
    }
}

fn int(n: i64) -> String {
    if n < 0 {
        format!("(- {})", n.unsigned_abs())
    } else {
        n.to_string()
    }
}

/// A term in the solvers' encoding (enumeration constants as integers,
/// index-sorted binders as `Int`, an array `λj̄. v` whose body does not
/// depend on `j̄` as the constant array `((as const S) v)`, arrays of
/// several indices curried, C's bitwise operators exactly over
/// bit-vectors: `band.s32(x, y)` as `(sbv_to_int (bvand ((_ int_to_bv 32)
/// x) ((_ int_to_bv 32) y)))`, SMT-LIB 2.7's conversions).
pub fn term(t: &Term) -> String {
    let mut out = String::new();
    write_term(&mut out, t);
    out
}

fn write_term(out: &mut String, t: &Term) {
    match t.op() {
        Op::EnumConst(k) => out.push_str(&int(*k)),
        Op::Int(n) => out.push_str(&int(*n)),
        Op::Var(n) => out.push_str(&symbol(n)),
        Op::Bool(_) | Op::Real(..) => {
            let _ = write!(out, "{t}");
        }
        Op::Lambda(vs) if vs.iter().all(|v| !crate::logic::occurs(v, &t.args()[0])) => {
            // a constant array (of arrays, one level per index)
            let levels = curried(t.sort());
            for s in &levels {
                let _ = write!(out, "((as const {s}) ");
            }
            write_term(out, &t.args()[0]);
            out.push_str(&")".repeat(levels.len()));
        }
        Op::Lambda(vs) if row_of(vs, &t.args()[0]).is_some() => {
            // a row `λj̄. a[ī, j̄]` of a curried array: `(select a ī)`
            let (a, idx) = row_of(vs, &t.args()[0]).expect("a row");
            let mut text = term(a);
            for i in idx {
                text = format!("(select {text} {})", term(i));
            }
            out.push_str(&text);
        }
        Op::Lambda(vs) if vs.len() > 1 => {
            // arrays of several indices are curried: one λ per index
            for v in vs.iter() {
                let _ = write!(out, "(lambda (({} {})) ", term(v), sort(v.sort()));
            }
            write_term(out, &t.args()[0]);
            out.push_str(&")".repeat(vs.len()));
        }
        Op::Select if t.args().len() > 2 => {
            let mut a = term(&t.args()[0]);
            for i in &t.args()[1..] {
                a = format!("(select {a} {})", term(i));
            }
            out.push_str(&a);
        }
        Op::Store if t.args().len() > 3 => {
            let args = t.args();
            let indices: Vec<String> = args[1..args.len() - 1].iter().map(term).collect();
            out.push_str(&curried_store(&term(&args[0]), &indices, &term(&args[args.len() - 1])));
        }
        Op::Bits(b) => {
            // exact: each argument modulo 2^width as a word, the word read back
            let op = match b.kind {
                BitKind::And => "bvand",
                BitKind::Or => "bvor",
                BitKind::Xor => "bvxor",
            };
            let _ = write!(out, "({} ({op}", if b.signed { "sbv_to_int" } else { "ubv_to_int" });
            for a in t.args() {
                let _ = write!(out, " ((_ int_to_bv {}) ", b.width);
                write_term(out, a);
                out.push(')');
            }
            out.push_str("))");
        }
        Op::Forall(vs) | Op::Exists(vs) | Op::Lambda(vs) => {
            let kw = match t.op() {
                Op::Forall(_) => "forall",
                Op::Exists(_) => "exists",
                _ => "lambda",
            };
            let bound: Vec<String> = vs.iter().map(|v| format!("({} {})", term(v), sort(v.sort()))).collect();
            let _ = write!(out, "({kw} ({}) ", bound.join(" "));
            match t.op() {
                Op::Lambda(_) => write_term(out, &t.args()[0]),
                _ => write_term(out, &guarded_body(vs, &t.args()[0], kw == "forall")),
            }
            out.push(')');
        }
        op => {
            let _ = write!(out, "({}", op_name(op, t.sort()));
            for a in t.args() {
                out.push(' ');
                write_term(out, a);
            }
            out.push(')');
        }
    }
}

/// The array and leading indices of a row `λj̄. a[ī, j̄]` (`ī` not empty,
/// `j̄` not occurring in `a` or `ī`).
fn row_of<'t>(vs: &[Term], body: &'t Term) -> Option<(&'t Term, &'t [Term])> {
    let args = body.args();
    if !matches!(body.op(), Op::Select) || args.len() < vs.len() + 2 || args[args.len() - vs.len()..] != *vs {
        return None;
    }
    let (a, idx) = (&args[0], &args[1..args.len() - vs.len()]);
    let free = |t: &Term| !vs.iter().any(|v| crate::logic::occurs(v, t));
    (free(a) && idx.iter().all(free)).then_some((a, idx))
}

fn uninterpreted(s: &Sort, out: &mut Vec<String>) {
    match s {
        Sort::Uninterpreted(n) if !out.contains(&n.to_string()) => out.push(n.to_string()),
        Sort::Array(a) => {
            for i in &a.index {
                uninterpreted(i, out);
            }
            uninterpreted(&a.elem, out);
        }
        _ => {}
    }
}

/// Declarations of the given constants: their uninterpreted sorts, each
/// constant, and the range of each constant of a finite sort.
pub fn declarations(consts: &[Term]) -> String {
    let mut out = String::new();
    let mut sorts = vec![];
    for c in consts {
        uninterpreted(c.sort(), &mut sorts);
    }
    for s in sorts {
        let _ = writeln!(out, "(declare-sort {} 0)", symbol(&s));
    }
    for c in consts {
        let _ = writeln!(out, "(declare-const {} {})", term(c), sort(c.sort()));
    }
    for c in consts {
        if let Some((lo, hi)) = c.sort().finite_range() {
            let c = term(c);
            let _ = writeln!(out, "(assert (and (<= {} {c}) (<= {c} {})))", int(lo), int(hi));
        }
    }
    out
}

/// A self-contained script asserting `f` over its free symbols, then
/// `(check-sat)`; `comment` heads it.
pub fn check_script(comment: &str, f: &Term) -> String {
    let mut out = String::new();
    for line in comment.lines() {
        let _ = writeln!(out, "; {line}");
    }
    out.push_str("(set-logic ALL)\n");
    out.push_str(&declarations(&crate::logic::free_vars(f)));
    for fact in enum_terms(f).iter().filter(|e| matches!(e.op(), Op::Select)).filter_map(range_fact) {
        let _ = writeln!(out, "(assert {})", term(&fact));
    }
    let _ = writeln!(out, "(assert {})\n(check-sat)", term(f));
    out
}
