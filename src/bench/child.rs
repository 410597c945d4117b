//! One model checked in a child process (`arrax check FILE --json`):
//! started under a memory limit, killed at the timeout plus a grace period,
//! its answer read from its typed JSON report and its exit status.

use super::manifest::{Answer, Task};
use crate::report::json::CheckReport;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long a child may run past its `--timeout` before it is killed.
pub const GRACE: Duration = Duration::from_secs(10);

/// Why a run gave no verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The model file does not exist.
    Missing,
    /// The child could not be started.
    Spawn,
    /// `check` rejected the input or the arguments (exit code 2).
    Input,
    /// A panic, a signal or an unexpected exit code.
    Crash,
    /// The memory limit was hit.
    MemOut,
    /// Killed after the timeout and the grace period.
    Killed,
    /// No readable JSON answer, or one contradicting the exit code.
    BadJson,
}

impl Failure {
    /// The failure as the table shows it.
    pub fn label(self) -> &'static str {
        match self {
            Failure::Missing => "MISSING",
            Failure::Spawn => "NOSTART",
            Failure::Input => "INPUT",
            Failure::Crash => "CRASH",
            Failure::MemOut => "MEMOUT",
            Failure::Killed => "KILLED",
            Failure::BadJson => "BADJSON",
        }
    }
}

/// What `check --json` answered: its report and the verdict in it.
#[derive(Clone, Debug)]
pub struct Answered {
    /// The verdict.
    pub verdict: Answer,
    /// The child's whole report.
    pub report: CheckReport,
}

/// The result of one child.
pub struct Run {
    /// The model.
    pub task: Task,
    /// Its answer, or why there is none.
    pub outcome: Result<Answered, (Failure, String)>,
    /// Seconds of the whole child process.
    pub wall: f64,
    /// How many checks of the model this run stands for (see
    /// [`Runner::runs`]).
    pub checks: usize,
}

/// How to start the children.
pub struct Runner {
    /// The arrax executable.
    pub exe: PathBuf,
    /// The time limit passed to `check`.
    pub timeout: f64,
    /// The memory limit in MB (0: none).
    pub mem_limit_mb: u64,
    /// Further arguments of `check`.
    pub extra: Vec<String>,
    /// How many times a model decided in under [`REPEAT_BELOW`] is
    /// checked (see [`Runner::run`]).
    pub runs: usize,
}

/// Models decided faster than this (seconds) are checked [`Runner::runs`]
/// times.
pub const REPEAT_BELOW: f64 = 1.0;

impl Runner {
    /// Checks one model: once, and when that decided it in under
    /// [`REPEAT_BELOW`], [`Runner::runs`] times in all. The run reported is
    /// the one of median wall time, unless one ended otherwise than the
    /// first (another verdict, a failure): the first such one is reported,
    /// so that an answer that changes between checks is never hidden.
    pub fn run(&self, task: Task) -> Run {
        let first = self.once(task);
        let decided = first.outcome.as_ref().is_ok_and(|a| a.verdict != crate::bench::manifest::Answer::Unknown);
        if self.runs <= 1 || !decided || first.wall >= REPEAT_BELOW {
            return first;
        }
        let mut all = vec![first];
        while all.len() < self.runs {
            let again = self.once(all[0].task.clone());
            all.push(again);
        }
        representative(all)
    }

    /// Checks one model once.
    fn once(&self, task: Task) -> Run {
        let start = Instant::now();
        let outcome = if task.path.is_file() { self.check(&task.path) } else { Err((Failure::Missing, "no such file".to_string())) };
        Run { task, outcome, wall: start.elapsed().as_secs_f64(), checks: 1 }
    }

    fn check(&self, model: &Path) -> Result<Answered, (Failure, String)> {
        let mut cmd = Command::new(&self.exe);
        cmd.arg("check").arg(model).arg("--json").arg("--timeout").arg(self.timeout.to_string()).args(&self.extra);
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        if self.mem_limit_mb > 0 {
            cmd = limit_memory(cmd, self.mem_limit_mb);
        }
        let mut child = cmd.spawn().map_err(|e| (Failure::Spawn, e.to_string()))?;
        let stdout = drain(child.stdout.take());
        let stderr = drain(child.stderr.take());
        let (status, killed) = wait_with_deadline(&mut child, Duration::from_secs_f64(self.timeout) + GRACE).map_err(|e| (Failure::Spawn, e.to_string()))?;
        let stdout = stdout.join().unwrap_or_default();
        let stderr = stderr.join().unwrap_or_default();
        if killed {
            return Err((Failure::Killed, format!("no answer after {:.0} s", self.timeout + GRACE.as_secs_f64())));
        }
        classify(status, &stdout, &stderr)
    }
}

/// The run that stands for several checks of one model: the first that
/// ended otherwise than the first check (another verdict, a failure), else
/// the one of median wall time; its `checks` counts them all.
pub fn representative(mut all: Vec<Run>) -> Run {
    let checks = all.len();
    let ending = |r: &Run| r.outcome.as_ref().map(|a| a.verdict).map_err(|(f, _)| *f);
    let mut pick = match all.iter().position(|r| ending(r) != ending(&all[0])) {
        Some(k) => all.swap_remove(k),
        None => {
            all.sort_by(|a, b| a.wall.total_cmp(&b.wall));
            all.swap_remove(checks / 2)
        }
    };
    pick.checks = checks;
    pick
}

/// Applies the memory limit to the child: `RLIMIT_AS` set between fork and
/// exec. The constants are those of Linux on the common architectures.
#[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "x86", target_arch = "arm", target_arch = "riscv64")))]
pub fn limit_memory(mut cmd: Command, mb: u64) -> Command {
    use std::os::raw::{c_int, c_ulong};
    use std::os::unix::process::CommandExt;
    #[repr(C)]
    struct RLimit {
        cur: c_ulong,
        max: c_ulong,
    }
    extern "C" {
        fn setrlimit(resource: c_int, rlim: *const RLimit) -> c_int;
    }
    const RLIMIT_AS: c_int = 9;
    let bytes = c_ulong::try_from(mb.saturating_mul(1 << 20)).unwrap_or(c_ulong::MAX);
    // SAFETY: the closure runs in the forked child before exec; it only
    // makes the async-signal-safe `setrlimit` call and allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            let lim = RLimit { cur: bytes, max: bytes };
            if setrlimit(RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd
}

/// Applies the memory limit to the child through the shell's `ulimit -v`
/// (platforms whose `setrlimit` constants are not spelled out above).
#[cfg(not(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "x86", target_arch = "arm", target_arch = "riscv64"))))]
pub fn limit_memory(cmd: Command, mb: u64) -> Command {
    let mut wrapped = Command::new("bash");
    wrapped.arg("-c").arg(format!("ulimit -v {}; exec \"$0\" \"$@\"", mb.saturating_mul(1024)));
    wrapped.arg(cmd.get_program()).args(cmd.get_args());
    wrapped.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    wrapped
}

/// Reads a child's pipe to the end on its own thread (so that a chatty
/// child never blocks on a full pipe).
pub fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut buf = vec![];
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut buf);
        }
        String::from_utf8_lossy(&buf).into_owned()
    })
}

/// Waits for the child, killing it at the deadline; says whether it was
/// killed. The child is polled every millisecond, so that the wall time
/// measured around this wait is the child's own to within a millisecond
/// (a growing pause overstated short runs by up to its length).
pub fn wait_with_deadline(child: &mut Child, limit: Duration) -> std::io::Result<(ExitStatus, bool)> {
    let deadline = Instant::now() + limit;
    let pause = Duration::from_millis(1);
    loop {
        if let Some(s) = child.try_wait()? {
            return Ok((s, false));
        }
        let now = Instant::now();
        if now >= deadline {
            let _ = child.kill();
            return Ok((child.wait()?, true));
        }
        std::thread::sleep(pause.min(deadline - now));
    }
}

/// Reads the answer of a finished child from its exit status and output.
fn classify(status: ExitStatus, stdout: &str, stderr: &str) -> Result<Answered, (Failure, String)> {
    let lower = stderr.to_ascii_lowercase();
    let memout = ["memory allocation of", "out of memory", "bad_alloc", "cannot allocate memory", "failed to map segment"].iter().any(|m| lower.contains(m));
    let first_line = |pred: &dyn Fn(&str) -> bool| {
        stderr.lines().find(|l| pred(l)).or_else(|| stderr.lines().find(|l| !l.trim().is_empty())).unwrap_or("").trim().to_string()
    };
    match status.code() {
        Some(code @ (0 | 1 | 3)) => {
            let answered = parse_answer(stdout).map_err(|e| (Failure::BadJson, e))?;
            let expected_code = match answered.verdict {
                Answer::Safe => 0,
                Answer::Unsafe => 1,
                Answer::Unknown => 3,
            };
            if code != expected_code {
                return Err((Failure::BadJson, format!("verdict {} with exit code {code}", answered.verdict.as_str())));
            }
            Ok(answered)
        }
        Some(2) => Err((Failure::Input, first_line(&|l| l.contains("error")))),
        _ if memout => Err((Failure::MemOut, first_line(&|l| l.to_ascii_lowercase().contains("memory")))),
        Some(code) => Err((Failure::Crash, format!("exit code {code}: {}", first_line(&|l| l.contains("panicked"))))),
        None => Err((Failure::Crash, format!("{}: {}", signal_name(status), first_line(&|l| l.contains("panicked"))))),
    }
}

/// How a child ended without an exit code.
fn signal_name(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(6) => "aborted (SIGABRT)".to_string(),
        Some(9) => "killed (SIGKILL)".to_string(),
        Some(11) => "segmentation fault (SIGSEGV)".to_string(),
        Some(s) => format!("signal {s}"),
        None => "no exit code".to_string(),
    }
}

/// The answer in `check --json` output (the last line that is a JSON
/// object), read through the report's own type.
pub fn parse_answer(stdout: &str) -> Result<Answered, String> {
    let line = stdout.lines().rev().map(str::trim).find(|l| l.starts_with('{')).ok_or("no JSON object on stdout")?;
    let report: CheckReport = serde_json::from_str(line).map_err(|e| format!("unreadable report: {e}"))?;
    let verdict = Answer::parse(&report.verdict).ok_or_else(|| format!("unknown verdict `{}`", report.verdict))?;
    Ok(Answered { verdict, report })
}
