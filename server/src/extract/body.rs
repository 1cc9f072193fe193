//! Reading request bodies within two limits: each body's own, and all bodies' together.
//!
//! A body is held in memory from its first byte until its request is answered, so a few hundred
//! clients sending large bodies slowly could hold gigabytes without any of them being over its
//! own limit. [`BodyBudget`] caps the bytes of every body being read or handled at once: each
//! chunk takes its share as it arrives, the request keeps the share until it is answered, and a
//! body that would pass the cap is refused with `503` at once rather than waited for. A SPARQL
//! request's parsed tree takes a share of the same budget while it is parsed and run.

use super::deadline::ReadDeadline;
use crate::error::ApiError;
use axum::extract::Request;
use axum::http::header;
use bytes::{Bytes, BytesMut};
use http_body::Body as _;
use std::pin::Pin;
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The bytes of request bodies that may be in memory at once, shared by every request.
#[derive(Debug, Clone)]
pub struct BodyBudget {
    kib: Arc<Semaphore>,
    bytes: usize,
}

/// A body's share of the [`BodyBudget`], given back when dropped.
#[derive(Debug, Default)]
pub struct BodyShare(Option<OwnedSemaphorePermit>);

impl BodyBudget {
    /// A budget of `bytes` (counted in KiB, each body rounded up to the next one).
    pub fn new(bytes: usize) -> Self {
        Self {
            kib: Arc::new(Semaphore::new(bytes.div_ceil(1024).max(1))),
            bytes,
        }
    }

    /// The budget in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Bytes of the budget free now.
    pub fn available_bytes(&self) -> usize {
        self.kib.available_permits().saturating_mul(1024)
    }

    /// A share of `bytes` for a request's parsed form (see [`super::parse`]): refused with
    /// `413` if the whole budget is smaller, with `503` if it has no room now.
    pub fn take(&self, bytes: usize) -> Result<BodyShare, ApiError> {
        if bytes > self.bytes {
            return Err(ApiError::ParsedTooLarge {
                estimate: bytes,
                limit: self.bytes,
            });
        }
        let mut share = BodyShare::default();
        self.grow(&mut share, bytes)?;
        Ok(share)
    }

    /// Takes `bytes` more for `share`, or fails at once if the budget has no room.
    fn grow(&self, share: &mut BodyShare, bytes: usize) -> Result<(), ApiError> {
        let kib = u32::try_from(bytes.div_ceil(1024)).map_err(|_| self.full())?;
        if kib == 0 {
            return Ok(());
        }
        let more = Arc::clone(&self.kib)
            .try_acquire_many_owned(kib)
            .map_err(|_| self.full())?;
        match &mut share.0 {
            Some(permit) => permit.merge(more),
            None => share.0 = Some(more),
        }
        Ok(())
    }

    fn full(&self) -> ApiError {
        ApiError::BodiesInFlight { limit: self.bytes }
    }
}

/// Reads a whole request body of at most `limit` bytes, taking its share of `budget`.
///
/// A declared length over the limit is refused before a byte is read, as is a declared
/// length the budget has no room for; the read is bounded by the read timeout.
pub async fn read_body(
    request: Request,
    limit: usize,
    budget: &BodyBudget,
) -> Result<(Bytes, BodyShare), ApiError> {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        return Err(ApiError::PayloadTooLarge { limit });
    }
    let mut share = BodyShare::default();
    // Claimed up front when known, so that a refused body is refused before it is read.
    let claimed = declared.map_or(0, |length| usize::try_from(length).unwrap_or(limit));
    budget.grow(&mut share, claimed)?;
    let deadline = request.extensions().get::<ReadDeadline>().copied();
    let mut body = request.into_body();
    let bytes = ReadDeadline::bound(deadline, async move {
        let mut buffer = BytesMut::with_capacity(claimed.min(limit));
        let mut held = claimed;
        while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await
        {
            let frame =
                frame.map_err(|e| ApiError::BadRequest(format!("reading the body: {e}")))?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            if buffer.len() + data.len() > limit {
                return Err(ApiError::PayloadTooLarge { limit });
            }
            let total = buffer.len() + data.len();
            if total > held {
                budget.grow(&mut share, total - held)?;
                held = total;
            }
            buffer.extend_from_slice(&data);
        }
        Ok((buffer.freeze(), share))
    })
    .await?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_come_back_when_dropped() {
        let budget = BodyBudget::new(10 << 10);
        let mut first = BodyShare::default();
        assert!(budget.grow(&mut first, 6 << 10).is_ok());
        let mut second = BodyShare::default();
        assert!(matches!(
            budget.grow(&mut second, 6 << 10),
            Err(ApiError::BodiesInFlight { .. })
        ));
        assert!(budget.grow(&mut second, 4 << 10).is_ok());
        drop(first);
        assert_eq!(budget.available_bytes(), 6 << 10);
        drop(second);
        assert_eq!(budget.available_bytes(), 10 << 10);
    }
}
