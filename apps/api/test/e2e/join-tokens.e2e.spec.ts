import { issueKinds } from '../support/issue-kinds';
import { TokenVerifier } from 'livekit-server-sdk';
import { createOrganization } from '../support/factories';
import { createRoom, events, settled, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';

describe('join tokens', () => {
  let h: RoomsHarness;
  beforeAll(async () => {
    h = await startRoomsHarness();
  });
  afterAll(async () => h.close());

  it('issues a LiveKit token for the internal room, carrying identity, name, languages and kind', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org, { room_name: 'sales-call' });
    const res = await token(h, org, 'sales-call', { languages: ['en'], identity: 'alice', name: 'Alice' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      token: expect.any(String),
      url: h.t.config.livekit.url,
      room: 'sales-call',
      identity: 'alice',
      languages: ['en'],
      streaming_mode: 'dual',
      expires_at: expect.any(String),
    });
    const claims = await new TokenVerifier(h.livekit.apiKey, h.livekit.apiSecret).verify(res.body.token);
    expect(claims.sub).toBe('alice');
    expect(claims.name).toBe('Alice');
    expect(claims.video?.room).toBe(room.livekitName);
    expect(claims.video?.roomJoin).toBe(true);
    expect(JSON.parse(claims.metadata ?? '{}')).toMatchObject({ languages: ['en'], kind: 'member' });
    expect(new Date(res.body.expires_at).getTime()).toBe((claims.exp ?? 0) * 1000);
  });

  it.each(['alice@example.com', 'Ann Lee', 'user:42/ü', 'x'.repeat(128)])(
    'accepts any identity of 1 to 128 characters: %j',
    async (identity) => {
      const org = await createOrganization(h.t);
      const room = await createRoom(h, org);
      const res = await token(h, org, room.name, { languages: ['en'], identity });
      expect(res.status).toBe(201);
      expect(res.body.identity).toBe(identity);
      const claims = await new TokenVerifier(h.livekit.apiKey, h.livekit.apiSecret).verify(res.body.token);
      expect(claims.sub).toBe(identity);
    },
  );

  it('answers a room name with a NUL character 422, not a server error', async () => {
    const org = await createOrganization(h.t);
    const res = await h.t
      .http()
      .post('/v1/rooms/a%00b/token')
      .set(org.auth)
      .send({ languages: ['en'] });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ loc: ['path', 'room_name'], type: 'string_pattern_mismatch', input: 'a\u0000b' }),
    ]);
  });

  it('takes an empty display name as none', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const res = await token(h, org, room.name, { languages: ['en'], identity: 'nameless', name: '' });
    expect(res.status).toBe(201);
    const claims = await new TokenVerifier(h.livekit.apiKey, h.livekit.apiSecret).verify(res.body.token);
    expect(claims.name).toBeUndefined();
    expect((await token(h, org, room.name, { languages: ['en'], name: 'n'.repeat(129) })).status).toBe(422);
  });

  it('generates an identity when none is sent', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const a = await token(h, org, room.name, { languages: ['en', 'fr'] });
    const b = await token(h, org, room.name, { languages: ['en', 'fr'] });
    expect(a.body.identity).not.toBe(b.body.identity);
    expect(a.body.streaming_mode).toBe('mono');
  });

  it('fixes the mode with the first token and answers 409 to a token that does not match it', async () => {
    const org = await createOrganization(h.t);
    const dual = await createRoom(h, org);
    expect((await token(h, org, dual.name, { languages: ['en'] })).body.streaming_mode).toBe('dual');
    const mismatch = await token(h, org, dual.name, { languages: ['en', 'de'] });
    expect(mismatch.status).toBe(409);
    expect(mismatch.body.detail).toMatch(/dual/);

    const mono = await createRoom(h, org, { streaming_mode: 'mono' });
    expect((await token(h, org, mono.name, { languages: ['en'] })).status).toBe(409);
    expect((await token(h, org, mono.name, { languages: ['en', 'de'] })).status).toBe(201);
  });

  it('gives 20 concurrent first tokens, half mono-shaped and half dual-shaped, one mode', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => token(h, org, room.name, { languages: i % 2 === 0 ? ['en', 'de'] : ['en'], identity: `p${i}` })),
    );
    const ok = answers.filter((a) => a.status === 201);
    const modes = new Set(ok.map((a) => a.body.streaming_mode));
    expect(modes.size).toBe(1);
    expect(ok).toHaveLength(10);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(10);
    const detail = await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth);
    expect(detail.body.streaming_mode).toBe([...modes][0]);
  });

  it('never lets concurrent tokens bring a third language; the losers get 409', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    expect((await token(h, org, room.name, { languages: ['en'], identity: 'host' })).status).toBe(201);
    const candidates = ['de', 'fr', 'es', 'it', 'ja', 'ko'];
    const answers = await Promise.all(candidates.map((code, i) => token(h, org, room.name, { languages: [code], identity: `guest${i}` })));
    const winners = answers.filter((a) => a.status === 201);
    expect(winners).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(candidates.length - 1);
    // the room holds en + the winner's language; the same pair is still welcome
    expect((await token(h, org, room.name, { languages: winners[0].body.languages, identity: 'late' })).status).toBe(201);
  });

  it('admits tokens for held languages side by side while refusing new ones, under concurrency', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    await token(h, org, room.name, { languages: ['en'], identity: 'host' }).expect(201);
    await token(h, org, room.name, { languages: ['de'], identity: 'guest' }).expect(201);
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        token(h, org, room.name, { languages: [i % 3 === 0 ? 'fr' : i % 3 === 1 ? 'en' : 'de'], identity: `p${i}` }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(16);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(8);
    for (const a of answers.filter((x) => x.status === 201)) expect(a.body).toMatchObject({ streaming_mode: 'dual', room: room.name });
    const [{ held }] = (await h.t.db.query(
      `SELECT array_agg(DISTINCT l ORDER BY l) AS held FROM room_tokens t, unnest(t.languages) l WHERE t.room_id = $1`,
      [room.id],
    )) as { held: string[] }[];
    expect(held).toEqual(['de', 'en']);
    // a mono room admits a held pair, and answers 409 to one language
    const mono = await createRoom(h, org, { streaming_mode: 'mono' });
    await token(h, org, mono.name, { languages: ['en', 'ja'], identity: 'a' }).expect(201);
    const monoAnswers = await Promise.all([
      token(h, org, mono.name, { languages: ['ja', 'en'], identity: 'b' }),
      token(h, org, mono.name, { languages: ['en'], identity: 'c' }),
    ]);
    expect(monoAnswers.map((a) => a.status)).toEqual([201, 409]);
  });

  it('gives each of many tokens decided together its own answer, across rooms and organizations', async () => {
    const [one, two] = [await createOrganization(h.t), await createOrganization(h.t)];
    const dual = await createRoom(h, one);
    const mono = await createRoom(h, one, { streaming_mode: 'mono' });
    // the same room name in the other organization, holding other languages
    const twin = await createRoom(h, two, { room_name: dual.name });
    await token(h, one, dual.name, { languages: ['en'], identity: 'e' }).expect(201);
    await token(h, one, dual.name, { languages: ['de'], identity: 'd' }).expect(201);
    await token(h, one, mono.name, { languages: ['en', 'ja'], identity: 'm' }).expect(201);
    await token(h, two, twin.name, { languages: ['fr'], identity: 'f' }).expect(201);
    await token(h, two, twin.name, { languages: ['es'], identity: 's' }).expect(201);
    const asks = [
      { org: one, room: dual.name, languages: ['en'], want: 201 },
      { org: two, room: twin.name, languages: ['en'], want: 409 }, // a third language there
      { org: one, room: 'nowhere', languages: ['en'], want: 404 },
      { org: one, room: mono.name, languages: ['ja', 'en'], want: 201 },
      { org: two, room: twin.name, languages: ['es'], want: 201 },
      { org: one, room: mono.name, languages: ['en'], want: 409 }, // one language in a mono room
      { org: one, room: dual.name, languages: ['de'], want: 201 },
      { org: one, room: dual.name, languages: ['fr'], want: 409 },
      { org: two, room: twin.name, languages: ['fr'], want: 201 },
      { org: one, room: 'nowhere', languages: ['de'], want: 404 },
    ].flatMap((ask) => [ask, ask, ask]);
    // Hold the reservations table while the requests arrive, so their admissions queue up and are decided together.
    const holder = h.t.db.createQueryRunner();
    await holder.startTransaction();
    await holder.query(`LOCK TABLE room_tokens IN EXCLUSIVE MODE`);
    const pending = Promise.all(
      asks.map(({ org, room, languages }, i) => token(h, org, room, { languages, identity: `ask-${i}` }).then((res) => res)),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await holder.commitTransaction();
    await holder.release();
    const answers = await pending;
    expect(answers.map((res) => res.status)).toEqual(asks.map((ask) => ask.want));
    const livekitNames = new Map([
      [`${one.organizationId}/${dual.name}`, dual.livekitName],
      [`${one.organizationId}/${mono.name}`, mono.livekitName],
      [`${two.organizationId}/${twin.name}`, twin.livekitName],
    ]);
    const verifier = new TokenVerifier(h.livekit.apiKey, h.livekit.apiSecret);
    for (const [i, res] of answers.entries()) {
      if (res.status !== 201) continue;
      expect(res.body).toMatchObject({ room: asks[i].room, identity: `ask-${i}`, languages: asks[i].languages });
      const claims = await verifier.verify(res.body.token as string);
      expect(claims.video?.room).toBe(livekitNames.get(`${asks[i].org.organizationId}/${asks[i].room}`));
    }
    const reserved = (await h.t.db.query(
      `SELECT t.identity, r.organization_id FROM room_tokens t JOIN rooms r ON r.id = t.room_id WHERE t.identity LIKE 'ask-%' ORDER BY t.identity`,
    )) as { identity: string; organization_id: string }[];
    const admitted = asks.flatMap((ask, i) =>
      ask.want === 201 ? [{ identity: `ask-${i}`, organization_id: ask.org.organizationId }] : [],
    );
    expect(reserved).toEqual(admitted.sort((a, b) => a.identity.localeCompare(b.identity)));
  });

  it('releases the languages of tokens never used once the reservation lapses, and of people who left', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    await token(h, org, room.name, { languages: ['en'], identity: 'a' }).expect(201);
    await token(h, org, room.name, { languages: ['de'], identity: 'b' }).expect(201);
    expect((await token(h, org, room.name, { languages: ['fr'], identity: 'c' })).status).toBe(409);
    // a connects and leaves; b's token lapses unused
    await webhook(h, events.participantJoined(room.livekitName, { identity: 'a', sid: 'PA_a1' })).expect(200);
    await webhook(h, events.participantLeft(room.livekitName, { identity: 'a', sid: 'PA_a1' })).expect(200);
    await settled(h);
    await h.t.db.query(`UPDATE room_tokens SET reserved_until = now() - interval '1 second' WHERE room_id = $1`, [room.id]);
    expect((await token(h, org, room.name, { languages: ['fr'], identity: 'c' })).status).toBe(201);
  });

  it('answers 404 for a name without a live room, including an ended one', async () => {
    const org = await createOrganization(h.t);
    expect((await token(h, org, 'nowhere', { languages: ['en'] })).status).toBe(404);
    const room = await createRoom(h, org);
    await h.t.http().delete(`/v1/rooms/${room.id}`).set(org.auth).expect(204);
    const res = await token(h, org, room.name, { languages: ['en'] });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });

  it.each([
    [{}, [['body.languages', 'missing']]],
    [{ languages: 'en' }, [['body.languages', 'list_type']]],
    [{ languages: [] }, [['body.languages', 'too_short']]],
    [{ languages: ['en', 'de', 'fr'] }, [['body.languages', 'too_long']]],
    [{ languages: ['en', 'xx'] }, [['body.languages.1', 'unsupported_language']]],
    [{ languages: ['en', 'en'] }, [['body.languages.1', 'duplicate_language']]],
    [{ languages: ['en'], identity: 'a\u0000b' }, [['body.identity', 'string_pattern_mismatch']]],
    [{ languages: null }, [['body.languages', 'list_type']]],
    [
      { languages: ['en', 5, null] },
      [
        ['body.languages.1', 'string_type'],
        ['body.languages.2', 'string_type'],
      ],
    ],
    [
      { languages: ['zz'], identity: 'x'.repeat(129) },
      [
        ['body.languages.0', 'unsupported_language'],
        ['body.identity', 'string_too_long'],
      ],
    ],
  ])('rejects %j with 422 and issues nothing', async (body, expected) => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const res = await token(h, org, room.name, body);
    expect(res.status).toBe(422);
    expect(issueKinds(res)).toEqual(expected);
    const [{ n }] = (await h.t.db.query(`SELECT count(*)::int AS n FROM room_tokens WHERE room_id = $1`, [room.id])) as { n: number }[];
    expect(n).toBe(0);
    expect((await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth)).body.streaming_mode).toBeNull();
  });
});
