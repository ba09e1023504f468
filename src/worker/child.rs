//! The worker side: `labelpress render-worker` (started by the server, never
//! by hand). It reads its [`Spec`] from the socket on fd 3, loads the engine,
//! says [`READY`], then validates and renders one request body at a time,
//! each as its [`Job`] head asks.
//!
//! A worker is disposable: the server kills it at a request's deadline and
//! replaces it when it dies. A panic is answered as a failed render and then
//! ends the process, so that no half-updated cache of a panicked compile
//! serves the next request.

use std::io::{BufReader, BufWriter, Write};
use std::os::fd::FromRawFd;
use std::os::unix::net::UnixStream;
use std::panic::AssertUnwindSafe;

use super::protocol::{self, Answer, Job, Spec, READY};
use crate::exit::Exit;
use labelpress_document::engine::fonts::FontOptions;
use labelpress_document::engine::{threads, Engine};
use labelpress_document::validate::ResourceDir;
use labelpress_document::warnings::CheckReport;

/// The file descriptor the server hands the worker its end of the socket on.
pub const SOCKET_FD: i32 = 3;

/// Runs the worker until the server closes the socket. Returns the exit code.
pub fn run() -> Exit {
    // SAFETY: the server passes a connected socket as fd 3 and nothing else
    // in this process owns that descriptor.
    let socket = unsafe { UnixStream::from_raw_fd(SOCKET_FD) };
    let worker = std::thread::Builder::new()
        .name("render-worker".into())
        .stack_size(labelpress_document::engine::threads::RENDER_STACK_BYTES)
        .spawn(move || serve(socket));
    match worker.map(|w| w.join()) {
        Ok(Ok(Ok(()))) => Exit::Success,
        // Its engine could not be built or its socket failed.
        Ok(Ok(Err(e))) => {
            eprintln!("labelpress render-worker: {e}");
            Exit::Usage
        }
        // The render thread panicked after answering.
        Ok(Err(_)) => Exit::Internal,
        Err(e) => {
            eprintln!("labelpress render-worker: {e}");
            Exit::Usage
        }
    }
}

fn serve(socket: UnixStream) -> std::io::Result<()> {
    threads::become_render_thread();
    let mut input = BufReader::new(socket.try_clone()?);
    let mut output = BufWriter::with_capacity(64 << 10, socket);
    let spec: Spec = protocol::read_json(&mut input)?;
    let cap_mb = spec.config.limits.render_worker_memory_mb;
    let engine = engine(spec).map_err(std::io::Error::other)?;
    let mut notice = Vec::new();
    protocol::write_json(&mut notice, &Answer::OutOfMemory { cap_mb })?;
    super::oom::arm(notice);
    output.write_all(&[READY])?;
    output.flush()?;
    loop {
        let job: Job = match protocol::read_json(&mut input) {
            Ok(job) => job,
            // The server closed the socket: it is shutting down.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e),
        };
        let body = protocol::read_frame(&mut input)?;
        match job {
            Job::Render(work) => {
                let outcome = unpanicked(&mut output, || work.run(&engine, &body))?;
                protocol::write_json(&mut output, &Answer::of(&outcome))?;
                if let Ok((rendered, _)) = &outcome {
                    protocol::write_frame(&mut output, &rendered.bytes)?;
                }
            }
            Job::Check => {
                let report = unpanicked(&mut output, || CheckReport::of(&engine.validate(&body)))?;
                protocol::write_json(&mut output, &Answer::Checked(report))?;
            }
            Job::CheckBatch(wanted) => {
                let report = unpanicked(&mut output, || engine.check_batch(&body, &wanted))?;
                protocol::write_json(&mut output, &Answer::Checked(report))?;
            }
        }
        output.flush()?;
        threads::finish_local_work();
    }
}

/// Runs `job`; a panic is answered as [`Answer::Panicked`] and ends the
/// process, so that nothing a half-finished compile left behind serves the
/// next request.
fn unpanicked<T>(output: &mut impl Write, job: impl FnOnce() -> T) -> std::io::Result<T> {
    match std::panic::catch_unwind(AssertUnwindSafe(job)) {
        Ok(value) => Ok(value),
        Err(panic) => {
            let message = format!("the renderer panicked: {}", panic_message(panic.as_ref()));
            protocol::write_json(output, &Answer::Panicked(message))?;
            output.flush()?;
            std::process::exit(Exit::Internal.code().into());
        }
    }
}

fn engine(spec: Spec) -> Result<Engine, String> {
    let resources = match &spec.resources {
        Some(dir) => Some(ResourceDir::new(dir).map_err(|e| format!("{}: {e}", dir.display()))?),
        None => None,
    };
    let fonts: FontOptions = spec.fonts;
    Ok(Engine::new(spec.config, &fonts, resources))
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}
