//! What the documents hold: every format, graphs, blank nodes, non-ASCII IRIs, paging,
//! escaping and revalidation.

use crate::common::{header, parse_rdf, TestServer};
use crate::support::{client, get, server, ALICE_STATEMENTS, BASE};
use lodestone_server::settings::ServerSettings;
use lodestone_store::load::RdfFormat;
use oxrdfio::JsonLdProfileSet;

const FORMATS: [(&str, RdfFormat); 6] = [
    ("ttl", RdfFormat::Turtle),
    ("nt", RdfFormat::NTriples),
    ("rdf", RdfFormat::RdfXml),
    (
        "jsonld",
        RdfFormat::JsonLd {
            profile: JsonLdProfileSet::empty(),
        },
    ),
    ("nq", RdfFormat::NQuads),
    ("n3", RdfFormat::N3),
];

/// Sorted triples with blank node labels replaced by `_`, so documents whose blank nodes
/// were relabelled compare equal.
fn shape(mut triples: Vec<String>) -> Vec<String> {
    for triple in &mut triples {
        *triple = triple
            .split(' ')
            .map(|t| if t.starts_with("_:") { "_" } else { t })
            .collect::<Vec<_>>()
            .join(" ");
    }
    triples.sort();
    triples
}

#[test]
fn every_format_parses_back_to_the_same_triples() {
    let server = server();
    let reference = parse_rdf(
        &get(&server, "/data/alice.nt", "").bytes().expect("body"),
        RdfFormat::NTriples,
    );
    assert_eq!(reference.len(), ALICE_STATEMENTS, "{reference:#?}");
    for expected in [
        "<http://example.org/resource/alice> <http://www.w3.org/2000/01/rdf-schema#label> \"Alicia\"@es .",
        "<http://example.org/resource/alice> <http://example.org/vocab/nick> \"Al\" .",
        "<http://example.org/resource/bob> <http://example.org/vocab/knows> <http://example.org/resource/alice> .",
        "<http://other.org/x> <http://example.org/vocab/knows> <http://example.org/resource/alice> .",
        "<http://example.org/resource/Zürich> <http://example.org/vocab/near> <http://example.org/resource/alice> .",
    ] {
        assert!(reference.iter().any(|t| t == expected), "missing {expected}");
    }
    for (suffix, format) in FORMATS {
        let body = get(&server, &format!("/data/alice.{suffix}"), "")
            .bytes()
            .expect("body");
        let triples = parse_rdf(&body, format);
        assert_eq!(shape(triples), shape(reference.clone()), "{suffix}");
    }
    // N-Quads keeps the graph of each statement.
    let nquads = get(&server, "/data/alice.nq", "").text().expect("body");
    assert!(nquads.contains("<http://example.org/resource/alice> <http://example.org/vocab/nick> \"Al\" <http://example.org/g1> ."), "{nquads}");
}

#[test]
fn blank_nodes_are_followed_to_any_depth() {
    let mut trig = String::from("<http://example.org/resource/deep> <http://example.org/p> ");
    let depth = 40;
    for i in 0..depth {
        trig.push_str(&format!(
            "[ <http://example.org/v> {i} ; <http://example.org/p> "
        ));
    }
    trig.push_str("\"bottom\"");
    trig.push_str(&" ]".repeat(depth));
    trig.push_str(" ; <http://example.org/list> ( 1 2 3 ( 4 5 ) ) .\n");
    let server = TestServer::with_data(ServerSettings::default().with_base_iri(BASE), &trig);
    let body = get(&server, "/data/deep.nt", "").bytes().expect("body");
    let triples = parse_rdf(&body, RdfFormat::NTriples);
    // 1 + 2 per level + the list: 1 link + 4 cells × 2 + nested list 2 cells × 2.
    assert_eq!(triples.len(), 1 + 2 * depth + 1 + 8 + 4, "{triples:#?}");
    assert!(triples.iter().any(|t| t.ends_with("\"bottom\" .")));
    let html = get(&server, "/page/deep", "").text().expect("html");
    assert!(html.contains("bottom"));
    assert_eq!(html.matches("<section class=\"blank\"").count(), depth + 6);
}

#[test]
fn non_ascii_iris_round_trip() {
    let server = server();
    let response = get(&server, "/resource/Z%C3%BCrich", "text/html");
    assert_eq!(response.status(), 303);
    assert_eq!(header(&response, "location"), "/page/Z%C3%BCrich");
    let html = get(&server, "/page/Z%C3%BCrich", "").text().expect("html");
    assert!(
        html.contains("about=\"http://example.org/resource/Zürich\""),
        "{html}"
    );
    assert!(html.contains("<h1>Zürich</h1>"));
    let alice = get(&server, "/page/alice", "").text().expect("html");
    assert!(
        alice.contains("href=\"/page/Z%C3%BCrich\""),
        "link to the non-ASCII page"
    );
    let response = get(&server, "/resource/Z%C3%BCrich", "application/n-triples");
    assert_eq!(header(&response, "location"), "/data/Z%C3%BCrich.nt");
    let body = get(&server, "/data/Z%C3%BCrich.nt", "").text().expect("nt");
    assert!(
        body.contains("<http://example.org/resource/Zürich>"),
        "{body}"
    );
    let described = get(
        &server,
        "/describe?uri=http%3A%2F%2Fexample.org%2Fresource%2FZ%C3%BCrich&format=nt",
        "",
    );
    assert_eq!(described.text().expect("nt"), body);
}

#[test]
fn data_from_the_store_is_escaped() {
    let server = server();
    for path in ["/page/xss", "/page/alice", "/page/xss?lang=%3Cscript%3E"] {
        let html = get(&server, path, "").text().expect("html");
        assert!(!html.contains("<script"), "{path}: {html}");
        assert!(!html.contains("<img src=x"), "{path}");
        assert!(!html.contains("</textarea>"), "{path}");
    }
    let html = get(&server, "/page/xss", "").text().expect("html");
    assert!(
        html.contains("<h1>&#60;script&#62;alert(1)&#60;/script&#62;</h1>"),
        "{html}"
    );
    assert!(
        html.contains("content=\"a &#34;quoted&#34; &#38; &#39;apos&#39; &#60;/textarea&#62;"),
        "{html}"
    );
}

#[test]
fn pages_show_labels_languages_and_counts() {
    let server = server();
    let html = get(&server, "/page/alice", "").text().expect("html");
    assert!(html.contains("<h1>Alice</h1>"));
    assert!(html.contains("<html lang=\"en\">"));
    let spanish = client()
        .get(server.url("/page/alice"))
        .header("Accept-Language", "es-MX, en;q=0.5")
        .send()
        .expect("page")
        .text()
        .expect("html");
    assert!(spanish.contains("<h1>Alicia</h1>"));
    let html = get(&server, "/page/alice?lang=es", "")
        .text()
        .expect("html");
    assert!(html.contains("<h1>Alicia</h1>"));
    // Incoming links: `knows` from bob, carol, other.org and xss.
    assert!(html.contains("<small class=\"count\">4</small>"), "{html}");
    assert!(
        html.contains("http://example.org/g1"),
        "the graph of a statement is shown"
    );
    assert!(html.contains("href=\"/describe?uri=http%3A%2F%2Fother.org%2Fx\""));
}

#[test]
fn revalidation_uses_the_commit_sequence() {
    let mut settings = ServerSettings::default()
        .with_base_iri(BASE)
        .with_open_updates();
    // The entity rank's first computation is a commit of its own (it marks the entities
    // whose weight changed for the text index): off here, where the only commit between the
    // requests must be the test's update.
    settings.rank_upkeep.min_changes = 0;
    let server = TestServer::with_data(settings, crate::support::DATA);
    let first = get(&server, "/data/alice.ttl", "");
    let etag = header(&first, "etag");
    assert!(etag.starts_with('"'), "{etag}");
    assert!(!header(&first, "last-modified").is_empty());
    let again = client()
        .get(server.url("/data/alice.ttl"))
        .header("If-None-Match", &etag)
        .send()
        .expect("request");
    assert_eq!(again.status(), 304);
    assert_eq!(header(&again, "etag"), etag);
    let html_tag = header(&get(&server, "/page/alice", ""), "etag");
    assert_ne!(html_tag, etag, "each representation has its own tag");
    let update = client()
        .post(server.url("/sparql"))
        .form(&[("update", "INSERT DATA { <http://example.org/resource/alice> <http://example.org/vocab/nick> \"Ally\" }")])
        .send()
        .expect("update");
    assert!(update.status().is_success());
    let after = client()
        .get(server.url("/data/alice.ttl"))
        .header("If-None-Match", &etag)
        .send()
        .expect("request");
    assert_eq!(after.status(), 200);
    assert_ne!(header(&after, "etag"), etag);
    assert!(after.text().expect("body").contains("Ally"));
}

/// The lines of an N-Triples page that describe the entity, without its paging statements.
fn described_lines(body: &str) -> Vec<&str> {
    body.lines()
        .filter(|line| !line.contains(PAGING_VOCAB[0]) && !line.contains(PAGING_VOCAB[1]))
        .collect()
}

const PAGING_VOCAB: [&str; 2] = [
    "<http://www.w3.org/ns/hydra/core#",
    "<http://rdfs.org/ns/void#",
];

/// The `rel="next"` target of a response's `Link` header.
fn next_link(response: &reqwest::blocking::Response) -> Option<String> {
    header(response, "link")
        .split(", ")
        .find(|l| l.ends_with("rel=\"next\""))
        .and_then(|l| l.strip_prefix('<'))
        .and_then(|l| l.split_once('>'))
        .map(|(href, _)| href.to_owned())
}

#[test]
fn fifty_thousand_incoming_links_are_whole_by_default_and_paged_on_request() {
    let links = 50_000;
    let server = TestServer::with_store(ServerSettings::default().with_base_iri(BASE), |store| {
        let mut trig = String::from("<http://example.org/resource/hub> <http://www.w3.org/2000/01/rdf-schema#label> \"Hub\" .\n");
        for i in 0..links {
            trig.push_str(&format!("<http://example.org/resource/s{i}> <http://example.org/links> <http://example.org/resource/hub> .\n"));
        }
        crate::common::load(store, &trig);
    });
    // The document is complete (it had the first 2,000 statements only, without a word).
    let whole = get(&server, "/data/hub.nt", "");
    assert_eq!(whole.status(), 200);
    assert!(next_link(&whole).is_none());
    let whole = whole.text().expect("body");
    assert_eq!(whole.lines().count(), links + 1);
    assert!(
        described_lines(&whole).len() == links + 1,
        "no paging statements"
    );
    // Pages on request, linked in `Link` and in the RDF itself.
    let mut seen = std::collections::BTreeSet::new();
    let mut next = Some("/data/hub.nt?page=1".to_owned());
    let mut pages = 0;
    while let Some(path) = next.take() {
        let response = get(&server, &path, "");
        assert_eq!(response.status(), 200, "{path}");
        next = next_link(&response);
        let body = response.text().expect("body");
        let page_url = format!("<{}>", server.url(&path));
        assert!(
            body.contains(&format!("{page_url} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/ns/hydra/core#PartialCollectionView> .")),
            "{path}: {body}"
        );
        assert!(
            body.contains(&format!(
                "<{}> <http://www.w3.org/ns/hydra/core#totalItems> \"{}\"^^<http://www.w3.org/2001/XMLSchema#integer> .",
                server.url("/data/hub.nt"),
                links + 1
            )),
            "{path}"
        );
        match &next {
            Some(href) => assert!(
                body.contains(&format!(
                    "{page_url} <http://www.w3.org/ns/hydra/core#next> <{}> .",
                    server.url(href)
                )),
                "{path}"
            ),
            None => assert!(!body.contains("hydra/core#next>"), "{path}"),
        }
        assert_eq!(body.contains("hydra/core#previous>"), pages > 0, "{path}");
        for line in described_lines(&body) {
            assert!(seen.insert(line.to_owned()), "{line} on two pages");
        }
        pages += 1;
    }
    assert_eq!(seen.len(), links + 1);
    assert_eq!(pages, (links + 1).div_ceil(2_000));
    // A page past the end is not found, in RDF and in HTML.
    assert_eq!(
        get(&server, &format!("/data/hub.nt?page={}", pages + 1), "").status(),
        404
    );
    assert_eq!(
        get(&server, &format!("/page/hub?page={}", pages + 1), "").status(),
        404
    );
    let html = get(&server, "/page/hub", "").text().expect("html");
    assert!(html.contains(&format!("<small class=\"count\">{links}</small>")));
    assert!(html.contains("rel=\"next\" href=\"/page/hub?page=2\""));
    let last = get(&server, &format!("/page/hub?page={pages}"), "");
    assert_eq!(last.status(), 200);
    assert!(!header(&last, "link").contains("rel=\"next\""));
}

#[test]
fn a_long_blank_node_chain_behind_a_small_entity_is_served_whole() {
    // Two quads of its own, but a list of 20,000 cells behind one of them: too long to
    // answer on the request's thread, so the page is answered again on the blocking pool.
    let cells: usize = 20_000;
    let mut trig = String::from(
        "<http://example.org/resource/listed> <http://www.w3.org/2000/01/rdf-schema#label> \"Listed\" ; <http://example.org/list> (",
    );
    for i in 0..cells {
        trig.push_str(&format!(" {i}"));
    }
    trig.push_str(" ) .\n");
    let server = TestServer::with_data(ServerSettings::default().with_base_iri(BASE), &trig);
    let total = 2 + 2 * cells;
    let pages = total.div_ceil(2_000);
    let whole = get(&server, "/data/listed.nt", "");
    assert_eq!(whole.status(), 200);
    let body = whole.bytes().expect("body");
    assert_eq!(parse_rdf(&body, RdfFormat::NTriples).len(), total);
    let first = get(&server, "/data/listed.nt?page=1", "");
    assert_eq!(first.status(), 200);
    assert!(header(&first, "link").contains("/data/listed.nt?page=2>; rel=\"next\""));
    let body = first.text().expect("body");
    assert_eq!(described_lines(&body).len(), 2_000);
    let last = get(&server, &format!("/data/listed.nt?page={pages}"), "");
    assert_eq!(last.status(), 200);
    assert!(!header(&last, "link").contains("rel=\"next\""));
    let body = last.text().expect("body");
    let expected = total - (pages - 1) * 2_000;
    assert_eq!(described_lines(&body).len(), expected);
}

/// Issue 25: one label rule. A property named `name` (or `label`, `title`, `prefLabel`) in any
/// namespace labels a resource after the configured label properties, as in search: the
/// bundled sample's `http://stardog.com/tutorial/name` gave pages titled by raw IRIs.
#[test]
fn a_property_named_name_in_any_namespace_labels_pages_and_links() {
    let data = r#"
@prefix ex: <http://example.org/resource/> .
@prefix t: <http://stardog.com/tutorial/> .
ex:bowie t:name "David Bowie" ; t:knows ex:iggy .
ex:iggy t:name "Iggy Pop" ; <http://www.w3.org/2000/01/rdf-schema#label> "Iggy (rdfs)" .
"#;
    let server = TestServer::with_data(ServerSettings::default().with_base_iri(BASE), data);
    let html = get(&server, "/page/bowie", "").text().expect("html");
    assert!(html.contains("<h1>David Bowie</h1>"), "{html}");
    // A configured property comes before the fallback.
    assert!(html.contains("Iggy (rdfs)"), "{html}");
    let iggy = get(&server, "/page/iggy", "").text().expect("html");
    assert!(iggy.contains("<h1>Iggy (rdfs)</h1>"), "{iggy}");
}
