//! The bundled sample dataset, loaded into a new, empty store so that a fresh server has
//! something to show (see `server/sample/README.md` for what it is and where it comes from).

use lodestone_store::load::{BulkLoader, Input, LoadReport, ParseOptions};
use lodestone_store::{Store, StoreError};

/// The sample files, embedded in the binary: (file name, zstd-compressed N-Triples).
const SAMPLES: [(&str, &[u8]); 2] = [
    ("music.nt.zst", include_bytes!("../sample/music.nt.zst")),
    (
        "wikidata_samples.nt.zst",
        include_bytes!("../sample/wikidata_samples.nt.zst"),
    ),
];

/// Loads the sample dataset into the default graph through the bulk loader (which reads files,
/// so the embedded bytes are written to a temporary folder first).
pub(crate) fn load_sample(store: &Store) -> Result<LoadReport, StoreError> {
    let folder = tempfile::tempdir()?;
    let mut inputs = Vec::with_capacity(SAMPLES.len());
    for (name, bytes) in SAMPLES {
        let path = folder.path().join(name);
        std::fs::write(&path, bytes)?;
        inputs.push(Input::File(path));
    }
    // Lenient: the Wikidata sample has one label with a language tag that is not valid
    // BCP 47 (`@zh-classical`); a demo dataset should not refuse to load over it.
    let options = ParseOptions {
        lenient: true,
        ..ParseOptions::default()
    };
    BulkLoader::new(store)
        .with_parse_options(options)
        .load(&inputs)
}
