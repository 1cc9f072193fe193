//! The store vocabulary (label, description and type properties) as the searches of one store
//! state share it.
//!
//! Resolving it reads the ids of the configured properties (a dozen dictionary reads), and
//! classifying a property by its local name reads the property's IRI; per request, at 35 M
//! quads, that was 3 % of a type-ahead request. The shared vocabulary is resolved once per store
//! sequence (the first request of a new sequence replaces it) and keeps the roles of the
//! properties its searches met. A term id is never given to another term, so the answer for
//! a reader of that sequence is the one it would resolve itself. A reader with a transaction's
//! uncommitted changes on top resolves its own.

use crate::document::Vocabulary;
use crate::error::IndexError;
use crate::settings::IndexSettings;
use lodestone_store::{Reader, SequenceNumber};
use std::sync::{Arc, Mutex};

/// The vocabulary of the last store sequence a search asked for.
#[derive(Default)]
pub(crate) struct SharedVocabulary {
    last: Mutex<Option<(SequenceNumber, Arc<Vocabulary>)>>,
}

impl SharedVocabulary {
    /// The vocabulary of `reader`'s store state.
    pub(crate) fn of(
        &self,
        reader: &Reader<'_>,
        settings: &IndexSettings,
    ) -> Result<Arc<Vocabulary>, IndexError> {
        if reader.has_overlay() {
            return Ok(Arc::new(Vocabulary::resolve(reader, settings)?));
        }
        let sequence = reader.sequence()?;
        if let Some((_, vocabulary)) = self.slot().as_ref().filter(|(s, _)| *s == sequence) {
            return Ok(Arc::clone(vocabulary));
        }
        // Resolved without the lock: another search may resolve the same one meanwhile.
        let vocabulary = Arc::new(Vocabulary::resolve(reader, settings)?);
        *self.slot() = Some((sequence, Arc::clone(&vocabulary)));
        Ok(vocabulary)
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Option<(SequenceNumber, Arc<Vocabulary>)>> {
        // A poisoned slot holds a whole entry or none.
        self.last.lock().unwrap_or_else(|e| e.into_inner())
    }
}
