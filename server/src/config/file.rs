//! The config file's format: `lodestone.toml`, its tables and keys.

use crate::settings::{ByteSize, ServicePolicy};
use lodestone_indexer::IndexSettings;
use oxrdf::NamedNode;
use serde::Deserialize;
use std::path::PathBuf;
use std::time::Duration;

/// `lodestone.toml`: the same keys as the long options, with `_` for `-`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// See `--data`.
    pub data: Option<PathBuf>,
    /// See `--bind`.
    pub bind: Option<String>,
    /// See `--base-iri`.
    pub base_iri: Option<String>,
    /// See `--update-token`.
    pub update_token: Option<String>,
    /// See `--open-updates`.
    pub open_updates: Option<bool>,
    /// See `--no-sample`.
    pub no_sample: Option<bool>,
    /// See `--query-timeout`.
    pub query_timeout: Option<f64>,
    /// See `--max-body-bytes`.
    pub max_body_bytes: Option<ByteSize>,
    /// See `--max-upload-bytes`.
    pub max_upload_bytes: Option<ByteSize>,
    /// See `--max-concurrent-queries`.
    pub max_concurrent_queries: Option<usize>,
    /// See `--query-queue`.
    pub query_queue: Option<usize>,
    /// See `--result-row-cap`.
    pub result_row_cap: Option<u64>,
    /// See `--strict-default-graph`.
    pub strict_default_graph: Option<bool>,
    /// See `--memory-budget`.
    pub memory_budget: Option<u64>,
    /// See `--sync`.
    pub sync: Option<bool>,
    /// See `--read-nice`.
    pub read_nice: Option<u8>,
    /// See `--large-write-nice`.
    pub large_write_nice: Option<u8>,
    /// See `--background-nice`.
    pub background_nice: Option<u8>,
    /// See `--allow-load-folder`.
    pub allow_load_folder: Option<PathBuf>,
    /// The `[search]` table: text index settings.
    pub search: Option<SearchFileConfig>,
    /// See `--resource-in-place`.
    pub resource_in_place: Option<bool>,
    /// See `--default-language`.
    pub default_language: Option<String>,
    /// See `--label-properties`.
    pub label_properties: Option<Vec<String>>,
    /// See `--prefixes`.
    pub prefixes: Option<PathBuf>,
    /// See `--site-name`.
    pub site_name: Option<String>,
    /// See `--public-hosts`.
    pub public_hosts: Option<Vec<String>>,
    /// See `--query-memory`.
    pub query_memory: Option<u64>,
    /// See `--read-timeout`.
    pub read_timeout: Option<f64>,
    /// See `--max-header-bytes`.
    pub max_header_bytes: Option<ByteSize>,
    /// See `--site-description`.
    pub site_description: Option<String>,
    /// The `[sparql]` table: where `SERVICE` may call.
    pub sparql: Option<SparqlFileConfig>,
}

/// The `[sparql]` table of `lodestone.toml`.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SparqlFileConfig {
    /// Endpoint IRIs (`http://` or `https://`) that `SERVICE` may call.
    pub service_allow: Option<Vec<String>>,
    /// Time bound of one `SERVICE` call in seconds [default: 10].
    pub service_timeout: Option<f64>,
    /// Largest answer of one `SERVICE` call [default: 16MB].
    pub service_max_bytes: Option<ByteSize>,
}

impl SparqlFileConfig {
    /// The checked policy; `Err` names the key (under `sparql.`) and the reason.
    pub fn policy(&self) -> Result<ServicePolicy, (&'static str, String)> {
        let mut policy = ServicePolicy::default();
        for text in self.service_allow.iter().flatten() {
            let iri = NamedNode::new(text.trim()).map_err(|e| {
                (
                    "sparql.service_allow",
                    format!("{text:?} is not an IRI: {e}"),
                )
            })?;
            let url = reqwest::Url::parse(iri.as_str())
                .map_err(|e| ("sparql.service_allow", format!("{text:?}: {e}")))?;
            if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
                return Err((
                    "sparql.service_allow",
                    format!("{text:?} is not an http:// or https:// endpoint"),
                ));
            }
            policy.allow.push(iri);
        }
        if let Some(secs) = self.service_timeout {
            if !(secs.is_finite() && (0.1..=300.0).contains(&secs)) {
                return Err((
                    "sparql.service_timeout",
                    format!("{secs} must be between 0.1 and 300 seconds"),
                ));
            }
            policy.timeout = Duration::from_secs_f64(secs);
        }
        if let Some(ByteSize(bytes)) = self.service_max_bytes {
            policy.max_response_bytes = usize::try_from(bytes)
                .ok()
                .filter(|b| (1024..=1 << 30).contains(b))
                .ok_or((
                    "sparql.service_max_bytes",
                    format!("{bytes} bytes: must be between 1KB and 1GB"),
                ))?;
        }
        Ok(policy)
    }
}

/// The `[search]` table of `lodestone.toml` (every key optional; see
/// `docs/configuration.md`).
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchFileConfig {
    /// Label properties, most preferred first (replaces the default list).
    pub label_predicates: Option<Vec<String>>,
    /// Description properties, most preferred first (replaces the default list).
    pub description_predicates: Option<Vec<String>>,
    /// Words never indexed nor searched.
    pub stop_words: Option<Vec<String>>,
    /// Longest query accepted, in characters.
    pub max_query_chars: Option<usize>,
    /// Multiplier of label matches.
    pub label_boost: Option<f32>,
    /// Added for a label equal to the query.
    pub exact_label_boost: Option<f32>,
    /// Added for a label word starting with the last query word.
    pub prefix_label_boost: Option<f32>,
    /// Multiplier of the match of all query words close together.
    pub proximity_boost: Option<f32>,
    /// Weight of the in-degree: `× (1 + rank_weight · ln(1 + in-degree))`.
    pub rank_weight: Option<f32>,
}

impl SearchFileConfig {
    /// The index settings: the defaults with every given key applied.
    pub fn settings(&self) -> IndexSettings {
        let mut settings = IndexSettings::default();
        if let Some(v) = &self.label_predicates {
            settings.label_predicates = v.clone();
        }
        if let Some(v) = &self.description_predicates {
            settings.description_predicates = v.clone();
        }
        if let Some(v) = &self.stop_words {
            settings.stop_words = v.clone();
        }
        if let Some(v) = self.max_query_chars {
            settings.max_query_chars = v.max(1);
        }
        let w = &mut settings.weights;
        for (value, slot) in [
            (self.label_boost, &mut w.label_boost),
            (self.exact_label_boost, &mut w.exact_label_boost),
            (self.prefix_label_boost, &mut w.prefix_label_boost),
            (self.proximity_boost, &mut w.proximity_boost),
            (self.rank_weight, &mut w.rank_weight),
        ] {
            if let Some(v) = value.filter(|v| v.is_finite() && *v >= 0.0) {
                *slot = v;
            }
        }
        settings
    }
}
