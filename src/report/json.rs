//! The typed JSON report of a check (`check --json`), which `bench` reads
//! back from its children: one set of types for writing and reading, with
//! a schema version and the tool's version in every report.

use crate::answer::{Certification, CheckResult, ConcreteTrace, Execution, Replayed, Stats, Verdict};
use crate::logic::{EnumValues, Sort, Term};
use crate::system::System;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The version of the report's shape; it grows when a field changes
/// meaning or goes away (new optional fields keep it).
pub const SCHEMA: u32 = 1;

/// The tool and its version, as reports name it.
pub fn tool() -> String {
    format!("arrax {}", env!("CARGO_PKG_VERSION"))
}

/// The report of one check.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CheckReport {
    /// The report's shape ([`SCHEMA`]).
    pub schema: u32,
    /// The tool that wrote it (`arrax 0.1.0`).
    pub tool: String,
    /// The model checked.
    pub file: String,
    /// `SAFE`, `UNSAFE` or `UNKNOWN`.
    pub verdict: String,
    /// Why the answer is UNKNOWN.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Whether the answer was checked and confirmed.
    pub certified: bool,
    /// How it was checked (or why not).
    #[serde(default)]
    pub certification: String,
    /// The engine that answered.
    #[serde(default)]
    pub engine: String,
    /// The solver it searched with.
    #[serde(default)]
    pub solver: String,
    /// Seconds of the whole check.
    pub time: f64,
    /// Seconds spent checking the answer.
    #[serde(default)]
    pub certify_time: f64,
    /// Proof obligations checked (SAFE).
    #[serde(default)]
    pub obligations: usize,
    /// Search statistics.
    #[serde(default)]
    pub stats: StatsReport,
    /// The invariant's clauses, readable (SAFE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invariant: Option<Vec<String>>,
    /// The counterexample (UNSAFE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceReport>,
    /// Remarks for the user.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// Search statistics in a report.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StatsReport {
    /// Nodes created.
    pub nodes: u64,
    /// Cubes replaced by approximations (BRAB).
    pub approximated: u64,
    /// Searches restarted.
    pub restarts: u64,
    /// Refinements of spurious paths (lazy abstraction), or of IC3/PDR's
    /// abstraction.
    pub refinements: u64,
    /// Nodes expanded.
    pub expanded: u64,
    /// Nodes covered.
    pub covered: u64,
    /// Nodes covered syntactically.
    pub subsumed: u64,
    /// Visited nodes deleted.
    pub deleted: u64,
    /// Largest number of processes a cube named.
    pub max_procs: u64,
    /// Solver calls in all.
    pub solver_calls: u64,
    /// Solver calls of the safety test.
    pub calls_safety: u64,
    /// Solver calls of the fixpoint test.
    pub calls_fixpoint: u64,
    /// Fixpoint tests answered "not covered" by a model built without the solver.
    pub uncovered_models: u64,
    /// Solver calls checking cubes.
    pub calls_sat: u64,
    /// Solver calls interpolating.
    pub calls_interpolation: u64,
    /// Traces found spurious.
    pub spurious: u64,
    /// Seconds in the safety test.
    pub time_safety: f64,
    /// Seconds in the fixpoint test.
    pub time_fixpoint: f64,
    /// Seconds computing pre-images.
    pub time_pre: f64,
    /// Frames opened (IC3/PDR).
    pub frames: u64,
    /// Lemmas learnt (IC3/PDR).
    pub lemmas: u64,
    /// Proof obligations created (IC3/PDR).
    pub obligations: u64,
    /// Counterexamples to generalisation blocked (IC3/PDR).
    pub ctgs: u64,
    /// Solver calls of IC3/PDR's queries.
    pub calls_pdr: u64,
    /// Seconds in IC3/PDR's solver queries.
    pub time_solver: f64,
}

impl From<&Stats> for StatsReport {
    fn from(s: &Stats) -> Self {
        let n = |x: usize| x as u64;
        StatsReport {
            nodes: n(s.nodes),
            approximated: n(s.approximated),
            restarts: n(s.restarts),
            refinements: n(s.refinements),
            expanded: n(s.expanded),
            covered: n(s.covered),
            subsumed: n(s.subsumed),
            deleted: n(s.deleted),
            max_procs: n(s.max_vars),
            solver_calls: n(s.solver_calls()),
            calls_safety: n(s.calls_safety),
            calls_fixpoint: n(s.calls_fixpoint),
            uncovered_models: n(s.uncovered_models),
            calls_sat: n(s.calls_sat),
            calls_interpolation: n(s.calls_itp),
            spurious: n(s.spurious),
            time_safety: s.t_safety.as_secs_f64(),
            time_fixpoint: s.t_fixpoint.as_secs_f64(),
            time_pre: s.t_pre.as_secs_f64(),
            frames: n(s.frames),
            lemmas: n(s.lemmas),
            obligations: n(s.obligations),
            ctgs: n(s.ctgs),
            calls_pdr: n(s.calls_pdr),
            time_solver: s.t_solver.as_secs_f64(),
        }
    }
}

/// A counterexample in a report: a replayed trace (processes and steps)
/// or an execution (steps summarised, initial values, what the replay
/// read at the end).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TraceReport {
    /// Processes of the instance (0 for programs).
    pub procs: usize,
    /// Steps in all (executions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<u64>,
    /// The steps (executions: summarised).
    pub steps: Vec<StepReport>,
    /// Summary entries left out in the middle of a long execution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps_omitted: Option<usize>,
    /// Initial values of scalars (executions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<Map<String, Value>>,
    /// Initial contents of arrays (executions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_arrays: Option<Vec<ArrayReport>>,
    /// The unsafe cube reached (1-based; executions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsafe_cube: Option<usize>,
    /// Final values of scalars (replayed executions).
    #[serde(default, rename = "final", skip_serializing_if = "Option::is_none")]
    pub final_: Option<Map<String, Value>>,
    /// Cells read by the last steps (replayed executions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reads: Option<Vec<ReadReport>>,
}

/// One step (or a repeated step, or a repeated cycle of steps).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct StepReport {
    /// The transition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transition: Option<String>,
    /// Its processes (1-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub procs: Option<Vec<usize>>,
    /// A cycle of steps repeated together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycle: Option<Vec<StepReport>>,
    /// How many times in a row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<u64>,
}

/// An array's initial content in an execution.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ArrayReport {
    /// The array.
    pub array: String,
    /// The value of cells not chosen.
    pub default: i64,
    /// Cells chosen explicitly.
    pub chosen_cells: usize,
}

/// A cell read at the end of a replayed execution.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReadReport {
    /// The array.
    pub array: String,
    /// The cell.
    pub index: Vec<i64>,
    /// Its final value.
    pub value: Value,
}

/// Summary entries kept at each end of a long execution.
const MAX_HALF: usize = 500;

/// A value of a sort: enumeration names as strings, numbers as numbers.
fn value(v: i64, s: &Sort) -> Value {
    match s {
        Sort::Enum(d) if matches!(d.values, EnumValues::Names(_)) => Value::String(super::value(v, s)),
        Sort::Bool => Value::Bool(v != 0),
        _ => Value::from(v),
    }
}

fn scalars(xs: &[(Term, i64)]) -> Map<String, Value> {
    xs.iter().map(|(t, v)| (t.to_string(), value(*v, t.sort()))).collect()
}

impl CheckReport {
    /// The report of a check of `file` (`no_certify`: checking was
    /// switched off by the user).
    pub fn of(file: &str, sys: &System, r: &CheckResult, no_certify: bool) -> CheckReport {
        CheckReport {
            schema: SCHEMA,
            tool: tool(),
            file: file.to_string(),
            verdict: r.verdict.word().to_string(),
            reason: match &r.verdict {
                Verdict::Unknown(why) => Some(why.clone()),
                _ => None,
            },
            certified: matches!(r.certification, Certification::Certified(_)),
            certification: super::certification_text(&r.certification, no_certify),
            engine: r.engine.to_string(),
            solver: r.solver.to_string(),
            time: r.time.as_secs_f64(),
            certify_time: r.certify_time.as_secs_f64(),
            obligations: r.obligations,
            stats: StatsReport::from(&r.stats),
            invariant: r.proof.as_ref().map(|p| p.invariant.iter().map(super::clause).collect()),
            trace: r.trace.as_ref().map(|t| trace(sys, t)).or_else(|| r.execution.as_ref().map(|e| execution(sys, e, r.replayed.as_ref()))),
            notes: r.notes.clone(),
        }
    }

    /// The report of a run that ended at the hard deadline.
    pub fn timed_out(file: &str, time: f64) -> CheckReport {
        CheckReport {
            schema: SCHEMA,
            tool: tool(),
            file: file.to_string(),
            verdict: "UNKNOWN".into(),
            reason: Some("timeout".into()),
            certified: false,
            certification: String::new(),
            engine: String::new(),
            solver: String::new(),
            time,
            certify_time: 0.0,
            obligations: 0,
            stats: StatsReport::default(),
            invariant: None,
            trace: None,
            notes: vec![],
        }
    }

    /// The report on one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a report is plain data")
    }
}

/// A replayed trace.
fn trace(sys: &System, t: &ConcreteTrace) -> TraceReport {
    let steps = t
        .steps
        .iter()
        .map(|(ti, ps)| StepReport {
            transition: Some(sys.transitions[*ti].name.clone()),
            procs: Some(ps.iter().map(|p| p + 1).collect()),
            ..StepReport::default()
        })
        .collect();
    TraceReport { procs: t.procs, steps, ..TraceReport::default() }
}

/// An execution, steps summarised (beyond 1000 entries the middle ones
/// are left out and counted), with initial values and the replay's reads.
fn execution(sys: &System, ex: &Execution, replayed: Option<&Replayed>) -> TraceReport {
    let item = |&(t, n): &(usize, u64)| StepReport { transition: Some(sys.transitions[t].name.clone()), procs: Some(vec![]), repeat: Some(n), cycle: None };
    let lines = super::summarise(&ex.steps);
    let omitted = lines.len().saturating_sub(2 * MAX_HALF);
    let kept = lines.iter().take(MAX_HALF).chain(lines.iter().skip(MAX_HALF + omitted));
    let steps = kept
        .map(|(items, reps)| match items.as_slice() {
            [(t, n)] => item(&(*t, n * reps)),
            _ => StepReport { cycle: Some(items.iter().map(item).collect()), repeat: Some(*reps), ..StepReport::default() },
        })
        .collect();
    let arrays = ex.arrays.iter().map(|a| ArrayReport { array: sys.vars[a.var].name().to_string(), default: a.default, chosen_cells: a.cells.len() }).collect();
    let reads = replayed.map(|r| {
        r.reads
            .iter()
            .map(|(a, i, v)| ReadReport { array: a.to_string(), index: i.clone(), value: value(*v, a.sort().as_array().map(|s| &s.elem).unwrap_or(a.sort())) })
            .collect()
    });
    TraceReport {
        procs: 0,
        length: Some(ex.len()),
        steps,
        steps_omitted: Some(omitted),
        initial: Some(scalars(&ex.scalars)),
        initial_arrays: Some(arrays),
        unsafe_cube: Some(ex.cube + 1),
        final_: replayed.map(|r| scalars(&r.scalars)),
        reads,
    }
}
