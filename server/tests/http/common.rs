//! A server on 127.0.0.1:0 over a temporary store, and small helpers for requests.

use lodestone_server::settings::ServerSettings;
use lodestone_server::{serve_listener, AppState};
use lodestone_store::load::{parse_into, ParseOptions, RdfFormat};
use lodestone_store::{Store, StoreOptions};
use reqwest::blocking::{Client, Response};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// Held by tests that measure time or push the machine hard, so that they do not run at the
/// same moment as each other (the test harness runs tests in parallel threads).
pub fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

pub const EX: &str = "http://example.org/";

/// The real server on 127.0.0.1:0 in a runtime of its own; dropping it shuts it down.
pub struct Running {
    pub base: String,
    runtime: Option<tokio::runtime::Runtime>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Running {
    pub fn start(state: AppState) -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).expect("nonblocking");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let runtime = lodestone_server::priority::runtime_builder()
            .worker_threads(2)
            .build()
            .expect("runtime");
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        runtime.spawn(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            let shutdown = async move {
                let _ = rx.await;
            };
            serve_listener(listener, state, shutdown)
                .await
                .expect("serve");
        });
        Self {
            base,
            runtime: Some(runtime),
            shutdown: Some(tx),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(Duration::from_secs(5));
        }
    }
}

pub struct TestServer {
    pub base: String,
    _server: Running,
    _dir: TempDir,
}

impl TestServer {
    pub fn start(settings: ServerSettings) -> Self {
        Self::with_data(settings, "")
    }

    /// A server whose store holds `trig` (TriG, so tests can fill named graphs).
    pub fn with_data(settings: ServerSettings, trig: &str) -> Self {
        Self::with_store(settings, |store| {
            if !trig.is_empty() {
                load(store, trig);
            }
        })
    }

    /// A server over a new store that `fill` writes to before the server starts.
    pub fn with_store(settings: ServerSettings, fill: impl FnOnce(&Store)) -> Self {
        let (dir, store) = temp_store();
        fill(&store);
        let server = Running::start(AppState::new(Arc::clone(&store), settings));
        Self {
            base: server.base.clone(),
            _server: server,
            _dir: dir,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// GET /sparql?query=… with an Accept header.
    pub fn query(&self, query: &str, accept: &str) -> Response {
        client()
            .get(self.url("/sparql"))
            .query(&[("query", query)])
            .header("Accept", accept)
            .send()
            .expect("request")
    }

    /// The values of `?var` in a JSON SELECT answer, in order.
    pub fn select(&self, query: &str, var: &str) -> Vec<String> {
        let response = self.query(query, "application/sparql-results+json");
        assert_eq!(response.status(), 200, "{query}");
        bindings(&response.json::<serde_json::Value>().expect("json"), var)
    }

    /// Polls /status until `queries_in_flight` equals `n`; returns whether it did in time.
    pub fn wait_in_flight(&self, n: u64, within: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < within {
            let status: serde_json::Value = client()
                .get(self.url("/status"))
                .send()
                .expect("status")
                .json()
                .expect("json");
            if status["queries_in_flight"].as_u64() == Some(n) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

/// A new store in a temporary folder (the store must close before the folder is removed).
pub fn temp_store() -> (TempDir, Arc<Store>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store =
        Arc::new(Store::open(dir.path().join("store"), StoreOptions::default()).expect("store"));
    (dir, store)
}

pub fn load(store: &Store, trig: &str) {
    let mut transaction = store.transaction().expect("transaction");
    let options = ParseOptions {
        format: Some(RdfFormat::TriG),
        ..ParseOptions::default()
    };
    parse_into(&mut transaction, trig.as_bytes(), "test data", &options).expect("parse");
    transaction.commit().expect("commit");
}

pub fn client() -> Client {
    Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .expect("client")
}

pub fn bindings(json: &serde_json::Value, var: &str) -> Vec<String> {
    json["results"]["bindings"]
        .as_array()
        .expect("bindings")
        .iter()
        .map(|b| b[var]["value"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// `n` triples `ex:s{i} ex:p ex:o{i}` in the default graph, as TriG.
pub fn numbered_triples(n: usize) -> String {
    (0..n)
        .map(|i| format!("<{EX}s{i}> <{EX}p> <{EX}o{i}> .\n"))
        .collect()
}

/// All values of a response header joined by ", " (empty if absent).
pub fn header(response: &Response, name: &str) -> String {
    let values: Vec<&str> = response
        .headers()
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    values.join(", ")
}

/// The media type of a response without parameters.
pub fn content_type(response: &Response) -> String {
    header(response, "content-type")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_owned()
}

/// The error code of a JSON error body.
pub fn error_code(response: Response) -> String {
    let body: serde_json::Value = response.json().expect("error body is JSON");
    body["code"].as_str().unwrap_or("").to_owned()
}

/// Parses an RDF document into sorted N-Triples lines (graph names dropped).
pub fn parse_rdf(body: &[u8], format: RdfFormat) -> Vec<String> {
    let mut lines: Vec<String> = oxrdfio::RdfParser::from_format(format)
        .for_slice(body)
        .map(|q| {
            let q = q.expect("valid RDF");
            format!("{} {} {} .", q.subject, q.predicate, q.object)
        })
        .collect();
    lines.sort();
    lines
}

/// `/status` of the server at `base` once its totals are counted as of commit `since` or a
/// later one (within ten seconds; they are counted in the background, so the first answers
/// may come without them), and the number of `/status` requests that took.
pub fn counted_status(base: &str, since: u64) -> (serde_json::Value, u64) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut requests = 0;
    loop {
        let status: serde_json::Value = client()
            .get(format!("{base}/status"))
            .send()
            .and_then(Response::json)
            .expect("status");
        requests += 1;
        if status["totals_commit"]
            .as_u64()
            .is_some_and(|counted| counted >= since)
        {
            return (status, requests);
        }
        assert!(Instant::now() < deadline, "totals never counted: {status}");
        std::thread::sleep(Duration::from_millis(20));
    }
}
