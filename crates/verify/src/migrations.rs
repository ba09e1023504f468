//! The PostgreSQL ledger's schema: embedded, versioned migrations, applied
//! at start.
//!
//! Each migration runs once, in order, inside one transaction that first
//! takes a transaction-scoped advisory lock: verifier nodes starting
//! together queue on the lock, and the second finds the work done. A
//! database whose schema is newer than this build knows is refused rather
//! than used (an older node beside upgraded ones).

use tokio_postgres::Client;

/// `(version, name, SQL)`, versions counting up from 1. Never edit a
/// released migration: add the next one.
const MIGRATIONS: &[(i32, &str, &str)] = &[
    (1, "ledger", include_str!("migrations/0001_ledger.sql")),
    (2, "history", include_str!("migrations/0002_history.sql")),
    (
        3,
        "uncharged",
        include_str!("migrations/0003_uncharged.sql"),
    ),
    (
        4,
        "templates",
        include_str!("migrations/0004_templates.sql"),
    ),
    (5, "leases", include_str!("migrations/0005_leases.sql")),
];

/// Key of the advisory lock migrations hold ("lpschema" in ASCII).
const LOCK: i64 = 0x6c70_7363_6865_6d61;

#[derive(Debug, thiserror::Error)]
pub enum MigrationError {
    #[error("the ledger schema is at version {found}, newer than this labelpress knows ({known}): upgrade labelpress")]
    Newer { found: i32, known: i32 },
    #[error("migration {version} ({name}): {source}")]
    Failed {
        version: i32,
        name: &'static str,
        source: tokio_postgres::Error,
    },
    #[error(transparent)]
    Database(#[from] tokio_postgres::Error),
}

/// The newest schema version this build knows.
pub fn latest() -> i32 {
    MIGRATIONS.last().map_or(0, |m| m.0)
}

/// Brings the schema to [`latest`]; returns the versions applied.
pub async fn run(client: &mut Client) -> Result<Vec<i32>, MigrationError> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&LOCK])
        .await?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS lp_schema (
             version    integer PRIMARY KEY,
             name       text NOT NULL,
             applied_at timestamptz NOT NULL DEFAULT now()
         )",
    )
    .await?;
    let found: i32 = tx
        .query_one("SELECT coalesce(max(version), 0) FROM lp_schema", &[])
        .await?
        .get(0);
    if found > latest() {
        return Err(MigrationError::Newer {
            found,
            known: latest(),
        });
    }
    let mut applied = Vec::new();
    for &(version, name, sql) in MIGRATIONS.iter().filter(|m| m.0 > found) {
        let failed = |source| MigrationError::Failed {
            version,
            name,
            source,
        };
        tx.batch_execute(sql).await.map_err(failed)?;
        tx.execute(
            "INSERT INTO lp_schema (version, name) VALUES ($1, $2)",
            &[&version, &name],
        )
        .await
        .map_err(failed)?;
        applied.push(version);
    }
    tx.commit().await?;
    Ok(applied)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_count_up_from_one_without_gaps() {
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(m.0, i as i32 + 1, "{}", m.1);
        }
    }
}
