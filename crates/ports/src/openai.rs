//! The `openai:` port: an OpenAI-compatible chat-completions server (PT7, PT8).
//!
//! Each call is one `POST {URL}/chat/completions` with `stream: false` and the prompt as the
//! single user message; the final text is `choices[0].message.content`. A 429, a 5xx or a
//! failed connection is retried with exponential backoff (a bounded number of times, never
//! past the request's time limit; `Retry-After` in seconds is honoured up to the backoff
//! cap). The API key comes from [`ENV_API_KEY`] or else [`ENV_API_KEY_FALLBACK`], is sent as
//! `Authorization: Bearer …`, and is never logged, printed, or put in an error: [`ApiKey`]'s
//! `Debug` shows no key, and any text a server echoes is scrubbed of it.
//!
//! Chat completions are stateless, so this port gives no resume tokens; a request carrying
//! one is a `config` error rather than a silent fresh conversation.

use std::fmt;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::port::{Abort, Port, PortError, PortErrorKind, PortReply, PortRequest};

/// The variable the API key is read from first.
pub const ENV_API_KEY: &str = "STAGEHAND_OPENAI_API_KEY";
/// The variable the API key is read from when [`ENV_API_KEY`] is unset or empty.
pub const ENV_API_KEY_FALLBACK: &str = "OPENAI_API_KEY";

/// The most a chat-completion response body may be: 16 MiB.
const MAX_BODY: u64 = 16 * 1024 * 1024;
/// How much of an error body goes into a message.
const EXCERPT: usize = 300;

/// An API key. It has no `Display`, and its `Debug` shows `ApiKey(<redacted>)`.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// A key from its text; `None` when the text is empty or blank.
    pub fn new(key: impl Into<String>) -> Option<ApiKey> {
        let key = key.into();
        (!key.trim().is_empty()).then(|| ApiKey(key.trim().to_owned()))
    }

    /// The key from [`ENV_API_KEY`], else [`ENV_API_KEY_FALLBACK`]; `None` when neither is set.
    pub fn from_env() -> Option<ApiKey> {
        [ENV_API_KEY, ENV_API_KEY_FALLBACK].into_iter().find_map(|name| std::env::var(name).ok().and_then(ApiKey::new))
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// How often and how patiently a call is retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// Retries after the first attempt (so `attempts = retries + 1`).
    pub retries: u32,
    /// The wait before the first retry; each later wait doubles it.
    pub backoff: Duration,
    /// The longest wait between two attempts.
    pub max_backoff: Duration,
}

impl Default for Retry {
    /// Three retries, waiting 1 s, 2 s, 4 s (at most 30 s for a `Retry-After`).
    fn default() -> Retry {
        Retry { retries: 3, backoff: Duration::from_secs(1), max_backoff: Duration::from_secs(30) }
    }
}

impl Retry {
    /// The wait before retry number `n` (0-based), without `Retry-After`.
    pub fn delay(&self, n: u32) -> Duration {
        let factor = 1u32.checked_shl(n.min(20)).unwrap_or(u32::MAX);
        self.backoff.saturating_mul(factor).min(self.max_backoff)
    }
}

/// A chat-completions server and a model.
#[derive(Clone)]
pub struct OpenAiPort {
    model: String,
    endpoint: String,
    key: Option<ApiKey>,
    retry: Retry,
    agent: ureq::Agent,
}

impl fmt::Debug for OpenAiPort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiPort")
            .field("model", &self.model)
            .field("endpoint", &self.endpoint)
            .field("key", &self.key)
            .field("retry", &self.retry)
            .finish()
    }
}

impl OpenAiPort {
    /// A port for `model` at `url` (the API's base, e.g. `https://api.openai.com/v1`), with
    /// `key` (none: no `Authorization` header, as local servers need) and default retries.
    pub fn new(model: impl Into<String>, url: &str, key: Option<ApiKey>) -> OpenAiPort {
        let base = url.trim_end_matches('/');
        let endpoint = format!("{base}/chat/completions");
        let mut config = ureq::Agent::config_builder().http_status_as_error(false).max_redirects(0);
        if is_loopback(base) {
            // A server on this machine is never reached through a proxy.
            config = config.proxy(None);
        }
        OpenAiPort { model: model.into(), endpoint, key, retry: Retry::default(), agent: config.build().new_agent() }
    }

    /// A port for `model` at `url` with the key from the environment ([`ApiKey::from_env`]).
    pub fn from_env(model: impl Into<String>, url: &str) -> OpenAiPort {
        OpenAiPort::new(model, url, ApiKey::from_env())
    }

    /// The same port with another retry policy.
    pub fn with_retry(mut self, retry: Retry) -> OpenAiPort {
        self.retry = retry;
        self
    }

    /// The model.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The full URL posted to (`…/chat/completions`).
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Whether a key will be sent.
    pub fn has_key(&self) -> bool {
        self.key.is_some()
    }

    /// The request body for a prompt.
    pub fn request_body(&self, prompt: &str) -> Value {
        json!({
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "stream": false,
        })
    }

    /// Replaces every occurrence of the key in `text` (a server may echo it back).
    fn scrub(&self, text: &str) -> String {
        match &self.key {
            Some(ApiKey(key)) if !key.is_empty() => text.replace(key.as_str(), "<redacted>"),
            _ => text.to_owned(),
        }
    }

    fn error(&self, kind: PortErrorKind, message: String) -> PortError {
        PortError::new(kind, self.scrub(&message))
    }

    /// One attempt: the reply, or an error and whether it may be retried (with any wait the
    /// server asked for).
    fn attempt(&self, body: &[u8], budget: Duration, who: &str) -> Attempt {
        let mut request = self
            .agent
            .post(&self.endpoint)
            .config()
            .timeout_global(Some(budget))
            .build()
            .header("Content-Type", "application/json");
        if let Some(ApiKey(key)) = &self.key {
            request = request.header("Authorization", format!("Bearer {key}"));
        }
        let mut response = match request.send(body) {
            Ok(response) => response,
            Err(ureq::Error::Timeout(_)) => {
                return Attempt::Final(self.error(
                    PortErrorKind::Timeout,
                    format!("{who}: {} did not answer within the time limit", self.endpoint),
                ))
            }
            Err(e) => {
                return Attempt::Retry(
                    self.error(PortErrorKind::Transport, format!("{who}: could not reach {}: {e}", self.endpoint)),
                    None,
                )
            }
        };
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let text = match response.body_mut().with_config().limit(MAX_BODY).read_to_string() {
            Ok(text) => text,
            Err(ureq::Error::Timeout(_)) => {
                return Attempt::Final(self.error(
                    PortErrorKind::Timeout,
                    format!("{who}: {} did not finish its answer within the time limit", self.endpoint),
                ))
            }
            Err(e) if (200..300).contains(&status) => {
                return Attempt::Final(
                    self.error(PortErrorKind::Malformed, format!("{who}: could not read the answer: {e}")),
                )
            }
            Err(_) => String::new(),
        };
        if (200..300).contains(&status) {
            return match final_text(&text) {
                Some(final_text) => Attempt::Done(PortReply { final_text, resume_token: None }),
                None => Attempt::Final(self.error(
                    PortErrorKind::Malformed,
                    format!("{who}: the answer is not a chat completion with text: {}", excerpt(&text)),
                )),
            };
        }
        let mut message = format!("{who}: {} answered HTTP {status}", self.endpoint);
        if status == 401 || status == 403 {
            message.push_str(&format!(" (is {ENV_API_KEY} or {ENV_API_KEY_FALLBACK} set to a valid key?)"));
        }
        if !text.trim().is_empty() {
            message.push_str(": ");
            message.push_str(&excerpt(&text));
        }
        let error = self.error(PortErrorKind::Http, message);
        if status == 429 || (500..600).contains(&status) {
            Attempt::Retry(error, retry_after)
        } else {
            Attempt::Final(error)
        }
    }
}

enum Attempt {
    Done(PortReply),
    Retry(PortError, Option<Duration>),
    Final(PortError),
}

impl Port for OpenAiPort {
    fn call(&self, request: &PortRequest, abort: &Abort) -> Result<PortReply, PortError> {
        let who = request.who.to_string();
        if request.resume.is_some() {
            return Err(PortError::new(
                PortErrorKind::Config,
                format!("{who}: an openai: port gives no resume tokens, yet the call names one"),
            ));
        }
        let body = serde_json::to_vec(&self.request_body(&request.prompt)).map_err(|e| {
            PortError::new(PortErrorKind::Malformed, format!("{who}: could not write the request: {e}"))
        })?;
        let deadline = Instant::now() + Duration::from_millis(request.timeout_ms);
        let timed_out = || {
            PortError::new(
                PortErrorKind::Timeout,
                format!("{who}: no answer from {} within {} ms", self.endpoint, request.timeout_ms),
            )
        };
        let mut last = None;
        for n in 0..=self.retry.retries {
            if abort.is_aborted() {
                return Err(PortError::new(PortErrorKind::Aborted, format!("{who}: the call was aborted")));
            }
            let budget = deadline.saturating_duration_since(Instant::now());
            if budget.is_zero() {
                return Err(last.unwrap_or_else(timed_out));
            }
            match self.attempt(&body, budget, &who) {
                Attempt::Done(reply) => return Ok(reply),
                Attempt::Final(error) => return Err(error),
                Attempt::Retry(error, asked) => {
                    last = Some(error);
                    if n == self.retry.retries {
                        break;
                    }
                    let wait = asked.unwrap_or_default().max(self.retry.delay(n)).min(self.retry.max_backoff);
                    if !sleep_unless_aborted(wait, deadline, abort) {
                        return Err(PortError::new(PortErrorKind::Aborted, format!("{who}: the call was aborted")));
                    }
                }
            }
        }
        Err(last.unwrap_or_else(timed_out))
    }
}

/// Sleeps `wait` (never past `deadline`), looking at the abort signal every 25 ms; `false`
/// when it was raised.
fn sleep_unless_aborted(wait: Duration, deadline: Instant, abort: &Abort) -> bool {
    let until = (Instant::now() + wait).min(deadline);
    loop {
        if abort.is_aborted() {
            return false;
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return true;
        }
        thread::sleep(left.min(Duration::from_millis(25)));
    }
}

/// `choices[0].message.content` when it is text.
fn final_text(body: &str) -> Option<String> {
    let value: Value = serde_json::from_str(body).ok()?;
    value.pointer("/choices/0/message/content")?.as_str().map(str::to_owned)
}

/// The first characters of a body, on one line.
fn excerpt(text: &str) -> String {
    let flat: String = text.trim().chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if flat.chars().count() <= EXCERPT {
        flat
    } else {
        let head: String = flat.chars().take(EXCERPT).collect();
        format!("{head}…")
    }
}

/// Whether a base URL names this machine (`localhost`, `127.x.y.z`, `[::1]`).
fn is_loopback(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split('/').next().unwrap_or("");
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        authority.rsplit_once(':').map_or(authority, |(host, _)| host)
    };
    host.eq_ignore_ascii_case("localhost") || host == "::1" || host.starts_with("127.")
}
