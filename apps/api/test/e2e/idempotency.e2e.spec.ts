import { IdempotencyStore } from '../../src/modules/idempotency/idempotency.store';
import { createOrganization, createTeammate } from '../support/factories';
import { startFullHarness, type FullHarness } from '../support/payments-harness';
import { createRoom } from '../support/rooms-harness';

describe('Idempotency keys', () => {
  let h: FullHarness;
  beforeAll(async () => {
    h = await startFullHarness();
  });
  afterAll(async () => h.close());

  const roomsOf = async (organizationId: string) =>
    ((await h.t.db.query(`SELECT count(*)::int AS n FROM rooms WHERE organization_id = $1`, [organizationId])) as { n: number }[])[0].n;

  it('replays a created room byte for byte and creates nothing twice', async () => {
    const org = await createOrganization(h.t);
    const first = await h.t.http().post('/v1/rooms').set(org.auth).set('Idempotency-Key', 'room-1').send({ room_name: 'standup' });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const livekitRooms = h.livekit.rooms().length;
    // The same body with other whitespace and key order is the same request.
    const again = await h.t
      .http()
      .post('/v1/rooms')
      .set(org.auth)
      .set('Idempotency-Key', 'room-1')
      .set('Content-Type', 'application/json')
      .send('{ "room_name" : "standup" }');
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(await roomsOf(org.organizationId)).toBe(1);
    expect(h.livekit.rooms()).toHaveLength(livekitRooms);
  });

  it('replays a join token, an invite, an API key and a checkout without issuing another', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const post = (path: string, body: object, key: string) => h.t.http().post(path).set(org.auth).set('Idempotency-Key', key).send(body);
    const cases: [string, object, string][] = [
      [
        `/v1/rooms/${room.name}/token`,
        { languages: ['en'], identity: 'ada' },
        'SELECT count(*)::int AS n FROM room_tokens WHERE room_id = $1',
      ],
      [
        `/v1/rooms/${room.id}/invites`,
        { expires_in_seconds: 3600, max_uses: 5 },
        'SELECT count(*)::int AS n FROM invites WHERE room_id = $1',
      ],
    ];
    for (const [path, body, countSql] of cases) {
      const first = await post(path, body, `k-${path}`);
      expect(first.status).toBe(201);
      const [{ n }] = (await h.t.db.query(countSql, [room.id])) as { n: number }[];
      const again = await post(path, body, `k-${path}`);
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.text).toBe(first.text);
      expect(((await h.t.db.query(countSql, [room.id])) as { n: number }[])[0].n).toBe(n);
    }

    const key = await post('/v1/api-keys', { name: 'deploys' }, 'key-1');
    const keyAgain = await post('/v1/api-keys', { name: 'deploys' }, 'key-1');
    expect(keyAgain.text).toBe(key.text);
    const keys = await h.t.http().get('/v1/api-keys').set(org.auth);
    expect(keys.body.items.filter((k: { name: string }) => k.name === 'deploys')).toHaveLength(1);

    const sessionsBefore = h.stripe.sessions.size;
    const checkout = await post('/v1/billing/checkout', { amount_cents: 1000 }, 'pay-1');
    expect(checkout.status).toBe(201);
    const checkoutAgain = await post('/v1/billing/checkout', { amount_cents: 1000 }, 'pay-1');
    expect(checkoutAgain.status).toBe(201);
    expect(checkoutAgain.headers['idempotent-replayed']).toBe('true');
    expect(checkoutAgain.body).toEqual(checkout.body);
    expect(h.stripe.sessions.size).toBe(sessionsBefore + 1);
  });

  it('remembers a 4xx answer but not a 5xx one', async () => {
    const org = await createOrganization(h.t);
    await createRoom(h, org, { room_name: 'taken' });
    const conflict = await h.t.http().post('/v1/rooms').set(org.auth).set('Idempotency-Key', 'dup').send({ room_name: 'taken' });
    expect(conflict.status).toBe(409);
    await h.t
      .http()
      .delete(`/v1/rooms/${(await h.t.db.query(`SELECT id FROM rooms WHERE name = 'taken'`))[0].id}`)
      .set(org.auth);
    const replayed = await h.t.http().post('/v1/rooms').set(org.auth).set('Idempotency-Key', 'dup').send({ room_name: 'taken' });
    expect(replayed.status).toBe(409);
    expect(replayed.text).toBe(conflict.text);
    expect(replayed.headers['idempotent-replayed']).toBe('true');

    h.livekit.failNext('CreateRoom', 1);
    const outage = await h.t.http().post('/v1/rooms').set(org.auth).set('Idempotency-Key', 'outage').send({ room_name: 'later' });
    expect(outage.status).toBe(503);
    const retried = await h.t.http().post('/v1/rooms').set(org.auth).set('Idempotency-Key', 'outage').send({ room_name: 'later' });
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });

  it('answers 422 when the key is reused with another body or path, and for a malformed key', async () => {
    const org = await createOrganization(h.t);
    await h.t.http().post('/v1/rooms').set(org.auth).set('Idempotency-Key', 'k').send({ room_name: 'one' }).expect(201);
    const otherBody = await h.t.http().post('/v1/rooms').set(org.auth).set('Idempotency-Key', 'k').send({ room_name: 'two' });
    expect(otherBody.status).toBe(422);
    expect(otherBody.body).toEqual({ detail: expect.stringContaining('Idempotency-Key') });
    const otherPath = await h.t.http().post('/v1/api-keys').set(org.auth).set('Idempotency-Key', 'k').send({ room_name: 'one' });
    expect(otherPath.status).toBe(422);
    expect(await roomsOf(org.organizationId)).toBe(1);

    const long = await h.t.http().post('/v1/rooms').set(org.auth).set('Idempotency-Key', 'x'.repeat(256)).send({});
    expect(long.status).toBe(422);
    expect(long.body.detail).toEqual([expect.objectContaining({ loc: ['header', 'idempotency-key'], type: 'string_too_long' })]);
    const withBadBody = await h.t.http().post('/v1/rooms').set(org.auth).set('Idempotency-Key', 'caf\u00e9').send({ streaming_mode: 'x' });
    expect(withBadBody.status).toBe(422);
    expect(withBadBody.body.detail.map((issue: { loc: string[] }) => issue.loc)).toEqual([
      ['header', 'idempotency-key'],
      ['body', 'streaming_mode'],
    ]);
    expect(await roomsOf(org.organizationId)).toBe(1);
  });

  it('runs exactly one of 20 concurrent requests with one key; the others get 409 or the replay', async () => {
    const org = await createOrganization(h.t);
    h.livekit.delayNext('CreateRoom', 1, 300);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        h.t.http().post('/v1/rooms').set(org.auth).set('Idempotency-Key', 'race').send({ room_name: 'race' }),
      ),
    );
    const created = answers.filter((a) => a.status === 201);
    expect(answers.every((a) => a.status === 201 || a.status === 409)).toBe(true);
    expect(created.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(new Set(created.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.status === 409).length).toBeGreaterThan(0);
    expect(await roomsOf(org.organizationId)).toBe(1);
    const after = await h.t.http().post('/v1/rooms').set(org.auth).set('Idempotency-Key', 'race').send({ room_name: 'race' });
    expect(after.status).toBe(201);
    expect(after.headers['idempotent-replayed']).toBe('true');
  });

  it('scopes keys to the organization: two organizations never share a key, teammates do', async () => {
    const a = await createOrganization(h.t);
    const b = await createOrganization(h.t);
    const ra = await h.t.http().post('/v1/rooms').set(a.auth).set('Idempotency-Key', 'shared').send({ room_name: 'same' });
    const rb = await h.t.http().post('/v1/rooms').set(b.auth).set('Idempotency-Key', 'shared').send({ room_name: 'same' });
    expect([ra.status, rb.status]).toEqual([201, 201]);
    expect(rb.headers['idempotent-replayed']).toBeUndefined();
    expect(rb.body.id).not.toBe(ra.body.id);
    const mate = await createTeammate(h.t, a);
    const rm = await h.t.http().post('/v1/rooms').set(mate.auth).set('Idempotency-Key', 'shared').send({ room_name: 'same' });
    expect(rm.headers['idempotent-replayed']).toBe('true');
    expect(rm.body.id).toBe(ra.body.id);
  });

  it('forgets a key after 24 hours: it runs afresh, and the cleanup deletes expired keys', async () => {
    const org = await createOrganization(h.t);
    const first = await h.t.http().post('/v1/api-keys').set(org.auth).set('Idempotency-Key', 'old').send({ name: 'a' });
    const stale = await h.t.http().post('/v1/api-keys').set(org.auth).set('Idempotency-Key', 'stale').send({ name: 'b' });
    expect([first.status, stale.status]).toEqual([201, 201]);
    // 24 hours later (moved back in time rather than waited for).
    await h.t.db.query(`UPDATE idempotency_keys SET created_at = created_at - interval '24 hours 1 second' WHERE organization_id = $1`, [
      org.organizationId,
    ]);
    const later = await h.t.http().post('/v1/api-keys').set(org.auth).set('Idempotency-Key', 'old').send({ name: 'a' });
    expect(later.status).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.body.id).not.toBe(first.body.id);
    expect(await h.t.app.get(IdempotencyStore).cleanup()).toBeGreaterThanOrEqual(1);
    const keys = (await h.t.db.query(`SELECT key FROM idempotency_keys WHERE organization_id = $1 ORDER BY key`, [org.organizationId])) as {
      key: string;
    }[];
    expect(keys.map((k) => k.key)).toEqual(['old']);
  });
});
