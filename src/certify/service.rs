//! Certification as a service: the [`Replayer`] engines hand candidate
//! counterexamples to, and [`conclude`], which turns an engine's outcome
//! into a checked answer (SAFE certified by the other solver, UNSAFE only
//! as replayed).

use super::execution::{replay_until, TIMED_OUT};
use super::safe::{certify_safe, SafeCertificate, Status};
use super::trace::replay;
use crate::answer::{AbstractTrace, Answer, Certification, CheckResult, ConcreteTrace, Counterexample, Execution, Outcome, Replayed, Replayer, Verdict};
use crate::smt::Backend;
use crate::system::{System, Transition};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Time limit of one solver call while checking, in milliseconds.
pub const PER_CALL_MS: u64 = 20_000;

/// The replay service of one engine run, on the system the front end
/// produced (plus the companions the engine declared).
pub struct Service<'a> {
    system: &'a System,
    extended: Option<System>,
    /// The solver that replays traces: the one the engine did not use
    /// (the engine's own when checking is off).
    backend: Backend,
    certify: bool,
    /// Time spent replaying.
    pub time: Duration,
}

impl<'a> Service<'a> {
    /// The service for an engine searching with `search`; with `certify`
    /// off, traces are still replayed (with the engine's solver) to tell
    /// real ones from spurious ones, executions are not.
    pub fn new(system: &'a System, search: Backend, certify: bool) -> Service<'a> {
        let backend = if certify { search.other() } else { search };
        Service { system, extended: None, backend, certify, time: Duration::ZERO }
    }

    fn replayed_on(&self) -> &System {
        self.extended.as_ref().unwrap_or(self.system)
    }
}

impl Replayer for Service<'_> {
    fn replay_trace(&mut self, trace: &AbstractTrace) -> Result<Option<ConcreteTrace>, String> {
        let on = self.replayed_on();
        if trace.edges.iter().any(|e| e.transition >= on.transitions.len()) {
            return Err("it goes through an accelerated loop the whole system does not have".into());
        }
        let t0 = Instant::now();
        let r = replay(on, trace, self.backend, PER_CALL_MS);
        self.time += t0.elapsed();
        r
    }

    fn replay_execution(&mut self, execution: &Execution, deadline: Option<Instant>) -> Result<Option<Replayed>, String> {
        if !self.certify {
            return Ok(None);
        }
        let t0 = Instant::now();
        let r = replay_until(self.system, execution, deadline);
        self.time += t0.elapsed();
        r.map(Some)
    }

    fn extend(&mut self, companions: Vec<Transition>) {
        if companions.is_empty() {
            return;
        }
        let mut s = self.replayed_on().clone();
        s.transitions.extend(companions);
        self.extended = Some(s);
    }
}

/// Whether a replay error says the replay ran out of time.
pub fn timed_out(error: &str) -> bool {
    error.starts_with(TIMED_OUT)
}

/// Whether answers are checked, and where a SAFE answer's proof goes.
#[derive(Clone, Debug, Default)]
pub struct Checking {
    /// Whether answers are checked (off only on request).
    pub certify: bool,
    /// Where to write the invariant as SMT-LIB.
    pub invariant_out: Option<PathBuf>,
    /// Where to write the proof obligations as SMT-LIB files.
    pub obligations_dir: Option<PathBuf>,
}

/// An engine's outcome as a checked answer: a SAFE proof certified by the
/// solver the engine did not use (when checking), an UNSAFE answer with
/// its replay; a SAFE answer's invariant and obligations written where
/// `checking` says (a note says when that failed).
pub fn conclude(system: &System, outcome: Outcome, engine: &'static str, search: Backend, checking: &Checking) -> CheckResult {
    let certify = checking.certify;
    let checker = search.other();
    let mut res = CheckResult {
        verdict: Verdict::Unknown(String::new()),
        certification: Certification::Skipped,
        stats: outcome.stats,
        proof: None,
        trace: None,
        execution: None,
        replayed: None,
        obligations: 0,
        time: Duration::ZERO,
        certify_time: Duration::ZERO,
        notes: outcome.notes,
        engine,
        solver: search,
        graph: outcome.graph,
    };
    let mut cert = None;
    match outcome.answer {
        Answer::Unknown(why) => res.verdict = Verdict::Unknown(why),
        Answer::Unsafe(Counterexample::Trace(_, concrete)) => {
            res.verdict = Verdict::Unsafe;
            if certify {
                res.certification = Certification::Certified(format!("trace replayed on a concrete instance ({checker})"));
            }
            res.trace = concrete;
        }
        Answer::Unsafe(Counterexample::Execution(execution, replayed)) => {
            res.verdict = Verdict::Unsafe;
            if let Some(rep) = &replayed {
                res.certification = Certification::Certified(if rep.accelerated > 0 {
                    format!("execution replayed on the system ({} steps of self-loops in closed form)", rep.accelerated)
                } else {
                    "execution replayed step by step on the system".into()
                });
            }
            res.execution = Some(execution);
            res.replayed = replayed;
        }
        Answer::Safe(proof) => {
            if certify {
                let t0 = Instant::now();
                let c = certify_safe(system, &proof, checker, PER_CALL_MS);
                res.certify_time += t0.elapsed();
                res.obligations = c.obligations.len();
                (res.verdict, res.certification) = judge(&c, proof.self_checked, checker);
                cert = Some(c);
            } else {
                res.verdict = Verdict::Safe;
            }
            res.proof = Some(proof);
        }
    }
    write_files(system, &mut res, cert.as_ref(), checking);
    res
}

/// Writes the invariant and the obligations where `checking` asks.
fn write_files(system: &System, r: &mut CheckResult, cert: Option<&SafeCertificate>, checking: &Checking) {
    if let (Some(dir), Some(c)) = (&checking.obligations_dir, cert) {
        if let Err(e) = c.write_smtlib(dir) {
            r.notes.push(format!("could not write obligations to {}: {e}", dir.display()));
        }
    }
    if let (Some(path), Some(p)) = (&checking.invariant_out, &r.proof) {
        if let Err(e) = std::fs::write(path, super::safe::invariant_smtlib(system, &p.invariant)) {
            r.notes.push(format!("could not write the invariant to {}: {e}", path.display()));
        }
    }
}

/// The verdict a certificate allows: SAFE when every obligation is proved;
/// UNKNOWN when one has a counter-model; when one stays unknown, SAFE
/// marked uncertified for a proof the search checked itself, else UNKNOWN.
fn judge(c: &SafeCertificate, self_checked: bool, checker: Backend) -> (Verdict, Certification) {
    match c.first_gap() {
        None => (Verdict::Safe, Certification::Certified(proved(c, checker))),
        Some(o) if o.status == Status::Failed => (
            Verdict::Unknown(format!("certification failed: obligation {} has a counter-model", o.name)),
            Certification::Uncertified(format!("{} failed", o.name)),
        ),
        Some(o) if !self_checked => {
            (Verdict::Unknown(format!("invariant not certified: obligation {} unknown", o.name)), Certification::Uncertified(format!("{} unknown", o.name)))
        }
        Some(o) => {
            let why = match &o.status {
                Status::Unknown(w) => w.clone(),
                _ => String::new(),
            };
            (Verdict::Safe, Certification::Uncertified(format!("{} unknown: {why}", o.name)))
        }
    }
}

/// What a complete certificate says: how many obligations were proved, by
/// which solver, and how many by the frame rule.
fn proved(c: &SafeCertificate, checker: Backend) -> String {
    match c.framed() {
        0 => format!("{} obligations proved by {checker}", c.obligations.len()),
        f => format!("{} obligations proved by {checker} ({f} of them by the frame rule: the step writes nothing the clause reads)", c.obligations.len()),
    }
}
