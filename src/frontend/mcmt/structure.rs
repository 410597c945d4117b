//! The structure of an MCMT file: keyword items grouped into declarations,
//! cubes and transitions with their cases, before any typing.

use crate::frontend::elab::excerpt;
use crate::frontend::sexp::{Reader, Sexp, SexpKind};
use crate::frontend::Diagnostic;

use super::*;

/// A keyword with the nodes that follow it up to the next keyword.
pub(super) struct Item {
    pub(super) kw: String,
    pub(super) pos: usize,
    pub(super) args: Vec<Sexp>,
    /// The `:comment` lines immediately before the keyword.
    pub(super) comments: Vec<String>,
}

/// Pass 1: the keyword stream.
pub(super) fn items(src: &str) -> Result<Vec<Item>, Diagnostic> {
    let mut r = Reader::new(src);
    let mut out: Vec<Item> = vec![];
    let mut comments = vec![];
    while let Some(node) = r.next_node()? {
        match node.kind {
            SexpKind::Keyword(k) if k == "comment" => comments.push(r.rest_of_line().trim().to_string()),
            SexpKind::Keyword(kw) => out.push(Item { kw, pos: node.start, args: vec![], comments: std::mem::take(&mut comments) }),
            _ => match out.last_mut() {
                Some(item) => item.args.push(node),
                None => {
                    return Err(Diagnostic::at(src, node.start, format!("expected a keyword such as :local or :transition, found '{}'", excerpt(src, &node))))
                }
            },
        }
    }
    Ok(out)
}

/// A section quantifying index variables over conjunctions (`:initial`,
/// `:unsafe`, `:u_cnj`, `:system_axiom`, suggested invariants).
pub(super) struct RawCube {
    /// The `:var` symbols.
    pub(super) vars: Vec<Sexp>,
    /// One entry per `:cnj` line.
    pub(super) cnjs: Vec<Vec<Sexp>>,
    /// `:u_cnj`: the variables `z1`, `z2`, … are implicit.
    pub(super) implicit: bool,
}

pub(super) struct RawCase {
    pub(super) pos: usize,
    pub(super) cond: Vec<Sexp>,
    pub(super) vals: Vec<Sexp>,
}

pub(super) struct RawTransition {
    pub(super) pos: usize,
    /// The comment lines before `:transition`.
    pub(super) comments: Vec<String>,
    pub(super) vars: Vec<Sexp>,
    pub(super) guard: Vec<Sexp>,
    pub(super) uguards: Vec<Vec<Sexp>>,
    pub(super) numcases: Option<(i64, usize)>,
    pub(super) cases: Vec<RawCase>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum DeclKind {
    Local,
    Global,
    Eevar,
}

pub(super) struct Decl {
    pub(super) kind: DeclKind,
    pub(super) name: Sexp,
    pub(super) ty: Sexp,
}

#[derive(Default)]
pub(super) struct Raw {
    pub(super) smt: Vec<Sexp>,
    pub(super) index: Option<Sexp>,
    pub(super) decls: Vec<Decl>,
    pub(super) axioms: Vec<RawCube>,
    pub(super) initial: Vec<RawCube>,
    pub(super) unsafe_: Vec<RawCube>,
    pub(super) hints: Option<RawCube>,
    pub(super) transitions: Vec<RawTransition>,
    pub(super) abstract_: Vec<Sexp>,
    pub(super) options: Vec<(String, String)>,
}

pub(super) fn err(src: &str, pos: usize, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::at(src, pos, msg)
}

pub(super) fn no_args(src: &str, item: &Item) -> Result<(), Diagnostic> {
    match item.args.first() {
        None => Ok(()),
        Some(a) => Err(err(src, a.start, format!("unexpected '{}' after :{}", excerpt(src, a), item.kw))),
    }
}

pub(super) fn one_arg<'i>(src: &str, item: &'i Item) -> Result<&'i Sexp, Diagnostic> {
    match item.args.as_slice() {
        [a] => Ok(a),
        [] => Err(err(src, item.pos, format!(":{} expects an argument", item.kw))),
        [_, extra, ..] => Err(err(src, extra.start, format!("unexpected '{}' after :{}", excerpt(src, extra), item.kw))),
    }
}

pub(super) fn symbol_arg<'i>(src: &str, item: &'i Item) -> Result<&'i Sexp, Diagnostic> {
    let a = one_arg(src, item)?;
    match a.kind {
        SexpKind::Symbol(_) => Ok(a),
        _ => Err(err(src, a.start, format!(":{} expects a name, found '{}'", item.kw, excerpt(src, a)))),
    }
}

pub(super) type Items = std::iter::Peekable<std::vec::IntoIter<Item>>;

pub(super) fn next_if_kw(it: &mut Items, kws: &[&str]) -> Option<Item> {
    it.next_if(|i| kws.contains(&i.kw.as_str()))
}

/// Pass 2: sections.
pub(super) fn structure(src: &str, items: Vec<Item>) -> Result<Raw, Diagnostic> {
    let mut raw = Raw::default();
    let mut it = items.into_iter().peekable();
    while let Some(item) = it.next() {
        match item.kw.as_str() {
            "smt" => {
                let a = one_arg(src, &item)?;
                raw.smt.push(a.clone());
            }
            "index" => {
                if raw.index.is_some() {
                    return Err(err(src, item.pos, "repeated :index declaration"));
                }
                raw.index = Some(symbol_arg(src, &item)?.clone());
            }
            "local" | "global" | "eevar" => {
                let kind = match item.kw.as_str() {
                    "local" => DeclKind::Local,
                    "global" => DeclKind::Global,
                    _ => DeclKind::Eevar,
                };
                match item.args.as_slice() {
                    [name, ty] if name.symbol().is_some() && ty.symbol().is_some() => raw.decls.push(Decl { kind, name: name.clone(), ty: ty.clone() }),
                    _ => return Err(err(src, item.pos, format!("expected ':{} NAME TYPE'", item.kw))),
                }
            }
            "system_axiom" | "initial" | "unsafe" => {
                no_args(src, &item)?;
                let cube = cube(src, &mut it)?;
                match item.kw.as_str() {
                    "system_axiom" => raw.axioms.push(cube),
                    "initial" => raw.initial.push(cube),
                    _ => raw.unsafe_.push(cube),
                }
            }
            "u_cnj" => raw.unsafe_.push(RawCube { vars: vec![], cnjs: vec![item.args], implicit: true }),
            "suggested_negated_invariants" => {
                no_args(src, &item)?;
                if raw.hints.is_some() {
                    return Err(err(src, item.pos, "repeated :suggested_negated_invariants section"));
                }
                let cube = cube(src, &mut it)?;
                match next_if_kw(&mut it, &["end_of_suggested_negated_invariants"]) {
                    Some(end) => no_args(src, &end)?,
                    None => return Err(err(src, item.pos, "this section is not closed by :end_of_suggested_negated_invariants")),
                }
                raw.hints = Some(cube);
            }
            "transition" => {
                no_args(src, &item)?;
                let t = transition(src, &mut it, item)?;
                raw.transitions.push(t);
            }
            "abstract" => raw.abstract_.extend(item.args),
            k if OPTIONS.contains(&k) || k.starts_with("inv_search_") => {
                let value: Vec<&str> = item.args.iter().map(|a| a.text(src)).collect();
                raw.options.push((item.kw.clone(), value.join(" ")));
            }
            k if SUB_KEYWORDS.contains(&k) => {
                return Err(err(src, item.pos, format!("':{k}' is not allowed here")));
            }
            k => return Err(err(src, item.pos, format!("unknown keyword ':{k}'"))),
        }
    }
    Ok(raw)
}

/// The `:var` and `:cnj` lines of a section.
pub(super) fn cube(src: &str, it: &mut Items) -> Result<RawCube, Diagnostic> {
    let mut c = RawCube { vars: vec![], cnjs: vec![], implicit: false };
    while let Some(item) = next_if_kw(it, &["var", "cnj"]) {
        if item.kw == "var" {
            c.vars.push(symbol_arg(src, &item)?.clone());
        } else {
            c.cnjs.push(item.args);
        }
    }
    Ok(c)
}

/// The parts of a `:transition`.
pub(super) fn transition(src: &str, it: &mut Items, header: Item) -> Result<RawTransition, Diagnostic> {
    let mut t = RawTransition { pos: header.pos, comments: header.comments, vars: vec![], guard: vec![], uguards: vec![], numcases: None, cases: vec![] };
    while let Some(item) = next_if_kw(it, &["var", "guard", "uguard", "numcases", "case", "val"]) {
        match item.kw.as_str() {
            "var" => t.vars.push(symbol_arg(src, &item)?.clone()),
            "guard" => t.guard.extend(item.args),
            "uguard" => t.uguards.push(item.args),
            "numcases" => {
                if t.numcases.is_some() {
                    return Err(err(src, item.pos, "repeated :numcases"));
                }
                let a = one_arg(src, &item)?;
                match a.kind {
                    SexpKind::Int(n) if n > 0 => t.numcases = Some((n, a.start)),
                    _ => return Err(err(src, a.start, format!(":numcases expects a positive integer, found '{}'", excerpt(src, a)))),
                }
            }
            "case" => t.cases.push(RawCase { pos: item.pos, cond: item.args, vals: vec![] }),
            _ => {
                let v = one_arg(src, &item)?.clone();
                match t.cases.last_mut() {
                    Some(c) => c.vals.push(v),
                    None => return Err(err(src, item.pos, ":val before any :case")),
                }
            }
        }
    }
    Ok(t)
}

/// A transition name from a comment line before it: its leading words
/// (up to three, up to the first punctuation), joined by `_`. The first
/// comment line of the block before `:transition` that gives one is used.
pub(super) fn name_from_comment(comment: &str) -> Option<String> {
    let mut words = vec![];
    for w in comment.split_whitespace() {
        let stripped = w.trim_end_matches([':', ',', ';', '.']);
        let ok = stripped.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            && stripped.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !ok {
            break;
        }
        words.push(stripped);
        if stripped.len() != w.len() || words.len() == 3 {
            break;
        }
    }
    (!words.is_empty()).then(|| words.join("_"))
}
