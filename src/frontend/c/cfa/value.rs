//! Expressions resolved into values ([`Val`]): integers as [`LExpr`]s with
//! their C type, pointers, whole objects; assignments and increments of
//! every kind of place; pointer arithmetic, comparisons and differences;
//! `sizeof`; truth values of conditions.

use super::memory::{Place, Ptr, Val, UNKNOWN};
use super::*;

impl<'a> Builder<'a> {
    /// An integer value and its C type (pointers and objects are errors).
    pub(super) fn rvalue(&mut self, e: &'a Expr) -> R<(LExpr, IntTy)> {
        match self.value(e)? {
            Val::Int(v, t) => Ok((v, t)),
            Val::Ptr(_) | Val::Alloc(_) => Err(self.unsupported(e.pos, "converting a pointer to an integer")),
            Val::Obj(p) => match p.ty {
                Type::Struct(_) => Err(self.err(e.pos, "a struct used as an integer")),
                _ => Err(self.unsupported(e.pos, "an array used as a value (only indexing, pointers and passing to functions are supported)")),
            },
        }
    }

    /// The truth of a condition as an integer (non-zero is true): a
    /// pointer is true when it is not null.
    pub(super) fn truth(&mut self, e: &'a Expr) -> R<LExpr> {
        Ok(match self.value(e)? {
            Val::Int(v, _) => v,
            Val::Ptr(p) => p.flag,
            Val::Obj(p) if matches!(p.ty, Type::Array(..)) => LExpr::Const(1),
            _ => return Err(self.err(e.pos, "a struct used as a condition")),
        })
    }

    /// The value of an expression.
    pub(super) fn value(&mut self, e: &'a Expr) -> R<Val> {
        let bx = Box::new;
        let int = IntTy::INT;
        Ok(match &e.kind {
            ExprKind::Int(v, t) => {
                let v = i64::try_from(*v).map_err(|_| self.unsupported(e.pos, "integer constants beyond 64 bits"))?;
                Val::Int(LExpr::Const(v), *t)
            }
            ExprKind::Float => return Err(self.unsupported(e.pos, "floating point")),
            ExprKind::Str(_) => return Err(self.unsupported(e.pos, "string literals used as values")),
            ExprKind::Ident(_) | ExprKind::Index(..) | ExprKind::Member(..) | ExprKind::Unary(UnOp::Deref, _) => {
                let p = self.place(e)?;
                self.load(p, e.pos)?
            }
            ExprKind::Unary(UnOp::AddrOf, a) => {
                let p = self.place(a)?;
                Val::Ptr(Ptr { flag: LExpr::Const(1), pointee: p.ty.clone(), known: p.region != UNKNOWN, at: (p.region != UNKNOWN).then_some(p) })
            }
            ExprKind::Unary(UnOp::Not, a) => Val::Int(fold(LExpr::Not(bx(self.truth(a)?))), int),
            ExprKind::Unary(op, a) => {
                let (v, t) = self.rvalue(a)?;
                let pt = self.promote(t);
                let v = self.convert(v, t, pt, e.pos)?;
                let v = match op {
                    UnOp::Plus => v,
                    UnOp::Neg => {
                        let n = fold(LExpr::Neg(bx(v)));
                        if pt.signed {
                            n
                        } else {
                            self.convert(n, int, pt, e.pos)?
                        }
                    }
                    _ => {
                        // ~v is -v - 1 on a signed type, 2^w - 1 - v on an unsigned one
                        let ones = if pt.signed { LExpr::Const(-1) } else { LExpr::Const(self.range(pt, e.pos)?.1) };
                        fold(LExpr::Arith(Arith::Sub, bx(ones), bx(v)))
                    }
                };
                Val::Int(v, pt)
            }
            ExprKind::IncDec { pre, inc, arg } => self.incdec(arg, *pre, *inc, e.pos)?,
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, e)?,
            ExprKind::Assign(op, l, r) => self.assignment(*op, l, r, e.pos)?,
            ExprKind::Cond(c, a, b) => self.conditional(c, a, b, e)?,
            ExprKind::Call(f, args) => self.call(f, args, e.pos, false)?,
            ExprKind::Cast(t, a) => self.cast(t, a, e.pos)?,
            ExprKind::SizeofType(t) => Val::Int(LExpr::Const(self.size_of(t, e.pos)?), self.size_t()),
            ExprKind::SizeofExpr(a) => {
                let n = match &a.kind {
                    ExprKind::Str(s) => s.len() as i64 + 1,
                    _ => self.sizeof_value(a)?,
                };
                Val::Int(LExpr::Const(n), self.size_t())
            }
            ExprKind::Comma(a, b) => {
                self.effect(a)?;
                self.value(b)?
            }
            ExprKind::StmtExpr(ss) => {
                let mut out = Val::Int(LExpr::Const(0), int);
                self.frame().scopes.push(HashMap::default());
                let r = (|| {
                    for (k, s) in ss.iter().enumerate() {
                        match (&s.kind, k + 1 == ss.len()) {
                            (StmtKind::Expr(x), true) => out = self.value(x)?,
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

    /// A binary operator: on integers, or pointer arithmetic, comparison
    /// and difference.
    fn binary(&mut self, op: BinOp, a: &'a Expr, b: &'a Expr, e: &'a Expr) -> R<Val> {
        let bx = Box::new;
        let int = IntTy::INT;
        if matches!(op, BinOp::And | BinOp::Or) {
            if self.needs_control(b) {
                // control flow into a 0/1 variable
                let (tn, en, join) = (self.new_node(self.line), self.new_node(self.line), self.new_node(self.line));
                self.cond(e, tn, en)?;
                let v = self.new_var("cond", 0, false, int, e.pos, None)?;
                for (n, k) in [(tn, 1), (en, 0)] {
                    self.cur = n;
                    self.emit(Instr::Eval(assign(LValue::Scalar(v), LExpr::Const(k))));
                    self.goto(join);
                }
                self.cur = join;
                return Ok(Val::Int(LExpr::Scalar(v), int));
            }
            let (x, y) = (self.truth(a)?, self.truth(b)?);
            return Ok(Val::Int(fold(if op == BinOp::And { LExpr::And(bx(x), bx(y)) } else { LExpr::Or(bx(x), bx(y)) }), int));
        }
        let (x, y) = (self.value(a)?, self.value(b)?);
        let is_ptr = |v: &Val| matches!(v, Val::Ptr(_) | Val::Alloc(_)) || matches!(v, Val::Obj(p) if matches!(p.ty, Type::Array(..)));
        if !is_ptr(&x) && !is_ptr(&y) {
            let (Val::Int(x, xt), Val::Int(y, yt)) = (x, y) else {
                return Err(self.err(e.pos, "a struct used as an operand"));
            };
            return self.int_binary(op, x, xt, y, yt, e.pos);
        }
        let cmp = |c, x: LExpr, y: LExpr| Val::Int(fold(LExpr::Cmp(c, bx(x), bx(y))), IntTy::INT);
        match op {
            BinOp::Add | BinOp::Sub if !is_ptr(&y) || (op == BinOp::Add && !is_ptr(&x)) => {
                let (p, k, kt) = match (x, y) {
                    (p, Val::Int(k, kt)) => (p, k, kt),
                    (Val::Int(k, kt), p) => (p, k, kt),
                    _ => unreachable!("one operand is an integer"),
                };
                let p = self.ptr_from(p, None, e.pos)?;
                let k = self.convert(k, kt, self.ptrdiff(), e.pos)?;
                let k = if op == BinOp::Sub { fold(LExpr::Neg(bx(k))) } else { k };
                Ok(Val::Ptr(self.ptr_add(p, k, e.pos)?))
            }
            BinOp::Sub => {
                let (p, q) = (self.ptr_from(x, None, e.pos)?, self.ptr_from(y, None, e.pos)?);
                let (i, j) = self.offsets(&p, &q, e.pos)?;
                Ok(Val::Int(fold(LExpr::Arith(Arith::Sub, bx(i), bx(j))), self.ptrdiff()))
            }
            BinOp::Eq | BinOp::Ne => {
                let (p, q) = (self.ptr_from(x, None, e.pos)?, self.ptr_from(y, None, e.pos)?);
                let eq = self.ptr_eq(&p, &q);
                Ok(Val::Int(if op == BinOp::Eq { eq } else { fold(LExpr::Not(bx(eq))) }, int))
            }
            BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge => {
                let (p, q) = (self.ptr_from(x, None, e.pos)?, self.ptr_from(y, None, e.pos)?);
                let (i, j) = self.offsets(&p, &q, e.pos)?;
                Ok(match op {
                    BinOp::Lt => cmp(Cmp::Lt, i, j),
                    BinOp::Gt => cmp(Cmp::Lt, j, i),
                    BinOp::Le => cmp(Cmp::Le, i, j),
                    _ => cmp(Cmp::Le, j, i),
                })
            }
            _ => Err(self.unsupported(e.pos, "this operator on pointers")),
        }
    }

    /// An integer binary operator (comparisons give 0 or 1).
    pub(super) fn int_binary(&mut self, op: BinOp, x: LExpr, xt: IntTy, y: LExpr, yt: IntTy, pos: Pos) -> R<Val> {
        let bx = Box::new;
        if !matches!(op, BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq | BinOp::Ne) {
            let (v, t) = self.arith(op, x, xt, y, yt, pos)?;
            return Ok(Val::Int(v, t));
        }
        let t = self.common(xt, yt);
        let x = self.convert(x, xt, t, pos)?;
        let y = self.convert(y, yt, t, pos)?;
        let (c, x, y) = match op {
            BinOp::Lt => (Cmp::Lt, x, y),
            BinOp::Gt => (Cmp::Lt, y, x),
            BinOp::Le => (Cmp::Le, x, y),
            BinOp::Ge => (Cmp::Le, y, x),
            BinOp::Eq => (Cmp::Eq, x, y),
            _ => (Cmp::Ne, x, y),
        };
        Ok(Val::Int(fold(LExpr::Cmp(c, bx(x), bx(y))), IntTy::INT))
    }

    /// The type of pointer differences (`ptrdiff_t`).
    pub(super) fn ptrdiff(&self) -> IntTy {
        match self.model {
            DataModel::Ilp32 => IntTy::INT,
            DataModel::Lp64 => IntTy { kind: IntKind::Long, signed: true },
        }
    }

    /// `l = r` or `l op= r`: the stored value.
    fn assignment(&mut self, op: Option<BinOp>, l: &'a Expr, r: &'a Expr, pos: Pos) -> R<Val> {
        let place = self.place(l)?;
        match (place.ty.clone(), op) {
            (Type::Int(lt), _) => {
                let (v, vt) = self.rvalue(r)?;
                let value = match op {
                    None => self.convert(v, vt, lt, pos)?,
                    Some(op) => {
                        let (n, nt) = self.arith(op, LExpr::Current, lt, v, vt, pos)?;
                        self.convert(n, nt, lt, pos)?
                    }
                };
                Ok(Val::Int(self.int_assign(&place, value, false, false, pos)?, lt))
            }
            (Type::Pointer(pt), None) => {
                let v = self.value(r)?;
                self.store(&place, v, false, pos)?;
                let _ = pt;
                self.load(place, pos)
            }
            (Type::Pointer(_), Some(op @ (BinOp::Add | BinOp::Sub))) => {
                let (k, kt) = self.rvalue(r)?;
                let k = self.convert(k, kt, self.ptrdiff(), pos)?;
                let k = if op == BinOp::Sub { fold(LExpr::Neg(Box::new(k))) } else { k };
                let Val::Ptr(p) = self.load(place.clone(), pos)? else { unreachable!("a pointer place") };
                let p = self.ptr_add(p, k, pos)?;
                self.store_ptr(&place, p, pos)?;
                self.load(place, pos)
            }
            (Type::Struct(_), None) => {
                let v = self.value(r)?;
                self.store(&place, v, false, pos)?;
                Ok(Val::Obj(place))
            }
            (Type::Array(..), _) => Err(self.unsupported(pos, "assigning a whole array")),
            (Type::Unsupported(what), _) => Err(self.unsupported(pos, what)),
            _ => Err(self.err(pos, "this operator cannot assign to this object")),
        }
    }

    /// An assignment of an integer place as an expression (its value is
    /// the stored one, or the old one when `post`), recorded in the facts.
    pub(super) fn int_assign(&mut self, place: &Place, value: LExpr, post: bool, init: bool, pos: Pos) -> R<LExpr> {
        let Some((var, idx)) = self.int_leaf(place, pos)? else {
            return Ok(LExpr::Const(0));
        };
        let c = if idx.is_empty() { self.const_of(&value) } else { None };
        if !self.dry {
            self.facts_out.write_int((place.region, place.path.clone()), init, c);
        }
        let lv = if idx.is_empty() { LValue::Scalar(var) } else { LValue::Elem(var, idx) };
        Ok(LExpr::Assign { lv, value: Box::new(value), post })
    }

    /// `++x`, `x--`, … on an integer or a pointer.
    fn incdec(&mut self, arg: &'a Expr, pre: bool, inc: bool, pos: Pos) -> R<Val> {
        let place = self.place(arg)?;
        match place.ty.clone() {
            Type::Int(t) => {
                let int = IntTy::INT;
                let (new, _) = self.arith(if inc { BinOp::Add } else { BinOp::Sub }, LExpr::Current, t, LExpr::Const(1), int, pos)?;
                let new = self.convert(new, self.common(t, int), t, pos)?;
                Ok(Val::Int(self.int_assign(&place, new, !pre, false, pos)?, t))
            }
            Type::Pointer(_) => {
                let Val::Ptr(p) = self.load(place.clone(), pos)? else { unreachable!("a pointer place") };
                Ok(Val::Ptr(self.step_ptr(&place, p, if inc { 1 } else { -1 }, pre, pos)?))
            }
            Type::Unsupported(what) => Err(self.unsupported(pos, what)),
            _ => Err(self.err(pos, "this expression cannot be incremented")),
        }
    }

    /// Moves the pointer stored at `place` by `d` elements in place: the
    /// value is the pointer after (`pre`) or before the move.
    fn step_ptr(&mut self, place: &Place, p: Ptr, d: i64, pre: bool, pos: Pos) -> R<Ptr> {
        let Some(mut at) = p.at else {
            if !p.known {
                self.unknown_at(pos);
                return Ok(p);
            }
            return Err(self.unsupported(pos, "arithmetic on a null pointer"));
        };
        if !at.indexed || at.idx.is_empty() {
            return Err(self.unsupported(pos, "pointer arithmetic on a pointer to a single object (not into an array)"));
        }
        let n = at.idx.len();
        let var = self.offset_var(place, n, pos)?;
        let lv = if place.idx.is_empty() { LValue::Scalar(var) } else { LValue::Elem(var, place.idx.clone()) };
        let value = LExpr::Arith(Arith::Add, Box::new(LExpr::Current), Box::new(LExpr::Const(d)));
        at.idx[n - 1] = LExpr::Assign { lv, value: Box::new(value), post: !pre };
        Ok(Ptr { at: Some(at), ..p })
    }

    /// `(t) a`.
    fn cast(&mut self, t: &'a Type, a: &'a Expr, pos: Pos) -> R<Val> {
        match t {
            Type::Void => {
                self.effect(a)?;
                Ok(Val::Int(LExpr::Const(0), IntTy::INT))
            }
            Type::Pointer(pt) => {
                let p = self.ptr_of(a, Some(pt))?;
                Ok(Val::Ptr(self.cast_ptr(p, pt, pos)?))
            }
            Type::Int(to) if to.kind == IntKind::Bool => {
                let v = self.truth(a)?;
                Ok(Val::Int(fold(LExpr::ToBool(Box::new(v))), *to))
            }
            _ => {
                let to = self.int_type(t, pos)?;
                let (v, vt) = self.rvalue(a)?;
                Ok(Val::Int(self.convert(v, vt, to, pos)?, to))
            }
        }
    }

    /// `c ? a : b`.
    fn conditional(&mut self, c: &'a Expr, a: &'a Expr, b: &'a Expr, e: &'a Expr) -> R<Val> {
        let bx = Box::new;
        if self.needs_control(a) || self.needs_control(b) {
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
            let var = self.new_var("cond", 0, false, t, e.pos, None)?;
            for (n, v, vt) in ends {
                self.cur = n;
                let v = self.convert(v, vt, t, e.pos)?;
                self.emit(Instr::Eval(assign(LValue::Scalar(var), v)));
                self.goto(join);
            }
            self.cur = join;
            return Ok(Val::Int(LExpr::Scalar(var), t));
        }
        let c = self.truth(c)?;
        match (self.value(a)?, self.value(b)?) {
            (Val::Int(x, xt), Val::Int(y, yt)) => {
                let t = self.common(xt, yt);
                let x = self.convert(x, xt, t, e.pos)?;
                let y = self.convert(y, yt, t, e.pos)?;
                Ok(Val::Int(fold(LExpr::Ite(bx(c), bx(x), bx(y))), t))
            }
            (x, y) => {
                let (p, q) = (self.ptr_from(x, None, a.pos)?, self.ptr_from(y, None, b.pos)?);
                self.choose_ptr(c, p, q, e.pos).map(Val::Ptr)
            }
        }
    }

    /// `c ? p : q` for pointers into one region (or null).
    fn choose_ptr(&mut self, c: LExpr, p: Ptr, q: Ptr, pos: Pos) -> R<Ptr> {
        let bx = Box::new;
        let ite = |x: &LExpr, y: &LExpr| fold(LExpr::Ite(bx(c.clone()), bx(x.clone()), bx(y.clone())));
        let flag = ite(&p.flag, &q.flag);
        match (p.at.clone(), q.at.clone()) {
            (Some(a), Some(b)) if a.region == b.region && a.path == b.path && a.idx.len() == b.idx.len() && a.indexed == b.indexed => {
                let idx = a.idx.iter().zip(&b.idx).map(|(x, y)| ite(x, y)).collect();
                Ok(Ptr { flag, at: Some(Place { idx, ..a }), ..p })
            }
            (Some(a), None) | (None, Some(a)) if p.known && q.known => Ok(Ptr { flag, at: Some(a), ..p }),
            (None, None) => Ok(Ptr { flag, known: p.known && q.known, ..p }),
            _ if !p.known || !q.known => {
                self.unknown_at(pos);
                Ok(Ptr { known: false, at: None, ..p })
            }
            _ => Err(self.unsupported(pos, "a choice between pointers into different regions")),
        }
    }

    /// The size of the type of an expression, which is not evaluated.
    pub(super) fn sizeof_value(&mut self, a: &'a Expr) -> R<i64> {
        let v = self.dry_run(|b| b.value(a))?;
        match v {
            Val::Int(_, t) => Ok(self.int_size(t)),
            Val::Ptr(_) | Val::Alloc(_) => self.size_of(&Type::Pointer(Box::new(Type::Void)), a.pos),
            Val::Obj(p) => {
                if let Type::Array(_, None) = p.ty {
                    return Err(self.unsupported(a.pos, "sizeof of an array of unknown or variable size"));
                }
                match self.size_of(&p.ty, a.pos) {
                    Err(_) if matches!(p.ty, Type::Array(..)) => Err(self.unsupported(a.pos, "sizeof of a variable-length array")),
                    r => r,
                }
            }
        }
    }

    /// Runs `f` without keeping what it builds (nodes, variables, regions,
    /// facts): for `sizeof` and constant expressions.
    pub(super) fn dry_run<T>(&mut self, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        let saved = (self.nodes.len(), self.cur, self.vars.len(), self.regions.len(), self.name_log.len(), self.initial.len(), self.dry);
        self.dry = true;
        let r = f(self);
        self.dry = saved.6;
        if !self.dry {
            self.dry_unknown = false;
        }
        self.nodes.truncate(saved.0);
        self.cur = saved.1;
        self.nodes[self.cur].out = Out::Stop;
        self.vars.truncate(saved.2);
        self.regions.truncate(saved.3);
        for n in self.name_log.drain(saved.4..) {
            self.names.remove(&n);
        }
        self.initial.truncate(saved.5);
        r
    }

    /// The variable of a pointer leaf's last index (its offset), created
    /// if needed; the move is recorded as a write of that component.
    fn offset_var(&mut self, place: &Place, n: usize, pos: Pos) -> R<usize> {
        if !self.dry {
            self.facts_out.write_component((place.region, place.path.clone()), n, None);
        }
        self.component_var(place.region, &place.path, n, n, pos)
    }

    /// Whether evaluating `e` needs control flow or instructions of its own:
    /// calls of functions with a body or of allocation functions,
    /// assignments and increments of pointers or structs.
    pub(super) fn needs_control(&mut self, e: &'a Expr) -> bool {
        let mut found = false;
        let mut assigned: Vec<&'a Expr> = vec![];
        visit(e, &mut |x| match &x.kind {
            ExprKind::Call(f, _) => match &f.kind {
                ExprKind::Ident(n) if n.starts_with("__VERIFIER_nondet_") && !self.funcs.contains_key(n.as_str()) => {}
                _ => found = true,
            },
            ExprKind::Assign(_, l, _) | ExprKind::IncDec { arg: l, .. } => assigned.push(l),
            _ => {}
        });
        found || assigned.into_iter().any(|l| !matches!(self.dry_run(|b| b.place(l).map(|p| p.ty)), Ok(Type::Int(_))))
    }
}
