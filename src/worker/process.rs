//! The server side of one render worker process: start it, hand it a
//! request, wait for the answer until the deadline, kill it past that.

use std::io::{BufReader, Read};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::child::SOCKET_FD;
use super::protocol::{self, Answer, Job, Spec, Work, READY};
use labelpress_document::engine::{RenderError, Rendered};
use labelpress_document::warnings::CheckReport;

/// The longest a new worker may take to load its engine.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a worker gave no answer. Either way the worker is gone and must be
/// replaced.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// The deadline passed; the worker was killed.
    #[error("the render deadline passed; the render worker was stopped")]
    Deadline,
    /// The worker died or broke the protocol (a crash, the memory cap).
    #[error("the render worker died: {0}")]
    Died(String),
    /// The job needed more memory than the worker's cap (MiB); the worker
    /// said so and exited.
    #[error("the document needs more memory than a render worker may use ({cap_mb} MiB, limits.render_worker_memory_mb): split it into smaller documents")]
    OutOfMemory { cap_mb: u64 },
    /// No worker could be started.
    #[error("no render worker could be started: {0}")]
    Start(String),
    /// The worker was already gone when the job was handed to it (killed
    /// while idle, e.g. by the kernel's OOM killer): the job never started,
    /// so it may be given to a fresh worker.
    #[error("the render worker had died before the job reached it: {0}")]
    Gone(String),
}

/// A running worker process and the server's end of its socket.
pub struct Worker {
    child: Child,
    socket: UnixStream,
    input: BufReader<UnixStream>,
}

impl Worker {
    /// Starts `binary render-worker`, sends it `spec` and waits until its
    /// engine is loaded. `memory_bytes` caps its address space (0: no cap).
    pub fn start(
        binary: &Path,
        spec: &Spec,
        memory_bytes: u64,
        nice: i32,
    ) -> Result<Worker, WorkerError> {
        let start = |e: std::io::Error| WorkerError::Start(e.to_string());
        let (ours, theirs) = UnixStream::pair().map_err(start)?;
        let theirs = OwnedFd::from(theirs);
        let theirs_fd = theirs.as_raw_fd();
        let mut command = Command::new(binary);
        command
            .arg("render-worker")
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        // SAFETY: only async-signal-safe calls (dup2, fcntl, setrlimit,
        // setpgid, prctl) between fork and exec.
        unsafe {
            command.pre_exec(move || child_setup(theirs_fd, memory_bytes, nice));
        }
        let child = command.spawn().map_err(start)?;
        drop(theirs);
        let mut worker = Worker {
            child,
            input: BufReader::with_capacity(64 << 10, ours.try_clone().map_err(start)?),
            socket: ours,
        };
        let ready = worker.hello(spec);
        match ready {
            Ok(()) => Ok(worker),
            Err(e) => {
                worker.stop();
                Err(WorkerError::Start(e.to_string()))
            }
        }
    }

    fn hello(&mut self, spec: &Spec) -> std::io::Result<()> {
        let deadline = Instant::now() + START_TIMEOUT;
        self.socket.set_write_timeout(Some(START_TIMEOUT))?;
        protocol::write_json(&mut self.socket, spec)?;
        let mut byte = [0];
        self.read_until(deadline, |input| input.read_exact(&mut byte))?;
        if byte[0] != READY {
            return Err(std::io::Error::other("the worker did not say it was ready"));
        }
        Ok(())
    }

    /// Does `work` on `body` in the worker. On `Err` the worker has been
    /// stopped and must be dropped.
    pub fn render(
        &mut self,
        work: &Work,
        body: &[u8],
        deadline: Instant,
    ) -> Result<Result<(Rendered, Duration), RenderError>, WorkerError> {
        let (head, bytes) = self.job(&Job::Render(*work), body, deadline)?;
        Ok(head.into_outcome(bytes))
    }

    /// Validates `body` in the worker and reports as the check route
    /// answers. On `Err` the worker has been stopped and must be dropped.
    /// A check job ([`Job::Check`] or [`Job::CheckBatch`]) and its report.
    pub fn check(
        &mut self,
        job: &Job,
        body: &[u8],
        deadline: Instant,
    ) -> Result<CheckReport, WorkerError> {
        match self.job(job, body, deadline)? {
            (Answer::Checked(report), _) => Ok(report),
            (other, _) => {
                self.stop();
                Err(WorkerError::Died(format!(
                    "the worker answered a check with {other:?}"
                )))
            }
        }
    }

    /// One job: its head and `body` out, the answer's head and bytes back.
    /// On `Err` the worker has been stopped.
    fn job(
        &mut self,
        job: &Job,
        body: &[u8],
        deadline: Instant,
    ) -> Result<(Answer, Vec<u8>), WorkerError> {
        let result = self.exchange(job, body, deadline);
        if result.is_err() {
            self.stop();
        }
        result
    }

    fn exchange(
        &mut self,
        job: &Job,
        body: &[u8],
        deadline: Instant,
    ) -> Result<(Answer, Vec<u8>), WorkerError> {
        let failed = |e: std::io::Error| match e.kind() {
            std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => WorkerError::Deadline,
            _ => WorkerError::Died(e.to_string()),
        };
        let remaining = remaining(deadline).ok_or(WorkerError::Deadline)?;
        self.socket
            .set_write_timeout(Some(remaining))
            .map_err(failed)?;
        protocol::write_head_and_bytes(&mut self.socket, job, body).map_err(|e| {
            match e.kind() {
                // Nobody reads the other end: the worker exited before this
                // job, which therefore never ran.
                std::io::ErrorKind::BrokenPipe
                | std::io::ErrorKind::ConnectionReset
                | std::io::ErrorKind::NotConnected => WorkerError::Gone(e.to_string()),
                _ => failed(e),
            }
        })?;
        let head: Answer = self
            .read_until(deadline, |input| protocol::read_json(input))
            .map_err(|e| match e.kind() {
                // The worker closed its end with our job still unread in
                // it (a socket reports that as a reset, a worker that read
                // the job and then died as an end of file): it died before
                // the job, which never ran.
                std::io::ErrorKind::ConnectionReset => WorkerError::Gone(e.to_string()),
                _ => failed(e),
            })?;
        let bytes = match head {
            Answer::Document { .. } => self
                .read_until(deadline, |input| protocol::read_frame(input))
                .map_err(failed)?,
            // The worker is on its way out.
            Answer::Panicked(message) => return Err(WorkerError::Died(message)),
            Answer::OutOfMemory { cap_mb } => return Err(WorkerError::OutOfMemory { cap_mb }),
            _ => Vec::new(),
        };
        Ok((head, bytes))
    }

    /// Runs `read` on the worker's output with the socket's read timeout
    /// kept at what is left until `deadline`.
    fn read_until<T>(
        &mut self,
        deadline: Instant,
        read: impl FnOnce(&mut Deadlined<'_>) -> std::io::Result<T>,
    ) -> std::io::Result<T> {
        let mut reader = Deadlined {
            input: &mut self.input,
            socket: &self.socket,
            deadline,
        };
        read(&mut reader)
    }

    /// Whether the process still runs (reaps it when it has exited). An idle
    /// worker can die from outside between two jobs.
    pub fn is_alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Kills the worker and reaps it.
    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing the socket ends an idle worker; a busy one is killed.
        let _ = self.socket.shutdown(std::net::Shutdown::Both);
        self.stop();
    }
}

/// A reader that times out at a fixed instant, however many reads it takes.
struct Deadlined<'a> {
    input: &'a mut BufReader<UnixStream>,
    socket: &'a UnixStream,
    deadline: Instant,
}

impl Read for Deadlined<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.input.buffer().is_empty() {
            let remaining = remaining(self.deadline).ok_or(std::io::ErrorKind::TimedOut)?;
            self.socket.set_read_timeout(Some(remaining))?;
        }
        self.input.read(buf)
    }
}

/// Time left until `deadline`; `None` once it has passed (a zero timeout
/// would mean "no timeout" to the socket).
fn remaining(deadline: Instant) -> Option<Duration> {
    deadline
        .checked_duration_since(Instant::now())
        .filter(|d| !d.is_zero())
}

/// In the forked child, before exec: the socket on fd 3, its own process
/// group (a terminal's Ctrl-C goes to the server, which drains, not to its
/// workers), death with the thread that started it, the memory cap, and a
/// priority `nice` steps below the server's.
fn child_setup(socket: i32, memory_bytes: u64, nice: i32) -> std::io::Result<()> {
    let check = |result: libc::c_int| {
        if result == -1 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(())
        }
    };
    // SAFETY: plain system calls on integers owned by this child.
    unsafe {
        if socket == SOCKET_FD {
            // dup2 onto itself keeps close-on-exec: clear it instead.
            check(libc::fcntl(SOCKET_FD, libc::F_SETFD, 0))?;
        } else {
            check(libc::dup2(socket, SOCKET_FD))?;
        }
        check(libc::setpgid(0, 0))?;
        #[cfg(target_os = "linux")]
        check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL))?;
        let no_core = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        check(libc::setrlimit(libc::RLIMIT_CORE, &no_core))?;
        if nice > 0 {
            // getpriority may return -1 as a value; the nice value is only
            // ever lowered here, so an error just keeps the priority.
            let current = libc::getpriority(libc::PRIO_PROCESS, 0);
            libc::setpriority(libc::PRIO_PROCESS, 0, (current + nice).min(19));
        }
        if memory_bytes > 0 {
            let cap = libc::rlimit {
                rlim_cur: memory_bytes as libc::rlim_t,
                rlim_max: memory_bytes as libc::rlim_t,
            };
            check(libc::setrlimit(libc::RLIMIT_AS, &cap))?;
        }
    }
    Ok(())
}
