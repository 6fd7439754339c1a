//! The `openai:` port against a chat-completions server this test starts on 127.0.0.1
//! (PT7, PT8). Every server answers a fixed number of connections and then stops.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use serde_json::{json, Value};
use stagehand_ports::{
    Abort, ApiKey, CallResult, FailureClass, FromOutcome, OpenAiPort, Port, PortErrorKind, PortRequest, Retry, Who,
};

const KEY: &str = "sk-test-7f3a9c-never-print-me";

/// What the server does with one connection.
enum Answer {
    /// Respond with a status, extra headers and a body.
    Respond(u16, &'static str, String),
    /// Read the request, then say nothing for this long and close.
    Stall(Duration),
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    request_line: String,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

struct Server {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    thread: JoinHandle<()>,
}

impl Server {
    /// Starts a server that answers one connection per answer, in order.
    fn start(answers: Vec<Answer>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let thread = thread::spawn(move || {
            for answer in answers {
                let Ok((stream, _)) = listener.accept() else { return };
                stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
                let Some(request) = read_request(&stream) else { return };
                log.lock().unwrap().push(request);
                respond(stream, answer);
            }
        });
        Server { url, seen, thread }
    }

    /// Waits for the server to finish and returns what it saw.
    fn finish(self) -> Vec<Seen> {
        self.thread.join().unwrap();
        Arc::try_unwrap(self.seen).unwrap().into_inner().unwrap()
    }
}

fn read_request(stream: &TcpStream) -> Option<Seen> {
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    Some(Seen { request_line: request_line.trim_end().to_owned(), headers, body })
}

fn respond(mut stream: TcpStream, answer: Answer) {
    match answer {
        Answer::Respond(status, extra, body) => {
            let head = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body.as_bytes());
        }
        Answer::Stall(time) => thread::sleep(time),
    }
}

fn completion(text: &str) -> Answer {
    let body = json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
    });
    Answer::Respond(200, "", body.to_string())
}

fn fast_retry(retries: u32) -> Retry {
    Retry { retries, backoff: Duration::from_millis(1), max_backoff: Duration::from_millis(5) }
}

fn port(server: &Server, retries: u32) -> OpenAiPort {
    OpenAiPort::new("test-model", &server.url, ApiKey::new(KEY)).with_retry(fast_retry(retries))
}

fn request(prompt: &str) -> PortRequest {
    PortRequest::new(Who::player("reviewer"), prompt).with_timeout_ms(30_000)
}

#[test]
fn posts_a_chat_completion_with_the_key_and_returns_its_text() {
    let server = Server::start(vec![completion("Looks good. APPROVED")]);
    let reply = port(&server, 0).call(&request("Review this draft."), &Abort::new()).unwrap();
    assert_eq!(reply.final_text, "Looks good. APPROVED");
    assert_eq!(reply.resume_token, None);
    let seen = server.finish();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].request_line, "POST /v1/chat/completions HTTP/1.1");
    assert_eq!(seen[0].header("authorization"), Some(format!("Bearer {KEY}").as_str()));
    assert!(seen[0].header("content-type").is_some_and(|v| v.starts_with("application/json")));
    assert_eq!(
        seen[0].body,
        json!({"model": "test-model", "messages": [{"role": "user", "content": "Review this draft."}], "stream": false})
    );
}

#[test]
fn no_key_sends_no_authorization_header() {
    let server = Server::start(vec![completion("ok")]);
    let port = OpenAiPort::new("m", &format!("{}/", server.url), None);
    assert!(!port.has_key());
    assert_eq!(port.endpoint(), format!("{}/chat/completions", server.url));
    port.call(&request("x"), &Abort::new()).unwrap();
    assert_eq!(server.finish()[0].header("authorization"), None);
}

#[test]
fn retries_after_a_server_error() {
    let server = Server::start(vec![Answer::Respond(500, "", "{}".into()), completion("second time lucky")]);
    let reply = port(&server, 3).call(&request("x"), &Abort::new()).unwrap();
    assert_eq!(reply.final_text, "second time lucky");
    let seen = server.finish();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].body, seen[1].body, "a retry sends the same request");
}

#[test]
fn retries_after_429_and_honours_a_zero_retry_after() {
    let server = Server::start(vec![Answer::Respond(429, "Retry-After: 0\r\n", String::new()), completion("ok")]);
    assert_eq!(port(&server, 1).call(&request("x"), &Abort::new()).unwrap().final_text, "ok");
    assert_eq!(server.finish().len(), 2);
}

#[test]
fn retries_are_bounded_and_end_in_the_last_http_error() {
    let answers = (0..3).map(|_| Answer::Respond(503, "", r#"{"error":"overloaded"}"#.into())).collect();
    let server = Server::start(answers);
    let error = port(&server, 2).call(&request("x"), &Abort::new()).unwrap_err();
    assert_eq!(server.finish().len(), 3, "one attempt and two retries");
    assert_eq!((error.kind(), error.class()), (PortErrorKind::Http, FailureClass::Recoverable));
    assert!(error.message().contains("HTTP 503") && error.message().contains("overloaded"), "{error}");
}

#[test]
fn a_client_error_is_not_retried() {
    let server = Server::start(vec![Answer::Respond(400, "", r#"{"error":"unknown model"}"#.into())]);
    let error = port(&server, 3).call(&request("x"), &Abort::new()).unwrap_err();
    assert_eq!(server.finish().len(), 1);
    assert_eq!(error.kind(), PortErrorKind::Http);
    assert!(error.message().contains("unknown model"), "{error}");
}

#[test]
fn a_silent_server_is_a_timeout() {
    let server = Server::start(vec![Answer::Stall(Duration::from_millis(1500))]);
    let request = PortRequest::new(Who::Judge, "classify").with_timeout_ms(300);
    let error = port(&server, 3).call(&request, &Abort::new()).unwrap_err();
    assert_eq!((error.kind(), error.class()), (PortErrorKind::Timeout, FailureClass::Recoverable), "{error}");
    server.finish();
}

#[test]
fn a_refused_connection_is_retried_then_a_transport_error() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    drop(listener);
    let port = OpenAiPort::new("m", &url, ApiKey::new(KEY)).with_retry(fast_retry(2));
    let error = port.call(&request("x"), &Abort::new()).unwrap_err();
    assert_eq!((error.kind(), error.class()), (PortErrorKind::Transport, FailureClass::Recoverable), "{error}");
    assert!(!error.message().contains(KEY));
}

#[test]
fn the_key_appears_in_no_error_and_no_debug_output() {
    // The server echoes the key back, as a misconfigured proxy or server might.
    let echo = format!(r#"{{"error": "invalid key {KEY}"}}"#);
    let server = Server::start(vec![Answer::Respond(401, "", echo)]);
    let port = port(&server, 0);
    let error = port.call(&request("x"), &Abort::new()).unwrap_err();
    server.finish();
    assert!(error.message().contains("HTTP 401"), "{error}");
    assert!(error.message().contains("STAGEHAND_OPENAI_API_KEY"), "the message says where the key comes from");
    assert!(error.message().contains("<redacted>"), "{error}");
    let texts = [
        error.to_string(),
        format!("{error:?}"),
        format!("{:?}", error.normalized()),
        serde_json::to_string(&CallResult::from_outcome(Err(error.clone())).unwrap()).unwrap(),
        format!("{port:?}"),
        format!("{:?}", ApiKey::new(KEY)),
    ];
    for text in texts {
        assert!(!text.contains(KEY), "the key leaked: {text}");
        assert!(!text.contains("7f3a9c"), "part of the key leaked: {text}");
    }
}

#[test]
fn an_answer_without_text_is_malformed() {
    let server = Server::start(vec![Answer::Respond(200, "", r#"{"choices": []}"#.into())]);
    let error = port(&server, 3).call(&request("x"), &Abort::new()).unwrap_err();
    assert_eq!(server.finish().len(), 1);
    assert_eq!((error.kind(), error.class()), (PortErrorKind::Malformed, FailureClass::ControlPlane));
}

#[test]
fn a_resume_token_is_refused_rather_than_silently_dropped() {
    let port = OpenAiPort::new("m", "http://127.0.0.1:9/v1", None);
    let error = port.call(&request("x").resuming("t"), &Abort::new()).unwrap_err();
    assert_eq!(error.kind(), PortErrorKind::Config);
}

#[test]
fn an_aborted_call_sends_nothing() {
    let abort = Abort::new();
    abort.abort();
    let port = OpenAiPort::new("m", "http://127.0.0.1:9/v1", None);
    assert_eq!(port.call(&request("x"), &abort).unwrap_err().kind(), PortErrorKind::Aborted);
}

#[test]
fn backoff_doubles_up_to_its_cap() {
    let retry = Retry { retries: 9, backoff: Duration::from_millis(100), max_backoff: Duration::from_millis(700) };
    let delays: Vec<u128> = (0..5).map(|n| retry.delay(n).as_millis()).collect();
    assert_eq!(delays, [100, 200, 400, 700, 700]);
    assert_eq!(retry.delay(u32::MAX), Duration::from_millis(700));
}
