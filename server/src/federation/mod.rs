//! SPARQL 1.1 Federated Query (`SERVICE`): which remote endpoints a query may call, and the
//! bounded HTTP client that calls them.
//!
//! Off by default: a `SERVICE` is refused (403) unless its endpoint IRI is listed exactly in
//! `[sparql] service_allow`. Even then the endpoint's host must resolve only to public
//! addresses (no loopback, private, link-local or unspecified address, checked after DNS
//! resolution and pinned for the connection, see [`address`]); each call has a time and a size
//! bound, one query makes a bounded number of calls, redirects are not followed and no proxy is
//! used.

pub mod address;
mod client;

pub use client::HttpEndpoint;
