//! The `arrax` command line: `parse`, `check`, `bench`.

use arrax::driver::{self, CheckOptions, Verdict};
use arrax::engine::bwd::Order;
use arrax::engine::{Choice, Settings};
use arrax::frontend::{self, chc};
use arrax::reach::interpolate::Method;
use arrax::report::{self, json::CheckReport};
use arrax::smt::Backend;
use arrax::system::horn::Horn;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

mod lanes;

#[derive(Parser)]
#[command(name = "arrax", version, about = "Model checker for array-based systems: parameterised protocols and array programs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and type-check a model; print the system in canonical form
    /// (for C programs and task files a summary, unless `--lowered`).
    Parse {
        /// The model (MCMT `.in`/`.mcmt`, Cubicle `.cub`, canonical `.arrax`,
        /// C `.c`/`.i`, SV-COMP task `.yml`).
        file: PathBuf,
        /// Print the lowered system of a C program in canonical form.
        #[arg(long)]
        lowered: bool,
        /// Write the system in another format instead: `chc`, Horn clauses
        /// in SMT-LIB (CHC-COMP's format), for any CHC solver.
        #[arg(long, value_enum)]
        emit: Option<EmitArg>,
    },
    /// Decide whether the model's unsafe states are reachable.
    Check(CheckArgs),
    /// Check many models (each in its own process, with time and memory
    /// limits) and compare with expected verdicts and reference times.
    Bench(arrax::bench::BenchArgs),
    /// Validate a violation witness (SV-COMP YAML 2.0) of a C program by
    /// replaying it: exit 1 when a run following it reaches the error
    /// (`witness confirmed`), 3 when none is found (`witness not
    /// confirmed: …`), 2 for bad input.
    Validate {
        /// The C program (`.c`, `.i`) or SV-COMP task file (`.yml`).
        file: PathBuf,
        /// The violation witness.
        witness: PathBuf,
        /// Time limit in seconds.
        #[arg(long)]
        timeout: Option<f64>,
        /// The C data model, over a task file's (default ILP32).
        #[arg(long, value_enum)]
        data_model: Option<DataModelArg>,
    },
}

#[derive(clap::Args)]
struct CheckArgs {
    /// The model (MCMT `.in`/`.mcmt`, Cubicle `.cub`, canonical `.arrax`,
    /// C `.c`/`.i`, SV-COMP task `.yml`).
    file: PathBuf,
    /// Print `TRUE`, `FALSE` or `UNKNOWN` (SV-COMP's verdicts) as the first line.
    #[arg(long)]
    svcomp: bool,
    /// The engine.
    #[arg(long, value_enum, default_value_t = Choice::Auto)]
    engine: Choice,
    /// How lazy abstraction computes interpolants (`auto`: projection,
    /// then projection with case splits in the portfolio for programs).
    #[arg(long, value_enum, default_value_t = ItpArg::Auto)]
    interpolation: ItpArg,
    /// A term (state variable or constant) for lazy abstraction to abstract,
    /// besides the automatic ones (loop counters and their bounds); repeatable.
    #[arg(long = "abstract", value_name = "TERM")]
    abstract_terms: Vec<String>,
    /// Exploration order of backward search.
    #[arg(long, value_enum, default_value_t = SearchArg::Bfs)]
    search: SearchArg,
    /// Time limit in seconds (the run ends UNKNOWN).
    #[arg(long)]
    timeout: Option<f64>,
    /// Node limit (the run ends UNKNOWN).
    #[arg(long)]
    max_nodes: Option<usize>,
    /// Forward engine: the largest step limit of one run (limits grow by
    /// rounds from 1M steps up to this).
    #[arg(long)]
    max_steps: Option<u64>,
    /// Forward engine: the seed of the value choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Largest number of processes a cube may name.
    #[arg(long, default_value_t = 8)]
    max_procs: usize,
    /// The search's solver; answers are checked with the other one
    /// (auto: cvc5 for backward reachability, z3 for the other engines).
    #[arg(long, value_enum, default_value_t = SolverArg::Auto)]
    solver: SolverArg,
    /// Do not check the answer (no certification, no replay).
    #[arg(long)]
    no_certify: bool,
    /// Print one JSON object instead of text.
    #[arg(long, conflicts_with = "chc")]
    json: bool,
    /// Answer in Horn-clause terms (CHC-COMP): `sat` (safe) with a model,
    /// one `define-fun` per predicate, `unsat` with a derivation, or
    /// `unknown`; for other inputs, in the terms of their export
    /// (`parse --emit chc`).
    #[arg(long, conflicts_with = "svcomp")]
    chc: bool,
    /// Write the invariant (SAFE) as SMT-LIB to this file.
    #[arg(long)]
    invariant: Option<PathBuf>,
    /// Write the proof obligations (SAFE) as SMT-LIB files into this folder.
    #[arg(long)]
    obligations: Option<PathBuf>,
    /// Lanes of the parallel portfolio (with `--engine auto`): 0 for one
    /// per core (at most 2), 1 to run the portfolio's phases one after the
    /// other. Lanes run as processes at once and the first checked answer
    /// is printed (a protocol: backward reachability with BRAB's instance
    /// of --brab processes; and depth-first for a sixth of the time, then
    /// with an instance of a process more; a program: proofs, and execution with IC3/PDR). A run
    /// that writes files (--invariant, --obligations, --witness, --dot)
    /// runs one lane.
    #[arg(long, default_value_t = 0)]
    lanes: usize,
    /// The lane of a parallel portfolio this process runs (set by the
    /// process that starts the lanes).
    #[arg(long, hide = true)]
    lane: Option<usize>,
    /// When a lane started by another process must end (milliseconds
    /// since the Unix epoch): the first process's time limit.
    #[arg(long, hide = true)]
    lane_until: Option<u64>,
    /// Milliseconds the first lane runs alone before the others start.
    #[arg(long, hide = true, default_value_t = lanes::ALONE_FOR_MS)]
    lanes_after: u64,
    /// Approximate visited cubes with candidate invariants checked on the
    /// reachable states of an instance with this many processes (Cubicle's
    /// BRAB); 0 for plain backward search.
    #[arg(long, default_value_t = 2)]
    brab: usize,
    /// Explore pre-images in plain breadth-first order (by default those
    /// naming more processes than their successor wait, as in Cubicle).
    #[arg(long)]
    no_postpone: bool,
    /// Do not accelerate counter loops over processes (backward search).
    #[arg(long)]
    no_accelerate: bool,
    /// IC3/PDR: how quantified lemmas enter queries (instances over the
    /// query's index terms, or the solver's quantifier support).
    #[arg(long, value_enum, default_value_t = arrax::engine::pdr::lemma::Lemmas::Instances)]
    pdr_lemmas: arrax::engine::pdr::lemma::Lemmas,
    /// IC3/PDR: what the frames start with besides the facts known by
    /// construction: invariants solved from sampled executions, those and
    /// the candidate-invariant templates', or nothing.
    #[arg(long, value_enum, default_value_t = arrax::engine::pdr::Seeds::Solved)]
    pdr_seeds: arrax::engine::pdr::Seeds,
    /// IC3/PDR: the abstraction the search refines: none, Spacer's
    /// abstraction of the guards' array conditions (refined on spurious
    /// traces),
    /// or CTIGAR's domain of lemma literals (refined on spurious
    /// counterexamples to induction).
    #[arg(long, value_enum, default_value_t = arrax::engine::pdr::Abstracting::None)]
    pdr_abstraction: arrax::engine::pdr::Abstracting,
    /// Print search statistics, and progress on stderr about once a second
    /// (`-vv`: the search's steps; `-vvv`: everything; `RUST_LOG` overrides).
    #[arg(long, short, action = clap::ArgAction::Count)]
    verbose: u8,
    /// Memory limit in MB (default: three quarters of the machine's): the
    /// run ends UNKNOWN (memory), exit 3.
    #[arg(long, value_name = "MB")]
    memory: Option<u64>,
    /// Write the search graph in Graphviz DOT (backward nodes with their
    /// cubes and covering edges; the lazy abstraction tree).
    #[arg(long, value_name = "FILE")]
    dot: Option<PathBuf>,
    /// The property to check, as an SV-COMP property file: only
    /// `unreach-call` (`G ! call(reach_error())`) is supported.
    #[arg(long, value_name = "FILE")]
    property: Option<PathBuf>,
    /// The C data model (widths of `long` and pointers), over a task
    /// file's `data_model` (default ILP32).
    #[arg(long, value_enum)]
    data_model: Option<DataModelArg>,
    /// C programs: write an SV-COMP witness (YAML format 2.0) to this
    /// file: a violation witness for UNSAFE, a correctness witness for
    /// SAFE; none for UNKNOWN.
    #[arg(long, value_name = "FILE")]
    witness: Option<PathBuf>,
}

/// The C data models, as SV-COMP names them.
#[derive(Clone, Copy, ValueEnum)]
enum DataModelArg {
    /// 32-bit `int`, `long` and pointers.
    #[value(name = "ILP32", alias = "ilp32")]
    Ilp32,
    /// 32-bit `int`, 64-bit `long` and pointers.
    #[value(name = "LP64", alias = "lp64")]
    Lp64,
}

impl From<DataModelArg> for arrax::frontend::c::DataModel {
    fn from(m: DataModelArg) -> Self {
        match m {
            DataModelArg::Ilp32 => Self::Ilp32,
            DataModelArg::Lp64 => Self::Lp64,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum ItpArg {
    /// Projection, then projection with case splits (a short phase of its own).
    Auto,
    /// Projection of the pre-image onto shared symbols, generalised by unsat cores.
    Projection,
    /// Projection after case splits on relations between abstraction terms (`count ≤ n`).
    Cases,
    /// cvc5's interpolation (time-limited).
    Cvc5,
}

#[derive(Clone, Copy, ValueEnum)]
enum EmitArg {
    /// Horn clauses in SMT-LIB (CHC-COMP's format).
    Chc,
}

#[derive(Clone, Copy, ValueEnum)]
enum SearchArg {
    Bfs,
    Dfs,
}

#[derive(Clone, Copy, ValueEnum)]
enum SolverArg {
    Auto,
    Z3,
    Cvc5,
}

fn load(file: &Path) -> Result<frontend::Parsed, ExitCode> {
    load_until(file, frontend::Reading::default(), Style::Text).map(|(p, _)| p)
}

/// How a run's answer is printed: text, one JSON object, or CHC-COMP's
/// `sat`/`unsat`/`unknown`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Text,
    Json,
    Chc,
}

impl Style {
    fn of(args: &CheckArgs) -> Style {
        match (args.json, args.chc) {
            (true, _) => Style::Json,
            (false, true) => Style::Chc,
            _ => Style::Text,
        }
    }

    /// Prints an UNKNOWN answer given without the engines' result.
    fn unknown(self, file: &str, reason: &str, secs: f64) {
        match self {
            Style::Json => {
                let mut r = CheckReport::timed_out(file, secs);
                r.reason = Some(reason.into());
                println!("{}", r.to_json());
            }
            Style::Chc => println!("unknown\n; {reason}"),
            Style::Text => println!("UNKNOWN ({reason})"),
        }
    }
}

/// Reads a model, and for Horn clauses the clauses; a front end stopped
/// by the deadline answers UNKNOWN (exit 3, printed in `style`).
fn load_until(file: &Path, reading: frontend::Reading, style: Style) -> Result<(frontend::Parsed, Option<Horn>), ExitCode> {
    match frontend::parse_file_horn(file, reading) {
        Ok(p) => {
            for w in &p.0.warnings {
                eprintln!("{}: warning: {}", file.display(), w);
            }
            Ok(p)
        }
        Err(d) if d.timed_out => {
            style.unknown(&file.display().to_string(), "timeout", 0.0);
            Err(ExitCode::from(3))
        }
        Err(d) => {
            eprintln!("{}", d.render(&file.display().to_string()));
            Err(ExitCode::from(2))
        }
    }
}

/// Bytes of the heap that huge pages may back (see [`prepare_heap`]).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const HUGE_HEAP: usize = 30 << 20;

/// Lets transparent huge pages back the first [`HUGE_HEAP`] bytes of the
/// heap that every thread allocates from. A solver context's tables are
/// several megabytes; faulted in 4 KiB at a time they are most of a
/// small check's time (z3's context: about 4,700 page faults, 12–15 ms;
/// about 700 and 5–7 ms on huge pages). One arena for all threads (the
/// work runs on a thread of its own), blocks up to 32 MiB from the heap
/// rather than fresh mappings, and the advised range kept when freed.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn prepare_heap() {
    const HUGE_PAGE: usize = 2 << 20;
    // SAFETY: before any other thread starts; mallopt and madvise change
    // only how memory is obtained, the block is freed right after.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 128 << 20);
        let block = libc::malloc(HUGE_HEAP);
        if !block.is_null() {
            let start = (block as usize).next_multiple_of(HUGE_PAGE);
            let end = (block as usize + HUGE_HEAP) & !(HUGE_PAGE - 1);
            if end > start {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
            libc::free(block);
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn prepare_heap() {}

fn main() -> ExitCode {
    // a closed stdout (`arrax … | head -1`) ends the process quietly
    // instead of a panic on the broken pipe
    // SAFETY: restoring the default disposition of SIGPIPE before any
    // thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    prepare_heap();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    // deep inputs need more stack than the main thread has
    match driver::on_large_stack(move || run(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: cannot start the worker thread: {e}");
            ExitCode::from(2)
        }
    }
}

/// Runs one command.
fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Parse { file, emit: Some(EmitArg::Chc), .. } => emit_chc(&file),
        Command::Parse { file, lowered, emit: None } => match load(&file) {
            Ok(p) => {
                let is_c = matches!(frontend::Format::of_path(&file), Some(frontend::Format::C | frontend::Format::SvTask));
                if is_c && !lowered {
                    let s = &p.system;
                    let locations = s.enums.first().and_then(|e| match &e.values {
                        arrax::logic::EnumValues::Names(ns) => Some(ns.len()),
                        _ => None,
                    });
                    println!(
                        "{}: lowered to {} state variables, {} locations, {} transitions (print them with --lowered)",
                        file.display(),
                        s.vars.len(),
                        locations.unwrap_or(0),
                        s.transitions.len()
                    );
                } else {
                    print!("{}", frontend::canonical::print(&p.system));
                }
                ExitCode::SUCCESS
            }
            Err(c) => c,
        },
        Command::Check(args) => check(args),
        Command::Bench(args) => arrax::bench::run(&args),
        Command::Validate { file, witness, timeout, data_model } => validate(&file, &witness, timeout, data_model),
    }
}

/// `validate`: a violation witness replayed on the program.
fn validate(file: &Path, witness: &Path, timeout: Option<f64>, data_model: Option<DataModelArg>) -> ExitCode {
    use arrax::report::witness::validate as v;
    let deadline = timeout.filter(|t| t.is_finite() && *t > 0.0 && *t < 1e9).map(|t| std::time::Instant::now() + Duration::from_secs_f64(t));
    let reading = frontend::Reading { deadline, data_model: data_model.map(Into::into) };
    let (parsed, _) = match load_until(file, reading, Style::Text) {
        Ok(p) => p,
        Err(c) => return c,
    };
    let Some(map) = &parsed.source else {
        eprintln!("{}: validate: witnesses are validated for C programs only", file.display());
        return ExitCode::from(2);
    };
    let text = match frontend::read_text(witness) {
        Ok(t) => t,
        Err(d) => {
            eprintln!("{}", d.render(&witness.display().to_string()));
            return ExitCode::from(2);
        }
    };
    let w = match v::read(&text) {
        Ok(w) => w,
        Err(d) => {
            eprintln!("{}", d.render(&witness.display().to_string()));
            return ExitCode::from(2);
        }
    };
    match v::validate(&parsed.system, map, &w, deadline) {
        v::Outcome::Confirmed(p) => {
            println!("witness confirmed: {} steps, {} values followed, the error reached at line {}", p.steps, p.calls.len(), p.target.line);
            ExitCode::from(1)
        }
        v::Outcome::NotConfirmed(why) => {
            println!("witness not confirmed: {why}");
            ExitCode::from(3)
        }
    }
}

/// `parse --emit chc`: the system as Horn clauses.
fn emit_chc(file: &Path) -> ExitCode {
    let parsed = match load(file) {
        Ok(p) => p,
        Err(c) => return c,
    };
    let header = format!("{}: the system arrax checks, as Horn clauses (arrax parse --emit chc)", file.display());
    match chc::emit::smtlib(&parsed.system, &header) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("{}: cannot write as Horn clauses: {why}", file.display());
            ExitCode::from(2)
        }
    }
}

fn check(args: CheckArgs) -> ExitCode {
    if let Some(t) = args.timeout {
        if !(t.is_finite() && t > 0.0 && t < 1e9) {
            eprintln!("error: --timeout must be a positive number of seconds (below 10^9)");
            return ExitCode::from(2);
        }
    }
    let style = Style::of(&args);
    // the time limit covers reading the model too
    let mut deadline = args.timeout.map(|t| std::time::Instant::now() + Duration::from_secs_f64(t));
    if let Some(ms) = args.lane_until {
        // a lane ends with the time limit of the process that started it
        let left = (std::time::UNIX_EPOCH + Duration::from_millis(ms)).duration_since(std::time::SystemTime::now()).unwrap_or_default();
        let until = std::time::Instant::now() + left;
        deadline = Some(deadline.map_or(until, |d| d.min(until)));
    }
    if let Some(t) = args.timeout {
        hard_deadline(Duration::from_secs_f64(t), style, args.file.display().to_string());
    }
    let reading = frontend::Reading { deadline, data_model: args.data_model.map(Into::into) };
    let (parsed, horn) = match load_until(&args.file, reading, style) {
        Ok(p) => p,
        Err(c) => return c,
    };
    let sys = &parsed.system;
    let horn = match (args.chc, horn) {
        (true, Some(h)) => Some(h),
        (true, None) => match chc::emit::clauses(sys) {
            Ok(h) => Some(h),
            Err(why) => {
                eprintln!("{}: --chc: cannot write as Horn clauses: {why}", args.file.display());
                return ExitCode::from(2);
            }
        },
        (false, _) => None,
    };
    if let Err(why) = usage(&args, sys) {
        eprintln!("{why}");
        return ExitCode::from(2);
    }
    if args.witness.is_some() && parsed.source.is_none() {
        eprintln!("{}: --witness: witnesses are written for C programs (.c, .i, .yml tasks) only", args.file.display());
        return ExitCode::from(2);
    }
    init_logging(args.verbose);
    let mut opts = options(&args);
    // what reading the model left of the time limit
    opts.timeout = deadline.map(|d| d.saturating_duration_since(std::time::Instant::now()).max(Duration::from_millis(1)));
    on_interrupt(style, args.file.display().to_string());
    let writes_files = args.invariant.is_some() || args.obligations.is_some() || args.witness.is_some() || args.dot.is_some();
    let of = args.lane.map_or_else(|| lanes::count(args.lanes, args.engine == Choice::Auto, writes_files), |_| args.lanes.max(2));
    opts.lane = arrax::portfolio::Lane { index: args.lane.unwrap_or(0), of };
    watch_memory(args.memory.unwrap_or_else(default_memory_mb) / of as u64);
    let until = deadline.map(|d| std::time::SystemTime::now() + d.saturating_duration_since(std::time::Instant::now()));
    let started = (args.lane.is_none() && of > 1).then(|| lanes::start(of, until, Duration::from_millis(args.lanes_after)));
    let r = driver::check(sys, &opts);
    if let Some(started) = &started {
        if matches!(r.verdict, Verdict::Unknown(_)) {
            started.wait_undecided();
        }
        if !lanes::claim() {
            // another lane is printing its answer and ends the run
            loop {
                std::thread::park();
            }
        }
    }
    if let Some(h) = &horn {
        let (text, code) = report::chc::answer(sys, h, &r);
        print!("{text}");
        return ExitCode::from(code);
    }
    if args.svcomp {
        println!(
            "{}",
            match r.verdict {
                Verdict::Safe => "TRUE",
                Verdict::Unsafe => "FALSE",
                Verdict::Unknown(_) => "UNKNOWN",
            }
        );
    }
    if let Some(path) = &args.dot {
        match &r.graph {
            Some(g) => {
                if let Err(e) = std::fs::write(path, report::dot::graph(g)) {
                    eprintln!("{}: cannot write the search graph: {e}", path.display());
                }
            }
            None => eprintln!("note: the answering engine ({}) has no search graph to draw", r.engine),
        }
    }
    if let (Some(path), Some(map)) = (&args.witness, &parsed.source) {
        write_witness(path, sys, map, &r);
    }
    if args.json {
        println!("{}", CheckReport::of(&args.file.display().to_string(), sys, &r, args.no_certify).to_json());
    } else {
        print!("{}", report::text_in_source(sys, parsed.source.as_ref(), &r, args.verbose > 0, args.no_certify));
    }
    // The answer is out: end the process here, without tearing down the
    // solvers' contexts, the terms and the search (work nobody uses) —
    // `exit` would still run the thread-local destructors (the z3 context)
    // and the solver libraries' static destructors.
    exit_now(r.verdict.exit_code())
}

/// Writes the witness of a checked answer (a note on stderr when there is none).
fn write_witness(path: &Path, sys: &arrax::system::System, map: &arrax::frontend::c::source_map::SourceMap, r: &driver::CheckResult) {
    use arrax::report::witness;
    let text = witness::Program::of(map).and_then(|p| witness::of_result(sys, map, &p, r));
    match text {
        Ok(text) => {
            if let Err(e) = std::fs::write(path, text) {
                eprintln!("{}: cannot write the witness: {e}", path.display());
            }
        }
        Err(why) => eprintln!("note: no witness written to {}: {why}", path.display()),
    }
}

/// The most processes of BRAB's finite instance: beyond, explicit-state
/// exploration of an instance cannot finish in reasonable time and memory.
const MAX_BRAB: u64 = 6;

/// Usage errors of `check` on this system (exit code 2).
fn usage(args: &CheckArgs, sys: &arrax::system::System) -> Result<(), String> {
    if let Some(p) = &args.property {
        property(p)?;
    }
    driver::supported(sys).map_err(|why| format!("{}:1:1: {why}", args.file.display()))?;
    if let Some(t) = args.timeout {
        if !(t.is_finite() && t > 0.0 && t < 1e9) {
            return Err("error: --timeout must be a positive number of seconds (below 10^9)".into());
        }
    }
    let ranges = [
        ("--brab", args.brab as u64, 0, MAX_BRAB),
        ("--max-procs", args.max_procs as u64, 1, 64),
        ("--max-nodes", args.max_nodes.map_or(1, |n| n as u64), 1, u64::MAX),
        ("--max-steps", args.max_steps.unwrap_or(1), 1, u64::MAX),
        ("--memory", args.memory.unwrap_or(64), 64, u64::MAX),
    ];
    for (option, value, lo, hi) in ranges {
        if value < lo || value > hi {
            return Err(format!("error: {option} must be between {lo} and {hi} (got {value})"));
        }
    }
    for name in &args.abstract_terms {
        if !sys.vars.iter().map(|v| &v.term).chain(&sys.consts).any(|t| t.var_name() == Some(name)) {
            return Err(format!("--abstract {name}: no state variable or constant of that name"));
        }
    }
    let (sliced, _) = arrax::transform::slice::cone_of_influence(sys);
    arrax::engine::applicable(args.engine, &arrax::engine::Task::new(sys, &sliced)).map_err(|e| format!("error: {e}"))
}

/// The check's options from the command line.
fn options(args: &CheckArgs) -> CheckOptions {
    let settings = Settings {
        interpolation: match args.interpolation {
            ItpArg::Auto => None,
            ItpArg::Projection => Some(Method::Projection),
            ItpArg::Cases => Some(Method::Cases),
            ItpArg::Cvc5 => Some(Method::Cvc5),
        },
        abstract_terms: args.abstract_terms.clone(),
        max_steps: args.max_steps.unwrap_or(arrax::engine::DEFAULT_MAX_STEPS),
        seed: args.seed,
        order: match args.search {
            SearchArg::Bfs => Order::Bfs,
            SearchArg::Dfs => Order::Dfs,
        },
        max_procs: args.max_procs,
        backend: match args.solver {
            SolverArg::Auto => None,
            SolverArg::Z3 => Some(Backend::Z3),
            SolverArg::Cvc5 => Some(Backend::Cvc5),
        },
        brab: args.brab,
        postpone: !args.no_postpone,
        accelerate: !args.no_accelerate,
        pdr_lemmas: args.pdr_lemmas,
        pdr_seeds: args.pdr_seeds,
        pdr_abstraction: args.pdr_abstraction,
        graph: args.dot.is_some(),
    };
    CheckOptions {
        engine: args.engine,
        timeout: args.timeout.map(Duration::from_secs_f64),
        max_nodes: args.max_nodes,
        certify: !args.no_certify,
        invariant_out: args.invariant.clone(),
        obligations_dir: args.obligations.clone(),
        settings,
        lane: arrax::portfolio::Lane::ALONE,
    }
}

/// Ends the process at once: stdout flushed, then `_exit`, so that no exit
/// handler, thread-local or static destructor of the solver libraries runs
/// (from a watchdog thread, other threads may be inside a solver; after
/// the answer, tearing the solvers down is work nobody uses).
fn exit_now(code: i32) -> ! {
    let _ = std::io::Write::flush(&mut std::io::stdout());
    // SAFETY: _exit ends the process at once; nothing runs after it.
    unsafe { libc::_exit(code) }
}

/// A hard deadline: whatever reading or a search step does, a time limit
/// ends the run UNKNOWN with exit code 3 shortly after it expires.
fn hard_deadline(t: Duration, style: Style, file: String) {
    std::thread::spawn(move || {
        let wait = t.mul_f64(1.1) + Duration::from_secs(3);
        std::thread::sleep(wait);
        style.unknown(&file, "timeout", wait.as_secs_f64());
        exit_now(3);
    });
}

/// Checks that an SV-COMP property file asks for `unreach-call`, the one
/// property arrax decides; else `file:line:col: message`.
fn property(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read the property file: {e}", path.display()))?;
    let wanted = |l: &str| {
        let l: String = l.chars().filter(|c| !c.is_whitespace()).collect();
        l.contains("G!call(reach_error())") || l.contains("G!call(__VERIFIER_error())")
    };
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if !lines.is_empty() && lines.iter().all(|l| wanted(l)) {
        return Ok(());
    }
    let (n, line) = text.lines().enumerate().find(|(_, l)| !l.trim().is_empty() && !wanted(l)).unwrap_or((0, ""));
    let col = line.len() - line.trim_start().len() + 1;
    Err(format!(
        "{}:{}:{col}: unsupported property `{}`: arrax checks only unreach-call (CHECK( init(main()), LTL(G ! call(reach_error())) ))",
        path.display(),
        n + 1,
        line.trim()
    ))
}

/// Progress and debugging lines on stderr: `-v` progress (info), `-vv`
/// the search's steps (debug), `-vvv` everything (trace); `RUST_LOG`
/// (e.g. `RUST_LOG=arrax=debug`) overrides.
fn init_logging(verbose: u8) {
    let level = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(format!("arrax={level}")));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .with_timer(tracing_subscriber::fmt::time::uptime())
        .try_init();
}

/// SIGINT and SIGTERM ask the engines to stop: the run ends with its
/// statistics and `UNKNOWN (interrupted)`, exit code 3. If it has not
/// ended 5 s later (a long solver call), it is ended at once, the same way
/// but without statistics; a second signal ends it at once too.
fn on_interrupt(style: Style, file: String) {
    extern "C" fn stop(_: libc::c_int) {
        if arrax::engine::interrupted() {
            // SAFETY: _exit is async-signal-safe.
            unsafe { libc::_exit(3) }
        }
        arrax::engine::interrupt();
    }
    // SAFETY: the handler only makes an atomic store or calls _exit, both
    // async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, stop as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, stop as *const () as libc::sighandler_t);
    }
    std::thread::spawn(move || {
        let why = loop {
            if let Some(why) = arrax::engine::stopped() {
                break why;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        std::thread::sleep(Duration::from_secs(5));
        style.unknown(&file, why.reason(), 0.0);
        exit_now(3);
    });
}

/// The memory limit: the process's resident memory is watched every
/// 100 ms; above `mb` megabytes the engines are asked to stop and the run
/// answers `UNKNOWN (memory)` (within 5 s, see [`on_interrupt`]).
fn watch_memory(mb: u64) {
    let page = u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
    std::thread::spawn(move || loop {
        let resident = std::fs::read_to_string("/proc/self/statm").ok().and_then(|s| s.split_whitespace().nth(1).and_then(|r| r.parse::<u64>().ok()));
        match resident {
            Some(pages) if pages.saturating_mul(page) > mb.saturating_mul(1 << 20) => {
                arrax::engine::stop(arrax::engine::Stop::Memory);
                return;
            }
            None => return,
            _ => std::thread::sleep(Duration::from_millis(100)),
        }
    });
}

/// The default memory limit: three quarters of the machine's memory.
fn default_memory_mb() -> u64 {
    let total_kb = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| m.lines().find(|l| l.starts_with("MemTotal:")).and_then(|l| l.split_whitespace().nth(1).and_then(|k| k.parse::<u64>().ok())));
    total_kb.map_or(8192, |kb| kb / 1024 * 3 / 4)
}
