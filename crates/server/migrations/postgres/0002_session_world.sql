-- Stagehand server, schema 2: the world a session was created with (POST /v1/sessions
-- {world}), as the JSON the server reads it from, or NULL for a session without one. Written once
-- when the session is made, never changed (docs/design/server.md, S18).
ALTER TABLE sessions ADD COLUMN world TEXT
