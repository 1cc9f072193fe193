//! What the server measures about itself beyond plain counters: request latency histograms
//! by route, and the hook through which the text index reports
//! how far behind the store it is. `/metrics` and `/status` (routes::health) read them.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// Upper bounds (seconds) of the latency histogram buckets, Prometheus' `le` labels.
pub const LATENCY_BUCKETS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// One route's histogram: counts per bucket (not cumulative), the total count and sum.
#[derive(Debug, Clone, Default)]
struct Histogram {
    buckets: [u64; LATENCY_BUCKETS.len()],
    count: u64,
    sum_seconds: f64,
}

/// Request latency (time to the response head) per route.
#[derive(Debug, Default)]
pub struct Latency {
    routes: Mutex<BTreeMap<String, Histogram>>,
}

impl Latency {
    /// Records one request of `route` that took `elapsed`.
    pub fn observe(&self, route: &str, elapsed: Duration) {
        let seconds = elapsed.as_secs_f64();
        let mut routes = self.routes.lock().unwrap_or_else(|e| e.into_inner());
        let histogram = match routes.get_mut(route) {
            Some(h) => h,
            None => routes.entry(route.to_owned()).or_default(),
        };
        if let Some(bucket) = LATENCY_BUCKETS.iter().position(|&le| seconds <= le) {
            histogram.buckets[bucket] += 1;
        }
        histogram.count += 1;
        histogram.sum_seconds += seconds;
    }

    /// Writes `lodestone_http_request_duration_seconds` in the Prometheus text format.
    pub fn write_prometheus(&self, out: &mut String, escape: impl Fn(&str) -> String) {
        let name = "lodestone_http_request_duration_seconds";
        let _ = writeln!(
            out,
            "# HELP {name} Time to the response head, by route.\n# TYPE {name} histogram"
        );
        let routes = self.routes.lock().unwrap_or_else(|e| e.into_inner());
        for (route, histogram) in routes.iter() {
            let route = escape(route);
            let mut cumulative = 0;
            for (le, count) in LATENCY_BUCKETS.iter().zip(histogram.buckets) {
                cumulative += count;
                let _ = writeln!(
                    out,
                    "{name}_bucket{{route=\"{route}\",le=\"{le}\"}} {cumulative}"
                );
            }
            let _ = writeln!(
                out,
                "{name}_bucket{{route=\"{route}\",le=\"+Inf\"}} {}\n{name}_sum{{route=\"{route}\"}} {}\n{name}_count{{route=\"{route}\"}} {}",
                histogram.count, histogram.sum_seconds, histogram.count
            );
        }
    }
}

/// The text index's lag behind the store, in commits: a function the text indexer registers
/// once with [`TextIndexLag::register`] (at start, when it is wired in); until then `/status`
/// reports `null` and `/metrics` leaves the gauge out.
#[derive(Default)]
pub struct TextIndexLag {
    probe: OnceLock<Box<dyn Fn() -> u64 + Send + Sync>>,
}

impl std::fmt::Debug for TextIndexLag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.probe.get().is_some() {
            "TextIndexLag(registered)"
        } else {
            "TextIndexLag(none)"
        })
    }
}

impl TextIndexLag {
    /// Registers the function that says how many commits the text index has not applied yet.
    /// Only the first registration counts; returns whether this one did.
    pub fn register(&self, probe: impl Fn() -> u64 + Send + Sync + 'static) -> bool {
        self.probe.set(Box::new(probe)).is_ok()
    }

    /// Commits not yet in the text index, if a text index is registered.
    pub fn commits_behind(&self) -> Option<u64> {
        self.probe.get().map(|probe| probe())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_are_cumulative_with_sum_and_count() {
        let latency = Latency::default();
        latency.observe("/sparql", Duration::from_millis(3));
        latency.observe("/sparql", Duration::from_millis(40));
        latency.observe("/sparql", Duration::from_secs(60));
        let mut out = String::new();
        latency.write_prometheus(&mut out, str::to_owned);
        assert!(out.contains("_bucket{route=\"/sparql\",le=\"0.005\"} 1\n"));
        assert!(out.contains("_bucket{route=\"/sparql\",le=\"0.05\"} 2\n"));
        assert!(out.contains("_bucket{route=\"/sparql\",le=\"30\"} 2\n"));
        assert!(out.contains("_bucket{route=\"/sparql\",le=\"+Inf\"} 3\n"));
        assert!(out.contains("_count{route=\"/sparql\"} 3\n"));
    }

    #[test]
    fn text_index_lag_is_unknown_until_registered() {
        let lag = TextIndexLag::default();
        assert_eq!(lag.commits_behind(), None);
        assert!(lag.register(|| 3));
        assert!(!lag.register(|| 4));
        assert_eq!(lag.commits_behind(), Some(3));
    }
}
