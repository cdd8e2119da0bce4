import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbSession } from '../../../src/duckdb/session.js';
import { queryBody } from '../../../src/pipeline/query-body.js';

describe('queryBody', () => {
  const cases: [string, string][] = [
    ['SELECT 1', 'SELECT 1'],
    ['SELECT 1;', 'SELECT 1'],
    ['  SELECT 1 ; ;\n ;  ', '  SELECT 1'],
    ['SELECT 1 -- the end', 'SELECT 1'],
    ['SELECT 1; -- done;\n;', 'SELECT 1'],
    ['SELECT 1 /* a /* nested */ comment; */ ;', 'SELECT 1'],
    ["SELECT ';--' AS x -- 'quote", "SELECT ';--' AS x"],
    ["SELECT 'it''s;' ;", "SELECT 'it''s;'"],
    ["SELECT E'a\\';' ;", "SELECT E'a\\';'"],
    ['SELECT 1 AS "x;--" ;', 'SELECT 1 AS "x;--"'],
    ['SELECT $tag$ ; -- $tag$ ;', 'SELECT $tag$ ; -- $tag$'],
    ['SELECT $$;$$;', 'SELECT $$;$$'],
    ['SELECT 1 -- inner\nFROM range(2) -- outer', 'SELECT 1 -- inner\nFROM range(2)'],
  ];
  for (const [sql, body] of cases) {
    it(`trims ${JSON.stringify(sql)}`, () => expect(queryBody(sql)).toBe(body));
  }

  describe('embedded by DuckDB', () => {
    let session: DuckDbSession;
    beforeAll(async () => {
      session = await DuckDbSession.open({ threads: 1 });
    });
    afterAll(() => session.close());

    it('runs each trimmed query as a subquery', async () => {
      for (const [sql] of cases) {
        const rows = await session.queryJson(`SELECT count(*) AS n FROM (${queryBody(sql)})`);
        expect(Number(rows[0]?.['n']), sql).toBeGreaterThan(0);
      }
    });
  });
});
