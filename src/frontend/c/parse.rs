//! The C parser: recursive descent over the tokens of [`super::lex`],
//! with typedef names tracked so that declarations, casts and expressions
//! can be told apart. GNU extensions of preprocessed headers are read and
//! dropped: `__attribute__((…))`, `__extension__`, `__asm__(…)`,
//! `__restrict`, `__inline`; struct and union bodies are skipped (their
//! types are [`Type::Unsupported`]).
//!
//! This module holds the parser's state and its token helpers; the
//! grammar is in `parse/decl.rs` (specifiers, declarators, initialisers, type
//! names, top-level items), `parse/stmt.rs` (statements) and `parse/expr.rs`
//! (expressions, constant expressions).

use super::ast::*;
use super::lex::{Tok, Token};
use crate::frontend::Diagnostic;
use crate::HashMap;
use std::time::Instant;

mod decl;
mod expr;
mod stmt;

use expr::eval_const;

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

impl<'a> Parser<'a> {
    fn new(src: &'a str, toks: Vec<Token>) -> Parser<'a> {
        Parser { src, toks, i: 0, typedefs: HashMap::default(), enumerators: HashMap::default(), depth: 0, structs: vec![], tags: HashMap::default() }
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

    /// `f` one level of nesting deeper (at most [`MAX_DEPTH`] levels).
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, Diagnostic>) -> Result<T, Diagnostic> {
        self.deeper()?;
        let r = f(self);
        self.depth -= 1;
        r
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

    /// Whether the token `k` ahead is the punctuator `p`.
    fn is_at(&self, k: usize, p: &str) -> bool {
        matches!(self.peek_at(k), Tok::Punct(q) if *q == p)
    }

    /// Whether the token `k` ahead is the word `w`.
    fn is_word_at(&self, k: usize, w: &str) -> bool {
        matches!(self.peek_at(k), Tok::Ident(s) if s == w)
    }
}
