//! `arrax bench`: the manifest parser, and the built binary on a small
//! folder of the project's models with a manifest.

use arrax::bench::{parse_manifest, Answer, ManifestEntry};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[test]
fn manifest_columns_are_found_by_name() {
    let text = "# comment before the header\n\
                \n\
                Notes\tFILE\tref_time\tExpected\n\
                a\tp/one.mcmt\t1.5\tSAFE\n\
                b\ttwo.c\tn/a\tfalse\n\
                c\tthree.c\t\ttrue\n\
                d\tfour.in\t0.25\tunknown\n\
                e\tfive.in\t2\t-\n";
    let m = parse_manifest(text).unwrap();
    let e = |file: &str, expected, ref_time| ManifestEntry { file: PathBuf::from(file), expected, ref_time };
    assert_eq!(
        m,
        vec![
            e("p/one.mcmt", Some(Answer::Safe), Some(1.5)),
            e("two.c", Some(Answer::Unsafe), None),
            e("three.c", Some(Answer::Safe), None),
            e("four.in", Some(Answer::Unknown), Some(0.25)),
            e("five.in", None, Some(2.0)),
        ]
    );
}

#[test]
fn manifest_alternative_column_names() {
    let m = parse_manifest("file\tverdict\tcubicle_time\nx.cub\tfalse(unreach-call)\t0.5\ny.cub\tUnSafe\t\n").unwrap();
    assert_eq!(m[0].expected, Some(Answer::Unsafe));
    assert_eq!(m[0].ref_time, Some(0.5));
    assert_eq!(m[1].expected, Some(Answer::Unsafe));
    assert_eq!(m[1].ref_time, None);
    let m = parse_manifest("file\texpected_verdict\tbest_time\nx\tSAFE\t3\n").unwrap();
    assert_eq!((m[0].expected, m[0].ref_time), (Some(Answer::Safe), Some(3.0)));
    // Without an expectation or a time column, both are absent.
    let m = parse_manifest("file\tauthor\nx.in\tme\n").unwrap();
    assert_eq!((m[0].expected, m[0].ref_time), (None, None));
}

#[test]
fn manifest_errors() {
    assert!(parse_manifest("").is_err());
    assert!(parse_manifest("name\texpected\nx\tSAFE\n").is_err(), "no file column");
    let e = parse_manifest("file\texpected\nx\tSAFE\ny\tmaybe\n").unwrap_err();
    assert!(e.contains("line 3") && e.contains("maybe"), "{e}");
}

/// A fresh folder holding copies of `mutex.mcmt` (SAFE) and
/// `mutex_buggy.mcmt` (UNSAFE) and the given manifest.
fn folder(name: &str, manifest: Option<&str>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arrax-bench-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    for m in ["mutex.mcmt", "mutex_buggy.mcmt"] {
        std::fs::copy(models.join(m), dir.join(m)).unwrap();
    }
    if let Some(text) = manifest {
        std::fs::write(dir.join("MANIFEST.tsv"), text).unwrap();
    }
    dir
}

fn bench(args: &[&str]) -> (Output, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_arrax")).arg("bench").args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stdout, stderr)
}

/// The table row of a model, split into cells.
fn row<'a>(table: &'a str, model: &str) -> Vec<&'a str> {
    let line = table.lines().find(|l| l.contains(&format!("{model} "))).unwrap_or_else(|| panic!("no row for {model} in\n{table}"));
    line.split_whitespace().collect()
}

#[test]
fn bench_folder_with_manifest() {
    let dir = folder("ok", Some("file\texpected\tnote\tref_time\nmutex.mcmt\tSAFE\tfine\t0.5\nmutex_buggy.mcmt\tfalse\tbug\tn/a\n"));
    let d = dir.to_str().unwrap();
    let (out, stdout, stderr) = bench(&[d, "--timeout", "60", "--jobs", "2"]);
    assert_eq!(out.status.code(), Some(0), "stdout:\n{stdout}\nstderr:\n{stderr}");
    let head: Vec<&str> = stdout.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(head, ["file", "expected", "got", "certified", "time", "(s)", "nodes", "solver", "calls", "ref", "(s)", "ratio", "status"]);
    let safe = row(&stdout, "mutex.mcmt");
    assert_eq!(&safe[1..4], ["SAFE", "SAFE", "yes"], "{stdout}");
    assert!(safe[4].parse::<f64>().is_ok() && safe[5].parse::<u64>().is_ok() && safe[6].parse::<u64>().is_ok(), "{stdout}");
    assert_eq!(safe[7], "0.500");
    assert!(safe[8].parse::<f64>().is_ok_and(|r| r > 0.0), "{stdout}");
    assert_eq!(safe[9], "ok");
    let bug = row(&stdout, "mutex_buggy.mcmt");
    assert_eq!(&bug[1..4], ["UNSAFE", "UNSAFE", "yes"], "{stdout}");
    assert_eq!(&bug[7..], ["-", "-", "ok"], "{stdout}");
    assert!(stdout.contains("2 models: 2 correct, 0 wrong, 0 unknown, 0 errors"), "{stdout}");
    assert!(stdout.contains("over 1 decided model: median"), "{stdout}");
    assert!(!stdout.contains("WRONG") && !stdout.contains("CRASH"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_reports_wrong_and_missing() {
    // The manifest sits outside the folder and expects the wrong verdict for
    // the buggy mutex; it also lists a model that does not exist.
    let dir = folder("wrong", None);
    let manifest = dir.with_extension("tsv");
    std::fs::write(&manifest, "file\texpected\nmutex.mcmt\tUNSAFE\nmutex_buggy.mcmt\tUNSAFE\nghost.mcmt\tSAFE\n").unwrap();
    let (out, stdout, stderr) = bench(&[dir.to_str().unwrap(), "--manifest", manifest.to_str().unwrap(), "--csv"]);
    assert_eq!(out.status.code(), Some(1), "stdout:\n{stdout}\nstderr:\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "file,expected,got,certified,time,certify_time,wall_time,checks,nodes,solver_calls,ref_time,ratio,status");
    assert_eq!(lines.len(), 4, "{stdout}");
    let cells = |i: usize| lines[i].split(',').collect::<Vec<_>>();
    assert!(cells(1)[0].ends_with("mutex.mcmt"));
    assert_eq!((cells(1)[1], cells(1)[2], cells(1)[12]), ("UNSAFE", "SAFE", "WRONG"), "{stdout}");
    assert!(cells(2)[0].ends_with("mutex_buggy.mcmt"));
    assert_eq!((cells(2)[2], cells(2)[3], cells(2)[12]), ("UNSAFE", "yes", "ok"), "{stdout}");
    // both are decided in well under a second: checked five times each
    assert_eq!((cells(1)[7], cells(2)[7]), ("5", "5"), "{stdout}");
    assert!(cells(3)[0].ends_with("ghost.mcmt"));
    assert_eq!(cells(3)[2], "MISSING", "{stdout}");
    assert!(stderr.contains("WRONG: ") && stderr.contains("1 correct, 1 WRONG, 0 unknown, 1 error"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&manifest);
}

#[test]
fn bench_json_and_input_errors() {
    // Without a manifest the expectation comes from the models' first line;
    // a bad argument for `check` makes every run an input error (not a crash).
    let dir = folder("json", None);
    let d = dir.to_str().unwrap();
    let (out, stdout, stderr) = bench(&[d, "--json"]);
    assert_eq!(out.status.code(), Some(0), "stdout:\n{stdout}\nstderr:\n{stderr}");
    // the JSON is read back through its own type
    let report: arrax::bench::results::BenchReport = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let buggy = report.runs.iter().find(|r| r.file.ends_with("mutex_buggy.mcmt")).expect("a run of the buggy model");
    assert_eq!((buggy.expected.as_deref(), buggy.got.as_str(), buggy.class.as_str()), (Some("UNSAFE"), "UNSAFE", "correct"), "{stdout}");
    assert_eq!((report.summary.total, report.summary.correct, report.summary.wrong), (2, 2, 0), "{stdout}");
    assert_eq!(report.schema, arrax::report::json::SCHEMA);
    let (out, stdout, stderr) = bench(&[d, "--", "--no-such-option"]);
    assert_eq!(out.status.code(), Some(0), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert_eq!(row(&stdout, "mutex.mcmt")[2], "INPUT", "{stdout}");
    assert!(stdout.contains("0 correct, 0 wrong, 0 unknown, 2 errors"), "{stdout}");
    // Usage errors.
    assert_eq!(bench(&[]).0.status.code(), Some(2));
    assert_eq!(bench(&[d, "--timeout", "0"]).0.status.code(), Some(2));
    assert_eq!(bench(&["/no/such/folder"]).0.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}
