//! The time budget of one facet request.
//!
//! The engine checks its [`Deadline`] in every loop; running out is not an error the client
//! sees but a cut: whatever was counted so far is returned with `complete: false`.

use crate::error::EngineError;
use std::time::{Duration, Instant};

/// When the work of one request must stop.
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    at: Instant,
}

impl Deadline {
    /// A deadline `budget` from now.
    pub fn after(budget: Duration) -> Self {
        Self {
            at: Instant::now() + budget,
        }
    }

    /// A deadline at a given instant.
    pub fn at(at: Instant) -> Self {
        Self { at }
    }

    /// Whether the time is up.
    pub fn passed(&self) -> bool {
        Instant::now() >= self.at
    }

    /// `Err(OutOfTime)` once the time is up.
    pub fn check(&self) -> Result<(), EngineError> {
        if self.passed() {
            Err(EngineError::OutOfTime)
        } else {
            Ok(())
        }
    }

    /// The instant itself.
    pub fn instant(&self) -> Instant {
        self.at
    }
}

/// Checks a deadline once every `N` steps of a loop (reading the clock costs a little).
#[derive(Debug)]
pub struct Ticker {
    deadline: Deadline,
    steps: u32,
}

/// Steps between two clock readings.
const STEPS_PER_CHECK: u32 = 1024;

impl Ticker {
    /// A ticker for a deadline.
    pub fn new(deadline: Deadline) -> Self {
        Self { deadline, steps: 0 }
    }

    /// The deadline it checks.
    pub fn deadline(&self) -> Deadline {
        self.deadline
    }

    /// A new ticker for the same deadline, for work done on another thread.
    pub fn fork(&self) -> Self {
        Self::new(self.deadline)
    }

    /// Counts one step; `Err(OutOfTime)` when the deadline has passed.
    pub fn tick(&mut self) -> Result<(), EngineError> {
        self.steps += 1;
        if self.steps >= STEPS_PER_CHECK {
            self.steps = 0;
            self.deadline.check()?;
        }
        Ok(())
    }
}
