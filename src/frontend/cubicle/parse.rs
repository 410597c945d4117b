//! The Cubicle parser: recursive descent over the tokens into the syntax
//! tree.

use super::*;
use crate::frontend::sexp::MAX_DEPTH;
use crate::frontend::{line_col, Diagnostic};

/// Chains of an associative operator longer than this are grouped as a
/// balanced tree (not a list nested as deep as it is long), so that no
/// pass over the syntax tree recurses once per operand.
const LONG_CHAIN: usize = 64;

pub(super) struct Parser<'a> {
    pub(super) src: &'a str,
    pub(super) toks: &'a [Token],
    pub(super) i: usize,
    /// How deeply the expression being read nests (bounded by [`MAX_DEPTH`]).
    pub(super) depth: usize,
}

fn bin(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
    Expr { pos: lhs.pos, kind: ExprKind::Bin(op, Box::new(lhs), Box::new(rhs)) }
}

/// `items` (at least one) joined by the associative `op`: nested to the
/// left (or to the right) as the grammar reads a short chain, as a
/// balanced tree when the chain is long.
fn chain(op: BinOp, mut items: Vec<Expr>, to_the_right: bool) -> Expr {
    if items.len() > LONG_CHAIN {
        let right = items.split_off(items.len() / 2);
        return bin(op, chain(op, items, to_the_right), chain(op, right, to_the_right));
    }
    if to_the_right {
        let last = items.pop().expect("a chain has an operand");
        return items.into_iter().rev().fold(last, |rhs, lhs| bin(op, lhs, rhs));
    }
    let mut items = items.into_iter();
    let first = items.next().expect("a chain has an operand");
    items.fold(first, |lhs, rhs| bin(op, lhs, rhs))
}

impl Parser<'_> {
    pub(super) fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.tok)
    }
    pub(super) fn pos(&self) -> usize {
        match self.toks.get(self.i) {
            Some(t) => t.start,
            None => self.toks.last().map_or(0, |t| t.end),
        }
    }
    pub(super) fn err(&self, at: usize, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.src, at, msg)
    }
    pub(super) fn found(&self) -> String {
        match self.toks.get(self.i) {
            None => "end of input".to_string(),
            Some(t) => format!("'{}'", &self.src[t.start..t.end]),
        }
    }
    pub(super) fn expected(&self, what: &str) -> Diagnostic {
        self.err(self.pos(), format!("expected {what}, found {}", self.found()))
    }
    pub(super) fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }
    pub(super) fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(s)) if s == k)
    }
    pub(super) fn eat(&mut self, p: &str) -> bool {
        let yes = self.is(p);
        if yes {
            self.i += 1;
        }
        yes
    }
    pub(super) fn eat_kw(&mut self, k: &str) -> bool {
        let yes = self.is_kw(k);
        if yes {
            self.i += 1;
        }
        yes
    }
    pub(super) fn expect(&mut self, p: &str) -> Result<usize, Diagnostic> {
        let at = self.pos();
        if self.eat(p) {
            Ok(at)
        } else {
            Err(self.legacy().unwrap_or_else(|| self.expected(&format!("'{p}'"))))
        }
    }
    pub(super) fn expect_kw(&mut self, k: &str) -> Result<(), Diagnostic> {
        if self.eat_kw(k) {
            Ok(())
        } else {
            Err(self.expected(&format!("'{k}'")))
        }
    }
    /// The closing `}` of a block opened at `open`.
    pub(super) fn close(&mut self, open: usize) -> Result<(), Diagnostic> {
        if self.eat("}") {
            return Ok(());
        }
        let (l, c) = line_col(self.src, open);
        Err(self.legacy().unwrap_or_else(|| self.err(self.pos(), format!("expected '}}' to close the '{{' at {l}:{c}, found {}", self.found()))))
    }
    /// The error for legacy syntax at the current token, if it is some.
    pub(super) fn legacy(&self) -> Option<Diagnostic> {
        let what = match self.peek()? {
            Tok::Punct("{|") | Tok::Punct("|}") => "'{| … |}' case blocks (write 'case | c : t | _ : t')",
            Tok::Ident(s) if s == "require" => "'require' (write 'requires')",
            Tok::Ident(s) if s == "assign" => "'assign { … }' blocks (write the assignments in the action block)",
            _ => return None,
        };
        Some(self.err(self.pos(), format!("legacy Cubicle syntax {what}: not accepted (Cubicle 1.2 rejects it too)")))
    }
    /// A name that is not a keyword.
    pub(super) fn name(&mut self, what: &str) -> Result<Name, Diagnostic> {
        match self.peek() {
            Some(Tok::Ident(s)) if !KEYWORDS.contains(&s.as_str()) => {
                let n = (s.clone(), self.pos());
                self.i += 1;
                Ok(n)
            }
            _ => Err(self.legacy().unwrap_or_else(|| self.expected(what))),
        }
    }
    pub(super) fn int(&mut self) -> Result<i64, Diagnostic> {
        match self.peek() {
            Some(Tok::Int(n)) => {
                let n = *n;
                self.i += 1;
                Ok(n)
            }
            _ => Err(self.expected("an integer")),
        }
    }

    pub(super) fn file(&mut self) -> Result<Vec<Item>, Diagnostic> {
        let mut items = vec![];
        while self.peek().is_some() {
            items.push(self.item()?);
        }
        if items.is_empty() {
            return Err(self.err(0, "empty input: no Cubicle declarations found"));
        }
        Ok(items)
    }

    pub(super) fn item(&mut self) -> Result<Item, Diagnostic> {
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
                Err(self.legacy().unwrap_or_else(|| self.expected("a declaration (type, var, const, array, init, invariant, unsafe, predicate, transition)")))
            }
        }
    }

    /// `( x y … )`: space-separated variable names.
    pub(super) fn var_list(&mut self) -> Result<Vec<Name>, Diagnostic> {
        self.expect("(")?;
        let mut vars = vec![];
        while !self.eat(")") {
            vars.push(self.name("a variable name or ')'")?);
        }
        Ok(vars)
    }

    pub(super) fn transition(&mut self) -> Result<TransitionAst, Diagnostic> {
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

    pub(super) fn action(&mut self) -> Result<Action, Diagnostic> {
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

    /// One level deeper into an expression; an error past [`MAX_DEPTH`].
    fn enter(&mut self) -> Result<(), Diagnostic> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(self.pos(), format!("nesting too deep (more than {MAX_DEPTH} levels)")));
        }
        Ok(())
    }

    pub(super) fn expr(&mut self) -> Result<Expr, Diagnostic> {
        self.enter()?;
        let e = self.implication();
        self.depth -= 1;
        e
    }

    fn implication(&mut self) -> Result<Expr, Diagnostic> {
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

    pub(super) fn disjunction(&mut self) -> Result<Expr, Diagnostic> {
        let mut items = vec![self.conjunction()?];
        while self.eat("||") {
            items.push(self.conjunction()?);
        }
        Ok(chain(BinOp::Or, items, true))
    }

    pub(super) fn conjunction(&mut self) -> Result<Expr, Diagnostic> {
        let mut items = vec![self.negation()?];
        while self.eat("&&") {
            items.push(self.negation()?);
        }
        Ok(chain(BinOp::And, items, true))
    }

    pub(super) fn negation(&mut self) -> Result<Expr, Diagnostic> {
        let at = self.pos();
        if self.eat_kw("not") {
            self.enter()?;
            let e = self.negation();
            self.depth -= 1;
            return Ok(Expr { kind: ExprKind::Not(Box::new(e?)), pos: at });
        }
        self.comparison()
    }

    pub(super) fn comparison(&mut self) -> Result<Expr, Diagnostic> {
        let lhs = self.sum()?;
        let ops = [("=", BinOp::Eq), ("<>", BinOp::Neq), ("<", BinOp::Lt), ("<=", BinOp::Le), (">", BinOp::Gt), (">=", BinOp::Ge)];
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

    /// `a ± b ± …`, left-nested; a long chain is a balanced sum, each
    /// subtracted operand negated.
    pub(super) fn sum(&mut self) -> Result<Expr, Diagnostic> {
        let mut items = vec![(BinOp::Add, self.product()?)];
        loop {
            let op = if self.is("+") {
                BinOp::Add
            } else if self.is("-") {
                BinOp::Sub
            } else {
                break;
            };
            self.i += 1;
            items.push((op, self.product()?));
        }
        if items.len() > LONG_CHAIN {
            let neg = |(op, e): (BinOp, Expr)| if op == BinOp::Sub { Expr { pos: e.pos, kind: ExprKind::Neg(Box::new(e)) } } else { e };
            return Ok(chain(BinOp::Add, items.into_iter().map(neg).collect(), false));
        }
        let mut items = items.into_iter();
        let (_, first) = items.next().expect("a first operand");
        Ok(items.fold(first, |lhs, (op, rhs)| bin(op, lhs, rhs)))
    }

    pub(super) fn product(&mut self) -> Result<Expr, Diagnostic> {
        let mut items = vec![self.unary()?];
        while self.eat("*") {
            items.push(self.unary()?);
        }
        Ok(chain(BinOp::Mul, items, false))
    }

    pub(super) fn unary(&mut self) -> Result<Expr, Diagnostic> {
        let at = self.pos();
        if self.eat("-") {
            self.enter()?;
            let e = self.unary();
            self.depth -= 1;
            return Ok(Expr { kind: ExprKind::Neg(Box::new(e?)), pos: at });
        }
        self.atom()
    }

    /// `c then t else e` after `if`.
    fn ite(&mut self) -> Result<ExprKind, Diagnostic> {
        let c = self.expr()?;
        self.expect_kw("then")?;
        let t = self.expr()?;
        self.expect_kw("else")?;
        let e = self.negation()?;
        Ok(ExprKind::Ite(Box::new(c), Box::new(t), Box::new(e)))
    }

    pub(super) fn atom(&mut self) -> Result<Expr, Diagnostic> {
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
                        let more =
                            if matches!(q, Quant::Forall | Quant::Exists) { "'.' (several variables are written 'x <> y')" } else { "'.' (one variable only)" };
                        return Err(self.expected(more));
                    }
                    let body = self.expr()?;
                    ExprKind::Quant(q, vars, Box::new(body))
                }
                "if" => {
                    self.i += 1;
                    // counted: an `else` branch is not read as a whole expression
                    self.enter()?;
                    let ite = self.ite();
                    self.depth -= 1;
                    ite?
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
