//! C objects as program variables: regions, places and pointers.
//!
//! A *region* is a declared variable (scalar, pointer, array, struct,
//! array of structs) or the objects of one allocation site (`malloc`,
//! `calloc`, `alloca`, a variable-length array). Its type is split into
//! leading array dimensions and a base type; each *leaf* of the base type
//! (an integer or a pointer, reached through struct fields and the arrays
//! inside them) is a program variable with one index per dimension:
//! `struct S s[n]; s[i].f` is the array `s.f` read at `i`. A site that may
//! run again while its earlier objects live (in a loop) numbers its
//! objects: an *instance* number is the first dimension, taken from a
//! counter at each allocation, so distinct allocations never share cells,
//! and a new object's cells hold whatever the (arbitrary) initial array
//! holds there.
//!
//! A *pointer* is a validity flag (0 for the null pointer) and the indices
//! of the object it points to, in a region known statically: `p = a + i`
//! is the flag 1 and the index `i` in `a`; `*(p + k)` reads `a` at `i + k`.
//! A pointer leaf stores these components in program variables (only those
//! not always the same constant). A pointer whose region cannot be known
//! (given objects of two regions) is rejected.

use super::facts::TargetKey;
use super::*;

/// A leaf of a type: its field path, what it holds, the dimensions of the
/// arrays on the way, and a name suffix (`.f.g`).
type LeafSpec = (Vec<usize>, LeafTy, usize, String);

/// What a leaf holds.
#[derive(Clone, Debug)]
pub(super) enum LeafTy {
    /// An integer of this type.
    Int(IntTy),
    /// A pointer to this type.
    Ptr(Type),
    /// Something arrax does not model (floating point, bit-fields).
    Unsupported(&'static str),
}

/// An integer or pointer reached from a region's base type.
#[derive(Clone, Debug)]
pub(super) struct Leaf {
    pub ty: LeafTy,
    /// Its dimensions: the region's and those of arrays in struct fields.
    pub dims: usize,
    /// The name of its variables (`s.f`).
    pub name: String,
    /// Its variables: the integer, or a pointer's components (flag first;
    /// `None`: always the same constant, or not created yet).
    pub vars: Vec<Option<usize>>,
    /// A pointer leaf's target, once a value was stored in this walk.
    pub target: Option<TargetKey>,
}

/// A C object or the objects of one allocation site.
#[derive(Clone, Debug)]
pub(super) struct Region {
    /// The name (of the variable, or of the allocation).
    pub name: String,
    /// The type of the whole region: the variable's type; for allocations
    /// an array of the element type (of arrays, with instance numbers).
    pub whole: Type,
    /// Leading dimensions (the instance number first when numbered).
    pub dims: usize,
    /// Whether it starts zeroed (globals).
    pub global: bool,
    /// Whether it is an allocation site.
    pub alloc: bool,
    /// The instance counter of a region whose objects are numbered.
    pub counter: Option<usize>,
    /// Leaves by field path.
    pub leaves: HashMap<Vec<usize>, Leaf>,
}

/// A place in memory: a region, a path of fields, the indices chosen so
/// far, and the type of the object there.
#[derive(Clone, Debug)]
pub(super) struct Place {
    pub region: usize,
    pub path: Vec<usize>,
    pub idx: Vec<LExpr>,
    pub ty: Type,
    /// Whether the last index selects an element of an array of `ty`
    /// (pointer arithmetic moves it).
    pub indexed: bool,
}

/// A pointer value.
#[derive(Clone, Debug)]
pub(super) struct Ptr {
    /// 1 for a valid pointer, 0 for the null pointer.
    pub flag: LExpr,
    /// The object pointed to (for a non-null pointer).
    pub at: Option<Place>,
    /// The type pointed to.
    pub pointee: Type,
    /// False while the walk does not know the object yet (a first walk).
    pub known: bool,
}

/// An allocation waiting for the type its result is given.
#[derive(Clone, Debug)]
pub(super) struct Alloc {
    /// Zeroed (`calloc`).
    pub zeroed: bool,
    /// A name for its region.
    pub name: String,
    pub pos: Pos,
}

/// The value of an expression.
#[derive(Clone, Debug)]
pub(super) enum Val {
    /// An integer of a C type.
    Int(LExpr, IntTy),
    /// A pointer.
    Ptr(Ptr),
    /// An object used as a whole (a struct, or an array before decaying).
    Obj(Place),
    /// A new allocation, typed by the pointer it is stored in.
    Alloc(Alloc),
}

/// The region number of the stand-in for objects a first walk does not know.
pub(super) const UNKNOWN: usize = usize::MAX;

impl<'a> Builder<'a> {
    // ----- regions -----

    /// The array dimensions of a type and its element type.
    pub(super) fn split_array<'t>(&self, t: &'t Type) -> (&'t Type, usize) {
        let mut t = t;
        let mut n = 0;
        while let Type::Array(e, _) = t {
            t = e;
            n += 1;
        }
        (t, n)
    }

    /// A new region of type `whole` (`multi`: numbered objects, `whole`
    /// then being an array of them).
    pub(super) fn new_region(&mut self, name: &str, whole: Type, global: bool, multi: bool, alloc: bool, pos: Pos) -> R<usize> {
        let (base, dims) = self.split_array(&whole);
        let base = base.clone();
        let leaves = self.leaves_of(&base, pos)?;
        let seq = self.regions.len();
        let counter = if multi { Some(self.new_var(&format!("{name}.count"), 0, true, IntTy::INT, pos, Some((seq, vec![usize::MAX])))?) } else { None };
        if let Some(c) = counter {
            self.initial.push(InitFact::Scalar(c, 0));
        }
        let mut region = Region { name: name.to_string(), whole, dims, global, alloc, counter, leaves: HashMap::default() };
        for (path, ty, inner, suffix) in leaves {
            let total = dims + inner;
            let lname = format!("{name}{suffix}");
            let vars = match &ty {
                LeafTy::Int(t) => vec![Some(self.new_var(&lname, total, global, *t, pos, Some((seq, path.clone())))?)],
                _ => vec![],
            };
            region.leaves.insert(path, Leaf { ty, dims: total, name: lname, vars, target: None });
        }
        self.regions.push(region);
        Ok(seq)
    }

    /// The leaves of a (non-array) type: field path, what it holds, the
    /// dimensions of the arrays on the way, and a name suffix (`.f.g`).
    fn leaves_of(&self, t: &Type, pos: Pos) -> R<Vec<LeafSpec>> {
        Ok(match t {
            Type::Int(i) => vec![(vec![], LeafTy::Int(*i), 0, String::new())],
            Type::Pointer(p) => vec![(vec![], LeafTy::Ptr((**p).clone()), 0, String::new())],
            Type::Unsupported(w) => vec![(vec![], LeafTy::Unsupported(w), 0, String::new())],
            Type::Struct(id) => {
                let def = &self.tu.structs[*id];
                if def.union {
                    return Err(self.unsupported(pos, "union types"));
                }
                let Some(fields) = &def.fields else {
                    return Err(self.err(pos, format!("the struct type '{}' is incomplete", def.tag.as_deref().unwrap_or("?"))));
                };
                let mut out = vec![];
                for (k, f) in fields.iter().enumerate() {
                    let (elem, n) = self.split_array(&f.ty);
                    let sub = if f.bits.is_some() { vec![(vec![], LeafTy::Unsupported("bit-fields"), 0, String::new())] } else { self.leaves_of(elem, f.pos)? };
                    let fname = f.name.as_ref().map_or(String::new(), |n| format!(".{n}"));
                    for (p, ty, inner, suffix) in sub {
                        out.push((std::iter::once(k).chain(p).collect(), ty, inner + n, format!("{fname}{suffix}")));
                    }
                }
                out
            }
            Type::Void => return Err(self.err(pos, "an object of type void")),
            Type::Function(..) => return Err(self.unsupported(pos, "function pointers")),
            Type::Array(..) => unreachable!("arrays are split off"),
        })
    }

    /// The field `name` of a struct type: its path (through anonymous
    /// members) and type.
    fn field(&self, id: usize, name: &str) -> Option<(Vec<usize>, Type)> {
        let fields = self.tu.structs[id].fields.as_ref()?;
        for (k, f) in fields.iter().enumerate() {
            match (&f.name, &f.ty) {
                (Some(n), _) if n == name => return Some((vec![k], f.ty.clone())),
                (None, Type::Struct(inner)) => {
                    if let Some((p, t)) = self.field(*inner, name) {
                        return Some((std::iter::once(k).chain(p).collect(), t));
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// The type of the object at a region's field path after `n` indices.
    fn object_type(&self, region: usize, path: &[usize], n: usize) -> Type {
        let mut t = self.regions[region].whole.clone();
        let (mut p, mut k) = (path.iter(), 0);
        loop {
            t = match t {
                Type::Array(e, _) if k < n => {
                    k += 1;
                    *e
                }
                Type::Struct(id) if k < n || p.len() > 0 => match p.next() {
                    Some(f) => self.tu.structs[id].fields.as_ref().map(|fs| fs[*f].ty.clone()).unwrap_or(Type::Void),
                    None => return Type::Struct(id),
                },
                other => return other,
            }
        }
    }

    // ----- places -----

    /// The place an lvalue expression designates.
    pub(super) fn place(&mut self, e: &'a Expr) -> R<Place> {
        match &e.kind {
            ExprKind::Ident(n) => match self.lookup(n).cloned() {
                Some(Binding::Region(r)) => Ok(self.whole(r)),
                Some(Binding::Unsupported(what)) => Err(self.unsupported(e.pos, what)),
                None if self.funcs.contains_key(n.as_str()) || self.declared.contains(n.as_str()) => Err(self.unsupported(e.pos, "function pointers")),
                None => Err(self.err(e.pos, format!("undeclared identifier '{n}'"))),
            },
            ExprKind::Index(a, i) => {
                let p = self.ptr_of(a, None)?;
                let (iv, _) = self.rvalue(i)?;
                let p = self.ptr_add(p, iv, e.pos)?;
                self.deref(p, e.pos)
            }
            ExprKind::Member(s, f, arrow) => {
                let p = if *arrow {
                    let ptr = self.ptr_of(s, None)?;
                    self.deref(ptr, e.pos)?
                } else {
                    self.place(s)?
                };
                self.member(p, f, e.pos)
            }
            ExprKind::Unary(UnOp::Deref, a) => {
                let ptr = self.ptr_of(a, None)?;
                self.deref(ptr, e.pos)
            }
            ExprKind::Call(..) | ExprKind::StmtExpr(_) | ExprKind::Comma(..) => match self.value(e)? {
                Val::Obj(p) => Ok(p),
                _ => Err(self.err(e.pos, "this expression cannot be assigned to")),
            },
            _ => Err(self.err(e.pos, "this expression cannot be assigned to")),
        }
    }

    /// The place of a whole region; for a declared array whose objects are
    /// numbered (declared in a loop), the current object.
    pub(super) fn whole(&self, r: usize) -> Place {
        let region = &self.regions[r];
        match (region.counter, region.alloc, &region.whole) {
            (Some(c), false, Type::Array(object, _)) => Place { region: r, path: vec![], idx: vec![LExpr::Scalar(c)], ty: (**object).clone(), indexed: false },
            _ => Place { region: r, path: vec![], idx: vec![], ty: region.whole.clone(), indexed: false },
        }
    }

    fn member(&self, p: Place, name: &str, pos: Pos) -> R<Place> {
        let Type::Struct(id) = p.ty else {
            return Err(self.err(pos, format!("'.{name}' of something that is not a struct")));
        };
        if p.region == UNKNOWN {
            return Ok(Place { ty: Type::Int(IntTy::INT), ..p });
        }
        if self.tu.structs[id].union {
            return Err(self.unsupported(pos, "union types"));
        }
        let Some((path, ty)) = self.field(id, name) else {
            return Err(self.err(pos, format!("no member named '{name}'")));
        };
        Ok(Place { path: p.path.into_iter().chain(path).collect(), ty, indexed: false, ..p })
    }

    /// The object a pointer points to.
    pub(super) fn deref(&mut self, p: Ptr, pos: Pos) -> R<Place> {
        match p.at {
            Some(at) => Ok(at),
            None if !p.known => {
                self.unknown_at(pos);
                Ok(Place { region: UNKNOWN, path: vec![], idx: vec![], ty: p.pointee, indexed: true })
            }
            None => Err(self.unsupported(pos, "dereferencing a pointer that is never made to point to an object (only null)")),
        }
    }

    /// Notes that a walk met a pointer whose object it does not know yet.
    pub(super) fn unknown_at(&mut self, pos: Pos) {
        self.defer(pos, "a pointer whose object is not known statically");
    }

    /// An unsupported construct that later walks may still resolve (with
    /// facts this walk did not have): reported only if the facts settle
    /// with it; the walk goes on.
    /// In a dry run only the types count: the value is marked unknown.
    pub(super) fn defer(&mut self, pos: Pos, what: &str) {
        if self.dry {
            self.dry_unknown = true;
            return;
        }
        self.facts_out.incomplete = true;
        if self.unknown.is_none() {
            self.unknown = Some(self.unsupported(pos, what));
        }
    }

    // ----- pointers -----

    /// The pointer an expression gives (arrays decay, `0` is null,
    /// allocations take their type from `want`, the pointed-to type).
    pub(super) fn ptr_of(&mut self, e: &'a Expr, want: Option<&Type>) -> R<Ptr> {
        let v = self.value(e)?;
        self.ptr_from(v, want, e.pos)
    }

    /// Converts a value to a pointer (see [`Builder::ptr_of`]).
    pub(super) fn ptr_from(&mut self, v: Val, want: Option<&Type>, pos: Pos) -> R<Ptr> {
        match v {
            Val::Ptr(p) => Ok(p),
            Val::Obj(place) => match place.ty.clone() {
                Type::Array(elem, _) => {
                    let idx = place.idx.iter().cloned().chain([LExpr::Const(0)]).collect();
                    let at = Place { idx, ty: (*elem).clone(), indexed: true, ..place };
                    Ok(Ptr { flag: LExpr::Const(1), at: Some(at), pointee: *elem, known: true })
                }
                _ => Err(self.err(pos, "a struct used as a pointer")),
            },
            Val::Int(LExpr::Const(0), _) => Ok(self.null(want)),
            Val::Int(..) => Err(self.unsupported(pos, "converting an integer to a pointer")),
            Val::Alloc(a) => self.allocate(a, want),
        }
    }

    /// The null pointer.
    pub(super) fn null(&self, want: Option<&Type>) -> Ptr {
        Ptr { flag: LExpr::Const(0), at: None, pointee: want.cloned().unwrap_or(Type::Void), known: true }
    }

    /// `p + k` (elements).
    pub(super) fn ptr_add(&mut self, p: Ptr, k: LExpr, pos: Pos) -> R<Ptr> {
        let Some(mut at) = p.at else {
            if !p.known {
                return Ok(p);
            }
            return Err(self.unsupported(pos, "arithmetic on a null pointer"));
        };
        if !at.indexed || at.idx.is_empty() {
            if as_const(&k) == Some(0) {
                return Ok(Ptr { at: Some(at), ..p });
            }
            return Err(self.unsupported(pos, "pointer arithmetic on a pointer to a single object (not into an array)"));
        }
        let last = at.idx.pop().expect("an index");
        at.idx.push(plus(last, k));
        Ok(Ptr { at: Some(at), ..p })
    }

    /// The value of a place.
    pub(super) fn load(&mut self, p: Place, pos: Pos) -> R<Val> {
        match p.ty.clone() {
            Type::Int(t) => {
                let (var, idx) = match self.int_leaf(&p, pos)? {
                    Some(x) => x,
                    None => return Ok(Val::Int(LExpr::Const(0), t)),
                };
                Ok(Val::Int(read(var, idx), t))
            }
            Type::Pointer(pt) => Ok(Val::Ptr(self.load_ptr(&p, &pt, pos)?)),
            Type::Array(..) | Type::Struct(_) => Ok(Val::Obj(p)),
            Type::Unsupported(what) => Err(self.unsupported(pos, what)),
            Type::Void => Err(self.err(pos, "a void value is used")),
            Type::Function(..) => Err(self.unsupported(pos, "function pointers")),
        }
    }

    /// The variable and indices of an integer place (`None` in the stand-in region).
    pub(super) fn int_leaf(&self, p: &Place, pos: Pos) -> R<Option<(usize, Vec<LExpr>)>> {
        if p.region == UNKNOWN {
            return Ok(None);
        }
        let leaf = &self.regions[p.region].leaves[&p.path];
        match (&leaf.ty, leaf.vars.first()) {
            (LeafTy::Int(_), Some(Some(v))) if leaf.dims == p.idx.len() => Ok(Some((*v, p.idx.clone()))),
            (LeafTy::Unsupported(what), _) => Err(self.unsupported(pos, what)),
            _ => Err(self.unsupported(pos, "an array used as a value")),
        }
    }

    /// The pointer stored at a place.
    fn load_ptr(&mut self, p: &Place, declared: &Type, pos: Pos) -> R<Ptr> {
        if p.region == UNKNOWN {
            return Ok(Ptr { flag: LExpr::Const(0), at: None, pointee: declared.clone(), known: false });
        }
        let key = (p.region, p.path.clone());
        let target = self.regions[p.region].leaves[&p.path].target.clone().or_else(|| self.facts.leaves.get(&key).and_then(|f| f.target.clone()));
        let Some((r, path, n, indexed)) = target else {
            // never given an object: null (or, before the facts are known, unknown)
            return Ok(Ptr { flag: LExpr::Const(0), at: None, pointee: declared.clone(), known: !self.first_walk });
        };
        if r >= self.regions.len() {
            // its object's region is created later in the walk (`sizeof *p` in p's initialiser)
            self.defer(pos, "a pointer used before its object is allocated, in the order of the program text");
            return Ok(Ptr { flag: LExpr::Const(0), at: None, pointee: declared.clone(), known: false });
        }
        let mut comps = vec![];
        for k in 0..=n {
            comps.push(match self.facts.component(&key, k) {
                Some(c) => LExpr::Const(c),
                None => read(self.component_var(p.region, &p.path, k, n, pos)?, p.idx.clone()),
            });
        }
        let flag = comps.remove(0);
        let ty = self.object_type(r, &path, n);
        let at = Place { region: r, path, idx: comps, ty: ty.clone(), indexed };
        Ok(Ptr { flag, at: Some(at), pointee: ty, known: true })
    }

    /// The variable of component `k` of a pointer leaf (of `n` indices),
    /// created at its first use.
    pub(super) fn component_var(&mut self, region: usize, path: &[usize], k: usize, n: usize, pos: Pos) -> R<usize> {
        let leaf = &self.regions[region].leaves[path];
        if let Some(Some(v)) = leaf.vars.get(k) {
            return Ok(*v);
        }
        let (dims, global, name) = (leaf.dims, self.regions[region].global, leaf.name.clone());
        let (suffix, range) = match k {
            0 => ("valid".to_string(), (0, 1)),
            _ if k == n => ("offset".to_string(), POINTER_RANGE),
            _ => (format!("index{k}"), POINTER_RANGE),
        };
        let v = self.new_var_range(&format!("{name}.{suffix}"), dims, global, range, Some((region, path.to_vec())))?;
        let _ = pos;
        let leaf = self.regions[region].leaves.get_mut(path).expect("a leaf");
        if leaf.vars.len() <= k {
            leaf.vars.resize(k + 1, None);
        }
        leaf.vars[k] = Some(v);
        Ok(v)
    }

    // ----- stores -----

    /// Stores a value at a place (`init`: by the object's initialiser).
    pub(super) fn store(&mut self, p: &Place, v: Val, init: bool, pos: Pos) -> R<()> {
        match p.ty.clone() {
            Type::Int(t) => {
                let Val::Int(e, et) = v else {
                    return Err(self.unsupported(pos, "converting a pointer or struct to an integer"));
                };
                let e = self.convert(e, et, t, pos)?;
                self.store_int(p, e, init, pos)
            }
            Type::Pointer(pt) => {
                let ptr = self.ptr_from(v, Some(&pt), pos)?;
                let ptr = self.cast_ptr(ptr, &pt, pos)?;
                self.store_ptr(p, ptr, pos)
            }
            Type::Struct(_) => match v {
                Val::Obj(src) if src.ty == p.ty => self.copy_struct(p, &src, pos),
                _ => Err(self.err(pos, "assigning something else to a struct")),
            },
            Type::Array(..) => Err(self.unsupported(pos, "assigning a whole array")),
            Type::Unsupported(what) => Err(self.unsupported(pos, what)),
            _ => Err(self.err(pos, "this expression cannot be assigned to")),
        }
    }

    /// Stores an integer (already of the place's type).
    pub(super) fn store_int(&mut self, p: &Place, e: LExpr, init: bool, pos: Pos) -> R<()> {
        let Some((var, idx)) = self.int_leaf(p, pos)? else {
            return Ok(());
        };
        let c = if p.idx.is_empty() { self.const_of(&e) } else { None };
        if !self.dry {
            self.facts_out.write_int((p.region, p.path.clone()), init, c);
        }
        let lv = if idx.is_empty() { LValue::Scalar(var) } else { LValue::Elem(var, idx) };
        self.put(lv, e, pos)
    }

    /// Stores a pointer: its flag, and for a non-null one the indices of
    /// its object (in the leaf's one region).
    pub(super) fn store_ptr(&mut self, p: &Place, ptr: Ptr, pos: Pos) -> R<()> {
        if p.region == UNKNOWN {
            return Ok(());
        }
        if !ptr.known {
            self.unknown_at(pos);
            return Ok(());
        }
        let key = (p.region, p.path.clone());
        let mut comps = vec![ptr.flag.clone()];
        let target = match &ptr.at {
            Some(at) => {
                comps.extend(at.idx.iter().cloned());
                Some((at.region, at.path.clone(), at.idx.len(), at.indexed))
            }
            None => None,
        };
        if let Some(t) = &target {
            let leaf = self.regions[p.region].leaves.get_mut(&p.path).expect("a pointer leaf");
            let known = leaf.target.clone().or_else(|| self.facts.leaves.get(&key).and_then(|f| f.target.clone()));
            match known {
                Some(old) if old != *t => {
                    let (a, b) = (&self.regions[old.0].name, &self.regions[t.0].name);
                    let msg = format!("a pointer given objects of two regions ('{a}' and '{b}'); arrax needs one region per pointer");
                    return Err(self.unsupported(pos, msg));
                }
                _ => self.regions[p.region].leaves.get_mut(&p.path).expect("a pointer leaf").target = Some(t.clone()),
            }
        }
        // a component copied from itself (`p = realloc(p, n)`) is no write
        let own = self.regions[p.region].leaves[&p.path].vars.clone();
        let copied = |k: usize, c: &LExpr| p.idx.is_empty() && matches!(c, LExpr::Scalar(v) if own.get(k) == Some(&Some(*v)));
        let consts: Vec<Option<Option<i64>>> = comps.iter().enumerate().map(|(k, c)| (!copied(k, c)).then(|| self.const_of(c))).collect();
        if !self.dry {
            self.facts_out.write_ptr(key.clone(), &consts, target.clone());
        }
        let n = target.as_ref().map_or(0, |t| t.2);
        for (k, c) in comps.into_iter().enumerate() {
            let Some(value) = consts[k] else { continue };
            if self.facts.component(&key, k).is_some() && value == self.facts.component(&key, k) {
                continue;
            }
            let var = self.component_var(p.region, &p.path, k, n.max(k), pos)?;
            let lv = if p.idx.is_empty() { LValue::Scalar(var) } else { LValue::Elem(var, p.idx.clone()) };
            self.put(lv, c, pos)?;
        }
        Ok(())
    }

    /// A pointer converted to point to `to`: to `void *`, or from any
    /// pointer to its object's own type (never reinterpreting memory).
    pub(super) fn cast_ptr(&mut self, p: Ptr, to: &Type, pos: Pos) -> R<Ptr> {
        if *to == Type::Void {
            return Ok(p);
        }
        match &p.at {
            Some(at) if !same_object_type(&at.ty, to) => Err(self.unsupported(pos, "converting a pointer to another type than its object's")),
            _ => Ok(Ptr { pointee: to.clone(), ..p }),
        }
    }

    /// Copies a struct field by field.
    fn copy_struct(&mut self, dst: &Place, src: &Place, pos: Pos) -> R<()> {
        if dst.region == UNKNOWN || src.region == UNKNOWN {
            return Ok(());
        }
        let mut paths: Vec<Vec<usize>> =
            self.regions[dst.region].leaves.keys().filter(|p| p.starts_with(&dst.path)).map(|p| p[dst.path.len()..].to_vec()).collect();
        paths.sort();
        for sub in paths {
            let dpath: Vec<usize> = dst.path.iter().chain(&sub).copied().collect();
            let spath: Vec<usize> = src.path.iter().chain(&sub).copied().collect();
            let leaf = &self.regions[dst.region].leaves[&dpath];
            if leaf.dims != dst.idx.len() {
                return Err(self.unsupported(pos, "copying a struct that contains arrays"));
            }
            let ty = match &leaf.ty {
                LeafTy::Int(t) => Type::Int(*t),
                LeafTy::Ptr(t) => Type::Pointer(Box::new(t.clone())),
                LeafTy::Unsupported(w) => return Err(self.unsupported(pos, w)),
            };
            let s = Place { path: spath, ty: ty.clone(), indexed: false, ..src.clone() };
            let d = Place { path: dpath, ty, indexed: false, ..dst.clone() };
            let v = self.load(s, pos)?;
            self.store(&d, v, false, pos)?;
        }
        Ok(())
    }

    // ----- comparisons -----

    /// `p == q` (1 or 0): both null, or both valid in the same object.
    pub(super) fn ptr_eq(&self, p: &Ptr, q: &Ptr) -> LExpr {
        let bx = Box::new;
        let eq = |a: &LExpr, b: &LExpr| fold(LExpr::Cmp(Cmp::Eq, bx(a.clone()), bx(b.clone())));
        let both_null = fold(LExpr::And(bx(eq(&p.flag, &LExpr::Const(0))), bx(eq(&q.flag, &LExpr::Const(0)))));
        match (&p.at, &q.at) {
            (Some(a), Some(b)) if a.region == b.region && a.path == b.path && a.idx.len() == b.idx.len() => {
                let same = a.idx.iter().zip(&b.idx).fold(eq(&p.flag, &q.flag), |acc, (x, y)| fold(LExpr::And(bx(acc), bx(eq(x, y)))));
                fold(LExpr::Or(bx(both_null), bx(same)))
            }
            (Some(_), Some(_)) => both_null,
            (Some(_), None) | (None, Some(_)) | (None, None) => both_null,
        }
    }

    /// The offsets of two pointers into one array, for `<`, `<=` and `-`.
    pub(super) fn offsets(&mut self, p: &Ptr, q: &Ptr, pos: Pos) -> R<(LExpr, LExpr)> {
        match (&p.at, &q.at) {
            (Some(a), Some(b)) if a.region == b.region && a.path == b.path && a.indexed && b.indexed && a.idx.len() == b.idx.len() => {
                Ok((a.idx.last().expect("an index").clone(), b.idx.last().expect("an index").clone()))
            }
            _ if !p.known || !q.known => {
                self.unknown_at(pos);
                Ok((LExpr::Const(0), LExpr::Const(0)))
            }
            _ => Err(self.unsupported(pos, "comparing or subtracting pointers that are not into one array")),
        }
    }

    // ----- allocation -----

    /// The region of an allocation, typed by the pointer that receives it.
    fn allocate(&mut self, a: Alloc, want: Option<&Type>) -> R<Ptr> {
        let elem = match want {
            Some(t) if *t != Type::Void => t.clone(),
            _ => return Err(self.unsupported(a.pos, "an allocation whose element type is not known (store it in a typed pointer, or cast it)")),
        };
        let multi = self.in_loop();
        let whole = Type::Array(Box::new(elem.clone()), None);
        let whole = if multi { Type::Array(Box::new(whole), None) } else { whole };
        let r = self.new_region(&a.name, whole, false, multi, true, a.pos)?;
        let mut idx = vec![LExpr::Const(0)];
        if let Some(c) = self.regions[r].counter {
            // a new instance number
            let one = LExpr::Const(1);
            self.emit(Instr::Eval(assign(LValue::Scalar(c), LExpr::Arith(Arith::Add, Box::new(LExpr::Scalar(c)), Box::new(one)))));
            idx.insert(0, LExpr::Scalar(c));
        }
        if a.zeroed {
            self.zero_fill(r, &idx[..idx.len() - 1]);
        }
        let at = Place { region: r, path: vec![], idx, ty: elem.clone(), indexed: true };
        Ok(Ptr { flag: LExpr::Const(1), at: Some(at), pointee: elem, known: true })
    }

    /// Sets every cell of a region whose indices start with `prefix` to 0
    /// (null for pointers).
    /// A fill of whole arrays in an object that is new (an allocation's
    /// instance, or a declaration that runs once) is an initial fact: the
    /// object's cells were never reachable before.
    pub(super) fn zero_fill(&mut self, r: usize, prefix: &[LExpr]) {
        if self.recording.is_some() {
            return;
        }
        let fresh = self.regions[r].alloc || !self.in_loop();
        let fill = |b: &mut Self, v: usize| {
            if fresh && b.vars[v].dims > prefix.len() {
                b.initial.push(InitFact::Array(v, vec![]));
            } else {
                b.emit(Instr::Fill(v, prefix.to_vec(), LExpr::Const(0)));
            }
        };
        let mut paths: Vec<Vec<usize>> = self.regions[r].leaves.keys().cloned().collect();
        paths.sort();
        for path in paths {
            let leaf = self.regions[r].leaves[&path].clone();
            let key = (r, path.clone());
            match leaf.ty {
                LeafTy::Int(_) => {
                    if let Some(Some(v)) = leaf.vars.first() {
                        if !self.dry {
                            self.facts_out.write_int(key, false, None);
                        }
                        fill(self, *v);
                    }
                }
                LeafTy::Ptr(_) => {
                    if !self.dry {
                        self.facts_out.write_ptr(key.clone(), &[Some(Some(0))], None);
                    }
                    if self.facts.component(&key, 0) != Some(0) {
                        if let Ok(v) = self.component_var(r, &path, 0, 1, 0) {
                            fill(self, v);
                        }
                    }
                }
                LeafTy::Unsupported(_) => {}
            }
        }
    }

    /// Whether code here may run again while objects it allocated live (in
    /// a loop, or after a label a `goto` may return to).
    pub(super) fn in_loop(&self) -> bool {
        self.loop_depth > 0 || self.frames.iter().any(|f| f.labels.values().any(|(_, defined)| *defined))
    }
}

/// The range of a pointer's indices in the initial state.
const POINTER_RANGE: (i64, i64) = (-(1 << 62), 1 << 62);

/// Whether two pointed-to types are the same object type (array sizes
/// aside: they are expressions where the types are written).
fn same_object_type(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::Array(x, _), Type::Array(y, _)) => same_object_type(x, y),
        (Type::Pointer(x), Type::Pointer(y)) => same_object_type(x, y) || **x == Type::Void || **y == Type::Void,
        _ => a == b,
    }
}

/// A read of a variable at indices (a scalar for none).
pub(super) fn read(var: usize, idx: Vec<LExpr>) -> LExpr {
    if idx.is_empty() {
        LExpr::Scalar(var)
    } else {
        LExpr::Read(var, idx)
    }
}

/// `a + b`, with 0 folded away.
pub(super) fn plus(a: LExpr, b: LExpr) -> LExpr {
    match (as_const(&a), as_const(&b)) {
        (Some(0), _) => b,
        (_, Some(0)) => a,
        _ => fold(LExpr::Arith(Arith::Add, Box::new(a), Box::new(b))),
    }
}
