//! `arrax bench`: run the checker on many models and compare the answers
//! with expected verdicts and reference times.
//!
//! Every model is checked in a child process (the running executable with
//! `check FILE --json --timeout S`), under a memory limit and with a hard
//! kill at the timeout plus a grace period, so that a crash, a runaway
//! solver or an exhausted memory costs one row of the table and not the
//! whole run. Expected verdicts and reference times come from a manifest
//! (a TSV file, see [`parse_manifest`]); without one, from an
//! `expect: SAFE|UNSAFE|UNKNOWN` remark in the first lines of the model.

pub mod child;
pub mod manifest;
pub mod peer;
pub mod results;

pub use manifest::{parse_manifest, Answer, ManifestEntry};

use child::{Run, Runner};
use manifest::Task;
use results::Summary;
use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Arguments of `arrax bench`.
#[derive(clap::Args, Debug, Clone)]
pub struct BenchArgs {
    /// Models or folders of models (`.in`, `.mcmt`, `.arrax`, `.cub`, `.c`,
    /// `.yml`). A folder holding `MANIFEST.tsv` or `EXPECTED.tsv` contributes
    /// the files that manifest lists.
    pub paths: Vec<PathBuf>,
    /// TSV manifest with columns `file`, `expected` (SAFE/UNSAFE/UNKNOWN or
    /// true/false) and optionally a reference time (`time`, `best_time`,
    /// `cubicle_time`, `cubicle_seconds` or `ref_time`, in seconds). Without PATHS, its files
    /// are benchmarked.
    #[arg(long)]
    pub manifest: Option<PathBuf>,
    /// Time limit per model in seconds (passed to `check`; the child is
    /// killed 10 s later).
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
    /// Memory (address space) limit per model in MB; 0 for none.
    #[arg(long, default_value_t = 8192)]
    pub mem_limit: u64,
    /// Number of models checked in parallel.
    #[arg(long, short, default_value_t = 1)]
    pub jobs: usize,
    /// Checks of a model decided in under a second: one check of such a
    /// model times mostly noise (process start, page faults, the
    /// scheduler), so it is checked this many times and the run of median
    /// wall time is reported (a wrong answer or a crash in any of them is
    /// reported instead). 1 checks each model once.
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// Print CSV rows instead of a table (the summary goes to stderr).
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
    /// Print one JSON object with the `runs` and a `summary`.
    #[arg(long)]
    pub json: bool,
    /// Engine passed to `check --engine`.
    #[arg(long)]
    pub engine: Option<String>,
    /// Also run a peer CHC solver on each task, after arrax and with the
    /// same limits, on arrax's export of the task (`parse --emit chc`),
    /// and print the two side by side: `spacer` is z3's Spacer with
    /// Quic3's options.
    #[arg(long, value_enum, conflicts_with_all = ["csv", "json", "peer_command"])]
    pub peer: Option<peer::Preset>,
    /// Another peer CHC solver, as a command line: `{file}` stands for the
    /// task's Horn clauses (appended when absent), `{timeout}` for the
    /// time limit in seconds; it answers `sat`/`unsat`/`unknown` first.
    #[arg(long, conflicts_with_all = ["csv", "json"])]
    pub peer_command: Option<String>,
    /// The z3 executable of `--peer spacer` (by default the one
    /// `scripts/fetch-solvers.sh` unpacked into `solvers/bin`).
    #[arg(long)]
    pub z3: Option<PathBuf>,
    /// Further arguments for `check` (after `--`).
    #[arg(last = true)]
    pub check_args: Vec<String>,
}

/// The progress line on stderr (only when stderr is a terminal).
struct Progress {
    on: bool,
    total: usize,
    done: usize,
    running: Vec<String>,
}

impl Progress {
    fn show(&self) {
        if self.on {
            let names = self.running.join(", ");
            let mut e = std::io::stderr().lock();
            let _ = write!(e, "\r\x1b[K[{}/{}] {}", self.done, self.total, names);
            let _ = e.flush();
        }
    }

    fn clear(&self) {
        if self.on {
            eprint!("\r\x1b[K");
        }
    }
}

/// Runs `arrax bench`: exit code 0 when no answer is wrong and nothing
/// crashed, 1 otherwise, 2 for a usage or manifest error.
pub fn run(args: &BenchArgs) -> ExitCode {
    match bench(args) {
        Ok(failed) => ExitCode::from(u8::from(failed)),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// The whole benchmark; says whether something was wrong or crashed.
fn bench(args: &BenchArgs) -> Result<bool, String> {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return Err("--timeout must be a positive number of seconds".to_string());
    }
    if args.jobs == 0 {
        return Err("--jobs must be at least 1".to_string());
    }
    if args.runs == 0 {
        return Err("--runs must be at least 1".to_string());
    }
    let tasks = manifest::collect_tasks(args)?;
    if tasks.is_empty() {
        return Err("no models found".to_string());
    }
    let mut extra = vec![];
    if let Some(e) = &args.engine {
        extra.extend(["--engine".to_string(), e.clone()]);
    }
    extra.extend(args.check_args.iter().cloned());
    let runner = Runner {
        exe: std::env::current_exe().map_err(|e| format!("cannot find the arrax executable: {e}"))?,
        timeout: args.timeout,
        mem_limit_mb: args.mem_limit,
        extra,
        runs: args.runs,
    };
    let peer = match (args.peer, &args.peer_command) {
        (Some(p), _) => Some(peer_runner(args, &runner, peer::Peer::preset(p, &z3(args)?))?),
        (None, Some(line)) => Some(peer_runner(args, &runner, peer::Peer::command_line(line)?)?),
        (None, None) => None,
    };
    let start = Instant::now();
    let (runs, peers) = run_all(&runner, peer.as_ref(), tasks, args.jobs);
    let summary = Summary::of(&runs, start.elapsed().as_secs_f64());
    if args.json {
        print!("{}", results::json(&runs, &summary));
    } else if args.csv {
        print!("{}", results::csv(&runs));
        eprint!("{}", summary.text(&runs));
    } else {
        print!("{}", results::table(&runs));
        println!();
        print!("{}", summary.text(&runs));
    }
    if let Some(p) = &peer {
        println!();
        print!("{}", peer::comparison(&runs, &peers, &p.peer, args.timeout));
        let _ = std::fs::remove_dir_all(&p.dir);
    }
    Ok(summary.failed())
}

/// The z3 executable of the Spacer preset, checked to start.
fn z3(args: &BenchArgs) -> Result<PathBuf, String> {
    let z3 = args.z3.clone().unwrap_or_else(|| PathBuf::from(env!("ARRAX_Z3")));
    let version = std::process::Command::new(&z3).arg("--version").output();
    if !version.is_ok_and(|o| o.status.success()) {
        return Err(format!("{}: no z3 executable there (run scripts/fetch-solvers.sh, or give --z3)", z3.display()));
    }
    Ok(z3)
}

/// The peer's runner, with a folder for the translated tasks.
fn peer_runner(args: &BenchArgs, runner: &Runner, peer: peer::Peer) -> Result<peer::PeerRunner, String> {
    let dir = std::env::temp_dir().join(format!("arrax-peer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(peer::PeerRunner { exe: runner.exe.clone(), peer, timeout: args.timeout, mem_limit_mb: args.mem_limit, dir })
}

/// arrax's run of a task and the peer's, if any.
type Runs = (Run, Option<peer::PeerRun>);

/// Runs the tasks on `jobs` threads, each task's peer run (if any) right
/// after arrax's; the runs come back in task order.
fn run_all(runner: &Runner, peer: Option<&peer::PeerRunner>, tasks: Vec<Task>, jobs: usize) -> (Vec<Run>, Vec<peer::PeerRun>) {
    let n = tasks.len();
    let queue: Vec<Mutex<Option<Task>>> = tasks.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let results: Vec<Mutex<Option<Runs>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let progress = Mutex::new(Progress { on: std::io::stderr().is_terminal(), total: n, done: 0, running: vec![] });
    std::thread::scope(|s| {
        for _ in 0..jobs.min(n) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= n {
                    break;
                }
                let Some(task) = queue[i].lock().unwrap_or_else(|e| e.into_inner()).take() else {
                    continue;
                };
                let name = task.path.display().to_string();
                {
                    let mut p = progress.lock().unwrap_or_else(|e| e.into_inner());
                    p.running.push(name.clone());
                    p.show();
                }
                let run = runner.run(task);
                let theirs = peer.map(|p| p.run(&run.task, i));
                *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some((run, theirs));
                let mut p = progress.lock().unwrap_or_else(|e| e.into_inner());
                p.running.retain(|r| *r != name);
                p.done += 1;
                p.show();
            });
        }
    });
    progress.into_inner().unwrap_or_else(|e| e.into_inner()).clear();
    results.into_iter().filter_map(|r| r.into_inner().unwrap_or_else(|e| e.into_inner())).fold((vec![], vec![]), |(mut runs, mut peers), (run, theirs)| {
        runs.push(run);
        peers.extend(theirs);
        (runs, peers)
    })
}

#[cfg(test)]
mod tests {
    use super::child::{parse_answer, wait_with_deadline, Answered};
    use super::*;
    use crate::report::json::CheckReport;
    use std::process::Command;
    use std::time::Duration;

    #[test]
    fn reads_check_json() {
        let mut r = CheckReport::timed_out("a\"b", 1.5);
        r.reason = Some("timeout é".into());
        r.stats.nodes = 12;
        r.stats.solver_calls = 345;
        let out = format!("note\n{}\n", r.to_json());
        let a = parse_answer(&out).unwrap();
        assert_eq!(a.verdict, Answer::Unknown);
        assert_eq!(a.report.reason.as_deref(), Some("timeout é"));
        assert!(!a.report.certified);
        assert_eq!((a.report.time, a.report.stats.nodes, a.report.stats.solver_calls), (1.5, 12, 345));
        assert_eq!(a.report.schema, crate::report::json::SCHEMA);
        assert!(parse_answer("{\"verdict\":\"SAFE\"").is_err());
        assert!(parse_answer("{\"verdict\":\"SAFE\"}").is_err(), "fields missing");
        assert!(parse_answer("panic").is_err());
    }

    #[test]
    fn kills_at_the_deadline() {
        let mut child = Command::new("sleep").arg("30").spawn().unwrap();
        let start = Instant::now();
        let (status, killed) = wait_with_deadline(&mut child, Duration::from_millis(200)).unwrap();
        assert!(killed && !status.success());
        assert!(start.elapsed() < Duration::from_secs(5));
        let mut child = Command::new("true").spawn().unwrap();
        assert!(!wait_with_deadline(&mut child, Duration::from_secs(30)).unwrap().1);
    }

    #[test]
    fn repeated_checks_report_the_median_unless_one_differs() {
        let run = |verdict: Answer, wall| {
            let mut report = CheckReport::timed_out("m", wall);
            report.verdict = verdict.as_str().to_string();
            Run {
                task: Task { path: PathBuf::from("m"), expected: Some(Answer::Safe), ref_time: Some(0.1) },
                outcome: Ok(Answered { verdict, report }),
                wall,
                checks: 1,
            }
        };
        let same = [0.05, 0.01, 0.30, 0.02, 0.03].map(|w| run(Answer::Safe, w));
        let pick = child::representative(same.into());
        assert_eq!((pick.wall, pick.checks), (0.03, 5));
        // a check answering otherwise is reported, however fast or slow
        let mixed = vec![run(Answer::Safe, 0.02), run(Answer::Safe, 0.02), run(Answer::Unsafe, 0.01), run(Answer::Safe, 0.02)];
        let pick = child::representative(mixed);
        assert_eq!((pick.got(), pick.checks), ("UNSAFE", 4));
        assert!(Summary::of(&[pick], 0.0).failed());
    }

    #[test]
    fn summary_ratios() {
        let run = |expected, verdict: Answer, time, ref_time| {
            let mut report = CheckReport::timed_out("m", time);
            report.verdict = verdict.as_str().to_string();
            report.certified = true;
            Run { task: Task { path: PathBuf::from("m"), expected, ref_time }, outcome: Ok(Answered { verdict, report }), wall: time, checks: 1 }
        };
        let runs = vec![
            run(Some(Answer::Safe), Answer::Safe, 2.0, Some(1.0)),
            run(Some(Answer::Unsafe), Answer::Unsafe, 1.0, Some(2.0)),
            run(Some(Answer::Safe), Answer::Unsafe, 8.0, Some(1.0)),
            run(Some(Answer::Safe), Answer::Unknown, 9.0, Some(1.0)),
            run(None, Answer::Safe, 1.0, None),
        ];
        let s = Summary::of(&runs, 0.0);
        assert_eq!((s.correct, s.wrong, s.unknown, s.unchecked, s.errors), (2, 1, 1, 1, 0));
        assert_eq!(s.ratios, 3);
        assert_eq!(s.median_ratio, Some(2.0));
        assert!((s.geomean_ratio.unwrap() - 2.0).abs() < 1e-9);
        assert!(s.failed());
        let json = results::json(&runs, &s);
        let back: results::BenchReport = serde_json::from_str(&json).unwrap();
        assert_eq!((back.runs.len(), back.summary.correct, back.runs[2].class.as_str()), (5, 2, "wrong"));
    }
}
