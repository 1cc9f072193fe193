//! A server on 127.0.0.1:0 over a new store with its text index, for the tests of what needs
//! one (the search API, the search and lookup pages, the browser flows).

use crate::common::Running;
use lodestone_indexer::{Follower, IndexSettings};
use lodestone_server::settings::ServerSettings;
use lodestone_server::AppState;
use lodestone_store::{Store, StoreOptions};
use std::sync::Arc;
use std::time::Duration;

/// The server, its index follower and its folder; dropping it stops them.
pub struct IndexedServer {
    pub base: String,
    // Declared first: the server stops before the follower and the folder go.
    _server: Running,
    _follower: Follower,
    _dir: tempfile::TempDir,
}

impl IndexedServer {
    /// Serves a new store that `fill` writes to, once its text index has caught up (within
    /// `wait`, else the test fails). The entity rank is computed after the fill, as
    /// `lodestone load` does after loading: otherwise the server's rank keeper computes it a
    /// moment after the start and the text index re-weights every ranked entity while a test
    /// compares searches (the order of two pages, or what comes first).
    pub fn start(settings: ServerSettings, wait: Duration, fill: impl FnOnce(&Store)) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let data = dir.path().join("data");
        let store = Arc::new(Store::open(&data, StoreOptions::default()).expect("store"));
        fill(&store);
        store
            .compute_entity_rank(&std::sync::atomic::AtomicBool::new(false))
            .expect("entity rank");
        let state = AppState::new(Arc::clone(&store), settings);
        let (index, follower) = lodestone_server::text_index::start(
            &store,
            &data,
            IndexSettings::default(),
            lodestone_server::priority::Nice::LOWEST,
        )
        .expect("text index");
        // The first build runs on the follower's thread: wait for it, as a server's clients
        // would wait for the index to be ready.
        assert!(
            index.wait_for(store.sequence(), wait),
            "the text index did not catch up"
        );
        state.attach_text_index(index);
        let server = Running::start(state);
        Self {
            base: server.base.clone(),
            _server: server,
            _follower: follower,
            _dir: dir,
        }
    }
}
