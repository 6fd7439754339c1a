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
/// database race harmlessly: the loser's transaction fails on the version's primary key, rolls
/// back its DDL (PostgreSQL's DDL is transactional), and finds the migration applied.
pub(crate) async fn run(pool: &AnyPool, backend: Backend) -> Result<(), StoreError> {
    // Two servers creating this table at once on PostgreSQL may meet on its catalogue row: the
    // loser's error is a unique violation, and the table is there when it looks again.
    for attempt in 0..3 {
        let created = sqlx::query(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL)",
        )
        .execute(pool)
        .await;
        match created {
            Ok(_) => break,
            Err(error) if attempt < 2 && super::is_unique_violation(&error) => continue,
            Err(error) => return Err(error.into()),
        }
    }
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
            match apply(pool, migration).await {
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

async fn apply(pool: &AnyPool, migration: &Migration) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
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
