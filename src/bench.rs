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

use crate::report::json_str;
use std::fmt::Write as _;
use std::io::{IsTerminal, Read, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// File extensions of models found in a folder.
const MODEL_EXTENSIONS: &[&str] = &["in", "mcmt", "arrax", "cub", "c", "yml"];
/// Manifest names looked for in a folder, in this order.
const MANIFEST_NAMES: &[&str] = &["MANIFEST.tsv", "EXPECTED.tsv"];
/// How long a child may run past its `--timeout` before it is killed.
const GRACE: Duration = Duration::from_secs(10);
/// Times below this count as this much in ratios, so that models solved
/// instantly by both tools do not dominate the comparison.
const MIN_RATIO_TIME: f64 = 0.01;

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
    /// Print CSV rows instead of a table (the summary goes to stderr).
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
    /// Print one JSON object with the `runs` and a `summary`.
    #[arg(long)]
    pub json: bool,
    /// Engine passed to `check --engine`.
    #[arg(long)]
    pub engine: Option<String>,
    /// Further arguments for `check` (after `--`).
    #[arg(last = true)]
    pub check_args: Vec<String>,
}

/// A verdict, expected or obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The unsafe states are unreachable.
    Safe,
    /// An unsafe state is reachable.
    Unsafe,
    /// Not decided.
    Unknown,
}

impl Answer {
    /// Reads `SAFE`/`UNSAFE`/`UNKNOWN` (any case) and the SV-COMP forms
    /// `true` (SAFE) and `false`/`false(unreach-call)` (UNSAFE).
    pub fn parse(s: &str) -> Option<Answer> {
        let s = s.trim().to_ascii_lowercase();
        match s.as_str() {
            "safe" | "true" => Some(Answer::Safe),
            "unsafe" | "false" => Some(Answer::Unsafe),
            "unknown" => Some(Answer::Unknown),
            _ if s.starts_with("false(") => Some(Answer::Unsafe),
            _ if s.starts_with("true(") => Some(Answer::Safe),
            _ => None,
        }
    }

    /// The upper-case name, as `check` prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Answer::Safe => "SAFE",
            Answer::Unsafe => "UNSAFE",
            Answer::Unknown => "UNKNOWN",
        }
    }
}

/// One row of a manifest.
#[derive(Clone, Debug, PartialEq)]
pub struct ManifestEntry {
    /// The model, as written (relative paths are relative to the folder).
    pub file: PathBuf,
    /// The expected verdict, if the manifest gives one.
    pub expected: Option<Answer>,
    /// The reference time in seconds, if the manifest gives a number.
    pub ref_time: Option<f64>,
}

/// Parses a TSV manifest. The first line that is neither empty nor a `#`
/// comment is the header; columns are found by name (any case): `file`
/// (required), the expected verdict (`expected`, `expected_verdict` or
/// `verdict`) and the reference time (`ref_time`, `best_time`,
/// `cubicle_time` or `time`); other columns are ignored. An empty, `-` or
/// `?` verdict means none is expected; a non-numeric time means none.
pub fn parse_manifest(text: &str) -> Result<Vec<ManifestEntry>, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some((_, header)) = lines.next() else {
        return Err("empty manifest".to_string());
    };
    let names: Vec<String> = header
        .split('\t')
        .map(|h| h.trim().to_ascii_lowercase())
        .collect();
    let column = |candidates: &[&str]| {
        candidates
            .iter()
            .find_map(|c| names.iter().position(|n| n == c))
    };
    let file_col = column(&["file", "task_yml"]).ok_or("the header has no `file` column")?;
    let expected_col = column(&["expected", "expected_verdict", "expected_verdict_unreach_call", "verdict"]);
    let time_col = column(&["ref_time", "best_time", "cubicle_time", "cubicle_seconds", "time"]);
    let mut entries = vec![];
    for (i, line) in lines {
        let fields: Vec<&str> = line.split('\t').map(str::trim).collect();
        let field = |c: Option<usize>| {
            c.and_then(|c| fields.get(c).copied())
                .filter(|f| !f.is_empty())
        };
        let file = field(Some(file_col)).ok_or_else(|| format!("line {}: no file", i + 1))?;
        let expected = match field(expected_col) {
            None | Some("-") | Some("?") => None,
            Some(v) => Some(
                Answer::parse(v).ok_or_else(|| format!("line {}: unknown verdict `{v}`", i + 1))?,
            ),
        };
        let ref_time = field(time_col)
            .and_then(|t| t.parse::<f64>().ok())
            .filter(|t| t.is_finite() && *t >= 0.0);
        entries.push(ManifestEntry {
            file: PathBuf::from(file),
            expected,
            ref_time,
        });
    }
    Ok(entries)
}

/// A manifest read from disk.
struct Manifest {
    /// The folder holding the manifest.
    dir: PathBuf,
    entries: Vec<ManifestEntry>,
}

impl Manifest {
    fn load(path: &Path) -> Result<Manifest, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let entries = parse_manifest(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok(Manifest { dir, entries })
    }

    /// The manifest of a folder, if it has one.
    fn find(dir: &Path) -> Result<Option<Manifest>, String> {
        match MANIFEST_NAMES
            .iter()
            .map(|n| dir.join(n))
            .find(|p| p.is_file())
        {
            Some(p) => Manifest::load(&p).map(Some),
            None => Ok(None),
        }
    }

    /// The entry describing `file`: the one whose path, resolved against
    /// the manifest's folder, is `file`, or else the longest that `file`'s
    /// path ends with.
    fn lookup(&self, file: &Path) -> Option<&ManifestEntry> {
        let canon = std::fs::canonicalize(file).ok()?;
        let same = |e: &&ManifestEntry| {
            std::fs::canonicalize(self.dir.join(&e.file)).is_ok_and(|p| p == canon)
        };
        self.entries.iter().find(same).or_else(|| {
            self.entries
                .iter()
                .filter(|e| e.file.is_relative() && canon.ends_with(&e.file))
                .max_by_key(|e| e.file.components().count())
        })
    }
}

/// A model to check.
struct Task {
    /// The path shown in the output.
    path: PathBuf,
    expected: Option<Answer>,
    ref_time: Option<f64>,
}

impl Task {
    fn from_entry(e: &ManifestEntry, dirs: &[&Path]) -> Task {
        let path = dirs
            .iter()
            .map(|d| d.join(&e.file))
            .find(|p| p.exists())
            .unwrap_or_else(|| dirs[0].join(&e.file));
        Task {
            path,
            expected: e.expected,
            ref_time: e.ref_time,
        }
    }

    /// A model outside a manifest (or not listed in it): the expectation
    /// comes from an `expect:` remark in its first lines.
    fn from_file(path: PathBuf) -> Task {
        let expected = std::fs::File::open(&path).ok().and_then(|f| {
            let mut head = String::new();
            f.take(4096).read_to_string(&mut head).ok()?;
            head.lines().take(5).find_map(|l| {
                let i = l.find("expect:")?;
                l[i + 7..].split_whitespace().next().and_then(Answer::parse)
            })
        });
        Task {
            path,
            expected,
            ref_time: None,
        }
    }
}

fn is_model(p: &Path) -> bool {
    p.is_file()
        && p.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| MODEL_EXTENSIONS.contains(&e))
}

/// The models of a folder, sorted; a `.c` file is left out when a `.yml`
/// task of the same name describes it.
fn folder_models(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| is_model(p))
        .collect();
    out.sort();
    let ymls: Vec<PathBuf> = out
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "yml"))
        .map(|p| p.with_extension(""))
        .collect();
    out.retain(|p| {
        !(p.extension().is_some_and(|e| e == "c") && ymls.contains(&p.with_extension("")))
    });
    Ok(out)
}

/// The models to check, in order.
fn collect_tasks(args: &BenchArgs) -> Result<Vec<Task>, String> {
    let explicit = args.manifest.as_deref().map(Manifest::load).transpose()?;
    if args.paths.is_empty() {
        return match &explicit {
            Some(m) => Ok(m
                .entries
                .iter()
                .map(|e| Task::from_entry(e, &[&m.dir]))
                .collect()),
            None => Err("no models: give files, folders or --manifest".to_string()),
        };
    }
    let mut tasks = vec![];
    for path in &args.paths {
        if path.is_dir() {
            let found = if explicit.is_some() {
                None
            } else {
                Manifest::find(path)?
            };
            match explicit.as_ref().or(found.as_ref()) {
                Some(m) => tasks.extend(
                    m.entries
                        .iter()
                        .map(|e| Task::from_entry(e, &[path, &m.dir])),
                ),
                None => tasks.extend(folder_models(path)?.into_iter().map(Task::from_file)),
            }
        } else if path.is_file() {
            let parent = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let found = if explicit.is_some() {
                None
            } else {
                Manifest::find(parent)?
            };
            let entry = explicit
                .as_ref()
                .or(found.as_ref())
                .and_then(|m| m.lookup(path));
            tasks.push(match entry {
                Some(e) => Task {
                    path: path.clone(),
                    expected: e.expected,
                    ref_time: e.ref_time,
                },
                None => Task::from_file(path.clone()),
            });
        } else {
            return Err(format!("{}: no such file or folder", path.display()));
        }
    }
    Ok(tasks)
}

/// Why a run gave no verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Failure {
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
    fn label(self) -> &'static str {
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

/// What `check --json` answered.
struct Answered {
    verdict: Answer,
    reason: Option<String>,
    certified: bool,
    time: f64,
    certify_time: f64,
    nodes: Option<u64>,
    solver_calls: Option<u64>,
}

/// The result of one child.
struct Run {
    task: Task,
    outcome: Result<Answered, (Failure, String)>,
    wall: f64,
}

/// How a run counts in the summary.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Correct,
    Wrong,
    Unknown,
    /// Decided, but nothing (or UNKNOWN) was expected.
    Unchecked,
    Error,
}

impl Run {
    fn class(&self) -> Class {
        match &self.outcome {
            Err(_) => Class::Error,
            Ok(a) if a.verdict == Answer::Unknown => Class::Unknown,
            Ok(a) => match self.task.expected {
                None | Some(Answer::Unknown) => Class::Unchecked,
                Some(e) if e == a.verdict => Class::Correct,
                Some(_) => Class::Wrong,
            },
        }
    }

    /// The `got` column: the verdict or the failure.
    fn got(&self) -> &'static str {
        match &self.outcome {
            Ok(a) => a.verdict.as_str(),
            Err((f, _)) => f.label(),
        }
    }

    /// The `status` column.
    fn status(&self) -> String {
        match (&self.outcome, self.class()) {
            (Err((f, why)), _) => format!("{}: {why}", f.label()),
            (Ok(_), Class::Wrong) => "WRONG".to_string(),
            (Ok(a), Class::Unknown) => format!(
                "unknown: {}",
                a.reason.as_deref().unwrap_or("no reason given")
            ),
            (Ok(_), Class::Unchecked) => "no expectation".to_string(),
            (Ok(_), _) => "ok".to_string(),
        }
    }

    /// The whole process's time (start-up and certification included)
    /// over reference time, for decided runs with a reference.
    fn ratio(&self) -> Option<f64> {
        self.outcome.as_ref().ok().filter(|a| a.verdict != Answer::Unknown)?;
        Some(self.wall.max(MIN_RATIO_TIME) / self.task.ref_time?.max(MIN_RATIO_TIME))
    }

    fn is_crash(&self) -> bool {
        matches!(self.outcome, Err((Failure::Crash, _)))
    }
}

/// How to start the children.
struct Runner {
    exe: PathBuf,
    timeout: f64,
    mem_limit_mb: u64,
    extra: Vec<String>,
}

impl Runner {
    fn run(&self, task: Task) -> Run {
        let start = Instant::now();
        let outcome = if task.path.is_file() {
            self.check(&task.path)
        } else {
            Err((Failure::Missing, "no such file".to_string()))
        };
        Run {
            task,
            outcome,
            wall: start.elapsed().as_secs_f64(),
        }
    }

    fn check(&self, model: &Path) -> Result<Answered, (Failure, String)> {
        let mut cmd = Command::new(&self.exe);
        cmd.arg("check")
            .arg(model)
            .arg("--json")
            .arg("--timeout")
            .arg(self.timeout.to_string())
            .args(&self.extra);
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if self.mem_limit_mb > 0 {
            cmd = limit_memory(cmd, self.mem_limit_mb);
        }
        let mut child = cmd.spawn().map_err(|e| (Failure::Spawn, e.to_string()))?;
        let stdout = drain(child.stdout.take());
        let stderr = drain(child.stderr.take());
        let (status, killed) =
            wait_with_deadline(&mut child, Duration::from_secs_f64(self.timeout) + GRACE)
                .map_err(|e| (Failure::Spawn, e.to_string()))?;
        let stdout = stdout.join().unwrap_or_default();
        let stderr = stderr.join().unwrap_or_default();
        if killed {
            return Err((
                Failure::Killed,
                format!(
                    "no answer after {:.0} s",
                    self.timeout + GRACE.as_secs_f64()
                ),
            ));
        }
        classify(status, &stdout, &stderr)
    }
}

/// Applies the memory limit to the child: `RLIMIT_AS` set between fork and
/// exec. The constants are those of Linux on the common architectures.
#[cfg(all(
    target_os = "linux",
    any(
        target_arch = "x86_64",
        target_arch = "aarch64",
        target_arch = "x86",
        target_arch = "arm",
        target_arch = "riscv64"
    )
))]
fn limit_memory(mut cmd: Command, mb: u64) -> Command {
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
            let lim = RLimit {
                cur: bytes,
                max: bytes,
            };
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
#[cfg(not(all(
    target_os = "linux",
    any(
        target_arch = "x86_64",
        target_arch = "aarch64",
        target_arch = "x86",
        target_arch = "arm",
        target_arch = "riscv64"
    )
)))]
fn limit_memory(cmd: Command, mb: u64) -> Command {
    let mut wrapped = Command::new("bash");
    wrapped.arg("-c").arg(format!(
        "ulimit -v {}; exec \"$0\" \"$@\"",
        mb.saturating_mul(1024)
    ));
    wrapped.arg(cmd.get_program()).args(cmd.get_args());
    wrapped
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    wrapped
}

/// Reads a child's pipe to the end on its own thread (so that a chatty
/// child never blocks on a full pipe).
fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
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
fn wait_with_deadline(child: &mut Child, limit: Duration) -> std::io::Result<(ExitStatus, bool)> {
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
    let memout = [
        "memory allocation of",
        "out of memory",
        "bad_alloc",
        "cannot allocate memory",
        "failed to map segment",
    ]
    .iter()
    .any(|m| lower.contains(m));
    let first_line = |pred: &dyn Fn(&str) -> bool| {
        stderr
            .lines()
            .find(|l| pred(l))
            .or_else(|| stderr.lines().find(|l| !l.trim().is_empty()))
            .unwrap_or("")
            .trim()
            .to_string()
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
                return Err((
                    Failure::BadJson,
                    format!(
                        "verdict {} with exit code {code}",
                        answered.verdict.as_str()
                    ),
                ));
            }
            Ok(answered)
        }
        Some(2) => Err((Failure::Input, first_line(&|l| l.contains("error")))),
        _ if memout => Err((
            Failure::MemOut,
            first_line(&|l| l.to_ascii_lowercase().contains("memory")),
        )),
        Some(code) => Err((
            Failure::Crash,
            format!(
                "exit code {code}: {}",
                first_line(&|l| l.contains("panicked"))
            ),
        )),
        None => Err((
            Failure::Crash,
            format!(
                "{}: {}",
                signal_name(status),
                first_line(&|l| l.contains("panicked"))
            ),
        )),
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

/// Extracts the fields the benchmark needs from `check --json` output (the
/// last line that is a JSON object).
fn parse_answer(stdout: &str) -> Result<Answered, String> {
    let line = stdout
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('{'))
        .ok_or("no JSON object on stdout")?;
    let json = Json::parse(line)?;
    let verdict = match json.get("verdict") {
        Some(Json::Str(v)) => Answer::parse(v).ok_or_else(|| format!("unknown verdict `{v}`"))?,
        _ => return Err("no `verdict` field".to_string()),
    };
    let num = |j: Option<&Json>| match j {
        Some(Json::Num(n)) => Some(*n),
        _ => None,
    };
    let count = |key: &str| {
        num(json.get("stats").and_then(|s| s.get(key)))
            .filter(|n| *n >= 0.0)
            .map(|n| n as u64)
    };
    Ok(Answered {
        verdict,
        reason: match json.get("reason") {
            Some(Json::Str(r)) => Some(r.clone()),
            _ => None,
        },
        certified: matches!(json.get("certified"), Some(Json::Bool(true))),
        time: num(json.get("time")).ok_or("no `time` field")?,
        certify_time: num(json.get("certify_time")).unwrap_or(0.0),
        nodes: count("nodes"),
        solver_calls: count("solver_calls"),
    })
}

/// A JSON value (just enough of JSON to read `check --json`).
#[derive(Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn parse(text: &str) -> Result<Json, String> {
        let mut p = JsonParser {
            s: text.as_bytes(),
            i: 0,
        };
        let v = p.value()?;
        p.ws();
        if p.i != p.s.len() {
            return Err(format!("trailing text at byte {}", p.i));
        }
        Ok(v)
    }

    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

struct JsonParser<'a> {
    s: &'a [u8],
    i: usize,
}

impl JsonParser<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("bad JSON at byte {}: {what}", self.i))
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        let ok = self.s.get(self.i) == Some(&c);
        if ok {
            self.i += 1;
        }
        ok
    }

    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        match self.s.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut fields = vec![];
                if !self.eat(b'}') {
                    loop {
                        self.ws();
                        let k = self.string()?;
                        if !self.eat(b':') {
                            return self.err("expected `:`");
                        }
                        fields.push((k, self.value()?));
                        if self.eat(b'}') {
                            break;
                        }
                        if !self.eat(b',') {
                            return self.err("expected `,` or `}`");
                        }
                    }
                }
                Ok(Json::Obj(fields))
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = vec![];
                if !self.eat(b']') {
                    loop {
                        items.push(self.value()?);
                        if self.eat(b']') {
                            break;
                        }
                        if !self.eat(b',') {
                            return self.err("expected `,` or `]`");
                        }
                    }
                }
                Ok(Json::Arr(items))
            }
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(b't') => self.word("true", Json::Bool(true)),
            Some(b'f') => self.word("false", Json::Bool(false)),
            Some(b'n') => self.word("null", Json::Null),
            Some(c) if *c == b'-' || c.is_ascii_digit() => {
                let start = self.i;
                while self
                    .s
                    .get(self.i)
                    .is_some_and(|c| c.is_ascii_digit() || b"+-.eE".contains(c))
                {
                    self.i += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
                text.parse()
                    .map(Json::Num)
                    .or_else(|_| self.err("bad number"))
            }
            _ => self.err("expected a value"),
        }
    }

    fn word(&mut self, w: &str, v: Json) -> Result<Json, String> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(v)
        } else {
            self.err("unknown word")
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let h = self
            .s
            .get(self.i..self.i + 4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok());
        match h {
            Some(v) => {
                self.i += 4;
                Ok(v)
            }
            None => self.err("bad \\u escape"),
        }
    }

    fn string(&mut self) -> Result<String, String> {
        if self.s.get(self.i) != Some(&b'"') {
            return self.err("expected a string");
        }
        self.i += 1;
        let mut out = Vec::new();
        loop {
            match self.s.get(self.i) {
                None => return self.err("unterminated string"),
                Some(b'"') => {
                    self.i += 1;
                    return String::from_utf8(out).or_else(|_| self.err("invalid UTF-8"));
                }
                Some(b'\\') => {
                    self.i += 1;
                    let c = self.s.get(self.i).copied();
                    self.i += 1;
                    let ch = match c {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi)
                                && self.s[self.i..].starts_with(b"\\u")
                            {
                                self.i += 2;
                                let lo = self.hex4()?;
                                0x10000 + ((hi - 0xD800) << 10) + lo.wrapping_sub(0xDC00)
                            } else {
                                hi
                            };
                            char::from_u32(code).unwrap_or('\u{FFFD}')
                        }
                        _ => return self.err("bad escape"),
                    };
                    let mut buf = [0; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                Some(&c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }
}

/// Totals over all runs.
struct Summary {
    total: usize,
    correct: usize,
    wrong: usize,
    unknown: usize,
    unchecked: usize,
    errors: usize,
    crashes: usize,
    ratios: usize,
    median_ratio: Option<f64>,
    geomean_ratio: Option<f64>,
    wall: f64,
}

impl Summary {
    fn of(runs: &[Run], wall: f64) -> Summary {
        let count = |c: Class| runs.iter().filter(|r| r.class() == c).count();
        let mut ratios: Vec<f64> = runs.iter().filter_map(Run::ratio).collect();
        ratios.sort_by(f64::total_cmp);
        let n = ratios.len();
        let median_ratio = (n > 0).then(|| {
            if n % 2 == 1 {
                ratios[n / 2]
            } else {
                (ratios[n / 2 - 1] + ratios[n / 2]) / 2.0
            }
        });
        let geomean_ratio =
            (n > 0).then(|| (ratios.iter().map(|r| r.ln()).sum::<f64>() / n as f64).exp());
        Summary {
            total: runs.len(),
            correct: count(Class::Correct),
            wrong: count(Class::Wrong),
            unknown: count(Class::Unknown),
            unchecked: count(Class::Unchecked),
            errors: count(Class::Error),
            crashes: runs.iter().filter(|r| r.is_crash()).count(),
            ratios: n,
            median_ratio,
            geomean_ratio,
            wall,
        }
    }

    fn failed(&self) -> bool {
        self.wrong > 0 || self.crashes > 0
    }

    fn text(&self, runs: &[Run]) -> String {
        let mut o = String::new();
        for r in runs
            .iter()
            .filter(|r| r.class() == Class::Wrong || r.is_crash())
        {
            let expected = r.task.expected.map_or("-", Answer::as_str);
            let _ = writeln!(
                o,
                "{}: {} (expected {expected}, got {})",
                if r.is_crash() { "CRASH" } else { "WRONG" },
                r.task.path.display(),
                r.got()
            );
        }
        let mut parts = vec![format!("{} correct", self.correct)];
        parts.push(if self.wrong > 0 {
            format!("{} WRONG", self.wrong)
        } else {
            "0 wrong".to_string()
        });
        parts.push(format!("{} unknown", self.unknown));
        let crashes = if self.crashes > 0 {
            format!(" ({} CRASH)", self.crashes)
        } else {
            String::new()
        };
        parts.push(format!(
            "{} error{}{crashes}",
            self.errors,
            if self.errors == 1 { "" } else { "s" }
        ));
        if self.unchecked > 0 {
            parts.push(format!("{} without expectation", self.unchecked));
        }
        let _ = writeln!(
            o,
            "{} model{}: {}",
            self.total,
            if self.total == 1 { "" } else { "s" },
            parts.join(", ")
        );
        if let (Some(m), Some(g)) = (self.median_ratio, self.geomean_ratio) {
            let _ = writeln!(o, "time / reference time over {} decided model{}: median {m:.2}, geometric mean {g:.2}", self.ratios, if self.ratios == 1 { "" } else { "s" });
        }
        let _ = writeln!(o, "wall time: {:.1} s", self.wall);
        o
    }

    fn json(&self) -> String {
        format!(
            "{{\"total\":{},\"correct\":{},\"wrong\":{},\"unknown\":{},\"unchecked\":{},\"errors\":{},\"crashes\":{},\"ratios\":{},\"median_ratio\":{},\"geomean_ratio\":{},\"wall_time\":{:.4}}}",
            self.total,
            self.correct,
            self.wrong,
            self.unknown,
            self.unchecked,
            self.errors,
            self.crashes,
            self.ratios,
            json_num(self.median_ratio),
            json_num(self.geomean_ratio),
            self.wall
        )
    }
}

fn json_num(x: Option<f64>) -> String {
    match x {
        Some(x) if x.is_finite() => format!("{x:.4}"),
        _ => "null".to_string(),
    }
}

fn opt<T: ToString>(x: Option<T>) -> String {
    x.map_or_else(|| "-".to_string(), |x| x.to_string())
}

/// The cells of one row: file, expected, got, certified, time, nodes,
/// solver calls, reference time, ratio, status.
fn cells(r: &Run) -> [String; 10] {
    let a = r.outcome.as_ref().ok();
    [
        r.task.path.display().to_string(),
        r.task.expected.map_or("-", Answer::as_str).to_string(),
        r.got().to_string(),
        a.map_or("-", |a| {
            if a.verdict == Answer::Unknown {
                "-"
            } else if a.certified {
                "yes"
            } else {
                "no"
            }
        })
        .to_string(),
        a.map_or_else(|| "-".to_string(), |a| format!("{:.3}", a.time)),
        opt(a.and_then(|a| a.nodes)),
        opt(a.and_then(|a| a.solver_calls)),
        opt(r.task.ref_time.map(|t| format!("{t:.3}"))),
        opt(r.ratio().map(|x| format!("{x:.2}"))),
        r.status(),
    ]
}

fn table(runs: &[Run]) -> String {
    const HEAD: [&str; 10] = [
        "file",
        "expected",
        "got",
        "certified",
        "time (s)",
        "nodes",
        "solver calls",
        "ref (s)",
        "ratio",
        "status",
    ];
    const RIGHT: [bool; 10] = [
        false, false, false, false, true, true, true, true, true, false,
    ];
    let with_ref = runs.iter().any(|r| r.task.ref_time.is_some());
    let shown: Vec<usize> = (0..10)
        .filter(|&c| with_ref || !(c == 7 || c == 8))
        .collect();
    let rows: Vec<[String; 10]> = runs.iter().map(cells).collect();
    let width = |c: usize| {
        rows.iter()
            .map(|r| r[c].chars().count())
            .chain([HEAD[c].chars().count()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..10).map(width).collect();
    let line = |cells: &[&str]| {
        let mut l = String::new();
        for (k, &c) in shown.iter().enumerate() {
            let last = k + 1 == shown.len();
            let text = cells[c];
            let pad = widths[c].saturating_sub(text.chars().count());
            if RIGHT[c] {
                l.push_str(&" ".repeat(pad));
                l.push_str(text);
            } else {
                l.push_str(text);
                if !last {
                    l.push_str(&" ".repeat(pad));
                }
            }
            if !last {
                l.push_str("  ");
            }
        }
        l.push('\n');
        l
    };
    let mut out = line(&HEAD);
    for r in &rows {
        out.push_str(&line(&r.each_ref().map(String::as_str)));
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv(runs: &[Run]) -> String {
    let mut out = String::from("file,expected,got,certified,time,certify_time,wall_time,nodes,solver_calls,ref_time,ratio,status\n");
    for r in runs {
        let a = r.outcome.as_ref().ok();
        let c = cells(r);
        let blank = |s: &str| {
            if s == "-" {
                String::new()
            } else {
                csv_field(s)
            }
        };
        let row = [
            csv_field(&c[0]),
            blank(&c[1]),
            blank(&c[2]),
            blank(&c[3]),
            a.map_or_else(String::new, |a| format!("{:.4}", a.time)),
            a.map_or_else(String::new, |a| format!("{:.4}", a.certify_time)),
            format!("{:.4}", r.wall),
            blank(&c[5]),
            blank(&c[6]),
            r.task.ref_time.map_or_else(String::new, |t| t.to_string()),
            r.ratio().map_or_else(String::new, |x| format!("{x:.4}")),
            csv_field(&r.status()),
        ];
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

fn json(runs: &[Run], summary: &Summary) -> String {
    let mut out = String::from("{\"runs\":[\n");
    for (i, r) in runs.iter().enumerate() {
        let a = r.outcome.as_ref().ok();
        let mut o = format!(
            "{{\"file\":{}",
            json_str(&r.task.path.display().to_string())
        );
        let _ = write!(
            o,
            ",\"expected\":{}",
            r.task
                .expected
                .map_or("null".to_string(), |e| json_str(e.as_str()))
        );
        let _ = write!(o, ",\"got\":{}", json_str(r.got()));
        let class = match r.class() {
            Class::Correct => "correct",
            Class::Wrong => "wrong",
            Class::Unknown => "unknown",
            Class::Unchecked => "unchecked",
            Class::Error => "error",
        };
        let _ = write!(
            o,
            ",\"class\":\"{class}\",\"status\":{}",
            json_str(&r.status())
        );
        if let Some(a) = a {
            let _ = write!(
                o,
                ",\"certified\":{},\"time\":{:.4},\"certify_time\":{:.4}",
                a.certified, a.time, a.certify_time
            );
            let _ = write!(
                o,
                ",\"nodes\":{},\"solver_calls\":{}",
                opt_json(a.nodes),
                opt_json(a.solver_calls)
            );
        }
        let _ = write!(
            o,
            ",\"wall_time\":{:.4},\"ref_time\":{},\"ratio\":{}}}",
            r.wall,
            json_num(r.task.ref_time),
            json_num(r.ratio())
        );
        out.push_str(&o);
        out.push_str(if i + 1 < runs.len() { ",\n" } else { "\n" });
    }
    let _ = write!(out, "],\"summary\":{}}}", summary.json());
    out.push('\n');
    out
}

fn opt_json(x: Option<u64>) -> String {
    x.map_or_else(|| "null".to_string(), |x| x.to_string())
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
    let tasks = collect_tasks(args)?;
    if tasks.is_empty() {
        return Err("no models found".to_string());
    }
    let mut extra = vec![];
    if let Some(e) = &args.engine {
        extra.extend(["--engine".to_string(), e.clone()]);
    }
    extra.extend(args.check_args.iter().cloned());
    let runner = Runner {
        exe: std::env::current_exe()
            .map_err(|e| format!("cannot find the arrax executable: {e}"))?,
        timeout: args.timeout,
        mem_limit_mb: args.mem_limit,
        extra,
    };
    let start = Instant::now();
    let runs = run_all(&runner, tasks, args.jobs);
    let summary = Summary::of(&runs, start.elapsed().as_secs_f64());
    if args.json {
        print!("{}", json(&runs, &summary));
    } else if args.csv {
        print!("{}", csv(&runs));
        eprint!("{}", summary.text(&runs));
    } else {
        print!("{}", table(&runs));
        println!();
        print!("{}", summary.text(&runs));
    }
    Ok(summary.failed())
}

/// Runs the tasks on `jobs` threads; the runs come back in task order.
fn run_all(runner: &Runner, tasks: Vec<Task>, jobs: usize) -> Vec<Run> {
    let n = tasks.len();
    let queue: Vec<Mutex<Option<Task>>> = tasks.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let results: Vec<Mutex<Option<Run>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let progress = Mutex::new(Progress {
        on: std::io::stderr().is_terminal(),
        total: n,
        done: 0,
        running: vec![],
    });
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
                *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(run);
                let mut p = progress.lock().unwrap_or_else(|e| e.into_inner());
                p.running.retain(|r| *r != name);
                p.done += 1;
                p.show();
            });
        }
    });
    progress
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .clear();
    results
        .into_iter()
        .filter_map(|r| r.into_inner().unwrap_or_else(|e| e.into_inner()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_check_json() {
        let out = "note\n{\"file\":\"a\\\"b\",\"verdict\":\"UNKNOWN\",\"reason\":\"timeout \\u00e9\",\"certified\":false,\"time\":1.5,\"certify_time\":0.0,\"stats\":{\"nodes\":12,\"solver_calls\":345},\"trace\":{\"steps\":[1,2.5e3,null,true]},\"notes\":[]}\n";
        let a = parse_answer(out).unwrap();
        assert_eq!(a.verdict, Answer::Unknown);
        assert_eq!(a.reason.as_deref(), Some("timeout é"));
        assert!(!a.certified);
        assert_eq!(
            (a.time, a.nodes, a.solver_calls),
            (1.5, Some(12), Some(345))
        );
        assert!(parse_answer("{\"verdict\":\"SAFE\"").is_err());
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
        assert!(
            !wait_with_deadline(&mut child, Duration::from_secs(30))
                .unwrap()
                .1
        );
    }

    #[test]
    fn summary_ratios() {
        let run = |expected, verdict, time, ref_time| Run {
            task: Task {
                path: PathBuf::from("m"),
                expected,
                ref_time,
            },
            outcome: Ok(Answered {
                verdict,
                reason: None,
                certified: true,
                time,
                certify_time: 0.0,
                nodes: None,
                solver_calls: None,
            }),
            wall: time,
        };
        let runs = vec![
            run(Some(Answer::Safe), Answer::Safe, 2.0, Some(1.0)),
            run(Some(Answer::Unsafe), Answer::Unsafe, 1.0, Some(2.0)),
            run(Some(Answer::Safe), Answer::Unsafe, 8.0, Some(1.0)),
            run(Some(Answer::Safe), Answer::Unknown, 9.0, Some(1.0)),
            run(None, Answer::Safe, 1.0, None),
        ];
        let s = Summary::of(&runs, 0.0);
        assert_eq!(
            (s.correct, s.wrong, s.unknown, s.unchecked, s.errors),
            (2, 1, 1, 1, 0)
        );
        assert_eq!(s.ratios, 3);
        assert_eq!(s.median_ratio, Some(2.0));
        assert!((s.geomean_ratio.unwrap() - 2.0).abs() < 1e-9);
        assert!(s.failed());
    }
}
