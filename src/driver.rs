//! The `check` pipeline: choose (slice the system, pick the plan), solve
//! (the portfolio runs the plan's engines, each answer checked), conclude
//! (the checked answer, its files written).

pub use crate::answer::{Certification, CheckResult, Verdict};
use crate::certify::service::Checking;
use crate::engine::{Choice, Settings, Task};
use crate::portfolio::{self, Lane, Limits};
use crate::system::System;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Settings of a check.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Which engine runs (`Auto`: chosen per input).
    pub engine: Choice,
    /// Wall-clock limit of the whole run.
    pub timeout: Option<Duration>,
    /// Node limit of the search.
    pub max_nodes: Option<usize>,
    /// Whether to check answers (off only on request).
    pub certify: bool,
    /// Where to write the invariant as SMT-LIB.
    pub invariant_out: Option<PathBuf>,
    /// Where to write the proof obligations as SMT-LIB files.
    pub obligations_dir: Option<PathBuf>,
    /// What the engines read.
    pub settings: Settings,
    /// Which lane of a parallel portfolio this run is.
    pub lane: Lane,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            engine: Choice::Auto,
            timeout: None,
            max_nodes: None,
            certify: true,
            invariant_out: None,
            obligations_dir: None,
            settings: Settings::default(),
            lane: Lane::ALONE,
        }
    }
}

/// The stack of the thread the command line does its work on (and that
/// tests and fuzz targets use to run as it does): deep inputs within the
/// front ends' nesting limits, and long flat chains that some passes
/// still walk recursively, must not exhaust it.
pub const STACK_BYTES: usize = 256 << 20;

/// Runs `work` on a thread with a [`STACK_BYTES`] stack and returns what it
/// returns (a panic in it goes on here); an error if no thread can be started.
pub fn on_large_stack<T: Send>(work: impl FnOnce() -> T + Send) -> std::io::Result<T> {
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new().name("arrax".into()).stack_size(STACK_BYTES).spawn_scoped(s, work)?;
        match worker.join() {
            Ok(value) => Ok(value),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// Whether the system can be checked at all; else why not.
pub fn supported(sys: &System) -> Result<(), String> {
    if sys.unsafe_.is_empty() {
        return Err("no unsafe states given (nothing to check)".into());
    }
    Ok(())
}

/// Checks `full`: slices it, runs the plan for the chosen engine, and
/// returns the first checked answer.
pub fn check(full: &System, opts: &CheckOptions) -> CheckResult {
    let start = Instant::now();
    // the search runs on the cone of influence; answers are checked on the full system
    let (sliced, dropped) = crate::transform::slice::cone_of_influence(full);
    let task = Task::new(full, &sliced);
    let plan = portfolio::plan(opts.engine, &task, opts.lane);
    let checking = Checking { certify: opts.certify, invariant_out: opts.invariant_out.clone(), obligations_dir: opts.obligations_dir.clone() };
    let limits = Limits { timeout: opts.timeout, max_nodes: opts.max_nodes, checking };
    let mut r = portfolio::solve(&task, &plan, &opts.settings, &limits);
    if !dropped.is_empty() {
        r.notes.insert(0, format!("state variables that cannot affect the property: {}", dropped.join(", ")));
    }
    if opts.engine == Choice::Auto && !task.program {
        r.notes.insert(0, "engine: backward reachability (a protocol: transitions with process parameters)".into());
    }
    if opts.lane.of > 1 {
        r.notes.insert(0, format!("parallel portfolio: lane {} of {} answered", opts.lane.index + 1, opts.lane.of));
    }
    r.time = start.elapsed();
    r
}
