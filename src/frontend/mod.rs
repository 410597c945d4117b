//! Front ends: each reads one input language and produces a [`System`]
//! (the one IR). Front ends never talk to a solver.

use crate::system::System;
use std::fmt;
use std::path::Path;
use std::time::Instant;

pub mod c;
pub mod canonical;
pub mod chc;
pub mod cubicle;
pub mod elab;
pub mod mcmt;
pub mod sexp;

/// A problem with the input, located at a line and column (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The line (1-based).
    pub line: usize,
    /// The column (1-based, in characters).
    pub col: usize,
    /// What is wrong.
    pub message: String,
    /// The file the position refers to, when it is not the file given on
    /// the command line (the program named by an SV-COMP task file).
    pub file: Option<String>,
    /// Whether reading stopped because the time limit ran out (not a
    /// problem with the input: the run is UNKNOWN).
    pub timed_out: bool,
}

impl Diagnostic {
    /// A diagnostic at `line:col`.
    pub fn new(line: usize, col: usize, message: impl Into<String>) -> Self {
        Diagnostic { line, col, message: message.into(), file: None, timed_out: false }
    }
    /// Reading stopped at the deadline.
    pub fn timeout() -> Self {
        Diagnostic { timed_out: true, ..Diagnostic::new(1, 1, "the time limit ran out while reading the input") }
    }
    /// A problem with the file as a whole (it cannot be read, its name
    /// names no input language): no position; rendered `file: message`.
    pub fn whole_file(message: impl Into<String>) -> Self {
        Diagnostic::new(0, 0, message)
    }
    /// A diagnostic at a byte offset of `src`.
    pub fn at(src: &str, offset: usize, message: impl Into<String>) -> Self {
        let (line, col) = line_col(src, offset);
        Diagnostic::new(line, col, message)
    }
    /// The same diagnostic, located in another file.
    pub fn in_file(self, file: &Path) -> Self {
        Diagnostic { file: Some(file.display().to_string()), ..self }
    }
    /// The `file:line:col: message` form (`file` unless the diagnostic names
    /// its own; `file: message` for a problem of the whole file).
    pub fn render(&self, file: &str) -> String {
        let file = self.file.as_deref().unwrap_or(file);
        match self.line {
            0 => format!("{file}: {}", self.message),
            _ => format!("{file}:{}:{}: {}", self.line, self.col, self.message),
        }
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
    /// For C programs: where the system's parts come from in the source.
    pub source: Option<c::source_map::SourceMap>,
}

/// The input languages.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Format {
    /// MCMT v2 (`.in`, `.mcmt`).
    Mcmt,
    /// arrax's canonical print (`.arrax`).
    Canonical,
    /// Cubicle (`.cub`).
    Cubicle,
    /// C programs (`.c`, preprocessed `.i`), lowered under ILP32.
    C,
    /// SV-COMP task files (`.yml`) naming a C program.
    SvTask,
    /// Constrained Horn clauses in SMT-LIB (`.smt2`): CHC-COMP's format or z3's rule format.
    Chc,
}

impl Format {
    /// The format a file name's extension names, if it names one.
    pub fn of_path(path: &Path) -> Option<Format> {
        match path.extension().and_then(|e| e.to_str())? {
            "arrax" => Some(Format::Canonical),
            "cub" => Some(Format::Cubicle),
            "c" | "i" => Some(Format::C),
            "yml" | "yaml" => Some(Format::SvTask),
            "mcmt" | "in" => Some(Format::Mcmt),
            "smt2" => Some(Format::Chc),
            _ => None,
        }
    }

    /// The extensions [`Format::of_path`] knows, for messages.
    pub const EXTENSIONS: &'static str = ".mcmt .in (MCMT), .cub (Cubicle), .c .i (C), .yml .yaml (SV-COMP task), .smt2 (Horn clauses), .arrax (canonical)";
}

/// Reads `src` in the given format. Binary input (NUL bytes) is reported at 1:1.
/// A task file's program is looked up relative to the current folder.
pub fn parse_str(src: &str, format: Format) -> Result<Parsed, Diagnostic> {
    parse_str_until(src, format, None)
}

/// [`parse_str`] within a deadline (C programs: reading stops with
/// [`Diagnostic::timeout`] when it passes).
pub fn parse_str_until(src: &str, format: Format, deadline: Option<Instant>) -> Result<Parsed, Diagnostic> {
    if src.contains('\0') {
        return Err(Diagnostic::new(1, 1, "the input looks binary (it contains NUL bytes), not a text model"));
    }
    match format {
        Format::Mcmt => mcmt::parse(src),
        Format::Canonical => canonical::parse(src),
        Format::Cubicle => cubicle::parse(src),
        Format::Chc => chc::parse(src),
        Format::C => c::parse_program_until(src, c::DataModel::default(), deadline),
        Format::SvTask => {
            let task = c::svcomp::parse(src)?;
            let csrc = read_text(&task.input).map_err(|d| d.in_file(&task.input))?;
            let mut p = c::parse_program_until(&csrc, task.data_model, deadline).map_err(|d| d.in_file(&task.input))?;
            if let Some(s) = &mut p.source {
                s.program = Some(task.input.clone());
            }
            Ok(p)
        }
    }
}

/// The text of a file; a file that cannot be read is a whole-file problem,
/// non-UTF-8 contents are reported at 1:1.
pub fn read_text(path: &Path) -> Result<String, Diagnostic> {
    let bytes = std::fs::read(path).map_err(|e| Diagnostic::whole_file(format!("cannot read the file: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        Diagnostic::new(1, 1, format!("the file is not UTF-8 text (invalid byte at offset {at}); is it binary?"))
    })
}

/// Reads a file like [`read_file`]; for Horn clauses (`.smt2`) also the
/// clauses and how the system stands for them.
pub fn parse_file_horn(path: &Path, reading: Reading) -> Result<(Parsed, Option<crate::system::horn::Horn>), Diagnostic> {
    if Format::of_path(path) != Some(Format::Chc) {
        return read_file(path, reading).map(|p| (p, None));
    }
    let src = read_text(path)?;
    if src.contains('\0') {
        return parse_str(&src, Format::Chc).map(|p| (p, None));
    }
    chc::read(&src).map(|(p, h)| (p, Some(h)))
}

/// Reads a file in the format its name suggests ([`Format::of_path`]); an
/// unknown extension is a whole-file problem.
pub fn parse_file(path: &Path) -> Result<Parsed, Diagnostic> {
    parse_file_until(path, None)
}

/// [`parse_file`] within a deadline (see [`parse_str_until`]).
pub fn parse_file_until(path: &Path, deadline: Option<Instant>) -> Result<Parsed, Diagnostic> {
    read_file(path, Reading { deadline, data_model: None })
}

/// How a file is read: within a deadline, and under the C data model the
/// command line names (over a task file's own, over ILP32).
#[derive(Clone, Copy, Debug, Default)]
pub struct Reading {
    /// Reading stops with [`Diagnostic::timeout`] when it passes.
    pub deadline: Option<Instant>,
    /// The data model of C programs, when the command line names one.
    pub data_model: Option<c::DataModel>,
}

/// Reads a file in the format its name suggests, as `reading` says.
pub fn read_file(path: &Path, reading: Reading) -> Result<Parsed, Diagnostic> {
    let Some(format) = Format::of_path(path) else {
        return Err(Diagnostic::whole_file(format!("unknown input language: the file name should end in {}", Format::EXTENSIONS)));
    };
    match format {
        Format::SvTask => c::svcomp::load(path, reading.deadline, reading.data_model),
        Format::C => {
            let mut p = c::parse_program_until(&read_text(path)?, reading.data_model.unwrap_or_default(), reading.deadline)?;
            if let Some(s) = &mut p.source {
                s.program = Some(path.to_path_buf());
            }
            Ok(p)
        }
        _ => parse_str_until(&read_text(path)?, format, reading.deadline),
    }
}

/// A YAML reading error as a located diagnostic; `what` names the file's
/// kind in the message (`task file`, `witness`).
pub fn yaml_diagnostic(e: serde_yaml_ng::Error, what: &str) -> Diagnostic {
    let (line, col) = e.location().map(|l| (l.line(), l.column())).unwrap_or((1, 1));
    let msg = e.to_string();
    let msg = msg.split(" at line ").next().unwrap_or(&msg);
    Diagnostic::new(line.max(1), col.max(1), format!("{what}: {msg}"))
}
