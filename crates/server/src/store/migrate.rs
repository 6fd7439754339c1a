//! Versioned schema migrations: one set of files per database, applied in order at start, each
//! in its own transaction together with its row in `schema_migrations` (decision S3).

use sqlx::{AnyPool, Row};

use super::{Backend, StoreError};

/// One migration: its version, its name and its SQL (statements separated by `;`).
struct Migration {
    version: i64,
    name: &'static str,
    sql: &'static str,
}

const SQLITE: &[Migration] = &[
    Migration { version: 1, name: "init", sql: include_str!("../../migrations/sqlite/0001_init.sql") },
    Migration {
        version: 2,
        name: "session_world",
        sql: include_str!("../../migrations/sqlite/0002_session_world.sql"),
    },
];

const POSTGRES: &[Migration] = &[
    Migration { version: 1, name: "init", sql: include_str!("../../migrations/postgres/0001_init.sql") },
    Migration {
        version: 2,
        name: "session_world",
        sql: include_str!("../../migrations/postgres/0002_session_world.sql"),
    },
];

/// The newest schema version this build knows.
pub const SCHEMA_VERSION: i64 = 2;

fn migrations(backend: Backend) -> &'static [Migration] {
    match backend {
        Backend::Sqlite => SQLITE,
        Backend::Postgres => POSTGRES,
    }
}

/// Brings the schema up to [`SCHEMA_VERSION`]. Two servers starting at once on one PostgreSQL
/// database take turns: each migration's transaction holds an advisory lock and looks again
/// under it, so the later one finds the migration applied and changes nothing (S3).
pub(crate) async fn run(pool: &AnyPool, backend: Backend) -> Result<(), StoreError> {
    // Two servers creating this table at once on PostgreSQL would meet on its catalogue rows;
    // under the advisory lock they take turns, and the later one finds it there.
    let mut tx = pool.begin().await?;
    take_turn(&mut tx, backend).await?;
    sqlx::query("CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL)")
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    for migration in migrations(backend) {
        for _attempt in 0..3 {
            let applied: i64 = sqlx::query("SELECT COUNT(*) FROM schema_migrations WHERE version = $1")
                .bind(migration.version)
                .fetch_one(pool)
                .await?
                .try_get(0)?;
            if applied > 0 {
                break;
            }
            match apply(pool, backend, migration).await {
                Ok(()) => break,
                Err(error) if super::is_retryable(&error) || super::is_unique_violation(&error) => continue,
                Err(error) => return Err(error.into()),
            }
        }
    }
    let newest: Option<i64> =
        sqlx::query("SELECT MAX(version) FROM schema_migrations").fetch_one(pool).await?.try_get(0)?;
    match newest {
        Some(version) if version > SCHEMA_VERSION => Err(StoreError::Schema(format!(
            "the database's schema is version {version}; this build knows up to {SCHEMA_VERSION}"
        ))),
        Some(_) => Ok(()),
        None => Err(StoreError::Schema("no migration was applied".to_owned())),
    }
}

/// The key of the PostgreSQL advisory lock that lets one server at a time migrate a database.
const MIGRATING: i64 = 0x5354_4147_4548_4e44; // "STAGEHND"

/// On PostgreSQL, waits for any other server's migrating transaction and holds the lock until
/// `tx` ends: servers migrating one database take turns.
async fn take_turn(tx: &mut sqlx::Transaction<'_, sqlx::Any>, backend: Backend) -> Result<(), sqlx::Error> {
    if backend == Backend::Postgres {
        sqlx::query("SELECT pg_advisory_xact_lock($1)").bind(MIGRATING).execute(&mut **tx).await?;
    }
    Ok(())
}

async fn apply(pool: &AnyPool, backend: Backend, migration: &Migration) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
    if backend == Backend::Postgres {
        // Each looks again under the lock: an `ALTER TABLE` that another server's committed
        // migration already made would fail on its column, not on the version's key.
        take_turn(&mut tx, backend).await?;
        let applied: i64 = sqlx::query("SELECT COUNT(*) FROM schema_migrations WHERE version = $1")
            .bind(migration.version)
            .fetch_one(&mut *tx)
            .await?
            .try_get(0)?;
        if applied > 0 {
            return tx.rollback().await;
        }
    }
    for statement in migration.sql.split(';').map(str::trim).filter(|s| !only_comments(s)) {
        sqlx::query(statement).execute(&mut *tx).await?;
    }
    sqlx::query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)")
        .bind(migration.version)
        .bind(migration.name)
        .execute(&mut *tx)
        .await?;
    tx.commit().await
}

fn only_comments(statement: &str) -> bool {
    statement.lines().all(|line| line.trim().is_empty() || line.trim_start().starts_with("--"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_databases_have_every_version_in_order() {
        for backend in [Backend::Sqlite, Backend::Postgres] {
            let versions: Vec<i64> = migrations(backend).iter().map(|m| m.version).collect();
            let expected: Vec<i64> = (1..=SCHEMA_VERSION).collect();
            assert_eq!(versions, expected, "{backend:?}");
        }
    }

    #[test]
    fn a_comment_only_piece_is_skipped() {
        assert!(only_comments("-- a note\n  \n-- another"));
        assert!(!only_comments("-- a note\nCREATE TABLE t (x BIGINT)"));
    }
}
