//! Values of the control-flow automaton: C's integer types and their
//! conversions, and expressions resolved into [`LExpr`]s (places, array
//! elements, arithmetic, calls lifted out by the statement builder).

use super::*;
use crate::logic::{BitKind, Bits};

impl<'a> Builder<'a> {
    // ----- types -----

    pub(super) fn bits(&self, t: IntTy) -> u32 {
        match t.kind {
            IntKind::Bool => 1,
            IntKind::Char => 8,
            IntKind::Short => 16,
            IntKind::Int => 32,
            IntKind::Long => match self.model {
                DataModel::Ilp32 => 32,
                DataModel::Lp64 => 64,
            },
            IntKind::LongLong => 64,
        }
    }
    pub(super) fn range(&self, t: IntTy, pos: Pos) -> R<(i64, i64)> {
        let b = self.bits(t);
        Ok(match (t.kind, t.signed) {
            (IntKind::Bool, _) => (0, 1),
            (_, true) => (-(1i128 << (b - 1)) as i64, ((1i128 << (b - 1)) - 1) as i64),
            (_, false) if b < 64 => (0, (1i64 << b) - 1),
            _ => return Err(self.unsupported(pos, "64-bit unsigned integers")),
        })
    }
    pub(super) fn promote(&self, t: IntTy) -> IntTy {
        if self.bits(t) < 32 {
            IntTy::INT
        } else {
            t
        }
    }
    /// The usual arithmetic conversions.
    pub(super) fn common(&self, a: IntTy, b: IntTy) -> IntTy {
        let (a, b) = (self.promote(a), self.promote(b));
        let (ba, bb) = (self.bits(a), self.bits(b));
        if ba > bb {
            a
        } else if bb > ba {
            b
        } else {
            let kind = if (a.kind as u8) >= (b.kind as u8) { a.kind } else { b.kind };
            IntTy { kind, signed: a.signed && b.signed }
        }
    }
    /// Converts a value of type `from` to type `to`: unsigned targets wrap
    /// modulo 2^w, `_Bool` becomes 0/1, a signed target that cannot hold
    /// every value of `from` wraps into its range (two's complement, as
    /// gcc does); otherwise the value is kept.
    pub(super) fn convert(&self, e: LExpr, from: IntTy, to: IntTy, pos: Pos) -> R<LExpr> {
        if to.kind == IntKind::Bool {
            return Ok(if from.kind == IntKind::Bool { e } else { fold(LExpr::ToBool(Box::new(e))) });
        }
        let (bf, bt) = (self.bits(from), self.bits(to));
        if to.signed && (bf > bt || (!from.signed && bf >= bt)) {
            if bt >= 64 {
                return Err(self.unsupported(pos, "64-bit unsigned arithmetic"));
            }
            let half = LExpr::Const(1i64 << (bt - 1));
            let shifted = fold(LExpr::Arith(Arith::Add, Box::new(e), Box::new(half.clone())));
            let wrapped = fold(LExpr::Wrap(bt, Box::new(shifted)));
            return Ok(fold(LExpr::Arith(Arith::Sub, Box::new(wrapped), Box::new(half))));
        }
        if !to.signed && (from.signed || self.bits(from) > self.bits(to)) {
            let b = self.bits(to);
            if b >= 64 {
                return Err(self.unsupported(pos, "64-bit unsigned arithmetic"));
            }
            return Ok(fold(LExpr::Wrap(b, Box::new(e))));
        }
        Ok(e)
    }
    pub(super) fn int_type(&self, t: &Type, pos: Pos) -> R<IntTy> {
        match t {
            Type::Int(i) => Ok(*i),
            Type::Void => Err(self.err(pos, "a void value is used")),
            Type::Unsupported(what) => Err(self.unsupported(pos, what)),
            Type::Pointer(_) => Err(self.unsupported(pos, "pointers")),
            Type::Array(..) => Err(self.unsupported(pos, "arrays used as values")),
            Type::Function(..) => Err(self.unsupported(pos, "function pointers")),
        }
    }
    /// The size in bytes of a type, when it is constant.
    pub(super) fn int_size(&self, t: IntTy) -> i64 {
        match self.bits(t) {
            1 | 8 => 1,
            b => b as i64 / 8,
        }
    }
    pub(super) fn size_of(&mut self, t: &'a Type, pos: Pos) -> R<i64> {
        match t {
            Type::Int(i) => Ok(self.int_size(*i)),
            Type::Pointer(_) => Ok(match self.model {
                DataModel::Ilp32 => 4,
                DataModel::Lp64 => 8,
            }),
            Type::Array(elem, Some(n)) => {
                let n = self.const_int(n)?;
                Ok(n * self.size_of(elem, pos)?)
            }
            Type::Array(_, None) => Err(self.unsupported(pos, "sizeof of an array of unknown size")),
            Type::Void => Ok(1),
            Type::Unsupported(what) => Err(self.unsupported(pos, format!("sizeof of {what}"))),
            Type::Function(..) => Err(self.unsupported(pos, "sizeof of a function")),
        }
    }
    pub(super) fn size_t(&self) -> IntTy {
        match self.model {
            DataModel::Ilp32 => IntTy::UINT,
            DataModel::Lp64 => IntTy { kind: IntKind::Long, signed: false },
        }
    }

    // ----- values -----

    /// An assignable place and its type.
    pub(super) fn lvalue(&mut self, e: &'a Expr) -> R<(LValue, IntTy)> {
        match &e.kind {
            ExprKind::Ident(n) => match self.lookup(n).cloned() {
                Some(Binding::Scalar(v, t)) => Ok((LValue::Scalar(v), t)),
                Some(Binding::Array(_)) => Err(self.unsupported(e.pos, "assigning a whole array")),
                Some(Binding::Unsupported(what)) => Err(self.unsupported(e.pos, what)),
                None => Err(self.err(e.pos, format!("undeclared identifier '{n}'"))),
            },
            ExprKind::Index(..) => {
                let (arr, idx) = self.element(e)?;
                Ok((LValue::Elem(arr.var, idx), arr.elem))
            }
            ExprKind::Unary(UnOp::Deref, _) => Err(self.unsupported(e.pos, "pointer dereference")),
            ExprKind::Member(..) => Err(self.unsupported(e.pos, "struct members")),
            _ => Err(self.err(e.pos, "this expression cannot be assigned to")),
        }
    }

    /// An array element `a[i]` (or `a[i][j]`): the array and the index values.
    pub(super) fn element(&mut self, e: &'a Expr) -> R<(ArrayInfo, Vec<LExpr>)> {
        let mut idx = vec![];
        let mut base = e;
        while let ExprKind::Index(a, i) = &base.kind {
            idx.push(i);
            base = a;
        }
        idx.reverse();
        let info = match &base.kind {
            ExprKind::Ident(n) => match self.lookup(n).cloned() {
                Some(Binding::Array(info)) => info,
                Some(Binding::Scalar(..)) => return Err(self.err(base.pos, format!("'{n}' is not an array"))),
                Some(Binding::Unsupported(what)) => return Err(self.unsupported(base.pos, what)),
                None => return Err(self.err(base.pos, format!("undeclared identifier '{n}'"))),
            },
            _ => return Err(self.unsupported(base.pos, "indexing something other than an array name")),
        };
        if idx.len() != info.dims.len() {
            return Err(self.unsupported(e.pos, "a partially indexed array (a row) used as a value"));
        }
        let mut out = vec![];
        for i in idx {
            out.push(self.rvalue(i)?.0);
        }
        Ok((info, out))
    }

    pub(super) fn arith(&self, op: BinOp, l: LExpr, lt: IntTy, r: LExpr, rt: IntTy, pos: Pos) -> R<(LExpr, IntTy)> {
        let bx = Box::new;
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            let t = self.promote(lt);
            let l = self.convert(l, lt, t, pos)?;
            let factor = match as_const(&r) {
                Some(k) if (0..63).contains(&k) => LExpr::Const(1 << k),
                Some(k) => return Err(self.unsupported(pos, format!("a shift by {k} bits"))),
                None => LExpr::Pow2(self.bits(t), bx(r)),
            };
            let e = if op == BinOp::Shl {
                LExpr::Arith(Arith::Mul, bx(l), bx(factor))
            } else {
                LExpr::Arith(Arith::FloorDiv, bx(l), bx(factor))
            };
            let e = if t.signed { fold(e) } else { self.convert(fold(e), IntTy { kind: IntKind::LongLong, signed: true }, t, pos)? };
            return Ok((e, t));
        }
        let t = self.common(lt, rt);
        let l = self.convert(l, lt, t, pos)?;
        let r = self.convert(r, rt, t, pos)?;
        let (lc, rc) = (as_const(&l), as_const(&r));
        let a = match op {
            BinOp::Add => Arith::Add,
            BinOp::Sub => Arith::Sub,
            BinOp::Mul => Arith::Mul,
            BinOp::Div | BinOp::Mod => {
                match rc {
                    Some(0) => return Err(self.err(pos, "division by zero")),
                    Some(c) if c < 0 && !t.signed => unreachable!("an unsigned constant is not negative: {c}"),
                    _ => {}
                }
                match (op, t.signed) {
                    (BinOp::Div, true) => Arith::Div,
                    (BinOp::Div, false) => Arith::FloorDiv,
                    (_, true) => Arith::Rem,
                    (_, false) => Arith::EuclidRem,
                }
            }
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                let kind = match op {
                    BinOp::BitAnd => BitKind::And,
                    BinOp::BitOr => BitKind::Or,
                    _ => BitKind::Xor,
                };
                let b = Bits { kind, width: self.bits(t) as u8, signed: t.signed };
                return Ok((fold(LExpr::Bits(b, bx(l), bx(r))), t));
            }
            _ => unreachable!("not an arithmetic operator"),
        };
        let e = fold(LExpr::Arith(a, bx(l), bx(r)));
        if lc.is_some() && rc.is_some() && as_const(&e).is_none() {
            return Err(self.unsupported(pos, "a constant expression outside (-2^63, 2^63)"));
        }
        let e = if t.signed || matches!(a, Arith::FloorDiv | Arith::EuclidRem) {
            e
        } else {
            self.convert(e, IntTy { kind: IntKind::LongLong, signed: true }, t, pos)?
        };
        Ok((e, t))
    }

    /// A value and its C type.
    pub(super) fn rvalue(&mut self, e: &'a Expr) -> R<(LExpr, IntTy)> {
        let bx = Box::new;
        let int = IntTy::INT;
        Ok(match &e.kind {
            ExprKind::Int(v, t) => {
                let v = i64::try_from(*v).map_err(|_| self.unsupported(e.pos, "integer constants beyond 64 bits"))?;
                (LExpr::Const(v), *t)
            }
            ExprKind::Float => return Err(self.unsupported(e.pos, "floating point")),
            ExprKind::Str(_) => return Err(self.unsupported(e.pos, "string literals used as values")),
            ExprKind::Ident(n) => match self.lookup(n).cloned() {
                Some(Binding::Scalar(v, t)) => (LExpr::Scalar(v), t),
                Some(Binding::Array(_)) => {
                    return Err(self.unsupported(e.pos, format!("the array '{n}' used as a value (only indexing and passing to functions are supported)")))
                }
                Some(Binding::Unsupported(what)) => return Err(self.unsupported(e.pos, what)),
                None if self.funcs.contains_key(n.as_str()) || self.declared.contains(n.as_str()) => {
                    return Err(self.unsupported(e.pos, "function pointers"))
                }
                None => return Err(self.err(e.pos, format!("undeclared identifier '{n}'"))),
            },
            ExprKind::Unary(op, a) => match op {
                UnOp::Plus => {
                    let (v, t) = self.rvalue(a)?;
                    let pt = self.promote(t);
                    (self.convert(v, t, pt, e.pos)?, pt)
                }
                UnOp::Neg => {
                    let (v, t) = self.rvalue(a)?;
                    let pt = self.promote(t);
                    let v = self.convert(v, t, pt, e.pos)?;
                    let n = fold(LExpr::Neg(bx(v)));
                    let n = if pt.signed { n } else { self.convert(n, int, pt, e.pos)? };
                    (n, pt)
                }
                UnOp::Not => {
                    let (v, _) = self.rvalue(a)?;
                    (fold(LExpr::Not(bx(v))), int)
                }
                UnOp::BitNot => {
                    // ~v is -v - 1 on a signed type, 2^w - 1 - v on an unsigned one
                    let (v, t) = self.rvalue(a)?;
                    let pt = self.promote(t);
                    let v = self.convert(v, t, pt, e.pos)?;
                    let ones = if pt.signed { LExpr::Const(-1) } else { LExpr::Const(self.range(pt, e.pos)?.1) };
                    (fold(LExpr::Arith(Arith::Sub, bx(ones), bx(v))), pt)
                }
                UnOp::Deref => return Err(self.unsupported(e.pos, "pointer dereference")),
                UnOp::AddrOf => return Err(self.unsupported(e.pos, "taking addresses (pointers)")),
            },
            ExprKind::IncDec { pre, inc, arg } => {
                let (lv, t) = self.lvalue(arg)?;
                let one = LExpr::Const(1);
                let (new, _) = self.arith(if *inc { BinOp::Add } else { BinOp::Sub }, LExpr::Current, t, one, int, e.pos)?;
                let new = self.convert(new, self.common(t, int), t, e.pos)?;
                (LExpr::Assign { lv, value: bx(new), post: !pre }, t)
            }
            ExprKind::Binary(op, a, b) => match op {
                BinOp::And | BinOp::Or if self.calls_program_function(b) => {
                    // control flow into a 0/1 variable
                    let (tn, en, join) = (self.new_node(self.line), self.new_node(self.line), self.new_node(self.line));
                    self.cond(e, tn, en)?;
                    let v = self.new_var("cond", 0, false, int, e.pos)?;
                    for (n, k) in [(tn, 1), (en, 0)] {
                        self.cur = n;
                        self.emit(Instr::Eval(assign(LValue::Scalar(v), LExpr::Const(k))));
                        self.goto(join);
                    }
                    self.cur = join;
                    (LExpr::Scalar(v), int)
                }
                BinOp::And | BinOp::Or => {
                    let (x, _) = self.rvalue(a)?;
                    let (y, _) = self.rvalue(b)?;
                    (fold(if *op == BinOp::And { LExpr::And(bx(x), bx(y)) } else { LExpr::Or(bx(x), bx(y)) }), int)
                }
                BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
                    let (x, xt) = self.rvalue(a)?;
                    let (y, yt) = self.rvalue(b)?;
                    let t = self.common(xt, yt);
                    let x = self.convert(x, xt, t, e.pos)?;
                    let y = self.convert(y, yt, t, e.pos)?;
                    let (c, x, y) = match op {
                        BinOp::Lt => (Cmp::Lt, x, y),
                        BinOp::Gt => (Cmp::Lt, y, x),
                        BinOp::Le => (Cmp::Le, x, y),
                        BinOp::Ge => (Cmp::Le, y, x),
                        BinOp::Eq => (Cmp::Eq, x, y),
                        _ => (Cmp::Ne, x, y),
                    };
                    (fold(LExpr::Cmp(c, bx(x), bx(y))), int)
                }
                _ => {
                    let (x, xt) = self.rvalue(a)?;
                    let (y, yt) = self.rvalue(b)?;
                    self.arith(*op, x, xt, y, yt, e.pos)?
                }
            },
            ExprKind::Assign(op, l, r) => {
                let (lv, lt) = self.lvalue(l)?;
                let (v, vt) = self.rvalue(r)?;
                let value = match op {
                    None => self.convert(v, vt, lt, e.pos)?,
                    Some(op) => {
                        let (n, nt) = self.arith(*op, LExpr::Current, lt, v, vt, e.pos)?;
                        self.convert(n, nt, lt, e.pos)?
                    }
                };
                (LExpr::Assign { lv, value: bx(value), post: false }, lt)
            }
            ExprKind::Cond(c, a, b) if self.calls_program_function(a) || self.calls_program_function(b) => {
                // control flow into a variable of the common type
                let (tn, en, join) = (self.new_node(self.line), self.new_node(self.line), self.new_node(self.line));
                self.cond(c, tn, en)?;
                let mut ends = vec![];
                for (n, x) in [(tn, a), (en, b)] {
                    self.cur = n;
                    let (v, t) = self.rvalue(x)?;
                    ends.push((self.cur, v, t));
                }
                let t = self.common(ends[0].2, ends[1].2);
                let var = self.new_var("cond", 0, false, t, e.pos)?;
                for (n, v, vt) in ends {
                    self.cur = n;
                    let v = self.convert(v, vt, t, e.pos)?;
                    self.emit(Instr::Eval(assign(LValue::Scalar(var), v)));
                    self.goto(join);
                }
                self.cur = join;
                (LExpr::Scalar(var), t)
            }
            ExprKind::Cond(c, a, b) => {
                let (c, _) = self.rvalue(c)?;
                let (x, xt) = self.rvalue(a)?;
                let (y, yt) = self.rvalue(b)?;
                let t = self.common(xt, yt);
                let x = self.convert(x, xt, t, e.pos)?;
                let y = self.convert(y, yt, t, e.pos)?;
                (fold(LExpr::Ite(bx(c), bx(x), bx(y))), t)
            }
            ExprKind::Call(f, args) => self.call(f, args, e.pos, false)?,
            ExprKind::Index(..) => {
                let (arr, idx) = self.element(e)?;
                (LExpr::Read(arr.var, idx), arr.elem)
            }
            ExprKind::Member(..) => return Err(self.unsupported(e.pos, "struct members")),
            ExprKind::Cast(t, a) => {
                let to = self.int_type(t, e.pos)?;
                let (v, vt) = self.rvalue(a)?;
                (self.convert(v, vt, to, e.pos)?, to)
            }
            ExprKind::SizeofType(t) => (LExpr::Const(self.size_of(t, e.pos)?), self.size_t()),
            ExprKind::SizeofExpr(a) => {
                let n = match &a.kind {
                    ExprKind::Str(s) => s.len() as i64 + 1,
                    _ => self.sizeof_value(a)?,
                };
                (LExpr::Const(n), self.size_t())
            }
            ExprKind::Comma(a, b) => {
                self.effect(a)?;
                self.rvalue(b)?
            }
            ExprKind::StmtExpr(ss) => {
                let mut out = (LExpr::Const(0), int);
                self.frame().scopes.push(HashMap::new());
                let r = (|| {
                    for (k, s) in ss.iter().enumerate() {
                        match (&s.kind, k + 1 == ss.len()) {
                            (StmtKind::Expr(x), true) => out = self.rvalue(x)?,
                            _ => self.stmt(s)?,
                        }
                    }
                    Ok(())
                })();
                self.frame().scopes.pop();
                r?;
                out
            }
        })
    }

    /// The size of the type of an expression (not evaluated): an array,
    /// a row of a two-dimensional array, or a side-effect-free value.
    pub(super) fn sizeof_value(&mut self, a: &'a Expr) -> R<i64> {
        let mut base = a;
        let mut indexed = 0;
        while let ExprKind::Index(b, _) = &base.kind {
            base = b;
            indexed += 1;
        }
        if let ExprKind::Ident(n) = &base.kind {
            if let Some(Binding::Array(info)) = self.lookup(n).cloned() {
                let mut size = self.int_size(info.elem);
                for d in info.dims.iter().skip(indexed) {
                    let Some(d) = d else {
                        return Err(self.unsupported(a.pos, "sizeof of a variable-length array"));
                    };
                    size *= d;
                }
                return Ok(size);
            }
        }
        let (_, t) = self.rvalue(a)?;
        Ok(self.int_size(t))
    }
}

/// Walks an expression and its subexpressions (not into statement expressions).
pub(super) fn visit(e: &Expr, f: &mut impl FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Unary(_, a) | ExprKind::IncDec { arg: a, .. } | ExprKind::Member(a, _) | ExprKind::Cast(_, a) => visit(a, f),
        ExprKind::SizeofExpr(_) => {}
        ExprKind::Binary(_, a, b) | ExprKind::Assign(_, a, b) | ExprKind::Index(a, b) | ExprKind::Comma(a, b) => {
            visit(a, f);
            visit(b, f);
        }
        ExprKind::Cond(a, b, c) => {
            visit(a, f);
            visit(b, f);
            visit(c, f);
        }
        ExprKind::Call(g, args) => {
            visit(g, f);
            for a in args {
                visit(a, f);
            }
        }
        _ => {}
    }
}

pub(super) fn assign(lv: LValue, value: LExpr) -> LExpr {
    LExpr::Assign { lv, value: Box::new(value), post: false }
}

/// Whether evaluating the expression changes nothing.
pub(super) fn is_pure(e: &LExpr) -> bool {
    match e {
        LExpr::Const(_) | LExpr::Scalar(_) | LExpr::Current => true,
        LExpr::Nondet(..) | LExpr::Assign { .. } => false,
        LExpr::Read(_, idx) => idx.iter().all(is_pure),
        LExpr::Neg(a) | LExpr::Not(a) | LExpr::Wrap(_, a) | LExpr::ToBool(a) | LExpr::Pow2(_, a) => is_pure(a),
        LExpr::Arith(_, a, b) | LExpr::Cmp(_, a, b) | LExpr::And(a, b) | LExpr::Or(a, b) | LExpr::Bits(_, a, b) => {
            is_pure(a) && is_pure(b)
        }
        LExpr::Ite(a, b, c) => is_pure(a) && is_pure(b) && is_pure(c),
    }
}

/// The value of a constant expression.
pub(super) fn as_const(e: &LExpr) -> Option<i64> {
    match e {
        LExpr::Const(c) => Some(*c),
        _ => None,
    }
}

/// Folds an operator applied to constants.
pub(super) fn fold(e: LExpr) -> LExpr {
    let c = |x: &LExpr| as_const(x);
    let v = match &e {
        LExpr::Neg(a) => c(a).and_then(|a| a.checked_neg()),
        LExpr::Not(a) => c(a).map(|a| (a == 0) as i64),
        LExpr::ToBool(a) => c(a).map(|a| (a != 0) as i64),
        LExpr::Wrap(b, a) => c(a).map(|a| a.rem_euclid(1i64 << b)),
        LExpr::Arith(op, a, b) => match (c(a), c(b)) {
            (Some(x), Some(y)) => match op {
                Arith::Add => x.checked_add(y),
                Arith::Sub => x.checked_sub(y),
                Arith::Mul => x.checked_mul(y),
                Arith::Div => x.checked_div(y),
                Arith::Rem => x.checked_rem(y),
                Arith::FloorDiv => x.checked_div_euclid(y),
                Arith::EuclidRem => x.checked_rem_euclid(y),
            },
            _ => None,
        },
        LExpr::Bits(op, a, b) => match (c(a), c(b)) {
            (Some(x), Some(y)) => op.apply(x, y),
            _ => None,
        },
        LExpr::Pow2(w, a) => c(a).and_then(|k| 1i64.checked_shl(k.rem_euclid(*w as i64) as u32).filter(|p| *p > 0)),
        LExpr::Cmp(op, a, b) => match (c(a), c(b)) {
            (Some(x), Some(y)) => Some(match op {
                Cmp::Lt => x < y,
                Cmp::Le => x <= y,
                Cmp::Eq => x == y,
                Cmp::Ne => x != y,
            } as i64),
            _ => None,
        },
        LExpr::And(a, b) => match (c(a), c(b)) {
            (Some(0), _) => Some(0),
            (Some(_), Some(y)) => Some((y != 0) as i64),
            _ => None,
        },
        LExpr::Or(a, b) => match (c(a), c(b)) {
            (Some(x), _) if x != 0 => Some(1),
            (Some(_), Some(y)) => Some((y != 0) as i64),
            _ => None,
        },
        LExpr::Ite(a, x, y) => match c(a) {
            Some(0) => return (**y).clone(),
            Some(_) => return (**x).clone(),
            None => None,
        },
        _ => None,
    };
    // -2^63 stays unfolded: arrax's terms cannot negate that literal
    v.filter(|v| *v != i64::MIN).map(LExpr::Const).unwrap_or(e)
}
