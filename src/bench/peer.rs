//! A peer CHC solver side by side with arrax: for each task, after
//! arrax's own run, the task is exported as Horn clauses by arrax's
//! front end (`arrax parse --emit chc`, a child process) and the peer runs
//! on the export with the same time and memory limits. The peer is Spacer:
//! z3's fixedpoint engine with Quic3's options (quantified lemmas for
//! arrays). Its `sat` (safe) and `unsat` (unsafe) count as decided only
//! when they agree with the expected verdict; a disagreement is printed
//! loudly. Tasks the front end cannot export are listed apart.

use super::child::{drain, limit_memory, wait_with_deadline, Run, GRACE};
use super::manifest::{Answer, Task};
use super::results::{aligned, median_geomean, MIN_RATIO_TIME};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The peer solvers `bench --peer` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Peer {
    /// z3's Spacer with Quic3's options.
    Spacer,
}

/// z3's options for Spacer with quantified lemmas (Quic3).
pub const SPACER_OPTIONS: &[&str] =
    &["fp.engine=spacer", "fp.spacer.q3.use_qgen=true", "fp.spacer.ground_pobs=false", "fp.spacer.mbqi=false", "fp.spacer.use_euf_gen=true"];

/// Longest time the export of one task may take.
const EXPORT_LIMIT: Duration = Duration::from_secs(120);

/// What the peer did with a task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PeerOutcome {
    /// An answer (`sat` is SAFE, `unsat` UNSAFE, `unknown` or a timeout UNKNOWN).
    Answer(Answer),
    /// arrax's front end could not export the task: why.
    NotExported(String),
    /// The export or the peer failed otherwise: how.
    Failed(String),
}

/// The peer's run on one task.
#[derive(Clone, Debug)]
pub struct PeerRun {
    /// What it answered.
    pub outcome: PeerOutcome,
    /// Seconds of the peer's process (the export not included).
    pub wall: f64,
}

impl PeerRun {
    fn answer(&self) -> Option<Answer> {
        match self.outcome {
            PeerOutcome::Answer(a) => Some(a),
            _ => None,
        }
    }
}

/// How to run the peer.
pub struct PeerRunner {
    /// The arrax executable (for the export).
    pub exe: PathBuf,
    /// The z3 executable.
    pub z3: PathBuf,
    /// The time limit (seconds), as for arrax.
    pub timeout: f64,
    /// The memory limit in MB (0: none).
    pub mem_limit_mb: u64,
    /// Where the exports are written.
    pub dir: PathBuf,
}

impl PeerRunner {
    /// Exports task number `k` and runs the peer on it.
    pub fn run(&self, task: &Task, k: usize) -> PeerRun {
        let file = self.dir.join(format!("task{k}.smt2"));
        if let Err(outcome) = self.export(&task.path, &file) {
            return PeerRun { outcome, wall: 0.0 };
        }
        let start = Instant::now();
        let outcome = self.spacer(&file);
        PeerRun { outcome, wall: start.elapsed().as_secs_f64() }
    }

    /// `arrax parse --emit chc task > file`.
    fn export(&self, task: &Path, file: &Path) -> Result<(), PeerOutcome> {
        let mut cmd = Command::new(&self.exe);
        cmd.args(["parse", "--emit", "chc"]).arg(task).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let (code, stdout, stderr) = run_child(cmd, EXPORT_LIMIT).map_err(PeerOutcome::Failed)?;
        let first = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
        let reason = first.strip_prefix(&format!("{}:", task.display())).unwrap_or(first).trim().to_string();
        match code {
            Some(0) => std::fs::write(file, stdout).map_err(|e| PeerOutcome::Failed(format!("cannot write the export: {e}"))),
            Some(2) => Err(PeerOutcome::NotExported(reason)),
            _ => Err(PeerOutcome::Failed(format!("export failed: {reason}"))),
        }
    }

    /// z3 with Spacer's options on the exported file.
    fn spacer(&self, file: &Path) -> PeerOutcome {
        let mut cmd = Command::new(&self.z3);
        cmd.args(SPACER_OPTIONS).arg(format!("-T:{}", self.timeout.ceil() as u64)).arg(file);
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        if self.mem_limit_mb > 0 {
            cmd = limit_memory(cmd, self.mem_limit_mb);
        }
        match run_child(cmd, Duration::from_secs_f64(self.timeout) + GRACE) {
            Err(why) if why.starts_with("killed") => PeerOutcome::Answer(Answer::Unknown),
            Err(why) => PeerOutcome::Failed(why),
            Ok((_, stdout, stderr)) => match stdout.lines().map(str::trim).find(|l| !l.is_empty()) {
                Some("sat") => PeerOutcome::Answer(Answer::Safe),
                Some("unsat") => PeerOutcome::Answer(Answer::Unsafe),
                Some("unknown" | "timeout") => PeerOutcome::Answer(Answer::Unknown),
                other => PeerOutcome::Failed(other.or(stderr.lines().next()).unwrap_or("no output").to_string()),
            },
        }
    }
}

/// Runs a child to its end or kills it at `limit`: exit code, stdout, stderr.
fn run_child(mut cmd: Command, limit: Duration) -> Result<(Option<i32>, String, String), String> {
    let mut child = cmd.spawn().map_err(|e| format!("cannot start {}: {e}", cmd.get_program().to_string_lossy()))?;
    let (out, err) = (drain(child.stdout.take()), drain(child.stderr.take()));
    let (status, killed) = wait_with_deadline(&mut child, limit).map_err(|e| e.to_string())?;
    let (out, err) = (out.join().unwrap_or_default(), err.join().unwrap_or_default());
    if killed {
        return Err(format!("killed after {:.0} s", limit.as_secs_f64()));
    }
    Ok((status.code(), out, err))
}

/// How a task compares.
fn compare(expected: Option<Answer>, ours: Option<Answer>, theirs: &PeerRun) -> &'static str {
    let decided = |a: Option<Answer>| a.is_some_and(|a| a != Answer::Unknown);
    let right = |a: Option<Answer>| decided(a) && a == expected;
    let wrong = |a: Option<Answer>| decided(a) && expected.is_some_and(|e| e != Answer::Unknown) && a != expected;
    let peer = theirs.answer();
    match theirs.outcome {
        _ if wrong(ours) => "ARRAX WRONG",
        _ if wrong(peer) => "SPACER DISAGREES",
        PeerOutcome::NotExported(_) => "not exported",
        PeerOutcome::Failed(_) => "spacer failed",
        _ if right(ours) && right(peer) => "both",
        _ if right(ours) => "only arrax",
        _ if right(peer) => "only spacer",
        _ => "neither",
    }
}

/// The side-by-side table and its totals.
pub fn comparison(runs: &[Run], peers: &[PeerRun], timeout: f64) -> String {
    let ours = |r: &Run| r.outcome.as_ref().ok().map(|a| a.verdict);
    let mut rows = vec![];
    let (mut only_ours, mut only_theirs, mut loud, mut unexported, mut ratios) = (vec![], vec![], vec![], vec![], vec![]);
    let (mut ours_decided, mut ours_exported, mut theirs_decided) = (0, 0, 0);
    for (r, p) in runs.iter().zip(peers) {
        let name = r.task.path.display().to_string();
        let how = compare(r.task.expected, ours(r), p);
        let peer_got = match &p.outcome {
            PeerOutcome::Answer(a) => a.as_str().to_string(),
            PeerOutcome::NotExported(_) => "-".to_string(),
            PeerOutcome::Failed(_) => "FAILED".to_string(),
        };
        match how {
            "both" => ratios.push(p.wall.max(MIN_RATIO_TIME) / r.wall.max(MIN_RATIO_TIME)),
            "only arrax" => only_ours.push(name.clone()),
            "only spacer" => only_theirs.push(name.clone()),
            "ARRAX WRONG" | "SPACER DISAGREES" => {
                loud.push(format!("!!! {how}: {name}: expected {}, arrax {}, spacer {peer_got}", r.task.expected.map_or("-", Answer::as_str), r.got()))
            }
            _ => {}
        }
        let exported = !matches!(p.outcome, PeerOutcome::NotExported(_));
        let right = |a: Option<Answer>| a.is_some_and(|a| a != Answer::Unknown) && a == r.task.expected;
        ours_decided += usize::from(right(ours(r)));
        ours_exported += usize::from(right(ours(r)) && exported);
        theirs_decided += usize::from(right(p.answer()));
        if let PeerOutcome::NotExported(why) | PeerOutcome::Failed(why) = &p.outcome {
            unexported.push(format!("{name}: {why}"));
        }
        let ratio = if how == "both" { format!("{:.2}", p.wall.max(MIN_RATIO_TIME) / r.wall.max(MIN_RATIO_TIME)) } else { "-".into() };
        let time = |ok: bool, t: f64| if ok { format!("{t:.2}") } else { "-".into() };
        let peer_ran = matches!(p.outcome, PeerOutcome::Answer(_));
        let expected = r.task.expected.map_or("-", Answer::as_str).to_string();
        rows.push(vec![name, expected, r.got().to_string(), time(true, r.wall), peer_got, time(peer_ran, p.wall), ratio, how.to_string()]);
    }
    const HEAD: [&str; 8] = ["task", "expected", "arrax", "time (s)", "spacer", "time (s)", "spacer/arrax", "decided by"];
    const RIGHT: [bool; 8] = [false, false, false, true, false, true, true, false];
    let mut out = format!("arrax and Spacer (z3 {}) on arrax's export, {timeout} s each:\n", SPACER_OPTIONS.join(" "));
    out.push_str(&aligned(&HEAD, &RIGHT, &rows, &(0..8).collect::<Vec<_>>()));
    let n = runs.len();
    let refused = peers.iter().filter(|p| matches!(p.outcome, PeerOutcome::NotExported(_))).count();
    let _ = writeln!(out, "\n{n} tasks, {} exported to Horn clauses ({refused} refused by arrax's front end)", n - refused);
    let _ = writeln!(out, "decided (agreeing with the expected verdict): arrax {ours_decided} ({ours_exported} of them exported), spacer {theirs_decided}");
    let (median, geomean) = median_geomean(ratios.clone());
    if let (Some(m), Some(g)) = (median, geomean) {
        let _ = writeln!(out, "decided by both: {}; time spacer/arrax: median {m:.2}, geometric mean {g:.2}", ratios.len());
    } else {
        let _ = writeln!(out, "decided by both: 0");
    }
    let list = |xs: &[String]| if xs.is_empty() { "none".to_string() } else { xs.join(", ") };
    let _ = writeln!(out, "only arrax decides ({}): {}", only_ours.len(), list(&only_ours));
    let _ = writeln!(out, "only spacer decides ({}): {}", only_theirs.len(), list(&only_theirs));
    if !unexported.is_empty() {
        let _ = writeln!(out, "not run by spacer ({}):", unexported.len());
        for u in &unexported {
            let _ = writeln!(out, "  {u}");
        }
    }
    for l in &loud {
        let _ = writeln!(out, "{l}");
    }
    out
}
