//! Reading requests: the SPARQL protocol's parameters, content negotiation, write authorization.

pub mod auth;
pub mod body;
pub mod deadline;
pub mod negotiate;
pub mod nesting;
pub mod parse;
pub mod prologue;
pub mod rdfxml;
pub mod representation;
pub mod sparql;
pub mod tree_depth;
