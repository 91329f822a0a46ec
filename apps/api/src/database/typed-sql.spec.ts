import { sql, unmarked, valuesOf } from './typed-sql';

interface Probe {
  params: { organizationId: string; name?: string | null };
  result: { id: string; active: number };
}

describe('the sql tag', () => {
  it('numbers named parameters in order of first use, the same name sharing its number', () => {
    const statement = sql<Probe>`SELECT id FROM t WHERE organization_id = $organizationId! AND (name = $name OR $name IS NULL) AND owner = $organizationId`;
    expect(statement.text).toBe('SELECT id FROM t WHERE organization_id = $1 AND (name = $2 OR $2 IS NULL) AND owner = $1');
    expect(valuesOf(statement, { organizationId: 'o', name: 'n' })).toEqual(['o', 'n']);
  });

  it('leaves dollars inside quotes, comments, casts and positional parameters alone', () => {
    const statement = sql<Probe>`SELECT '$notParam' AS "x", $1::text -- $comment
      /* $block */ FROM t WHERE a = $organizationId::uuid`;
    expect(statement.text).toBe(`SELECT '$notParam' AS "x", $1::text -- $comment
      /* $block */ FROM t WHERE a = $1::uuid`);
    expect(statement.parameters).toEqual(['organizationId']);
  });

  it('passes a parameter left out as null', () => {
    const statement = sql<Probe>`SELECT id FROM t WHERE a = $organizationId! AND b = $name`;
    expect(valuesOf(statement, { organizationId: 'o' })).toEqual(['o', null]);
  });

  it('takes the nullability marks of pgtyped off the row keys', () => {
    const statement = sql<Probe>`SELECT id AS "id?", count(*)::int AS "active!" FROM t WHERE a = $organizationId!`;
    expect(unmarked(statement, [{ 'id?': 'r', 'active!': 3 }])).toEqual([{ id: 'r', active: 3 }]);
  });

  it('refuses an interpolated statement, which could not be described', () => {
    const column = 'id';
    expect(() => (sql as (s: TemplateStringsArray, ...v: unknown[]) => unknown)`SELECT ${column} FROM t`).toThrow(/no interpolation/);
  });
});
