//! The resolver against flags, environment and files, and the documented examples.

use super::*;
use crate::cli::{Cli, Command, ServeArgs};
use crate::settings::{ByteSize, UpdatePolicy};
use clap::Parser;
use oxrdf::NamedNode;
use std::time::Duration;

fn args(flags: &[&str]) -> ServeArgs {
    let mut argv = vec!["lodestone", "serve"];
    argv.extend_from_slice(flags);
    match Cli::try_parse_from(argv) {
        Ok(Cli {
            command: Command::Serve(args),
        }) => *args,
        other => panic!("unexpected parse: {other:?}"),
    }
}

fn file(text: &str) -> FileConfig {
    toml::from_str(text).unwrap_or_else(|e| panic!("{e}"))
}

fn resolve(flags: &[&str], toml: &str) -> anyhow::Result<Config> {
    Config::from_layers(&args(flags), &file(toml), Some(Path::new("test.toml")))
}

#[test]
fn defaults() {
    let config = resolve(&[], "").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(config.bind.to_string(), "127.0.0.1:7171");
    assert_eq!(config.data, PathBuf::from("./lodestone-data"));
    assert!(config.load_sample);
    assert_eq!(config.server.updates, UpdatePolicy::Disabled);
    assert_eq!(config.server.query_timeout, Duration::from_secs(30));
    assert_eq!(config.server.max_body_bytes, 10 << 20);
    assert!(config.server.union_default_graph);
    assert!(!config.store.sync_writes);
}

#[test]
fn flags_override_the_file() {
    let toml = "bind = \"127.0.0.1:9000\"\nquery_timeout = 5\nno_sample = true\nmax_body_bytes = \"2MB\"\nstrict_default_graph = true\n";
    let from_file = resolve(&[], toml).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(from_file.bind.port(), 9000);
    assert_eq!(from_file.server.query_timeout, Duration::from_secs(5));
    assert!(!from_file.load_sample);
    assert_eq!(from_file.server.max_body_bytes, 2 << 20);
    assert!(!from_file.server.union_default_graph);

    let flags = [
        "--bind",
        "127.0.0.1:9001",
        "--query-timeout",
        "2.5",
        "--no-sample=false",
        "--strict-default-graph=false",
    ];
    let over = resolve(&flags, toml).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(over.bind.port(), 9001);
    assert_eq!(over.server.query_timeout, Duration::from_millis(2500));
    assert!(over.load_sample);
    assert!(over.server.union_default_graph);
    assert_eq!(
        over.server.max_body_bytes,
        2 << 20,
        "untouched keys keep the file's value"
    );
}

#[test]
fn update_policy() {
    let token = resolve(&["--update-token", "s3cret"], "").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(token.server.updates, UpdatePolicy::Token("s3cret".into()));
    assert!(
        !format!("{:?}", token.server).contains("s3cret"),
        "tokens stay out of logs"
    );
    let open = resolve(&["--open-updates"], "").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(open.server.updates, UpdatePolicy::Open);
    let error = resolve(&["--open-updates"], "update_token = \"x\"")
        .err()
        .map(|e| e.to_string());
    assert!(error.is_some_and(|e| e.contains("update_token") && e.contains("exclude")));
    let error = resolve(&["--update-token", "a b"], "")
        .err()
        .map(|e| e.to_string());
    assert!(error.is_some_and(|e| e.contains("update_token")));
}

#[test]
fn entity_page_settings() {
    let config = resolve(
        &[
            "--resource-in-place",
            "--label-properties",
            "http://a/p, http://a/q",
        ],
        "default_language = \"DE\"\nsite_name = \"Coins\"",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let pages = &config.server.pages;
    assert!(pages.resource_in_place);
    assert_eq!(pages.labels.properties, ["http://a/p", "http://a/q"]);
    assert_eq!(pages.labels.default_language, "de");
    assert_eq!(pages.site_name, "Coins");
    let defaults = resolve(&[], "").unwrap_or_else(|e| panic!("{e}"));
    assert!(!defaults.server.pages.resource_in_place);
    assert_eq!(defaults.server.pages.labels.default_language, "en");
}

#[test]
fn invalid_values_name_the_key_and_the_reason() {
    let cases: [(&[&str], &str, &str); 14] = [
        (
            &["--bind", "nowhere"],
            "",
            "bind (set by --bind or LODESTONE_BIND)",
        ),
        (&[], "bind = \"nowhere\"", "bind (set in test.toml)"),
        (&[], "query_timeout = 0", "query_timeout"),
        (&[], "max_concurrent_queries = 0", "max_concurrent_queries"),
        (&["--base-iri", "not an iri"], "", "base_iri"),
        (
            &[],
            "allow_load_folder = \"/no/such/folder\"",
            "allow_load_folder",
        ),
        (&["--memory-budget", "1"], "", "memory_budget"),
        (&["--large-write-nice", "20"], "", "large_write_nice"),
        (&[], "read_nice = 20", "read_nice (set in test.toml)"),
        (
            &[],
            "background_nice = 25",
            "background_nice (set in test.toml)",
        ),
        (&[], "read_timeout = 0", "read_timeout (set in test.toml)"),
        (&["--max-header-bytes", "1KB"], "", "max_header_bytes"),
        (&["--default-language", "e n"], "", "default_language"),
        (
            &[],
            "label_properties = [\"label\"]",
            "label_properties (set in test.toml)",
        ),
    ];
    for (flags, toml, expected) in cases {
        let message = resolve(flags, toml)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            message.contains(expected),
            "{flags:?} {toml:?}: {message:?}"
        );
    }
}

#[test]
fn unknown_or_mistyped_file_keys_are_errors() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("lodestone.toml");
    std::fs::write(&path, "quer_timeout = 3\n").unwrap_or_else(|e| panic!("{e}"));
    let message = read_config_file(&path)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(message.contains("quer_timeout"), "{message}");
    std::fs::write(&path, "query_timeout = \"soon\"\n").unwrap_or_else(|e| panic!("{e}"));
    let message = read_config_file(&path)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(message.contains("query_timeout"), "{message}");
}

#[test]
fn the_documented_example_file_is_valid() {
    let doc = include_str!("../../../docs/configuration.md");
    let start = doc.find("```toml").map(|i| i + "```toml".len());
    let example = start.and_then(|s| doc[s..].find("```").map(|e| &doc[s..s + e]));
    let example = example.unwrap_or_else(|| panic!("no toml example in configuration.md"));
    let parsed: FileConfig = toml::from_str(example).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parsed.max_upload_bytes, Some(ByteSize(2 << 30)));
    assert_eq!(parsed.sync, Some(true));
    // Every key of the file format appears in the documentation's table.
    for key in [
        "data",
        "bind",
        "base_iri",
        "update_token",
        "open_updates",
        "no_sample",
        "query_timeout",
        "max_body_bytes",
        "max_upload_bytes",
        "max_concurrent_queries",
        "query_queue",
        "result_row_cap",
        "strict_default_graph",
        "memory_budget",
        "read_nice",
        "large_write_nice",
        "background_nice",
        "sync",
        "allow_load_folder",
        "read_timeout",
        "max_header_bytes",
    ] {
        assert!(
            doc.contains(&format!("| `{key}` |")),
            "{key} is not documented"
        );
    }
}

#[test]
fn byte_sizes() {
    assert_eq!("1000".parse(), Ok(ByteSize(1000)));
    assert_eq!("10MB".parse(), Ok(ByteSize(10 << 20)));
    assert_eq!("512 KiB".parse(), Ok(ByteSize(512 << 10)));
    assert_eq!("1g".parse(), Ok(ByteSize(1 << 30)));
    assert!("ten".parse::<ByteSize>().is_err());
    assert!("10TB".parse::<ByteSize>().is_err());
}

#[test]
fn the_file_table_gives_a_checked_policy() {
    let file: SparqlFileConfig = toml::from_str(
        "service_allow = [\"https://query.wikidata.org/sparql\"]\nservice_timeout = 2.5\nservice_max_bytes = \"1MB\"\n",
    )
    .expect("parses");
    let policy = file.policy().expect("valid");
    assert!(policy.allows(&NamedNode::new_unchecked(
        "https://query.wikidata.org/sparql"
    )));
    assert!(!policy.allows(&NamedNode::new_unchecked(
        "https://query.wikidata.org/sparql/"
    )));
    assert_eq!(policy.timeout, Duration::from_millis(2500));
    assert_eq!(policy.max_response_bytes, 1 << 20);
    assert!(!policy.allow_private_addresses);

    for (toml, key) in [
        (
            "service_allow = [\"ftp://example.org/\"]",
            "sparql.service_allow",
        ),
        ("service_allow = [\"not an iri\"]", "sparql.service_allow"),
        ("service_timeout = 0", "sparql.service_timeout"),
        ("service_max_bytes = 10", "sparql.service_max_bytes"),
    ] {
        let file: SparqlFileConfig = toml::from_str(toml).expect("parses");
        assert_eq!(file.policy().expect_err(toml).0, key);
    }
    assert!(toml::from_str::<SparqlFileConfig>("allow_private = true").is_err());
}

#[test]
fn the_documented_sparql_example_is_valid_and_refused_keys_name_themselves() {
    let doc = include_str!("../../../docs/configuration.md");
    let section = &doc[doc
        .find("## Federated queries")
        .expect("a federation section")..];
    let start = section.find("```toml").expect("an example") + "```toml".len();
    let end = start + section[start..].find("```").expect("the example's end");
    let file: crate::config::FileConfig =
        toml::from_str(&section[start..end]).expect("the example parses");
    let policy = file
        .sparql
        .expect("a [sparql] table")
        .policy()
        .expect("valid");
    assert_eq!(policy.allow.len(), 2);

    let file: crate::config::FileConfig =
        toml::from_str("[sparql]\nservice_allow = [\"gopher://x/\"]\n").expect("parses");
    let error = crate::config::Config::from_layers(&Default::default(), &file, None)
        .expect_err("refused")
        .to_string();
    assert!(error.contains("sparql.service_allow"), "{error}");
}

#[test]
fn search_settings_from_the_file() {
    let file: SearchFileConfig = toml::from_str(
        "label_predicates = [\"http://example.org/name\"]\nrank_weight = 0.5\nstop_words = [\"the\"]\n",
    )
    .expect("parses");
    let settings = file.settings();
    assert_eq!(settings.label_predicates, ["http://example.org/name"]);
    assert_eq!(settings.weights.rank_weight, 0.5);
    assert_eq!(settings.stop_words, ["the"]);
    assert!(toml::from_str::<SearchFileConfig>("unknown = 1").is_err());
}

#[test]
fn the_documented_search_example_is_valid() {
    let doc = include_str!("../../../docs/configuration.md");
    let section = &doc[doc.find("## Search settings").expect("a search section")..];
    let start = section.find("```toml").expect("an example") + "```toml".len();
    let end = start + section[start..].find("```").expect("the example's end");
    let file: FileConfig = toml::from_str(&section[start..end]).unwrap_or_else(|e| panic!("{e}"));
    let settings = file.search.expect("a [search] table").settings();
    assert_eq!(settings.stop_words, ["the", "of", "and"]);
    assert_eq!(settings.weights.rank_weight, 0.2);
}

/// Issue 25: `--prefixes FILE` (`prefixes` in the file) reads an operator's prefix list; a
/// wrong line stops the start with its line and column.
#[test]
fn an_operator_prefix_file_is_read_or_refused_with_its_line_and_column() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let good = dir.path().join("good.ttl");
    std::fs::write(
        &good,
        "# ours\n@prefix coin: <http://example.org/coin#> .\nPREFIX mint: <http://example.org/mint/>\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let path = good.to_string_lossy().into_owned();
    let config = resolve(&["--prefixes", &path], "").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        config.server.prefixes.namespace("coin"),
        Some("http://example.org/coin#")
    );
    assert_eq!(config.server.prefixes.len(), 2);
    let from_file = resolve(&[], &format!("prefixes = {path:?}")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        from_file.server.prefixes.namespace("mint"),
        Some("http://example.org/mint/")
    );
    assert!(resolve(&[], "")
        .unwrap_or_else(|e| panic!("{e}"))
        .server
        .prefixes
        .is_empty());

    let bad = dir.path().join("bad.ttl");
    std::fs::write(
        &bad,
        "@prefix ok: <http://ok.org/> .\n\n@prefix 2x: <http://e.org/> .\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let message = resolve(&["--prefixes", &bad.to_string_lossy()], "")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        message.contains("prefixes (set by --prefixes or LODESTONE_PREFIXES)")
            && message.contains("line 3, column 9")
            && message.contains("`2x` is not a prefix name"),
        "{message}"
    );
    let missing = resolve(&["--prefixes", "/no/such/prefixes.ttl"], "")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        missing.contains("cannot read /no/such/prefixes.ttl"),
        "{missing}"
    );
}
