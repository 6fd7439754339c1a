//! Scratch PostgreSQL databases for tests and the bench: one fresh database per test, dropped
//! after. The URL of the server to make them on comes from `STAGEHAND_TEST_POSTGRES`.

use sqlx::{Connection, Executor, PgConnection};

/// The variable naming the PostgreSQL server tests may use.
pub const POSTGRES_VARIABLE: &str = "STAGEHAND_TEST_POSTGRES";

/// The notice printed when PostgreSQL tests are skipped.
pub const SKIPPED: &str = "postgres tests skipped: STAGEHAND_TEST_POSTGRES is unset";

/// The PostgreSQL URL tests should use, or `None` after printing [`SKIPPED`] when it is unset.
pub fn postgres_url() -> Option<String> {
    match std::env::var(POSTGRES_VARIABLE) {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            eprintln!("{SKIPPED}");
            println!("{SKIPPED}");
            None
        }
    }
}

/// A database made for one test on the PostgreSQL server at a base URL.
#[derive(Debug)]
pub struct ScratchDatabase {
    base: String,
    name: String,
    url: String,
}

impl ScratchDatabase {
    /// Makes a fresh, empty database on the server `base` (a `postgres://` URL).
    pub async fn create(base: &str) -> Result<ScratchDatabase, sqlx::Error> {
        let name = format!("stagehand_test_{}", crate::secret::random_hex(8));
        let mut admin = PgConnection::connect(base).await?;
        // A database's name cannot be a bound parameter; this one is made of hex digits only.
        admin.execute(format!("CREATE DATABASE {name}").as_str()).await?;
        admin.close().await?;
        let url = with_database(base, &name);
        Ok(ScratchDatabase { base: base.to_owned(), name, url })
    }

    /// The database's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Drops the database (closing whatever is still connected to it).
    pub async fn drop_database(self) -> Result<(), sqlx::Error> {
        let mut admin = PgConnection::connect(&self.base).await?;
        admin.execute(format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name).as_str()).await?;
        admin.close().await
    }
}

/// `base` with its database replaced by `name`.
fn with_database(base: &str, name: &str) -> String {
    let (head, query) = match base.split_once('?') {
        Some((head, query)) => (head, Some(query)),
        None => (base, None),
    };
    let authority_start = head.find("://").map_or(0, |i| i + 3);
    let path_start = head[authority_start..].find('/').map_or(head.len(), |i| authority_start + i);
    let mut url = format!("{}/{name}", &head[..path_start]);
    if let Some(query) = query {
        url.push('?');
        url.push_str(query);
    }
    url
}

#[cfg(test)]
mod tests {
    use super::with_database;

    #[test]
    fn the_database_is_replaced_and_the_rest_kept() {
        assert_eq!(
            with_database("postgres://postgres@127.0.0.1:5432/test", "x"),
            "postgres://postgres@127.0.0.1:5432/x"
        );
        assert_eq!(with_database("postgres://h", "x"), "postgres://h/x");
        assert_eq!(with_database("postgres://h/db?sslmode=disable", "x"), "postgres://h/x?sslmode=disable");
    }
}
