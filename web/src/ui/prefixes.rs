//! The prefix table the pages write IRIs with: the workspace's one table, from
//! `lodestone-vocab` (bundled well-known lists, declared, data and operator prefixes).

pub use lodestone_vocab::prefixes::MADE_UP;
pub use lodestone_vocab::{PrefixSource, Prefixes};
