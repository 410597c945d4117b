//! Declarations: specifiers, declarators, initialisers, struct, union and
//! enumeration types, type names and the file's top-level items.

use super::expr::eval_const;
use super::{Parser, QUALIFIERS};
use crate::frontend::c::ast::*;
use crate::frontend::c::lex::Tok;
use crate::frontend::Diagnostic;

/// A declarator: its name (if not abstract) and the derivations to apply
/// to the base type.
type Declarator = (Option<(String, Pos)>, Vec<Derived>);

/// A part of a declarator, applied to the base type in order.
enum Derived {
    Pointer,
    Array(Option<Box<Expr>>),
    Function(Vec<Param>, bool),
}

fn apply(base: Type, ops: Vec<Derived>) -> Type {
    ops.into_iter().fold(base, |t, op| match op {
        Derived::Pointer => Type::Pointer(Box::new(t)),
        Derived::Array(n) => Type::Array(Box::new(t), n),
        Derived::Function(ps, v) => Type::Function(Box::new(t), ps, v),
    })
}

/// Counts of the type-specifier keywords of one declaration.
#[derive(Default)]
struct Specs {
    void: bool,
    char: bool,
    short: bool,
    int: bool,
    long: u8,
    signed: bool,
    unsigned: bool,
    bool_: bool,
    other: Option<Type>,
}

impl Specs {
    /// Whether a type specifier (not just a qualifier) was seen.
    fn has_type(&self) -> bool {
        self.void || self.char || self.short || self.int || self.long > 0 || self.signed || self.unsigned || self.bool_ || self.other.is_some()
    }
}

impl Parser<'_> {
    /// Declaration specifiers: storage class, qualifiers and the base type.
    fn specifiers(&mut self) -> Result<(Storage, Type), Diagnostic> {
        let start = self.pos();
        let mut storage = Storage::Plain;
        let mut s = Specs::default();
        let mut any = false;
        while let Tok::Ident(w) = self.peek().clone() {
            match w.as_str() {
                "typedef" => storage = Storage::Typedef,
                "extern" => storage = Storage::Extern,
                "static" => storage = Storage::Static,
                "__attribute__" | "__attribute" => {
                    self.skip_annotations()?;
                    continue;
                }
                q if QUALIFIERS.contains(&q) => {}
                "void" => s.void = true,
                "char" => s.char = true,
                "short" => s.short = true,
                "int" => s.int = true,
                "long" => s.long += 1,
                "signed" | "__signed__" | "__signed" => s.signed = true,
                "unsigned" => s.unsigned = true,
                "_Bool" => s.bool_ = true,
                "float" | "double" | "_Complex" | "_Float128" | "__float128" => s.other = Some(Type::Unsupported("floating point")),
                "__int128" => s.other = Some(Type::Unsupported("128-bit integers")),
                "__builtin_va_list" => s.other = Some(Type::Unsupported("variadic argument lists")),
                "struct" | "union" => {
                    self.bump();
                    s.other = Some(Type::Struct(self.struct_type(w == "union")?));
                    any = true;
                    continue;
                }
                "enum" => {
                    self.bump();
                    self.skip_annotations()?;
                    if matches!(self.peek(), Tok::Ident(_)) {
                        self.bump();
                    }
                    if self.is("{") {
                        self.enum_body()?;
                    }
                    s.int = true;
                    any = true;
                    continue;
                }
                name if !s.has_type() && self.typedefs.contains_key(name) => {
                    s.other = self.typedefs.get(name).cloned();
                }
                _ => break,
            }
            any = true;
            self.bump();
        }
        if !any {
            return Err(self.err_at(start, "syntax error: expected a type"));
        }
        let signed = !s.unsigned;
        let ty = if let Some(t) = s.other {
            t
        } else if s.void {
            Type::Void
        } else if s.bool_ {
            Type::Int(IntTy { kind: IntKind::Bool, signed: false })
        } else {
            let kind = if s.char {
                IntKind::Char
            } else if s.short {
                IntKind::Short
            } else if s.long >= 2 {
                IntKind::LongLong
            } else if s.long == 1 {
                IntKind::Long
            } else {
                IntKind::Int
            };
            Type::Int(IntTy { kind, signed })
        };
        Ok((storage, ty))
    }

    /// The type after `struct` or `union`: a tag, a body, or both. A body
    /// defines a new type (completing one only declared with its tag).
    fn struct_type(&mut self, union: bool) -> Result<usize, Diagnostic> {
        let pos = self.pos();
        self.skip_annotations()?;
        let tag = match self.peek().clone() {
            Tok::Ident(t) => {
                self.bump();
                Some(t)
            }
            _ => None,
        };
        self.skip_annotations()?;
        let known = tag.as_ref().and_then(|t| self.tags.get(t).copied());
        if !self.is("{") {
            if let Some(id) = known {
                return Ok(id);
            }
            let Some(t) = tag else { return Err(self.expected("a struct tag or '{'")) };
            self.structs.push(StructDef { tag: Some(t.clone()), union, fields: None, pos });
            self.tags.insert(t, self.structs.len() - 1);
            return Ok(self.structs.len() - 1);
        }
        let id = match known {
            Some(id) if self.structs[id].fields.is_none() => id,
            _ => {
                self.structs.push(StructDef { tag: tag.clone(), union, fields: None, pos });
                self.structs.len() - 1
            }
        };
        if let Some(t) = tag {
            self.tags.insert(t, id);
        }
        let fields = self.struct_body()?;
        self.structs[id].fields = Some(fields);
        self.skip_annotations()?;
        Ok(id)
    }

    /// `{ members }` of a struct or union.
    fn struct_body(&mut self) -> Result<Vec<Field>, Diagnostic> {
        self.expect("{")?;
        let mut fields = vec![];
        while !self.eat("}") {
            if self.eat(";") {
                continue;
            }
            let pos = self.pos();
            let (_, base) = self.specifiers()?;
            if self.eat(";") {
                // an anonymous struct or union member
                fields.push(Field { name: None, ty: base, bits: None, pos });
                continue;
            }
            loop {
                let (name, ops) = if self.is(":") { (None, vec![]) } else { self.declarator(false)? };
                let bits = if self.eat(":") { Some(Box::new(self.conditional()?)) } else { None };
                self.skip_annotations()?;
                let pos = name.as_ref().map_or(pos, |n| n.1);
                fields.push(Field { name: name.map(|n| n.0), ty: apply(base.clone(), ops), bits, pos });
                if !self.eat(",") {
                    break;
                }
            }
            self.expect(";")?;
        }
        Ok(fields)
    }

    /// `{ A, B = 3, … }` of an enumeration: the constants' values are recorded.
    fn enum_body(&mut self) -> Result<(), Diagnostic> {
        self.expect("{")?;
        let mut next = 0i64;
        while !self.is("}") {
            let (name, _) = self.ident()?;
            self.skip_annotations()?;
            if self.eat("=") {
                let e = self.conditional()?;
                next = self.const_value(&e)?;
            }
            self.enumerators.insert(name, next);
            next += 1;
            if !self.eat(",") {
                break;
            }
        }
        self.expect("}")
    }

    /// The value of a constant expression (enumerator values).
    fn const_value(&self, e: &Expr) -> Result<i64, Diagnostic> {
        eval_const(e, &self.enumerators)
            .and_then(|v| i64::try_from(v).ok())
            .ok_or_else(|| self.err_at(e.pos, "unsupported: enumerator value is not an integer constant"))
    }

    /// A declarator (named, or abstract when `abstract_ok`): the name and
    /// the derivations to apply to the base type.
    fn declarator(&mut self, abstract_ok: bool) -> Result<Declarator, Diagnostic> {
        self.deeper()?;
        let mut ptrs = 0;
        while self.eat("*") {
            ptrs += 1;
            while let Tok::Ident(w) = self.peek() {
                if QUALIFIERS.contains(&w.as_str()) {
                    self.bump();
                } else if w == "__attribute__" {
                    self.skip_annotations()?;
                } else {
                    break;
                }
            }
        }
        self.skip_annotations()?;
        let (name, inner) = if self.is("(") && matches!(self.peek_at(1), Tok::Punct("*")) {
            self.bump();
            let d = self.declarator(abstract_ok)?;
            self.expect(")")?;
            d
        } else if let Tok::Ident(n) = self.peek().clone() {
            if self.starts_type(0) && abstract_ok {
                (None, vec![])
            } else {
                let pos = self.pos();
                self.bump();
                (Some((n, pos)), vec![])
            }
        } else if abstract_ok {
            (None, vec![])
        } else {
            return Err(self.expected("a declarator"));
        };
        let mut suffixes = vec![];
        loop {
            if self.eat("[") {
                while let Tok::Ident(w) = self.peek() {
                    if QUALIFIERS.contains(&w.as_str()) || w == "static" {
                        self.bump();
                    } else {
                        break;
                    }
                }
                let size = if self.is("]") { None } else { Some(Box::new(self.assignment()?)) };
                self.expect("]")?;
                suffixes.push(Derived::Array(size));
            } else if self.is("(") {
                let (ps, variadic) = self.params()?;
                suffixes.push(Derived::Function(ps, variadic));
            } else {
                break;
            }
        }
        let mut ops: Vec<Derived> = (0..ptrs).map(|_| Derived::Pointer).collect();
        ops.extend(suffixes.into_iter().rev());
        ops.extend(inner);
        self.depth -= 1;
        Ok((name, ops))
    }

    /// `( params )` of a function declarator.
    fn params(&mut self) -> Result<(Vec<Param>, bool), Diagnostic> {
        self.expect("(")?;
        let mut ps = vec![];
        if self.eat(")") {
            return Ok((ps, false));
        }
        if self.is_word("void") && matches!(self.peek_at(1), Tok::Punct(")")) {
            self.bump();
            self.bump();
            return Ok((ps, false));
        }
        loop {
            if self.eat("...") {
                self.expect(")")?;
                return Ok((ps, true));
            }
            let pos = self.pos();
            let (_, base) = self.specifiers()?;
            let (name, ops) = self.declarator(true)?;
            self.skip_annotations()?;
            let pos = name.as_ref().map(|n| n.1).unwrap_or(pos);
            ps.push(Param { name: name.map(|n| n.0), ty: apply(base, ops), pos });
            if !self.eat(",") {
                break;
            }
        }
        self.expect(")")?;
        Ok((ps, false))
    }

    fn initializer(&mut self) -> Result<Init, Diagnostic> {
        if self.is("{") {
            let pos = self.pos();
            self.bump();
            let mut items = vec![];
            while !self.is("}") {
                let at = self.pos();
                let mut designators = vec![];
                loop {
                    if self.eat(".") {
                        designators.push(Designator::Field(self.ident()?.0));
                    } else if self.eat("[") {
                        designators.push(Designator::Index(self.conditional()?));
                        self.expect("]")?;
                    } else {
                        break;
                    }
                }
                if designators.is_empty() {
                    items.push(self.initializer()?);
                } else {
                    self.expect("=")?;
                    items.push(Init::Designated(designators, Box::new(self.initializer()?), at));
                }
                if !self.eat(",") {
                    break;
                }
            }
            self.expect("}")?;
            Ok(Init::List(items, pos))
        } else {
            Ok(Init::Expr(self.assignment()?))
        }
    }

    /// The declarators of a declaration after its specifiers, up to `;`.
    fn init_declarators(&mut self, storage: Storage, base: &Type, first: Declarator) -> Result<Vec<Decl>, Diagnostic> {
        let mut decls = vec![];
        let mut d = first;
        loop {
            self.skip_annotations()?;
            let Some((name, pos)) = d.0 else {
                return Err(self.expected("a declarator"));
            };
            let ty = apply(base.clone(), d.1);
            let init = if self.eat("=") { Some(self.initializer()?) } else { None };
            self.skip_annotations()?;
            if storage == Storage::Typedef {
                self.typedefs.insert(name.clone(), ty.clone());
            }
            decls.push(Decl { name, ty, storage, init, pos });
            if self.eat(";") {
                return Ok(decls);
            }
            if !self.eat(",") {
                return Err(self.expected("',' or ';'"));
            }
            d = self.declarator(false)?;
        }
    }

    /// A top-level declaration or function definition (a name followed
    /// by `(` without a type is a function returning `int`, K&R style).
    pub(super) fn external(&mut self, items: &mut Vec<Item>) -> Result<(), Diagnostic> {
        let implicit_int = matches!(self.peek(), Tok::Ident(_)) && !self.starts_type(0) && self.is_at(1, "(");
        let (storage, base) = if implicit_int { (Storage::Plain, Type::Int(IntTy::INT)) } else { self.specifiers()? };
        if self.eat(";") {
            return Ok(());
        }
        let d = self.declarator(false)?;
        self.skip_annotations()?;
        if self.is("{") {
            if let (Some((name, pos)), [.., Derived::Function(..)]) = (&d.0, d.1.as_slice()) {
                let (name, pos) = (name.clone(), *pos);
                let Type::Function(ret, params, _) = apply(base, d.1) else { unreachable!("a function declarator") };
                let body = self.block()?;
                items.push(Item::Function(Function { name, ret: *ret, params, body, pos }));
                return Ok(());
            }
            return Err(self.expected("';'"));
        }
        let decls = self.init_declarators(storage, &base, d)?;
        items.push(Item::Decl(decls));
        Ok(())
    }

    /// A declaration statement (after checking [`Parser::starts_type`]).
    pub(super) fn declaration(&mut self) -> Result<Stmt, Diagnostic> {
        let pos = self.pos();
        let (storage, base) = self.specifiers()?;
        if self.eat(";") {
            return Ok(Stmt { kind: StmtKind::Decl(vec![]), pos });
        }
        let d = self.declarator(false)?;
        let decls = self.init_declarators(storage, &base, d)?;
        Ok(Stmt { kind: StmtKind::Decl(decls), pos })
    }

    /// A type name `specifiers abstract-declarator` (in casts and `sizeof`).
    pub(super) fn type_name(&mut self) -> Result<Type, Diagnostic> {
        let (_, base) = self.specifiers()?;
        let (name, ops) = self.declarator(true)?;
        if let Some((_, pos)) = name {
            return Err(self.err_at(pos, "syntax error: expected a type name"));
        }
        Ok(apply(base, ops))
    }
}
