//! The resolver: flags and environment over the config file over the defaults, each value
//! checked once, with the key, where it came from and why it is wrong.

use super::{config_file, Config, FileConfig, DEFAULT_CONFIG_FILE};
use crate::cli::ServeArgs;
use crate::priority::Nice;
use crate::settings::{
    ByteSize, PageSettings, ServerSettings, ServicePolicy, UiSettings, UpdatePolicy,
    MIN_HEADER_BYTES, PARSED_BODY_FACTOR, UPLOAD_COST_FACTOR,
};
use anyhow::bail;
use lodestone_store::StoreOptions;
use lodestone_vocab::{PrefixSource, Prefixes};
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where a value came from, for error messages.
#[derive(Debug, Clone, Copy)]
enum Origin<'a> {
    CommandLine(&'static str, &'static str),
    File(&'a Path),
}

impl fmt::Display for Origin<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::CommandLine(flag, env) => write!(f, "set by {flag} or {env}"),
            Self::File(path) => write!(f, "set in {}", path.display()),
        }
    }
}

/// Picks the command-line value, else the file's, remembering where it came from.
fn layer<'a, T: Clone>(
    cli: &Option<T>,
    file: &Option<T>,
    names: (&'static str, &'static str),
    path: &'a Path,
) -> Option<(T, Origin<'a>)> {
    match (cli, file) {
        (Some(v), _) => Some((v.clone(), Origin::CommandLine(names.0, names.1))),
        (None, Some(v)) => Some((v.clone(), Origin::File(path))),
        (None, None) => None,
    }
}

fn invalid(key: &str, origin: Origin<'_>, reason: impl fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("invalid configuration: {key} ({origin}): {reason}")
}

impl Config {
    /// Reads the config file (if any) and merges it under the command line and environment.
    pub fn resolve(args: &ServeArgs) -> anyhow::Result<Self> {
        let (file, path) = config_file(args.config.as_deref())?;
        let mut config = Self::from_layers(args, &file, path.as_deref())?;
        config.config_file = path;
        Ok(config)
    }

    /// Merges flags/environment (`args`) over a parsed config file and checks every value.
    pub fn from_layers(
        args: &ServeArgs,
        file: &FileConfig,
        file_path: Option<&Path>,
    ) -> anyhow::Result<Self> {
        let path = file_path.unwrap_or(Path::new(DEFAULT_CONFIG_FILE));
        macro_rules! pick {
            ($field:ident, $flag:literal, $env:literal) => {
                layer(&args.$field, &file.$field, ($flag, $env), path)
            };
        }
        let defaults = ServerSettings::default();

        let data = pick!(data, "--data", "LODESTONE_DATA")
            .map_or_else(|| PathBuf::from("./lodestone-data"), |(v, _)| v);

        let bind = match pick!(bind, "--bind", "LODESTONE_BIND") {
            None => SocketAddr::from(([127, 0, 0, 1], 7171)),
            Some((text, origin)) => text.trim().parse().map_err(|_| {
                invalid(
                    "bind",
                    origin,
                    format!("{text:?} is not an address like 127.0.0.1:7171 or [::1]:7171"),
                )
            })?,
        };

        let base_iri = match pick!(base_iri, "--base-iri", "LODESTONE_BASE_IRI") {
            None => None,
            Some((iri, origin)) => {
                oxrdf::NamedNode::new(iri.as_str()).map_err(|e| {
                    invalid(
                        "base_iri",
                        origin,
                        format!("{iri:?} is not an absolute IRI: {e}"),
                    )
                })?;
                Some(iri)
            }
        };

        let token = pick!(update_token, "--update-token", "LODESTONE_UPDATE_TOKEN");
        let open = pick!(open_updates, "--open-updates", "LODESTONE_OPEN_UPDATES");
        let updates = match (token, open) {
            (Some((_, origin)), Some((true, _))) => {
                return Err(invalid(
                    "update_token",
                    origin,
                    "a token and open_updates exclude each other: choose one",
                ))
            }
            (Some((token, origin)), _) => {
                if token.is_empty() || token.chars().any(|c| c.is_whitespace() || c.is_control()) {
                    return Err(invalid(
                        "update_token",
                        origin,
                        "the token must be non-empty and contain no spaces or control characters",
                    ));
                }
                UpdatePolicy::Token(token)
            }
            (None, Some((true, _))) => UpdatePolicy::Open,
            (None, _) => UpdatePolicy::Disabled,
        };

        let load_sample =
            !pick!(no_sample, "--no-sample", "LODESTONE_NO_SAMPLE").is_some_and(|(v, _)| v);

        let query_timeout = match pick!(query_timeout, "--query-timeout", "LODESTONE_QUERY_TIMEOUT")
        {
            None => defaults.query_timeout,
            Some((secs, origin)) => {
                if !(secs.is_finite() && secs > 0.0 && secs <= 86_400.0) {
                    return Err(invalid(
                        "query_timeout",
                        origin,
                        format!("{secs} must be more than 0 and at most 86400 seconds"),
                    ));
                }
                Duration::from_secs_f64(secs)
            }
        };

        let size = |value: Option<(ByteSize, Origin<'_>)>,
                    key: &str,
                    default: usize|
         -> anyhow::Result<usize> {
            match value {
                None => Ok(default),
                Some((ByteSize(0), origin)) => {
                    Err(invalid(key, origin, "must be more than 0 bytes"))
                }
                Some((ByteSize(n), origin)) => usize::try_from(n)
                    .map_err(|_| invalid(key, origin, format!("{n} bytes is too large"))),
            }
        };
        let max_body_bytes = size(
            pick!(
                max_body_bytes,
                "--max-body-bytes",
                "LODESTONE_MAX_BODY_BYTES"
            ),
            "max_body_bytes",
            defaults.max_body_bytes,
        )?;
        // The default upload limit follows the memory budget (below, once it is known).
        let max_upload_bytes = pick!(
            max_upload_bytes,
            "--max-upload-bytes",
            "LODESTONE_MAX_UPLOAD_BYTES"
        )
        .map(|value| size(Some(value), "max_upload_bytes", 0))
        .transpose()?;

        let max_concurrent_queries = match pick!(
            max_concurrent_queries,
            "--max-concurrent-queries",
            "LODESTONE_MAX_CONCURRENT_QUERIES"
        ) {
            None => defaults.max_concurrent_queries,
            Some((0, origin)) => {
                return Err(invalid(
                    "max_concurrent_queries",
                    origin,
                    "must be at least 1",
                ))
            }
            Some((n, _)) => n,
        };
        let query_queue = pick!(query_queue, "--query-queue", "LODESTONE_QUERY_QUEUE")
            .map_or(defaults.query_queue, |(n, _)| n);
        let result_row_cap = match pick!(
            result_row_cap,
            "--result-row-cap",
            "LODESTONE_RESULT_ROW_CAP"
        ) {
            None => defaults.result_row_cap,
            Some((0, origin)) => {
                return Err(invalid("result_row_cap", origin, "must be at least 1"))
            }
            Some((n, _)) => n,
        };
        let union_default_graph = !pick!(
            strict_default_graph,
            "--strict-default-graph",
            "LODESTONE_STRICT_DEFAULT_GRAPH"
        )
        .is_some_and(|(v, _)| v);

        let mut store = StoreOptions::default();
        let memory = match pick!(memory_budget, "--memory-budget", "LODESTONE_MEMORY_BUDGET") {
            None => 512,
            Some((mb, origin)) if !(16..=1 << 20).contains(&mb) => {
                return Err(invalid(
                    "memory_budget",
                    origin,
                    format!("{mb} MB: must be between 16 and 1048576"),
                ))
            }
            Some((mb, _)) => mb,
        };
        let memory_bytes = usize::try_from(memory << 20).unwrap_or(usize::MAX);
        store = store.with_memory_budget(memory_bytes);
        // An upload costs about 30 times its size while it is parsed into one transaction
        // (docs/configuration.md), and every body in flight is held whole.
        let max_upload_bytes =
            max_upload_bytes.unwrap_or((memory_bytes / UPLOAD_COST_FACTOR).max(1 << 20));
        // Bodies in flight and their parsed trees (extract/parse.rs) share one budget: half
        // the memory budget, and room for one largest body of typical SPARQL once parsed.
        let max_body_bytes_in_flight = (memory_bytes / 2)
            .max(max_body_bytes.saturating_mul(PARSED_BODY_FACTOR))
            .max(max_upload_bytes);
        store =
            store.with_sync_writes(pick!(sync, "--sync", "LODESTONE_SYNC").is_some_and(|(v, _)| v));

        let nice = |value: Option<(u8, Origin<'_>)>, key, default| match value {
            None => Ok(default),
            Some((n, origin)) => Nice::new(n)
                .ok_or_else(|| invalid(key, origin, format!("{n}: must be between 0 and 19"))),
        };
        let read_nice = nice(
            pick!(read_nice, "--read-nice", "LODESTONE_READ_NICE"),
            "read_nice",
            defaults.read_nice,
        )?;
        let large_write_nice = nice(
            pick!(
                large_write_nice,
                "--large-write-nice",
                "LODESTONE_LARGE_WRITE_NICE"
            ),
            "large_write_nice",
            defaults.large_write_nice,
        )?;
        let background_nice = nice(
            pick!(
                background_nice,
                "--background-nice",
                "LODESTONE_BACKGROUND_NICE"
            ),
            "background_nice",
            defaults.background_nice,
        )?;
        store = store.with_background_at_lowest_priority(background_nice.lowers_store_background());

        let load_folder = match pick!(
            allow_load_folder,
            "--allow-load-folder",
            "LODESTONE_ALLOW_LOAD_FOLDER"
        ) {
            None => None,
            Some((folder, origin)) => {
                if !folder.is_dir() {
                    return Err(invalid(
                        "allow_load_folder",
                        origin,
                        format!("{} is not a folder", folder.display()),
                    ));
                }
                Some(
                    folder
                        .canonicalize()
                        .map_err(|e| invalid("allow_load_folder", origin, e))?,
                )
            }
        };

        let pages = resolve_pages(args, file, path)?;
        let prefixes = match pick!(prefixes, "--prefixes", "LODESTONE_PREFIXES") {
            None => Prefixes::new(),
            Some((list, origin)) => {
                read_prefix_file(&list).map_err(|reason| invalid("prefixes", origin, reason))?
            }
        };
        let read_timeout = match pick!(read_timeout, "--read-timeout", "LODESTONE_READ_TIMEOUT") {
            None => defaults.read_timeout,
            Some((secs, origin)) => {
                if !(secs.is_finite() && (0.1..=3600.0).contains(&secs)) {
                    return Err(invalid(
                        "read_timeout",
                        origin,
                        format!("{secs} must be between 0.1 and 3600 seconds"),
                    ));
                }
                Duration::from_secs_f64(secs)
            }
        };
        let max_header_bytes = match pick!(
            max_header_bytes,
            "--max-header-bytes",
            "LODESTONE_MAX_HEADER_BYTES"
        ) {
            None => defaults.max_header_bytes,
            Some((ByteSize(n), origin)) => match usize::try_from(n) {
                Ok(n) if (MIN_HEADER_BYTES..=16 << 20).contains(&n) => n,
                _ => {
                    return Err(invalid(
                        "max_header_bytes",
                        origin,
                        format!("{n} bytes: must be between 8KB and 16MB"),
                    ))
                }
            },
        };

        let query_memory_bytes =
            match pick!(query_memory, "--query-memory", "LODESTONE_QUERY_MEMORY") {
                None => defaults.query_memory_bytes,
                Some((mb, origin)) if !(1..=1 << 20).contains(&mb) => {
                    return Err(invalid(
                        "query_memory",
                        origin,
                        format!("{mb} MB: must be between 1 and 1048576"),
                    ))
                }
                Some((mb, _)) => usize::try_from(mb << 20).unwrap_or(usize::MAX),
            };
        let public_hosts = pick!(public_hosts, "--public-hosts", "LODESTONE_PUBLIC_HOSTS")
            .map_or_else(Vec::new, |(names, _)| {
                names
                    .iter()
                    .map(|n| n.trim().to_ascii_lowercase())
                    .filter(|n| !n.is_empty())
                    .collect()
            });

        Ok(Self {
            data,
            bind,
            load_sample,
            store,
            server: ServerSettings {
                updates,
                query_timeout,
                max_body_bytes,
                max_upload_bytes,
                max_body_bytes_in_flight,
                max_concurrent_queries,
                query_queue,
                result_row_cap,
                union_default_graph,
                load_folder,
                base_iri,
                pages,
                read_timeout,
                max_header_bytes,
                write_timeout: read_timeout,
                max_connections: defaults.max_connections,
                max_connections_per_peer: defaults.max_connections_per_peer,
                public_hosts,
                query_memory_bytes,
                max_text_hits: defaults.max_text_hits,
                ui: UiSettings {
                    description: pick!(
                        site_description,
                        "--site-description",
                        "LODESTONE_SITE_DESCRIPTION"
                    )
                    .map(|(text, _)| text),
                },
                service: match &file.sparql {
                    None => ServicePolicy::default(),
                    Some(table) => table
                        .policy()
                        .map_err(|(key, reason)| invalid(key, Origin::File(path), reason))?,
                },
                read_nice,
                large_write_nice,
                background_nice,
                rank_upkeep: crate::settings::RankUpkeep::default(),
                prefixes,
            },
            config_file: None,
            // The text index's writer heap and merges come out of the same budget.
            text_index: file
                .search
                .clone()
                .unwrap_or_default()
                .settings()
                .within_budget(memory_bytes),
        })
    }
}

/// The operator's prefix file, every entry of it, or what is wrong with it (which line and
/// column).
fn read_prefix_file(file: &Path) -> Result<Prefixes, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let mut prefixes = Prefixes::new();
    prefixes
        .extend_from_list(&text, PrefixSource::Operator)
        .map_err(|e| format!("{}: {e}", file.display()))?;
    Ok(prefixes)
}

/// The entity page settings of the command line and config file.
fn resolve_pages(args: &ServeArgs, file: &FileConfig, path: &Path) -> anyhow::Result<PageSettings> {
    let mut pages = PageSettings::default();
    let names = |flag, env| (flag, env);
    if let Some((in_place, _)) = layer(
        &args.resource_in_place,
        &file.resource_in_place,
        names("--resource-in-place", "LODESTONE_RESOURCE_IN_PLACE"),
        path,
    ) {
        pages.resource_in_place = in_place;
    }
    if let Some((tag, origin)) = layer(
        &args.default_language,
        &file.default_language,
        names("--default-language", "LODESTONE_DEFAULT_LANGUAGE"),
        path,
    ) {
        let valid = !tag.is_empty() && tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !valid {
            bail!(invalid(
                "default_language",
                origin,
                format!("{tag:?} is not a language tag")
            ));
        }
        pages.labels.default_language = tag.to_ascii_lowercase();
    }
    if let Some((iris, origin)) = layer(
        &args.label_properties,
        &file.label_properties,
        names("--label-properties", "LODESTONE_LABEL_PROPERTIES"),
        path,
    ) {
        for iri in &iris {
            oxrdf::NamedNode::new(iri.trim()).map_err(|e| {
                invalid(
                    "label_properties",
                    origin,
                    format!("{iri:?} is not an absolute IRI: {e}"),
                )
            })?;
        }
        pages.labels.properties = iris.iter().map(|i| i.trim().to_owned()).collect();
    }
    if let Some((name, _)) = layer(
        &args.site_name,
        &file.site_name,
        names("--site-name", "LODESTONE_SITE_NAME"),
        path,
    ) {
        pages.site_name = name;
    }
    Ok(pages)
}
