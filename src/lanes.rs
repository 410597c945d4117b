//! The parallel portfolio's lanes as processes: the first process runs
//! lane 1 itself and, unless it answered within half a second, starts one
//! more process per further lane (the same command line with `--lane k`,
//! ending when the first process's time limit ends); the first lane to reach a checked answer
//! (SAFE or UNSAFE, exit code 0 or 1) prints it and ends the others. When
//! every lane ends undecided, the first process prints its own answer.
//!
//! Lanes are processes, not threads: each has its own terms, solvers and
//! memory, and a lane that is ended leaves nothing behind.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Whether a lane has claimed the answer (it prints, the others stay silent).
static CLAIMED: AtomicBool = AtomicBool::new(false);

/// The process ids of the lanes started, to end them.
static STARTED: Mutex<Vec<u32>> = Mutex::new(vec![]);

/// The lanes this process starts.
pub struct Lanes {
    /// Tells the starter to start the lanes now.
    go: Sender<()>,
    /// One message once every started lane ended undecided.
    undecided: Receiver<()>,
}

/// How many milliseconds the first lane runs alone by default
/// (`--lanes-after`): most small models are decided within it, and then
/// no other process is started.
pub const ALONE_FOR_MS: u64 = 500;

/// Starts lanes `1..of`, after `alone` (or at once when asked), as
/// processes running this command line with `--lane k` and, with a time
/// limit, `--lane-until` (its end, in milliseconds since the Unix epoch);
/// each is watched by a thread that prints its output and ends the run
/// when it answers first.
pub fn start(of: usize, until: Option<SystemTime>, alone: Duration) -> Lanes {
    let (go, wait) = channel::<()>();
    let (done, undecided) = channel();
    std::thread::spawn(move || {
        let _ = wait.recv_timeout(alone);
        let watchers: Vec<_> = (1..of).filter_map(|k| spawn(k, until)).collect();
        for w in watchers {
            let _ = w.join();
        }
        let _ = done.send(());
    });
    Lanes { go, undecided }
}

/// Starts lane `k` unless an answer was claimed; the thread watching it.
fn spawn(k: usize, until: Option<SystemTime>) -> Option<std::thread::JoinHandle<()>> {
    let exe = std::env::current_exe().ok()?;
    let mut cmd = Command::new(&exe);
    cmd.args(std::env::args_os().skip(1)).arg("--lane").arg(k.to_string());
    if let Some(ms) = until.and_then(|u| u.duration_since(UNIX_EPOCH).ok()) {
        cmd.arg("--lane-until").arg(ms.as_millis().to_string());
    }
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null());
    // SAFETY: between fork and exec the closure makes one system call.
    unsafe {
        cmd.pre_exec(|| {
            // a lane ends with the process that started it
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let mut started = STARTED.lock().unwrap_or_else(|e| e.into_inner());
    if CLAIMED.load(Ordering::SeqCst) {
        return None;
    }
    let child = cmd.spawn().ok()?;
    started.push(child.id());
    Some(std::thread::spawn(move || watch(child)))
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
    // (under the lock, so that no lane starts after the claim)
    let started = STARTED.lock().unwrap_or_else(|e| e.into_inner());
    if CLAIMED.swap(true, Ordering::SeqCst) {
        return false;
    }
    for pid in started.iter() {
        // SAFETY: sending a signal to a process we started.
        unsafe { libc::kill(*pid as libc::pid_t, libc::SIGKILL) };
    }
    true
}

impl Lanes {
    /// Starts the other lanes now if they wait, and waits until every one
    /// ended undecided; if one answers meanwhile, its watcher ends the run
    /// and this never returns.
    pub fn wait_undecided(&self) {
        let _ = self.go.send(());
        let _ = self.undecided.recv();
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
