//! Expressions, by precedence climbing, and the values of integer
//! constant expressions.

use super::Parser;
use crate::frontend::c::ast::*;
use crate::frontend::c::lex::Tok;
use crate::frontend::Diagnostic;
use crate::HashMap;

impl Parser<'_> {
    pub(super) fn expr(&mut self) -> Result<Expr, Diagnostic> {
        let mut e = self.assignment()?;
        while self.is(",") {
            let pos = self.pos();
            self.bump();
            let r = self.assignment()?;
            e = Expr { kind: ExprKind::Comma(Box::new(e), Box::new(r)), pos };
        }
        Ok(e)
    }

    pub(super) fn assignment(&mut self) -> Result<Expr, Diagnostic> {
        self.deeper()?;
        let l = self.conditional()?;
        let op = match self.peek() {
            Tok::Punct("=") => Some(None),
            Tok::Punct("+=") => Some(Some(BinOp::Add)),
            Tok::Punct("-=") => Some(Some(BinOp::Sub)),
            Tok::Punct("*=") => Some(Some(BinOp::Mul)),
            Tok::Punct("/=") => Some(Some(BinOp::Div)),
            Tok::Punct("%=") => Some(Some(BinOp::Mod)),
            Tok::Punct("<<=") => Some(Some(BinOp::Shl)),
            Tok::Punct(">>=") => Some(Some(BinOp::Shr)),
            Tok::Punct("&=") => Some(Some(BinOp::BitAnd)),
            Tok::Punct("^=") => Some(Some(BinOp::BitXor)),
            Tok::Punct("|=") => Some(Some(BinOp::BitOr)),
            _ => None,
        };
        let r = if let Some(op) = op {
            let pos = self.pos();
            self.bump();
            let r = self.assignment()?;
            Expr { kind: ExprKind::Assign(op, Box::new(l), Box::new(r)), pos }
        } else {
            l
        };
        self.depth -= 1;
        Ok(r)
    }

    pub(super) fn conditional(&mut self) -> Result<Expr, Diagnostic> {
        let c = self.binary(1)?;
        if self.is("?") {
            let pos = self.pos();
            self.bump();
            let t = self.expr()?;
            self.expect(":")?;
            let e = self.conditional()?;
            return Ok(Expr { kind: ExprKind::Cond(Box::new(c), Box::new(t), Box::new(e)), pos });
        }
        Ok(c)
    }

    fn binop(&self) -> Option<(BinOp, u8)> {
        let Tok::Punct(p) = self.peek() else { return None };
        Some(match *p {
            "||" => (BinOp::Or, 1),
            "&&" => (BinOp::And, 2),
            "|" => (BinOp::BitOr, 3),
            "^" => (BinOp::BitXor, 4),
            "&" => (BinOp::BitAnd, 5),
            "==" => (BinOp::Eq, 6),
            "!=" => (BinOp::Ne, 6),
            "<" => (BinOp::Lt, 7),
            ">" => (BinOp::Gt, 7),
            "<=" => (BinOp::Le, 7),
            ">=" => (BinOp::Ge, 7),
            "<<" => (BinOp::Shl, 8),
            ">>" => (BinOp::Shr, 8),
            "+" => (BinOp::Add, 9),
            "-" => (BinOp::Sub, 9),
            "*" => (BinOp::Mul, 10),
            "/" => (BinOp::Div, 10),
            "%" => (BinOp::Mod, 10),
            _ => return None,
        })
    }

    /// Binary operators of precedence at least `min` (precedence climbing).
    fn binary(&mut self, min: u8) -> Result<Expr, Diagnostic> {
        let mut l = self.unary()?;
        while let Some((op, prec)) = self.binop() {
            if prec < min {
                break;
            }
            let pos = self.pos();
            self.bump();
            let r = self.binary(prec + 1)?;
            l = Expr { kind: ExprKind::Binary(op, Box::new(l), Box::new(r)), pos };
        }
        Ok(l)
    }

    fn unary(&mut self) -> Result<Expr, Diagnostic> {
        self.nested(Self::unary_inner)
    }

    fn unary_inner(&mut self) -> Result<Expr, Diagnostic> {
        let pos = self.pos();
        let mk = |kind| Ok(Expr { kind, pos });
        if self.eat_word("__extension__") {
            return self.unary();
        }
        let un = match self.peek() {
            Tok::Punct("-") => Some(UnOp::Neg),
            Tok::Punct("+") => Some(UnOp::Plus),
            Tok::Punct("!") => Some(UnOp::Not),
            Tok::Punct("~") => Some(UnOp::BitNot),
            Tok::Punct("*") => Some(UnOp::Deref),
            Tok::Punct("&") => Some(UnOp::AddrOf),
            _ => None,
        };
        if let Some(op) = un {
            self.bump();
            let a = self.unary()?;
            return mk(ExprKind::Unary(op, Box::new(a)));
        }
        if self.is("++") || self.is("--") {
            let inc = self.is("++");
            self.bump();
            let a = self.unary()?;
            return mk(ExprKind::IncDec { pre: true, inc, arg: Box::new(a) });
        }
        if self.eat_word("sizeof") {
            if self.is("(") && self.starts_type(1) {
                self.bump();
                let t = self.type_name()?;
                self.expect(")")?;
                return mk(ExprKind::SizeofType(t));
            }
            let a = self.unary()?;
            return mk(ExprKind::SizeofExpr(Box::new(a)));
        }
        if self.is("(") && self.starts_declaration(1) {
            self.bump();
            let t = self.type_name()?;
            self.expect(")")?;
            if self.is("{") {
                return Err(self.err_at(pos, "unsupported: compound literals"));
            }
            let a = self.unary()?;
            return mk(ExprKind::Cast(t, Box::new(a)));
        }
        self.postfix()
    }

    fn postfix(&mut self) -> Result<Expr, Diagnostic> {
        let mut e = self.primary()?;
        loop {
            let pos = e.pos;
            let kind = if self.eat("[") {
                let i = self.expr()?;
                self.expect("]")?;
                ExprKind::Index(Box::new(e), Box::new(i))
            } else if self.eat("(") {
                let mut args = vec![];
                if !self.is(")") {
                    loop {
                        args.push(self.assignment()?);
                        if !self.eat(",") {
                            break;
                        }
                    }
                }
                self.expect(")")?;
                ExprKind::Call(Box::new(e), args)
            } else if self.is(".") || self.is("->") {
                let arrow = self.is("->");
                self.bump();
                let (f, _) = self.ident()?;
                ExprKind::Member(Box::new(e), f, arrow)
            } else if self.is("++") || self.is("--") {
                let inc = self.is("++");
                self.bump();
                ExprKind::IncDec { pre: false, inc, arg: Box::new(e) }
            } else {
                return Ok(e);
            };
            e = Expr { kind, pos };
        }
    }

    fn primary(&mut self) -> Result<Expr, Diagnostic> {
        let pos = self.pos();
        let mk = |kind| Ok(Expr { kind, pos });
        match self.peek().clone() {
            Tok::Ident(n) => {
                if let Some(v) = self.enumerators.get(&n) {
                    let v = *v as i128;
                    self.bump();
                    return mk(ExprKind::Int(v, IntTy::INT));
                }
                self.bump();
                mk(ExprKind::Ident(n))
            }
            Tok::Int(v, t) => {
                self.bump();
                mk(ExprKind::Int(v, t))
            }
            Tok::Char(v) => {
                self.bump();
                mk(ExprKind::Int(v as i128, IntTy::INT))
            }
            Tok::Float => {
                self.bump();
                mk(ExprKind::Float)
            }
            Tok::Str(mut s) => {
                self.bump();
                while let Tok::Str(more) = self.peek().clone() {
                    self.bump();
                    s.extend(more);
                }
                mk(ExprKind::Str(s))
            }
            Tok::Punct("(") => {
                self.bump();
                if self.is("{") {
                    let body = self.block()?;
                    self.expect(")")?;
                    return mk(ExprKind::StmtExpr(body));
                }
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            _ => Err(self.expected("an expression")),
        }
    }
}

/// The value of an integer constant expression over enumeration constants
/// (`None` when it is not one, or on overflow).
pub(super) fn eval_const(e: &Expr, enumerators: &HashMap<String, i64>) -> Option<i128> {
    let ev = |x: &Expr| eval_const(x, enumerators);
    Some(match &e.kind {
        ExprKind::Int(v, _) => *v,
        ExprKind::Ident(n) => *enumerators.get(n)? as i128,
        ExprKind::Unary(UnOp::Neg, a) => -ev(a)?,
        ExprKind::Unary(UnOp::Plus, a) | ExprKind::Cast(_, a) => ev(a)?,
        ExprKind::Unary(UnOp::Not, a) => (ev(a)? == 0) as i128,
        ExprKind::Unary(UnOp::BitNot, a) => !ev(a)?,
        ExprKind::Cond(c, a, b) => {
            if ev(c)? != 0 {
                ev(a)?
            } else {
                ev(b)?
            }
        }
        ExprKind::Binary(op, a, b) => {
            let (x, y) = (ev(a)?, ev(b)?);
            match op {
                BinOp::Add => x.checked_add(y)?,
                BinOp::Sub => x.checked_sub(y)?,
                BinOp::Mul => x.checked_mul(y)?,
                BinOp::Div => x.checked_div(y)?,
                BinOp::Mod => x.checked_rem(y)?,
                BinOp::Shl => x.checked_shl(u32::try_from(y).ok()?)?,
                BinOp::Shr => x.checked_shr(u32::try_from(y).ok()?)?,
                BinOp::BitAnd => x & y,
                BinOp::BitOr => x | y,
                BinOp::BitXor => x ^ y,
                BinOp::Lt => (x < y) as i128,
                BinOp::Gt => (x > y) as i128,
                BinOp::Le => (x <= y) as i128,
                BinOp::Ge => (x >= y) as i128,
                BinOp::Eq => (x == y) as i128,
                BinOp::Ne => (x != y) as i128,
                BinOp::And => (x != 0 && y != 0) as i128,
                BinOp::Or => (x != 0 || y != 0) as i128,
            }
        }
        _ => return None,
    })
}
