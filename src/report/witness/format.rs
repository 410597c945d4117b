//! SV-COMP's YAML witness format 2.0 as Rust types (serde): entries with
//! their metadata; violation witnesses (`violation_sequence`: segments of
//! waypoints) and correctness witnesses (`invariant_set`: invariants).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One entry of a witness file (a witness file is a list of entries).
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Entry<C> {
    /// `violation_sequence` or `invariant_set`.
    pub entry_type: String,
    /// Where the entry comes from.
    pub metadata: Metadata,
    /// The segments or the invariants.
    pub content: Vec<C>,
}

/// The provenance of an entry.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Metadata {
    /// `"2.0"`.
    pub format_version: String,
    /// A random (version 4) UUID.
    pub uuid: String,
    /// When the entry was made (ISO 8601, UTC).
    pub creation_time: String,
    /// The tool.
    pub producer: Producer,
    /// The verification task.
    pub task: TaskInfo,
}

/// The tool that wrote the entry.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Producer {
    /// `arrax`.
    pub name: String,
    /// Its version.
    pub version: String,
}

/// The verification task of an entry.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct TaskInfo {
    /// The program files.
    pub input_files: Vec<String>,
    /// Their SHA-256 digests.
    pub input_file_hashes: BTreeMap<String, String>,
    /// The property (`G ! call(reach_error())`).
    pub specification: String,
    /// `ILP32` or `LP64`.
    pub data_model: String,
    /// `C`.
    pub language: String,
}

/// A place in the program.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file (as in `input_files`).
    pub file_name: String,
    /// The line (1-based).
    pub line: usize,
    /// The column (1-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// The enclosing function.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
}

/// One segment of a violation sequence.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct SegmentItem {
    /// Its waypoints: avoid waypoints, then one follow waypoint.
    pub segment: Vec<WaypointItem>,
}

/// The wrapper of a waypoint in a segment.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct WaypointItem {
    /// The waypoint.
    pub waypoint: Waypoint,
}

/// A waypoint.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Waypoint {
    /// `function_return`, `target`, `assumption`, `branching`, `function_enter`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `follow` or `avoid`.
    pub action: String,
    /// Where it is.
    pub location: Location,
    /// What holds there (`\result == 5` for a function return).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraint: Option<Constraint>,
}

/// A constraint of a waypoint or an invariant's value.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Constraint {
    /// The expression.
    pub value: String,
    /// `c_expression`.
    #[serde(default = "c_expression")]
    pub format: String,
}

fn c_expression() -> String {
    "c_expression".into()
}

/// The wrapper of an invariant in an invariant set.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct InvariantItem {
    /// The invariant.
    pub invariant: Invariant,
}

/// An invariant of a correctness witness.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Invariant {
    /// `loop_invariant`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The loop keyword's position.
    pub location: Location,
    /// A C expression over the variables in scope there.
    pub value: String,
    /// `c_expression`.
    pub format: String,
}
