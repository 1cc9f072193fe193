//! Deep and long SPARQL requests: whatever shape and size the bytes pick, the server's request
//! path answers or refuses — it never aborts. Each input is a recipe: an operator or pattern
//! form, a repetition count up to 60,000 and a nesting depth, applied to a small query; the
//! text goes through the same steps as a request (text scan, parse on a thread with the
//! server's stack, tree bound, evaluation with a short budget, drop).
#![no_main]

use libfuzzer_sys::fuzz_target;
use lodestone_server::extract::{nesting, parse, tree_depth};
use lodestone_server::priority::STACK_BYTES;
use lodestone_store::sparql::{
    evaluate_query, CancellationToken, DatasetOverride, QueryOptions, QueryResults, SparqlParser,
};
use lodestone_store::{Store, StoreOptions};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

const P: &str = "<http://e/p>";

/// Chain forms: (what goes between the items, the item).
const CHAINS: [(&str, &str); 9] = [
    ("+", "1"),
    (" || ", "true"),
    (" && ", "false"),
    (" UNION ", "{}"),
    ("/", P),
    ("|", P),
    (" . ", "?s <http://e/p> ?o"),
    (" ", "OPTIONAL { ?s <http://e/p> ?o }"),
    (" ", "MINUS { ?s <http://e/p> ?o }"),
];

/// Nesting forms: (opening, closing).
const NESTS: [(&str, &str); 5] = [("(", ")"), ("{", "}"), ("!(", ")"), ("<< ", " >>"), ("[ ", " ]")];

fn store() -> &'static Arc<Store> {
    static STORE: OnceLock<(tempfile::TempDir, Arc<Store>)> = OnceLock::new();
    &STORE
        .get_or_init(|| {
            let dir = tempfile::tempdir().expect("temporary folder");
            let store = Store::open(dir.path().join("store"), StoreOptions::default()).expect("store");
            (dir, Arc::new(store))
        })
        .1
}

fn recipe(data: &[u8]) -> Option<String> {
    let (&[form, count_hi, count_lo, depth, place], rest) = data.split_first_chunk::<5>()?;
    let count = (usize::from(count_hi) << 8 | usize::from(count_lo)) % 60_000 + 1;
    let (separator, item) = CHAINS[usize::from(form) % CHAINS.len()];
    let chain = vec![item; count].join(separator);
    let (open, close) = NESTS[usize::from(depth) % NESTS.len()];
    let depth = usize::from(depth) % 64;
    let inner = format!("{}{chain}{}", open.repeat(depth), close.repeat(depth));
    let tail = String::from_utf8_lossy(rest);
    Some(match place % 4 {
        0 => format!("SELECT ({inner} AS ?x) WHERE {{ {tail} }}"),
        1 => format!("ASK {{ FILTER({inner}) {tail} }}"),
        2 => format!("SELECT * WHERE {{ ?s {inner} ?o {tail} }}"),
        _ => format!("SELECT * WHERE {{ {inner} {tail} }}"),
    })
}

fuzz_target!(|data: &[u8]| {
    let Some(text) = recipe(data) else {
        return;
    };
    if nesting::check_text(&text).is_err() {
        return;
    }
    let store = Arc::clone(store());
    std::thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn(move || {
            let Ok(query) = SparqlParser::new().parse_query(&text) else {
                return;
            };
            let Ok(shape) = tree_depth::check_query(&query) else {
                return;
            };
            let token = CancellationToken::new().with_memory_limit(16 << 20);
            let timer = {
                let token = token.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(200));
                    token.cancel();
                })
            };
            let reader = store.reader();
            let options =
                parse::options_for(shape.optimizable(), QueryOptions::default()).with_cancellation(token);
            if let Ok(QueryResults::Solutions(solutions)) =
                evaluate_query(&reader, &query, &DatasetOverride::default(), &options)
            {
                for _ in solutions.take(1_000) {}
            }
            drop(query);
            let _ = timer.join();
        })
        .expect("thread")
        .join()
        .expect("the request path never panics");
});
