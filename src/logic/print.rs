//! Printing terms and sorts in SMT-LIB syntax.

use super::sort::{EnumValues, Sort};
use super::term::{Op, Term};
use std::fmt;

/// A symbol as SMT-LIB writes it: bare when it is a simple symbol, else `|quoted|`.
pub fn symbol(name: &str) -> String {
    let simple = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "~!@$%^&*_-+=<>.?/'".contains(c));
    if simple {
        name.to_string()
    } else {
        format!("|{name}|")
    }
}

/// The SMT-LIB name of a non-leaf, non-binder operator (`div` or `/` for
/// division depending on the result sort; C's bitwise operators, which
/// SMT-LIB's integers lack, as `band.s32` and the like).
pub fn op_name(op: &Op, sort: &Sort) -> std::borrow::Cow<'static, str> {
    if let Op::Bits(b) = op {
        return b.name().into();
    }
    match op {
        Op::Not => "not",
        Op::And => "and",
        Op::Or => "or",
        Op::Ite => "ite",
        Op::Eq => "=",
        Op::Lt => "<",
        Op::Le => "<=",
        Op::Add => "+",
        Op::Neg => "-",
        Op::Mul => "*",
        Op::Div if *sort == Sort::Real => "/",
        Op::Div => "div",
        Op::Mod => "mod",
        Op::Select => "select",
        Op::Store => "store",
        _ => unreachable!("leaf or binder"),
    }
    .into()
}

fn write_int(f: &mut fmt::Formatter<'_>, n: i64) -> fmt::Result {
    if n < 0 {
        write!(f, "(- {})", n.unsigned_abs())
    } else {
        write!(f, "{n}")
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.op() {
            Op::Var(n) => write!(f, "{}", symbol(n)),
            Op::Bool(b) => write!(f, "{b}"),
            Op::Int(n) => write_int(f, *n),
            Op::Real(n, d) => {
                let num = if *n < 0 { format!("(- {}.0)", n.unsigned_abs()) } else { format!("{n}.0") };
                if *d == 1 {
                    write!(f, "{num}")
                } else {
                    write!(f, "(/ {num} {d}.0)")
                }
            }
            Op::EnumConst(k) => match self.sort() {
                Sort::Enum(d) => match &d.values {
                    EnumValues::Names(ns) => write!(f, "{}", symbol(&ns[*k as usize])),
                    EnumValues::Subrange(..) => write_int(f, *k),
                },
                _ => write_int(f, *k),
            },
            Op::Forall(vs) | Op::Exists(vs) | Op::Lambda(vs) => {
                let kw = match self.op() {
                    Op::Forall(_) => "forall",
                    Op::Exists(_) => "exists",
                    _ => "lambda",
                };
                write!(f, "({kw} (")?;
                for (i, v) in vs.iter().enumerate() {
                    if i > 0 {
                        write!(f, " ")?;
                    }
                    write!(f, "({} {})", v, v.sort())?;
                }
                write!(f, ") {})", self.args()[0])
            }
            op => {
                write!(f, "({}", op_name(op, self.sort()))?;
                for a in self.args() {
                    write!(f, " {a}")?;
                }
                write!(f, ")")
            }
        }
    }
}

thread_local! {
    /// The printed forms computed so far, by term id.
    static TEXTS: std::cell::RefCell<Vec<Option<std::rc::Rc<str>>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The printed form of a term, computed once per term (terms are interned
/// for the whole run, so the memo lives as long as they do). For orders
/// that must not depend on the run, which compare the same literals again
/// and again.
pub fn text(t: &Term) -> std::rc::Rc<str> {
    let id = t.id() as usize;
    if let Some(s) = TEXTS.with(|m| m.borrow().get(id).cloned().flatten()) {
        return s;
    }
    let s: std::rc::Rc<str> = t.to_string().into();
    TEXTS.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() <= id {
            m.resize(id + 1, None);
        }
        m[id] = Some(s.clone());
    });
    s
}
