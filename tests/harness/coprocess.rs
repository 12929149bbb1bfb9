//! An `idgen` process the test talks to while it runs (`lease --stdin`).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

pub struct Coprocess {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    stderr: Receiver<String>,
    /// Every stderr line seen so far.
    pub stderr_seen: Vec<String>,
}

/// How long a test waits for one answer from a coprocess.
const ANSWER_LIMIT: Duration = Duration::from_secs(30);

impl Coprocess {
    pub fn spawn(mut cmd: Command) -> Coprocess {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn idgen");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Coprocess {
            child,
            stdin,
            stdout,
            stderr: rx,
            stderr_seen: Vec::new(),
        }
    }

    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Writes a request line.
    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        writeln!(stdin, "{line}").expect("write to coprocess");
        stdin.flush().expect("flush coprocess stdin");
    }

    /// Asks for `n` IDs and reads them.
    pub fn request(&mut self, n: usize) -> Vec<u64> {
        self.send(&n.to_string());
        (0..n).map(|_| self.read_id()).collect()
    }

    /// Reads one ID line (blocking; the harness's process limit bounds the test).
    pub fn read_id(&mut self) -> u64 {
        let mut line = String::new();
        let read = self
            .stdout
            .read_line(&mut line)
            .expect("read coprocess stdout");
        assert!(
            read > 0,
            "coprocess closed stdout; stderr: {:?}",
            self.drain_stderr()
        );
        line.trim()
            .parse()
            .unwrap_or_else(|e| panic!("not an ID: {line:?}: {e}"))
    }

    /// Waits for a JSON event on stderr with `"event": name`.
    pub fn event(&mut self, name: &str) -> serde_json::Value {
        let deadline = Instant::now() + ANSWER_LIMIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .stderr
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no {name:?} event; stderr: {:?}", self.stderr_seen));
            self.stderr_seen.push(line.clone());
            if let Ok(value) = serde_json::from_str::<serde_json::Value>(&line)
                && value["event"] == name
            {
                return value;
            }
        }
    }

    /// Waits for a `lease --json` holder's `acquired` event; returns its worker ID.
    pub fn acquired_worker(&mut self) -> u64 {
        let acquired = self.event("acquired");
        acquired["worker"]
            .as_u64()
            .unwrap_or_else(|| panic!("an acquired event without a worker: {acquired}"))
    }

    fn drain_stderr(&mut self) -> Vec<String> {
        while let Ok(line) = self.stderr.try_recv() {
            self.stderr_seen.push(line);
        }
        self.stderr_seen.clone()
    }

    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on our own child.
        unsafe { libc::kill(self.pid(), signal) };
    }

    /// Once the process has stopped at a `=stop` failpoint (`what`), sends it
    /// SIGINT (a Ctrl-C), lets it go on and waits for the exit.
    pub fn interrupt_when_stopped(self, what: &str) -> (ExitStatus, String, Vec<String>) {
        super::wait_until_stopped(self.pid(), what);
        self.signal(libc::SIGINT);
        self.signal(libc::SIGCONT);
        self.wait()
    }

    /// Closes stdin (EOF) and waits for the exit; returns the status, the rest of
    /// stdout and every stderr line.
    pub fn finish(mut self) -> (ExitStatus, String, Vec<String>) {
        drop(self.stdin.take());
        self.wait()
    }

    /// Waits up to `limit` for the exit (`what` names it), without closing
    /// stdin; fails the test if the process is still running then (it is
    /// killed when dropped).
    pub fn exit_within(mut self, limit: Duration, what: &str) -> (ExitStatus, String, Vec<String>) {
        let exited = super::poll_until(limit, || matches!(self.child.try_wait(), Ok(Some(_))));
        assert!(exited, "{what}: still running after {limit:?}, hung");
        self.wait()
    }

    /// Waits for the exit without closing stdin.
    pub fn wait(mut self) -> (ExitStatus, String, Vec<String>) {
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut self.stdout, &mut rest).expect("read rest of stdout");
        let status = self.child.wait().expect("wait for coprocess");
        let stderr = self.drain_stderr_until_closed();
        (status, rest, stderr)
    }

    fn drain_stderr_until_closed(&mut self) -> Vec<String> {
        while let Ok(line) = self.stderr.recv_timeout(ANSWER_LIMIT) {
            self.stderr_seen.push(line);
        }
        self.stderr_seen.clone()
    }
}

impl Drop for Coprocess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
