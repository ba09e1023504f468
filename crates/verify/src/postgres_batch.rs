//! Group commit for plain deductions on the PostgreSQL ledger.
//!
//! A deduction's row lock is held until its transaction commits, and with
//! `synchronous_commit = on` the commit waits for the WAL to reach the disk.
//! So deductions on one token, each in its own transaction, are serialised
//! on that disk flush: PostgreSQL's own grouping of commits cannot help
//! them, since the second cannot even start before the first commits. On
//! this machine that held one hot token to about 2,400 verifies/s whatever
//! the concurrency.
//!
//! So one task per node applies the deductions waiting at that moment in
//! one transaction: each is its own conditional decrement (pipelined on one
//! connection, in arrival order per token, so each sees the balance the one
//! before left), and one commit makes the whole batch durable. Calls that
//! arrive while a batch commits form the next batch, so a lone call is
//! never held back. Within a batch, tokens are taken in the order of their
//! hash, so two nodes' batches lock rows in the same order and cannot
//! deadlock. A failed batch fails each of its calls (nothing of it was
//! committed), as 503.

use std::time::Duration;

use deadpool_postgres::Pool;
use futures_util::future::{join_all, Either};
use tokio::sync::{mpsc, oneshot};
use tokio_postgres::error::SqlState;

use super::ledger::StoreError;
use super::postgres_rows::{db, granted, pool_error, select_token, DEDUCT};
use super::protocol::{Granted, Rejection};
use super::rules;
use crate::credential::TokenHash;

/// Most deductions in one transaction.
const MAX_BATCH: usize = 256;

/// What a batched deduction came to: granted with the new balance, refused,
/// or `Retry` when its refusal was judged on a row another node changed
/// meanwhile (the caller applies it alone).
#[derive(Debug)]
pub enum Applied {
    Granted(Granted),
    Rejected(Rejection),
    Retry,
    /// The batch waited on a row lock past [`LOCK_WAIT`] and was rolled
    /// back: nothing of it applied. The caller applies it alone (and keeps
    /// its token out of batches a while: it may be the held row).
    HeldUp,
}

/// How long a batch waits for any row lock before it rolls back and hands
/// its calls back to be applied one by one. Another node's batch holds a
/// row for about one commit (milliseconds); a row held longer would hold
/// every token of the batch with it.
const LOCK_WAIT: &str = "250ms";

struct Call {
    hash: TokenHash,
    count: i64,
    now: i64,
    reply: oneshot::Sender<Result<Applied, StoreError>>,
}

/// The handle callers use; dropping it ends the batching task.
pub struct Batcher {
    calls: mpsc::Sender<Call>,
}

impl Batcher {
    /// Starts the batching task on the current runtime; a batch gets
    /// `timeout` to commit.
    pub fn start(pool: Pool, timeout: Duration) -> Batcher {
        let (calls, queue) = mpsc::channel(4 * MAX_BATCH);
        tokio::spawn(run(pool, queue, timeout));
        Batcher { calls }
    }

    /// Deducts `count` (at least 1) from the token `hash` in the next batch.
    pub async fn deduct(
        &self,
        hash: &TokenHash,
        count: i64,
        now: i64,
    ) -> Result<Applied, StoreError> {
        let (reply, answer) = oneshot::channel();
        let call = Call {
            hash: TokenHash(hash.0),
            count,
            now,
            reply,
        };
        if self.calls.send(call).await.is_err() {
            return Err(StoreError::Unavailable(
                "the ledger is shutting down".into(),
            ));
        }
        answer
            .await
            .unwrap_or_else(|_| Err(StoreError::Unavailable("the batch was dropped".into())))
    }
}

async fn run(pool: Pool, mut queue: mpsc::Receiver<Call>, timeout: Duration) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while queue.recv_many(&mut batch, MAX_BATCH).await > 0 {
        // Lock order: by token, then arrival (a stable sort keeps it).
        batch.sort_by(|a: &Call, b: &Call| a.hash.0.cmp(&b.hash.0));
        let outcome = tokio::time::timeout(timeout, apply(&pool, &batch))
            .await
            .unwrap_or_else(|_| {
                Err(StoreError::Unavailable(format!(
                    "a batch took over {} ms",
                    timeout.as_millis()
                )))
            });
        match outcome {
            Ok(Batched::HeldUp) => {
                for call in batch.drain(..) {
                    let _ = call.reply.send(Ok(Applied::HeldUp));
                }
            }
            Ok(Batched::Applied(results)) => {
                for (call, result) in batch.drain(..).zip(results) {
                    let _ = call.reply.send(Ok(result));
                }
            }
            Err(e) => {
                for call in batch.drain(..) {
                    let _ = call.reply.send(Err(share(&e)));
                }
            }
        }
    }
}

/// Every call of `batch` in one transaction; results in the batch's order.
///
/// `BEGIN`, the decrements (a prepared statement) and `COMMIT` go out
/// together and are answered in order (the connection pipelines futures
/// polled together, each sent on its first poll, and `join_all` polls them
/// first in the order given): one round trip and one WAL flush per batch. If any statement fails, PostgreSQL answers the
/// `COMMIT` by rolling the whole transaction back, and the batch fails;
/// when it failed on a row lock held past [`LOCK_WAIT`], it is
/// [`Batched::HeldUp`], for its calls to be applied one by one.
async fn apply(pool: &Pool, batch: &[Call]) -> Result<Batched, StoreError> {
    let client = pool.get().await.map_err(pool_error)?;
    let deduct = client.prepare_cached(DEDUCT).await.map_err(db)?;
    let decrements = batch.iter().map(|c| async {
        let hash: &[u8] = &c.hash.0;
        client.query_opt(&deduct, &[&hash, &c.count, &c.now]).await
    });
    let begin = format!("BEGIN; SET LOCAL lock_timeout = '{LOCK_WAIT}'");
    let mut answers = join_all(
        std::iter::once(Either::Left(control(&client, &begin)))
            .chain(decrements.map(Either::Right))
            .chain(std::iter::once(Either::Left(control(&client, "COMMIT")))),
    )
    .await;
    let held_up = answers.iter().any(|answer| {
        answer
            .as_ref()
            .is_err_and(|e| e.code() == Some(&SqlState::LOCK_NOT_AVAILABLE))
    });
    if held_up {
        return Ok(Batched::HeldUp);
    }
    let committed = answers.pop();
    let rows = answers.split_off(1);
    answers.pop().transpose().map_err(db)?;
    let rows = rows
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(db)?;
    committed.transpose().map_err(db)?;
    let mut results = Vec::with_capacity(batch.len());
    for (call, row) in batch.iter().zip(rows) {
        results.push(match row {
            Some(row) => Applied::Granted(granted(&row, call.now)?),
            // Judged on the row as it is now: a refusal stays one (the
            // batch only lowered balances), unless something changed it
            // meanwhile (a top-up, an unban).
            None => {
                let record = select_token(&client, &call.hash).await?;
                match rules::check(record.as_ref(), call.count as u64, call.now) {
                    Err(rejection) => Applied::Rejected(rejection),
                    Ok(_) => Applied::Retry,
                }
            }
        });
    }
    Ok(Batched::Applied(results))
}

/// What became of a batch that reached the database.
enum Batched {
    /// Committed: each call's result, in the batch's order.
    Applied(Vec<Applied>),
    /// Rolled back after waiting on a row lock past [`LOCK_WAIT`].
    HeldUp,
}

/// `BEGIN` or `COMMIT`, sent on the first poll (the simple query protocol
/// needs no round trip to prepare, so it keeps its place in the pipeline).
async fn control(
    client: &tokio_postgres::Client,
    sql: &str,
) -> Result<Option<tokio_postgres::Row>, tokio_postgres::Error> {
    client.batch_execute(sql).await.map(|()| None)
}

/// One batch's failure, for each of its calls.
fn share(e: &StoreError) -> StoreError {
    if e.is_unavailable() {
        StoreError::Unavailable(e.to_string())
    } else {
        StoreError::Database(e.to_string())
    }
}
