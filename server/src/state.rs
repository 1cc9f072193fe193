//! The state every handler shares: the store, the settings, the query slots and the counters.
//!
//! Cheap to clone (one `Arc`). The store is behind its own `Arc` so that blocking engine work
//! can hold it for as long as a streamed response lasts, independently of the request.

use crate::error::ApiError;
use crate::extract::body::BodyBudget;
use crate::priority::WriteLanes;
use crate::settings::ServerSettings;
use crate::slots::{Slots, Taken};
use lodestone_facets::FacetEngine;
use lodestone_indexer::TextIndex;
use lodestone_store::{Store, StoreCounts};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;
use tokio::sync::OwnedSemaphorePermit;

/// Page requests that may wait for a page slot ([`AppState::page_slot`]).
pub const PAGE_QUEUE: usize = 512;

/// How long a page request waits for a page slot before it is answered "busy".
pub const PAGE_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Shared state of the HTTP application.
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

struct Inner {
    store: Arc<Store>,
    settings: ServerSettings,
    queries: Slots,
    writes: Slots,
    pages: Slots,
    writers: WriteLanes,
    metrics: Metrics,
    started: Instant,
    totals: crate::store_totals::StoreTotals,
    text_index: OnceLock<Arc<TextIndex>>,
    text_function: OnceLock<(oxrdf::NamedNode, lodestone_store::sparql::CustomFunction)>,
    facets: FacetEngine,
    page_cache: Arc<crate::page_cache::PageCache>,
    bodies: BodyBudget,
    prefixes: crate::prefix_table::PrefixTable,
}

impl AppState {
    /// State over an open store with the given settings.
    pub fn new(store: Arc<Store>, settings: ServerSettings) -> Self {
        let queries = Slots::new(settings.max_concurrent_queries, settings.query_queue);
        let writes = Slots::new(1, settings.query_queue);
        let pages = Slots::new(settings.max_concurrent_queries, PAGE_QUEUE);
        let writers = WriteLanes::start(settings.large_write_nice);
        let bodies = BodyBudget::new(settings.max_body_bytes_in_flight);
        let prefixes = crate::prefix_table::PrefixTable::new(settings.prefixes.clone());
        let totals = crate::store_totals::StoreTotals::new(settings.background_nice);
        let facets =
            FacetEngine::default().with_label_properties(settings.pages.labels.properties.clone());
        let state = Self {
            inner: Arc::new(Inner {
                store,
                settings,
                queries,
                writes,
                pages,
                writers,
                metrics: Metrics::default(),
                started: Instant::now(),
                totals,
                text_index: OnceLock::new(),
                text_function: OnceLock::new(),
                facets,
                page_cache: Arc::default(),
                bodies,
                prefixes,
            }),
        };
        // The first count of the store's most used namespaces, here rather than in the
        // first request that shows a CURIE (later counts run on a thread of their own).
        state.prefixes();
        // The first count of the store's totals starts now, on a thread of its own.
        state.totals();
        state
    }

    /// The store.
    pub fn store(&self) -> &Arc<Store> {
        &self.inner.store
    }

    /// The prefix table of the store as it is now (see [`crate::prefix_table`]). Blocking
    /// (reads the store).
    pub fn prefixes(&self) -> Arc<lodestone_vocab::Prefixes> {
        self.inner.prefixes.of(&self.inner.store)
    }

    /// [`AppState::prefixes`] read on the blocking pool, for handlers that have no blocking
    /// work of their own to read it in.
    pub async fn prefixes_read(&self) -> Result<Arc<lodestone_vocab::Prefixes>, ApiError> {
        let state = self.clone();
        self.spawn_read(move || state.prefixes())
            .await
            .map_err(|e| ApiError::Internal(format!("reading the prefix table failed: {e}")))
    }

    /// The threads that apply writes (large ones at `settings.large_write_nice`).
    pub fn write_lanes(&self) -> &WriteLanes {
        &self.inner.writers
    }

    /// The settings.
    pub fn settings(&self) -> &ServerSettings {
        &self.inner.settings
    }

    /// The budget of request bodies in memory at once.
    pub fn body_budget(&self) -> &BodyBudget {
        &self.inner.bodies
    }

    /// Runs read work on the runtime's blocking pool at the read priority
    /// (`settings.read_nice`, see [`crate::priority`]).
    pub fn spawn_read<T, F>(&self, work: F) -> tokio::task::JoinHandle<T>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        crate::priority::spawn_read(self.inner.settings.read_nice, work)
    }

    /// The text index, once attached (search routes answer 503 before).
    pub fn text_index(&self) -> Option<&Arc<TextIndex>> {
        self.inner.text_index.get()
    }

    /// Attaches the text index (once; later calls are ignored); from then on
    /// `/status` and `/metrics` report how many commits it has not applied yet, the facet
    /// engine matches text through it, and SPARQL queries can call its match function.
    pub fn attach_text_index(&self, index: Arc<TextIndex>) {
        if self.inner.text_index.set(Arc::clone(&index)).is_ok() {
            self.inner
                .facets
                .set_matcher(Arc::new(crate::text_match::IndexTextMatcher::new(
                    Arc::clone(&index),
                )));
            let _ = self
                .inner
                .text_function
                .set(crate::text_match::sparql_function(
                    Arc::clone(self.store()),
                    Arc::clone(&index),
                ));
            let store = Arc::clone(self.store());
            self.inner.metrics.text_index_lag.register(move || {
                let applied = index.applied().unwrap_or_default();
                store.sequence().saturating_sub(applied)
            });
        }
    }

    /// Query options with the extension functions this server offers (the text match once a
    /// text index is attached).
    pub fn query_options(&self) -> lodestone_store::sparql::QueryOptions {
        let service =
            crate::federation::HttpEndpoint::new(Arc::new(self.settings().service.clone()));
        let options = lodestone_store::sparql::QueryOptions::default()
            .with_default_graph_as_union(self.settings().union_default_graph)
            .with_service(Arc::new(service));
        match self.inner.text_function.get() {
            Some((name, function)) => options.with_function(name.clone(), Arc::clone(function)),
            None => options,
        }
    }

    /// The facet engine (its text matcher and answer cache).
    pub fn facets(&self) -> &FacetEngine {
        &self.inner.facets
    }

    /// Labels and facts of IRIs shown on entity pages, valid for one commit.
    pub fn page_cache(&self) -> &Arc<crate::page_cache::PageCache> {
        &self.inner.page_cache
    }

    /// The request counters.
    pub fn metrics(&self) -> &Metrics {
        &self.inner.metrics
    }

    /// When the state was built (the server's start).
    pub fn started(&self) -> Instant {
        self.inner.started
    }

    /// Takes one of the engine slots, or answers "busy" at once when all are taken.
    pub fn try_permit(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        self.inner.queries.try_take().ok_or_else(|| self.busy())
    }

    /// Takes a query slot, waiting in the queue (`--query-queue`) for at most `budget`;
    /// answers "busy" when the queue is full or the budget runs out first.
    pub async fn query_slot(&self, budget: std::time::Duration) -> Result<Taken, ApiError> {
        self.inner
            .queries
            .take(budget)
            .await
            .ok_or_else(|| self.busy())
    }

    /// Takes a page slot: the browsing pages and entity documents run in slots of their own
    /// (as many as the query slots, apart from them, so that pages answer while queries fill
    /// theirs), waiting up to [`PAGE_WAIT`] in a queue of [`PAGE_QUEUE`]; a flood of page
    /// requests then waits or is answered "busy" instead of filling the blocking pool.
    pub async fn page_slot(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        self.inner
            .pages
            .take(PAGE_WAIT)
            .await
            .map(|taken| taken.permit)
            .ok_or_else(|| self.busy())
    }

    /// Takes the write slot (one write at a time, apart from the query slots), waiting like
    /// [`AppState::query_slot`].
    pub async fn write_slot(&self, budget: std::time::Duration) -> Result<Taken, ApiError> {
        self.inner
            .writes
            .take(budget)
            .await
            .ok_or_else(|| self.busy())
    }

    fn busy(&self) -> ApiError {
        self.inner.metrics.busy.fetch_add(1, Ordering::Relaxed);
        ApiError::Busy
    }

    /// Engine operations running now.
    pub fn in_flight(&self) -> usize {
        self.inner.queries.in_use() + self.inner.writes.in_use()
    }

    /// Requests waiting for a slot now.
    pub fn queued(&self) -> usize {
        self.inner.queries.waiting() + self.inner.writes.waiting()
    }

    /// The store totals that take scans to count, as of the commit in their `sequence`
    /// (see [`crate::store_totals`]): `None` until the first count, begun with the state,
    /// ends. Never reads the store on the caller's thread.
    pub fn totals(&self) -> Option<StoreCounts> {
        self.inner.totals.latest(&self.inner.store)
    }

    /// Stops the background work that reads the store on threads of its own (the count of
    /// the totals), waiting for it: before the store closes and the process exits.
    pub fn stop_background_reads(&self) {
        self.inner.totals.stop();
    }
}

/// Counters exported by `/metrics`.
#[derive(Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<(String, u16), u64>>,
    /// SPARQL queries evaluated (and Graph Store reads).
    pub queries: AtomicU64,
    /// SPARQL updates and Graph Store writes applied.
    pub updates: AtomicU64,
    /// Operations stopped by their time budget.
    pub timeouts: AtomicU64,
    /// Results cut at the row cap.
    pub truncated: AtomicU64,
    /// Requests refused because every slot was taken.
    pub busy: AtomicU64,
    /// Quads received by Graph Store uploads (the HTTP load path).
    pub quads_written: AtomicU64,
    /// Latency histograms by route.
    pub latency: crate::telemetry::Latency,
    /// The text index's lag in commits, once a text index registers itself.
    pub text_index_lag: crate::telemetry::TextIndexLag,
}

impl Metrics {
    /// Counts one answered request.
    pub fn record_request(&self, route: &str, status: u16) {
        let mut requests = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        *requests.entry((route.to_owned(), status)).or_default() += 1;
    }

    /// Requests by (route, status), sorted.
    pub fn requests(&self) -> Vec<((String, u16), u64)> {
        let requests = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        requests.iter().map(|(k, v)| (k.clone(), *v)).collect()
    }
}
