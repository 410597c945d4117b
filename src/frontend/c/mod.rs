//! The C front end: SV-COMP-style array programs (see README, "C programs")
//! preprocessed ([`preprocess`], with the standard headers of [`headers`]),
//! parsed ([`parse`]) into a syntax tree ([`ast`]), turned into a
//! control-flow automaton with functions inlined ([`cfa`]), and lowered by
//! large-block encoding into a [`System`](crate::system::System)
//! ([`lower`]). SV-COMP task files are read by [`svcomp`].

pub mod ast;
pub mod cfa;
pub mod headers;
pub mod lex;
pub mod lower;
pub mod parse;
pub mod preprocess;
pub mod source_map;
pub mod svcomp;

use super::{Diagnostic, Parsed};
use std::time::Instant;

/// The C data model: the widths of `long` (and of `size_t`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum DataModel {
    /// 32-bit `int`, `long` and pointers (SV-COMP's default).
    #[default]
    Ilp32,
    /// 32-bit `int`, 64-bit `long` and pointers.
    Lp64,
}

/// Reads a C program and lowers it under the given data model.
pub fn parse_program(src: &str, model: DataModel) -> Result<Parsed, Diagnostic> {
    parse_program_until(src, model, None)
}

/// [`parse_program`] within a deadline: reading stops with
/// [`Diagnostic::timeout`] when it passes. A diagnostic's position is the
/// program's own; where line markers (`# 12 "prog.c"`) give the line
/// another number, the message says which.
pub fn parse_program_until(src: &str, model: DataModel, deadline: Option<Instant>) -> Result<Parsed, Diagnostic> {
    let mut pp = preprocess::preprocess(src, model, deadline)?;
    let toks = std::mem::take(&mut pp.tokens);
    let mut parsed = lower_tokens(src, toks, model, deadline).map_err(|d| with_marker(d, &pp))?;
    for (pos, w) in &pp.warnings {
        parsed.warnings.push(Diagnostic::at(src, *pos, w.clone()));
    }
    Ok(parsed)
}

/// The message of a diagnostic with the position the line markers give it.
fn with_marker(d: Diagnostic, pp: &preprocess::Output) -> Diagnostic {
    match pp.mapped(d.line) {
        Some((file, line)) if !d.timed_out => {
            let at = file.map_or(format!("line {line}"), |f| format!("{f}:{line}"));
            Diagnostic { message: format!("{} (at {at} by the line markers)", d.message), ..d }
        }
        _ => d,
    }
}

/// Parses, builds the automaton and lowers the preprocessed tokens.
fn lower_tokens(src: &str, toks: Vec<lex::Token>, model: DataModel, deadline: Option<Instant>) -> Result<Parsed, Diagnostic> {
    let tu = parse::parse(src, toks, deadline)?;
    let cfa = cfa::build(src, &tu, model, deadline)?;
    let (mut system, mut source) = lower::lower(&cfa, deadline)?;
    source.data_model = model;
    for (pos, name) in annotations(src, "@abstract") {
        let var = system.vars.iter().find(|v| !v.is_array && v.term.var_name() == Some(name.as_str()) && *v.term.sort() == crate::logic::Sort::Int);
        match var {
            Some(v) => {
                if !system.abstract_terms.contains(&v.term) {
                    system.abstract_terms.push(v.term.clone());
                }
            }
            None => return Err(Diagnostic::at(src, pos, format!("@abstract: no integer scalar named `{name}` in the lowered program"))),
        }
    }
    Ok(Parsed { system, warnings: vec![], source: Some(source) })
}

/// The names listed after `key` in comments (`/* @abstract i, n */`,
/// `// @abstract i`), each with its byte offset. Comments are found as the
/// lexer finds them, outside string and character literals.
fn annotations(src: &str, key: &str) -> Vec<(usize, String)> {
    let b = src.as_bytes();
    let mut out = vec![];
    let mut k = 0;
    while k < b.len() {
        match b[k] {
            b'"' | b'\'' => {
                let q = b[k];
                k += 1;
                while k < b.len() && b[k] != q {
                    k += if b[k] == b'\\' { 2 } else { 1 };
                }
                k += 1;
            }
            b'/' if b.get(k + 1) == Some(&b'/') || b.get(k + 1) == Some(&b'*') => {
                let end =
                    if b[k + 1] == b'/' { src[k..].find('\n').map_or(b.len(), |e| k + e) } else { src[k + 2..].find("*/").map_or(b.len(), |e| k + 2 + e) };
                let text = &src[k..end];
                if let Some(at) = text.find(key) {
                    let mut p = k + at + key.len();
                    for part in src[p..end].split([',', ' ', '\t', '\n', '\r']) {
                        let name = part.trim_end_matches("*/").trim();
                        if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                            out.push((p, name.to_string()));
                        }
                        p += part.len() + 1;
                    }
                }
                k = end.max(k + 2);
            }
            _ => k += 1,
        }
    }
    out
}
