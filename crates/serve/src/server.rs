//! The HTTP server around the router: where it listens, how many connections it keeps,
//! how long it waits for a request, and how it stops.
//!
//! - **Address.** By default the server listens on an address of its own in
//!   127.0.0.0/8 (chosen at random; Linux routes the whole block to the loopback
//!   interface), not on 127.0.0.1: browsers scope cookies by host and not by port, so a
//!   cookie of a server on 127.0.0.1 is sent to every other local web server on
//!   127.0.0.1 the browser visits. Where the system has no such address (macOS has only
//!   127.0.0.1), it listens on 127.0.0.1.
//! - **Timeouts.** A connection that has not sent a whole request head within
//!   [`HEADER_TIMEOUT`], and one idle that long between two requests, is closed
//!   (hyper's header-read timeout, which also runs while a kept-alive connection waits
//!   for its next request).
//! - **Connections.** At most [`MAX_CONNECTIONS`] are kept. A connection becomes
//!   *authenticated* once one of its requests carries the token or the cookie; when the
//!   limit is reached, a new connection closes the oldest one that is not authenticated,
//!   so connections that send nothing (or no token) cannot lock the owner's browser out,
//!   and never exhaust the open-file limit.
//! - **Stopping.** When the stop signal comes, the server stops accepting, asks every
//!   connection to finish its request in progress and close, and returns; the caller
//!   then stops the checks (which ends the pages following them), waits for the
//!   connections at most [`STOP_GRACE`] and removes its folder ([`crate::run`]).

use axum::body::Body;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::BTreeMap;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{watch, Notify};

/// How long a connection may take to send a request head, or stay idle between two.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Most connections kept at once.
pub const MAX_CONNECTIONS: usize = 256;
/// How long a connection may take to finish its request once the server stops.
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// Where to listen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listen {
    /// An address of the server's own in 127.0.0.0/8 where the system has one, else
    /// 127.0.0.1.
    OwnLoopback,
    /// This address (asked for with `--listen`).
    Ip(IpAddr),
}

/// Binds `listen` on `port`. For [`Listen::OwnLoopback`], tries a few random addresses
/// of 127.0.0.0/8 (outside 127.0.0.0/16, where other local servers usually are), then
/// 127.0.0.1.
pub async fn bind(listen: Listen, port: u16) -> Result<TcpListener, (SocketAddr, std::io::Error)> {
    let ip = match listen {
        Listen::Ip(ip) => ip,
        Listen::OwnLoopback => {
            for _ in 0..8 {
                let mut b = [0u8; 3];
                if getrandom::fill(&mut b).is_err() {
                    break;
                }
                let ip = Ipv4Addr::new(127, b[0].clamp(1, 254), b[1], b[2].clamp(1, 254));
                match TcpListener::bind(SocketAddr::new(ip.into(), port)).await {
                    Ok(l) => return Ok(l),
                    // No such address here (macOS): 127.0.0.1.
                    Err(e) if e.kind() == std::io::ErrorKind::AddrNotAvailable => break,
                    Err(_) => continue,
                }
            }
            IpAddr::V4(Ipv4Addr::LOCALHOST)
        }
    };
    let addr = SocketAddr::new(ip, port);
    TcpListener::bind(addr).await.map_err(|e| (addr, e))
}

/// Put in every request's extensions: marks its connection as carrying the token.
#[derive(Clone, Debug)]
pub struct Authenticated(Arc<AtomicBool>);

impl Authenticated {
    /// The request carried the token or the cookie: its connection is the owner's.
    pub fn mark(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

struct Conn {
    authenticated: Arc<AtomicBool>,
    close: Arc<Notify>,
}

/// The open connections, oldest first (ids grow).
#[derive(Default)]
struct Conns {
    next: Mutex<u64>,
    open: Mutex<BTreeMap<u64, Conn>>,
    emptied: Notify,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Conns {
    /// Room for a new connection: at the limit, the oldest one not authenticated is
    /// told to close; `None` when every connection is authenticated.
    fn admit(&self) -> Option<(u64, Arc<AtomicBool>, Arc<Notify>)> {
        let mut open = lock(&self.open);
        if open.len() >= MAX_CONNECTIONS {
            let victim = open
                .iter()
                .find(|(_, c)| !c.authenticated.load(Ordering::Relaxed))
                .map(|(id, _)| *id)?;
            if let Some(c) = open.remove(&victim) {
                c.close.notify_one();
            }
        }
        let id = {
            let mut n = lock(&self.next);
            *n += 1;
            *n
        };
        let authenticated = Arc::new(AtomicBool::new(false));
        let close = Arc::new(Notify::new());
        open.insert(
            id,
            Conn {
                authenticated: authenticated.clone(),
                close: close.clone(),
            },
        );
        Some((id, authenticated, close))
    }

    fn remove(&self, id: u64) {
        let mut open = lock(&self.open);
        open.remove(&id);
        if open.is_empty() {
            self.emptied.notify_waiters();
        }
    }

    async fn wait_empty(&self, wait: Duration) {
        let _ = tokio::time::timeout(wait, async {
            loop {
                let emptied = self.emptied.notified();
                if lock(&self.open).is_empty() {
                    return;
                }
                emptied.await;
            }
        })
        .await;
    }
}

/// The open connections once the server stopped accepting: each was asked to finish
/// its request in progress and close.
pub struct Closing {
    conns: Arc<Conns>,
    /// Kept until the connections are gone: each still watches it.
    _stopping: watch::Sender<bool>,
}

impl Closing {
    /// Waits until every connection is closed, at most `wait` (those still busy then
    /// are left to the runtime's end).
    pub async fn wait(self, wait: Duration) {
        self.conns.wait_empty(wait).await;
    }
}

/// Serves `router` on `listener` until `stop` resolves; returns its value as soon as no
/// new connection is accepted and the open ones were asked to close.
pub async fn serve<S>(
    listener: TcpListener,
    router: Router,
    stop: impl Future<Output = S>,
) -> (S, Closing) {
    let conns = Arc::new(Conns::default());
    let (stopping_tx, stopping) = watch::channel(false);
    tokio::pin!(stop);
    let why = loop {
        tokio::select! {
            why = &mut stop => break why,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let Some((id, authenticated, close)) = conns.admit() else {
                        continue;
                    };
                    let _ = stream.set_nodelay(true);
                    tokio::spawn(connection(
                        stream,
                        router.clone(),
                        Authenticated(authenticated),
                        close,
                        stopping.clone(),
                        conns.clone(),
                        id,
                    ));
                }
                // Out of file descriptors, or a connection reset before it was
                // accepted: try again shortly.
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    };
    drop(listener);
    let _ = stopping_tx.send(true);
    (
        why,
        Closing {
            conns,
            _stopping: stopping_tx,
        },
    )
}

async fn connection(
    stream: tokio::net::TcpStream,
    router: Router,
    authenticated: Authenticated,
    close: Arc<Notify>,
    mut stopping: watch::Receiver<bool>,
    conns: Arc<Conns>,
    id: u64,
) {
    let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
        req.extensions_mut().insert(authenticated.clone());
        tower::ServiceExt::oneshot(router.clone(), req.map(Body::new))
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT);
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    let mut asked_to_stop = false;
    loop {
        tokio::select! {
            _ = conn.as_mut() => break,
            // Closed to make room for a new connection.
            _ = close.notified() => break,
            changed = stopping.changed(), if !asked_to_stop => {
                asked_to_stop = true;
                if changed.is_ok() {
                    conn.as_mut().graceful_shutdown();
                }
            }
        }
    }
    conns.remove(id);
}
