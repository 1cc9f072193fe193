//! Entity pages and documents over a real server: content negotiation, every RDF format,
//! non-ASCII IRIs, blank nodes, paging, escaping, caching, the RDFa checked by pyRdfa, and
//! links that never lead to a script (with the headers of every HTML response).

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // test code: a panic is the failure report

#[allow(dead_code)]
#[path = "http/common.rs"]
mod common;
#[path = "pages/conneg.rs"]
mod conneg;
#[path = "pages/conventions.rs"]
mod conventions;
#[path = "pages/documents.rs"]
mod documents;
#[path = "pages/hash_documents.rs"]
mod hash_documents;
#[path = "http/indexed.rs"]
mod indexed;
#[path = "pages/prefixes.rs"]
mod prefixes;
#[path = "pages/rdfa.rs"]
mod rdfa;
#[path = "pages/support.rs"]
mod support;
#[path = "pages/xss.rs"]
mod xss;
