//! A peer solver side by side with arrax. A peer is a command and the
//! translation of a task into the language it reads: Horn clauses, which
//! arrax's own export writes (`arrax parse --emit chc`, a child process;
//! a task already in Horn clauses is given as it is). For each task,
//! after arrax's own run, the peer runs on the translation with the same
//! time and memory limits, and answers on its first line as CHC-COMP's
//! solvers do (`sat`: safe, `unsat`: unsafe). The preset `spacer` is z3's
//! fixedpoint engine with Quic3's options (quantified lemmas for arrays);
//! any other CHC solver is a command line. A peer's answer counts as
//! decided only when it agrees with the expected verdict; a disagreement
//! is printed loudly. Tasks the front end cannot export are listed apart.

use super::child::{drain, limit_memory, wait_with_deadline, Run, GRACE};
use super::manifest::{Answer, Task};
use crate::frontend::Format;
use super::results::{aligned, median_geomean, MIN_RATIO_TIME};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The peers `bench --peer` knows by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Preset {
    /// z3's Spacer with Quic3's options.
    Spacer,
}

/// z3's options for Spacer with quantified lemmas (Quic3).
pub const SPACER_OPTIONS: &[&str] =
    &["fp.engine=spacer", "fp.spacer.q3.use_qgen=true", "fp.spacer.ground_pobs=false", "fp.spacer.mbqi=false", "fp.spacer.use_euf_gen=true"];

/// A peer: its name in the tables and its command line, where `{file}`
/// stands for the translated task and `{timeout}` for the time limit in
/// whole seconds (the file is appended when no argument names it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Peer {
    /// The name shown in the tables.
    pub name: String,
    /// The program and its arguments.
    pub command: Vec<String>,
}

impl Peer {
    /// The preset `p`, run by the z3 executable `z3`.
    pub fn preset(p: Preset, z3: &Path) -> Peer {
        match p {
            Preset::Spacer => {
                let mut command = vec![z3.display().to_string()];
                command.extend(SPACER_OPTIONS.iter().map(|o| o.to_string()));
                command.extend(["-T:{timeout}".to_string(), "{file}".to_string()]);
                Peer { name: "spacer".into(), command }
            }
        }
    }

    /// A peer given as a command line (words split at white space), named
    /// after its program's file name.
    pub fn command_line(line: &str) -> Result<Peer, String> {
        let command: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        let program = command.first().ok_or("--peer-command: an empty command")?;
        let name = Path::new(program).file_name().map_or(program.clone(), |n| n.to_string_lossy().to_string());
        Ok(Peer { name, command })
    }

    /// The command on `file` with the time limit `timeout` (seconds).
    fn on(&self, file: &Path, timeout: f64) -> Command {
        let seconds = (timeout.ceil() as u64).to_string();
        let mut args: Vec<String> =
            self.command[1..].iter().map(|a| a.replace("{file}", &file.display().to_string()).replace("{timeout}", &seconds)).collect();
        if !self.command[1..].iter().any(|a| a.contains("{file}")) {
            args.push(file.display().to_string());
        }
        let mut cmd = Command::new(&self.command[0]);
        cmd.args(args);
        cmd
    }
}

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
    /// The peer.
    pub peer: Peer,
    /// The time limit (seconds), as for arrax.
    pub timeout: f64,
    /// The memory limit in MB (0: none).
    pub mem_limit_mb: u64,
    /// Where the exports are written.
    pub dir: PathBuf,
}

impl PeerRunner {
    /// Translates task number `k` and runs the peer on it.
    pub fn run(&self, task: &Task, k: usize) -> PeerRun {
        let file = self.dir.join(format!("task{k}.smt2"));
        let translated = match Format::of_path(&task.path) {
            Some(Format::Chc) => std::fs::copy(&task.path, &file).map(|_| ()).map_err(|e| PeerOutcome::Failed(format!("cannot copy the task: {e}"))),
            _ => self.export(&task.path, &file),
        };
        if let Err(outcome) = translated {
            return PeerRun { outcome, wall: 0.0 };
        }
        let start = Instant::now();
        let outcome = self.answer(&file);
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

    /// The peer's answer on the translated file.
    fn answer(&self, file: &Path) -> PeerOutcome {
        let mut cmd = self.peer.on(file, self.timeout);
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

/// How a task's two answers stand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Standing {
    /// arrax's verdict contradicts the expected one.
    ArraxWrong,
    /// The peer's verdict contradicts the expected one.
    PeerWrong,
    /// arrax's front end could not export the task.
    NotExported,
    /// The export or the peer failed.
    PeerFailed,
    /// Both decided it as expected.
    Both,
    /// Only arrax decided it.
    OnlyArrax,
    /// Only the peer decided it.
    OnlyPeer,
    /// Neither decided it.
    Neither,
}

impl Standing {
    /// How a task with these answers stands.
    fn of(expected: Option<Answer>, ours: Option<Answer>, theirs: &PeerRun) -> Standing {
        let wrong = |a: Option<Answer>| decided(a) && expected.is_some_and(|e| e != Answer::Unknown) && a != expected;
        let right = |a: Option<Answer>| decided(a) && a == expected;
        let peer = theirs.answer();
        match theirs.outcome {
            _ if wrong(ours) => Standing::ArraxWrong,
            _ if wrong(peer) => Standing::PeerWrong,
            PeerOutcome::NotExported(_) => Standing::NotExported,
            PeerOutcome::Failed(_) => Standing::PeerFailed,
            _ if right(ours) && right(peer) => Standing::Both,
            _ if right(ours) => Standing::OnlyArrax,
            _ if right(peer) => Standing::OnlyPeer,
            _ => Standing::Neither,
        }
    }

    /// The table's words for it (`peer`: the peer's name).
    fn label(self, peer: &str) -> String {
        match self {
            Standing::ArraxWrong => "ARRAX WRONG".into(),
            Standing::PeerWrong => format!("{} DISAGREES", peer.to_uppercase()),
            Standing::NotExported => "not exported".into(),
            Standing::PeerFailed => format!("{peer} failed"),
            Standing::Both => "both".into(),
            Standing::OnlyArrax => "only arrax".into(),
            Standing::OnlyPeer => format!("only {peer}"),
            Standing::Neither => "neither".into(),
        }
    }
}

/// A verdict other than UNKNOWN.
fn decided(a: Option<Answer>) -> bool {
    a.is_some_and(|a| a != Answer::Unknown)
}

/// The time ratio peer/arrax of a task both decide.
fn ratio(r: &Run, p: &PeerRun) -> f64 {
    p.wall.max(MIN_RATIO_TIME) / r.wall.max(MIN_RATIO_TIME)
}

/// arrax's verdict on a task, if it gave one.
fn ours(r: &Run) -> Option<Answer> {
    r.outcome.as_ref().ok().map(|a| a.verdict)
}

/// One row of the side-by-side table.
fn row(r: &Run, p: &PeerRun, standing: Standing, peer: &str) -> Vec<String> {
    let peer_got = match &p.outcome {
        PeerOutcome::Answer(a) => a.as_str().to_string(),
        PeerOutcome::NotExported(_) => "-".to_string(),
        PeerOutcome::Failed(_) => "FAILED".to_string(),
    };
    let ratio = if standing == Standing::Both { format!("{:.2}", ratio(r, p)) } else { "-".into() };
    let peer_time = if matches!(p.outcome, PeerOutcome::Answer(_)) { format!("{:.2}", p.wall) } else { "-".into() };
    let expected = r.task.expected.map_or("-", Answer::as_str).to_string();
    vec![r.task.path.display().to_string(), expected, r.got().to_string(), format!("{:.2}", r.wall), peer_got, peer_time, ratio, standing.label(peer)]
}

/// The side-by-side table of arrax's runs and the peer's, and its totals.
pub fn comparison(runs: &[Run], peers: &[PeerRun], peer: &Peer, timeout: f64) -> String {
    let name = peer.name.as_str();
    let standings: Vec<Standing> = runs.iter().zip(peers).map(|(r, p)| Standing::of(r.task.expected, ours(r), p)).collect();
    let rows: Vec<Vec<String>> = runs.iter().zip(peers).zip(&standings).map(|((r, p), &s)| row(r, p, s, name)).collect();
    let head = ["task", "expected", "arrax", "time (s)", name, "time (s)", &format!("{name}/arrax"), "decided by"];
    const RIGHT: [bool; 8] = [false, false, false, true, false, true, true, false];
    let mut out = format!("arrax and {name} ({}) on arrax's export, {timeout} s each:\n", peer.command.join(" "));
    out.push_str(&aligned(&head, &RIGHT, &rows, &(0..8).collect::<Vec<_>>()));
    out.push_str(&totals(runs, peers, &standings, name));
    out
}

/// The totals under the table: decided counts, time ratios on the tasks
/// both decide, the tasks only one decides, what the peer did not run,
/// and every disagreement.
fn totals(runs: &[Run], peers: &[PeerRun], standings: &[Standing], name: &str) -> String {
    let tasks = |s: Standing| -> Vec<String> {
        runs.iter().zip(standings).filter(|(_, &t)| t == s).map(|(r, _)| r.task.path.display().to_string()).collect()
    };
    let right = |r: &Run, a: Option<Answer>| decided(a) && a == r.task.expected;
    let exported = |p: &PeerRun| !matches!(p.outcome, PeerOutcome::NotExported(_));
    let ours_decided = runs.iter().filter(|r| right(r, ours(r))).count();
    let ours_exported = runs.iter().zip(peers).filter(|(r, p)| right(r, ours(r)) && exported(p)).count();
    let theirs_decided = runs.iter().zip(peers).filter(|(r, p)| right(r, p.answer())).count();
    let refused = peers.iter().filter(|p| !exported(p)).count();
    let mut out = String::new();
    let _ = writeln!(out, "\n{} tasks, {} exported to Horn clauses ({refused} refused by arrax's front end)", runs.len(), runs.len() - refused);
    let _ = writeln!(out, "decided (agreeing with the expected verdict): arrax {ours_decided} ({ours_exported} of them exported), {name} {theirs_decided}");
    let both: Vec<f64> = runs.iter().zip(peers).zip(standings).filter(|(_, &s)| s == Standing::Both).map(|((r, p), _)| ratio(r, p)).collect();
    match median_geomean(both.clone()) {
        (Some(m), Some(g)) => _ = writeln!(out, "decided by both: {}; time {name}/arrax: median {m:.2}, geometric mean {g:.2}", both.len()),
        _ => _ = writeln!(out, "decided by both: 0"),
    }
    let list = |xs: Vec<String>| format!("({}): {}", xs.len(), if xs.is_empty() { "none".to_string() } else { xs.join(", ") });
    let _ = writeln!(out, "only arrax decides {}", list(tasks(Standing::OnlyArrax)));
    let _ = writeln!(out, "only {name} decides {}", list(tasks(Standing::OnlyPeer)));
    let not_run: Vec<String> = runs
        .iter()
        .zip(peers)
        .filter_map(|(r, p)| match &p.outcome {
            PeerOutcome::NotExported(why) | PeerOutcome::Failed(why) => Some(format!("  {}: {why}", r.task.path.display())),
            PeerOutcome::Answer(_) => None,
        })
        .collect();
    if !not_run.is_empty() {
        let _ = writeln!(out, "not run by {name} ({}):\n{}", not_run.len(), not_run.join("\n"));
    }
    for ((r, p), s) in runs.iter().zip(peers).zip(standings).filter(|(_, &s)| matches!(s, Standing::ArraxWrong | Standing::PeerWrong)) {
        let expected = r.task.expected.map_or("-", Answer::as_str);
        let theirs = p.answer().map_or("-", Answer::as_str);
        let _ = writeln!(out, "!!! {}: {}: expected {expected}, arrax {}, {name} {theirs}", s.label(name), r.task.path.display(), r.got());
    }
    out
}
