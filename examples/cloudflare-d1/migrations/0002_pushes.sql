-- The example's own table: one row per push recorded.
CREATE TABLE IF NOT EXISTS pushes (
  delivery TEXT PRIMARY KEY,
  repository TEXT NOT NULL,
  commit_sha TEXT NOT NULL,
  build TEXT NOT NULL
);
