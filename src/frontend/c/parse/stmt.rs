//! Statements and blocks.

use super::Parser;
use crate::frontend::c::ast::*;
use crate::frontend::c::lex::Tok;
use crate::frontend::Diagnostic;

impl Parser<'_> {
    /// A block `{ … }`: its statements.
    pub(super) fn block(&mut self) -> Result<Vec<Stmt>, Diagnostic> {
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

    fn statement(&mut self) -> Result<Stmt, Diagnostic> {
        self.nested(Self::statement_inner)
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
}
