//! Issue 25: the entity rank is computed for a store that never had one and recomputed in the
//! background once enough has changed since (`RankUpkeep`), following the links.

use crate::common::{client, load, temp_store, Running, EX};
use lodestone_server::settings::{RankUpkeep, ServerSettings};
use lodestone_server::state::AppState;
use lodestone_store::model::NamedNode;
use lodestone_store::{Store, TermId};
use std::sync::Arc;
use std::time::{Duration, Instant};

const TOKEN: &str = "rank-token";

fn rank_of(store: &Store, name: &str) -> f64 {
    let reader = store.reader();
    let iri = NamedNode::new(format!("{EX}{name}")).expect("iri");
    let id: TermId = reader
        .term_id(iri.as_ref().into())
        .expect("read")
        .expect("a term of the store");
    reader.entity_ranks(&[id]).expect("ranks")[0]
}

/// Waits until the stored rank describes a commit at least `sequence`.
fn wait_for_rank(store: &Store, sequence: u64) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while store
        .entity_rank_state()
        .expect("state")
        .sequence
        .is_none_or(|s| s < sequence)
    {
        assert!(Instant::now() < deadline, "the rank was not recomputed");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_entity_rank_is_computed_and_kept_current_after_commits() {
    let (_dir, store) = temp_store();
    // Four leaves link to the hub; the hub links to one page; `lone` links nowhere.
    load(
        &store,
        &format!(
            "<{EX}a1> <{EX}p> <{EX}hub> . <{EX}a2> <{EX}p> <{EX}hub> . \
             <{EX}a3> <{EX}p> <{EX}hub> . <{EX}a4> <{EX}p> <{EX}hub> . \
             <{EX}hub> <{EX}p> <{EX}page> . <{EX}lone> <{EX}p> \"text\" ."
        ),
    );
    let mut settings = ServerSettings::default().with_update_token(TOKEN);
    settings.rank_upkeep = RankUpkeep {
        check_interval: Duration::from_millis(50),
        min_changes: 5,
    };
    let server = Running::start(AppState::new(Arc::clone(&store), settings));
    // Never ranked: ranked at the first check.
    wait_for_rank(&store, store.sequence());
    let (leaf, hub, page) = (
        rank_of(&store, "a1"),
        rank_of(&store, "hub"),
        rank_of(&store, "page"),
    );
    assert!(hub > 2.0 * leaf, "leaf {leaf}, hub {hub}");
    assert!(page > hub, "hub {hub}, page {page}");
    assert_eq!(rank_of(&store, "lone"), 0.0, "no link, no rank");
    // Mean 1 over the six linked entities.
    let total: f64 = ["a1", "a2", "a3", "a4", "hub", "page"]
        .iter()
        .map(|n| rank_of(&store, n))
        .sum();
    assert!((total - 6.0).abs() < 1e-6, "{total}");

    // One commit of two links (3 changes: 2 quads, 1 commit): below the threshold of 5.
    let update = |text: String| {
        let response = client()
            .post(format!("{}/sparql", server.base))
            .bearer_auth(TOKEN)
            .form(&[("update", text)])
            .send()
            .expect("update");
        assert_eq!(response.status(), 204);
    };
    let ranked_at = store.entity_rank_state().expect("state").sequence;
    update(format!(
        "INSERT DATA {{ <{EX}b1> <{EX}p> <{EX}lone> . <{EX}b2> <{EX}p> <{EX}lone> }}"
    ));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        store.entity_rank_state().expect("state").sequence,
        ranked_at
    );
    assert_eq!(rank_of(&store, "lone"), 0.0);
    // A second commit passes it (3 quads, 2 commits): the rank is recomputed.
    update(format!("INSERT DATA {{ <{EX}b3> <{EX}p> <{EX}lone> }}"));
    wait_for_rank(&store, store.sequence());
    assert!(rank_of(&store, "lone") > rank_of(&store, "b1"));
    drop(server);
}
