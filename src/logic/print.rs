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
