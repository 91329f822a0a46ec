import { createHmac, randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createOrganization, type TestOrganization } from '../support/factories';
import { createRoom, events, settled, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';

describe('invite links', () => {
  let h: RoomsHarness;
  beforeAll(async () => {
    h = await startRoomsHarness();
  });
  afterAll(async () => h.close());

  async function mint(org: TestOrganization, roomId: string, body: Record<string, unknown> = { expires_in_seconds: 3600, max_uses: 5 }) {
    return h.t.http().post(`/v1/rooms/${roomId}/invites`).set(org.auth).send(body);
  }
  const preview = (code: string) => h.t.http().get(`/v1/invites/${code}`);
  const join = (code: string, body: Record<string, unknown>) => h.t.http().post(`/v1/invites/${code}/join`).send(body);
  /** A code of the minted shape: 128 random bits (or the nonce given) and their HMAC-SHA-256 under `secret`. */
  const signedCode = (secret: string, nonce = randomBytes(16).toString('base64url')) =>
    `${nonce}.${createHmac('sha256', secret).update(`invite:${nonce}`).digest('base64url')}`;
  /** Correctly signed with the service's own secret, but never minted: the reference "unknown code". */
  const unknownCode = () => signedCode(h.t.config.inviteSigningSecret);
  const CODE_SHAPE = /^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/;

  it('mints a signed code, previews without auth, and joins as a guest', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const before = Date.now();
    const minted = await mint(org, room.id, { expires_in_seconds: 600, max_uses: 2 });
    expect(minted.status).toBe(201);
    expect(minted.body).toEqual({
      invite_code: expect.stringMatching(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/),
      expires_at: expect.any(String),
      max_uses: 2,
    });
    const expiresAt = new Date(minted.body.expires_at).getTime();
    expect(expiresAt).toBeGreaterThanOrEqual(before + 600_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 600_000 + 1000);
    const [{ stored }] = (await h.t.db.query(`SELECT encode(code_hash, 'hex') AS stored FROM invites WHERE room_id = $1`, [room.id])) as {
      stored: string;
    }[];
    expect(stored).not.toContain(minted.body.invite_code);

    const view = await preview(minted.body.invite_code);
    expect(view.status).toBe(200);
    expect(view.body.mode).toBeNull();
    expect(view.body.languages_required).toBeNull();
    expect(view.body.room_status).toBe('created');
    expect(view.body.active_languages.length).toBeGreaterThanOrEqual(40);
    expect(Object.keys(view.body).sort()).toEqual(['active_languages', 'languages_required', 'mode', 'room_status']);

    const joined = await join(minted.body.invite_code, { languages: ['es'], name: 'Guest' });
    expect(joined.status).toBe(201);
    expect(joined.body).toMatchObject({
      room: room.name,
      languages: ['es'],
      streaming_mode: 'dual',
      identity: expect.stringMatching(/^guest-/),
    });
    const after = await preview(minted.body.invite_code);
    expect(after.body).toMatchObject({ mode: 'dual', languages_required: 1 });
  });

  it('offers every language below two held, exactly the two once held, and widens again when a language leaves', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const { body } = await mint(org, room.id);
    await token(h, org, room.name, { languages: ['en'], identity: 'en-speaker' }).expect(201);
    await token(h, org, room.name, { languages: ['ja'], identity: 'ja-speaker' }).expect(201);
    await webhook(h, events.participantJoined(room.livekitName, { identity: 'en-speaker', sid: 'PA_en' })).expect(200);
    await webhook(h, events.participantJoined(room.livekitName, { identity: 'ja-speaker', sid: 'PA_ja' })).expect(200);
    await settled(h);
    const two = await preview(body.invite_code);
    expect(two.body.active_languages).toEqual([
      { code: 'en', name: 'English' },
      { code: 'ja', name: 'Japanese' },
    ]);
    expect((await join(body.invite_code, { languages: ['fr'] })).status).toBe(409);
    expect((await join(body.invite_code, { languages: ['ja'] })).status).toBe(201);

    await webhook(h, events.participantLeft(room.livekitName, { identity: 'ja-speaker', sid: 'PA_ja' })).expect(200);
    await settled(h);
    await h.t.db.query(`UPDATE room_tokens SET reserved_until = NULL WHERE room_id = $1`, [room.id]);
    const wide = await preview(body.invite_code);
    expect(wide.body.active_languages.length).toBeGreaterThan(2);
    const names = wide.body.active_languages.map((l: { name: string }) => l.name);
    expect(names).toEqual([...names].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('spends exactly max_uses under 30 concurrent joins; the rest get 410', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org, { streaming_mode: 'dual' });
    const { body } = await mint(org, room.id, { expires_in_seconds: 600, max_uses: 4 });
    const answers = await Promise.all(Array.from({ length: 30 }, () => join(body.invite_code, { languages: ['en'] })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(4);
    expect(answers.filter((a) => a.status === 410)).toHaveLength(26);
    expect(answers.find((a) => a.status === 410)?.body.detail).toBe('This invite link has no uses left.');
    expect((await preview(body.invite_code)).status).toBe(410);
  });

  it('answers 409 to a join with the wrong number of languages and spends nothing', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org, { streaming_mode: 'mono' });
    const { body } = await mint(org, room.id, { expires_in_seconds: 600, max_uses: 1 });
    expect((await preview(body.invite_code)).body).toMatchObject({ mode: 'mono', languages_required: 2 });
    const wrong = await join(body.invite_code, { languages: ['en'] });
    expect(wrong.status).toBe(409);
    const [{ uses }] = (await h.t.db.query(`SELECT uses FROM invites WHERE room_id = $1`, [room.id])) as { uses: number }[];
    expect(uses).toBe(0);
    expect((await join(body.invite_code, { languages: ['en', 'de'] })).status).toBe(201);
    expect((await join(body.invite_code, { languages: ['en', 'de'] })).status).toBe(410);
  });

  it('spends uses only on joins that succeed, when wrong-count joins race right ones', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org, { streaming_mode: 'dual' });
    const { body } = await mint(org, room.id, { expires_in_seconds: 600, max_uses: 4 });
    // 20 wrong (two languages in a dual room) interleaved with 4 right: every right one must still get in.
    const asks = Array.from({ length: 24 }, (_, i) => (i % 6 === 5 ? ['en'] : ['en', 'de']));
    const answers = await Promise.all(asks.map((languages) => join(body.invite_code, { languages })));
    // A wrong count is refused (409) without spending; once the right ones have spent the link, it is gone (410).
    const expected = (languages: string[], status: number) => (languages.length === 1 ? 201 : status === 410 ? 410 : 409);
    expect(answers.map((a) => a.status)).toEqual(asks.map((languages, i) => expected(languages, answers[i].status)));
    const [{ uses }] = (await h.t.db.query(`SELECT uses FROM invites WHERE room_id = $1`, [room.id])) as { uses: number }[];
    expect(uses).toBe(4);
    expect((await join(body.invite_code, { languages: ['en'] })).status).toBe(410);
  });

  it('says which when a link is gone: expired, or its room ended', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const expiring = (await mint(org, room.id)).body.invite_code;
    await h.t.db.query(`UPDATE invites SET expires_at = now() - interval '1 second' WHERE room_id = $1`, [room.id]);
    const expired = await preview(expiring);
    expect(expired.status).toBe(410);
    expect(expired.body.detail).toBe('This invite link has expired.');
    expect((await join(expiring, { languages: ['en'] })).status).toBe(410);

    const live = (await mint(org, room.id)).body.invite_code;
    await h.t.http().delete(`/v1/rooms/${room.id}`).set(org.auth).expect(204);
    const ended = await preview(live);
    expect(ended.status).toBe(410);
    expect(ended.body.detail).toBe('The room of this invite link has ended.');
    const mintOnEnded = await mint(org, room.id);
    expect(mintOnEnded.status).toBe(410);
  });

  it('revokes every link of a room permanently, keeps guests in, and answers 204 whatever the room', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const a = (await mint(org, room.id)).body.invite_code;
    const b = (await mint(org, room.id)).body.invite_code;
    const guest = await join(a, { languages: ['en'] });
    expect(guest.status).toBe(201);
    const revoked = await h.t.http().delete(`/v1/rooms/${room.id}/invites`).set(org.auth);
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');
    const unknown = unknownCode();
    const unknownPreview = await preview(unknown);
    const unknownJoin = await join(unknown, { languages: ['en'] });
    expect(unknownPreview.status).toBe(404);
    expect(unknownPreview.body).toEqual({ detail: expect.any(String) });
    expect(unknownJoin.status).toBe(404);
    for (const code of [a, b]) {
      const res = await preview(code);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(unknownPreview.body);
      const joined = await join(code, { languages: ['en'] });
      expect(joined.status).toBe(404);
      expect(joined.body).toEqual(unknownJoin.body);
    }
    const [{ n }] = (await h.t.db.query(`SELECT count(*)::int AS n FROM room_tokens WHERE room_id = $1 AND identity = $2`, [
      room.id,
      guest.body.identity,
    ])) as {
      n: number;
    }[];
    expect(n).toBe(1);
    expect((await h.t.http().delete(`/v1/rooms/${room.id}/invites`).set(org.auth)).status).toBe(204);
    expect((await h.t.http().delete('/v1/rooms/00000000-0000-4000-8000-000000000000/invites').set(org.auth)).status).toBe(204);
  });

  it("answers 204 to revoking another organization's links and leaves them working for preview and join", async () => {
    const owner = await createOrganization(h.t);
    const stranger = await createOrganization(h.t);
    const room = await createRoom(h, owner);
    const code = (await mint(owner, room.id)).body.invite_code;
    expect((await h.t.http().delete(`/v1/rooms/${room.id}/invites`).set(stranger.auth)).status).toBe(204);
    expect((await preview(code)).status).toBe(200);
    const joined = await join(code, { languages: ['en'], name: 'Guest' });
    expect(joined.status).toBe(201);
    expect(joined.body).toMatchObject({ room: room.name, languages: ['en'], identity: expect.stringMatching(/^guest-/) });
    const [{ uses }] = (await h.t.db.query(`SELECT uses FROM invites WHERE room_id = $1`, [room.id])) as { uses: number }[];
    expect(uses).toBe(1);
  });

  it('answers tampered, truncated, garbage and foreign-secret codes with the same 404', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const code: string = (await mint(org, room.id)).body.invite_code;
    const [nonce] = code.split('.');
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const foreign = `${nonce}.${Buffer.alloc(32, 7).toString('base64url')}`;
    const bad = [
      flip(code, 3),
      flip(code, code.length - 2),
      code.slice(0, -1),
      code.slice(0, 20),
      'garbage',
      `${code}x`,
      foreign,
      '%00%ff',
      `${code.slice(0, 10)}%00${code.slice(11)}`,
      'a'.repeat(300),
      `${code}.${'x'.repeat(5000)}`,
    ];
    const bodies = new Set<string>();
    for (const c of bad) {
      const res = await preview(c);
      expect({ code: c, status: res.status }).toEqual({ code: c, status: 404 });
      bodies.add(JSON.stringify(res.body));
      expect((await join(c, { languages: ['en'] })).status).toBe(404);
    }
    expect(bodies.size).toBe(1);
    expect((await preview(code)).status).toBe(200);
  });

  it('answers a code signed with a foreign secret exactly like an unknown code, on preview and join', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const code: string = (await mint(org, room.id)).body.invite_code;
    const foreignSecret = `not-${h.t.config.inviteSigningSecret}`;
    const foreign = [signedCode(foreignSecret), signedCode(foreignSecret, code.split('.')[0])];
    const unknown = unknownCode();
    for (const c of [code, unknown, ...foreign]) expect(c).toMatch(CODE_SHAPE);
    const unknownPreview = await preview(unknown);
    const unknownJoin = await join(unknown, { languages: ['en'] });
    expect(unknownPreview.status).toBe(404);
    expect(unknownPreview.body).toEqual({ detail: expect.any(String) });
    expect(unknownJoin.status).toBe(404);
    expect(unknownJoin.body).toEqual(unknownPreview.body);
    for (const c of foreign) {
      const viewed = await preview(c);
      expect({ code: c, status: viewed.status, body: viewed.body }).toEqual({ code: c, status: 404, body: unknownPreview.body });
      const joined = await join(c, { languages: ['en'] });
      expect({ code: c, status: joined.status, body: joined.body }).toEqual({ code: c, status: 404, body: unknownJoin.body });
    }
    expect((await preview(code)).status).toBe(200);
    const [{ uses }] = (await h.t.db.query(`SELECT uses FROM invites WHERE room_id = $1`, [room.id])) as { uses: number }[];
    expect(uses).toBe(0);
  });

  it('answers bad codes without touching the invites table, while a valid code waits for it', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org, { streaming_mode: 'dual' });
    const code: string = (await mint(org, room.id)).body.invite_code;
    const [nonce, signature] = code.split('.');
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const foreignSecret = `not-${h.t.config.inviteSigningSecret}`;
    const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // The last of 43 characters carries 2 unused bits: a code differing only there decodes to the same signature.
    const unusedBitsChanged = signature.slice(0, -1) + BASE64URL[BASE64URL.indexOf(signature.slice(-1)) ^ 1];
    const bad = [
      `${flip(nonce, 5)}.${signature}`,
      `${nonce}.${flip(signature, 10)}`,
      `${nonce}.${unusedBitsChanged}`,
      code.slice(0, -1),
      code.slice(0, 20),
      'garbage',
      signedCode(foreignSecret),
      signedCode(foreignSecret, nonce),
    ];
    const unknownBody = (await preview(unknownCode())).body;

    const locker = new Client({ connectionString: h.t.config.databaseUrl });
    await locker.connect();
    /** Sessions waiting for a lock on the invites table (each blocked database lookup is one). */
    const waiters = async () => {
      const [{ n }] = (await locker.query(`SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'invites'::regclass AND NOT granted`))
        .rows as { n: number }[];
      return n;
    };
    const polling = { stopped: false };
    /** Resolves once at least `n` sessions wait on the lock; polls until then (or until the test stops polling). */
    const untilWaiters = async (n: number): Promise<'database lookup blocked' | 'stopped'> => {
      try {
        while (!polling.stopped) {
          if ((await waiters()) >= n) return 'database lookup blocked';
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      } catch {
        // the locker was closed while polling: the test is over
      }
      return 'stopped';
    };
    let held = false;
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE invites IN ACCESS EXCLUSIVE MODE');
      held = true;
      const answered: string[] = [];
      const validPreview = Promise.resolve(preview(code)).then((res) => (answered.push('preview'), res));
      const validJoin = Promise.resolve(join(code, { languages: ['en'] })).then((res) => (answered.push('join'), res));
      const valid = Promise.all([validPreview, validJoin]).then(() => 'valid code answered' as const);
      // Both valid requests reach the invites table and wait for the lock.
      expect(await Promise.race([untilWaiters(2), valid])).toBe('database lookup blocked');

      // Every bad code is answered while the lock is held: none of them waits for the table.
      const badAnswers = Promise.all(bad.flatMap((c) => [Promise.resolve(preview(c)), Promise.resolve(join(c, { languages: ['en'] }))]));
      expect(await Promise.race([badAnswers.then(() => 'bad codes answered' as const), untilWaiters(3)])).toBe('bad codes answered');
      for (const res of await badAnswers) expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: unknownBody });
      expect(answered).toEqual([]);
      expect(await waiters()).toBe(2);

      await locker.query('COMMIT');
      held = false;
      const [viewed, joined] = await Promise.all([validPreview, validJoin]);
      expect(viewed.status).toBe(200);
      expect(joined.status).toBe(201);
    } finally {
      polling.stopped = true;
      if (held) await locker.query('ROLLBACK');
      await locker.end();
    }
  });

  it('answers every invalid mint bound with 422 naming it, and mints nothing', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const cases: [Record<string, unknown>, [string, string, Record<string, number>][]][] = [
      [{ expires_in_seconds: 59, max_uses: 1 }, [['body.expires_in_seconds', 'greater_than_equal', { ge: 60 }]]],
      [{ expires_in_seconds: 2592001, max_uses: 1 }, [['body.expires_in_seconds', 'less_than_equal', { le: 2592000 }]]],
      [{ expires_in_seconds: 60, max_uses: 0 }, [['body.max_uses', 'greater_than_equal', { ge: 1 }]]],
      [{ expires_in_seconds: 60, max_uses: 101 }, [['body.max_uses', 'less_than_equal', { le: 100 }]]],
      [
        {},
        [
          ['body.expires_in_seconds', 'missing', {}],
          ['body.max_uses', 'missing', {}],
        ],
      ],
      [
        { expires_in_seconds: '60', max_uses: 1.5 },
        [
          ['body.expires_in_seconds', 'int_parsing', {}],
          ['body.max_uses', 'int_from_float', {}],
        ],
      ],
    ];
    for (const [body, expected] of cases) {
      const res = await mint(org, room.id, body);
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { loc: string[]; type: string; ctx: object }) => [d.loc.join('.'), d.type, d.ctx])).toEqual(expected);
    }
    expect((await mint(org, room.id, { expires_in_seconds: 60, max_uses: 1 })).status).toBe(201);
    expect((await mint(org, room.id, { expires_in_seconds: 2592000, max_uses: 100 })).status).toBe(201);
    const [{ n }] = (await h.t.db.query(`SELECT count(*)::int AS n FROM invites WHERE room_id = $1`, [room.id])) as { n: number }[];
    expect(n).toBe(2);
  });
});
