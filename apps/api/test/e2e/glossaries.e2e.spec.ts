import { randomUUID } from 'node:crypto';
import { GlossariesRepository } from '../../src/modules/glossaries/glossaries.repository';
import { createOrganization, type TestOrganization } from '../support/factories';
import { createRoom, startRoomsHarness, type RoomsHarness } from '../support/rooms-harness';

type Entry = {
  terms: Record<string, string>;
  do_not_translate?: boolean;
  case_sensitive?: boolean;
  sounds_like?: Record<string, string[]>;
};

describe('Glossaries', () => {
  let h: RoomsHarness;
  beforeAll(async () => {
    h = await startRoomsHarness();
  });
  afterAll(async () => h.close());

  const http = () => h.t.http();

  async function glossary(org: TestOrganization, body: Record<string, unknown> = {}) {
    const res = await http()
      .post('/v1/glossaries')
      .set(org.auth)
      .send({ name: 'Products', ...body });
    if (res.status !== 201) throw new Error(`glossary creation failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string; name: string; default: boolean; entry_count: number; languages: string[] };
  }

  async function entriesOf(org: TestOrganization, id: string) {
    const res = await http().get(`/v1/glossaries/${id}/entries?limit=200`).set(org.auth);
    expect(res.status).toBe(200);
    return (res.body.items as (Entry & { id: string })[]).map(({ terms, do_not_translate, case_sensitive, sounds_like }) => ({
      terms,
      do_not_translate,
      case_sensitive,
      sounds_like,
    }));
  }

  async function exported(org: TestOrganization, id: string, format: 'csv' | 'tsv') {
    const res = await http().get(`/v1/glossaries/${id}/entries?format=${format}`).set(org.auth);
    expect(res.status).toBe(200);
    return res;
  }

  function putText(org: TestOrganization, id: string, type: string, text: string) {
    return http().put(`/v1/glossaries/${id}/entries`).set(org.auth).set('Content-Type', type).send(text);
  }

  const revision = async (org: TestOrganization) => {
    const rows = (await h.t.db.query(`SELECT revision FROM glossary_revisions WHERE organization_id = $1`, [org.organizationId])) as {
      revision: number;
    }[];
    return rows[0]?.revision ?? 0;
  };

  it('creates, reads, renames, lists newest first and deletes glossaries', async () => {
    const org = await createOrganization(h.t);
    const created = await http()
      .post('/v1/glossaries')
      .set(org.auth)
      .send({
        name: 'Products',
        entries: [{ terms: { es: 'adelante', en: 'forward' } }, { terms: { de: 'Zehnmeter' }, do_not_translate: true }],
      });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Products',
      default: false,
      entry_count: 2,
      languages: ['de', 'en', 'es'],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const id: string = created.body.id;
    expect((await http().get(`/v1/glossaries/${id}`).set(org.auth)).body).toEqual(created.body);

    const renamed = await http().patch(`/v1/glossaries/${id}`).set(org.auth).send({ name: 'Brands' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id, name: 'Brands', default: false, entry_count: 2 });

    const second = await glossary(org, { name: 'Second' });
    const third = await glossary(org, { name: 'Third' });
    const page = await http().get('/v1/glossaries?limit=2').set(org.auth);
    expect(page.status).toBe(200);
    expect(page.body.items.map((g: { id: string }) => g.id)).toEqual([third.id, second.id]);
    expect(page.body.next_offset).toBe(2);
    const rest = await http().get('/v1/glossaries?limit=2&offset=2').set(org.auth);
    expect(rest.body.items.map((g: { id: string }) => g.id)).toEqual([id]);
    expect(rest.body.next_offset).toBeNull();

    const deleted = await http().delete(`/v1/glossaries/${id}`).set(org.auth);
    expect(deleted.status).toBe(204);
    expect((await http().get(`/v1/glossaries/${id}`).set(org.auth)).status).toBe(404);
    expect((await http().delete(`/v1/glossaries/${id}`).set(org.auth)).status).toBe(404);
    expect(
      ((await h.t.db.query(`SELECT count(*)::int AS n FROM glossary_entries WHERE glossary_id = $1`, [id])) as { n: number }[])[0].n,
    ).toBe(0);
  });

  it('adds entries (listed oldest first), deletes them, and keeps entry_count and languages right', async () => {
    const org = await createOrganization(h.t);
    const { id } = await glossary(org);
    const first = await http()
      .post(`/v1/glossaries/${id}/entries`)
      .set(org.auth)
      .send({ terms: { en: ' Tenmeter ' }, sounds_like: { en: ['ten meter'] }, case_sensitive: true });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      terms: { en: 'Tenmeter' },
      do_not_translate: false,
      case_sensitive: true,
      sounds_like: { en: ['ten meter'] },
      created_at: expect.any(String),
    });
    const ids = [first.body.id as string];
    for (const term of ['b', 'c']) {
      const res = await http()
        .post(`/v1/glossaries/${id}/entries`)
        .set(org.auth)
        .send({ terms: { fr: term } });
      ids.push(res.body.id);
    }
    const page = await http().get(`/v1/glossaries/${id}/entries?limit=2`).set(org.auth);
    expect(page.body.items.map((e: { id: string }) => e.id)).toEqual(ids.slice(0, 2));
    expect(page.body.next_offset).toBe(2);
    expect((await http().get(`/v1/glossaries/${id}`).set(org.auth)).body).toMatchObject({ entry_count: 3, languages: ['en', 'fr'] });

    expect((await http().delete(`/v1/glossaries/${id}/entries/${ids[0]}`).set(org.auth)).status).toBe(204);
    expect((await http().delete(`/v1/glossaries/${id}/entries/${ids[0]}`).set(org.auth)).status).toBe(404);
    expect((await http().get(`/v1/glossaries/${id}`).set(org.auth)).body).toMatchObject({ entry_count: 2, languages: ['fr'] });
  });

  it('rejects bad entries and duplicates with 422 and changes nothing', async () => {
    const org = await createOrganization(h.t);
    const { id } = await glossary(org, { entries: [{ terms: { en: 'Car', es: 'coche' } }] });
    const created = await revision(org);

    const bad = await http()
      .post(`/v1/glossaries/${id}/entries`)
      .set(org.auth)
      .send({ terms: { xx: 'a', en: '' } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((i: { loc: unknown }) => i.loc)).toEqual([
      ['body', 'terms', 'xx'],
      ['body', 'terms', 'en'],
    ]);

    const duplicate = await http()
      .post(`/v1/glossaries/${id}/entries`)
      .set(org.auth)
      .send({ terms: { en: 'car' } });
    expect(duplicate.status).toBe(422);
    expect(duplicate.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'terms', 'en'], type: 'duplicate_term' })]);
    // Both case-sensitive and spelled differently: not the same term.
    const cased = await http()
      .post(`/v1/glossaries/${id}/entries`)
      .set(org.auth)
      .send({ terms: { es: 'Coche' }, case_sensitive: true });
    expect(cased.status).toBe(422);

    expect(await revision(org)).toBe(created);
    // Two at once with the same term: one glossary change at a time, so exactly one is added.
    const racing = await Promise.all(
      ['Bus', 'bus'].map((term) =>
        http()
          .post(`/v1/glossaries/${id}/entries`)
          .set(org.auth)
          .send({ terms: { en: term } }),
      ),
    );
    expect(racing.map((res) => res.status).sort()).toEqual([201, 422]);
    const raced = racing.find((res) => res.status === 201)!;
    expect((await http().delete(`/v1/glossaries/${id}/entries/${raced.body.id}`).set(org.auth)).status).toBe(204);
    const before = await revision(org);

    const duplicateCreate = await http()
      .post('/v1/glossaries')
      .set(org.auth)
      .send({ name: 'x', entries: [{ terms: { en: 'a' } }, { terms: { en: 'A' } }] });
    expect(duplicateCreate.status).toBe(422);
    expect(duplicateCreate.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'entries', 1, 'terms', 'en'], type: 'duplicate_term' }),
    ]);

    const duplicatePut = await http()
      .put(`/v1/glossaries/${id}/entries`)
      .set(org.auth)
      .send([{ terms: { en: 'x' } }, { terms: { en: 'y' } }, { terms: { en: 'X' } }]);
    expect(duplicatePut.status).toBe(422);
    expect(duplicatePut.body.detail[0].loc).toEqual(['body', 2, 'terms', 'en']);

    const noBody = await http().put(`/v1/glossaries/${id}/entries`).set(org.auth);
    expect(noBody.status).toBe(422);
    expect(noBody.body.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'missing', input: null })]);
    const noEntry = await http().post(`/v1/glossaries/${id}/entries`).set(org.auth);
    expect(noEntry.status).toBe(422);
    expect(noEntry.body.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'dict_type', input: null })]);
    const notJson = await http().post(`/v1/glossaries/${id}/entries`).set(org.auth).set('Content-Type', 'text/plain').send('en,es');
    expect(notJson.status).toBe(422);
    const deep = await http()
      .put(`/v1/glossaries/${id}/entries`)
      .set(org.auth)
      .set('Content-Type', 'application/json')
      .send(`[{"terms":{"en":${'['.repeat(200_000)}${']'.repeat(200_000)}}}]`);
    expect(deep.status).toBe(422);
    expect(deep.body.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'json_invalid' })]);
    const nul = await http()
      .post(`/v1/glossaries/${id}/entries`)
      .set(org.auth)
      .send({ terms: { en: 'a\u0000b' } });
    expect(nul.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'terms', 'en'], type: 'string_pattern_mismatch' })]);

    expect(await entriesOf(org, id)).toEqual([
      { terms: { en: 'Car', es: 'coche' }, do_not_translate: false, case_sensitive: false, sounds_like: {} },
    ]);
    expect((await http().get('/v1/glossaries').set(org.auth)).body.items).toHaveLength(1);
    expect(await revision(org)).toBe(before);
  });

  it('imports CSV and TSV, names the line of a bad row and keeps the old entries, and exports what it imported', async () => {
    const org = await createOrganization(h.t);
    const { id } = await glossary(org, { entries: [{ terms: { en: 'old' } }] });

    const csv = 'en,es,do_not_translate\r\nforward,adelante,false\r\n"Smith, ""J""",,true\r\n';
    const imported = await putText(org, id, 'text/csv', csv);
    expect(imported.status).toBe(200);
    expect(imported.body).toEqual({ entry_count: 2 });
    expect(await entriesOf(org, id)).toEqual([
      { terms: { en: 'forward', es: 'adelante' }, do_not_translate: false, case_sensitive: false, sounds_like: {} },
      { terms: { en: 'Smith, "J"' }, do_not_translate: true, case_sensitive: false, sounds_like: {} },
    ]);

    const exportedCsv = await exported(org, id, 'csv');
    expect(exportedCsv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(exportedCsv.text).toBe(csv);
    expect((await putText(org, id, 'text/csv; charset=utf-8', exportedCsv.text)).status).toBe(200);
    expect((await exported(org, id, 'csv')).text).toBe(csv);

    const badLine = await putText(org, id, 'text/tab-separated-values', 'en\tde\r\nfine\tgut\r\n\tgut\r\n' + 'x'.repeat(201) + '\t\r\n');
    expect(badLine.status).toBe(422);
    expect(badLine.body.detail).toEqual([expect.objectContaining({ loc: ['body', 4], type: 'string_too_long' })]);
    const duplicateLine = await putText(org, id, 'text/csv', 'en\r\nfine\r\nother\r\nFine\r\n');
    expect(duplicateLine.body.detail).toEqual([expect.objectContaining({ loc: ['body', 4], type: 'duplicate_term' })]);
    expect((await exported(org, id, 'csv')).text).toBe(csv);

    const tsv = 'de\ten\r\nZehnmeter\tTenmeter\r\n';
    expect((await putText(org, id, 'text/tab-separated-values', tsv)).body).toEqual({ entry_count: 1 });
    const exportedTsv = await exported(org, id, 'tsv');
    expect(exportedTsv.headers['content-type']).toBe('text/tab-separated-values; charset=utf-8');
    expect(exportedTsv.text).toBe(tsv);
    expect((await http().get(`/v1/glossaries/${id}`).set(org.auth)).body).toMatchObject({ entry_count: 1, languages: ['de', 'en'] });

    expect((await putText(org, id, 'text/plain', tsv)).status).toBe(415);
    expect((await putText(org, id, 'text/csv', 'en\r\n' + 'a,'.repeat(600_000))).status).toBe(413);
    expect((await exported(org, id, 'tsv')).text).toBe(tsv);

    const cleared = await http().put(`/v1/glossaries/${id}/entries`).set(org.auth).send([]);
    expect(cleared.body).toEqual({ entry_count: 0 });
    expect((await http().get(`/v1/glossaries/${id}`).set(org.auth)).body).toMatchObject({ entry_count: 0, languages: [] });
  });

  it('exports terms a spreadsheet would run as formulas behind a quote, and imports the export back to the same entries', async () => {
    const org = await createOrganization(h.t);
    const entries: Entry[] = [
      { terms: { en: '=HYPERLINK("http://evil.example","click")', es: 'enlace' } },
      { terms: { en: '+1 555', es: '-ish' } },
      { terms: { en: '@SUM(A1)' }, do_not_translate: true },
      // Terms that genuinely begin with a quote: before a formula character it is escaped too, else left alone.
      { terms: { en: "'=already quoted", es: "'tis" } },
    ];
    const source = await glossary(org, { entries });
    const expected = await entriesOf(org, source.id);
    expect(expected.map((entry) => entry.terms)).toEqual(entries.map((entry) => entry.terms));

    const csv = await exported(org, source.id, 'csv');
    expect(csv.text).toBe(
      'en,es,do_not_translate\r\n' +
        `"'=HYPERLINK(""http://evil.example"",""click"")",enlace,false\r\n` +
        `"'+1 555","'-ish",false\r\n` +
        `"'@SUM(A1)",,true\r\n` +
        `"''=already quoted",'tis,false\r\n`,
    );
    const tsv = await exported(org, source.id, 'tsv');
    expect(tsv.text).toBe(
      'en\tes\tdo_not_translate\r\n' +
        `"'=HYPERLINK(""http://evil.example"",""click"")"\tenlace\tfalse\r\n` +
        `"'+1 555"\t"'-ish"\tfalse\r\n` +
        `"'@SUM(A1)"\t\ttrue\r\n` +
        `"''=already quoted"\t'tis\tfalse\r\n`,
    );

    for (const [text, type] of [
      [csv.text, 'text/csv'],
      [tsv.text, 'text/tab-separated-values'],
    ] as const) {
      const { id } = await glossary(org, { name: `from ${type}` });
      expect((await putText(org, id, type, text)).body).toEqual({ entry_count: 4 });
      expect(await entriesOf(org, id)).toEqual(expected);
      expect((await exported(org, id, 'csv')).text).toBe(csv.text);
    }
  });

  it('refuses a CSV or TSV import whose bytes are not UTF-8 with 422 naming the line, and keeps the entries', async () => {
    const org = await createOrganization(h.t);
    const { id } = await glossary(org, { entries: [{ terms: { en: 'old', fr: 'vieux' } }] });
    const before = await revision(org);
    // Latin-1 é (0xE9) on line 3: a UTF-8 reader would have stored U+FFFD.
    const latin1 = Buffer.concat([
      Buffer.from('en,fr\r\nstreet,rue\r\ncafe,caf'),
      Buffer.from([0xe9]),
      Buffer.from('\r\ntea,th\u00e9\r\n'),
    ]);
    for (const [type, body] of [
      ['text/csv', latin1],
      ['text/csv; charset=utf-8', latin1],
      ['text/tab-separated-values', Buffer.from(latin1.toString('latin1').replaceAll(',', '\t'), 'latin1')],
    ] as const) {
      const res = await http().put(`/v1/glossaries/${id}/entries`).set(org.auth).set('Content-Type', type).send(body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        detail: [
          {
            loc: ['body', 3],
            type: 'string_unicode',
            msg: 'Line 3: the text is not valid UTF-8; send the file encoded as UTF-8.',
            input: null,
            ctx: {},
          },
        ],
      });
    }
    const declaredLatin1 = await http()
      .put(`/v1/glossaries/${id}/entries`)
      .set(org.auth)
      .set('Content-Type', 'text/csv; charset=ISO-8859-1')
      .send(latin1);
    expect(declaredLatin1.status).toBe(415);
    expect(declaredLatin1.body).toEqual({ detail: expect.stringContaining('UTF-8') });

    expect(await entriesOf(org, id)).toEqual([
      { terms: { en: 'old', fr: 'vieux' }, do_not_translate: false, case_sensitive: false, sounds_like: {} },
    ]);
    expect(await revision(org)).toBe(before);

    const utf8 = await putText(org, id, 'text/csv', 'en,fr\r\ncoffee,caf\u00e9\r\n');
    expect(utf8.body).toEqual({ entry_count: 1 });
    expect((await entriesOf(org, id)).map((entry) => entry.terms)).toEqual([{ en: 'coffee', fr: 'caf\u00e9' }]);
  });

  it('holds 10,000 entries per glossary (a 10,000-row CSV in one statement) and 100 glossaries per organization', async () => {
    const org = await createOrganization(h.t);
    const { id } = await glossary(org);
    const rows = Array.from({ length: 10_000 }, (_, i) => `term ${i},término ${i}`);
    const started = Date.now();
    const full = await putText(org, id, 'text/csv', `en,es\n${rows.join('\n')}\n`);
    const took = Date.now() - started;
    expect(full.status).toBe(200);
    expect(full.body).toEqual({ entry_count: 10_000 });
    // About 0.6 s here; the bound is loose because the test machine is shared (the bench row measures it).
    expect(took).toBeLessThan(4000);

    const over = await putText(org, id, 'text/csv', `en,es\n${rows.join('\n')}\nterm x,término x\n`);
    expect(over.status).toBe(422);
    const oneMore = await http()
      .post(`/v1/glossaries/${id}/entries`)
      .set(org.auth)
      .send({ terms: { en: 'one more' } });
    expect(oneMore.status).toBe(422);
    const overJson = await http()
      .put(`/v1/glossaries/${id}/entries`)
      .set(org.auth)
      .send(Array.from({ length: 10_001 }, (_, i) => ({ terms: { en: `t${i}` } })));
    expect(overJson.status).toBe(422);
    expect((await http().get(`/v1/glossaries/${id}`).set(org.auth)).body.entry_count).toBe(10_000);

    for (let i = 1; i < 100; i++) await glossary(org, { name: `g${i}` });
    const hundredFirst = await http().post('/v1/glossaries').set(org.auth).send({ name: 'one too many' });
    expect(hundredFirst.status).toBe(422);
    expect(hundredFirst.body.detail[0].loc).toEqual(['body']);
    expect((await http().get('/v1/glossaries?limit=200').set(org.auth)).body.items).toHaveLength(100);
  });

  it('creates a glossary with 10,000 entries from JSON, and refuses 10,001', async () => {
    const org = await createOrganization(h.t);
    const entries = Array.from({ length: 10_000 }, (_, i) => ({ terms: { en: `term ${i}`, fr: `terme ${i}` } }));
    const created = await http().post('/v1/glossaries').set(org.auth).send({ name: 'big', entries });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ entry_count: 10_000, languages: ['en', 'fr'] });
    const over = await http()
      .post('/v1/glossaries')
      .set(org.auth)
      .send({ name: 'too big', entries: [...entries, { terms: { en: 'one more' } }] });
    expect(over.status).toBe(422);
    expect(over.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'entries'], type: 'too_long' })]);
    expect((await http().get('/v1/glossaries').set(org.auth)).body.items).toHaveLength(1);
  });

  it("answers 404 for another organization's glossary, entries and room", async () => {
    const owner = await createOrganization(h.t);
    const other = await createOrganization(h.t);
    const { id } = await glossary(owner, { entries: [{ terms: { en: 'secret' } }] });
    const entryId = ((await http().get(`/v1/glossaries/${id}/entries`).set(owner.auth)).body.items[0] as { id: string }).id;
    const room = await createRoom(h, owner);

    expect((await http().get(`/v1/glossaries/${id}`).set(other.auth)).status).toBe(404);
    expect((await http().patch(`/v1/glossaries/${id}`).set(other.auth).send({ name: 'mine' })).status).toBe(404);
    expect((await http().delete(`/v1/glossaries/${id}`).set(other.auth)).status).toBe(404);
    expect((await http().get(`/v1/glossaries/${id}/entries`).set(other.auth)).status).toBe(404);
    expect((await http().get(`/v1/glossaries/${id}/entries?format=csv`).set(other.auth)).status).toBe(404);
    expect(
      (
        await http()
          .post(`/v1/glossaries/${id}/entries`)
          .set(other.auth)
          .send({ terms: { en: 'x' } })
      ).status,
    ).toBe(404);
    expect((await http().delete(`/v1/glossaries/${id}/entries/${entryId}`).set(other.auth)).status).toBe(404);
    expect((await putText(other, id, 'text/csv', 'en\r\nx\r\n')).status).toBe(404);
    expect((await http().get(`/v1/rooms/${room.id}/glossaries`).set(other.auth)).status).toBe(404);
    expect((await http().put(`/v1/rooms/${room.id}/glossaries`).set(other.auth).send({ glossary_ids: [] })).status).toBe(404);
    expect((await http().get(`/v1/rooms/${randomUUID()}/glossaries`).set(owner.auth)).status).toBe(404);
    expect((await http().get(`/v1/glossaries/${randomUUID()}`).set(owner.auth)).status).toBe(404);

    expect(await entriesOf(owner, id)).toEqual([
      { terms: { en: 'secret' }, do_not_translate: false, case_sensitive: false, sounds_like: {} },
    ]);
    expect((await http().get(`/v1/glossaries/${id}`).set(owner.auth)).body.name).toBe('Products');
  });

  it('replays an Idempotency-Key: one glossary, one entry', async () => {
    const org = await createOrganization(h.t);
    const key = { 'Idempotency-Key': `glossary-${randomUUID()}` };
    const first = await http().post('/v1/glossaries').set(org.auth).set(key).send({ name: 'Once' });
    const again = await http().post('/v1/glossaries').set(org.auth).set(key).send({ name: 'Once' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await http().get('/v1/glossaries').set(org.auth)).body.items).toHaveLength(1);

    const entryKey = { 'Idempotency-Key': `entry-${randomUUID()}` };
    const path = `/v1/glossaries/${first.body.id}/entries`;
    const e1 = await http()
      .post(path)
      .set(org.auth)
      .set(entryKey)
      .send({ terms: { en: 'once' } });
    const e2 = await http()
      .post(path)
      .set(org.auth)
      .set(entryKey)
      .send({ terms: { en: 'once' } });
    expect(e1.status).toBe(201);
    expect(e2.status).toBe(201);
    expect(e2.body).toEqual(e1.body);
    expect(await entriesOf(org, first.body.id)).toHaveLength(1);
  });

  it("sets a room's list, falls back to the defaults newest first, and forgets a deleted glossary", async () => {
    const org = await createOrganization(h.t);
    const other = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const listOf = async () => {
      const res = await http().get(`/v1/rooms/${room.id}/glossaries`).set(org.auth);
      expect(res.status).toBe(200);
      return res.body.glossary_ids as string[];
    };
    expect(await listOf()).toEqual([]);

    const a = await glossary(org, { name: 'a', default: true, entries: [{ terms: { en: 'alpha' } }] });
    const b = await glossary(org, { name: 'b' });
    const c = await glossary(org, { name: 'c', default: true });
    expect(await listOf()).toEqual([c.id, a.id]);
    await http().patch(`/v1/glossaries/${b.id}`).set(org.auth).send({ default: true });
    expect(await listOf()).toEqual([c.id, b.id, a.id]);

    const repository = h.t.app.get(GlossariesRepository);
    const inUse = await repository.glossariesInUse(org.organizationId, room.id);
    expect(inUse?.glossaries.map((g) => g.id)).toEqual([c.id, b.id, a.id]);
    expect(inUse?.glossaries[2].entries).toEqual([{ terms: { en: 'alpha' }, doNotTranslate: false, caseSensitive: false, soundsLike: {} }]);
    expect(inUse?.revision).toBe(await revision(org));

    const set = await http()
      .put(`/v1/rooms/${room.id}/glossaries`)
      .set(org.auth)
      .send({ glossary_ids: [a.id, b.id] });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ glossary_ids: [a.id, b.id] });
    expect(await listOf()).toEqual([a.id, b.id]);
    expect((await repository.glossariesInUse(org.organizationId, room.id))?.glossaries.map((g) => g.id)).toEqual([a.id, b.id]);

    const foreign = await glossary(other);
    const revisionBefore = await revision(org);
    const rejected = await http()
      .put(`/v1/rooms/${room.id}/glossaries`)
      .set(org.auth)
      .send({ glossary_ids: [c.id, foreign.id, randomUUID()] });
    expect(rejected.status).toBe(422);
    expect(rejected.body.detail.map((i: { loc: unknown }) => i.loc)).toEqual([
      ['body', 'glossary_ids', 1],
      ['body', 'glossary_ids', 2],
    ]);
    const tooMany = await http()
      .put(`/v1/rooms/${room.id}/glossaries`)
      .set(org.auth)
      .send({ glossary_ids: Array.from({ length: 6 }, () => a.id) });
    expect(tooMany.status).toBe(422);
    const notUuid = await http()
      .put(`/v1/rooms/${room.id}/glossaries`)
      .set(org.auth)
      .send({ glossary_ids: [a.id, 'nope'] });
    expect(notUuid.body.detail.map((i: { loc: unknown }) => i.loc)).toEqual([['body', 'glossary_ids', 1]]);
    expect(await listOf()).toEqual([a.id, b.id]);
    expect(await revision(org)).toBe(revisionBefore);

    expect((await http().delete(`/v1/glossaries/${a.id}`).set(org.auth)).status).toBe(204);
    expect(await listOf()).toEqual([b.id]);

    await http().put(`/v1/rooms/${room.id}/glossaries`).set(org.auth).send({ glossary_ids: [] });
    expect(await listOf()).toEqual([]);
    expect((await repository.glossariesInUse(org.organizationId, room.id))?.glossaries).toEqual([]);
  });

  it('moves the revision on every change a room applies, and not on a rename', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    let last = await revision(org);
    const { id } = await glossary(org, { entries: [{ terms: { en: 'a' } }] });
    const moved = async (expected: boolean) => {
      const now = await revision(org);
      expect(now > last).toBe(expected);
      last = now;
    };
    await moved(true);
    await http().patch(`/v1/glossaries/${id}`).set(org.auth).send({ name: 'renamed' });
    await moved(false);
    await http().patch(`/v1/glossaries/${id}`).set(org.auth).send({ default: true });
    await moved(true);
    const entry = await http()
      .post(`/v1/glossaries/${id}/entries`)
      .set(org.auth)
      .send({ terms: { en: 'b' } });
    await moved(true);
    await http().delete(`/v1/glossaries/${id}/entries/${entry.body.id}`).set(org.auth);
    await moved(true);
    await putText(org, id, 'text/csv', 'en\r\nc\r\n');
    await moved(true);
    await http()
      .put(`/v1/rooms/${room.id}/glossaries`)
      .set(org.auth)
      .send({ glossary_ids: [id] });
    await moved(true);
    await http().delete(`/v1/glossaries/${id}`).set(org.auth);
    await moved(true);
  });
});
