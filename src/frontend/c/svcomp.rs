//! SV-COMP task files (`.yml`): the program they name, the property
//! (only `unreach-call` is supported) and the data model (ILP32 when the
//! file does not say).
//!
//! Task files are read as YAML (block or flow style) with `serde_yaml_ng`.

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

/// A task file as written (format 1.0 or 2.0); unknown keys are ignored.
#[derive(serde::Deserialize)]
struct TaskFile {
    input_files: OneOrMany,
    #[serde(default)]
    properties: Vec<Property>,
    #[serde(default)]
    options: Options,
}

/// `input_files`: one name or a list of names (block or flow style).
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(serde::Deserialize)]
struct Property {
    property_file: String,
    expected_verdict: Option<bool>,
}

#[derive(serde::Deserialize, Default)]
struct Options {
    language: Option<String>,
    data_model: Option<String>,
}

/// The position of the first occurrence of `needle` after the key `key` in
/// `src` (the reader's errors on values point there), else 1:1.
fn locate(src: &str, key: &str, needle: &str) -> (usize, usize) {
    let from = src.find(key).unwrap_or(0);
    match src[from..].find(needle) {
        Some(i) => crate::frontend::line_col(src, from + i),
        None => (1, 1),
    }
}

fn yaml_error(e: serde_yaml_ng::Error) -> Diagnostic {
    crate::frontend::yaml_diagnostic(e, "task file")
}

/// Reads a task file's text (YAML, any style).
pub fn parse(src: &str) -> Result<Task, Diagnostic> {
    let file: TaskFile = serde_yaml_ng::from_str(src).map_err(yaml_error)?;
    let at = |key: &str, needle: &str, msg: String| {
        let (line, col) = locate(src, key, needle);
        Diagnostic::new(line, col, msg)
    };
    let input = match file.input_files {
        OneOrMany::One(f) => f,
        OneOrMany::Many(fs) if fs.len() == 1 => fs.into_iter().next().unwrap_or_default(),
        OneOrMany::Many(fs) if fs.is_empty() => return Err(at("input_files", "input_files", "the task file names no input file".into())),
        OneOrMany::Many(_) => return Err(at("input_files", "input_files", "unsupported: a task with several input files".into())),
    };
    if let Some(lang) = file.options.language.as_deref().filter(|l| *l != "C") {
        return Err(at("language", lang, format!("unsupported: language '{lang}' (only C)")));
    }
    let data_model = match file.options.data_model.as_deref() {
        None | Some("ILP32") => DataModel::Ilp32,
        Some("LP64") => DataModel::Lp64,
        Some(other) => return Err(at("data_model", other, format!("unsupported: data model '{other}' (ILP32 or LP64)"))),
    };
    let expected = match (file.properties.iter().find(|p| p.property_file.ends_with("unreach-call.prp")), file.properties.first()) {
        (Some(p), _) => p.expected_verdict,
        (None, Some(p)) => {
            let msg = format!("unsupported: property '{}' (only unreach-call is supported)", p.property_file);
            return Err(at("properties", &p.property_file, msg));
        }
        (None, None) => return Err(Diagnostic::new(1, 1, "the task file names no property (properties)")),
    };
    Ok(Task { input: PathBuf::from(input), data_model, expected })
}

/// Reads a task file and the program it names, and lowers the program
/// (under `data_model` when given, else the task's). Errors in the program
/// are reported against the program's file.
pub fn load(path: &Path, deadline: Option<std::time::Instant>, data_model: Option<DataModel>) -> Result<crate::frontend::Parsed, Diagnostic> {
    let src = crate::frontend::read_text(path)?;
    let mut task = parse(&src)?;
    task.data_model = data_model.unwrap_or(task.data_model);
    let program = path.parent().unwrap_or(Path::new(".")).join(&task.input);
    let csrc = crate::frontend::read_text(&program).map_err(|d| d.in_file(&program))?;
    let mut p = super::parse_program_until(&csrc, task.data_model, deadline).map_err(|d| d.in_file(&program))?;
    if let Some(s) = &mut p.source {
        s.program = Some(program);
    }
    Ok(p)
}
