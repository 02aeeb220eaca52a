import { describe, expect, it } from 'vitest';
import { parsePostgresConfig } from '../../src/postgres/config.js';

describe('Postgres engine config', () => {
  it('suggests connection_string for a url, a uri or a dsn', () => {
    for (const key of ['url', 'uri', 'dsn']) {
      expect(() =>
        parsePostgresConfig({ [key]: 'postgres://u@localhost:5432/db', table: 'docs' }),
      ).toThrow(`config.${key}: unknown key (did you mean "connection_string"?)`);
    }
  });
});
