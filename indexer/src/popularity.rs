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
//!
//! An exact name (a label or local name equal to what was typed) is boosted only as far as
//! the entity is used: by the share [`exact_share`] `= min(1, ln(1 + w) / ln(101))²` of the
//! boost. Squared, because damped popularity is flat and a linear share of it let a small
//! weight buy much of the boost: Nomisma's one-use fragment `Athe(…)` (one reference, ten
//! statements, entity rank 0.8: `w` ≈ 5) got 39 % of a doubling, tied Athens (`w` ≈ 544,
//! starting with `athe` only) within 1 %, and an entity rank a little higher put it first.
//! Squared it gets 15 %, 17 % below Athens; Rome (`w` ≈ 15, its own long description) gets
//! 36 % and stays above the Roman Republic (`w` ≈ 592) for `Rome`.

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

/// The weight of use from which an exact name earns its whole boost.
pub const FULLY_USED: f64 = 100.0;

/// The share (0 to 1) of an exact-name boost an entity of this weight of use earns:
/// `min(1, ln(1 + w) / ln(1 + FULLY_USED))²`, so that rarely used entities named like the
/// text (one-use fragments `Athe…`) do not outrank the thing everybody uses.
pub fn exact_share(weight_of_use: f64) -> f64 {
    let damped = weight_of_use.max(0.0).ln_1p() / FULLY_USED.ln_1p();
    damped.min(1.0).powi(2)
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

    #[test]
    fn an_exact_name_is_boosted_only_as_far_as_the_entity_is_used() {
        assert!((exact_share(0.0) - 0.0).abs() < 1e-12);
        assert!((exact_share(5.0) - 0.151).abs() < 1e-3);
        assert!((exact_share(10.0) - 0.270).abs() < 1e-3);
        assert!((exact_share(100.0) - 1.0).abs() < 1e-12);
        assert!((exact_share(1e9) - 1.0).abs() < 1e-12);
        assert!((exact_share(-1.0) - 0.0).abs() < 1e-12);
        // Type-ahead (Nomisma): a one-use fragment named like the text (w = 1 + √10 + an
        // entity rank of 1) stays below a thing with 448 references that only starts with
        // it; an exact name with a long description (Rome: 1 + √173 + 0.8) above a thing
        // used 488 times that only matches a word (the Roman Republic).
        let typed = |w: f64, exact: f64| (1.0 + exact * exact_share(w)) * popularity(w, 0.1);
        let (fragment, athens) = (1.0 + 10f64.sqrt() + 1.0, 448.0 + 141f64.sqrt() + 84.0);
        assert!(typed(fragment, 1.0) < 0.9 * typed(athens, 0.0));
        let (rome, republic) = (1.0 + 173f64.sqrt() + 0.8, 488.0 + 93f64.sqrt() + 93.9);
        assert!(typed(rome, 1.0) > typed(republic, 0.0));
    }
}
