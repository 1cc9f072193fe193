//! The prefix table of a store: the bundled well-known prefixes (`lodestone_vocab`), overridden
//! by the prefixes declared in the data the store holds (`Store::record_prefixes`).

use lodestone_store::Store;
use lodestone_vocab::{PrefixSource, Prefixes};

/// The well-known prefixes with the store's declared ones over them. A store that cannot be
/// read gives the well-known table alone (logged): CURIEs then fall back, nothing fails.
pub fn of_store(store: &Store) -> Prefixes {
    let mut table = Prefixes::well_known();
    match store.declared_prefixes() {
        Ok(declared) => {
            for (name, namespace) in declared {
                table.insert(&name, &namespace, PrefixSource::Declared);
            }
        }
        Err(error) => tracing::warn!(%error, "cannot read the declared prefixes"),
    }
    table
}
