//! Calls: the verification functions and other built-ins (allocation,
//! `free`, `abs`, nondeterministic inputs), and functions with a body,
//! inlined: parameters are new objects given the arguments' values
//! (pointers for arrays), the result an object of its own.

use super::memory::{Alloc, Place, Val};
use super::*;

impl<'a> Builder<'a> {
    /// Calls with a fixed meaning for verification (when the program does
    /// not define them, or always for the error functions and assertions).
    /// Returns whether `name` was one.
    pub(super) fn control_builtin(&mut self, name: &str, args: &'a [Expr], pos: Pos) -> R<bool> {
        match name {
            "reach_error" | "__VERIFIER_error" | "__assert_fail" | "__assert" | "__assert_perror_fail" => {
                let failing = self.failing_call(pos);
                self.goto(failing);
            }
            "__VERIFIER_assert" | "assert" => {
                let [c] = args else { return Err(self.err(pos, format!("'{name}' takes one argument"))) };
                let next = self.new_node(self.line);
                let failing = self.failing_call(pos);
                self.cond(c, next, failing)?;
                self.cur = next;
            }
            "__VERIFIER_assume" | "assume_abort_if_not" => {
                let [c] = args else { return Err(self.err(pos, format!("'{name}' takes one argument"))) };
                let (next, dead) = (self.new_node(self.line), self.new_node(self.line));
                self.cond(c, next, dead)?;
                self.cur = next;
            }
            "abort" | "exit" | "_Exit" if !self.funcs.contains_key(name) => {
                self.goto(self.exit);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// A node standing for a failing call at `pos`, going on to the error location.
    fn failing_call(&mut self, pos: Pos) -> NodeId {
        let n = self.new_node(self.line);
        self.nodes[n].out = Out::Goto(self.error);
        let site = self.site(pos);
        self.failures.insert(n, site);
        n
    }

    /// A call in an expression: a built-in, or an inlined program function
    /// whose result object stands for the call.
    pub(super) fn call(&mut self, f: &'a Expr, args: &'a [Expr], pos: Pos, for_effect: bool) -> R<Val> {
        let ExprKind::Ident(name) = &f.kind else {
            return Err(self.unsupported(f.pos, "calls through function pointers"));
        };
        if self.lookup(name).is_some() {
            return Err(self.unsupported(f.pos, format!("calling '{name}', which is not a function")));
        }
        if self.control_builtin(name, args, pos)? {
            return Ok(Val::Int(LExpr::Const(0), IntTy::INT));
        }
        if let Some(func) = self.funcs.get(name.as_str()).copied() {
            return self.inline(func, args, pos, for_effect);
        }
        if let Some(suffix) = name.strip_prefix("__VERIFIER_nondet_") {
            let t = self.nondet_type(suffix, f.pos)?;
            let (lo, hi) = self.range(t, f.pos)?;
            let site = self.site(self.call_end(f.pos));
            self.calls.push((name.clone(), site));
            return Ok(Val::Int(LExpr::Nondet(lo, hi, self.calls.len() - 1), t));
        }
        if let Some(v) = self.library(name, args, pos)? {
            return Ok(v);
        }
        if self.declared.contains(name.as_str()) {
            Err(self.unsupported(pos, format!("calling '{name}', which is declared but has no body")))
        } else {
            Err(self.err(f.pos, format!("call to undeclared function '{name}'")))
        }
    }

    /// The library functions arrax knows (when the program has no body for
    /// them): allocation, `free`, `abs`.
    fn library(&mut self, name: &str, args: &'a [Expr], pos: Pos) -> R<Option<Val>> {
        let arity = |n: usize, b: &Self| -> R<()> {
            if args.len() == n {
                Ok(())
            } else {
                Err(b.err(pos, format!("'{name}' takes {n} argument(s), {} given", args.len())))
            }
        };
        let name_hint = format!("heap{}", self.line_of(pos));
        Ok(Some(match name {
            "malloc" | "alloca" | "__builtin_alloca" | "calloc" => {
                arity(if name == "calloc" { 2 } else { 1 }, self)?;
                for a in args {
                    let (v, _) = self.rvalue(a)?;
                    self.eval_effects(Val::Int(v, IntTy::INT));
                }
                Val::Alloc(Alloc { zeroed: name == "calloc", name: name_hint, pos })
            }
            "realloc" => {
                arity(2, self)?;
                let p = self.ptr_of(&args[0], None)?;
                let (n, _) = self.rvalue(&args[1])?;
                self.eval_effects(Val::Int(n, IntTy::INT));
                match &p.at {
                    // the block keeps its base: the same object, its cells kept
                    Some(at) if self.regions[at.region].alloc && as_const(&p.flag) == Some(1) && at.idx.last().and_then(as_const) == Some(0) => Val::Ptr(p),
                    None if p.known && as_const(&p.flag) == Some(0) => Val::Alloc(Alloc { zeroed: false, name: name_hint, pos }),
                    _ => {
                        self.defer(pos, "realloc of something other than the start of an allocated block (or null)");
                        Val::Ptr(p)
                    }
                }
            }
            "free" => {
                arity(1, self)?;
                let p = self.ptr_of(&args[0], None)?;
                self.eval_effects(Val::Ptr(p));
                Val::Int(LExpr::Const(0), IntTy::INT)
            }
            "abs" | "labs" | "llabs" => {
                arity(1, self)?;
                let (v, t) = self.rvalue(&args[0])?;
                let bx = Box::new;
                let neg = LExpr::Cmp(Cmp::Lt, bx(v.clone()), bx(LExpr::Const(0)));
                if !is_pure(&v) {
                    return Err(self.unsupported(pos, "abs of an expression with effects"));
                }
                Val::Int(fold(LExpr::Ite(bx(neg), bx(LExpr::Neg(bx(v.clone()))), bx(v))), t)
            }
            _ => return Ok(None),
        }))
    }

    pub(super) fn nondet_type(&self, suffix: &str, pos: Pos) -> R<IntTy> {
        let t = |kind, signed| IntTy { kind, signed };
        Ok(match suffix {
            "int" => IntTy::INT,
            "uint" | "unsigned" | "u32" => IntTy::UINT,
            "char" => t(IntKind::Char, true),
            "uchar" | "u8" => t(IntKind::Char, false),
            "short" => t(IntKind::Short, true),
            "ushort" | "u16" => t(IntKind::Short, false),
            "long" => t(IntKind::Long, true),
            "ulong" => t(IntKind::Long, false),
            "longlong" => t(IntKind::LongLong, true),
            "ulonglong" => t(IntKind::LongLong, false),
            "bool" | "_Bool" => t(IntKind::Bool, false),
            "size_t" => self.size_t(),
            _ => return Err(self.unsupported(pos, format!("__VERIFIER_nondet_{suffix} (not an integer type)"))),
        })
    }

    /// Inlines a call of `func`: parameters are new objects given the
    /// arguments (an array parameter is a pointer), the body is lowered in
    /// a new frame, the result is an object of its own.
    fn inline(&mut self, func: &'a Function, args: &'a [Expr], pos: Pos, for_effect: bool) -> R<Val> {
        if self.frames.iter().any(|f| f.name == func.name) {
            return Err(self.unsupported(pos, format!("recursive call to '{}'", func.name)));
        }
        if args.len() != func.params.len() {
            return Err(self.err(pos, format!("'{}' takes {} argument(s), {} given", func.name, func.params.len(), args.len())));
        }
        // arguments, in the caller's scope, all evaluated before the parameters are set
        let mut bindings = vec![];
        let mut stores = vec![];
        for (p, a) in func.params.iter().zip(args) {
            let name = p.name.clone().unwrap_or_default();
            let ty = match &p.ty {
                Type::Array(elem, _) => Type::Pointer(elem.clone()),
                Type::Unsupported(what) => return Err(self.unsupported(p.pos, what)),
                Type::Void => return Err(self.err(p.pos, "a parameter of type void")),
                t => t.clone(),
            };
            let v = self.value(a)?;
            let r = self.new_region(&name, ty, false, false, false, p.pos)?;
            stores.push((self.whole(r), v, a.pos));
            bindings.push((name, Binding::Region(r)));
        }
        for (place, v, at) in stores {
            self.store(&place, v, true, at)?;
        }
        let ret = match &func.ret {
            Type::Void => None,
            Type::Unsupported(what) => return Err(self.unsupported(func.pos, what)),
            t => Some(self.new_region(&format!("{}_result", func.name), t.clone(), false, false, false, func.pos)?),
        };
        if ret.is_none() && !for_effect {
            return Err(self.err(pos, format!("the void function '{}' is used as a value", func.name)));
        }
        let ret_node = self.new_node(self.line);
        self.frames.push(Frame {
            name: func.name.clone(),
            ret,
            ret_node,
            scopes: vec![bindings.into_iter().collect()],
            labels: HashMap::default(),
            jumps: vec![],
            switches: vec![],
        });
        let saved_line = self.line;
        let r = self.stmts(&func.body).and_then(|_| self.finish_function(func.pos));
        self.frames.pop();
        r?;
        self.line = saved_line;
        self.fall_into(ret_node);
        match ret {
            Some(r) => {
                let place: Place = self.whole(r);
                self.load(place, pos)
            }
            None => Ok(Val::Int(LExpr::Const(0), IntTy::INT)),
        }
    }
}
