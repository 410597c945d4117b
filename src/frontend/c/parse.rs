//! The C parser: recursive descent over the tokens of [`super::lex`],
//! with typedef names tracked so that declarations, casts and expressions
//! can be told apart. GNU extensions of preprocessed headers are read and
//! dropped: `__attribute__((…))`, `__extension__`, `__asm__(…)`,
//! `__restrict`, `__inline`; struct and union bodies are skipped (their
//! types are [`Type::Unsupported`]).

use super::ast::*;
use super::lex::{Tok, Token};
use crate::frontend::Diagnostic;
use std::collections::HashMap;
use std::time::Instant;

/// The deepest nesting of statements and expressions accepted.
const MAX_DEPTH: usize = 300;

/// Parses a whole C file from its preprocessed tokens (ending with
/// [`Tok::Eof`]); `deadline` bounds the time spent (a timeout diagnostic).
pub fn parse(src: &str, toks: Vec<Token>, deadline: Option<Instant>) -> Result<TranslationUnit, Diagnostic> {
    let mut p = Parser::new(src, toks);
    let mut items = vec![];
    while p.peek() != &Tok::Eof {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Diagnostic::timeout());
        }
        if p.eat(";") {
            continue;
        }
        p.external(&mut items)?;
    }
    Ok(TranslationUnit { items, structs: p.structs })
}

/// The value of the constant expression the tokens spell (`#if`'s): a
/// conditional expression and nothing after it.
pub fn constant(src: &str, toks: Vec<Token>) -> Result<i128, Diagnostic> {
    let mut p = Parser::new(src, toks);
    let e = p.conditional()?;
    if p.peek() != &Tok::Eof {
        return Err(p.expected("the end of the #if expression"));
    }
    eval_const(&e, &p.enumerators).ok_or_else(|| p.err_at(e.pos, "#if: not an integer constant expression"))
}

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

const QUALIFIERS: &[&str] = &[
    "const",
    "volatile",
    "restrict",
    "__restrict",
    "__restrict__",
    "inline",
    "__inline",
    "__inline__",
    "_Noreturn",
    "__extension__",
    "__const",
    "__volatile__",
    "__volatile",
    "auto",
    "register",
    "_Thread_local",
    "__thread",
];
const TYPE_WORDS: &[&str] = &[
    "void",
    "char",
    "short",
    "int",
    "long",
    "float",
    "double",
    "signed",
    "unsigned",
    "__signed__",
    "__signed",
    "_Bool",
    "struct",
    "union",
    "enum",
    "_Complex",
    "__int128",
    "__builtin_va_list",
    "_Float128",
    "__float128",
    "typedef",
    "extern",
    "static",
    "__attribute__",
    "__attribute",
];

struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    i: usize,
    typedefs: HashMap<String, Type>,
    enumerators: HashMap<String, i64>,
    depth: usize,
    /// The struct and union types met so far.
    structs: Vec<StructDef>,
    /// Struct and union tags (one name space for the whole file).
    tags: HashMap<String, usize>,
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

impl<'a> Parser<'a> {
    fn new(src: &'a str, toks: Vec<Token>) -> Parser<'a> {
        Parser { src, toks, i: 0, typedefs: HashMap::new(), enumerators: HashMap::new(), depth: 0, structs: vec![], tags: HashMap::new() }
    }

    // ----- tokens -----

    fn peek(&self) -> &Tok {
        &self.toks[self.i].tok
    }
    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.i + k).min(self.toks.len() - 1)].tok
    }
    fn pos(&self) -> Pos {
        self.toks[self.i].pos
    }
    fn bump(&mut self) -> Tok {
        let t = self.toks[self.i].tok.clone();
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }
    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }
    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == w)
    }
    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn eat_word(&mut self, w: &str) -> bool {
        if self.is_word(w) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn describe(t: &Tok) -> String {
        match t {
            Tok::Ident(s) => format!("'{s}'"),
            Tok::Int(v, _) => format!("'{v}'"),
            Tok::Float => "a floating-point constant".into(),
            Tok::Char(_) => "a character constant".into(),
            Tok::Str(_) => "a string literal".into(),
            Tok::Punct(p) => format!("'{p}'"),
            Tok::Bad(_) => "a bad token".into(),
            Tok::Eof => "the end of the input".into(),
        }
    }
    fn err_at(&self, pos: Pos, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.src, pos, msg)
    }
    fn expected(&self, what: &str) -> Diagnostic {
        if let Tok::Bad(why) = self.peek() {
            return self.err_at(self.pos(), why.clone());
        }
        self.err_at(self.pos(), format!("syntax error: expected {what}, found {}", Self::describe(self.peek())))
    }
    fn expect(&mut self, p: &str) -> Result<(), Diagnostic> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(self.expected(&format!("'{p}'")))
        }
    }
    fn ident(&mut self) -> Result<(String, Pos), Diagnostic> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.bump();
                Ok((s, pos))
            }
            _ => Err(self.expected("an identifier")),
        }
    }
    fn deeper(&mut self) -> Result<(), Diagnostic> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err_at(self.pos(), "unsupported: nesting deeper than 300 levels"));
        }
        Ok(())
    }

    /// Skips a balanced `( … )` group starting at the current `(`.
    fn skip_parens(&mut self, open: &str, close: &str) -> Result<(), Diagnostic> {
        let start = self.pos();
        self.expect(open)?;
        let mut level = 1;
        while level > 0 {
            match self.bump() {
                Tok::Punct(p) if p == open => level += 1,
                Tok::Punct(p) if p == close => level -= 1,
                Tok::Eof => return Err(self.err_at(start, format!("syntax error: unbalanced '{open}'"))),
                _ => {}
            }
        }
        Ok(())
    }

    /// Skips `__attribute__((…))` and `__asm__(…)` annotations.
    fn skip_annotations(&mut self) -> Result<(), Diagnostic> {
        loop {
            if self.eat_word("__attribute__") || self.eat_word("__attribute") {
                self.skip_parens("(", ")")?;
            } else if self.eat_word("__asm__") || self.eat_word("__asm") || self.eat_word("asm") {
                while self.eat_word("volatile") || self.eat_word("__volatile__") {}
                self.skip_parens("(", ")")?;
            } else {
                return Ok(());
            }
        }
    }

    /// Whether the token `k` ahead starts a type (a declaration or a type name).
    fn starts_type(&self, k: usize) -> bool {
        match self.peek_at(k) {
            Tok::Ident(s) => TYPE_WORDS.contains(&s.as_str()) || QUALIFIERS.contains(&s.as_str()) || self.typedefs.contains_key(s),
            _ => false,
        }
    }

    /// Whether the token `k` ahead starts a type, `__extension__` counting
    /// only when a type follows it (else it prefixes an expression).
    fn starts_declaration(&self, k: usize) -> bool {
        self.starts_type(k) && (!self.is_word_at(k, "__extension__") || self.starts_type(k + 1))
    }

    // ----- declarations -----

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
    fn external(&mut self, items: &mut Vec<Item>) -> Result<(), Diagnostic> {
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

    // ----- statements -----

    fn block(&mut self) -> Result<Vec<Stmt>, Diagnostic> {
        self.expect("{")?;
        let mut out = vec![];
        while !self.eat("}") {
            if self.peek() == &Tok::Eof {
                return Err(self.expected("'}'"));
            }
            out.push(self.statement()?);
        }
        Ok(out)
    }

    /// A declaration statement (after checking [`Parser::starts_type`]).
    fn declaration(&mut self) -> Result<Stmt, Diagnostic> {
        let pos = self.pos();
        let (storage, base) = self.specifiers()?;
        if self.eat(";") {
            return Ok(Stmt { kind: StmtKind::Decl(vec![]), pos });
        }
        let d = self.declarator(false)?;
        let decls = self.init_declarators(storage, &base, d)?;
        Ok(Stmt { kind: StmtKind::Decl(decls), pos })
    }

    fn statement(&mut self) -> Result<Stmt, Diagnostic> {
        self.deeper()?;
        let s = self.statement_inner();
        self.depth -= 1;
        s
    }

    fn paren_expr(&mut self) -> Result<Expr, Diagnostic> {
        self.expect("(")?;
        let e = self.expr()?;
        self.expect(")")?;
        Ok(e)
    }

    fn statement_inner(&mut self) -> Result<Stmt, Diagnostic> {
        let pos = self.pos();
        let mk = |kind| Ok(Stmt { kind, pos });
        if self.is("{") {
            return mk(StmtKind::Block(self.block()?));
        }
        if self.eat(";") {
            return mk(StmtKind::Empty);
        }
        let word = match self.peek() {
            Tok::Ident(w) => w.clone(),
            _ => String::new(),
        };
        match word.as_str() {
            "if" => {
                self.bump();
                let c = self.paren_expr()?;
                let t = self.statement()?;
                let e = if self.eat_word("else") { Some(Box::new(self.statement()?)) } else { None };
                mk(StmtKind::If(c, Box::new(t), e))
            }
            "while" => {
                self.bump();
                let c = self.paren_expr()?;
                mk(StmtKind::While(c, Box::new(self.statement()?)))
            }
            "do" => {
                self.bump();
                let body = self.statement()?;
                if !self.eat_word("while") {
                    return Err(self.expected("'while'"));
                }
                let c = self.paren_expr()?;
                self.expect(";")?;
                mk(StmtKind::DoWhile(Box::new(body), c))
            }
            "for" => {
                self.bump();
                self.expect("(")?;
                let init = if self.eat(";") {
                    None
                } else if self.starts_type(0) {
                    Some(Box::new(self.declaration()?))
                } else {
                    let p = self.pos();
                    let e = self.expr()?;
                    self.expect(";")?;
                    Some(Box::new(Stmt { kind: StmtKind::Expr(e), pos: p }))
                };
                let cond = if self.is(";") { None } else { Some(self.expr()?) };
                self.expect(";")?;
                let step = if self.is(")") { None } else { Some(self.expr()?) };
                self.expect(")")?;
                let body = self.statement()?;
                mk(StmtKind::For(init, cond, step, Box::new(body)))
            }
            "switch" => {
                self.bump();
                let c = self.paren_expr()?;
                mk(StmtKind::Switch(c, Box::new(self.statement()?)))
            }
            "case" => {
                self.bump();
                let e = self.conditional()?;
                self.expect(":")?;
                mk(StmtKind::Case(e, Box::new(self.statement()?)))
            }
            "default" if matches!(self.peek_at(1), Tok::Punct(":")) => {
                self.bump();
                self.bump();
                mk(StmtKind::Default(Box::new(self.statement()?)))
            }
            "break" => {
                self.bump();
                self.expect(";")?;
                mk(StmtKind::Break)
            }
            "continue" => {
                self.bump();
                self.expect(";")?;
                mk(StmtKind::Continue)
            }
            "return" => {
                self.bump();
                let e = if self.is(";") { None } else { Some(self.expr()?) };
                self.expect(";")?;
                mk(StmtKind::Return(e))
            }
            "goto" => {
                self.bump();
                let (l, _) = self.ident()?;
                self.expect(";")?;
                mk(StmtKind::Goto(l))
            }
            w if !w.is_empty() && matches!(self.peek_at(1), Tok::Punct(":")) && !self.typedefs.contains_key(w) => {
                self.bump();
                self.bump();
                if self.is("}") {
                    return mk(StmtKind::Labeled(word, Box::new(Stmt { kind: StmtKind::Empty, pos })));
                }
                mk(StmtKind::Labeled(word, Box::new(self.statement()?)))
            }
            _ if self.starts_declaration(0) => self.declaration(),
            _ => {
                let e = self.expr()?;
                self.expect(";")?;
                mk(StmtKind::Expr(e))
            }
        }
    }

    // ----- expressions -----

    fn expr(&mut self) -> Result<Expr, Diagnostic> {
        let mut e = self.assignment()?;
        while self.is(",") {
            let pos = self.pos();
            self.bump();
            let r = self.assignment()?;
            e = Expr { kind: ExprKind::Comma(Box::new(e), Box::new(r)), pos };
        }
        Ok(e)
    }

    fn assignment(&mut self) -> Result<Expr, Diagnostic> {
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

    fn conditional(&mut self) -> Result<Expr, Diagnostic> {
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

    /// A type name `specifiers abstract-declarator` (in casts and `sizeof`).
    fn type_name(&mut self) -> Result<Type, Diagnostic> {
        let (_, base) = self.specifiers()?;
        let (name, ops) = self.declarator(true)?;
        if let Some((_, pos)) = name {
            return Err(self.err_at(pos, "syntax error: expected a type name"));
        }
        Ok(apply(base, ops))
    }

    fn unary(&mut self) -> Result<Expr, Diagnostic> {
        self.deeper()?;
        let r = self.unary_inner();
        self.depth -= 1;
        r
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

    fn is_at(&self, k: usize, p: &str) -> bool {
        matches!(self.peek_at(k), Tok::Punct(q) if *q == p)
    }

    fn is_word_at(&self, k: usize, w: &str) -> bool {
        matches!(self.peek_at(k), Tok::Ident(s) if s == w)
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
fn eval_const(e: &Expr, enumerators: &HashMap<String, i64>) -> Option<i128> {
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
