//! `lodestone stats`: counts and disk use per index.

use super::open_store_to_read;
use crate::cli::DataArgs;
use indicatif::HumanBytes;
use std::io::Write;

/// `lodestone stats`.
pub(super) fn stats(args: &DataArgs) -> anyhow::Result<()> {
    let store = open_store_to_read(args)?;
    let reader = store.reader();
    // The counts a server remembered for this commit, else a count (the store is open
    // read-only here: nothing is remembered).
    let counts = match reader.remembered_counts()? {
        Some(counts) => counts,
        None => reader.counts()?,
    };
    // A closed pipe (`lodestone stats | head`) ends the output quietly: see `main`.
    let mut out = std::io::stdout().lock();
    writeln!(out, "store            {}", store.path().display())?;
    writeln!(out, "quads            {}", counts.quads)?;
    writeln!(out, "dictionary terms {}", counts.dictionary_terms)?;
    writeln!(out, "subjects         {}", counts.subjects)?;
    writeln!(out, "predicates       {}", counts.predicates)?;
    writeln!(out, "classes          {}", counts.classes)?;
    writeln!(out, "named graphs     {}", counts.named_graphs)?;
    writeln!(out, "last commit      {}", counts.sequence)?;
    writeln!(out)?;
    writeln!(
        out,
        "{:<12} {:>14} {:>14} {:>12}",
        "index", "keys (est.)", "disk", "memtable"
    )?;
    let mut total = 0;
    for usage in store.index_usage()? {
        total += usage.sst_bytes + usage.memtable_bytes;
        writeln!(
            out,
            "{:<12} {:>14} {:>14} {:>12}",
            usage.name,
            usage.estimated_keys,
            HumanBytes(usage.sst_bytes).to_string(),
            HumanBytes(usage.memtable_bytes).to_string()
        )?;
    }
    writeln!(
        out,
        "{:<12} {:>14} {:>14}",
        "total",
        "",
        HumanBytes(total).to_string()
    )?;
    if counts.quads > 0 {
        writeln!(
            out,
            "bytes per quad   {:.1}",
            total as f64 / counts.quads as f64
        )?;
    }
    Ok(())
}
