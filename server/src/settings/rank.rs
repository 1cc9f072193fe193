//! When the server recomputes the entity rank (see [`crate::rank_keeper`]).

use lodestone_store::RankState;
use std::time::Duration;

/// When the server recomputes the entity rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RankUpkeep {
    /// How often the store is compared with the rank's state.
    pub check_interval: Duration,
    /// The fewest changes that make the rank stale (or 1% of the quads ranked, if more): the
    /// change in the number of quads plus the number of commits since the rank was computed.
    /// 0 turns the upkeep off.
    pub min_changes: u64,
}

impl Default for RankUpkeep {
    fn default() -> Self {
        Self {
            check_interval: Duration::from_secs(10),
            min_changes: 1_000,
        }
    }
}

impl RankUpkeep {
    /// Whether the store has drifted far enough from the state the rank describes to
    /// recompute it.
    pub fn is_stale(&self, rank: &RankState) -> bool {
        let (sequence, quads) = (rank.store_sequence, rank.store_quads);
        if self.min_changes == 0 {
            return false;
        }
        let Some(ranked) = rank.sequence else {
            return quads > 0;
        };
        let changes = quads.abs_diff(rank.quads) + sequence.saturating_sub(ranked);
        changes >= self.min_changes.max(rank.quads / 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(rank: RankState, store_sequence: u64, store_quads: u64) -> RankState {
        RankState {
            store_sequence,
            store_quads,
            ..rank
        }
    }

    #[test]
    fn staleness_counts_quads_and_commits_against_the_threshold() {
        let upkeep = RankUpkeep {
            min_changes: 10,
            ..RankUpkeep::default()
        };
        let never = RankState::default();
        assert!(!upkeep.is_stale(&at(never, 0, 0)));
        assert!(upkeep.is_stale(&at(never, 1, 5)));
        let rank = RankState {
            sequence: Some(4),
            quads: 100,
            ..RankState::default()
        };
        assert!(!upkeep.is_stale(&at(rank, 4, 100)));
        assert!(!upkeep.is_stale(&at(rank, 6, 107)));
        assert!(upkeep.is_stale(&at(rank, 6, 108)));
        assert!(upkeep.is_stale(&at(rank, 14, 100)));
        // 1% of a large store.
        let large = RankState {
            sequence: Some(4),
            quads: 100_000,
            ..RankState::default()
        };
        assert!(!upkeep.is_stale(&at(large, 5, 100_500)));
        assert!(upkeep.is_stale(&at(large, 5, 101_000)));
        let off = RankUpkeep {
            min_changes: 0,
            ..RankUpkeep::default()
        };
        assert!(!off.is_stale(&at(never, 1, 5)));
    }
}
