//! The parallel portfolio's lanes as processes: the first process runs
//! lane 1 itself and starts one more process per further lane (the same
//! command line with `--lane k`); the first lane to reach a checked answer
//! (SAFE or UNSAFE, exit code 0 or 1) prints it and ends the others. When
//! every lane ends undecided, the first process prints its own answer.
//!
//! Lanes are processes, not threads: each has its own terms, solvers and
//! memory, and a lane that is ended leaves nothing behind.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver};
use std::sync::Mutex;

/// Whether a lane has claimed the answer (it prints, the others stay silent).
static CLAIMED: AtomicBool = AtomicBool::new(false);

/// The process ids of the lanes started, to end them.
static STARTED: Mutex<Vec<u32>> = Mutex::new(vec![]);

/// The lanes started by this process.
pub struct Lanes {
    /// One message per started lane that ended undecided.
    undecided: Receiver<()>,
    /// How many were started.
    count: usize,
}

/// Starts lanes `1..of` as processes running this command line with
/// `--lane k`; each is watched by a thread that prints its output and ends
/// the run when it answers first. `None` if none could be started.
pub fn start(of: usize) -> Option<Lanes> {
    let exe = std::env::current_exe().ok()?;
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let (tx, undecided) = channel();
    let mut count = 0;
    for k in 1..of {
        let mut cmd = Command::new(&exe);
        cmd.args(&args).arg("--lane").arg(k.to_string()).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null());
        // SAFETY: between fork and exec the closure makes one system call.
        unsafe {
            cmd.pre_exec(|| {
                // a lane ends with the process that started it
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let child = cmd.spawn();
        let Ok(child) = child else { continue };
        STARTED.lock().unwrap_or_else(|e| e.into_inner()).push(child.id());
        let tx = tx.clone();
        std::thread::spawn(move || {
            watch(child);
            let _ = tx.send(());
        });
        count += 1;
    }
    (count > 0).then_some(Lanes { undecided, count })
}

/// Waits for a started lane; if it answers (exit code 0 or 1) and no lane
/// has claimed the answer yet, prints its output and ends the run with its
/// exit code. Returns when it ended undecided (or another lane answered).
fn watch(child: Child) {
    let Ok(out) = child.wait_with_output() else { return };
    let code = out.status.code();
    if matches!(code, Some(0 | 1)) && claim() {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(&out.stdout);
        let _ = stdout.flush();
        // SAFETY: _exit ends the process at once (the other lanes are ended).
        unsafe { libc::_exit(code.unwrap_or(3)) }
    }
}

/// Claims the answer for the calling lane: `true` for the first caller,
/// which then prints; the lanes started are ended.
pub fn claim() -> bool {
    if CLAIMED.swap(true, Ordering::SeqCst) {
        return false;
    }
    for pid in STARTED.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        // SAFETY: sending a signal to a process we started.
        unsafe { libc::kill(*pid as libc::pid_t, libc::SIGKILL) };
    }
    true
}

impl Lanes {
    /// Waits until every started lane has ended undecided; if one answers
    /// meanwhile, its watcher ends the run and this never returns.
    pub fn wait_undecided(&self) {
        for _ in 0..self.count {
            if self.undecided.recv().is_err() {
                break;
            }
        }
    }
}

/// The number of lanes for a run: `asked` (0: one per core, at most 2),
/// and 1 when the engine is chosen or the run writes files (one lane's).
pub fn count(asked: usize, auto_engine: bool, writes_files: bool) -> usize {
    if !auto_engine || writes_files {
        return 1;
    }
    match asked {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()).min(2),
        n => n.min(2),
    }
}
