//! C's integer types, their sizes and conversions, and integer arithmetic
//! on [`LExpr`]s (operators made exact; operands the facts know as
//! constants substituted where they make an operator linear).

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
            Type::Pointer(_) => Err(self.unsupported(pos, "converting a pointer to an integer")),
            Type::Array(..) => Err(self.unsupported(pos, "arrays used as values")),
            Type::Struct(_) => Err(self.err(pos, "a struct used as an integer")),
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
    /// The size of a type in bytes (gcc's layout under the data model).
    pub(super) fn size_of(&self, t: &Type, pos: Pos) -> R<i64> {
        Ok(self.layout(t, pos)?.0)
    }

    /// The size and alignment of a type in bytes.
    fn layout(&self, t: &Type, pos: Pos) -> R<(i64, i64)> {
        let ptr = match self.model {
            DataModel::Ilp32 => 4,
            DataModel::Lp64 => 8,
        };
        Ok(match t {
            // i386 aligns 64-bit integers in structs to 4 bytes
            Type::Int(i) => (self.int_size(*i), self.int_size(*i).min(ptr)),
            Type::Pointer(_) => (ptr, ptr),
            Type::Array(elem, Some(n)) => {
                let Some(n) = self.static_const(n) else {
                    return Err(self.unsupported(n.pos, "sizeof of a variable-length array"));
                };
                let (size, align) = self.layout(elem, pos)?;
                (n * size, align)
            }
            Type::Array(_, None) => return Err(self.unsupported(pos, "sizeof of an array of unknown size")),
            Type::Struct(id) => {
                let def = &self.tu.structs[*id];
                let Some(fields) = &def.fields else {
                    return Err(self.err(pos, "sizeof of an incomplete struct type"));
                };
                let (mut size, mut align) = (0i64, 1i64);
                for f in fields {
                    if f.bits.is_some() {
                        return Err(self.unsupported(f.pos, "bit-fields"));
                    }
                    let (s, a) = self.layout(&f.ty, f.pos)?;
                    align = align.max(a);
                    size = if def.union { size.max(s) } else { (size + a - 1) / a * a + s };
                }
                ((size + align - 1) / align * align, align)
            }
            Type::Void => (1, 1),
            Type::Unsupported(what) => return Err(self.unsupported(pos, format!("sizeof of {what}"))),
            Type::Function(..) => return Err(self.unsupported(pos, "sizeof of a function")),
        })
    }
    /// The value of a constant expression as array sizes are written:
    /// literals, `sizeof`, integer scalars the facts know as constants,
    /// and arithmetic on them (without evaluating anything).
    pub(super) fn static_const(&self, e: &Expr) -> Option<i64> {
        let c = |x: &Expr| self.static_const(x);
        match &e.kind {
            ExprKind::Int(v, _) => i64::try_from(*v).ok(),
            ExprKind::Ident(n) => match self.lookup(n)? {
                Binding::Region(r) => self.facts.constant(&(*r, vec![])).filter(|_| self.regions[*r].dims == 0),
                Binding::Unsupported(_) => None,
            },
            ExprKind::Cast(_, a) | ExprKind::Unary(UnOp::Plus, a) => c(a),
            ExprKind::Unary(UnOp::Neg, a) => c(a)?.checked_neg(),
            ExprKind::SizeofType(t) => self.size_of(t, e.pos).ok(),
            ExprKind::Binary(op, a, b) => {
                let (x, y) = (c(a)?, c(b)?);
                match op {
                    BinOp::Add => x.checked_add(y),
                    BinOp::Sub => x.checked_sub(y),
                    BinOp::Mul => x.checked_mul(y),
                    BinOp::Div => x.checked_div(y),
                    BinOp::Mod => x.checked_rem(y),
                    BinOp::Shl => x.checked_shl(u32::try_from(y).ok()?),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    pub(super) fn size_t(&self) -> IntTy {
        match self.model {
            DataModel::Ilp32 => IntTy::UINT,
            DataModel::Lp64 => IntTy { kind: IntKind::Long, signed: false },
        }
    }

    // ----- arithmetic -----

    pub(super) fn arith(&self, op: BinOp, l: LExpr, lt: IntTy, r: LExpr, rt: IntTy, pos: Pos) -> R<(LExpr, IntTy)> {
        let bx = Box::new;
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            let t = self.promote(lt);
            let l = self.convert(l, lt, t, pos)?;
            let factor = match self.const_of(&r) {
                Some(k) if (0..63).contains(&k) => LExpr::Const(1 << k),
                Some(k) => return Err(self.unsupported(pos, format!("a shift by {k} bits"))),
                None => LExpr::Pow2(self.bits(t), bx(r)),
            };
            let e = if op == BinOp::Shl { LExpr::Arith(Arith::Mul, bx(l), bx(factor)) } else { LExpr::Arith(Arith::FloorDiv, bx(l), bx(factor)) };
            let e = if t.signed { fold(e) } else { self.convert(fold(e), IntTy { kind: IntKind::LongLong, signed: true }, t, pos)? };
            return Ok((e, t));
        }
        let t = self.common(lt, rt);
        let l = self.convert(l, lt, t, pos)?;
        let r = self.convert(r, rt, t, pos)?;
        // a scalar the facts know as a constant makes the operator linear
        let known = |b: &Self, e: LExpr| b.const_of(&e).map_or(e, LExpr::Const);
        let (l, r) = match op {
            BinOp::Mul | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor if as_const(&l).is_none() && as_const(&r).is_none() => (known(self, l), known(self, r)),
            BinOp::Div | BinOp::Mod if as_const(&r).is_none() => (l, known(self, r)),
            _ => (l, r),
        };
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

    /// The constant value of an expression without effects, with the
    /// integer scalars the facts say are constants (see [`facts`]).
    pub(super) fn const_of(&self, e: &LExpr) -> Option<i64> {
        if !is_pure(e) {
            return None;
        }
        let sub = |x: &LExpr| self.const_of(x).map(LExpr::Const).unwrap_or_else(|| x.clone());
        let bx = Box::new;
        let e = match e {
            LExpr::Const(c) => return Some(*c),
            LExpr::Scalar(v) => return self.vars[*v].key.as_ref().and_then(|k| self.facts.constant(k)),
            LExpr::Neg(a) => LExpr::Neg(bx(sub(a))),
            LExpr::Not(a) => LExpr::Not(bx(sub(a))),
            LExpr::ToBool(a) => LExpr::ToBool(bx(sub(a))),
            LExpr::Wrap(w, a) => LExpr::Wrap(*w, bx(sub(a))),
            LExpr::Pow2(w, a) => LExpr::Pow2(*w, bx(sub(a))),
            LExpr::Arith(op, a, b) => LExpr::Arith(*op, bx(sub(a)), bx(sub(b))),
            LExpr::Bits(op, a, b) => LExpr::Bits(*op, bx(sub(a)), bx(sub(b))),
            LExpr::Cmp(op, a, b) => LExpr::Cmp(*op, bx(sub(a)), bx(sub(b))),
            LExpr::And(a, b) => LExpr::And(bx(sub(a)), bx(sub(b))),
            LExpr::Or(a, b) => LExpr::Or(bx(sub(a)), bx(sub(b))),
            LExpr::Ite(c, a, b) => LExpr::Ite(bx(sub(c)), bx(sub(a)), bx(sub(b))),
            _ => return None,
        };
        as_const(&fold(e))
    }
}

/// Walks an expression and its subexpressions (not into statement expressions).
pub(super) fn visit<'e>(e: &'e Expr, f: &mut impl FnMut(&'e Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Unary(_, a) | ExprKind::IncDec { arg: a, .. } | ExprKind::Member(a, ..) | ExprKind::Cast(_, a) => visit(a, f),
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
        LExpr::Arith(_, a, b) | LExpr::Cmp(_, a, b) | LExpr::And(a, b) | LExpr::Or(a, b) | LExpr::Bits(_, a, b) => is_pure(a) && is_pure(b),
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
