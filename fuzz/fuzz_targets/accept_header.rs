//! The Accept header parser: never panics, and what it negotiates is one of the offers with
//! a quality above zero.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lodestone_server::extract::negotiate::AcceptHeader;

const OFFERS: [&str; 5] = [
    "text/turtle",
    "application/n-triples",
    "application/rdf+xml",
    "application/ld+json",
    "text/html",
];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let header = AcceptHeader::parse(text);
    for range in header.ranges() {
        let _ = range.specificity();
    }
    for offer in OFFERS {
        if let Some((quality, _)) = header.quality_of(offer, &[]) {
            assert!(quality <= 1000, "quality {quality} for {offer} from {text:?}");
        }
        let _ = header.names(offer);
    }
});
