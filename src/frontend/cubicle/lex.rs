//! The Cubicle lexer (nom): identifiers, numbers, process constants `#n`,
//! punctuation, nested `(* … *)` comments.

use crate::frontend::Diagnostic;
use nom::{
    branch::alt,
    bytes::complete::{tag, take_while},
    character::complete::{char, digit0, digit1, satisfy},
    combinator::{opt, recognize, value},
    sequence::{pair, preceded},
    IResult,
};

/// The words that cannot name anything.
pub(super) const KEYWORDS: &[&str] = &[
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
pub(super) const MAX_LITERAL: i64 = 1 << 40;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Ident(String),
    Proc(i64),
    Int(i64),
    /// A decimal `num/den` as written (`1.50` is `150/100`).
    Real(i64, i64),
    Punct(&'static str),
}

#[derive(Clone, Debug)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) start: usize,
    pub(super) end: usize,
}

pub(super) fn ident(i: &str) -> IResult<&str, &str> {
    recognize(pair(satisfy(|c| c.is_ascii_alphabetic()), take_while(|c: char| c.is_ascii_alphanumeric() || c == '_')))(i)
}

pub(super) fn number(i: &str) -> IResult<&str, (&str, Option<&str>)> {
    pair(digit1, opt(preceded(char('.'), digit0)))(i)
}

pub(super) fn punct(i: &str) -> IResult<&str, &'static str> {
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
pub(super) fn skip_trivia(src: &str, mut at: usize) -> Result<usize, Diagnostic> {
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
pub(super) fn small_int(src: &str, at: usize, digits: &str) -> Result<i64, Diagnostic> {
    digits
        .parse::<i64>()
        .ok()
        .filter(|n| *n <= MAX_LITERAL)
        .ok_or_else(|| Diagnostic::at(src, at, format!("number '{digits}' is too large (the limit is 2^40)")))
}

pub(super) fn lex(src: &str) -> Result<Vec<Token>, Diagnostic> {
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
