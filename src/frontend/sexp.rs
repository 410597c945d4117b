//! An s-expression reader that keeps the byte span of every node, for
//! located diagnostics.
//!
//! Besides lists, symbols, keywords (`:name`), integers, decimals and
//! strings (`"…"`, with `""` for a quote), it reads
//! - `;` line comments,
//! - `|quoted symbols|` (any text but `|`),
//! - symbols with the odd characters of MCMT identifiers (`` ` ``, `_`, `!`, `'`, `::`),
//! - the MCMT array-read sugar `a[x]`, `a[x,y]`, `a[(+ i 1)]`: a name
//!   immediately followed by `[` ([`SexpKind::Select`]).
//!
//! Lexing is done with `nom` combinators; nesting is bounded by
//! [`MAX_DEPTH`] so that no input can exhaust the stack.

use super::Diagnostic;
use nom::{
    branch::alt,
    bytes::complete::{take_till, take_while1},
    character::complete::{char, digit1},
    combinator::{all_consuming, opt, recognize},
    multi::many0_count,
    sequence::{pair, preceded, tuple},
    IResult,
};

/// The deepest nesting of lists and array reads the reader accepts.
pub const MAX_DEPTH: usize = 400;

/// A node of an s-expression with its byte span `start..end` in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sexp {
    /// What the node is.
    pub kind: SexpKind,
    /// Byte offset of the node's first character.
    pub start: usize,
    /// Byte offset just after the node's last character.
    pub end: usize,
}

/// The kinds of s-expression nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SexpKind {
    /// A symbol, bare or `|quoted|` (stored without the bars).
    Symbol(String),
    /// A keyword `:name` (stored without the colon).
    Keyword(String),
    /// An integer literal (optionally with a leading `-`).
    Int(i64),
    /// A decimal literal `num/den` as written (`1.50` is `150/100`).
    Decimal(i64, i64),
    /// A string literal (with `""` unescaped to `"`).
    Str(String),
    /// A parenthesised list.
    List(Vec<Sexp>),
    /// The array-read sugar `name[i1, …, in]`: the name and the indices.
    Select(Box<Sexp>, Vec<Sexp>),
}

impl Sexp {
    /// The source text of the node.
    pub fn text<'s>(&self, src: &'s str) -> &'s str {
        &src[self.start..self.end]
    }
    /// The symbol's name, if the node is a symbol.
    pub fn symbol(&self) -> Option<&str> {
        match &self.kind {
            SexpKind::Symbol(s) => Some(s),
            _ => None,
        }
    }
    /// The elements, if the node is a list.
    pub fn list(&self) -> Option<&[Sexp]> {
        match &self.kind {
            SexpKind::List(items) => Some(items),
            _ => None,
        }
    }
    /// The head symbol of a list `(head …)`.
    pub fn head(&self) -> Option<&str> {
        self.list().and_then(|l| l.first()).and_then(|h| h.symbol())
    }
}

/// Whether `c` may appear in a bare symbol, keyword or number.
fn is_atom_char(c: char) -> bool {
    !c.is_whitespace() && !c.is_control() && !"()[],;|\"".contains(c) && c != '\u{feff}'
}

/// Whitespace (including a byte-order mark) and `;` comments.
fn trivia(i: &str) -> IResult<&str, usize> {
    many0_count(alt((take_while1(|c: char| c.is_whitespace() || c == '\u{feff}'), recognize(pair(char(';'), take_till(|c| c == '\n'))))))(i)
}

/// A maximal run of atom characters.
fn atom(i: &str) -> IResult<&str, &str> {
    take_while1(is_atom_char)(i)
}

/// A whole token that is a number: `-`? digits (`.` digits)?.
fn number(i: &str) -> IResult<&str, (Option<char>, &str, Option<&str>)> {
    all_consuming(tuple((opt(char('-')), digit1, opt(preceded(char('.'), digit1)))))(i)
}

/// A reader over a source text, producing top-level nodes one at a time.
pub struct Reader<'a> {
    src: &'a str,
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `src`.
    pub fn new(src: &'a str) -> Self {
        Reader { src, pos: 0 }
    }

    /// The next top-level node, or `None` at the end of the input.
    pub fn next_node(&mut self) -> Result<Option<Sexp>, Diagnostic> {
        self.skip_trivia();
        if self.pos >= self.src.len() {
            return Ok(None);
        }
        self.node(0).map(Some)
    }

    /// Skips the rest of the current line and returns it (without the newline).
    pub fn rest_of_line(&mut self) -> &'a str {
        let rest = &self.src[self.pos..];
        let line = rest.split('\n').next().unwrap_or("");
        self.pos += line.len();
        line
    }

    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    fn err(&self, offset: usize, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.src, offset, msg)
    }

    fn skip_trivia(&mut self) {
        let rest = self.rest();
        // `trivia` never fails: it accepts the empty run.
        let remaining = trivia(rest).map(|(r, _)| r).unwrap_or(rest);
        self.pos += rest.len() - remaining.len();
    }

    fn node(&mut self, depth: usize) -> Result<Sexp, Diagnostic> {
        let start = self.pos;
        if depth > MAX_DEPTH {
            return Err(self.err(start, format!("nesting too deep (more than {MAX_DEPTH} levels)")));
        }
        let Some(c) = self.rest().chars().next() else {
            return Err(self.err(start, "unexpected end of input"));
        };
        let node = match c {
            '(' => self.list(depth)?,
            ')' | ']' | ',' => return Err(self.err(start, format!("unexpected '{c}'"))),
            '[' => return Err(self.err(start, "unexpected '[' (an array read needs a name before it, as in a[x])")),
            '|' => {
                let (rest, name) =
                    preceded(char::<&str, ()>('|'), take_till(|c| c == '|'))(self.rest()).map_err(|_| self.err(start, "unterminated quoted symbol"))?;
                if rest.is_empty() {
                    return Err(self.err(start, "unterminated quoted symbol: missing closing '|'"));
                }
                self.pos += 1 + name.len() + 1;
                Sexp { kind: SexpKind::Symbol(name.to_string()), start, end: self.pos }
            }
            '"' => self.string()?,
            c if is_atom_char(c) => {
                let (_, tok) = atom(self.rest()).map_err(|_| self.err(start, "expected a symbol"))?;
                self.pos += tok.len();
                Sexp { kind: self.classify(tok, start)?, start, end: self.pos }
            }
            c => return Err(self.err(start, format!("unexpected character {c:?}"))),
        };
        if matches!(node.kind, SexpKind::Symbol(_)) && self.rest().starts_with('[') {
            return self.select(node, depth);
        }
        Ok(node)
    }

    fn list(&mut self, depth: usize) -> Result<Sexp, Diagnostic> {
        let start = self.pos;
        self.pos += 1;
        let mut items = vec![];
        loop {
            self.skip_trivia();
            match self.rest().chars().next() {
                None => return Err(self.err(start, "unclosed '(': the input ends before its ')'")),
                Some(')') => {
                    self.pos += 1;
                    return Ok(Sexp { kind: SexpKind::List(items), start, end: self.pos });
                }
                Some(_) => items.push(self.node(depth + 1)?),
            }
        }
    }

    fn select(&mut self, name: Sexp, depth: usize) -> Result<Sexp, Diagnostic> {
        let open = self.pos;
        self.pos += 1;
        let mut idx = vec![];
        loop {
            self.skip_trivia();
            match self.rest().chars().next() {
                None => return Err(self.err(open, "unclosed '[': the input ends before its ']'")),
                Some(']') if idx.is_empty() => return Err(self.err(self.pos, "empty index list '[]'")),
                _ => {}
            }
            idx.push(self.node(depth + 1)?);
            self.skip_trivia();
            match self.rest().chars().next() {
                Some(',') => self.pos += 1,
                Some(']') => {
                    self.pos += 1;
                    let start = name.start;
                    return Ok(Sexp { kind: SexpKind::Select(Box::new(name), idx), start, end: self.pos });
                }
                None => return Err(self.err(open, "unclosed '[': the input ends before its ']'")),
                Some(c) => return Err(self.err(self.pos, format!("expected ',' or ']' in an array read, found {c:?}"))),
            }
        }
    }

    fn string(&mut self) -> Result<Sexp, Diagnostic> {
        let start = self.pos;
        self.pos += 1;
        let mut text = String::new();
        loop {
            let rest = self.rest();
            let (after, chunk) = take_till::<_, &str, ()>(|c| c == '"')(rest).map_err(|_| self.err(start, "unterminated string"))?;
            text.push_str(chunk);
            if after.is_empty() {
                return Err(self.err(start, "unterminated string: missing closing '\"'"));
            }
            self.pos += chunk.len() + 1;
            if self.rest().starts_with('"') {
                text.push('"');
                self.pos += 1;
            } else {
                return Ok(Sexp { kind: SexpKind::Str(text), start, end: self.pos });
            }
        }
    }

    fn classify(&self, tok: &str, start: usize) -> Result<SexpKind, Diagnostic> {
        if let Some(k) = tok.strip_prefix(':') {
            return Ok(SexpKind::Keyword(k.to_string()));
        }
        if let Ok((_, (minus, int, frac))) = number(tok) {
            let neg = minus.is_some();
            return match frac {
                None => {
                    let n: i64 = int.parse().map_err(|_| self.err(start, format!("integer literal too large: {tok}")))?;
                    Ok(SexpKind::Int(if neg { -n } else { n }))
                }
                Some(frac) => {
                    let too_large = || self.err(start, format!("decimal literal too large: {tok}"));
                    let den = 10i64.checked_pow(frac.len() as u32).ok_or_else(too_large)?;
                    let whole: i64 = int.parse().map_err(|_| too_large())?;
                    let part: i64 = frac.parse().map_err(|_| too_large())?;
                    let num = whole.checked_mul(den).and_then(|w| w.checked_add(part)).ok_or_else(too_large)?;
                    Ok(SexpKind::Decimal(if neg { -num } else { num }, den))
                }
            };
        }
        let digit_start = tok.strip_prefix('-').unwrap_or(tok).starts_with(|c: char| c.is_ascii_digit());
        if digit_start {
            return Err(self.err(start, format!("malformed number '{tok}'")));
        }
        Ok(SexpKind::Symbol(tok.to_string()))
    }
}

/// Reads every top-level node of `src`.
pub fn read_all(src: &str) -> Result<Vec<Sexp>, Diagnostic> {
    let mut r = Reader::new(src);
    let mut out = vec![];
    while let Some(n) = r.next_node()? {
        out.push(n);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(src: &str) -> Sexp {
        let v = read_all(src).unwrap();
        assert_eq!(v.len(), 1, "{v:?}");
        v.into_iter().next().unwrap()
    }

    #[test]
    fn reads_atoms_and_sugar() {
        assert_eq!(one("42").kind, SexpKind::Int(42));
        assert_eq!(one("-7").kind, SexpKind::Int(-7));
        assert_eq!(one("1.50").kind, SexpKind::Decimal(150, 100));
        assert_eq!(one("N::nat").kind, SexpKind::Symbol("N::nat".into()));
        assert_eq!(one("|a b|").kind, SexpKind::Symbol("a b".into()));
        assert_eq!(one(":cnj").kind, SexpKind::Keyword("cnj".into()));
        assert_eq!(one("\"a\"\"b\"").kind, SexpKind::Str("a\"b".into()));
        let s = one("a[(+ i 1), y]");
        match s.kind {
            SexpKind::Select(name, idx) => {
                assert_eq!(name.symbol(), Some("a"));
                assert_eq!(idx.len(), 2);
                assert_eq!(idx[0].head(), Some("+"));
            }
            k => panic!("{k:?}"),
        }
        assert_eq!(one("`[x]").end, 4);
        assert_eq!(one("(= a[x] 1) ; comment").list().unwrap().len(), 3);
    }

    #[test]
    fn reports_errors_with_positions() {
        let e = read_all("(a\n (b c)").unwrap_err();
        assert_eq!((e.line, e.col), (1, 1));
        let e = read_all("x )").unwrap_err();
        assert_eq!((e.line, e.col), (1, 3));
        let e = read_all("a[x").unwrap_err();
        assert_eq!((e.line, e.col), (1, 2));
        let e = read_all("99999999999999999999").unwrap_err();
        assert!(e.message.contains("too large"));
        let deep = "(".repeat(10_000);
        assert!(read_all(&deep).unwrap_err().message.contains("too deep"));
    }
}
