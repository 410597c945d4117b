//! The C front end: SV-COMP-style array programs (see README, "C programs")
//! parsed ([`parse`]) into a syntax tree ([`ast`]), turned into a
//! control-flow automaton with functions inlined ([`cfa`]), and lowered by
//! large-block encoding into a [`System`](crate::system::System)
//! ([`lower`]). SV-COMP task files are read by [`svcomp`].

pub mod ast;
pub mod cfa;
pub mod lex;
pub mod lower;
pub mod parse;
pub mod svcomp;

use super::{Diagnostic, Parsed};

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
    let tu = parse::parse(src)?;
    let cfa = cfa::build(src, &tu, model)?;
    let system = lower::lower(&cfa);
    Ok(Parsed { system, warnings: vec![] })
}
