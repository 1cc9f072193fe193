//! The write transaction.
//!
//! One transaction at a time holds the writer lock. Changes collect in an [`Overlay`] that the
//! transaction's own reads see; [`Transaction::commit`] turns them into one RocksDB write batch
//! holding the index entries, the dictionary entries of new terms, the updated statistics, the
//! reclaimed terms and the change log entry. Dropping a transaction discards it.

use crate::changes::{ChangeBatch, SequenceNumber};
use crate::database::{Database, IdMark, WriterState};
use crate::dictionary::{decode_ids, encode_ids, is_hashed_key, lookup_key};
use crate::encoding::{encode_term_bytes, inline_id, EncodedQuad, Permutation, TermId, TermKind};
use crate::error::{CorruptionError, StoreError};
use crate::hash_iris;
use crate::iri_index;
use crate::kv::{meta_key, multi_get, Table};
use crate::quads::layout::LayoutPlan;
use crate::quads::overlay::Overlay;
use crate::quads::reader::Reader;
use crate::stats::{decode_u64, encode_u64, term_graph_key, TermUsage, UsageDelta};
use oxrdf::vocab::rdf;
use oxrdf::{GraphNameRef, QuadRef, TermRef};
use rocksdb::{ReadOptions, WriteBatch};
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::MutexGuard;
use std::time::{SystemTime, UNIX_EPOCH};

/// The store's single write transaction.
pub struct Transaction<'a> {
    database: &'a Database,
    state: MutexGuard<'a, WriterState>,
    next_dictionary_id: u64,
    next_blank_id: u64,
    overlay: Overlay,
    term_buffer: Vec<u8>,
    /// Ids newer than this were handed out by this transaction (nothing committed uses them).
    first_new: IdMark,
    /// Prefix declarations (name, namespace) recorded by the commit.
    prefixes: Vec<(String, String)>,
}

impl<'a> Transaction<'a> {
    /// Starts the transaction on `database`; waits for the writer lock, held until the
    /// transaction is committed or dropped.
    pub(crate) fn new(database: &'a Database) -> Self {
        let state = database.lock_writer();
        let first_new = state.id_mark();
        Self {
            database,
            next_dictionary_id: state.next_dictionary_id,
            next_blank_id: state.next_blank_id,
            state,
            overlay: Overlay::default(),
            term_buffer: Vec::new(),
            first_new,
            prefixes: Vec::new(),
        }
    }

    /// Prefix declarations (name, namespace IRI) of the document or request this transaction
    /// applies, recorded by its commit for the prefix table every surface shows CURIEs with:
    /// the latest declaration of a name wins, implausible ones are skipped (see
    /// `crate::prefixes`). A declaration that changes the recorded prefixes makes a commit
    /// (a new sequence number) even without quads, so that readers caching by sequence see it.
    pub fn declare_prefixes(&mut self, declarations: impl IntoIterator<Item = (String, String)>) {
        self.prefixes.extend(declarations);
    }

    /// A read view of the store with this transaction's changes applied.
    pub fn reader(&self) -> Reader<'_> {
        Reader::new(self.database, Some(&self.overlay))
    }

    /// A fresh blank node, never used before in this store.
    pub fn mint_blank_node(&mut self) -> Result<TermId, StoreError> {
        self.database
            .blank_numbering()
            .mint(&mut self.next_blank_id)
    }

    /// The id of a term, adding it to the dictionary (at commit) if it is new.
    pub fn term_id_for_insert(&mut self, term: TermRef<'_>) -> Result<TermId, StoreError> {
        if let Some(id) = inline_id(term) {
            return Ok(id);
        }
        let mut bytes = std::mem::take(&mut self.term_buffer);
        encode_term_bytes(term, &mut bytes);
        let id = match self.known_term_id(&bytes)? {
            Some(id) => id,
            None => {
                let id = TermId::new(TermKind::of_dictionary_term(term), self.next_dictionary_id);
                self.next_dictionary_id += 1;
                self.overlay.new_terms.insert(bytes.clone(), id);
                self.overlay.new_terms_by_id.insert(id, term.into_owned());
                id
            }
        };
        self.term_buffer = bytes;
        Ok(id)
    }

    /// Moves the blank node counter past a store-numbered blank node written under its own
    /// label (`_:a000000000000001` is inlined, see `inline_id`): blank nodes minted later must
    /// not be that node, and `is_new_term` relies on every stored number below the limit being
    /// below the counter. Numbers at or above `BLANK_NUMBER_LIMIT` are never minted.
    fn reserve_blank_number(&mut self, id: TermId) {
        if id.kind() == TermKind::MintedBlank {
            self.database
                .blank_numbering()
                .reserve(&mut self.next_blank_id, id);
        }
    }

    /// Whether the id was handed out by this transaction, so no committed quad can use it.
    fn is_new_term(&self, id: TermId) -> bool {
        self.first_new.is_newer(self.database.blank_numbering(), id)
    }

    /// The id of a dictionary term this transaction added or the store holds, without a
    /// snapshot: the writer lock keeps the committed state still.
    fn known_term_id(&mut self, bytes: &[u8]) -> Result<Option<TermId>, StoreError> {
        if let Some(id) = self.overlay.new_terms.get(bytes) {
            return Ok(Some(*id));
        }
        if let Some(id) = self.state.term_cache.get(bytes) {
            return Ok(Some(id));
        }
        let id = self.database.committed_term_id(bytes)?;
        if let Some(id) = id {
            self.state.term_cache.insert(bytes, id);
        }
        Ok(id)
    }

    /// The id of a graph name, adding it to the dictionary if it is new.
    pub fn graph_id_for_insert(&mut self, graph: GraphNameRef<'_>) -> Result<TermId, StoreError> {
        match graph {
            GraphNameRef::DefaultGraph => Ok(TermId::DEFAULT_GRAPH),
            GraphNameRef::NamedNode(n) => self.term_id_for_insert(n.into()),
            GraphNameRef::BlankNode(b) => self.term_id_for_insert(b.into()),
        }
    }

    /// Adds a quad; returns whether it was new.
    pub fn insert(&mut self, quad: QuadRef<'_>) -> Result<bool, StoreError> {
        let encoded = EncodedQuad::new(
            self.term_id_for_insert(quad.subject.into())?,
            self.term_id_for_insert(quad.predicate.into())?,
            self.term_id_for_insert(quad.object)?,
            self.graph_id_for_insert(quad.graph_name)?,
        );
        self.insert_encoded(encoded)
    }

    /// Adds a quad of ids obtained from this transaction; returns whether it was new.
    pub fn insert_encoded(&mut self, quad: EncodedQuad) -> Result<bool, StoreError> {
        for term in quad.terms() {
            self.reserve_blank_number(term);
        }
        if !quad.graph.is_default_graph() {
            self.ensure_graph(quad.graph)?;
        }
        if self.overlay.restore(&quad) {
            return Ok(true);
        }
        if self.overlay.added.contains(&quad) {
            return Ok(false);
        }
        let committed = match self.overlay.known_committed(&quad) {
            Some(known) => known,
            None => {
                let surely_new = quad.terms().into_iter().any(|t| self.is_new_term(t));
                !surely_new && self.contains_committed(&quad)?
            }
        };
        if committed {
            return Ok(false);
        }
        self.overlay.added.insert(quad);
        Ok(true)
    }

    /// Removes a quad; returns whether it was there.
    pub fn remove(&mut self, quad: QuadRef<'_>) -> Result<bool, StoreError> {
        let encoded = self.reader().encode_quad(quad)?;
        match encoded {
            Some(q) => self.remove_encoded(q),
            None => Ok(false),
        }
    }

    /// Removes a quad of ids; returns whether it was there.
    pub fn remove_encoded(&mut self, quad: EncodedQuad) -> Result<bool, StoreError> {
        if self.overlay.added.remove(&quad) {
            return Ok(true);
        }
        if self.overlay.removed.contains(&quad) || !self.contains_committed(&quad)? {
            return Ok(false);
        }
        self.overlay.remove_committed(quad);
        Ok(true)
    }

    fn contains_committed(&self, quad: &EncodedQuad) -> Result<bool, StoreError> {
        Ok(self
            .database
            .db()
            .get_pinned_cf(self.database.cf(Table::Spog), Permutation::Spog.key(quad))?
            .is_some())
    }

    fn graph_committed(&self, graph: TermId) -> Result<bool, StoreError> {
        Ok(self
            .database
            .db()
            .get_pinned_cf(self.database.cf(Table::Graphs), graph.to_be_bytes())?
            .is_some())
    }

    fn ensure_graph(&mut self, graph: TermId) -> Result<(), StoreError> {
        self.reserve_blank_number(graph);
        if self.overlay.created_graphs.contains(&graph) {
            return Ok(());
        }
        if self.graph_committed(graph)? {
            self.overlay.dropped_graphs.remove(&graph);
        } else {
            self.overlay.created_graphs.insert(graph);
        }
        Ok(())
    }

    /// Removes every quad of a graph (the default graph included); a named graph stays
    /// as an empty graph. Returns the number of quads removed.
    pub fn clear_graph(&mut self, graph: TermId) -> Result<usize, StoreError> {
        // A graph named by a term this transaction added holds no committed quads: its
        // quads are all in the overlay, and the scan of the store, which costs a seek in
        // every level, is not needed.
        let quads = if self.is_new_term(graph) {
            let added = self.overlay.added.iter();
            added.filter(|q| q.graph == graph).copied().collect()
        } else {
            self.reader()
                .quads_for_pattern(None, None, None, Some(graph))
                .collect::<Result<Vec<_>, _>>()?
        };
        let count = quads.len();
        // What the scan saw is either added by this transaction or committed and not removed:
        // no look-up needed.
        for quad in quads {
            if !self.overlay.added.remove(&quad) {
                self.overlay.remove_committed(quad);
            }
        }
        self.overlay.cleared_graphs.insert(graph);
        Ok(count)
    }

    /// Creates an empty named graph; returns false if it existed.
    pub fn create_graph(&mut self, graph: TermId) -> Result<bool, StoreError> {
        let exists = self.reader().contains_named_graph(graph)?;
        if !exists {
            self.ensure_graph(graph)?;
        }
        Ok(!exists)
    }

    /// Removes a named graph and its quads; returns false if it did not exist.
    pub fn drop_graph(&mut self, graph: TermId) -> Result<bool, StoreError> {
        let existed = self.reader().contains_named_graph(graph)?;
        self.clear_graph(graph)?;
        self.overlay.created_graphs.remove(&graph);
        if self.graph_committed(graph)? {
            self.overlay.dropped_graphs.insert(graph);
        }
        Ok(existed)
    }

    /// Replaces the content of a graph with the given quads (their graph position is ignored).
    pub fn replace_graph(
        &mut self,
        graph: TermId,
        quads: impl IntoIterator<Item = EncodedQuad>,
    ) -> Result<(), StoreError> {
        self.clear_graph(graph)?;
        if !graph.is_default_graph() {
            self.ensure_graph(graph)?;
        }
        for quad in quads {
            self.insert_encoded(EncodedQuad { graph, ..quad })?;
        }
        Ok(())
    }

    /// The quads the given graphs hold with this transaction's changes.
    fn final_quads(
        &self,
        graphs: impl Iterator<Item = TermId>,
    ) -> Result<Vec<EncodedQuad>, StoreError> {
        let reader = self.reader();
        let mut quads = Vec::new();
        for graph in graphs {
            for quad in reader.quads_for_pattern(None, None, None, Some(graph)) {
                quads.push(quad?);
            }
        }
        Ok(quads)
    }

    /// Number of quads added and removed so far.
    pub fn pending(&self) -> (usize, usize) {
        (self.overlay.added.len(), self.overlay.removed.len())
    }

    /// Writes every change in one atomic batch and returns the commit's sequence number
    /// (the previous one if nothing changed).
    pub fn commit(mut self) -> Result<SequenceNumber, StoreError> {
        let prefixes = crate::prefixes::changes(self.database, &self.prefixes)?;
        if self.overlay.is_empty() {
            if prefixes.is_empty() {
                return Ok(self.state.sequence);
            }
            return self.commit_prefixes(&prefixes);
        }
        let database = self.database;
        let db = database.db();
        crate::kv::quiet_perf_counters();
        let mut type_bytes = Vec::new();
        encode_term_bytes(rdf::TYPE.into(), &mut type_bytes);
        let rdf_type = self.known_term_id(&type_bytes)?;
        let mut batch = WriteBatch::default();
        let mut term_deltas: FxHashMap<TermId, UsageDelta> = FxHashMap::default();
        let mut term_graph_deltas: FxHashMap<(TermId, TermId), i64> = FxHashMap::default();
        let mut class_deltas: FxHashMap<TermId, i64> = FxHashMap::default();
        let mut subjects = Vec::new();
        let mut quad_delta: i64 = 0;

        let changes = self
            .overlay
            .added
            .iter()
            .map(|q| (q, 1_i64))
            .chain(self.overlay.removed.iter().map(|q| (q, -1_i64)));
        let layouts = LayoutPlan::new(database, self.overlay.graph_deltas(), |t| {
            self.is_new_term(t)
        })?;
        let converted = self.final_quads(layouts.conversions())?;
        self.overlay
            .write_index_entries(database, &mut batch, &layouts, &converted);
        for (quad, sign) in changes {
            quad_delta += sign;
            subjects.push(quad.subject);
            term_deltas.entry(quad.subject).or_default().as_subject += sign;
            term_deltas.entry(quad.predicate).or_default().as_predicate += sign;
            term_deltas.entry(quad.object).or_default().as_object += sign;
            if !quad.graph.is_default_graph() {
                term_deltas.entry(quad.graph).or_default().as_graph += sign;
            }
            for term in [quad.subject, quad.predicate, quad.object] {
                *term_graph_deltas.entry((term, quad.graph)).or_default() += sign;
            }
            if Some(quad.predicate) == rdf_type {
                *class_deltas.entry(quad.object).or_default() += sign;
            }
        }

        // Per term and graph: positions, and whether the term entered or left the graph.
        // Pairs with a term or graph new in this transaction cannot exist yet: no look-up.
        // A pair whose positions did not change (a graph replaced by one using the same terms)
        // needs neither a look-up nor a write.
        term_graph_deltas.retain(|_, delta| *delta != 0);
        let (term_graph_keys, new_pairs): (Vec<_>, Vec<_>) = term_graph_deltas
            .keys()
            .copied()
            .partition(|(t, g)| !self.is_new_term(*t) && !self.is_new_term(*g));
        let current = multi_get(
            db,
            database.cf(Table::TermGraph),
            term_graph_keys.iter().map(|(t, g)| term_graph_key(*t, *g)),
            false,
            &ReadOptions::default(),
        );
        let current = current
            .into_iter()
            .map(|v| v?.map_or(Ok(0), |v| decode_u64(&v).map_err(StoreError::from)))
            .chain(new_pairs.iter().map(|_| Ok(0)))
            .collect::<Result<Vec<u64>, StoreError>>()?;
        // Sorted, so that each insert into the table's skip list starts where the last ended.
        let mut term_graphs: Vec<((TermId, TermId), u64)> = term_graph_keys
            .into_iter()
            .chain(new_pairs)
            .zip(current)
            .collect();
        // `TermId` orders like its big-endian bytes, so pair order is key order.
        term_graphs.sort_unstable_by_key(|(pair, _)| *pair);
        for &((term, graph), old) in &term_graphs {
            let new = old.saturating_add_signed(term_graph_deltas[&(term, graph)]);
            let key = term_graph_key(term, graph);
            if new == 0 {
                batch.delete_cf(database.cf(Table::TermGraph), key);
            } else {
                batch.put_cf(database.cf(Table::TermGraph), key, encode_u64(new));
            }
            if old == 0 && new > 0 {
                term_deltas.entry(term).or_default().graphs += 1;
            } else if old > 0 && new == 0 {
                term_deltas.entry(term).or_default().graphs -= 1;
            }
        }

        // Graph existence, before term reclamation: an existing empty graph keeps its name.
        for (graph, layout) in layouts.entries() {
            batch.put_cf(
                database.cf(Table::Graphs),
                graph.to_be_bytes(),
                layout.encode(),
            );
        }
        for graph in &self.overlay.dropped_graphs {
            batch.delete_cf(database.cf(Table::Graphs), graph.to_be_bytes());
            term_deltas.entry(*graph).or_default();
        }
        for graph in &self.overlay.created_graphs {
            term_deltas.entry(*graph).or_default();
        }

        // Per term: counters; reclaim terms nothing refers to any more.
        let graph_changes: FxHashSet<TermId> = self
            .overlay
            .created_graphs
            .iter()
            .chain(&self.overlay.dropped_graphs)
            .copied()
            .collect();
        term_deltas.retain(|t, d| *d != UsageDelta::default() || graph_changes.contains(t));
        let (terms, fresh): (Vec<TermId>, Vec<TermId>) = term_deltas
            .keys()
            .copied()
            .partition(|t| !self.is_new_term(*t));
        let current = multi_get(
            db,
            database.cf(Table::TermStats),
            terms.iter().map(|t| t.to_be_bytes()),
            false,
            &ReadOptions::default(),
        );
        let current = current
            .into_iter()
            .map(|v| {
                v?.map_or(Ok(TermUsage::default()), |v| {
                    TermUsage::decode(&v).map_err(StoreError::from)
                })
            })
            .chain(fresh.iter().map(|_| Ok(TermUsage::default())))
            .collect::<Result<Vec<_>, StoreError>>()?;
        let mut new_terms_written = FxHashSet::default();
        let mut reclaimed = Vec::new();
        let mut usages: Vec<(TermId, TermUsage)> =
            terms.into_iter().chain(fresh).zip(current).collect();
        usages.sort_unstable_by_key(|(t, _)| *t);
        for (term, mut usage) in usages {
            usage.apply(&term_deltas[&term]);
            let unused = usage.is_unused();
            let is_new = self.overlay.new_terms_by_id.contains_key(&term);
            // An existing (possibly empty) named graph keeps its name in the dictionary.
            let graph_exists = unused
                && term.kind().is_in_dictionary()
                && (self.overlay.created_graphs.contains(&term)
                    || (!self.overlay.dropped_graphs.contains(&term)
                        && self.graph_committed(term)?));
            if unused {
                batch.delete_cf(database.cf(Table::TermStats), term.to_be_bytes());
                if !graph_exists && !is_new && term.kind().is_in_dictionary() {
                    reclaimed.push(self.reclaim_term(term, &mut batch)?);
                }
            } else {
                batch.put_cf(
                    database.cf(Table::TermStats),
                    term.to_be_bytes(),
                    usage.encode(),
                );
            }
            if is_new && (!unused || graph_exists) {
                new_terms_written.insert(term);
            }
        }
        let mut new_terms: Vec<(TermId, &[u8])> = self
            .overlay
            .new_terms
            .iter()
            .filter(|(_, id)| new_terms_written.contains(*id))
            .map(|(bytes, id)| (*id, bytes.as_slice()))
            .collect();
        self.write_new_terms(&mut new_terms, &mut batch)?;

        // Distinct counts (see `distinct`).
        super::distinct::write_changes(
            database,
            &self.overlay,
            rdf_type,
            |t| self.is_new_term(t),
            &mut batch,
        )?;

        // Classes.
        class_deltas.retain(|_, delta| *delta != 0);
        let classes: Vec<TermId> = class_deltas.keys().copied().collect();
        let current = multi_get(
            db,
            database.cf(Table::ClassStats),
            classes.iter().map(|t| t.to_be_bytes()),
            false,
            &ReadOptions::default(),
        );
        for (class, value) in classes.iter().zip(current) {
            let old = value?.map_or(Ok(0), |v| decode_u64(&v))?;
            let new = old.saturating_add_signed(class_deltas[class]);
            if new == 0 {
                batch.delete_cf(database.cf(Table::ClassStats), class.to_be_bytes());
            } else {
                batch.put_cf(
                    database.cf(Table::ClassStats),
                    class.to_be_bytes(),
                    encode_u64(new),
                );
            }
        }

        crate::prefixes::put(database, &mut batch, &prefixes);

        // Change log and counters.
        let sequence = self.state.sequence + 1;
        subjects.sort_unstable();
        subjects.dedup();
        batch.put_cf(
            database.cf(Table::Changes),
            sequence.to_be_bytes(),
            ChangeBatch::encode_subjects(&subjects),
        );
        let quad_count = self.state.quad_count.saturating_add_signed(quad_delta);
        let meta = database.cf(Table::Meta);
        batch.put_cf(meta, meta_key::SEQUENCE, encode_u64(sequence));
        batch.put_cf(meta, meta_key::QUAD_COUNT, encode_u64(quad_count));
        batch.put_cf(
            meta,
            meta_key::NEXT_DICTIONARY_ID,
            encode_u64(self.next_dictionary_id),
        );
        batch.put_cf(
            meta,
            meta_key::NEXT_BLANK_ID,
            encode_u64(self.next_blank_id),
        );
        batch.put_cf(meta, meta_key::LAST_COMMIT_MS, encode_u64(now_ms()));
        database.write(batch, &database.write_options())?;

        for bytes in reclaimed {
            self.state.term_cache.remove(&bytes);
        }
        self.state.sequence = sequence;
        self.state.quad_count = quad_count;
        self.state.next_dictionary_id = self.next_dictionary_id;
        self.state.next_blank_id = self.next_blank_id;
        database.publish_sequence(sequence);
        Ok(sequence)
    }

    /// A commit of prefix declarations alone: a change log entry of no subjects.
    fn commit_prefixes(
        mut self,
        prefixes: &[(String, String)],
    ) -> Result<SequenceNumber, StoreError> {
        let database = self.database;
        let mut batch = WriteBatch::default();
        crate::prefixes::put(database, &mut batch, prefixes);
        let sequence = self.state.sequence + 1;
        batch.put_cf(
            database.cf(Table::Changes),
            sequence.to_be_bytes(),
            ChangeBatch::encode_subjects(&[]),
        );
        let meta = database.cf(Table::Meta);
        batch.put_cf(meta, meta_key::SEQUENCE, encode_u64(sequence));
        batch.put_cf(meta, meta_key::LAST_COMMIT_MS, encode_u64(now_ms()));
        database.write(batch, &database.write_options())?;
        self.state.sequence = sequence;
        database.publish_sequence(sequence);
        Ok(sequence)
    }

    /// Writes the dictionary entries of the transaction's new terms, each table's in key
    /// order.
    fn write_new_terms(
        &self,
        terms: &mut [(TermId, &[u8])],
        batch: &mut WriteBatch,
    ) -> Result<(), StoreError> {
        let database = self.database;
        terms.sort_unstable_by_key(|(id, _)| *id);
        for (id, bytes) in terms.iter() {
            batch.put_cf(database.cf(Table::IdToTerm), id.to_be_bytes(), bytes);
        }
        let mut lookups: Vec<(Vec<u8>, TermId)> = terms
            .iter()
            .map(|(id, bytes)| (lookup_key(bytes), *id))
            .collect();
        lookups.sort_unstable();
        for (key, id) in &lookups {
            let mut ids = if is_hashed_key(key) {
                match database.db().get_cf(database.cf(Table::TermToId), key)? {
                    Some(v) => decode_ids(&v)?,
                    None => Vec::new(),
                }
            } else {
                Vec::new()
            };
            ids.push(*id);
            batch.put_cf(database.cf(Table::TermToId), key, encode_ids(&ids));
        }
        let mut hash_keys: Vec<_> = terms
            .iter()
            .filter_map(|(id, bytes)| hash_iris::key_of(bytes, *id))
            .collect();
        hash_keys.sort_unstable();
        for key in hash_keys {
            batch.put_cf(database.cf(Table::HashIris), key, []);
        }
        let mut iri_keys: Vec<Vec<u8>> = terms
            .iter()
            .flat_map(|(id, bytes)| iri_index::keys_of(bytes, *id))
            .collect();
        iri_keys.sort_unstable();
        for key in iri_keys {
            batch.put_cf(database.cf(Table::IriIndex), key, []);
        }
        Ok(())
    }

    /// Deletes a term's dictionary entries; returns its bytes.
    fn reclaim_term(&self, id: TermId, batch: &mut WriteBatch) -> Result<Vec<u8>, StoreError> {
        let database = self.database;
        let db = database.db();
        let Some(bytes) = db.get_cf(database.cf(Table::IdToTerm), id.to_be_bytes())? else {
            return Err(
                CorruptionError::msg(format!("no dictionary entry for used term {id:?}")).into(),
            );
        };
        batch.delete_cf(database.cf(Table::IdToTerm), id.to_be_bytes());
        if let Some(key) = hash_iris::key_of(&bytes, id) {
            batch.delete_cf(database.cf(Table::HashIris), key);
        }
        for key in iri_index::keys_of(&bytes, id) {
            batch.delete_cf(database.cf(Table::IriIndex), key);
        }
        let key = lookup_key(&bytes);
        if is_hashed_key(&key) {
            let mut ids = match db.get_cf(database.cf(Table::TermToId), &key)? {
                Some(v) => decode_ids(&v)?,
                None => Vec::new(),
            };
            ids.retain(|i| *i != id);
            if ids.is_empty() {
                batch.delete_cf(database.cf(Table::TermToId), key);
            } else {
                batch.put_cf(database.cf(Table::TermToId), key, encode_ids(&ids));
            }
        } else {
            batch.delete_cf(database.cf(Table::TermToId), key);
        }
        Ok(bytes)
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
