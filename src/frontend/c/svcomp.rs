//! SV-COMP task files (`.yml`): the program they name, the property
//! (only `unreach-call` is supported) and the data model (ILP32 when the
//! file does not say).
//!
//! The reader understands the small YAML subset task files use:
//! `key: value` pairs, nested blocks by indentation, `- ` list items,
//! quoted or bare scalars and `#` comments.

use super::DataModel;
use crate::frontend::Diagnostic;
use std::path::{Path, PathBuf};

/// What a task file asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    /// The program, relative to the task file's folder.
    pub input: PathBuf,
    /// The data model.
    pub data_model: DataModel,
    /// The expected verdict of `unreach-call`, when given.
    pub expected: Option<bool>,
}

/// One `key: value` line (or list item) with its position.
struct Line<'a> {
    indent: usize,
    item: bool,
    key: Option<&'a str>,
    value: &'a str,
    line: usize,
    col: usize,
}

fn unquote(s: &str) -> &str {
    let s = s.trim();
    for q in ['\'', '"'] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    s
}

fn lines(src: &str) -> Vec<Line<'_>> {
    let mut out = vec![];
    for (k, raw) in src.lines().enumerate() {
        let text = match raw.find(" #") {
            Some(i) => &raw[..i],
            None if raw.trim_start().starts_with('#') => "",
            None => raw,
        };
        if text.trim().is_empty() {
            continue;
        }
        let mut indent = text.len() - text.trim_start().len();
        let mut rest = text.trim_start();
        let item = rest.starts_with("- ") || rest == "-";
        if item {
            rest = rest[1..].trim_start();
            indent = text.len() - rest.len();
        }
        let (key, value) = match rest.find(": ").or_else(|| rest.strip_suffix(':').map(|r| r.len())) {
            Some(i) if !rest.starts_with(['\'', '"']) => (Some(rest[..i].trim()), rest[i + 1..].trim()),
            _ => (None, rest.trim()),
        };
        out.push(Line { indent, item, key, value, line: k + 1, col: text.len() - rest.len() + 1 });
    }
    out
}

/// Reads a task file's text.
pub fn parse(src: &str) -> Result<Task, Diagnostic> {
    let ls = lines(src);
    let mut input = None;
    let mut model = None;
    let mut props: Vec<(&Line, Option<bool>)> = vec![];
    let mut section = "";
    for (k, l) in ls.iter().enumerate() {
        if l.indent == 0 && !l.item {
            section = l.key.unwrap_or("");
            match l.key {
                Some("input_files") if !l.value.is_empty() => input = Some(unquote(l.value).to_string()),
                Some("input_files") => {
                    let first = ls.get(k + 1).filter(|n| n.item && n.key.is_none());
                    input = first.map(|n| unquote(n.value).to_string());
                    if ls[k + 1..].iter().take_while(|n| n.indent > 0 || n.item).filter(|n| n.item).count() > 1 {
                        return Err(Diagnostic::new(l.line, l.col, "unsupported: a task with several input files"));
                    }
                }
                _ => {}
            }
            continue;
        }
        match (section, l.key) {
            ("properties", Some("property_file")) => props.push((l, None)),
            ("properties", Some("expected_verdict")) => {
                if let Some(last) = props.last_mut() {
                    last.1 = Some(unquote(l.value) == "true");
                }
            }
            ("options", Some("data_model")) => {
                model = Some(match unquote(l.value) {
                    "ILP32" => DataModel::Ilp32,
                    "LP64" => DataModel::Lp64,
                    other => return Err(Diagnostic::new(l.line, l.col, format!("unsupported: data model '{other}' (ILP32 or LP64)"))),
                })
            }
            ("options", Some("language")) if unquote(l.value) != "C" => {
                return Err(Diagnostic::new(l.line, l.col, format!("unsupported: language '{}' (only C)", unquote(l.value))));
            }
            _ => {}
        }
    }
    let Some(input) = input else {
        return Err(Diagnostic::new(1, 1, "the task file names no input file (input_files)"));
    };
    let unreach = props.iter().find(|(l, _)| unquote(l.value).ends_with("unreach-call.prp"));
    let expected = match (unreach, props.first()) {
        (Some((_, v)), _) => *v,
        (None, Some((l, _))) => {
            return Err(Diagnostic::new(
                l.line,
                l.col,
                format!("unsupported: property '{}' (only unreach-call is supported)", unquote(l.value)),
            ))
        }
        (None, None) => return Err(Diagnostic::new(1, 1, "the task file names no property (properties)")),
    };
    Ok(Task { input: PathBuf::from(input), data_model: model.unwrap_or_default(), expected })
}

/// Reads a task file and the program it names, and lowers the program.
/// Errors in the program are reported against the program's file.
pub fn load(path: &Path, deadline: Option<std::time::Instant>) -> Result<crate::frontend::Parsed, Diagnostic> {
    let src = crate::frontend::read_text(path)?;
    let task = parse(&src)?;
    let program = path.parent().unwrap_or(Path::new(".")).join(&task.input);
    let csrc = crate::frontend::read_text(&program).map_err(|d| d.in_file(&program))?;
    super::parse_program_until(&csrc, task.data_model, deadline).map_err(|d| d.in_file(&program))
}
