//! The server's counters, written in Prometheus' text format at `/metrics` (decision S8): a
//! handful of fixed series, so plain atomics and one writer function, no registry.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Latency buckets, in seconds.
const BUCKETS: [f64; 12] = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0];

/// A latency histogram.
#[derive(Debug, Default)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

/// Everything counted.
#[derive(Debug, Default)]
pub struct Metrics {
    /// Requests by (route, status).
    requests: Mutex<BTreeMap<(String, u16), u64>>,
    /// Latency by route.
    latency: Mutex<BTreeMap<String, Histogram>>,
    /// Applies and inputs committed, by disposition.
    applies: Mutex<BTreeMap<&'static str, u64>>,
    /// Responses replayed from a stored receipt.
    replayed: AtomicU64,
    /// Applies retried because the session's version moved.
    retried: AtomicU64,
    /// Sessions created.
    created: AtomicU64,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Metrics {
    /// Counts a request to `route` answered with `status` after `elapsed`.
    pub fn request(&self, route: &str, status: u16, elapsed: Duration) {
        *lock(&self.requests).entry((route.to_owned(), status)).or_default() += 1;
        let mut latency = lock(&self.latency);
        let histogram = latency.entry(route.to_owned()).or_default();
        let seconds = elapsed.as_secs_f64();
        for (bucket, count) in BUCKETS.iter().zip(histogram.counts.iter_mut()) {
            if seconds <= *bucket {
                *count += 1;
            }
        }
        histogram.count += 1;
        histogram.sum += seconds;
    }

    /// Counts a committed apply or input by its disposition.
    pub fn applied(&self, disposition: &'static str) {
        *lock(&self.applies).entry(disposition).or_default() += 1;
    }

    /// Counts a response replayed from its receipt.
    pub fn replayed(&self) {
        self.replayed.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a retry on a moved version.
    pub fn retried(&self) {
        self.retried.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a created session.
    pub fn created(&self) {
        self.created.fetch_add(1, Ordering::Relaxed);
    }

    /// The text exposition, with `sessions` (the number stored now).
    pub fn render(&self, sessions: i64) -> String {
        let mut out = String::new();
        out.push_str("# HELP stagehand_http_requests_total HTTP requests answered, by route and status.\n");
        out.push_str("# TYPE stagehand_http_requests_total counter\n");
        for ((route, status), count) in lock(&self.requests).iter() {
            let _ = writeln!(out, "stagehand_http_requests_total{{route=\"{route}\",status=\"{status}\"}} {count}");
        }
        out.push_str("# HELP stagehand_http_request_duration_seconds Time to answer, by route.\n");
        out.push_str("# TYPE stagehand_http_request_duration_seconds histogram\n");
        for (route, histogram) in lock(&self.latency).iter() {
            for (bucket, count) in BUCKETS.iter().zip(histogram.counts.iter()) {
                let _ = writeln!(
                    out,
                    "stagehand_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"{bucket}\"}} {count}"
                );
            }
            let count = histogram.count;
            let _ = writeln!(
                out,
                "stagehand_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {count}"
            );
            let _ = writeln!(out, "stagehand_http_request_duration_seconds_sum{{route=\"{route}\"}} {}", histogram.sum);
            let _ = writeln!(out, "stagehand_http_request_duration_seconds_count{{route=\"{route}\"}} {count}");
        }
        out.push_str("# HELP stagehand_applies_total Applies and inputs committed, by disposition.\n");
        out.push_str("# TYPE stagehand_applies_total counter\n");
        for (disposition, count) in lock(&self.applies).iter() {
            let _ = writeln!(out, "stagehand_applies_total{{disposition=\"{disposition}\"}} {count}");
        }
        let counters = [
            ("stagehand_receipts_replayed_total", "Responses replayed from a stored receipt.", &self.replayed),
            ("stagehand_apply_retries_total", "Applies computed again because the session moved.", &self.retried),
            ("stagehand_sessions_created_total", "Sessions created by this process.", &self.created),
        ];
        for (name, help, value) in counters {
            let _ =
                writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter\n{name} {}", value.load(Ordering::Relaxed));
        }
        out.push_str("# HELP stagehand_sessions Sessions stored.\n# TYPE stagehand_sessions gauge\n");
        let _ = writeln!(out, "stagehand_sessions {sessions}");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_format_carries_every_series() {
        let metrics = Metrics::default();
        metrics.request("/v1/sessions", 201, Duration::from_micros(700));
        metrics.applied("executed");
        metrics.replayed();
        let text = metrics.render(3);
        assert!(text.contains("stagehand_http_requests_total{route=\"/v1/sessions\",status=\"201\"} 1"));
        assert!(text.contains("stagehand_http_request_duration_seconds_bucket{route=\"/v1/sessions\",le=\"0.001\"} 1"));
        assert!(text.contains("stagehand_http_request_duration_seconds_bucket{route=\"/v1/sessions\",le=\"0.0005\"} 0"));
        assert!(text.contains("stagehand_applies_total{disposition=\"executed\"} 1"));
        assert!(text.contains("stagehand_receipts_replayed_total 1"));
        assert!(text.contains("stagehand_sessions 3"));
    }
}
