//! The server's edge: its own accept loop over hyper, so that no client can
//! hold connections open for free (issue 14, slowloris).
//!
//! - A request's head must arrive within `header_timeout_ms` (hyper's header
//!   read timeout, which also covers the wait for the next request on a
//!   kept-alive connection).
//! - A request's body must keep coming: each piece within `body_timeout_ms`,
//!   the whole at `body_min_bytes_per_s` on average after a grace period of
//!   `body_timeout_ms` ([`TimedBody`]).
//! - An answer must be taken: when the client reads none of it for
//!   `write_timeout_ms`, the connection is closed ([`WriteTimeout`]), so a
//!   client that asks and never reads holds neither a connection nor the
//!   shutdown.
//! - At most `max_connections` connections are served. Beyond that, a
//!   connection is answered by the turn-away router (`/healthz`, `/readyz`,
//!   else 503 API-503) under a short hard deadline and closed. Those are a
//!   small reserve, and a new one closes the oldest ([`Reserve`]). The caps
//!   keep the process below its file descriptor limit, so the listener can
//!   always accept, and health checks get through.
//! - Shutdown: connections being served finish their requests (hyper's
//!   graceful shutdown closes them once idle); meanwhile new connections
//!   are still accepted, and turned away, so that `/readyz` answers 503
//!   while the server drains. The loop ends once the last served connection
//!   has closed.
//! - TLS (`--tls-cert`): each accepted connection first completes its
//!   handshake ([`super::tls`]), within `header_timeout_ms` for a served
//!   connection and within the turn-away deadline for one over the cap;
//!   only then does hyper read it, and the head gets its own
//!   `header_timeout_ms`. Everything above applies unchanged inside TLS.

use std::collections::VecDeque;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::ConnectInfo;
use axum::http::Request;
use axum::Router;
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::AbortHandle;
use tokio::time::{Instant, Sleep};

use super::tls::{self, TlsAcceptor};
use labelpress_document::config::Limits;

/// File descriptors kept for everything but connections: the listener,
/// the stores' files, the runtime's own, render workers.
const FDS_BESIDES_CONNECTIONS: u64 = 256;

/// The edge's bounds, from [`Limits`].
#[derive(Debug, Clone, Copy)]
pub struct EdgeLimits {
    /// `None`: no header timeout.
    pub header_timeout: Option<Duration>,
    pub body: BodyLimits,
    /// `None`: no write timeout.
    pub write_timeout: Option<Duration>,
    pub max_connections: usize,
    pub turn_away_connections: usize,
    pub turn_away_timeout: Duration,
}

impl EdgeLimits {
    pub fn new(limits: &Limits) -> EdgeLimits {
        let max_connections = limits.max_connections.max(1);
        EdgeLimits {
            header_timeout: millis(limits.header_timeout_ms),
            body: BodyLimits {
                timeout: millis(limits.body_timeout_ms),
                min_bytes_per_s: limits.body_min_bytes_per_s,
            },
            write_timeout: millis(limits.write_timeout_ms),
            max_connections,
            turn_away_connections: limits.turn_away_connections(),
            turn_away_timeout: limits.turn_away_timeout(),
        }
    }

    /// These limits with the connection caps lowered, if need be, so that
    /// both fit into `fds` file descriptors beside
    /// [`FDS_BESIDES_CONNECTIONS`].
    pub fn within_fds(mut self, fds: u64) -> EdgeLimits {
        let room =
            usize::try_from(fds.saturating_sub(FDS_BESIDES_CONNECTIONS)).unwrap_or(usize::MAX);
        if self.max_connections + self.turn_away_connections > room {
            // Eight ninths served, one ninth reserve (the reserve is an
            // eighth of the cap).
            self.max_connections = (room * 8 / 9).max(1);
            self.turn_away_connections = (room - room * 8 / 9).max(1);
        }
        self
    }
}

fn millis(ms: u64) -> Option<Duration> {
    (ms > 0).then(|| Duration::from_millis(ms))
}

/// Raises the soft limit on open files to the hard limit (a process may,
/// without privilege) and returns the soft limit in force.
pub fn raise_fd_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit only read and write `limit`.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
                return None;
            }
            if limit.rlim_cur < limit.rlim_max {
                let raised = libc::rlimit {
                    rlim_cur: limit.rlim_max,
                    rlim_max: limit.rlim_max,
                };
                // Some systems refuse an unlimited hard value: keep the old one.
                if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                    limit = raised;
                }
            }
        }
        Some(limit.rlim_cur as u64)
    }
    #[cfg(not(unix))]
    None
}

/// The soft limit on open files, if known.
fn fd_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit only writes `limit`.
        (unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0)
            .then_some(limit.rlim_cur as u64)
    }
    #[cfg(not(unix))]
    None
}

/// Counts open connections of one kind against a cap.
struct Gate {
    open: AtomicUsize,
    cap: usize,
}

/// One connection's place in a [`Gate`], given back when dropped.
struct Slot(Arc<Gate>);

impl Gate {
    fn new(cap: usize) -> Arc<Gate> {
        Arc::new(Gate {
            open: AtomicUsize::new(0),
            cap,
        })
    }

    fn enter(self: &Arc<Gate>) -> Option<Slot> {
        self.open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.cap).then_some(n + 1)
            })
            .ok()
            .map(|_| Slot(self.clone()))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What the accept loop serves: the node's router, and the one that answers
/// connections over the cap or arriving during shutdown.
pub struct Edge {
    pub served: Router,
    pub turn_away: Router,
    pub limits: EdgeLimits,
    /// HTTPS only when set: every connection, served or turned away, is
    /// answered inside TLS or not at all.
    pub tls: Option<TlsAcceptor>,
}

impl Edge {
    /// Accepts and serves connections until `shutdown` resolves, then drains
    /// (see the module doc). Returns once the last served connection closed.
    pub async fn run(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
    ) -> std::io::Result<()> {
        let limits = match fd_limit() {
            Some(fds) => self.limits.within_fds(fds),
            None => self.limits,
        };
        if limits.max_connections < self.limits.max_connections {
            tracing::warn!(
                max_connections = limits.max_connections,
                configured = self.limits.max_connections,
                "connection cap lowered to fit the open file limit"
            );
        }
        let served = Gate::new(limits.max_connections);
        let spare = Reserve::new(limits.turn_away_connections);
        // Served connections hold a clone of `drain_tx` and watch for the
        // receiver to go (shutdown begins), and a clone of `open_rx`, so
        // that `open_tx.closed()` resolves once the last one has closed.
        let (drain_tx, drain_rx) = watch::channel(());
        let (open_tx, open_rx) = watch::channel(());
        let mut shutdown = pin!(shutdown);
        loop {
            let (stream, peer) = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        accept_failed(e).await;
                        continue;
                    }
                },
                () = &mut shutdown => break,
            };
            match served.enter() {
                Some(slot) => {
                    let connection = Served {
                        router: self.served.clone(),
                        limits,
                        tls: self.tls.clone(),
                        peer,
                        _slot: slot,
                        drain: drain_tx.clone(),
                        _open: open_rx.clone(),
                    };
                    tokio::spawn(connection.run(stream));
                }
                None => spare.turn_away(stream, peer, &self.turn_away, self.tls.as_ref(), limits),
            }
        }
        drop(drain_rx);
        drop(open_rx);
        let mut drained = pin!(open_tx.closed());
        loop {
            tokio::select! {
                () = &mut drained => return Ok(()),
                accepted = listener.accept() => match accepted {
                    Ok((stream, peer)) => {
                        spare.turn_away(stream, peer, &self.turn_away, self.tls.as_ref(), limits)
                    }
                    Err(e) => accept_failed(e).await,
                },
            }
        }
    }
}

/// An error from `accept`: the connection's own (reset before it was
/// taken) is skipped; anything else, running out of file descriptors most
/// likely, is logged and waited out briefly so the loop does not spin.
async fn accept_failed(e: std::io::Error) {
    use std::io::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset | ErrorKind::ConnectionRefused
    ) {
        return;
    }
    tracing::error!(error = %e, "accept failed");
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// Connections over the cap being answered by the turn-away router, at
/// most `cap` at once. A new one closes the oldest when the reserve is
/// full: a client that sends its request at once, as a health check does,
/// is answered within milliseconds, however many idle connections others
/// open; to starve it, they would have to open `cap` new connections within
/// those milliseconds.
struct Reserve {
    cap: usize,
    open: Mutex<VecDeque<AbortHandle>>,
}

impl Reserve {
    fn new(cap: usize) -> Reserve {
        Reserve {
            cap: cap.max(1),
            open: Mutex::new(VecDeque::new()),
        }
    }

    /// Answers one request on `stream` (under a hard deadline, which the TLS
    /// handshake, if any, counts against) and closes it.
    fn turn_away(
        &self,
        stream: TcpStream,
        peer: SocketAddr,
        router: &Router,
        tls: Option<&TlsAcceptor>,
        limits: EdgeLimits,
    ) {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if open.len() >= self.cap {
            open.retain(|task| !task.is_finished());
        }
        if open.len() >= self.cap {
            if let Some(oldest) = open.pop_front() {
                // Dropping its future closes its socket.
                oldest.abort();
            }
        }
        let (router, tls) = (router.clone(), tls.cloned());
        let task = tokio::spawn(async move {
            let answer = async move {
                match tls {
                    None => answer_once(stream, router, peer, limits).await,
                    Some(acceptor) => {
                        if let Some(stream) = tls::handshake(acceptor, stream, None).await {
                            answer_once(stream, router, peer, limits).await;
                        }
                    }
                }
            };
            let _ = tokio::time::timeout(limits.turn_away_timeout, answer).await;
        });
        open.push_back(task.abort_handle());
    }
}

/// Serves one request on a connection over the cap, then closes it; the
/// caller bounds the whole.
async fn answer_once<S>(stream: S, router: Router, peer: SocketAddr, limits: EdgeLimits)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.turn_away_timeout)
        .keep_alive(false);
    let connection =
        builder.serve_connection(TokioIo::new(stream), service(router, peer, limits.body));
    let _ = connection.await;
}

/// One connection within the cap.
struct Served {
    router: Router,
    limits: EdgeLimits,
    tls: Option<TlsAcceptor>,
    peer: SocketAddr,
    _slot: Slot,
    drain: watch::Sender<()>,
    _open: watch::Receiver<()>,
}

impl Served {
    async fn run(self, stream: TcpStream) {
        let Some(acceptor) = self.tls.clone() else {
            return self.serve(stream).await;
        };
        // A handshake under way when draining begins is dropped: no request
        // has started on it, and the drain must not wait for it.
        let handshake = tls::handshake(acceptor, stream, self.limits.header_timeout);
        let stream = tokio::select! {
            stream = handshake => stream,
            () = self.drain.closed() => None,
        };
        if let Some(stream) = stream {
            self.serve(stream).await;
        }
    }

    async fn serve<S>(self, stream: S)
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let mut builder = http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(self.limits.header_timeout);
        let mut connection = pin!(builder.serve_connection(
            WriteTimeout::new(TokioIo::new(stream), self.limits.write_timeout),
            service(self.router.clone(), self.peer, self.limits.body),
        ));
        tokio::select! {
            _ = connection.as_mut() => return,
            () = self.drain.closed() => {}
        }
        // Finishes the request in progress, if any, then closes.
        connection.as_mut().graceful_shutdown();
        let _ = connection.await;
    }
}

/// A connection's socket whose writes fail once none could make progress
/// for `timeout`: the client stopped reading its answer. Progress is any
/// byte taken, so a slow link is fine; reads are bounded elsewhere (the
/// header timeout, [`TimedBody`]).
pub struct WriteTimeout<T> {
    io: T,
    timeout: Option<Duration>,
    /// Running while a write waits.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<T> WriteTimeout<T> {
    pub fn new(io: T, timeout: Option<Duration>) -> WriteTimeout<T> {
        WriteTimeout {
            io,
            timeout,
            stalled: None,
        }
    }

    /// `result` of a write, flush or shutdown, checked against the timeout.
    fn watch<R>(
        &mut self,
        cx: &mut Context<'_>,
        result: Poll<std::io::Result<R>>,
    ) -> Poll<std::io::Result<R>> {
        let Some(timeout) = self.timeout else {
            return result;
        };
        if result.is_ready() {
            self.stalled = None;
            return result;
        }
        let stalled = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match stalled.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client took none of the answer within limits.write_timeout_ms",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: hyper::rt::Read + Unpin> hyper::rt::Read for WriteTimeout<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl<T: hyper::rt::Write + Unpin> hyper::rt::Write for WriteTimeout<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.io).poll_write(cx, buf);
        this.watch(cx, result)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        this.watch(cx, result)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.io).poll_flush(cx);
        this.watch(cx, result)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.io).poll_shutdown(cx);
        this.watch(cx, result)
    }
}

/// The hyper service of one connection: `router`, with the peer address
/// as axum's [`ConnectInfo`] and the body timed.
fn service(
    router: Router,
    peer: SocketAddr,
    body: BodyLimits,
) -> impl hyper::service::Service<
    Request<Incoming>,
    Response = axum::response::Response,
    Error = std::convert::Infallible,
    Future = impl Future<Output = Result<axum::response::Response, std::convert::Infallible>> + Send,
> + Send {
    hyper::service::service_fn(move |request: Request<Incoming>| {
        let mut request = request.map(|incoming| Body::new(TimedBody::new(incoming, body)));
        request.extensions_mut().insert(ConnectInfo(peer));
        // A router is always ready; a clone is a reference count.
        tower_service::Service::call(&mut router.clone(), request)
    })
}

/// How slowly a request body may arrive.
#[derive(Debug, Clone, Copy)]
pub struct BodyLimits {
    /// The longest wait for the next piece, and the grace period of the
    /// rate; `None` disables both.
    pub timeout: Option<Duration>,
    /// 0: no rate check.
    pub min_bytes_per_s: u64,
}

/// Why a request body was cut off.
#[derive(Debug, thiserror::Error)]
#[error(
    "the request body arrived too slowly: {received} bytes in {elapsed_ms} ms \
     (limits.body_timeout_ms, limits.body_min_bytes_per_s)"
)]
pub struct BodyTooSlow {
    received: u64,
    elapsed_ms: u128,
}

/// A request body under [`BodyLimits`]. The clocks start when the handler
/// first reads the body, not when the request arrived: the time a handler
/// spends before reading (authentication) is not the client's.
pub struct TimedBody<B> {
    inner: B,
    limits: BodyLimits,
    /// When the body was first read, and when a piece last arrived.
    started: Option<(Instant, Instant)>,
    received: u64,
    timer: Option<Pin<Box<Sleep>>>,
}

impl<B> TimedBody<B> {
    pub fn new(inner: B, limits: BodyLimits) -> TimedBody<B> {
        TimedBody {
            inner,
            limits,
            started: None,
            received: 0,
            timer: None,
        }
    }

    /// When the body is too late: the wait for the next piece, or the
    /// minimum rate, whichever ends first.
    fn deadline(&self, started: Instant, last: Instant) -> Option<Instant> {
        let timeout = self.limits.timeout?;
        let idle = last + timeout;
        Some(match self.limits.min_bytes_per_s {
            0 => idle,
            rate => {
                let allowed = Duration::from_secs_f64(self.received as f64 / rate as f64);
                idle.min(started + timeout + allowed)
            }
        })
    }
}

impl<B> http_body::Body for TimedBody<B>
where
    B: http_body::Body<Data = Bytes> + Unpin,
    B::Error: Into<axum::BoxError>,
{
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        let (started, last) = *this.started.get_or_insert_with(|| {
            let now = Instant::now();
            (now, now)
        });
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.received += data.len() as u64;
                    this.started = Some((started, Instant::now()));
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(e.into()))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => {
                let Some(deadline) = this.deadline(started, last) else {
                    return Poll::Pending;
                };
                let timer = this
                    .timer
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
                if timer.deadline() != deadline {
                    timer.as_mut().reset(deadline);
                }
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(BodyTooSlow {
                        received: this.received,
                        elapsed_ms: started.elapsed().as_millis(),
                    })))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body that yields the given pieces, each after its delay.
    struct Trickle {
        pieces: Vec<(Duration, &'static [u8])>,
        sleep: Option<Pin<Box<Sleep>>>,
    }

    impl http_body::Body for Trickle {
        type Data = Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            let Some(&(delay, piece)) = self.pieces.first() else {
                return Poll::Ready(None);
            };
            let sleep = self
                .sleep
                .get_or_insert_with(|| Box::pin(tokio::time::sleep(delay)));
            if sleep.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            self.sleep = None;
            self.pieces.remove(0);
            Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(piece)))))
        }
    }

    async fn read(
        pieces: Vec<(Duration, &'static [u8])>,
        limits: BodyLimits,
    ) -> Result<usize, String> {
        let body = TimedBody::new(
            Trickle {
                pieces,
                sleep: None,
            },
            limits,
        );
        axum::body::to_bytes(Body::new(body), usize::MAX)
            .await
            .map(|b| b.len())
            .map_err(|e| {
                use std::error::Error;
                e.source().map_or(e.to_string(), |s| s.to_string())
            })
    }

    // Real time (the crate's tokio has no paused clock), with margins of
    // several times the delays involved.
    const MS: Duration = Duration::from_millis(1);

    #[tokio::test]
    async fn a_body_that_keeps_coming_at_the_rate_is_read_whole() {
        let limits = BodyLimits {
            timeout: Some(1_000 * MS),
            min_bytes_per_s: 1_000,
        };
        let piece: &[u8] = &[b'x'; 400];
        assert_eq!(read(vec![(50 * MS, piece); 5], limits).await, Ok(2_000));
    }

    #[tokio::test]
    async fn a_pause_longer_than_the_timeout_cuts_the_body_off() {
        let limits = BodyLimits {
            timeout: Some(200 * MS),
            min_bytes_per_s: 0,
        };
        let error = read(vec![(10 * MS, b"{"), (5_000 * MS, b"}")], limits)
            .await
            .unwrap_err();
        assert!(error.contains("arrived too slowly: 1 bytes"), "{error}");
    }

    #[tokio::test]
    async fn a_trickle_below_the_minimum_rate_is_cut_off_after_the_grace_period() {
        let limits = BodyLimits {
            timeout: Some(300 * MS),
            min_bytes_per_s: 1_000,
        };
        // A byte every 100 ms never trips the 300 ms wait, but falls behind
        // 1,000 bytes/s once the 300 ms grace period is over.
        let error = read(vec![(100 * MS, b"x"); 20], limits).await.unwrap_err();
        assert!(error.contains("arrived too slowly"), "{error}");
        // Without a timeout the same trickle is read whole.
        let none = BodyLimits {
            timeout: None,
            min_bytes_per_s: 1_000,
        };
        assert_eq!(read(vec![(20 * MS, b"x"); 10], none).await, Ok(10));
    }

    /// A socket that takes up to 10 bytes after each `delay`, or nothing ever.
    struct Socket {
        delay: Option<Duration>,
        sleep: Option<Pin<Box<Sleep>>>,
    }

    impl hyper::rt::Write for Socket {
        fn poll_write(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<std::io::Result<usize>> {
            let Some(delay) = self.delay else {
                return Poll::Pending;
            };
            let sleep = self
                .sleep
                .get_or_insert_with(|| Box::pin(tokio::time::sleep(delay)));
            if sleep.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            self.sleep = None;
            Poll::Ready(Ok(buf.len().min(10)))
        }

        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }

        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    async fn write_all(socket: Socket, timeout: Duration, mut bytes: usize) -> std::io::Result<()> {
        let mut io = WriteTimeout::new(socket, Some(timeout));
        while bytes > 0 {
            let buf = vec![0; bytes];
            bytes -= std::future::poll_fn(|cx| {
                hyper::rt::Write::poll_write(Pin::new(&mut io), cx, &buf)
            })
            .await?;
        }
        Ok(())
    }

    #[tokio::test]
    async fn writes_fail_once_the_client_takes_nothing_for_the_write_timeout() {
        let stuck = Socket {
            delay: None,
            sleep: None,
        };
        let error = write_all(stuck, 100 * MS, 1).await.unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::TimedOut);
        // A slow reader that keeps taking something is never cut off, though
        // the whole takes far longer than the timeout.
        let slow = Socket {
            delay: Some(20 * MS),
            sleep: None,
        };
        write_all(slow, 500 * MS, 300).await.unwrap();
    }

    #[test]
    fn caps_fit_into_the_file_descriptor_limit() {
        let limits = EdgeLimits::new(&Limits::default());
        assert_eq!(limits.max_connections, 1_000);
        assert_eq!(limits.turn_away_connections, 125);
        let roomy = limits.within_fds(1 << 20);
        assert_eq!(roomy.max_connections, 1_000);
        let tight = limits.within_fds(1_024);
        assert!(tight.max_connections + tight.turn_away_connections <= 1_024 - 256);
        assert!(tight.max_connections >= 600, "{tight:?}");
        let tiny = limits.within_fds(100);
        assert_eq!((tiny.max_connections, tiny.turn_away_connections), (1, 1));
    }

    #[test]
    fn a_gate_admits_up_to_its_cap_and_takes_slots_back_on_drop() {
        let gate = Gate::new(2);
        let a = gate.enter().unwrap();
        let _b = gate.enter().unwrap();
        assert!(gate.enter().is_none());
        drop(a);
        assert!(gate.enter().is_some());
    }
}
