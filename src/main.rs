//! The `arrax` command line: `parse`, `check`, `bench`.

use arrax::driver::{self, Certification, CheckOptions, Engine, Verdict};
use arrax::engine::bwd::Order;
use arrax::frontend;
use arrax::report;
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
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    engine: EngineArg,
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
    /// Print search statistics.
    #[arg(long, short)]
    verbose: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum EngineArg {
    /// Chosen per input (backward reachability for protocols, lazy
    /// abstraction for integer indices); the choice is printed.
    Auto,
    /// Backward reachability (MCMT/Cubicle).
    Bwd,
    /// Lazy abstraction with interpolants and term abstraction (SAFARI).
    Lazy,
    /// Candidate invariants from templates, tested on executions and kept
    /// while inductive (Houdini; programs with integer indices).
    Houdini,
    /// Forward concrete execution with seeded value choices (programs with
    /// integer indices; finds errors, never proves safety).
    Run,
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
    load_until(file, None, false)
}

/// Reads a model; a front end stopped by the deadline answers UNKNOWN
/// (exit 3; one JSON object with `json`).
fn load_until(file: &Path, deadline: Option<std::time::Instant>, json: bool) -> Result<frontend::Parsed, ExitCode> {
    match frontend::parse_file_until(file, deadline) {
        Ok(p) => {
            for w in &p.warnings {
                eprintln!("{}: warning: {}", file.display(), w);
            }
            Ok(p)
        }
        Err(d) if d.timed_out => {
            if json {
                let file = report::json_str(&file.display().to_string());
                println!("{{\"file\":{file},\"verdict\":\"UNKNOWN\",\"reason\":\"timeout\",\"certified\":false}}");
            } else {
                println!("UNKNOWN (timeout)");
            }
            Err(ExitCode::from(3))
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

/// A hard deadline: whatever reading or a search step does, a time limit
/// ends the run UNKNOWN with exit code 3 shortly after it expires.
fn hard_deadline(t: Duration, json: bool, file: String) {
    std::thread::spawn(move || {
        let wait = t.mul_f64(1.1) + Duration::from_secs(3);
        std::thread::sleep(wait);
        if json {
            println!(
                "{{\"file\":{},\"verdict\":\"UNKNOWN\",\"reason\":\"timeout\",\"certified\":false,\"time\":{:.4}}}",
                report::json_str(&file),
                wait.as_secs_f64()
            );
        } else {
            println!("UNKNOWN (timeout)");
        }
        std::process::exit(3);
    });
}

fn check(args: CheckArgs) -> ExitCode {
    if let Some(t) = args.timeout {
        if !(t.is_finite() && t > 0.0) {
            eprintln!("error: --timeout must be a positive number of seconds");
            return ExitCode::from(2);
        }
    }
    // the time limit covers reading the model too
    let deadline = args.timeout.map(|t| std::time::Instant::now() + Duration::from_secs_f64(t));
    if let Some(t) = args.timeout {
        hard_deadline(Duration::from_secs_f64(t), args.json, args.file.display().to_string());
    }
    let parsed = match load_until(&args.file, deadline, args.json) {
        Ok(p) => p,
        Err(c) => return c,
    };
    let sys = &parsed.system;
    if let Err(why) = driver::supported(sys) {
        eprintln!("{}:1:1: {why}", args.file.display());
        return ExitCode::from(2);
    }
    for name in &args.abstract_terms {
        if !sys.vars.iter().map(|v| &v.term).chain(&sys.consts).any(|t| t.var_name() == Some(name)) {
            eprintln!("--abstract {name}: no state variable or constant of that name");
            return ExitCode::from(2);
        }
    }
    let opts = CheckOptions {
        engine: match args.engine {
            EngineArg::Auto => Engine::Auto,
            EngineArg::Bwd => Engine::Bwd,
            EngineArg::Lazy => Engine::Lazy,
            EngineArg::Houdini => Engine::Houdini,
            EngineArg::Run => Engine::Run,
        },
        interpolation: match args.interpolation {
            ItpArg::Auto => None,
            ItpArg::Projection => Some(arrax::interpolate::Method::Projection),
            ItpArg::Cases => Some(arrax::interpolate::Method::Cases),
            ItpArg::Cvc5 => Some(arrax::interpolate::Method::Cvc5),
        },
        abstract_terms: args.abstract_terms.clone(),
        max_steps: args.max_steps,
        seed: args.seed,
        order: match args.search {
            SearchArg::Bfs => Order::Bfs,
            SearchArg::Dfs => Order::Dfs,
        },
        // what reading the model left of the time limit
        timeout: deadline.map(|d| d.saturating_duration_since(std::time::Instant::now()).max(Duration::from_millis(1))),
        max_nodes: args.max_nodes,
        max_procs: args.max_procs,
        backend: match args.solver {
            SolverArg::Auto => None,
            SolverArg::Z3 => Some(Backend::Z3),
            SolverArg::Cvc5 => Some(Backend::Cvc5),
        },
        certify: !args.no_certify,
        invariant_out: args.invariant.clone(),
        obligations_dir: args.obligations.clone(),
        brab: args.brab,
        postpone: !args.no_postpone,
        accelerate: !args.no_accelerate,
    };
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
    let verdict_line = match (&r.verdict, &r.certification) {
        (Verdict::Safe, Certification::Uncertified(why)) => format!("SAFE (uncertified: {why})"),
        (Verdict::Safe, _) => "SAFE".to_string(),
        (Verdict::Unsafe, Certification::Certified(_)) if r.replayed.is_some() => "UNSAFE (replayed)".to_string(),
        (Verdict::Unsafe, _) => "UNSAFE".to_string(),
        (Verdict::Unknown(why), _) => format!("UNKNOWN ({why})"),
    };
    let cert_text = match &r.certification {
        Certification::Certified(how) => format!("certified: {how}"),
        Certification::Uncertified(why) => format!("uncertified: {why}"),
        Certification::Skipped if args.no_certify => "not certified (--no-certify)".to_string(),
        Certification::Skipped => "nothing to certify".to_string(),
    };
    if args.json {
        let mut o = String::from("{");
        o.push_str(&format!("\"file\":{},", report::json_str(&args.file.display().to_string())));
        let v = match &r.verdict {
            Verdict::Safe => "SAFE",
            Verdict::Unsafe => "UNSAFE",
            Verdict::Unknown(_) => "UNKNOWN",
        };
        o.push_str(&format!("\"verdict\":\"{v}\","));
        if let Verdict::Unknown(why) = &r.verdict {
            o.push_str(&format!("\"reason\":{},", report::json_str(why)));
        }
        o.push_str(&format!("\"certified\":{},", matches!(r.certification, Certification::Certified(_))));
        o.push_str(&format!("\"certification\":{},", report::json_str(&cert_text)));
        let engine = r.engine;
        o.push_str(&format!("\"engine\":\"{engine}\",\"solver\":\"{}\",", r.solver));
        o.push_str(&format!("\"time\":{:.4},\"certify_time\":{:.4},", r.time.as_secs_f64(), r.certify_time.as_secs_f64()));
        o.push_str(&format!("\"obligations\":{},", r.obligations));
        o.push_str(&format!("\"stats\":{},", report::stats_json(&r.stats)));
        if let Some(p) = &r.proof {
            let cl: Vec<String> = p.invariant.iter().map(|c| report::json_str(&report::clause(c))).collect();
            o.push_str(&format!("\"invariant\":[{}],", cl.join(",")));
        }
        if let Some(t) = &r.trace {
            let steps: Vec<String> = t
                .steps
                .iter()
                .map(|(ti, ps)| {
                    let ps: Vec<String> = ps.iter().map(|p| (p + 1).to_string()).collect();
                    format!("{{\"transition\":{},\"procs\":[{}]}}", report::json_str(&sys.transitions[*ti].name), ps.join(","))
                })
                .collect();
            o.push_str(&format!("\"trace\":{{\"procs\":{},\"steps\":[{}]}},", t.procs, steps.join(",")));
        }
        if let Some(ex) = &r.execution {
            o.push_str(&format!("\"trace\":{},", report::execution_json(sys, ex, r.replayed.as_ref())));
        }
        let notes: Vec<String> = r.notes.iter().map(|n| report::json_str(n)).collect();
        o.push_str(&format!("\"notes\":[{}]", notes.join(",")));
        o.push('}');
        println!("{o}");
    } else {
        for n in &r.notes {
            println!("note: {n}");
        }
        if let Some(p) = &r.proof {
            println!("Inductive invariant ({} clauses):", p.invariant.len());
            for c in &p.invariant {
                println!("  {}", report::clause(c));
            }
        }
        if let Some(t) = &r.trace {
            print!("{}", report::trace(sys, t));
        }
        if let Some(ex) = &r.execution {
            print!("{}", report::execution(sys, ex, r.replayed.as_ref()));
        }
        if args.verbose || r.trace.is_none() && r.proof.is_none() && r.execution.is_none() && r.engine != "run" {
            println!("statistics: {}", report::stats(&r.stats));
        }
        println!("time: {:.3}s (checking the answer: {:.3}s)", r.time.as_secs_f64(), r.certify_time.as_secs_f64());
        println!("{cert_text}");
        println!("{verdict_line}");
    }
    ExitCode::from(r.verdict.exit_code() as u8)
}
