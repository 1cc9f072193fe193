//! Work spread over threads of one scope: the calling thread works too, and a helper's panic
//! goes on in the caller.

use crate::error::StoreError;

/// Runs `left` on this thread and `right` on another, named `name`, at the same time.
pub(crate) fn at_once<L, R: Send>(
    name: &str,
    left: impl FnOnce() -> L,
    right: impl FnOnce() -> R + Send,
) -> Result<(L, R), StoreError> {
    std::thread::scope(|scope| {
        let right = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn_scoped(scope, right)?;
        let left = left();
        let right = right
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Ok((left, right))
    })
}

/// Runs each of `helpers` on a thread of its own, named `name`, and `mine` on this thread, at
/// the same time; gives `mine`'s result and the helpers' in order, or the first helper's
/// error, else `mine`'s.
pub(crate) fn with_helpers<M, H: Send, F>(
    name: &str,
    helpers: impl IntoIterator<Item = F>,
    mine: impl FnOnce() -> Result<M, StoreError>,
) -> Result<(M, Vec<H>), StoreError>
where
    F: FnOnce() -> Result<H, StoreError> + Send,
{
    std::thread::scope(|scope| {
        let handles = helpers
            .into_iter()
            .map(|helper| {
                std::thread::Builder::new()
                    .name(name.to_owned())
                    .spawn_scoped(scope, helper)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mine = mine();
        let helped = handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect::<Result<Vec<H>, StoreError>>()?;
        Ok((mine?, helped))
    })
}
