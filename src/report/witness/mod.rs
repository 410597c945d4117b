//! SV-COMP witnesses in the YAML format 2.0 for C programs: violation
//! witnesses (the `__VERIFIER_nondet_*` calls of the replayed error run as
//! `function_return` waypoints with their values, then the failing call as
//! the target) and correctness witnesses (the certified invariant at each
//! loop head, as far as C can say it: [`invariant`]). Everything comes
//! from the checked answer and the C front end's source map
//! ([`crate::frontend::c::source_map`]); nothing here reads C.
//! [`validate`] reads a violation witness back and replays it.

pub mod format;
pub mod invariant;
pub mod path;
pub mod validate;

use crate::answer::{Certification, CheckResult, Verdict};
use crate::frontend::c::source_map::{Site, SourceMap};
use crate::frontend::c::DataModel;
use crate::system::System;
use format::{Constraint, Entry, Invariant, InvariantItem, Location, Metadata, Producer, SegmentItem, TaskInfo, Waypoint, WaypointItem};
use std::collections::BTreeMap;

/// The property of every witness arrax writes (SV-COMP's unreach-call).
pub const SPECIFICATION: &str = "G ! call(reach_error())";

/// The program a witness is about: its file name as given and its text.
#[derive(Clone, Debug)]
pub struct Program {
    /// The file name, as `input_files` and the locations name it.
    pub file: String,
    /// Its contents (hashed).
    pub bytes: Vec<u8>,
}

impl Program {
    /// The program of a source map, read from its file.
    pub fn of(map: &SourceMap) -> Result<Program, String> {
        let path = map.program.as_ref().ok_or("the program was not read from a file")?;
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Ok(Program { file: path.display().to_string(), bytes })
    }
}

/// The SHA-256 digest of `bytes` in lower-case hexadecimal.
fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// A random (version 4) UUID.
fn uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The current time in ISO 8601 (UTC, seconds).
fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// The metadata of an entry about `program`.
fn metadata(program: &Program, model: DataModel) -> Metadata {
    Metadata {
        format_version: "2.0".into(),
        uuid: uuid(),
        creation_time: now(),
        producer: Producer { name: "arrax".into(), version: env!("CARGO_PKG_VERSION").into() },
        task: TaskInfo {
            input_files: vec![program.file.clone()],
            input_file_hashes: BTreeMap::from([(program.file.clone(), sha256(&program.bytes))]),
            specification: SPECIFICATION.into(),
            data_model: match model {
                DataModel::Ilp32 => "ILP32",
                DataModel::Lp64 => "LP64",
            }
            .into(),
            language: "C".into(),
        },
    }
}

fn location(program: &Program, site: &Site) -> Location {
    Location { file_name: program.file.clone(), line: site.line, column: Some(site.column), function: Some(site.function.clone()) }
}

/// The violation witness of a path to the error.
pub fn violation_yaml(program: &Program, model: DataModel, p: &path::Path) -> Result<String, String> {
    let follow = |kind: &str, site: &Site, constraint: Option<Constraint>| SegmentItem {
        segment: vec![WaypointItem { waypoint: Waypoint { kind: kind.into(), action: "follow".into(), location: location(program, site), constraint } }],
    };
    let mut content: Vec<SegmentItem> = p
        .calls
        .iter()
        .map(|c| follow("function_return", &c.site, Some(Constraint { value: format!("\\result == {}", c.value), format: "c_expression".into() })))
        .collect();
    content.push(follow("target", &p.target, None));
    let entry = Entry { entry_type: "violation_sequence".into(), metadata: metadata(program, model), content };
    serde_yaml_ng::to_string(&vec![entry]).map_err(|e| e.to_string())
}

/// The correctness witness of a certified invariant.
pub fn correctness_yaml(program: &Program, model: DataModel, invariants: &[(Site, String)]) -> Result<String, String> {
    let content: Vec<InvariantItem> = invariants
        .iter()
        .map(|(site, value)| InvariantItem {
            invariant: Invariant { kind: "loop_invariant".into(), location: location(program, site), value: value.clone(), format: "c_expression".into() },
        })
        .collect();
    let entry = Entry { entry_type: "invariant_set".into(), metadata: metadata(program, model), content };
    serde_yaml_ng::to_string(&vec![entry]).map_err(|e| e.to_string())
}

/// The witness of a checked answer: a violation witness for a replayed
/// UNSAFE, a correctness witness for a certified SAFE; an error (why there
/// is none) otherwise: UNKNOWN, an answer that was not checked, a run the
/// source map cannot follow.
pub fn of_result(sys: &System, map: &SourceMap, program: &Program, r: &CheckResult) -> Result<String, String> {
    if !matches!(r.certification, Certification::Certified(_)) {
        return Err(format!("the answer is {} without having been checked", r.verdict.word()));
    }
    match &r.verdict {
        Verdict::Unknown(_) => Err("the answer is UNKNOWN".into()),
        Verdict::Safe => {
            let proof = r.proof.as_ref().ok_or("no invariant")?;
            correctness_yaml(program, map.data_model, &invariant::loop_invariants(sys, map, &proof.invariant))
        }
        Verdict::Unsafe => {
            let ex = match (&r.execution, &r.trace) {
                (Some(ex), _) => ex.clone(),
                (None, Some(t)) => path::execution_of_trace(sys, t)?,
                (None, None) => return Err("no counterexample".into()),
            };
            let p = path::of_execution(sys, map, &ex)?;
            violation_yaml(program, map.data_model, &p)
        }
    }
}
