//! The C preprocessor, on tokens: object- and function-like `#define`
//! (with `#`, `##` and `__VA_ARGS__`), `#undef`, the conditionals `#if`,
//! `#ifdef`, `#ifndef`, `#elif`, `#else`, `#endif` (constant expressions
//! with `defined`), `#include` of the standard headers arrax knows
//! ([`super::headers`]; other headers are left out with a warning),
//! `#line` and gcc's `# N "file"` markers (kept to map positions back),
//! `#error`, and `#pragma` (ignored).
//!
//! Macro expansion follows the standard's rescanning rules with hide sets
//! (Prosser's algorithm). Every token keeps a byte offset into the source:
//! a token a macro produced has the position of the macro's name where it
//! was used, a header's tokens that of the `#include`, so diagnostics point
//! at the program's text. Each source token is handled a bounded number of
//! times, so the preprocessor takes time linear in the program (plus what
//! macros expand to).

use super::headers;
use super::lex::{spelling, tokenize, tokenize_until, Tok, Token};
use super::DataModel;
use crate::frontend::Diagnostic;
use crate::{HashMap, HashSet};
use std::rc::Rc;
use std::time::Instant;

/// The result of preprocessing.
pub struct Output {
    /// The tokens the parser reads (ending with [`Tok::Eof`]).
    pub tokens: Vec<Token>,
    /// The line markers: the physical line from which a marker holds, the
    /// line it names there, and the file it names.
    pub markers: Vec<(usize, usize, Option<Rc<str>>)>,
    /// Remarks (headers left out), with their positions.
    pub warnings: Vec<(usize, String)>,
}

impl Output {
    /// The file and line the line markers give to a physical line, if a
    /// marker is in effect there.
    pub fn mapped(&self, line: usize) -> Option<(Option<Rc<str>>, usize)> {
        let k = self.markers.partition_point(|m| m.0 <= line);
        let (from, named, file) = self.markers.get(k.checked_sub(1)?)?;
        Some((file.clone(), named + (line - from)))
    }
}

/// A macro definition.
struct Macro {
    /// Parameter names of a function-like macro (`None`: object-like).
    params: Option<Vec<String>>,
    /// Whether the last parameter is `...`.
    variadic: bool,
    /// The replacement list.
    body: Vec<Token>,
}

/// A set of macro names not to expand again (a persistent list).
#[derive(Clone, Default)]
struct Hide(Option<Rc<(Rc<str>, Hide)>>);

impl Hide {
    fn contains(&self, name: &str) -> bool {
        let mut at = &self.0;
        while let Some(n) = at {
            if &*n.0 == name {
                return true;
            }
            at = &n.1 .0;
        }
        false
    }
    fn with(&self, name: &Rc<str>) -> Hide {
        if self.contains(name) {
            self.clone()
        } else {
            Hide(Some(Rc::new((name.clone(), self.clone()))))
        }
    }
}

/// A token during expansion, with its hide set.
#[derive(Clone)]
struct PTok {
    t: Token,
    hide: Hide,
}

/// One level of `#if` nesting.
struct Cond {
    /// Whether the current group is kept.
    active: bool,
    /// Whether some group of this conditional was kept already.
    taken: bool,
    /// Whether `#else` was seen.
    seen_else: bool,
    /// Whether the enclosing groups are kept.
    outer: bool,
}

struct Pp<'a> {
    src: &'a str,
    model: DataModel,
    deadline: Option<Instant>,
    raw: Vec<Token>,
    i: usize,
    out: Vec<Token>,
    macros: HashMap<Rc<str>, Rc<Macro>>,
    conds: Vec<(Cond, usize)>,
    included: HashSet<String>,
    markers: Vec<(usize, usize, Option<Rc<str>>)>,
    warnings: Vec<(usize, String)>,
    line_starts: Rc<[usize]>,
    steps: usize,
    expansions: usize,
}

/// The most macro expansions one program may need.
const MAX_EXPANSIONS: usize = 50_000_000;

type R<T> = Result<T, Diagnostic>;

/// Preprocesses a program: its tokens with directives carried out and
/// macros expanded. `deadline` bounds the time spent (a timeout diagnostic).
pub fn preprocess(src: &str, model: DataModel, deadline: Option<Instant>) -> R<Output> {
    let mut raw = lex_at(&headers::predefined(model), 0)?;
    raw.pop();
    raw.extend(tokenize_until(src, deadline)?);
    let line_starts: Rc<[usize]> = std::iter::once(0).chain(src.match_indices('\n').map(|(k, _)| k + 1)).collect::<Vec<_>>().into();
    let mut pp = Pp {
        src,
        model,
        deadline,
        raw,
        i: 0,
        out: vec![],
        macros: HashMap::default(),
        conds: vec![],
        included: HashSet::default(),
        markers: vec![],
        warnings: vec![],
        line_starts,
        steps: 0,
        expansions: 0,
    };
    pp.run()?;
    if let Some((_, pos)) = pp.conds.last() {
        return Err(pp.err(*pos, "unterminated conditional directive (#if without #endif)"));
    }
    let eof = pp.raw.last().expect("the end of the input").clone();
    pp.out.push(eof);
    Ok(Output { tokens: pp.out, markers: pp.markers, warnings: pp.warnings })
}

/// The tokens of a text, every one placed at `pos`.
fn lex_at(text: &str, pos: usize) -> R<Vec<Token>> {
    let mut toks = tokenize(text).map_err(|d| Diagnostic { message: format!("in a built-in header: {}", d.message), ..d })?;
    for t in &mut toks {
        t.pos = pos;
    }
    Ok(toks)
}

fn is_punct(t: &Token, p: &str) -> bool {
    matches!(&t.tok, Tok::Punct(q) if *q == p)
}

fn ident(t: &Token) -> Option<&str> {
    match &t.tok {
        Tok::Ident(s) => Some(s),
        _ => None,
    }
}

impl Pp<'_> {
    fn err(&self, pos: usize, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.src, pos, msg)
    }
    fn active(&self) -> bool {
        self.conds.last().is_none_or(|c| c.0.active)
    }
    /// Whether the raw token at `k` starts a directive line.
    fn directive_at(&self, k: usize) -> bool {
        let t = &self.raw[k];
        t.bol && is_punct(t, "#")
    }
    fn tick(&mut self) -> R<()> {
        self.steps += 1;
        if self.steps.is_multiple_of(4096) && self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Diagnostic::timeout());
        }
        Ok(())
    }

    fn run(&mut self) -> R<()> {
        let mut pending: Vec<PTok> = vec![];
        loop {
            self.tick()?;
            if pending.is_empty() {
                if self.raw[self.i].tok == Tok::Eof {
                    return Ok(());
                }
                if self.directive_at(self.i) {
                    self.directive()?;
                    continue;
                }
                if !self.active() {
                    self.i += 1;
                    continue;
                }
            }
            let Some(t) = self.next_input(&mut pending, true) else {
                continue;
            };
            self.expand_one(t, &mut pending, true)?;
        }
    }

    /// The next token to expand: from `pending`, else (when `raw`) from the
    /// source, up to a directive line.
    fn next_input(&mut self, pending: &mut Vec<PTok>, raw: bool) -> Option<PTok> {
        if let Some(t) = pending.pop() {
            return Some(t);
        }
        if !raw || self.raw[self.i].tok == Tok::Eof || self.directive_at(self.i) {
            return None;
        }
        self.i += 1;
        Some(PTok { t: self.raw[self.i - 1].clone(), hide: Hide::default() })
    }

    /// Expands `t` if it names a macro (pushing the replacement back onto
    /// `pending` for rescanning), else emits it.
    fn expand_one(&mut self, t: PTok, pending: &mut Vec<PTok>, raw: bool) -> R<()> {
        let mac = match &t.t.tok {
            Tok::Ident(n) if n == "__LINE__" || n == "__FILE__" => {
                self.out.push(self.line_token(n, t.t.pos));
                return Ok(());
            }
            Tok::Ident(n) if !t.hide.contains(n) => self.macros.get_key_value(n.as_str()).map(|(k, m)| (k.clone(), m.clone())),
            _ => None,
        };
        let Some((name, mac)) = mac else {
            self.out.push(t.t);
            return Ok(());
        };
        let pos = t.t.pos;
        self.expansions += 1;
        if self.expansions > MAX_EXPANSIONS {
            return Err(self.err(pos, format!("unsupported: more than {MAX_EXPANSIONS} macro expansions")));
        }
        let hide = t.hide.with(&name);
        let body = match &mac.params {
            None => mac.body.iter().map(|b| PTok { t: Token { pos, ..b.clone() }, hide: hide.clone() }).collect(),
            Some(params) => {
                let Some(open) = self.next_input(pending, raw) else {
                    self.out.push(t.t);
                    return Ok(());
                };
                if !is_punct(&open.t, "(") {
                    self.out.push(t.t);
                    pending.push(open);
                    return Ok(());
                }
                let args = self.arguments(pending, raw, pos, &name)?;
                let args = self.check_arity(args, params, mac.variadic, pos, &name)?;
                self.substitute(&mac, params, &args, pos, &hide)?
            }
        };
        pending.extend(body.into_iter().rev());
        Ok(())
    }

    /// `__LINE__` or `__FILE__` at a position.
    fn line_token(&self, name: &str, pos: usize) -> Token {
        let line = self.line_starts.partition_point(|s| *s <= pos);
        let tok = if name == "__LINE__" { Tok::Int(line as i128, super::ast::IntTy::INT) } else { Tok::Str(b"program.c".to_vec()) };
        Token { tok, pos, bol: false, glued: false }
    }

    /// The arguments of a function-like macro call, after its `(`.
    fn arguments(&mut self, pending: &mut Vec<PTok>, raw: bool, pos: usize, name: &str) -> R<Vec<Vec<PTok>>> {
        let mut args = vec![vec![]];
        let mut depth = 0;
        loop {
            let Some(t) = self.next_input(pending, raw) else {
                return Err(self.err(pos, format!("unterminated call of the macro '{name}'")));
            };
            match &t.t.tok {
                Tok::Punct("(") => depth += 1,
                Tok::Punct(")") if depth == 0 => return Ok(args),
                Tok::Punct(")") => depth -= 1,
                Tok::Punct(",") if depth == 0 => {
                    args.push(vec![]);
                    continue;
                }
                _ => {}
            }
            args.last_mut().expect("an argument").push(t);
        }
    }

    fn check_arity(&self, mut args: Vec<Vec<PTok>>, params: &[String], variadic: bool, pos: usize, name: &str) -> R<Vec<Vec<PTok>>> {
        if params.is_empty() && args.len() == 1 && args[0].is_empty() {
            return Ok(vec![]);
        }
        let fixed = params.len() - variadic as usize;
        if variadic && args.len() > params.len() {
            // the variable arguments are one, commas included
            let rest = args.split_off(fixed);
            let mut joined = vec![];
            for (k, a) in rest.into_iter().enumerate() {
                if k > 0 {
                    joined.push(PTok { t: Token { tok: Tok::Punct(","), pos, bol: false, glued: false }, hide: Hide::default() });
                }
                joined.extend(a);
            }
            args.push(joined);
        }
        if variadic && args.len() == fixed {
            args.push(vec![]);
        }
        if args.len() != params.len() {
            return Err(self.err(pos, format!("the macro '{name}' takes {} argument(s), {} given", params.len(), args.len())));
        }
        Ok(args)
    }

    /// Fully expands an argument (without reading the source).
    fn expand_list(&mut self, toks: &[PTok]) -> R<Vec<PTok>> {
        let saved = std::mem::take(&mut self.out);
        let mut pending: Vec<PTok> = toks.iter().rev().cloned().collect();
        let mut r = Ok(());
        while let Some(t) = pending.pop() {
            if let Err(e) = self.expand_one(t, &mut pending, false) {
                r = Err(e);
                break;
            }
        }
        let out = std::mem::replace(&mut self.out, saved);
        r?;
        Ok(out.into_iter().map(|t| PTok { t, hide: Hide::default() }).collect())
    }

    /// The replacement of a function-like macro call: parameters replaced
    /// (expanded, or as written next to `#` and `##`), `#` and `##` applied.
    fn substitute(&mut self, mac: &Macro, params: &[String], args: &[Vec<PTok>], pos: usize, hide: &Hide) -> R<Vec<PTok>> {
        let param = |t: &Token| ident(t).and_then(|n| params.iter().position(|p| p == n));
        let body = &mac.body;
        let mut out: Vec<PTok> = vec![];
        let mut k = 0;
        let mut paste_next = false;
        while k < body.len() {
            let b = &body[k];
            let next_is_paste = body.get(k + 1).is_some_and(|n| is_punct(n, "##"));
            let mut piece: Vec<PTok> = if is_punct(b, "#") && body.get(k + 1).and_then(param).is_some() {
                k += 1;
                let a = &args[param(&body[k]).expect("a parameter")];
                let text: Vec<String> = a.iter().map(|t| spelling(&t.t.tok)).collect();
                let tok = Tok::Str(text.join(" ").into_bytes());
                vec![PTok { t: Token { tok, pos, bol: false, glued: false }, hide: Hide::default() }]
            } else if is_punct(b, "##") {
                paste_next = true;
                k += 1;
                continue;
            } else if let Some(p) = param(b) {
                if paste_next || next_is_paste {
                    args[p].clone()
                } else {
                    self.expand_list(&args[p])?
                }
            } else {
                vec![PTok { t: b.clone(), hide: Hide::default() }]
            };
            if paste_next {
                paste_next = false;
                // GNU: `, ## __VA_ARGS__` drops the comma when there are no
                // variable arguments, and pastes nothing otherwise
                let gnu_comma = mac.variadic && out.last().is_some_and(|t| is_punct(&t.t, ",")) && ident(b) == Some("__VA_ARGS__");
                if gnu_comma {
                    if piece.is_empty() {
                        out.pop();
                    }
                } else if let (Some(last), false) = (out.pop(), piece.is_empty()) {
                    let first = piece.remove(0);
                    let text = format!("{}{}", spelling(&last.t.tok), spelling(&first.t.tok));
                    let mut toks = tokenize(&text).map_err(|_| self.err(pos, format!("'##' formed '{text}', not a token")))?;
                    toks.pop();
                    if toks.len() != 1 || matches!(toks[0].tok, Tok::Bad(_)) {
                        return Err(self.err(pos, format!("'##' formed '{text}', not a token")));
                    }
                    out.push(PTok { t: toks.remove(0), hide: Hide::default() });
                } else if let Some(last) = out.pop() {
                    out.push(last);
                }
            }
            out.extend(piece);
            k += 1;
        }
        for t in &mut out {
            t.t.pos = pos;
            t.t.bol = false;
            t.hide = hide.clone();
        }
        Ok(out)
    }

    // ----- directives -----

    /// The tokens of the directive line starting at `self.i` (after the `#`);
    /// moves past the line.
    fn line(&mut self) -> Vec<Token> {
        self.i += 1;
        let start = self.i;
        while !self.raw[self.i].bol {
            self.i += 1;
        }
        self.raw[start..self.i].to_vec()
    }

    fn directive(&mut self) -> R<()> {
        let hash = self.raw[self.i].pos;
        let line = self.line();
        let Some(first) = line.first() else {
            return Ok(());
        };
        let name = match &first.tok {
            Tok::Ident(n) => n.clone(),
            Tok::Int(..) if self.active() => return self.marker(&line, hash),
            _ if !self.active() => return Ok(()),
            _ => return Err(self.err(first.pos, "unknown preprocessing directive")),
        };
        let rest = &line[1..];
        match name.as_str() {
            "if" | "ifdef" | "ifndef" => {
                let outer = self.active();
                let holds = outer && self.condition(&name, rest, first.pos)?;
                self.conds.push((Cond { active: holds, taken: holds, seen_else: false, outer }, hash));
            }
            "elif" | "else" => {
                let Some((c, _)) = self.conds.last() else {
                    return Err(self.err(first.pos, format!("#{name} without #if")));
                };
                if c.seen_else {
                    return Err(self.err(first.pos, format!("#{name} after #else")));
                }
                let (outer, taken) = (c.outer, c.taken);
                let holds = outer && !taken && (name == "else" || self.condition("if", rest, first.pos)?);
                let c = &mut self.conds.last_mut().expect("a conditional").0;
                c.active = holds;
                c.taken |= holds;
                c.seen_else = name == "else";
            }
            "endif" => {
                if self.conds.pop().is_none() {
                    return Err(self.err(first.pos, "#endif without #if"));
                }
            }
            _ if !self.active() => {}
            "define" => self.define(rest, first.pos)?,
            "undef" => {
                let Some(n) = rest.first().and_then(ident) else {
                    return Err(self.err(first.pos, "#undef needs a macro name"));
                };
                self.macros.remove(n);
            }
            "include" | "include_next" => self.include(rest, first.pos)?,
            "line" => self.marker(rest, hash)?,
            "error" => {
                let text: Vec<String> = rest.iter().map(|t| spelling(&t.tok)).collect();
                return Err(self.err(hash, format!("#error {}", text.join(" "))));
            }
            "pragma" | "ident" | "sccs" | "warning" | "assert" | "unassert" => {}
            other => return Err(self.err(first.pos, format!("unknown preprocessing directive #{other}"))),
        }
        Ok(())
    }

    /// `# N "file"` or `#line N "file"`: lines from the next one on are
    /// numbered from N (in that file).
    fn marker(&mut self, toks: &[Token], hash: usize) -> R<()> {
        let Some(Tok::Int(n, _)) = toks.first().map(|t| &t.tok) else {
            return Err(self.err(hash, "#line needs a line number"));
        };
        let file: Option<Rc<str>> = match toks.get(1).map(|t| &t.tok) {
            Some(Tok::Str(s)) => Some(String::from_utf8_lossy(s).into()),
            _ => self.markers.last().and_then(|m| m.2.clone()),
        };
        let physical = self.line_starts.partition_point(|s| *s <= hash) + 1;
        self.markers.push((physical, *n as usize, file));
        Ok(())
    }

    fn define(&mut self, toks: &[Token], pos: usize) -> R<()> {
        let Some(name) = toks.first().and_then(ident) else {
            return Err(self.err(pos, "#define needs a macro name"));
        };
        let name: Rc<str> = name.into();
        let function_like = toks.get(1).is_some_and(|t| is_punct(t, "(") && t.glued);
        let (params, variadic, body_at) = if function_like {
            let (params, variadic, end) = self.params(toks, pos)?;
            (Some(params), variadic, end)
        } else {
            (None, false, 1)
        };
        let body: Vec<Token> = toks[body_at..].iter().map(|t| Token { bol: false, ..t.clone() }).collect();
        if let (Some(first), Some(last)) = (body.first(), body.last()) {
            if is_punct(first, "##") || is_punct(last, "##") {
                return Err(self.err(first.pos, "'##' cannot start or end a macro's replacement"));
            }
        }
        self.macros.insert(name, Rc::new(Macro { params, variadic, body }));
        Ok(())
    }

    /// The parameter list of a function-like macro; the index after `)`.
    fn params(&self, toks: &[Token], pos: usize) -> R<(Vec<String>, bool, usize)> {
        let mut params = vec![];
        let mut k = 2;
        if toks.get(k).is_some_and(|t| is_punct(t, ")")) {
            return Ok((params, false, k + 1));
        }
        loop {
            match toks.get(k).map(|t| &t.tok) {
                Some(Tok::Ident(p)) => params.push(p.clone()),
                Some(Tok::Punct("...")) => {
                    params.push("__VA_ARGS__".into());
                    if !toks.get(k + 1).is_some_and(|t| is_punct(t, ")")) {
                        return Err(self.err(pos, "'...' must end a macro's parameters"));
                    }
                    return Ok((params, true, k + 2));
                }
                _ => return Err(self.err(toks.get(k).map_or(pos, |t| t.pos), "expected a macro parameter name")),
            }
            k += 1;
            match toks.get(k).map(|t| &t.tok) {
                Some(Tok::Punct(",")) => k += 1,
                Some(Tok::Punct(")")) => return Ok((params, false, k + 1)),
                _ => return Err(self.err(toks.get(k).map_or(pos, |t| t.pos), "expected ',' or ')' in a macro's parameters")),
            }
        }
    }

    fn include(&mut self, toks: &[Token], pos: usize) -> R<()> {
        let name = match toks {
            [Token { tok: Tok::Str(s), .. }] => String::from_utf8_lossy(s).to_string(),
            [open, .., close] if is_punct(open, "<") && is_punct(close, ">") => self.src.get(open.pos + 1..close.pos).unwrap_or("").trim().to_string(),
            _ => return Err(self.err(pos, "#include needs <header> or \"file\"")),
        };
        let quoted = matches!(toks, [Token { tok: Tok::Str(_), .. }]);
        match headers::text(&name, self.model) {
            Some(_) if !self.included.insert(name.clone()) => {}
            Some(text) => {
                let mut toks = lex_at(&text, pos)?;
                toks.pop();
                self.raw.splice(self.i..self.i, toks);
            }
            None => {
                let what = if quoted { format!("\"{name}\"") } else { format!("<{name}>") };
                self.warnings.push((pos, format!("#include {what} left out (not a header arrax knows)")));
            }
        }
        Ok(())
    }

    /// The truth of `#if e`, `#ifdef X` or `#ifndef X`.
    fn condition(&mut self, kind: &str, toks: &[Token], pos: usize) -> R<bool> {
        if kind != "if" {
            let Some(n) = toks.first().and_then(ident) else {
                return Err(self.err(pos, format!("#{kind} needs a macro name")));
            };
            return Ok(self.macros.contains_key(n) == (kind == "ifdef"));
        }
        if toks.is_empty() {
            return Err(self.err(pos, "#if needs an expression"));
        }
        // `defined X` and `defined (X)` first, then expansion; other names are 0
        let mut replaced = vec![];
        let mut k = 0;
        while k < toks.len() {
            if ident(&toks[k]) == Some("defined") {
                let paren = toks.get(k + 1).is_some_and(|t| is_punct(t, "("));
                let at = k + 1 + paren as usize;
                let Some(n) = toks.get(at).and_then(ident) else {
                    return Err(self.err(toks[k].pos, "'defined' needs a macro name"));
                };
                if paren && !toks.get(at + 1).is_some_and(|t| is_punct(t, ")")) {
                    return Err(self.err(toks[k].pos, "expected ')' after 'defined (name'"));
                }
                let v = self.macros.contains_key(n) as i128;
                replaced.push(PTok { t: Token { tok: Tok::Int(v, super::ast::IntTy::INT), ..toks[k].clone() }, hide: Hide::default() });
                k = at + 1 + paren as usize;
            } else {
                replaced.push(PTok { t: toks[k].clone(), hide: Hide::default() });
                k += 1;
            }
        }
        let mut expanded: Vec<Token> = self.expand_list(&replaced)?.into_iter().map(|t| t.t).collect();
        for t in &mut expanded {
            if matches!(t.tok, Tok::Ident(_)) {
                t.tok = Tok::Int(0, super::ast::IntTy::INT);
            }
        }
        expanded.push(Token { tok: Tok::Eof, pos, bol: true, glued: false });
        super::parse::constant(self.src, expanded).map(|v| v != 0)
    }
}
