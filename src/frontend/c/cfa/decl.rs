//! Declarations: global, local and static objects as regions, and their
//! initialisers (braced lists with designators and brace elision, string
//! literals for character arrays). A global's initialiser gives initial
//! values; a local's runs where it is declared, after the object is
//! zeroed where C zeroes it (members a braced list leaves out).

use super::memory::{LeafTy, Place, Val};
use super::*;

impl<'a> Builder<'a> {
    /// The value of an integer constant expression (sizes, case labels,
    /// global initialisers).
    pub(super) fn const_int(&mut self, e: &'a Expr) -> R<i64> {
        self.try_const(e).ok_or_else(|| self.unsupported(e.pos, "this expression must be an integer constant"))
    }

    /// The value of an expression when it is constant (variables the facts
    /// know as constants included); nothing it builds is kept.
    pub(super) fn try_const(&mut self, e: &'a Expr) -> Option<i64> {
        let v = self.dry_run(|b| {
            let v = b.value(e);
            Ok((v, std::mem::take(&mut b.dry_unknown)))
        });
        match v {
            Ok((Ok(Val::Int(v, _)), false)) => self.const_of(&v),
            _ => None,
        }
    }

    pub(super) fn global_decl(&mut self, d: &'a Decl) -> R<()> {
        match (&d.ty, d.storage) {
            (_, Storage::Typedef) => {}
            (Type::Function(..), _) => {
                self.declared.insert(d.name.as_str());
            }
            (Type::Unsupported(what), _) => {
                self.globals.insert(d.name.clone(), Binding::Unsupported(what));
            }
            (Type::Void, _) => return Err(self.err(d.pos, format!("variable '{}' declared void", d.name))),
            _ => {
                let ty = self.sized(&d.ty, d.init.as_ref());
                let r = self.new_region(&d.name, ty, true, false, false, d.pos)?;
                self.global_init(r, d.init.as_ref())?;
                self.globals.insert(d.name.clone(), Binding::Region(r));
            }
        }
        Ok(())
    }

    /// A global region's initial values: those its initialiser gives (all
    /// constants), zero elsewhere; recorded as the leaves' first writes.
    fn global_init(&mut self, r: usize, init: Option<&'a Init>) -> R<()> {
        if let Some(init) = init {
            self.recording = Some(vec![]);
            let place = self.whole(r);
            let done = self.init_at(&place, init);
            let cells = self.recording.take().expect("recording");
            done?;
            let mut by_var: HashMap<usize, Vec<(Vec<i64>, i64)>> = HashMap::default();
            for (v, idx, c) in cells {
                by_var.entry(v).or_default().push((idx, c));
            }
            let mut vars: Vec<usize> = by_var.keys().copied().collect();
            vars.sort();
            for v in vars {
                let cells = by_var.remove(&v).expect("a variable");
                self.initial.push(match self.vars[v].dims {
                    0 => InitFact::Scalar(v, cells.last().map_or(0, |c| c.1)),
                    1 if cells.iter().enumerate().all(|(k, c)| c.0[0] == k as i64) => InitFact::Array(v, cells.iter().map(|c| c.1).collect()),
                    _ => InitFact::Cells(v, cells),
                });
            }
        }
        // every leaf the initialiser left alone starts zero (null pointers)
        let mut paths: Vec<Vec<usize>> = self.regions[r].leaves.keys().cloned().collect();
        paths.sort();
        for path in paths {
            let key = (r, path.clone());
            if self.facts_out.leaves.get(&key).is_some_and(|f| f.writes > 0) {
                continue;
            }
            let leaf = &self.regions[r].leaves[&path];
            match leaf.ty {
                LeafTy::Int(_) => {
                    if let Some(Some(v)) = leaf.vars.first() {
                        let v = *v;
                        self.initial.push(if self.vars[v].dims == 0 { InitFact::Scalar(v, 0) } else { InitFact::Array(v, vec![]) });
                    }
                    self.facts_out.write_int(key, true, Some(0));
                }
                LeafTy::Ptr(_) => {
                    self.facts_out.write_ptr(key.clone(), &[Some(Some(0))], None);
                    if self.facts.component(&key, 0) != Some(0) {
                        let v = self.component_var(r, &path, 0, 1, 0)?;
                        self.initial.push(if self.vars[v].dims == 0 { InitFact::Scalar(v, 0) } else { InitFact::Array(v, vec![]) });
                    }
                }
                LeafTy::Unsupported(_) => {}
            }
        }
        Ok(())
    }

    /// An array type of unknown size with its size from the initialiser
    /// (`int a[] = {1, 2}`: two elements).
    fn sized(&self, t: &Type, init: Option<&Init>) -> Type {
        match (t, init) {
            (Type::Array(e, None), Some(Init::List(items, pos))) => {
                let n = items.len() as i128;
                Type::Array(e.clone(), Some(Box::new(Expr { kind: ExprKind::Int(n, IntTy::INT), pos: *pos })))
            }
            _ => t.clone(),
        }
    }

    pub(super) fn local_decl(&mut self, d: &'a Decl) -> R<()> {
        match (&d.ty, d.storage) {
            (_, Storage::Typedef) | (Type::Function(..), _) => Ok(()),
            (_, Storage::Extern) => Err(self.unsupported(d.pos, "extern declarations inside functions")),
            (_, Storage::Static) => self.static_decl(d),
            (Type::Unsupported(what), _) => Err(self.unsupported(d.pos, what)),
            (Type::Void, _) => Err(self.err(d.pos, format!("variable '{}' declared void", d.name))),
            _ => {
                let ty = self.sized(&d.ty, d.init.as_ref());
                // an uninitialised array declared in a loop gets a new
                // instance (arbitrary contents) each time
                let (_, dims) = self.split_array(&ty);
                let multi = d.init.is_none() && dims > 0 && self.in_loop();
                let whole = if multi { Type::Array(Box::new(ty), None) } else { ty };
                // the name's scope starts at its declarator: the initialiser
                // sees the new object (`struct S *p = malloc(sizeof *p)`)
                let r = self.new_region(&d.name, whole, false, multi, false, d.pos)?;
                self.bind(&d.name, Binding::Region(r));
                match &d.init {
                    None => self.uninitialised(r),
                    Some(init) => {
                        let place = self.whole(r);
                        self.local_init(&place, init)?;
                    }
                }
                Ok(())
            }
        }
    }

    /// A static local: a global with a local name, one per declaration.
    fn static_decl(&mut self, d: &'a Decl) -> R<()> {
        if let Some(b) = self.statics.get(&(d as *const Decl)).cloned() {
            self.bind(&d.name, b);
            return Ok(());
        }
        let frames = std::mem::take(&mut self.frames);
        let shadowed = self.globals.remove(&d.name);
        let r = self.global_decl(d);
        self.frames = frames;
        r?;
        let b = self.globals.remove(&d.name).expect("just declared");
        if let Some(g) = shadowed {
            self.globals.insert(d.name.clone(), g);
        }
        self.statics.insert(d as *const Decl, b.clone());
        self.bind(&d.name, b);
        Ok(())
    }

    /// An uninitialised local: its integer scalars take arbitrary values
    /// of their types each time the declaration runs (a numbered array
    /// takes a new instance).
    fn uninitialised(&mut self, r: usize) {
        if let Some(c) = self.regions[r].counter {
            let next = LExpr::Arith(Arith::Add, Box::new(LExpr::Scalar(c)), Box::new(LExpr::Const(1)));
            self.emit(Instr::Eval(assign(LValue::Scalar(c), next)));
            return;
        }
        let mut paths: Vec<Vec<usize>> = self.regions[r].leaves.keys().cloned().collect();
        paths.sort();
        for path in paths {
            let leaf = &self.regions[r].leaves[&path];
            if let (LeafTy::Int(_), 0, Some(Some(v))) = (&leaf.ty, leaf.dims, leaf.vars.first()) {
                let v = *v;
                if !self.dry {
                    self.facts_out.write_int((r, path), false, None);
                }
                self.emit(Instr::Havoc(v));
            }
        }
    }

    /// A local's initialiser: a one-dimensional integer array keeps the
    /// lowering's own instruction; other aggregates are zeroed first.
    fn local_init(&mut self, place: &Place, init: &'a Init) -> R<()> {
        if let (Type::Array(elem, size), Init::List(items, _), Some((var, _))) = (&place.ty, init, self.array_var(place)) {
            if let (Type::Int(t), true) = (&**elem, items.iter().all(|i| matches!(i, Init::Expr(e) if !matches!(e.kind, ExprKind::Str(_))))) {
                let t = *t;
                let n = size.as_ref().and_then(|n| self.static_const(n));
                let mut vals = vec![];
                for i in items {
                    let Init::Expr(e) = i else { unreachable!("plain items") };
                    let (val, vt) = self.rvalue(e)?;
                    vals.push(self.convert(val, vt, t, e.pos)?);
                }
                if !self.dry {
                    self.facts_out.write_int((place.region, place.path.clone()), true, None);
                }
                self.emit(Instr::InitArray(var, vals, n));
                return Ok(());
            }
        }
        if matches!(place.ty, Type::Array(..) | Type::Struct(_)) && matches!(init, Init::List(..)) {
            self.zero_fill(place.region, &place.idx.clone());
        }
        self.init_at(place, init)
    }

    /// The variable of a one-dimensional integer array place.
    fn array_var(&self, place: &Place) -> Option<(usize, usize)> {
        let leaf = self.regions.get(place.region)?.leaves.get(&place.path)?;
        match (leaf.vars.first(), leaf.dims) {
            (Some(Some(v)), 1) if place.idx.is_empty() => Some((*v, 1)),
            _ => None,
        }
    }

    /// Initialises the object at `place` from `init`.
    fn init_at(&mut self, place: &Place, init: &'a Init) -> R<()> {
        match (init, &place.ty) {
            (Init::Expr(e), Type::Array(elem, _)) if matches!(e.kind, ExprKind::Str(_)) && matches!(**elem, Type::Int(_)) => {
                let ExprKind::Str(bytes) = &e.kind else { unreachable!("a string") };
                for (k, b) in bytes.iter().chain([&0u8]).enumerate() {
                    let v = if **elem == Type::Int(IntTy { kind: IntKind::Char, signed: true }) { *b as i8 as i64 } else { *b as i64 };
                    let p = self.element(place, LExpr::Const(k as i64));
                    self.store(&p, Val::Int(LExpr::Const(v), IntTy::INT), true, e.pos)?;
                }
                Ok(())
            }
            (Init::Expr(e), _) => {
                let v = self.value(e)?;
                self.store(place, v, true, e.pos)
            }
            (Init::List(items, pos), Type::Array(..) | Type::Struct(_)) => {
                let mut k = 0;
                self.init_list(place, items, &mut k, *pos)
            }
            (Init::List(items, pos), _) => match items.as_slice() {
                [one] => self.init_at(place, one),
                _ => Err(self.unsupported(*pos, "a braced initialiser with several values for a scalar")),
            },
            (Init::Designated(_, _, pos), _) => Err(self.err(*pos, "a designator outside a braced list")),
        }
    }

    /// Initialises the members of the aggregate at `place` from the items
    /// of a braced list (from `items[*k]`, designators allowed) or, with
    /// brace elision, from as many plain items as its members take.
    fn init_list(&mut self, place: &Place, items: &'a [Init], k: &mut usize, pos: Pos) -> R<()> {
        let members = self.members(place, pos)?;
        let mut m = 0;
        while *k < items.len() {
            match &items[*k] {
                Init::Designated(ds, v, at) => {
                    let (first, rest) = ds.split_first().expect("a designator");
                    m = self.designated(first, &members, *at)?;
                    let mut target = self.member_place(place, &members, m, *at)?;
                    for d in rest {
                        let sub = self.members(&target, *at)?;
                        let j = self.designated(d, &sub, *at)?;
                        target = self.member_place(&target, &sub, j, *at)?;
                    }
                    self.init_at(&target, v)?;
                    *k += 1;
                }
                item => {
                    if members.bounded() && m >= members.len() {
                        return Ok(());
                    }
                    let target = self.member_place(place, &members, m, pos)?;
                    let elide = matches!(item, Init::Expr(e) if matches!(target.ty, Type::Array(..) | Type::Struct(_)) && !self.fits_whole(e, &target.ty));
                    if elide {
                        self.init_list(&target, items, k, pos)?;
                    } else {
                        self.init_at(&target, item)?;
                        *k += 1;
                    }
                }
            }
            m += 1;
        }
        Ok(())
    }

    /// Whether an initialiser expression initialises a whole aggregate (a
    /// struct of its type, a string for a character array).
    fn fits_whole(&mut self, e: &'a Expr, t: &Type) -> bool {
        match (&e.kind, t) {
            (ExprKind::Str(_), Type::Array(..)) => true,
            (_, Type::Struct(_)) => matches!(self.dry_run(|b| b.value(e)), Ok(Val::Obj(p)) if p.ty == *t),
            _ => false,
        }
    }

    /// The members of an aggregate: its elements (as many as its constant
    /// size, else unbounded) or its fields.
    fn members(&mut self, place: &Place, pos: Pos) -> R<Members> {
        match place.ty.clone() {
            Type::Array(_, n) => Ok(Members::Elements(n.and_then(|n| self.static_const(&n)))),
            Type::Struct(id) => {
                let fields = self.tu.structs[id].fields.as_ref().ok_or_else(|| self.err(pos, "initialising an incomplete struct"))?;
                Ok(Members::Fields(fields.iter().map(|f| f.name.clone()).collect()))
            }
            _ => Err(self.err(pos, "a braced list for a scalar member")),
        }
    }

    fn designated(&mut self, d: &'a Designator, members: &Members, pos: Pos) -> R<usize> {
        match (d, members) {
            (Designator::Index(e), Members::Elements(_)) => Ok(self.const_int(e)? as usize),
            (Designator::Field(f), Members::Fields(names)) => {
                names.iter().position(|n| n.as_deref() == Some(f.as_str())).ok_or_else(|| self.err(pos, format!("no member named '{f}'")))
            }
            _ => Err(self.err(pos, "a designator of the wrong kind for this object")),
        }
    }

    /// The place of the `m`-th member of an aggregate.
    fn member_place(&mut self, place: &Place, members: &Members, m: usize, pos: Pos) -> R<Place> {
        match members {
            Members::Elements(_) => Ok(self.element(place, LExpr::Const(m as i64))),
            Members::Fields(names) => {
                let Type::Struct(id) = place.ty else { unreachable!("a struct") };
                let fields = self.tu.structs[id].fields.as_ref().expect("a complete struct");
                if m >= names.len() {
                    return Err(self.err(pos, "more initialisers than members"));
                }
                if fields[m].bits.is_some() {
                    return Err(self.unsupported(pos, "bit-fields"));
                }
                let path = place.path.iter().copied().chain([m]).collect();
                Ok(Place { path, ty: fields[m].ty.clone(), indexed: false, ..place.clone() })
            }
        }
    }

    /// The element `k` of an array place.
    fn element(&self, place: &Place, k: LExpr) -> Place {
        let Type::Array(elem, _) = &place.ty else { unreachable!("an array") };
        let idx = place.idx.iter().cloned().chain([k]).collect();
        Place { idx, ty: (**elem).clone(), indexed: true, ..place.clone() }
    }

    /// Writes a value into a cell: an instruction, or while a global's
    /// initialiser is read, an initial value (which must be constant).
    pub(super) fn put(&mut self, lv: LValue, value: LExpr, pos: Pos) -> R<()> {
        let Some(cells) = &mut self.recording else {
            self.emit(Instr::Eval(assign(lv, value)));
            return Ok(());
        };
        let (var, idx) = match lv {
            LValue::Scalar(v) => (v, vec![]),
            LValue::Elem(v, idx) => (v, idx),
        };
        let consts: Option<Vec<i64>> = idx.iter().map(as_const).collect();
        let c = as_const(&fold(value));
        match (consts, c) {
            (Some(idx), Some(c)) => {
                cells.push((var, idx, c));
                Ok(())
            }
            _ => Err(self.unsupported(pos, "a global initialiser that is not constant")),
        }
    }
}

/// The members of an aggregate being initialised.
enum Members {
    /// Array elements, as many as the constant size when it is known.
    Elements(Option<i64>),
    /// Struct fields by name.
    Fields(Vec<Option<String>>),
}

impl Members {
    fn bounded(&self) -> bool {
        !matches!(self, Members::Elements(None))
    }
    fn len(&self) -> usize {
        match self {
            Members::Elements(n) => n.unwrap_or(0).max(0) as usize,
            Members::Fields(f) => f.len(),
        }
    }
}
