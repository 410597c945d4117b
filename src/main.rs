//! The `arrax` command line: `parse`, `check`, `bench`.

use arrax::driver::{self, CheckOptions, Verdict};
use arrax::engine::bwd::Order;
use arrax::engine::{Choice, Settings};
use arrax::frontend;
use arrax::reach::interpolate::Method;
use arrax::report::{self, json::CheckReport};
use arrax::smt::Backend;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

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
    },
    /// Decide whether the model's unsafe states are reachable.
    Check(CheckArgs),
    /// Check many models (each in its own process, with time and memory
    /// limits) and compare with expected verdicts and reference times.
    Bench(arrax::bench::BenchArgs),
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
    #[arg(long)]
    json: bool,
    /// Write the invariant (SAFE) as SMT-LIB to this file.
    #[arg(long)]
    invariant: Option<PathBuf>,
    /// Write the proof obligations (SAFE) as SMT-LIB files into this folder.
    #[arg(long)]
    obligations: Option<PathBuf>,
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
    /// IC3/PDR: the abstraction refined on spurious counterexamples.
    #[arg(long, value_enum, default_value_t = arrax::engine::pdr::abstraction::Abstraction::None)]
    pdr_abstraction: arrax::engine::pdr::abstraction::Abstraction,
    /// Print search statistics (and IC3/PDR's progress per frame on stderr).
    #[arg(long, short)]
    verbose: bool,
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
    match frontend::parse_file(file) {
        Ok(p) => {
            for w in &p.warnings {
                eprintln!("{}: warning: {}", file.display(), w);
            }
            Ok(p)
        }
        Err(d) => {
            eprintln!("{}", d.render(&file.display().to_string()));
            Err(ExitCode::from(2))
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        Command::Parse { file, lowered } => match load(&file) {
            Ok(p) => {
                let is_c = matches!(frontend::Format::of_path(&file), frontend::Format::C | frontend::Format::SvTask);
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
    }
}

fn check(args: CheckArgs) -> ExitCode {
    let parsed = match load(&args.file) {
        Ok(p) => p,
        Err(c) => return c,
    };
    let sys = &parsed.system;
    if let Err(why) = usage(&args, sys) {
        eprintln!("{why}");
        return ExitCode::from(2);
    }
    let opts = options(&args);
    if let Some(t) = opts.timeout {
        hard_deadline(t, args.json, args.file.display().to_string());
    }
    let r = driver::check(sys, &opts);
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
    if args.json {
        println!("{}", CheckReport::of(&args.file.display().to_string(), sys, &r, args.no_certify).to_json());
    } else {
        print!("{}", report::text(sys, &r, args.verbose, args.no_certify));
    }
    ExitCode::from(r.verdict.exit_code() as u8)
}

/// Usage errors of `check` on this system (exit code 2).
fn usage(args: &CheckArgs, sys: &arrax::system::System) -> Result<(), String> {
    driver::supported(sys).map_err(|why| format!("{}:1:1: {why}", args.file.display()))?;
    if let Some(t) = args.timeout {
        if !(t.is_finite() && t > 0.0 && t < 1e9) {
            return Err("error: --timeout must be a positive number of seconds (below 10^9)".into());
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
        pdr_abstraction: args.pdr_abstraction,
        verbose: args.verbose,
    };
    CheckOptions {
        engine: args.engine,
        timeout: args.timeout.map(Duration::from_secs_f64),
        max_nodes: args.max_nodes,
        certify: !args.no_certify,
        invariant_out: args.invariant.clone(),
        obligations_dir: args.obligations.clone(),
        settings,
    }
}

/// Whatever a search step does, a time limit ends the run UNKNOWN with
/// exit code 3 shortly after it expires.
fn hard_deadline(t: Duration, json: bool, file: String) {
    std::thread::spawn(move || {
        let wait = t.mul_f64(1.1) + Duration::from_secs(3);
        std::thread::sleep(wait);
        if json {
            println!("{}", CheckReport::timed_out(&file, wait.as_secs_f64()).to_json());
        } else {
            println!("UNKNOWN (timeout)");
        }
        std::process::exit(3);
    });
}
