//! Which models a benchmark checks and what it expects of them: TSV
//! manifests (expected verdicts, reference times), folders of models, and
//! `expect:` remarks in the models themselves.

use std::io::Read;
use std::path::{Path, PathBuf};

/// File extensions of models found in a folder.
const MODEL_EXTENSIONS: &[&str] = &["in", "mcmt", "arrax", "cub", "c", "yml", "smt2"];
/// Manifest names looked for in a folder, in this order.
const MANIFEST_NAMES: &[&str] = &["MANIFEST.tsv", "EXPECTED.tsv"];

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
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some((_, header)) = lines.next() else {
        return Err("empty manifest".to_string());
    };
    let names: Vec<String> = header.split('\t').map(|h| h.trim().to_ascii_lowercase()).collect();
    let column = |candidates: &[&str]| candidates.iter().find_map(|c| names.iter().position(|n| n == c));
    let file_col = column(&["file", "task_yml"]).ok_or("the header has no `file` column")?;
    let expected_col = column(&["expected", "expected_verdict", "expected_verdict_unreach_call", "verdict"]);
    let time_col = column(&["ref_time", "best_time", "cubicle_time", "cubicle_seconds", "time"]);
    let mut entries = vec![];
    for (i, line) in lines {
        let fields: Vec<&str> = line.split('\t').map(str::trim).collect();
        let field = |c: Option<usize>| c.and_then(|c| fields.get(c).copied()).filter(|f| !f.is_empty());
        let file = field(Some(file_col)).ok_or_else(|| format!("line {}: no file", i + 1))?;
        let expected = match field(expected_col) {
            None | Some("-") | Some("?") => None,
            Some(v) => Some(Answer::parse(v).ok_or_else(|| format!("line {}: unknown verdict `{v}`", i + 1))?),
        };
        let ref_time = field(time_col).and_then(|t| t.parse::<f64>().ok()).filter(|t| t.is_finite() && *t >= 0.0);
        entries.push(ManifestEntry { file: PathBuf::from(file), expected, ref_time });
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
        match MANIFEST_NAMES.iter().map(|n| dir.join(n)).find(|p| p.is_file()) {
            Some(p) => Manifest::load(&p).map(Some),
            None => Ok(None),
        }
    }

    /// The entry describing `file`: the one whose path, resolved against
    /// the manifest's folder, is `file`, or else the longest that `file`'s
    /// path ends with.
    fn lookup(&self, file: &Path) -> Option<&ManifestEntry> {
        let canon = std::fs::canonicalize(file).ok()?;
        let same = |e: &&ManifestEntry| std::fs::canonicalize(self.dir.join(&e.file)).is_ok_and(|p| p == canon);
        self.entries
            .iter()
            .find(same)
            .or_else(|| self.entries.iter().filter(|e| e.file.is_relative() && canon.ends_with(&e.file)).max_by_key(|e| e.file.components().count()))
    }
}

/// A model to check.
#[derive(Clone)]
pub struct Task {
    /// The path shown in the output.
    pub path: PathBuf,
    /// The expected verdict, if any.
    pub expected: Option<Answer>,
    /// The reference time in seconds, if any.
    pub ref_time: Option<f64>,
}

impl Task {
    fn from_entry(e: &ManifestEntry, dirs: &[&Path]) -> Task {
        let path = dirs.iter().map(|d| d.join(&e.file)).find(|p| p.exists()).unwrap_or_else(|| dirs[0].join(&e.file));
        Task { path, expected: e.expected, ref_time: e.ref_time }
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
        Task { path, expected, ref_time: None }
    }
}

fn is_model(p: &Path) -> bool {
    p.is_file() && p.extension().and_then(|e| e.to_str()).is_some_and(|e| MODEL_EXTENSIONS.contains(&e))
}

/// The models of a folder, sorted; a `.c` file is left out when a `.yml`
/// task of the same name describes it.
fn folder_models(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out: Vec<PathBuf> =
        std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| is_model(p)).collect();
    out.sort();
    let ymls: Vec<PathBuf> = out.iter().filter(|p| p.extension().is_some_and(|e| e == "yml")).map(|p| p.with_extension("")).collect();
    out.retain(|p| !(p.extension().is_some_and(|e| e == "c") && ymls.contains(&p.with_extension(""))));
    Ok(out)
}

/// The models to check, in order.
pub fn collect_tasks(args: &super::BenchArgs) -> Result<Vec<Task>, String> {
    let explicit = args.manifest.as_deref().map(Manifest::load).transpose()?;
    if args.paths.is_empty() {
        return match &explicit {
            Some(m) => Ok(m.entries.iter().map(|e| Task::from_entry(e, &[&m.dir])).collect()),
            None => Err("no models: give files, folders or --manifest".to_string()),
        };
    }
    let mut tasks = vec![];
    for path in &args.paths {
        if path.is_dir() {
            let found = if explicit.is_some() { None } else { Manifest::find(path)? };
            match explicit.as_ref().or(found.as_ref()) {
                Some(m) => tasks.extend(m.entries.iter().map(|e| Task::from_entry(e, &[path, &m.dir]))),
                None => tasks.extend(folder_models(path)?.into_iter().map(Task::from_file)),
            }
        } else if path.is_file() {
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let found = if explicit.is_some() { None } else { Manifest::find(parent)? };
            let entry = explicit.as_ref().or(found.as_ref()).and_then(|m| m.lookup(path));
            tasks.push(match entry {
                Some(e) => Task { path: path.clone(), expected: e.expected, ref_time: e.ref_time },
                None => Task::from_file(path.clone()),
            });
        } else {
            return Err(format!("{}: no such file or folder", path.display()));
        }
    }
    Ok(tasks)
}
