//! Front ends: each reads one input language and produces a [`System`]
//! (the one IR). Front ends never talk to a solver.

use crate::system::System;
use std::fmt;
use std::path::Path;

/// A problem with the input, located at a line and column (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The line (1-based).
    pub line: usize,
    /// The column (1-based, in characters).
    pub col: usize,
    /// What is wrong.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic at `line:col`.
    pub fn new(line: usize, col: usize, message: impl Into<String>) -> Self {
        Diagnostic { line, col, message: message.into() }
    }
    /// A diagnostic at a byte offset of `src`.
    pub fn at(src: &str, offset: usize, message: impl Into<String>) -> Self {
        let (line, col) = line_col(src, offset);
        Diagnostic::new(line, col, message)
    }
    /// The `file:line:col: message` form.
    pub fn render(&self, file: &str) -> String {
        format!("{}:{}:{}: {}", file, self.line, self.col, self.message)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

/// The 1-based line and column of a byte offset in `src`.
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(src.len());
    let before = &src[..src.floor_char_boundary(offset)];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1;
    (line, col)
}

/// The result of a front end: the system plus warnings (hints dropped, options ignored).
pub struct Parsed {
    /// The system.
    pub system: System,
    /// Non-fatal remarks, located.
    pub warnings: Vec<Diagnostic>,
}

/// The input languages.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Format {
    /// MCMT v2 (`.in`, `.mcmt`).
    Mcmt,
    /// arrax's canonical print (`.arrax`).
    Canonical,
}

impl Format {
    /// The format a file name suggests (MCMT by default).
    pub fn of_path(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some("arrax") => Format::Canonical,
            _ => Format::Mcmt,
        }
    }
}
