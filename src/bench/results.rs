//! A benchmark's results: how each run counts, the totals, and the
//! table, CSV and JSON that show them (CSV and JSON through typed records).

use super::child::{Failure, Run};
use super::manifest::Answer;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// Times below this count as this much in ratios, so that models solved
/// instantly by both tools do not dominate the comparison.
pub const MIN_RATIO_TIME: f64 = 0.01;

/// How a run counts in the summary.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// The expected verdict.
    Correct,
    /// The opposite of the expected verdict.
    Wrong,
    /// UNKNOWN.
    Unknown,
    /// Decided, but nothing (or UNKNOWN) was expected.
    Unchecked,
    /// No answer (a crash, a kill, an input error).
    Error,
}

impl Class {
    /// The class's name in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Class::Correct => "correct",
            Class::Wrong => "wrong",
            Class::Unknown => "unknown",
            Class::Unchecked => "unchecked",
            Class::Error => "error",
        }
    }
}

impl Run {
    /// How the run counts.
    pub fn class(&self) -> Class {
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
    pub fn got(&self) -> &'static str {
        match &self.outcome {
            Ok(a) => a.verdict.as_str(),
            Err((f, _)) => f.label(),
        }
    }

    /// The `status` column.
    pub fn status(&self) -> String {
        match (&self.outcome, self.class()) {
            (Err((f, why)), _) => format!("{}: {why}", f.label()),
            (Ok(_), Class::Wrong) => "WRONG".to_string(),
            (Ok(a), Class::Unknown) => format!("unknown: {}", a.report.reason.as_deref().unwrap_or("no reason given")),
            (Ok(_), Class::Unchecked) => "no expectation".to_string(),
            (Ok(_), _) => "ok".to_string(),
        }
    }

    /// The whole process's time (start-up and certification included)
    /// over reference time, for decided runs with a reference.
    pub fn ratio(&self) -> Option<f64> {
        self.outcome.as_ref().ok().filter(|a| a.verdict != Answer::Unknown)?;
        Some(self.wall.max(MIN_RATIO_TIME) / self.task.ref_time?.max(MIN_RATIO_TIME))
    }

    /// Whether the child crashed.
    pub fn is_crash(&self) -> bool {
        matches!(self.outcome, Err((Failure::Crash, _)))
    }
}

/// The median and the geometric mean of some ratios (none of an empty list).
pub fn median_geomean(mut ratios: Vec<f64>) -> (Option<f64>, Option<f64>) {
    ratios.sort_by(f64::total_cmp);
    let n = ratios.len();
    let median = (n > 0).then(|| if n % 2 == 1 { ratios[n / 2] } else { (ratios[n / 2 - 1] + ratios[n / 2]) / 2.0 });
    let geomean = (n > 0).then(|| (ratios.iter().map(|r| r.ln()).sum::<f64>() / n as f64).exp());
    (median, geomean)
}

/// Totals over all runs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Summary {
    /// Runs in all.
    pub total: usize,
    /// Runs with the expected verdict.
    pub correct: usize,
    /// Runs with the opposite verdict.
    pub wrong: usize,
    /// Runs answering UNKNOWN.
    pub unknown: usize,
    /// Decided runs without an expectation.
    pub unchecked: usize,
    /// Runs without an answer.
    pub errors: usize,
    /// Runs that crashed.
    pub crashes: usize,
    /// Decided runs with a reference time.
    pub ratios: usize,
    /// The median time ratio.
    pub median_ratio: Option<f64>,
    /// The geometric mean of the time ratios.
    pub geomean_ratio: Option<f64>,
    /// Seconds of the whole benchmark.
    #[serde(rename = "wall_time")]
    pub wall: f64,
}

impl Summary {
    /// The totals of the runs (`wall`: seconds of the whole benchmark).
    pub fn of(runs: &[Run], wall: f64) -> Summary {
        let count = |c: Class| runs.iter().filter(|r| r.class() == c).count();
        let ratios: Vec<f64> = runs.iter().filter_map(Run::ratio).collect();
        let n = ratios.len();
        let (median_ratio, geomean_ratio) = median_geomean(ratios);
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

    /// Whether an answer was wrong or a run crashed.
    pub fn failed(&self) -> bool {
        self.wrong > 0 || self.crashes > 0
    }

    /// The totals in words (wrong and crashed runs named first).
    pub fn text(&self, runs: &[Run]) -> String {
        let mut o = String::new();
        for r in runs.iter().filter(|r| r.class() == Class::Wrong || r.is_crash()) {
            let expected = r.task.expected.map_or("-", Answer::as_str);
            let _ = writeln!(o, "{}: {} (expected {expected}, got {})", if r.is_crash() { "CRASH" } else { "WRONG" }, r.task.path.display(), r.got());
        }
        let mut parts = vec![format!("{} correct", self.correct)];
        parts.push(if self.wrong > 0 { format!("{} WRONG", self.wrong) } else { "0 wrong".to_string() });
        parts.push(format!("{} unknown", self.unknown));
        let crashes = if self.crashes > 0 { format!(" ({} CRASH)", self.crashes) } else { String::new() };
        parts.push(format!("{} error{}{crashes}", self.errors, if self.errors == 1 { "" } else { "s" }));
        if self.unchecked > 0 {
            parts.push(format!("{} without expectation", self.unchecked));
        }
        let _ = writeln!(o, "{} model{}: {}", self.total, if self.total == 1 { "" } else { "s" }, parts.join(", "));
        if let (Some(m), Some(g)) = (self.median_ratio, self.geomean_ratio) {
            let _ = writeln!(
                o,
                "time / reference time over {} decided model{}: median {m:.2}, geometric mean {g:.2}",
                self.ratios,
                if self.ratios == 1 { "" } else { "s" }
            );
        }
        let repeated = runs.iter().filter(|r| r.checks > 1).count();
        if repeated > 0 {
            let _ = writeln!(o, "{repeated} model{} decided in under a second: the median of several checks", if repeated == 1 { "" } else { "s" });
        }
        let _ = writeln!(o, "wall time: {:.1} s", self.wall);
        o
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
            } else if a.report.certified {
                "yes"
            } else {
                "no"
            }
        })
        .to_string(),
        a.map_or_else(|| "-".to_string(), |_| format!("{:.3}", r.wall)),
        opt(a.map(|a| a.report.stats.nodes)),
        opt(a.map(|a| a.report.stats.solver_calls)),
        opt(r.task.ref_time.map(|t| format!("{t:.3}"))),
        opt(r.ratio().map(|x| format!("{x:.2}"))),
        r.status(),
    ]
}

/// The runs as an aligned table.
pub fn table(runs: &[Run]) -> String {
    const HEAD: [&str; 10] = ["file", "expected", "got", "certified", "time (s)", "nodes", "solver calls", "ref (s)", "ratio", "status"];
    const RIGHT: [bool; 10] = [false, false, false, false, true, true, true, true, true, false];
    let with_ref = runs.iter().any(|r| r.task.ref_time.is_some());
    let shown: Vec<usize> = (0..10).filter(|&c| with_ref || !(c == 7 || c == 8)).collect();
    let rows: Vec<Vec<String>> = runs.iter().map(|r| cells(r).to_vec()).collect();
    aligned(&HEAD, &RIGHT, &rows, &shown)
}

/// Rows under a header as an aligned table: the `shown` columns, those
/// marked in `right` aligned right.
pub fn aligned(head: &[&str], right: &[bool], rows: &[Vec<String>], shown: &[usize]) -> String {
    let width = |c: usize| rows.iter().map(|r| r[c].chars().count()).chain([head[c].chars().count()]).max().unwrap_or(0);
    let widths: Vec<usize> = (0..head.len()).map(width).collect();
    let line = |cells: &[&str]| {
        let mut l = String::new();
        for (k, &c) in shown.iter().enumerate() {
            let last = k + 1 == shown.len();
            let text = cells[c];
            let pad = widths[c].saturating_sub(text.chars().count());
            if right[c] {
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
    let mut out = line(head);
    for r in rows {
        out.push_str(&line(&r.iter().map(String::as_str).collect::<Vec<_>>()));
    }
    out
}

/// One run as CSV and JSON show it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunRecord {
    /// The model.
    pub file: String,
    /// The expected verdict.
    pub expected: Option<String>,
    /// The verdict, or the failure.
    pub got: String,
    /// `yes`, `no`, or nothing (undecided or failed).
    pub certified: Option<String>,
    /// Seconds of the check as it reported them.
    pub time: Option<f64>,
    /// Seconds spent checking the answer.
    pub certify_time: Option<f64>,
    /// Seconds of the whole child process.
    pub wall_time: f64,
    /// How many checks of the model the run stands for (the run of median
    /// wall time among them; see `arrax bench --runs`).
    pub checks: usize,
    /// Search nodes.
    pub nodes: Option<u64>,
    /// Solver calls.
    pub solver_calls: Option<u64>,
    /// The reference time.
    pub ref_time: Option<f64>,
    /// Wall time over reference time.
    pub ratio: Option<f64>,
    /// `ok`, `WRONG`, `unknown: …`, or the failure.
    pub status: String,
    /// How the run counts: `correct`, `wrong`, `unknown`, `unchecked`, `error`.
    pub class: String,
}

impl RunRecord {
    /// The record of a run.
    pub fn of(r: &Run) -> RunRecord {
        let a = r.outcome.as_ref().ok();
        let c = cells(r);
        RunRecord {
            file: c[0].clone(),
            expected: r.task.expected.map(|e| e.as_str().to_string()),
            got: r.got().to_string(),
            certified: (c[3] != "-").then(|| c[3].clone()),
            time: a.map(|a| a.report.time),
            certify_time: a.map(|a| a.report.certify_time),
            wall_time: r.wall,
            checks: r.checks,
            nodes: a.map(|a| a.report.stats.nodes),
            solver_calls: a.map(|a| a.report.stats.solver_calls),
            ref_time: r.task.ref_time,
            ratio: r.ratio(),
            status: r.status(),
            class: r.class().name().to_string(),
        }
    }
}

/// The runs as CSV (a header, then a row per run).
pub fn csv(runs: &[Run]) -> String {
    let mut w = csv::WriterBuilder::new().from_writer(vec![]);
    #[derive(Serialize)]
    struct Row<'a> {
        file: &'a str,
        expected: &'a Option<String>,
        got: &'a str,
        certified: &'a Option<String>,
        time: Option<String>,
        certify_time: Option<String>,
        wall_time: String,
        checks: usize,
        nodes: Option<u64>,
        solver_calls: Option<u64>,
        ref_time: Option<f64>,
        ratio: Option<String>,
        status: &'a str,
    }
    let four = |x: Option<f64>| x.map(|x| format!("{x:.4}"));
    for r in runs.iter().map(RunRecord::of) {
        let row = Row {
            file: &r.file,
            expected: &r.expected,
            got: &r.got,
            certified: &r.certified,
            time: four(r.time),
            certify_time: four(r.certify_time),
            wall_time: format!("{:.4}", r.wall_time),
            checks: r.checks,
            nodes: r.nodes,
            solver_calls: r.solver_calls,
            ref_time: r.ref_time,
            ratio: four(r.ratio),
            status: &r.status,
        };
        w.serialize(row).expect("CSV into memory");
    }
    String::from_utf8(w.into_inner().expect("CSV into memory")).expect("CSV of strings")
}

/// The whole benchmark as JSON.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchReport {
    /// The report's shape ([`crate::report::json::SCHEMA`]).
    pub schema: u32,
    /// The tool that wrote it.
    pub tool: String,
    /// Every run.
    pub runs: Vec<RunRecord>,
    /// The totals.
    pub summary: Summary,
}

/// The runs and their totals as one JSON object.
pub fn json(runs: &[Run], summary: &Summary) -> String {
    let report = BenchReport {
        schema: crate::report::json::SCHEMA,
        tool: crate::report::json::tool(),
        runs: runs.iter().map(RunRecord::of).collect(),
        summary: summary.clone(),
    };
    serde_json::to_string_pretty(&report).expect("plain data") + "\n"
}
