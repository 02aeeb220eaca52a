-- The example's back-end table: the same six documents, with a stored, indexed tsvector.
-- (The compose file's image has pgvector too: `CREATE EXTENSION vector;` and a vector column
-- for a kNN service, see docs/backends.md.)
CREATE TABLE IF NOT EXISTS docs (
  id text PRIMARY KEY,
  title text,
  text text,
  tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', coalesce(title, '') || ' ' || text)) STORED
);
CREATE INDEX IF NOT EXISTS docs_tsv ON docs USING gin (tsv);
INSERT INTO docs (id, title, text) VALUES
  ('d1', 'Jet engines', 'turbine compressor thrust of jet engines'),
  ('d2', 'Boundary layers', 'laminar boundary layer transition on a flat plate'),
  ('d3', 'Shock waves', 'supersonic shock wave reflection from a wedge'),
  ('d4', 'Wing flutter', 'flutter of swept wings at transonic speed'),
  ('d5', 'Heat transfer', 'heat transfer in hypersonic boundary layer flow'),
  ('d6', 'Propellers', 'propeller noise and thrust at low speed')
ON CONFLICT (id) DO NOTHING;
