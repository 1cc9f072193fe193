//! The facet query parsers (JSON for `/api/facets`, Virtuoso's XML for `/fct/service`): never
//! panic, and every query they accept and the model validates has an equivalent SPARQL query
//! whose printed text parses again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lodestone_facets::{fct, json, sparql, LiteralScanMatcher};
use lodestone_store::sparql::SparqlParser;

fuzz_target!(|data: &[u8]| {
    // The first byte picks the syntax, so that one corpus feeds both parsers.
    let Some((selector, body)) = data.split_first() else {
        return;
    };
    let parsed = if selector % 2 == 0 {
        let Ok(text) = std::str::from_utf8(body) else {
            return;
        };
        json::parse_query(text)
    } else {
        fct::parse_request(body)
    };
    let Ok(query) = parsed else {
        return;
    };
    if query.validate().is_err() {
        return;
    }
    let equivalent = sparql::equivalent_query(&query, &LiteralScanMatcher)
        .expect("a validated query has a view and so an equivalent SPARQL query");
    let text = equivalent.to_string();
    if let Err(e) = SparqlParser::new().parse_query(&text) {
        panic!("the equivalent query does not parse: {e}\n{text}");
    }
});
