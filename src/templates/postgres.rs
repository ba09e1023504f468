//! Stored templates in PostgreSQL (`--database-url`): every render node
//! given the same database sees the same templates. The table is
//! `lp_templates` (schema version 4, brought up to date at start by the
//! same migrations as the ledger's).
//!
//! A put is one statement: the insert happens only while the owner holds
//! fewer than the most templates (not counting the name itself, which a
//! replacement keeps), and `xmax = 0` tells a new row from a replaced
//! one. Two puts of new names racing on two nodes may both see room for
//! one: an owner may overrun the bound by what is stored at one moment.

use std::time::Duration;

use deadpool_postgres::Pool;

use super::{Listed, Owner, Stored, TemplateError, TemplateName};

/// Connections per node: template requests are few and short.
const CONNECTIONS: usize = 4;

pub struct PgTemplates {
    pool: Pool,
    timeout: Duration,
}

fn unavailable(e: impl std::fmt::Display) -> TemplateError {
    TemplateError::Unavailable(e.to_string())
}

impl PgTemplates {
    /// Connects to `url` and brings the schema up to date.
    pub async fn connect(url: &str, timeout: Duration) -> Result<PgTemplates, String> {
        let pool = crate::postgres_pool::pool(url, CONNECTIONS, timeout)?;
        let failed = |e: &(dyn std::error::Error + 'static)| {
            format!("--database-url: {}", crate::postgres_pool::describe(e))
        };
        let mut client = pool.get().await.map_err(|e| failed(&e))?;
        crate::verify::migrations::run(&mut client)
            .await
            .map_err(|e| failed(&e))?;
        drop(client);
        Ok(PgTemplates { pool, timeout })
    }

    /// Runs `op` within the timeout.
    async fn bounded<T>(
        &self,
        op: impl std::future::Future<Output = Result<T, TemplateError>>,
    ) -> Result<T, TemplateError> {
        crate::postgres_pool::bounded(self.timeout, op, TemplateError::Unavailable).await
    }

    pub async fn put(
        &self,
        owner: &Owner,
        name: &TemplateName,
        template: &str,
        max: usize,
        now: i64,
    ) -> Result<Stored, TemplateError> {
        let max = i64::try_from(max).unwrap_or(i64::MAX);
        self.bounded(async {
            let client = self.pool.get().await.map_err(unavailable)?;
            let row = client
                .query_opt(
                    "INSERT INTO lp_templates (owner, name, template, updated_at)
                     SELECT $1, $2, $3, $4
                     WHERE EXISTS (SELECT 1 FROM lp_templates WHERE owner = $1 AND name = $2)
                        OR (SELECT count(*) FROM lp_templates WHERE owner = $1) < $5
                     ON CONFLICT (owner, name) DO UPDATE
                        SET template = EXCLUDED.template, updated_at = EXCLUDED.updated_at
                     RETURNING (xmax = 0) AS created",
                    &[&owner.as_str(), &name.as_str(), &template, &now, &max],
                )
                .await
                .map_err(unavailable)?;
            match row {
                None => Err(TemplateError::Full { max: max as usize }),
                Some(row) if row.get::<_, bool>(0) => Ok(Stored::Created),
                Some(_) => Ok(Stored::Replaced),
            }
        })
        .await
    }

    pub async fn get(
        &self,
        owner: &Owner,
        name: &TemplateName,
    ) -> Result<Option<String>, TemplateError> {
        self.bounded(async {
            let client = self.pool.get().await.map_err(unavailable)?;
            let row = client
                .query_opt(
                    "SELECT template FROM lp_templates WHERE owner = $1 AND name = $2",
                    &[&owner.as_str(), &name.as_str()],
                )
                .await
                .map_err(unavailable)?;
            Ok(row.map(|row| row.get(0)))
        })
        .await
    }

    pub async fn delete(&self, owner: &Owner, name: &TemplateName) -> Result<bool, TemplateError> {
        self.bounded(async {
            let client = self.pool.get().await.map_err(unavailable)?;
            let deleted = client
                .execute(
                    "DELETE FROM lp_templates WHERE owner = $1 AND name = $2",
                    &[&owner.as_str(), &name.as_str()],
                )
                .await
                .map_err(unavailable)?;
            Ok(deleted > 0)
        })
        .await
    }

    pub async fn list(&self, owner: &Owner) -> Result<Vec<Listed>, TemplateError> {
        self.bounded(async {
            let client = self.pool.get().await.map_err(unavailable)?;
            let rows = client
                .query(
                    "SELECT name, updated_at, octet_length(template)::bigint FROM lp_templates
                     WHERE owner = $1 ORDER BY name COLLATE \"C\"",
                    &[&owner.as_str()],
                )
                .await
                .map_err(unavailable)?;
            Ok(rows
                .iter()
                .map(|row| Listed {
                    name: row.get(0),
                    updated_at: row.get(1),
                    bytes: row.get::<_, i64>(2).max(0) as u64,
                })
                .collect())
        })
        .await
    }
}
