//! The accept loop: at most a fixed number of connections open (past the limit
//! it stops accepting, so the kernel's backlog queues new clients), each with a
//! header-read and a write timeout, and a bounded drain on shutdown.
//!
//! Every request head passes [`HeadGuard`] first, so malformed or oversized
//! ones get a JSON answer rather than hyper's empty one.
//!
//! Run here rather than through `axum::serve`, which sets no timer: there an
//! idle or half-sent connection holds its slot for as long as the client likes.

use super::head_guard::HeadGuard;
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use idgen::retry::Backoff;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;
use tokio::time::Sleep;

/// Most bytes hyper buffers per connection, each way. Reading, it is above the
/// largest head [`HeadGuard`] lets through; writing, it bounds what a client
/// that does not read holds in memory (hyper's default is about 400 KiB, which
/// a streamed list would fill): a couple of list chunks.
const MAX_BUFFERED: usize = 32 * 1024;

/// How long each stage of a connection may take.
#[derive(Clone, Copy, Debug)]
pub struct Timeouts {
    /// From a connection's opening, or its last answer, to the end of the next
    /// request's headers: closes idle keep-alive and half-sent requests alike.
    pub header: Duration,
    /// Longest one write may wait for a client that does not read.
    pub write: Duration,
    /// Longest the connections still open at shutdown may take to finish.
    pub drain: Duration,
}

/// How a shutdown ended.
pub enum Drained {
    /// Every connection finished within the drain timeout.
    All,
    /// This many were still open at the drain timeout and were dropped.
    Cut(usize),
}

/// Serves `router` on `listener` until `shutdown` resolves, then stops
/// accepting and gives open connections at most `timeouts.drain` to finish.
pub async fn serve(
    listener: TcpListener,
    max_connections: usize,
    router: Router,
    timeouts: Timeouts,
    shutdown: impl Future<Output = ()>,
) -> Drained {
    let slots = Arc::new(Semaphore::new(max_connections));
    let (stop, stopped) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    // Set while accepting fails (out of file descriptors and the like), so
    // the loop backs off instead of spinning; a connection accepted resets it.
    let mut accept_failing: Option<Backoff> = None;
    loop {
        // Finished connections are reaped here so the set does not grow.
        while connections.try_join_next().is_some() {}
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
            () = &mut shutdown => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    accept_failing = None;
                    stream
                }
                Err(_) => {
                    accept_failing
                        .get_or_insert_with(Backoff::out_of_descriptors)
                        .pause()
                        .await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // One small answer per request: do not wait to coalesce.
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(HeadGuard::new(WriteTimedStream::new(
            stream,
            timeouts.write,
        )));
        let service = TowerToHyperService::new(router.clone());
        let mut stopped = stopped.clone();
        connections.spawn(async move {
            let _slot = slot;
            let mut builder = http1::Builder::new();
            // A client that shuts its sending side once its request is sent
            // (`nc`, a script) still gets its whole answer: without this, hyper
            // closes the connection at that EOF and cuts a streamed list
            // (found by fuzzing). A client that never reads is still bounded
            // by the write timeout.
            builder
                .timer(TokioTimer::new())
                .half_close(true)
                .header_read_timeout(timeouts.header)
                .max_buf_size(MAX_BUFFERED);
            let mut connection = std::pin::pin!(builder.serve_connection(io, service));
            tokio::select! {
                _ = connection.as_mut() => return,
                _ = stopped.changed() => connection.as_mut().graceful_shutdown(),
            }
            // Finishes the request in flight, if any, then closes.
            let _ = connection.await;
        });
    }
    drop(listener);
    let _ = stop.send(true);
    let all_done = async { while connections.join_next().await.is_some() {} };
    match tokio::time::timeout(timeouts.drain, all_done).await {
        Ok(()) => Drained::All,
        Err(_) => {
            let open = connections.len();
            connections.abort_all();
            Drained::Cut(open)
        }
    }
}

/// A connection whose writes fail once one has waited `limit` for the client
/// to read: a client that never reads cannot hold the answer in memory forever.
struct WriteTimedStream {
    stream: TcpStream,
    limit: Duration,
    /// Armed when a write first waits; cleared when one completes.
    deadline: Option<Pin<Box<Sleep>>>,
}

impl WriteTimedStream {
    fn new(stream: TcpStream, limit: Duration) -> Self {
        WriteTimedStream {
            stream,
            limit,
            deadline: None,
        }
    }

    fn timed<T>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if polled.is_ready() {
            self.deadline = None;
            return polled;
        }
        let limit = self.limit;
        let deadline = self
            .deadline
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        if deadline.as_mut().poll(cx).is_ready() {
            self.deadline = None;
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client read nothing within --write-timeout",
            )));
        }
        Poll::Pending
    }
}

impl AsyncRead for WriteTimedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for WriteTimedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.timed(cx, polled)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.stream).poll_flush(cx);
        self.timed(cx, polled)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.stream).poll_shutdown(cx);
        self.timed(cx, polled)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.timed(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
