//! A small HTTP/1.1 server on 127.0.0.1 for the provider tests and the benchmark. It
//! speaks just enough HTTP: one request per connection, `Connection: close`.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// A request as received.
#[derive(Clone, Debug)]
pub struct Received {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).expect("request body is JSON")
    }
}

/// What to answer.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub delay: Duration,
    /// Instead of `body`: server-sent events, one `data:` line each, written with a
    /// pause between them until the client hangs up; the count of events written
    /// goes to the counter.
    pub events: Option<Events>,
}

/// A streamed reply (see [`Reply::stream`]).
#[derive(Clone, Debug)]
pub struct Events {
    pub data: Vec<String>,
    pub pause: Duration,
    pub written: Arc<AtomicUsize>,
}

impl Reply {
    pub fn json(status: u16, body: impl Into<String>) -> Reply {
        Reply {
            status,
            headers: vec![],
            body: body.into(),
            delay: Duration::ZERO,
            events: None,
        }
    }
    /// A `text/event-stream` reply of `data` events; returns the reply and the counter
    /// of events the server managed to write before the client closed the connection.
    pub fn stream(data: Vec<String>, pause: Duration) -> (Reply, Arc<AtomicUsize>) {
        let written = Arc::new(AtomicUsize::new(0));
        let reply = Reply {
            events: Some(Events {
                data,
                pause,
                written: written.clone(),
            }),
            ..Reply::json(200, "")
        };
        (reply, written)
    }
    pub fn header(mut self, k: &str, v: &str) -> Reply {
        self.headers.push((k.into(), v.into()));
        self
    }
    pub fn delay(mut self, d: Duration) -> Reply {
        self.delay = d;
        self
    }
}

type Handler = dyn Fn(&Received, usize) -> Reply + Send + Sync;

pub struct Server {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    hits: Arc<AtomicUsize>,
    log: Arc<Mutex<Vec<Received>>>,
    accept: Option<JoinHandle<()>>,
}

impl Server {
    /// Starts a server whose `handler(request, hit_number)` decides every answer.
    pub fn start(handler: impl Fn(&Received, usize) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let hits = Arc::new(AtomicUsize::new(0));
        let log = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let (s, h, l) = (stop.clone(), hits.clone(), log.clone());
        let accept = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = conn else { continue };
                let (handler, h, l) = (handler.clone(), h.clone(), l.clone());
                std::thread::spawn(move || serve(stream, &*handler, &h, &l));
            }
        });
        Server {
            addr,
            stop,
            hits,
            log,
            accept: Some(accept),
        }
    }

    /// The base URL, with `/v1`.
    pub fn url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }

    pub fn requests(&self) -> Vec<Received> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

fn serve(stream: TcpStream, handler: &Handler, hits: &AtomicUsize, log: &Mutex<Vec<Received>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return; // the wake-up connection from Drop, or a client that gave up
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    let mut headers = Vec::new();
    let mut length = 0usize;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 {
            return;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            let (k, v) = (k.trim().to_string(), v.trim().to_string());
            if k.eq_ignore_ascii_case("content-length") {
                length = v.parse().unwrap_or(0);
            }
            headers.push((k, v));
        }
    }
    let mut body = vec![0u8; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let req = Received {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    let n = hits.fetch_add(1, Ordering::SeqCst);
    log.lock().unwrap().push(req.clone());
    let reply = handler(&req, n);
    if !reply.delay.is_zero() {
        std::thread::sleep(reply.delay);
    }
    let reason = match reply.status {
        200 => "OK",
        401 => "Unauthorized",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    };
    if let Some(ev) = &reply.events {
        let mut stream = stream;
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
        if stream.write_all(head.as_bytes()).is_err() {
            return;
        }
        for d in &ev.data {
            let chunk = format!("data: {d}\n\n");
            if stream
                .write_all(chunk.as_bytes())
                .and_then(|_| stream.flush())
                .is_err()
            {
                return;
            }
            ev.written.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(ev.pause);
        }
        return;
    }
    let mut out = format!(
        "HTTP/1.1 {} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        reply.status,
        reply.body.len()
    );
    for (k, v) in &reply.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    out.push_str(&reply.body);
    let mut stream = stream;
    let _ = stream.write_all(out.as_bytes());
    let _ = stream.flush();
}

/// An OpenAI chat-completions body.
pub fn openai_body(text: &str, finish: &str, prompt_tokens: u64, completion_tokens: u64) -> String {
    serde_json::json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens}
    })
    .to_string()
}

/// An Anthropic messages body with one text block.
pub fn anthropic_body(
    text: &str,
    stop_reason: &str,
    input_tokens: u64,
    output_tokens: u64,
) -> String {
    serde_json::json!({
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "test-model",
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop_reason,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}
    })
    .to_string()
}

/// A handler that answers every OpenAI request with the last user message, reversed
/// word order, after `latency`.
pub fn echo_openai(
    latency: Duration,
) -> impl Fn(&Received, usize) -> Reply + Send + Sync + 'static {
    move |req, _| {
        let v: serde_json::Value = serde_json::from_str(&req.body).unwrap_or_default();
        let last = v["messages"]
            .as_array()
            .and_then(|m| m.last())
            .and_then(|m| m["content"].as_str())
            .unwrap_or("")
            .to_string();
        let answer: Vec<&str> = last.split_whitespace().rev().collect();
        Reply::json(200, openai_body(&answer.join(" "), "stop", 10, 5)).delay(latency)
    }
}
