-- Stagehand server, schema 1 (PostgreSQL). Applied once, in one transaction, recorded in
-- schema_migrations. Correctness rests on these keys alone (docs/design/server.md, S2).
CREATE TABLE documents (
    fingerprint TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    body BYTEA NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL,
    fingerprint TEXT NOT NULL REFERENCES documents (fingerprint),
    version BIGINT NOT NULL,
    snapshot TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE TABLE receipts (
    session_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status BIGINT NOT NULL,
    body TEXT NOT NULL,
    version BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (session_id, idempotency_key)
);
CREATE TABLE trace (
    session_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE TABLE transcript (
    session_id TEXT NOT NULL,
    n BIGINT NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (session_id, n)
);
