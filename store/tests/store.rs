//! Integration tests of `lodestone-store` against real on-disk RocksDB stores.
//!
//! One binary with a module per area (see `tests/store/`): the store against an in-memory
//! model (`model`, `loading`), load/dump round trips (`roundtrip`), blank node scoping,
//! failing loads (`failures`), lenient loads that skip bad statements and keep the rest
//! (`lenient`), crashes and reopening (`durability`), bulk loads killed midway
//! (`killed_loads`), snapshot isolation, space reclamation (`reclaim`), graphs cleared whole
//! (`whole_graphs`), the sorted IRI index (`iri_index`), the distinct counts of the start
//! views against SPARQL counts (`distinct`), SPARQL counts answered from the statistics
//! against a full evaluation (`statistics`), store totals remembered for a commit
//! (`remembered_counts`), joins whose filters link one resource's values
//! with the rest answered as without the optimizer (`similar`), and such joins that read a
//! filtered range at once (`range_join`), BSBM Q3's products without a feature and sorts cut
//! by a limit (`without_feature`), queries with a parameter bound by `VALUES`
//! (`values_parameters`), look-ups on files larger than a
//! cache shard (`lookups`), the change log
//! and backups. Shared helpers live in `support` (stores in temporary folders, dumps,
//! isomorphism) and `oracle` (the model and the checks that compare a store with it).
//!
//! Property tests run 64 cases; set `PROPTEST_CASES` for more.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // test code: a panic is the failure report

#[path = "store/backup.rs"]
mod backup;
#[path = "store/batch.rs"]
mod batch;
#[path = "store/blank_nodes.rs"]
mod blank_nodes;
#[path = "store/changes.rs"]
mod changes;
#[path = "store/distinct.rs"]
mod distinct;
#[path = "store/durability.rs"]
mod durability;
#[path = "store/entity_rank.rs"]
mod entity_rank;
#[path = "store/failures.rs"]
mod failures;
#[path = "store/hash_iris.rs"]
mod hash_iris;
#[path = "store/iri_index.rs"]
mod iri_index;
#[path = "store/isolation.rs"]
mod isolation;
#[path = "store/killed_loads.rs"]
mod killed_loads;
#[path = "store/layouts.rs"]
mod layouts;
#[path = "store/lenient.rs"]
mod lenient;
#[path = "store/loading.rs"]
mod loading;
#[path = "store/lookups.rs"]
mod lookups;
#[path = "store/model.rs"]
mod model;
#[path = "store/oracle.rs"]
mod oracle;
#[path = "store/range_join.rs"]
mod range_join;
#[path = "store/reclaim.rs"]
mod reclaim;
#[path = "store/remembered_counts.rs"]
mod remembered_counts;
#[path = "store/roundtrip.rs"]
mod roundtrip;
#[path = "store/similar.rs"]
mod similar;
#[path = "store/statistics.rs"]
mod statistics;
#[path = "store/subject_columns.rs"]
mod subject_columns;
#[path = "store/support.rs"]
mod support;
#[path = "store/values_parameters.rs"]
mod values_parameters;
#[path = "store/walk.rs"]
mod walk;
#[path = "store/whole_graphs.rs"]
mod whole_graphs;
#[path = "store/without_feature.rs"]
mod without_feature;
