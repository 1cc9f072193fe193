//! Facet API integration tests: a real server over the first 30,000 triples of BSBM 1k
//! (product types, features, producers and 150 products).
//!
//! - `agreement`: random facet trees; every complete count equals the equivalent SPARQL's
//!   `COUNT(DISTINCT …)` run through our own `/sparql`, entity lists agree as sets.
//! - `fct`: requests written after Virtuoso's Facets Web Service documentation.
//! - `fct_service`: every request form of Virtuoso's service (its source, `binsrc/fct/`),
//!   answers checked element by element and against SPARQL, refusals as Virtuoso errors.
//! - `api`: the JSON/XML syntaxes, `GET` URLs and the 400s.
//! - `budget`: start views in one graph from the statistics, anytime constrained foci.
//! - `class_focus`: the views of one class's instances from the counts per class and
//!   predicate.
//! - `ranges`: the `ranges` view's buckets against per-bucket SPARQL counts.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // test code: a panic is the failure report

#[path = "facets/agreement.rs"]
mod agreement;
#[path = "facets/api.rs"]
mod api;
#[path = "facets/budget.rs"]
mod budget;
#[path = "facets/class_focus.rs"]
mod class_focus;
#[allow(dead_code)]
#[path = "http/common.rs"]
mod common;
#[path = "facets/data.rs"]
mod data;
#[path = "facets/fct.rs"]
mod fct;
#[path = "facets/fct_service.rs"]
mod fct_service;
#[path = "facets/labels.rs"]
mod labels;
#[path = "facets/ranges.rs"]
mod ranges;
