//! How much an entity is used: the popularity every ranking multiplies its text relevance by.
//!
//! The *weight of use* of an entity is
//!
//! `w = references + √(statements describing it) + entity rank`
//!
//! - references: quads that use it other than to describe it (as object, predicate or graph
//!   name): what DBpedia Lookup calls its refCount;
//! - the square root of the quads with it as subject: a well described entity counts, a long
//!   description does not outweigh references;
//! - its entity rank (`lodestone_store::rank`, mean 1 over linked entities): the link
//!   analysis, so that an entity linked from central entities counts more than one linked from
//!   leaves.
//!
//! Surfaces damp it logarithmically: `1 + k·ln(1 + w)` (DBpedia Lookup's
//! `0.1·ln(refCount + 1) + 1` has `k = 0.1`). The text index keeps `w` per entity in its
//! `rank` fast field, in tenths, written when the entity is indexed.

use lodestone_store::TermUsage;

/// Tenths of the weight of use per unit of the `rank` fast field.
const FIELD_UNITS: f64 = 10.0;

/// The weight of use of an entity from its usage counters and its entity rank.
pub fn weight_of_use(usage: &TermUsage, entity_rank: f64) -> f64 {
    #[allow(clippy::cast_precision_loss)] // a ranking weight: precision past 2^52 is moot
    let (references, described) = (
        (usage.as_object + usage.as_predicate + usage.as_graph) as f64,
        usage.as_subject as f64,
    );
    references + described.sqrt() + entity_rank.max(0.0)
}

/// The damped popularity `1 + k·ln(1 + w)`.
pub fn popularity(weight_of_use: f64, k: f64) -> f64 {
    1.0 + k * weight_of_use.max(0.0).ln_1p()
}

/// The weight of use as the text index's `rank` fast field stores it.
pub(crate) fn to_field(weight_of_use: f64) -> u64 {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // clamped first
    let units = (weight_of_use * FIELD_UNITS).round().clamp(0.0, 1e18) as u64;
    units
}

/// The weight of use read back from the `rank` fast field.
#[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
pub(crate) fn from_field(units: u64) -> f32 {
    (units as f64 / FIELD_UNITS) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_count_whole_descriptions_by_their_root_and_rank_adds() {
        let usage = TermUsage {
            as_subject: 100,
            as_object: 3,
            ..TermUsage::default()
        };
        assert!((weight_of_use(&usage, 0.0) - 13.0).abs() < 1e-9);
        assert!((weight_of_use(&usage, 2.5) - 15.5).abs() < 1e-9);
        assert!((popularity(0.0, 0.1) - 1.0).abs() < 1e-9);
        assert!((popularity(std::f64::consts::E - 1.0, 0.1) - 1.1).abs() < 1e-9);
        assert_eq!(to_field(15.54), 155);
        assert!((from_field(155) - 15.5).abs() < 1e-6);
        assert_eq!(to_field(-3.0), 0);
    }
}
