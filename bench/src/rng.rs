//! A small seeded random number generator (xorshift64*), so that benchmark parameters are the
//! same on every run without pulling in a crate.

/// Deterministic pseudo-random numbers.
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator from a seed (0 is replaced by a constant).
    pub(crate) fn new(seed: u64) -> Self {
        Self(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n` > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        // The remainder is below `n`, a `usize`, so it fits.
        #[allow(clippy::cast_possible_truncation)]
        let below = (self.next_u64() % n.max(1) as u64) as usize;
        below
    }

    /// One element of a non-empty slice.
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}
