//! The Cubicle input language (`.cub`), as the benchmark files write it
//! (see `bench/NOTES.md`), lowered into the [`System`] IR.
//!
//! Reading happens in three steps: a `nom` lexer (identifiers, numbers,
//! process constants `#n`, punctuation, nested `(* … *)` comments), a
//! recursive-descent parser into a small located syntax tree, and an
//! elaborator that type-checks every formula and builds the system.
//!
//! Semantics decided here (each checked against Cubicle's own sources):
//! - `type t = A | B` is an enumeration whose constructors are global
//!   constants; `type t` alone is an uninterpreted sort; `bool`, `int`,
//!   `real`, `proc` are built in; `True`/`False` (and `true`/`false`) are
//!   the Boolean values.
//! - `var X : t` is a scalar, `array A[proc] : t` (or `A[proc, proc]`) an
//!   array over processes, `const C : t` a rigid constant
//!   ([`System::consts`]); `number_procs N` is kept as an option and bounds
//!   the process constants `#1 … #N`.
//! - `#n` is the rigid constant `#n` of the index sort, added to
//!   [`System::consts`]; when there are several, one axiom with no
//!   quantified variables states that they are pairwise distinct.
//! - `init (x y) { φ }` is `∀x y. φ` over *all* pairs (no distinctness
//!   premise: Cubicle instantiates the variables of `init` with every
//!   mapping, injective or not). Universal quantifiers in the body are
//!   pulled out into more variables of the same kind.
//! - `unsafe (z1 z2) { φ }` and `invariant (…) { φ }` are existential
//!   cubes over pairwise distinct variables; an `invariant` is a *negated*
//!   cube to be proven, never assumed ([`System::hints`]). Existential
//!   quantifiers in the body (`not forall x <> y. …` from an inlined
//!   predicate) become cube variables: each one is either one of the
//!   variables already there or a new one (one cube per choice), so the
//!   distinctness of cube variables loses nothing. Disjunctions that
//!   contain quantifiers split the formula into several cubes.
//! - `predicate p(a, b) { φ }` is a macro: a call `p(t, u)` is `φ` with `a`,
//!   `b` standing for `t`, `u` (its bound variables renamed apart).
//! - `transition t (x y) requires { g } { actions }`: the parameters are
//!   pairwise distinct. In the guard, `forall_other j. φ` is the universal
//!   guard `∀j. j = x ∨ j = y ∨ φ`; `forall j. φ` is `∀j. φ` (every `j`);
//!   several universals merge into one ([`Transition::uguard`]), and a
//!   universal over a conjunction is split into one per conjunct.
//!   `exists_other k. φ` adds a parameter `k` (distinct from the others);
//!   `exists k. φ` adds one that is either an existing parameter or a new
//!   one (one transition per choice). A disjunction that contains a
//!   quantifier splits the transition (named `t.1`, `t.2`, …);
//!   quantifier-free disjunctions stay inside the guard.
//! - Actions are simultaneous. `X := e`; `X := case | c : e | _ : e'`
//!   (first matching case; the last case must be `_`); `A[j] := case …`
//!   is `λj. ite(…)` with `j` a new name; `A[x] := e` is
//!   `λj. ite(j = x, e, A[j])`; `let x = e in` names a term.
//! - `X := .` (or `?`) chooses a value nondeterministically: for an index
//!   (`proc`) variable the value is a new transition parameter that is
//!   either an existing parameter or a new process (one transition per
//!   choice, as for `exists`); for any other sort it is an entry `X?` of
//!   [`Transition::values`].
//! - Cubicle accepts two transitions with the same name (flash, german.ctc
//!   variants); the later ones get a suffix `_2`, `_3`, … and a warning.
//! - The legacy syntax of `german_subtype.cub` (`require`, `assign { … }`,
//!   `{| … |}`, whole-array assignment), which Cubicle 1.2 rejects as well,
//!   is reported as an error naming the construct.
//!
//! Quantifiers the IR cannot express are errors, never approximations:
//! `forall x <> y.` (two variables) in a guard, quantifiers nested inside a
//! guard's quantifier, existentials in `init`, universals left in a cube,
//! quantifiers in case conditions or values.

use super::elab::is_reserved;
use super::{line_col, Diagnostic, Parsed};
use crate::logic::{collect, conjuncts, substitute, EnumDef, EnumValues, Op, Sort, Term};
use crate::system::{IndexKind, Quantified, StateVar, System, Transition, Update};
use nom::{
    branch::alt,
    bytes::complete::{tag, take_while},
    character::complete::{char, digit0, digit1, satisfy},
    combinator::{opt, recognize, value},
    sequence::{pair, preceded},
    IResult,
};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

/// Reads a Cubicle file into a system.
pub fn parse(src: &str) -> Result<Parsed, Diagnostic> {
    let tokens = lex(src)?;
    let items = Parser { src, toks: &tokens, i: 0 }.file()?;
    Elab::new(src).system(&items)
}

// ---------------------------------------------------------------- lexer

/// The words that cannot name anything.
const KEYWORDS: &[&str] = &[
    "type",
    "init",
    "transition",
    "invariant",
    "requires",
    "array",
    "var",
    "const",
    "unsafe",
    "case",
    "forall_other",
    "exists_other",
    "forall",
    "exists",
    "predicate",
    "if",
    "then",
    "else",
    "not",
    "true",
    "false",
    "number_procs",
    "let",
    "in",
];

/// The largest integer literal accepted (keeps constant folding in 64 bits).
const MAX_LITERAL: i64 = 1 << 40;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Proc(i64),
    Int(i64),
    /// A decimal `num/den` as written (`1.50` is `150/100`).
    Real(i64, i64),
    Punct(&'static str),
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    start: usize,
    end: usize,
}

fn ident(i: &str) -> IResult<&str, &str> {
    recognize(pair(satisfy(|c| c.is_ascii_alphabetic()), take_while(|c: char| c.is_ascii_alphanumeric() || c == '_')))(
        i,
    )
}

fn number(i: &str) -> IResult<&str, (&str, Option<&str>)> {
    pair(digit1, opt(preceded(char('.'), digit0)))(i)
}

fn punct(i: &str) -> IResult<&str, &'static str> {
    alt((
        alt((
            value(":=", tag(":=")),
            value("<=>", tag("<=>")),
            value("=>", tag("=>")),
            value("<=", tag("<=")),
            value(">=", tag(">=")),
            value("<>", tag("<>")),
            value("&&", tag("&&")),
            value("||", tag("||")),
            value("{|", tag("{|")),
            value("|}", tag("|}")),
        )),
        alt((
            value("(", tag("(")),
            value(")", tag(")")),
            value("[", tag("[")),
            value("]", tag("]")),
            value("{", tag("{")),
            value("}", tag("}")),
            value(",", tag(",")),
            value(";", tag(";")),
            value(":", tag(":")),
            value(".", tag(".")),
            value("?", tag("?")),
            value("=", tag("=")),
            value("<", tag("<")),
            value(">", tag(">")),
            value("|", tag("|")),
            value("_", tag("_")),
            value("+", tag("+")),
            value("-", tag("-")),
            value("*", tag("*")),
        )),
    ))(i)
}

/// Skips white space and (nested) comments from `at`; returns the next offset.
fn skip_trivia(src: &str, mut at: usize) -> Result<usize, Diagnostic> {
    loop {
        let rest = &src[at..];
        let trimmed = rest.trim_start();
        at += rest.len() - trimmed.len();
        if !trimmed.starts_with("(*") {
            return Ok(at);
        }
        let open = at;
        let mut depth = 0usize;
        loop {
            let rest = &src[at..];
            if rest.starts_with("(*") {
                depth += 1;
                at += 2;
            } else if rest.starts_with("*)") {
                depth -= 1;
                at += 2;
                if depth == 0 {
                    break;
                }
            } else if let Some(c) = rest.chars().next() {
                at += c.len_utf8();
            } else {
                return Err(Diagnostic::at(src, open, "unterminated comment: '(*' without a matching '*)'"));
            }
        }
    }
}

/// The digits of a literal as an integer no larger than [`MAX_LITERAL`].
fn small_int(src: &str, at: usize, digits: &str) -> Result<i64, Diagnostic> {
    digits
        .parse::<i64>()
        .ok()
        .filter(|n| *n <= MAX_LITERAL)
        .ok_or_else(|| Diagnostic::at(src, at, format!("number '{digits}' is too large (the limit is 2^40)")))
}

fn lex(src: &str) -> Result<Vec<Token>, Diagnostic> {
    let mut out = vec![];
    let mut at = 0;
    loop {
        at = skip_trivia(src, at)?;
        let rest = &src[at..];
        let Some(c) = rest.chars().next() else { break };
        let (tok, len) = if let Ok((r, s)) = ident(rest) {
            (Tok::Ident(s.to_string()), rest.len() - r.len())
        } else if let Ok((r, (int, frac))) = number(rest) {
            let len = rest.len() - r.len();
            let tok = match frac {
                None => Tok::Int(small_int(src, at, int)?),
                Some(frac) => {
                    if frac.len() > 6 {
                        return Err(Diagnostic::at(src, at, "decimal literal with more than 6 digits after the point"));
                    }
                    let whole = small_int(src, at, &format!("{int}{frac}"))?;
                    Tok::Real(whole, 10i64.pow(frac.len() as u32))
                }
            };
            (tok, len)
        } else if let Some(after) = rest.strip_prefix('#') {
            let Ok((r, digits)) = digit1::<&str, ()>(after) else {
                return Err(Diagnostic::at(src, at, "expected a process number after '#', as in '#1'"));
            };
            let n = small_int(src, at, digits)?;
            if n == 0 {
                return Err(Diagnostic::at(src, at, "process constants are numbered from #1"));
            }
            (Tok::Proc(n), rest.len() - r.len())
        } else if let Ok((r, p)) = punct(rest) {
            (Tok::Punct(p), rest.len() - r.len())
        } else {
            return Err(Diagnostic::at(src, at, format!("unexpected character '{}'", c.escape_default())));
        };
        out.push(Token { tok, start: at, end: at + len });
        at += len;
    }
    Ok(out)
}

// ---------------------------------------------------------------- syntax

/// A name with the offset where it is written.
type Name = (String, usize);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Quant {
    Forall,
    Exists,
    ForallOther,
    ExistsOther,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum BinOp {
    And,
    Or,
    Imp,
    Equiv,
    Eq,
    Neq,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
}

#[derive(Clone, Debug)]
struct Expr {
    kind: ExprKind,
    pos: usize,
}

#[derive(Clone, Debug)]
enum ExprKind {
    Name(String),
    Proc(i64),
    Int(i64),
    Real(i64, i64),
    Bool(bool),
    Read(String, Vec<Expr>),
    Call(String, Vec<Expr>),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Ite(Box<Expr>, Box<Expr>, Box<Expr>),
    Quant(Quant, Vec<Name>, Box<Expr>),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Section {
    Init,
    Invariant,
    Unsafe,
}

enum Rhs {
    Term(Expr),
    /// `(condition or None for '_', value)`.
    Case(Vec<(Option<Expr>, Expr)>),
    Nondet,
}

struct Action {
    target: Name,
    /// The indices of `A[…] :=`.
    index: Option<Vec<Expr>>,
    rhs: Rhs,
}

struct TransitionAst {
    name: Name,
    params: Vec<Name>,
    guard: Option<Expr>,
    lets: Vec<(Name, Expr)>,
    actions: Vec<Action>,
}

enum Item {
    NumberProcs(i64, usize),
    Type(Name, Option<Vec<Name>>),
    Var { name: Name, ty: Name, rigid: bool },
    Array { name: Name, dims: Vec<Name>, ty: Name },
    Formula { section: Section, pos: usize, vars: Vec<Name>, body: Expr },
    Predicate { name: Name, params: Vec<Name>, body: Expr },
    Transition(TransitionAst),
}

// ---------------------------------------------------------------- parser

struct Parser<'a> {
    src: &'a str,
    toks: &'a [Token],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.tok)
    }
    fn pos(&self) -> usize {
        match self.toks.get(self.i) {
            Some(t) => t.start,
            None => self.toks.last().map_or(0, |t| t.end),
        }
    }
    fn err(&self, at: usize, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.src, at, msg)
    }
    fn found(&self) -> String {
        match self.toks.get(self.i) {
            None => "end of input".to_string(),
            Some(t) => format!("'{}'", &self.src[t.start..t.end]),
        }
    }
    fn expected(&self, what: &str) -> Diagnostic {
        self.err(self.pos(), format!("expected {what}, found {}", self.found()))
    }
    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }
    fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(s)) if s == k)
    }
    fn eat(&mut self, p: &str) -> bool {
        let yes = self.is(p);
        if yes {
            self.i += 1;
        }
        yes
    }
    fn eat_kw(&mut self, k: &str) -> bool {
        let yes = self.is_kw(k);
        if yes {
            self.i += 1;
        }
        yes
    }
    fn expect(&mut self, p: &str) -> Result<usize, Diagnostic> {
        let at = self.pos();
        if self.eat(p) {
            Ok(at)
        } else {
            Err(self.legacy().unwrap_or_else(|| self.expected(&format!("'{p}'"))))
        }
    }
    fn expect_kw(&mut self, k: &str) -> Result<(), Diagnostic> {
        if self.eat_kw(k) {
            Ok(())
        } else {
            Err(self.expected(&format!("'{k}'")))
        }
    }
    /// The closing `}` of a block opened at `open`.
    fn close(&mut self, open: usize) -> Result<(), Diagnostic> {
        if self.eat("}") {
            return Ok(());
        }
        let (l, c) = line_col(self.src, open);
        Err(self.legacy().unwrap_or_else(|| {
            self.err(self.pos(), format!("expected '}}' to close the '{{' at {l}:{c}, found {}", self.found()))
        }))
    }
    /// The error for legacy syntax at the current token, if it is some.
    fn legacy(&self) -> Option<Diagnostic> {
        let what = match self.peek()? {
            Tok::Punct("{|") | Tok::Punct("|}") => "'{| … |}' case blocks (write 'case | c : t | _ : t')",
            Tok::Ident(s) if s == "require" => "'require' (write 'requires')",
            Tok::Ident(s) if s == "assign" => "'assign { … }' blocks (write the assignments in the action block)",
            _ => return None,
        };
        Some(self.err(self.pos(), format!("legacy Cubicle syntax {what}: not accepted (Cubicle 1.2 rejects it too)")))
    }
    /// A name that is not a keyword.
    fn name(&mut self, what: &str) -> Result<Name, Diagnostic> {
        match self.peek() {
            Some(Tok::Ident(s)) if !KEYWORDS.contains(&s.as_str()) => {
                let n = (s.clone(), self.pos());
                self.i += 1;
                Ok(n)
            }
            _ => Err(self.legacy().unwrap_or_else(|| self.expected(what))),
        }
    }
    fn int(&mut self) -> Result<i64, Diagnostic> {
        match self.peek() {
            Some(Tok::Int(n)) => {
                let n = *n;
                self.i += 1;
                Ok(n)
            }
            _ => Err(self.expected("an integer")),
        }
    }

    fn file(&mut self) -> Result<Vec<Item>, Diagnostic> {
        let mut items = vec![];
        while self.peek().is_some() {
            items.push(self.item()?);
        }
        if items.is_empty() {
            return Err(self.err(0, "empty input: no Cubicle declarations found"));
        }
        Ok(items)
    }

    fn item(&mut self) -> Result<Item, Diagnostic> {
        let at = self.pos();
        let kw = match self.peek() {
            Some(Tok::Ident(s)) => s.clone(),
            _ => String::new(),
        };
        self.i += 1;
        match kw.as_str() {
            "number_procs" => Ok(Item::NumberProcs(self.int()?, at)),
            "type" => {
                let name = self.name("a type name")?;
                if !self.eat("=") {
                    return Ok(Item::Type(name, None));
                }
                self.eat("|");
                let mut ctors = vec![self.name("a constructor name")?];
                while self.eat("|") {
                    ctors.push(self.name("a constructor name")?);
                }
                Ok(Item::Type(name, Some(ctors)))
            }
            "var" | "const" => {
                let name = self.name("a variable name")?;
                self.expect(":")?;
                let ty = self.name("a type")?;
                Ok(Item::Var { name, ty, rigid: kw == "const" })
            }
            "array" => {
                let name = self.name("an array name")?;
                self.expect("[")?;
                let mut dims = vec![self.name("an index type")?];
                while self.eat(",") {
                    dims.push(self.name("an index type")?);
                }
                self.expect("]")?;
                self.expect(":")?;
                let ty = self.name("a type")?;
                Ok(Item::Array { name, dims, ty })
            }
            "init" | "invariant" | "unsafe" => {
                let section = match kw.as_str() {
                    "init" => Section::Init,
                    "invariant" => Section::Invariant,
                    _ => Section::Unsafe,
                };
                let vars = if self.is("(") { self.var_list()? } else { vec![] };
                let open = self.expect("{")?;
                let body = self.expr()?;
                self.close(open)?;
                Ok(Item::Formula { section, pos: at, vars, body })
            }
            "predicate" => {
                let name = self.name("a predicate name")?;
                self.expect("(")?;
                let mut params = vec![];
                if !self.is(")") {
                    params.push(self.name("a parameter name")?);
                    while self.eat(",") {
                        params.push(self.name("a parameter name")?);
                    }
                }
                self.expect(")")?;
                let open = self.expect("{")?;
                let body = self.expr()?;
                self.close(open)?;
                Ok(Item::Predicate { name, params, body })
            }
            "transition" => self.transition().map(Item::Transition),
            _ => {
                self.i -= 1;
                Err(self.legacy().unwrap_or_else(|| {
                    self.expected(
                        "a declaration (type, var, const, array, init, invariant, unsafe, predicate, transition)",
                    )
                }))
            }
        }
    }

    /// `( x y … )`: space-separated variable names.
    fn var_list(&mut self) -> Result<Vec<Name>, Diagnostic> {
        self.expect("(")?;
        let mut vars = vec![];
        while !self.eat(")") {
            vars.push(self.name("a variable name or ')'")?);
        }
        Ok(vars)
    }

    fn transition(&mut self) -> Result<TransitionAst, Diagnostic> {
        let name = self.name("a transition name")?;
        let params = self.var_list()?;
        let guard = if self.eat_kw("requires") {
            let open = self.expect("{")?;
            let g = self.expr()?;
            self.close(open)?;
            Some(g)
        } else {
            None
        };
        let open = self.expect("{")?;
        let mut lets = vec![];
        while self.eat_kw("let") {
            let n = self.name("a name")?;
            self.expect("=")?;
            let t = self.expr()?;
            self.expect_kw("in")?;
            lets.push((n, t));
        }
        let mut actions = vec![];
        while !self.is("}") {
            actions.push(self.action()?);
            if !self.eat(";") {
                break;
            }
        }
        self.close(open)?;
        Ok(TransitionAst { name, params, guard, lets, actions })
    }

    fn action(&mut self) -> Result<Action, Diagnostic> {
        let target = self.name("an assignment such as 'X := e' or 'A[i] := e'")?;
        let index = if self.eat("[") {
            let mut idx = vec![self.expr()?];
            while self.eat(",") {
                idx.push(self.expr()?);
            }
            self.expect("]")?;
            Some(idx)
        } else {
            None
        };
        self.expect(":=")?;
        let rhs = if self.eat(".") || self.eat("?") {
            Rhs::Nondet
        } else if self.eat_kw("case") {
            let mut cases = vec![];
            while self.eat("|") {
                let cond = if self.eat("_") { None } else { Some(self.expr()?) };
                self.expect(":")?;
                cases.push((cond, self.expr()?));
            }
            if cases.is_empty() {
                return Err(self.legacy().unwrap_or_else(|| self.expected("'|' starting a case")));
            }
            Rhs::Case(cases)
        } else {
            if let Some(d) = self.legacy() {
                return Err(d);
            }
            Rhs::Term(self.expr()?)
        };
        Ok(Action { target, index, rhs })
    }

    // Expressions, loosest first: `=>`/`<=>`, `||`, `&&`, `not`,
    // comparisons, `+`/`-`, `*`, unary `-`, atoms (quantifiers and
    // `if … then … else` extend as far right as they can).

    fn expr(&mut self) -> Result<Expr, Diagnostic> {
        let lhs = self.disjunction()?;
        let op = if self.is("=>") {
            BinOp::Imp
        } else if self.is("<=>") {
            BinOp::Equiv
        } else {
            return Ok(lhs);
        };
        self.i += 1;
        let rhs = self.expr()?;
        Ok(Expr { pos: lhs.pos, kind: ExprKind::Bin(op, Box::new(lhs), Box::new(rhs)) })
    }

    fn disjunction(&mut self) -> Result<Expr, Diagnostic> {
        let lhs = self.conjunction()?;
        if !self.eat("||") {
            return Ok(lhs);
        }
        let rhs = self.disjunction()?;
        Ok(Expr { pos: lhs.pos, kind: ExprKind::Bin(BinOp::Or, Box::new(lhs), Box::new(rhs)) })
    }

    fn conjunction(&mut self) -> Result<Expr, Diagnostic> {
        let lhs = self.negation()?;
        if !self.eat("&&") {
            return Ok(lhs);
        }
        let rhs = self.conjunction()?;
        Ok(Expr { pos: lhs.pos, kind: ExprKind::Bin(BinOp::And, Box::new(lhs), Box::new(rhs)) })
    }

    fn negation(&mut self) -> Result<Expr, Diagnostic> {
        let at = self.pos();
        if self.eat_kw("not") {
            let e = self.negation()?;
            return Ok(Expr { kind: ExprKind::Not(Box::new(e)), pos: at });
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<Expr, Diagnostic> {
        let lhs = self.sum()?;
        let ops = [
            ("=", BinOp::Eq),
            ("<>", BinOp::Neq),
            ("<", BinOp::Lt),
            ("<=", BinOp::Le),
            (">", BinOp::Gt),
            (">=", BinOp::Ge),
        ];
        let Some(&(_, op)) = ops.iter().find(|(p, _)| self.is(p)) else {
            return Ok(lhs);
        };
        self.i += 1;
        let rhs = self.sum()?;
        if ops.iter().any(|(p, _)| self.is(p)) {
            return Err(self.err(self.pos(), "comparisons cannot be chained; use '&&'"));
        }
        Ok(Expr { pos: lhs.pos, kind: ExprKind::Bin(op, Box::new(lhs), Box::new(rhs)) })
    }

    fn sum(&mut self) -> Result<Expr, Diagnostic> {
        let mut lhs = self.product()?;
        loop {
            let op = if self.is("+") {
                BinOp::Add
            } else if self.is("-") {
                BinOp::Sub
            } else {
                return Ok(lhs);
            };
            self.i += 1;
            let rhs = self.product()?;
            lhs = Expr { pos: lhs.pos, kind: ExprKind::Bin(op, Box::new(lhs), Box::new(rhs)) };
        }
    }

    fn product(&mut self) -> Result<Expr, Diagnostic> {
        let mut lhs = self.unary()?;
        loop {
            if !self.eat("*") {
                return Ok(lhs);
            }
            let rhs = self.unary()?;
            lhs = Expr { pos: lhs.pos, kind: ExprKind::Bin(BinOp::Mul, Box::new(lhs), Box::new(rhs)) };
        }
    }

    fn unary(&mut self) -> Result<Expr, Diagnostic> {
        let at = self.pos();
        if self.eat("-") {
            let e = self.unary()?;
            return Ok(Expr { kind: ExprKind::Neg(Box::new(e)), pos: at });
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Expr, Diagnostic> {
        let at = self.pos();
        let tok = match self.peek() {
            Some(t) => t.clone(),
            None => return Err(self.expected("a formula or a term")),
        };
        let kind = match tok {
            Tok::Int(n) => {
                self.i += 1;
                ExprKind::Int(n)
            }
            Tok::Real(n, d) => {
                self.i += 1;
                ExprKind::Real(n, d)
            }
            Tok::Proc(n) => {
                self.i += 1;
                ExprKind::Proc(n)
            }
            Tok::Punct("(") => {
                self.i += 1;
                let e = self.expr()?;
                self.expect(")")?;
                return Ok(e);
            }
            Tok::Ident(s) => match s.as_str() {
                "true" | "false" => {
                    self.i += 1;
                    ExprKind::Bool(s == "true")
                }
                "forall" | "exists" | "forall_other" | "exists_other" => {
                    self.i += 1;
                    let q = match s.as_str() {
                        "forall" => Quant::Forall,
                        "exists" => Quant::Exists,
                        "forall_other" => Quant::ForallOther,
                        _ => Quant::ExistsOther,
                    };
                    let mut vars = vec![self.name("a variable name")?];
                    if matches!(q, Quant::Forall | Quant::Exists) {
                        while self.eat("<>") {
                            vars.push(self.name("a variable name")?);
                        }
                    }
                    if !self.eat(".") {
                        let more = if matches!(q, Quant::Forall | Quant::Exists) {
                            "'.' (several variables are written 'x <> y')"
                        } else {
                            "'.' (one variable only)"
                        };
                        return Err(self.expected(more));
                    }
                    let body = self.expr()?;
                    ExprKind::Quant(q, vars, Box::new(body))
                }
                "if" => {
                    self.i += 1;
                    let c = self.expr()?;
                    self.expect_kw("then")?;
                    let t = self.expr()?;
                    self.expect_kw("else")?;
                    let e = self.negation()?;
                    ExprKind::Ite(Box::new(c), Box::new(t), Box::new(e))
                }
                _ => {
                    let (name, _) = self.name("a formula or a term")?;
                    if self.eat("[") {
                        let mut idx = vec![self.expr()?];
                        while self.eat(",") {
                            idx.push(self.expr()?);
                        }
                        self.expect("]")?;
                        ExprKind::Read(name, idx)
                    } else if self.eat("(") {
                        let mut args = vec![];
                        if !self.is(")") {
                            args.push(self.expr()?);
                            while self.eat(",") {
                                args.push(self.expr()?);
                            }
                        }
                        self.expect(")")?;
                        ExprKind::Call(name, args)
                    } else {
                        ExprKind::Name(name)
                    }
                }
            },
            Tok::Punct(_) => return Err(self.legacy().unwrap_or_else(|| self.expected("a formula or a term"))),
        };
        Ok(Expr { kind, pos: at })
    }
}

// ---------------------------------------------------------------- quantifiers

/// Whether a formula contains a quantifier.
fn has_quant(t: &Term) -> bool {
    !collect(t, &|s: &Term| matches!(s.op(), Op::Forall(_) | Op::Exists(_))).is_empty()
}

/// Negation normal form: negations pushed through the connectives and
/// quantifiers down to the atoms.
fn nnf(t: &Term, negate: bool) -> Term {
    let args = t.args();
    match t.op() {
        Op::Not => nnf(&args[0], !negate),
        Op::And | Op::Or => {
            let parts: Vec<Term> = args.iter().map(|a| nnf(a, negate)).collect();
            if matches!(t.op(), Op::And) != negate {
                Term::and(parts)
            } else {
                Term::or(parts)
            }
        }
        Op::Forall(vs) | Op::Exists(vs) => {
            let body = nnf(&args[0], negate);
            if matches!(t.op(), Op::Forall(_)) != negate {
                Term::forall(vs, &body)
            } else {
                Term::exists(vs, &body)
            }
        }
        _ if negate => t.not(),
        _ => t.clone(),
    }
}

/// The substitution making equalities between distinct variables false.
fn distinctness(vars: &[Term]) -> HashMap<Term, Term> {
    let mut map = HashMap::new();
    for (i, a) in vars.iter().enumerate() {
        for b in &vars[i + 1..] {
            map.insert(Term::eq(a, b), Term::ff());
        }
    }
    map
}

/// A cube before identification: its existential variables and literals.
type RawCube = (Vec<Term>, Vec<Term>);

/// A formula in negation normal form as a disjunction of cubes: each with
/// its existential variables and literals. Universal quantifiers are errors.
fn split_cube(t: &Term) -> Result<Vec<RawCube>, String> {
    if !has_quant(t) {
        return Ok(vec![(vec![], vec![t.clone()])]);
    }
    match t.op() {
        Op::And => {
            let mut acc = vec![(vec![], vec![])];
            for a in t.args() {
                let parts = split_cube(a)?;
                let mut next = vec![];
                for (v1, l1) in &acc {
                    for (v2, l2) in &parts {
                        next.push(([v1.clone(), v2.clone()].concat(), [l1.clone(), l2.clone()].concat()));
                    }
                }
                acc = next;
            }
            Ok(acc)
        }
        Op::Or => Ok(t.args().iter().map(split_cube).collect::<Result<Vec<_>, _>>()?.concat()),
        Op::Exists(vs) => {
            Ok(split_cube(&t.args()[0])?.into_iter().map(|(v, l)| ([vs.to_vec(), v].concat(), l)).collect())
        }
        _ => {
            Err("a universal quantifier (after pushing negations inward) cannot be part of an unsafe or invariant cube"
                .to_string())
        }
    }
}

/// Pulls the universal quantifiers of a formula in negation normal form
/// out (their variables are already named apart); existentials are errors.
fn lift_forall(t: &Term) -> Result<(Vec<Term>, Term), String> {
    if !has_quant(t) {
        return Ok((vec![], t.clone()));
    }
    match t.op() {
        Op::And | Op::Or => {
            let mut vars = vec![];
            let mut parts = vec![];
            for a in t.args() {
                let (v, b) = lift_forall(a)?;
                vars.extend(v);
                parts.push(b);
            }
            Ok((vars, if matches!(t.op(), Op::And) { Term::and(parts) } else { Term::or(parts) }))
        }
        Op::Forall(vs) => {
            let (more, body) = lift_forall(&t.args()[0])?;
            Ok(([vs.to_vec(), more].concat(), body))
        }
        _ => Err("an existential quantifier (after pushing negations inward) cannot be part of 'init'".to_string()),
    }
}

/// One disjunct of a transition guard: literals, universal guards `(j, φ)`
/// and existential variables to become parameters.
#[derive(Clone, Default)]
struct GuardCase {
    lits: Vec<Term>,
    univ: Vec<(Term, Term)>,
    exists: Vec<Term>,
}

/// A guard in negation normal form as a disjunction of [`GuardCase`]s.
fn split_guard(t: &Term) -> Result<Vec<GuardCase>, String> {
    if !has_quant(t) {
        return Ok(vec![GuardCase { lits: vec![t.clone()], ..GuardCase::default() }]);
    }
    match t.op() {
        Op::And => {
            let mut acc = vec![GuardCase::default()];
            for a in t.args() {
                let parts = split_guard(a)?;
                let mut next = vec![];
                for x in &acc {
                    for y in &parts {
                        next.push(GuardCase {
                            lits: [x.lits.clone(), y.lits.clone()].concat(),
                            univ: [x.univ.clone(), y.univ.clone()].concat(),
                            exists: [x.exists.clone(), y.exists.clone()].concat(),
                        });
                    }
                }
                acc = next;
            }
            Ok(acc)
        }
        Op::Or => Ok(t.args().iter().map(split_guard).collect::<Result<Vec<_>, _>>()?.concat()),
        Op::Exists(vs) => Ok(split_guard(&t.args()[0])?
            .into_iter()
            .map(|mut c| {
                c.exists.splice(0..0, vs.iter().cloned());
                c
            })
            .collect()),
        Op::Forall(vs) => {
            let body = &t.args()[0];
            if let Op::And = body.op() {
                // ∀j. (A ∧ B) is (∀j. A) ∧ (∀j. B).
                return split_guard(&Term::and(body.args().iter().map(|b| Term::forall(vs, b))));
            }
            if has_quant(body) {
                return Err("quantifiers nested inside a universal guard are not supported".to_string());
            }
            let [v] = &vs[..] else {
                return Err(format!(
                    "a universal guard over {} variables is not supported (the IR has one universal guard variable)",
                    vs.len()
                ));
            };
            Ok(vec![GuardCase { univ: vec![(v.clone(), body.clone())], ..GuardCase::default() }])
        }
        _ => Err(format!("unexpected quantified formula {t}")),
    }
}

/// Every way to identify each of the `new` variables with one of `old` or
/// keep it as a new one distinct from all others: the substitution and the
/// variables kept.
fn identifications(new: &[Term], old: &[Term]) -> Vec<(HashMap<Term, Term>, Vec<Term>)> {
    let mut acc: Vec<(HashMap<Term, Term>, Vec<Term>)> = vec![(HashMap::new(), vec![])];
    for v in new {
        let mut next = vec![];
        for (map, kept) in &acc {
            for o in old.iter().chain(kept) {
                let mut m = map.clone();
                m.insert(v.clone(), o.clone());
                next.push((m, kept.clone()));
            }
            let mut k = kept.clone();
            k.push(v.clone());
            next.push((map.clone(), k));
        }
        acc = next;
    }
    acc
}

// ---------------------------------------------------------------- elaboration

/// What a global name stands for.
#[derive(Clone)]
enum Sym {
    /// A scalar state variable.
    Scalar(Term, usize),
    /// An array state variable.
    Array(Term, usize),
    /// A rigid constant or an enumeration constructor (not assignable).
    Rigid(Term),
}

struct Predicate {
    params: Vec<Name>,
    body: Expr,
}

struct Elab<'a> {
    src: &'a str,
    sys: System,
    sorts: HashMap<String, Sort>,
    globals: HashMap<String, (Sym, usize)>,
    /// Where each type and global name was declared.
    declared: HashMap<String, usize>,
    preds: HashMap<String, (Predicate, usize)>,
    /// Local names (parameters, bound variables, `let`s), innermost last.
    locals: Vec<(String, Term)>,
    /// Names in use in the current item (for fresh names).
    taken: HashSet<String>,
    /// The parameters of the transition being read.
    params: Option<Vec<Term>>,
    procs: BTreeMap<i64, Term>,
    number_procs: Option<i64>,
    warnings: Vec<Diagnostic>,
}

impl<'a> Elab<'a> {
    fn new(src: &'a str) -> Self {
        let sorts = [("bool", Sort::Bool), ("int", Sort::Int), ("real", Sort::Real), ("proc", Sort::Index)]
            .into_iter()
            .map(|(n, s)| (n.to_string(), s))
            .collect();
        let mut globals = HashMap::new();
        globals.insert("True".to_string(), (Sym::Rigid(Term::tt()), 0));
        globals.insert("False".to_string(), (Sym::Rigid(Term::ff()), 0));
        Elab {
            src,
            sys: System { index: Some(IndexKind::Order), ..System::default() },
            sorts,
            globals,
            declared: HashMap::new(),
            preds: HashMap::new(),
            locals: vec![],
            taken: HashSet::new(),
            params: None,
            procs: BTreeMap::new(),
            number_procs: None,
            warnings: vec![],
        }
    }

    fn err(&self, at: usize, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.src, at, msg)
    }

    fn system(mut self, items: &[Item]) -> Result<Parsed, Diagnostic> {
        // Types first, then state and constants, then the rest in file order.
        for item in items {
            match item {
                Item::Type(name, ctors) => self.declare_type(name, ctors.as_deref())?,
                Item::NumberProcs(n, at) => {
                    if self.number_procs.is_some() {
                        return Err(self.err(*at, "number_procs is given twice"));
                    }
                    if *n < 1 {
                        return Err(self.err(*at, "number_procs must be at least 1"));
                    }
                    self.number_procs = Some(*n);
                    self.sys.options.push(("number_procs".to_string(), n.to_string()));
                }
                _ => {}
            }
        }
        for item in items {
            match item {
                Item::Var { name, ty, rigid } => self.declare_var(name, ty, *rigid)?,
                Item::Array { name, dims, ty } => self.declare_array(name, dims, ty)?,
                _ => {}
            }
        }
        let mut init_at = None;
        // Cubicle accepts duplicate transition names; later ones get a suffix.
        let all_names: HashSet<&str> = items
            .iter()
            .filter_map(|i| if let Item::Transition(t) = i { Some(t.name.0.as_str()) } else { None })
            .collect();
        let mut names: HashMap<String, usize> = HashMap::new();
        for item in items {
            match item {
                Item::Formula { section, pos, vars, body } => {
                    if *section == Section::Init {
                        if let Some(first) = init_at {
                            let (l, c) = line_col(self.src, first);
                            return Err(self.err(*pos, format!("only one 'init' is allowed (the first is at {l}:{c})")));
                        }
                        init_at = Some(*pos);
                    }
                    self.formula_item(*section, *pos, vars, body)?;
                }
                Item::Predicate { name, params, body } => self.define_predicate(name, params, body)?,
                Item::Transition(t) => {
                    let mut name = t.name.0.clone();
                    if let Some(&first) = names.get(&name) {
                        let k = (2..).find(|k| {
                            let n = format!("{name}_{k}");
                            !all_names.contains(n.as_str()) && !names.contains_key(&n)
                        });
                        name = format!("{name}_{}", k.expect("infinitely many suffixes"));
                        let (l, c) = line_col(self.src, first);
                        self.warnings.push(self.err(
                            t.name.1,
                            format!(
                                "duplicate transition name '{}' (first at {l}:{c}): this one is named '{name}'",
                                t.name.0
                            ),
                        ));
                    }
                    names.insert(name.clone(), t.name.1);
                    self.transition(t, &name)?;
                }
                _ => {}
            }
        }
        if init_at.is_none() {
            return Err(Diagnostic::new(1, 1, "no 'init' section"));
        }
        if self.sys.unsafe_.is_empty() {
            return Err(Diagnostic::new(1, 1, "no 'unsafe' section (nothing to check)"));
        }
        let procs: Vec<Term> = self.procs.values().cloned().collect();
        if procs.len() >= 2 {
            self.sys.axioms.push(Quantified { vars: vec![], lits: conjuncts(&Term::distinct(&procs)) });
        }
        self.sys.consts.extend(procs);
        self.warnings.sort_by_key(|w| (w.line, w.col));
        Ok(Parsed { system: self.sys, warnings: self.warnings })
    }

    // ----- declarations

    /// Records a new global name, rejecting reserved names and duplicates.
    fn declare_name(&mut self, (name, at): &Name) -> Result<(), Diagnostic> {
        if is_reserved(name) {
            return Err(self.err(*at, format!("'{name}' is reserved (an operator of arrax's canonical form)")));
        }
        if let Some(first) = self.declared.get(name) {
            let (l, c) = line_col(self.src, *first);
            return Err(self.err(*at, format!("duplicate declaration of '{name}' (first declared at {l}:{c})")));
        }
        if self.globals.contains_key(name) || self.sorts.contains_key(name) {
            return Err(self.err(*at, format!("'{name}' is predefined and cannot be declared")));
        }
        self.declared.insert(name.clone(), *at);
        Ok(())
    }

    fn declare_type(&mut self, name: &Name, ctors: Option<&[Name]>) -> Result<(), Diagnostic> {
        self.declare_name(name)?;
        let sort = match ctors {
            None => {
                self.sys.sorts.push(name.0.as_str().into());
                Sort::Uninterpreted(name.0.as_str().into())
            }
            Some(ctors) => {
                let def = Rc::new(EnumDef {
                    name: name.0.as_str().into(),
                    values: EnumValues::Names(ctors.iter().map(|(c, _)| Rc::from(c.as_str())).collect()),
                });
                let sort = Sort::Enum(def.clone());
                for (k, c) in ctors.iter().enumerate() {
                    self.declare_name(c)?;
                    self.globals.insert(c.0.clone(), (Sym::Rigid(Term::enum_const(sort.clone(), k as i64)), c.1));
                }
                self.sys.enums.push(def);
                sort
            }
        };
        self.sorts.insert(name.0.clone(), sort);
        Ok(())
    }

    fn sort(&self, (name, at): &Name) -> Result<Sort, Diagnostic> {
        self.sorts.get(name).cloned().ok_or_else(|| self.err(*at, format!("unknown type '{name}'")))
    }

    fn declare_var(&mut self, name: &Name, ty: &Name, rigid: bool) -> Result<(), Diagnostic> {
        let sort = self.sort(ty)?;
        self.declare_name(name)?;
        let term = Term::var(&name.0, sort);
        let sym = if rigid {
            self.sys.consts.push(term.clone());
            Sym::Rigid(term)
        } else {
            self.sys.vars.push(StateVar { term: term.clone(), is_array: false });
            Sym::Scalar(term, self.sys.vars.len() - 1)
        };
        self.globals.insert(name.0.clone(), (sym, name.1));
        Ok(())
    }

    fn declare_array(&mut self, name: &Name, dims: &[Name], ty: &Name) -> Result<(), Diagnostic> {
        for d in dims {
            if self.sort(d)? != Sort::Index {
                return Err(self.err(d.1, format!("arrays are indexed by processes: expected 'proc', found '{}'", d.0)));
            }
        }
        let elem = self.sort(ty)?;
        self.declare_name(name)?;
        let term = Term::var(&name.0, Sort::array(vec![Sort::Index; dims.len()], elem));
        self.sys.vars.push(StateVar { term: term.clone(), is_array: true });
        self.globals.insert(name.0.clone(), (Sym::Array(term, self.sys.vars.len() - 1), name.1));
        Ok(())
    }

    fn define_predicate(&mut self, name: &Name, params: &[Name], body: &Expr) -> Result<(), Diagnostic> {
        self.declare_name(name)?;
        let mut seen = HashSet::new();
        for (p, at) in params {
            if !seen.insert(p) {
                return Err(self.err(*at, format!("parameter '{p}' is listed twice")));
            }
        }
        // Only earlier predicates may be called: no recursion.
        self.check_calls(body)?;
        self.preds.insert(name.0.clone(), (Predicate { params: params.to_vec(), body: body.clone() }, name.1));
        Ok(())
    }

    fn check_calls(&self, e: &Expr) -> Result<(), Diagnostic> {
        match &e.kind {
            ExprKind::Call(p, args) => {
                if !self.preds.contains_key(p) {
                    return Err(
                        self.err(e.pos, format!("undefined predicate '{p}' (predicates are defined before use)"))
                    );
                }
                args.iter().try_for_each(|a| self.check_calls(a))
            }
            ExprKind::Read(_, args) => args.iter().try_for_each(|a| self.check_calls(a)),
            ExprKind::Neg(a) | ExprKind::Not(a) | ExprKind::Quant(_, _, a) => self.check_calls(a),
            ExprKind::Bin(_, a, b) => {
                self.check_calls(a)?;
                self.check_calls(b)
            }
            ExprKind::Ite(a, b, c) => {
                self.check_calls(a)?;
                self.check_calls(b)?;
                self.check_calls(c)
            }
            ExprKind::Name(_) | ExprKind::Proc(_) | ExprKind::Int(_) | ExprKind::Real(..) | ExprKind::Bool(_) => Ok(()),
        }
    }

    // ----- local names

    /// Starts an item: no locals, only global names taken.
    fn begin_item(&mut self) {
        self.locals.clear();
        self.taken = self.declared.keys().cloned().collect();
        self.taken.extend(["True", "False"].map(String::from));
        self.params = None;
    }

    /// A fresh name based on `base`, not clashing with anything in use.
    fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut k = 1;
        while self.taken.contains(&name) || is_reserved(&name) {
            name = format!("{base}{k}");
            k += 1;
        }
        self.taken.insert(name.clone());
        name
    }

    /// Index variables named by the user for a whole item (parameters,
    /// `init`/`unsafe` variables): pairwise distinct and not clashing with
    /// declarations.
    fn item_vars(&mut self, vars: &[Name], what: &str) -> Result<Vec<Term>, Diagnostic> {
        let mut out = vec![];
        for (v, at) in vars {
            if let Some(first) = self.declared.get(v) {
                let (l, c) = line_col(self.src, *first);
                return Err(self.err(*at, format!("{what} '{v}' has the name of a declaration (at {l}:{c})")));
            }
            if is_reserved(v) {
                return Err(self.err(*at, format!("'{v}' is reserved (an operator of arrax's canonical form)")));
            }
            if !self.taken.insert(v.clone()) {
                return Err(self.err(*at, format!("{what} '{v}' is listed twice")));
            }
            let t = Term::var(v, Sort::Index);
            self.locals.push((v.clone(), t.clone()));
            out.push(t);
        }
        Ok(out)
    }

    /// Binds a user-named index variable under a fresh name; returns it.
    fn bind_index(&mut self, name: &str) -> Term {
        let fresh = self.fresh(name);
        let t = Term::var(&fresh, Sort::Index);
        self.locals.push((name.to_string(), t.clone()));
        t
    }

    fn lookup_local(&self, name: &str) -> Option<&Term> {
        self.locals.iter().rev().find(|(n, _)| n == name).map(|(_, t)| t)
    }

    // ----- terms and formulas

    fn elab(&mut self, e: &Expr) -> Result<Term, Diagnostic> {
        match &e.kind {
            ExprKind::Int(n) => Ok(Term::int(*n)),
            ExprKind::Real(n, d) => Ok(Term::real(*n, *d)),
            ExprKind::Bool(b) => Ok(Term::bool(*b)),
            ExprKind::Proc(n) => self.proc_const(*n, e.pos),
            ExprKind::Name(s) => self.name(s, e.pos),
            ExprKind::Read(a, idx) => self.read(a, idx, e.pos),
            ExprKind::Call(p, args) => self.call(p, args, e.pos),
            ExprKind::Neg(a) => {
                let t = self.value(a)?;
                if !t.sort().is_numeric() {
                    return Err(self.err(a.pos, format!("'-' expects a number, found sort {}", t.sort())));
                }
                Ok(t.neg())
            }
            ExprKind::Not(a) => Ok(self.formula(a)?.not()),
            ExprKind::Bin(op, a, b) => self.binary(*op, a, b, e.pos),
            ExprKind::Ite(c, a, b) => {
                let c = self.formula(c)?;
                let (x, y) = (self.elab(a)?, self.elab(b)?);
                if *x.sort() == Sort::Bool && *y.sort() == Sort::Bool {
                    if has_quant(&c) || has_quant(&x) || has_quant(&y) {
                        return Ok(Term::or([Term::and([c.clone(), x]), Term::and([c.not(), y])]));
                    }
                    return Ok(Term::ite(&c, &x, &y));
                }
                let (x, y) = self.unify(x, y, a.pos, "the branches of 'if'")?;
                if has_quant(&c) {
                    return Err(self.err(e.pos, "the condition of an 'if' on values cannot contain a quantifier"));
                }
                Ok(Term::ite(&c, &x, &y))
            }
            ExprKind::Quant(q, vars, body) => self.quantifier(*q, vars, body, e.pos),
        }
    }

    /// A formula (Boolean).
    fn formula(&mut self, e: &Expr) -> Result<Term, Diagnostic> {
        let t = self.elab(e)?;
        if *t.sort() != Sort::Bool {
            return Err(self.err(e.pos, format!("expected a formula, found a term of sort {}", t.sort())));
        }
        Ok(t)
    }

    /// A quantifier-free term.
    fn value(&mut self, e: &Expr) -> Result<Term, Diagnostic> {
        let t = self.elab(e)?;
        if has_quant(&t) {
            return Err(self.err(e.pos, "a quantified formula cannot be used as a value here"));
        }
        Ok(t)
    }

    /// A quantifier-free term that fits sort `want`.
    fn value_of(&mut self, e: &Expr, want: &Sort, what: &str) -> Result<Term, Diagnostic> {
        let t = self.value(e)?;
        coerce(&t, want)
            .ok_or_else(|| self.err(e.pos, format!("sort mismatch in {what}: expected {want}, found {}", t.sort())))
    }

    fn proc_const(&mut self, n: i64, at: usize) -> Result<Term, Diagnostic> {
        if let Some(max) = self.number_procs {
            if n > max {
                return Err(self.err(at, format!("process constant #{n} exceeds number_procs {max}")));
            }
        }
        Ok(self.procs.entry(n).or_insert_with(|| Term::var(&format!("#{n}"), Sort::Index)).clone())
    }

    fn name(&mut self, s: &str, at: usize) -> Result<Term, Diagnostic> {
        if let Some(t) = self.lookup_local(s) {
            return Ok(t.clone());
        }
        match self.globals.get(s) {
            Some((Sym::Scalar(t, _) | Sym::Rigid(t), _)) => Ok(t.clone()),
            Some((Sym::Array(..), _)) => Err(self.err(at, format!("array '{s}' is used without an index ('{s}[i]')"))),
            None if self.preds.contains_key(s) => {
                Err(self.err(at, format!("predicate '{s}' is used without arguments ('{s}(…)')")))
            }
            None => Err(self.err(at, format!("undeclared identifier '{s}'"))),
        }
    }

    fn index(&mut self, e: &Expr) -> Result<Term, Diagnostic> {
        let t = self.value(e)?;
        if *t.sort() != Sort::Index {
            return Err(self.err(e.pos, format!("an array index must be a process, found sort {}", t.sort())));
        }
        Ok(t)
    }

    fn array(&self, name: &str, at: usize) -> Result<Term, Diagnostic> {
        match self.globals.get(name) {
            Some((Sym::Array(t, _), _)) => Ok(t.clone()),
            Some(_) => Err(self.err(at, format!("'{name}' is not an array"))),
            None if self.lookup_local(name).is_some() => Err(self.err(at, format!("'{name}' is not an array"))),
            None => Err(self.err(at, format!("undeclared array '{name}'"))),
        }
    }

    fn read(&mut self, name: &str, idx: &[Expr], at: usize) -> Result<Term, Diagnostic> {
        let a = self.array(name, at)?;
        let dims = a.sort().as_array().map_or(0, |s| s.index.len());
        if dims != idx.len() {
            return Err(self.err(at, format!("array '{name}' takes {dims} indices, found {}", idx.len())));
        }
        let idx = idx.iter().map(|i| self.index(i)).collect::<Result<Vec<_>, _>>()?;
        Ok(Term::select(&a, &idx))
    }

    fn call(&mut self, name: &str, args: &[Expr], at: usize) -> Result<Term, Diagnostic> {
        let Some((pred, _)) = self.preds.get(name) else {
            return Err(self.err(at, format!("undefined predicate '{name}'")));
        };
        let (params, body) = (pred.params.clone(), pred.body.clone());
        if params.len() != args.len() {
            return Err(
                self.err(at, format!("predicate '{name}' takes {} arguments, found {}", params.len(), args.len()))
            );
        }
        let args = args.iter().map(|a| self.elab(a)).collect::<Result<Vec<_>, _>>()?;
        // The body sees the globals and its parameters only.
        let saved = std::mem::take(&mut self.locals);
        self.locals = params.iter().map(|(p, _)| p.clone()).zip(args).collect();
        let r = self.formula(&body);
        self.locals = saved;
        r.map_err(|d| {
            let (l, c) = line_col(self.src, at);
            Diagnostic { message: format!("{} (in predicate '{name}' called at {l}:{c})", d.message), ..d }
        })
    }

    /// `t` and `u` brought to one sort (an integer literal becomes real
    /// next to a real).
    fn unify(&self, t: Term, u: Term, at: usize, what: &str) -> Result<(Term, Term), Diagnostic> {
        if let Some(u2) = coerce(&u, t.sort()) {
            return Ok((t, u2));
        }
        if let Some(t2) = coerce(&t, u.sort()) {
            return Ok((t2, u));
        }
        Err(self.err(at, format!("sort mismatch in {what}: {} and {}", t.sort(), u.sort())))
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, at: usize) -> Result<Term, Diagnostic> {
        match op {
            BinOp::And | BinOp::Or | BinOp::Imp | BinOp::Equiv => {
                let (x, y) = (self.formula(a)?, self.formula(b)?);
                Ok(match op {
                    BinOp::And => Term::and([x, y]),
                    BinOp::Or => Term::or([x, y]),
                    BinOp::Imp => Term::implies(&x, &y),
                    _ if has_quant(&x) || has_quant(&y) => {
                        Term::or([Term::and([x.clone(), y.clone()]), Term::and([x.not(), y.not()])])
                    }
                    _ => Term::eq(&x, &y),
                })
            }
            BinOp::Eq | BinOp::Neq => {
                let (x, y) = (self.value(a)?, self.value(b)?);
                let (x, y) = self.unify(x, y, at, "a comparison")?;
                let eq = Term::eq(&x, &y);
                Ok(if op == BinOp::Eq { eq } else { eq.not() })
            }
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let (x, y) = (self.value(a)?, self.value(b)?);
                let (x, y) = self.unify(x, y, at, "a comparison")?;
                if !x.sort().is_numeric() && *x.sort() != Sort::Index {
                    return Err(
                        self.err(at, format!("order comparison on sort {}: expected numbers or processes", x.sort()))
                    );
                }
                Ok(match op {
                    BinOp::Lt => Term::lt(&x, &y),
                    BinOp::Le => Term::le(&x, &y),
                    BinOp::Gt => Term::gt(&x, &y),
                    _ => Term::ge(&x, &y),
                })
            }
            BinOp::Add | BinOp::Sub | BinOp::Mul => {
                let (x, y) = (self.value(a)?, self.value(b)?);
                let (x, y) = self.unify(x, y, at, "arithmetic")?;
                if !x.sort().is_numeric() {
                    return Err(self.err(at, format!("arithmetic on sort {}: expected numbers", x.sort())));
                }
                let y = if op == BinOp::Sub { y.neg() } else { y };
                let items = [x, y];
                if op == BinOp::Mul {
                    if !items[0].is_value() && !items[1].is_value() {
                        return Err(self.err(at, "non-linear product: one factor must be a number literal"));
                    }
                    if !super::elab::fold::product(&items) {
                        return Err(self.err(at, "constant arithmetic overflows 64-bit integers"));
                    }
                    return Ok(Term::mul(items));
                }
                if !super::elab::fold::sum(&items) {
                    return Err(self.err(at, "constant arithmetic overflows 64-bit integers"));
                }
                Ok(Term::add(items))
            }
        }
    }

    fn quantifier(&mut self, q: Quant, vars: &[Name], body: &Expr, at: usize) -> Result<Term, Diagnostic> {
        let params = match q {
            Quant::ForallOther | Quant::ExistsOther => match &self.params {
                Some(p) => p.clone(),
                None => {
                    let kw = if q == Quant::ForallOther { "forall_other" } else { "exists_other" };
                    return Err(self.err(at, format!("'{kw}' is only meaningful in a transition guard")));
                }
            },
            _ => vec![],
        };
        let depth = self.locals.len();
        let bound: Vec<Term> = vars.iter().map(|(v, _)| self.bind_index(v)).collect();
        let body = self.formula(body);
        self.locals.truncate(depth);
        let body = body?;
        // Distinct variables (`x <> y`) and the `_other` exclusions.
        let mut excluded = vec![];
        for (i, x) in bound.iter().enumerate() {
            excluded.extend(bound[..i].iter().map(|y| Term::eq(x, y)));
            excluded.extend(params.iter().map(|p| Term::eq(x, p)));
        }
        Ok(match q {
            Quant::Forall | Quant::ForallOther => {
                Term::forall(&bound, &Term::or(excluded.into_iter().chain(std::iter::once(body))))
            }
            Quant::Exists | Quant::ExistsOther => {
                Term::exists(&bound, &Term::and(excluded.iter().map(|e| e.not()).chain(std::iter::once(body))))
            }
        })
    }

    // ----- sections

    fn formula_item(&mut self, section: Section, at: usize, vars: &[Name], body: &Expr) -> Result<(), Diagnostic> {
        self.begin_item();
        let declared = self.item_vars(vars, "variable")?;
        let body = nnf(&self.formula(body)?, false);
        if section == Section::Init {
            let (more, body) = lift_forall(&body).map_err(|m| self.err(at, m))?;
            let vars = [declared, more].concat();
            self.sys.initial.push(Quantified { vars, lits: conjuncts(&body) });
            return Ok(());
        }
        let mut cubes = vec![];
        for (ex, lits) in split_cube(&body).map_err(|m| self.err(at, m))? {
            for (map, kept) in identifications(&ex, &declared) {
                let vars = [declared.clone(), kept].concat();
                let b = substitute(&substitute(&Term::and(lits.clone()), &map), &distinctness(&vars));
                if b.as_bool() != Some(false) {
                    cubes.push(Quantified { vars, lits: conjuncts(&b) });
                }
            }
        }
        let what = if section == Section::Unsafe { "unsafe" } else { "invariant" };
        if cubes.is_empty() {
            self.warnings.push(self.err(at, format!("this {what} formula is unsatisfiable and states nothing")));
        }
        if section == Section::Unsafe { &mut self.sys.unsafe_ } else { &mut self.sys.hints }.extend(cubes);
        Ok(())
    }

    fn transition(&mut self, t: &TransitionAst, name: &str) -> Result<(), Diagnostic> {
        self.begin_item();
        let params = self.item_vars(&t.params, "parameter")?;
        self.params = Some(params.clone());
        let guard = match &t.guard {
            Some(g) => nnf(&self.formula(g)?, false),
            None => Term::tt(),
        };
        let guard_at = t.guard.as_ref().map_or(t.name.1, |g| g.pos);
        let cases = split_guard(&guard).map_err(|m| self.err(guard_at, m))?;
        for ((n, at), e) in &t.lets {
            let v = self.value(e)?;
            if self.lookup_local(n).is_some() || self.declared.contains_key(n) {
                return Err(self.err(*at, format!("'let {n}' hides another name")));
            }
            self.locals.push((n.clone(), v));
        }
        let mut updates: Vec<Update> = vec![];
        let mut values = vec![];
        let mut chosen = vec![];
        // Each update's λ-variables need only avoid the names in scope.
        let in_scope = self.taken.clone();
        for a in &t.actions {
            self.taken = in_scope.clone();
            self.taken.extend(values.iter().chain(&chosen).filter_map(|v: &Term| v.var_name().map(String::from)));
            let (name, at) = &a.target;
            let (var, is_array) = match self.globals.get(name) {
                Some((Sym::Scalar(_, k), _)) => (*k, false),
                Some((Sym::Array(_, k), _)) => (*k, true),
                Some((Sym::Rigid(_), _)) => {
                    return Err(self.err(*at, format!("'{name}' is a constant and cannot be assigned")))
                }
                None => return Err(self.err(*at, format!("assignment to undeclared variable '{name}'"))),
            };
            if updates.iter().any(|u| u.var == var) {
                return Err(self.err(*at, format!("'{name}' is assigned twice in transition '{}'", t.name.0)));
            }
            let sv = self.sys.vars[var].clone();
            let value = match (&a.index, is_array) {
                (None, false) => match &a.rhs {
                    Rhs::Nondet if sv.value_sort() == Sort::Index => {
                        let k = Term::var(&self.fresh(&format!("{name}?")), Sort::Index);
                        chosen.push(k.clone());
                        k
                    }
                    Rhs::Nondet => {
                        let v = Term::var(&self.fresh(&format!("{name}?")), sv.value_sort());
                        values.push(v.clone());
                        v
                    }
                    Rhs::Term(e) => self.value_of(e, &sv.value_sort(), &format!("the assignment to '{name}'"))?,
                    Rhs::Case(cases) => self.cases(cases, &sv.value_sort(), name)?,
                },
                (None, true) => {
                    return Err(self.err(
                        *at,
                        format!(
                            "whole-array assignment to '{name}' is not supported (write '{name}[j] := case | _ : …')"
                        ),
                    ))
                }
                (Some(_), false) => return Err(self.err(*at, format!("'{name}' is not an array"))),
                (Some(idx), true) => self.array_update(&sv, name, *at, idx, &a.rhs)?,
            };
            updates.push(Update { var, value });
        }
        updates.sort_by_key(|u| u.var);
        let transitions = instances(name, &params, cases, &chosen, &values, &updates);
        if transitions.is_empty() {
            self.warnings.push(self.err(t.name.1, format!("transition '{name}' can never fire (its guard is false)")));
        }
        self.sys.transitions.extend(transitions);
        Ok(())
    }

    /// `case | c1 : v1 | … | _ : vn` as `ite(c1, v1, … vn)`.
    fn cases(&mut self, cases: &[(Option<Expr>, Expr)], want: &Sort, name: &str) -> Result<Term, Diagnostic> {
        let what = format!("a case of the assignment to '{name}'");
        let (last, rest) = cases.split_last().expect("at least one case");
        let default = match &last.0 {
            None => &last.1,
            Some(c) => return Err(self.err(c.pos, "the last case must be the default '| _ : …'")),
        };
        let mut acc = self.value_of(default, want, &what)?;
        let mut arms = vec![];
        for (cond, v) in rest {
            let Some(cond) = cond else {
                return Err(self.err(v.pos, "the default case '| _ : …' must come last"));
            };
            let c = self.formula(cond)?;
            if has_quant(&c) {
                return Err(self.err(cond.pos, "a case condition cannot contain a quantifier"));
            }
            arms.push((c, self.value_of(v, want, &what)?));
        }
        for (c, v) in arms.into_iter().rev() {
            acc = Term::ite(&c, &v, &acc);
        }
        Ok(acc)
    }

    /// The new value `λj̄. …` of an array assigned `A[j̄] := case …` or `A[x̄] := e`.
    fn array_update(
        &mut self,
        sv: &StateVar,
        name: &str,
        at: usize,
        idx: &[Expr],
        rhs: &Rhs,
    ) -> Result<Term, Diagnostic> {
        let dims = sv.term.sort().as_array().map_or(0, |s| s.index.len());
        if dims != idx.len() {
            return Err(self.err(at, format!("array '{name}' takes {dims} indices, found {}", idx.len())));
        }
        let want = sv.value_sort();
        let depth = self.locals.len();
        let r = match rhs {
            Rhs::Nondet => {
                Err(self.err(at, format!("nondeterministic assignment to an element of '{name}' is not supported")))
            }
            Rhs::Case(cases) => {
                let mut binders: Vec<Term> = vec![];
                for e in idx {
                    let ExprKind::Name(j) = &e.kind else {
                        return Err(self.err(e.pos, "the indices of a case assignment must be new variable names"));
                    };
                    if self.lookup_local(j).is_some() || self.globals.contains_key(j) {
                        return Err(self.err(
                            e.pos,
                            format!("'{j}' already has a meaning; a case assignment needs a new variable"),
                        ));
                    }
                    if self.locals[depth..].iter().any(|(n, _)| n == j) {
                        return Err(self.err(e.pos, format!("index variable '{j}' is listed twice")));
                    }
                    binders.push(self.bind_index(j));
                }
                self.cases(cases, &want, name).map(|body| Term::lambda(&binders, &body))
            }
            Rhs::Term(e) => {
                let targets = idx.iter().map(|i| self.index(i)).collect::<Result<Vec<_>, _>>()?;
                let v = self.value_of(e, &want, &format!("the assignment to '{name}'"))?;
                let binders: Vec<Term> = (0..dims).map(|_| Term::var(&self.fresh("j"), Sort::Index)).collect();
                let hit = Term::and(binders.iter().zip(&targets).map(|(j, x)| Term::eq(j, x)));
                Ok(Term::lambda(&binders, &Term::ite(&hit, &v, &Term::select(&sv.term, &binders))))
            }
        };
        self.locals.truncate(depth);
        r
    }
}

/// The IR transitions of one Cubicle transition: one per guard
/// disjunct with quantifiers and per identification of its new
/// parameters (existentials, nondeterministic processes).
fn instances(
    name: &str,
    params: &[Term],
    cases: Vec<GuardCase>,
    chosen: &[Term],
    values: &[Term],
    updates: &[Update],
) -> Vec<Transition> {
    let mut out = vec![];
    for case in cases {
        let new = [case.exists.clone(), chosen.to_vec()].concat();
        for (map, kept) in identifications(&new, params) {
            let all = [params.to_vec(), kept].concat();
            let distinct = distinctness(&all);
            let apply = |t: &Term, map: &HashMap<Term, Term>| substitute(&substitute(t, map), &distinct);
            let guard = apply(&Term::and(case.lits.clone()), &map);
            if guard.as_bool() == Some(false) {
                continue;
            }
            let uguard = match case.univ.first() {
                None => None,
                Some((j, _)) => {
                    let parts = case.univ.iter().map(|(v, b)| {
                        let mut m = map.clone();
                        m.insert(v.clone(), j.clone());
                        apply(b, &m)
                    });
                    let body = Term::and(parts);
                    match body.as_bool() {
                        Some(true) => None,
                        Some(false) => continue,
                        None => Some((j.clone(), body)),
                    }
                }
            };
            let updates = updates.iter().map(|u| Update { var: u.var, value: apply(&u.value, &map) }).collect();
            out.push(Transition {
                name: name.to_string(),
                params: all,
                values: values.to_vec(),
                guard,
                uguard,
                updates,
                checks: None,
            });
        }
    }
    if out.len() > 1 {
        for (k, tr) in out.iter_mut().enumerate() {
            tr.name = format!("{name}.{}", k + 1);
        }
    }
    out
}

/// `t` as a term of sort `want`, if it fits (an integer literal fits Real).
fn coerce(t: &Term, want: &Sort) -> Option<Term> {
    if t.sort().compatible(want) {
        return Some(t.clone());
    }
    match (t.as_int(), want) {
        (Some(n), Sort::Real) => Some(Term::real(n, 1)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexes_comments_numbers_and_punctuation() {
        let toks = lex("(* a (* nested *) comment *) X := 1.50 + #2; A[i] <> B").unwrap();
        let kinds: Vec<Tok> = toks.into_iter().map(|t| t.tok).collect();
        assert_eq!(
            kinds,
            vec![
                Tok::Ident("X".into()),
                Tok::Punct(":="),
                Tok::Real(150, 100),
                Tok::Punct("+"),
                Tok::Proc(2),
                Tok::Punct(";"),
                Tok::Ident("A".into()),
                Tok::Punct("["),
                Tok::Ident("i".into()),
                Tok::Punct("]"),
                Tok::Punct("<>"),
                Tok::Ident("B".into()),
            ]
        );
        assert!(lex("(* open").unwrap_err().message.contains("unterminated comment"));
    }

    #[test]
    fn identifications_count_every_choice() {
        let v = |n: &str| Term::var(n, Sort::Index);
        // one new variable, two old ones: equal to either, or new
        assert_eq!(identifications(&[v("k")], &[v("x"), v("y")]).len(), 3);
        // two new variables, no old ones: equal or distinct
        assert_eq!(identifications(&[v("k"), v("l")], &[]).len(), 2);
    }
}
