import { QUEUES, TRANSLATOR_JOBS, type RoomGlossaries, type TranslatorDispatchJob } from '@app/contracts';
import IORedis, { type Redis } from 'ioredis';
import { LiveKitPresenceGateway } from '../../../translator-agent/src/dispatch/livekit-presence';
import { PresenceConsumer } from '../../../translator-agent/src/dispatch/presence-consumer';
import { GlossaryFollower } from '../../../translator-agent/src/glossaries/glossary-follower';
import { roomGlossariesOverApi } from '../../../translator-agent/src/tools/room-glossaries-over-api';
import { QueueRegistry } from '../../src/queue/queue.registry';
import { createOrganization, type TestOrganization } from '../support/factories';
import { createRoom, events, settled, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';

/**
 * A room's glossaries reach its translator: with the dispatch, and after each change (entries, the
 * room's list, a default) through the outbox, the translator-presence queue and the agent's presence
 * consumer, to the room's job process (the follower), within the 10 s of extensions.md.
 */
const CHANGE_REACHES_TRANSLATOR_MS = 10_000;

describe('glossary delivery to live translators', () => {
  let h: RoomsHarness;
  let redis: Redis;
  let consumer: PresenceConsumer;
  const followers: GlossaryFollower[] = [];

  beforeAll(async () => {
    h = await startRoomsHarness();
    redis = new IORedis(h.t.config.redisUrl, { maxRetriesPerRequest: null });
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
    consumer = new PresenceConsumer({
      connection: redis,
      prefix: h.t.config.queuePrefix,
      gateway: new LiveKitPresenceGateway(h.livekit.url, h.livekit.apiKey, h.livekit.apiSecret),
      logger: quiet,
    });
    consumer.start();
  });
  afterAll(async () => {
    for (const follower of followers) await follower.close();
    await consumer.close();
    await redis.quit();
    await h.close();
  });

  async function glossary(org: TestOrganization, body: Record<string, unknown>): Promise<string> {
    const res = await h.t.http().post('/v1/glossaries').set(org.auth).send(body).expect(201);
    return res.body.id as string;
  }

  async function addEntry(org: TestOrganization, glossaryId: string, entry: Record<string, unknown>): Promise<void> {
    await h.t.http().post(`/v1/glossaries/${glossaryId}/entries`).set(org.auth).send(entry).expect(201);
  }

  /** A room where an English and a Spanish speaker joined: its translator is dispatched. */
  async function roomWithTranslator(org: TestOrganization, glossaryIds?: string[]) {
    const room = await createRoom(h, org);
    if (glossaryIds) {
      await h.t.http().put(`/v1/rooms/${room.id}/glossaries`).set(org.auth).send({ glossary_ids: glossaryIds }).expect(200);
    }
    await token(h, org, room.name, { languages: ['en'], identity: 'ann' }).expect(201);
    await token(h, org, room.name, { languages: ['es'], identity: 'bea' }).expect(201);
    await webhook(h, events.participantJoined(room.livekitName, { identity: 'ann', sid: 'PA_ann' })).expect(200);
    await webhook(h, events.participantJoined(room.livekitName, { identity: 'bea', sid: 'PA_bea' })).expect(200);
    await settled(h);
    return room;
  }

  async function dispatchOf(roomId: string): Promise<TranslatorDispatchJob> {
    const queue = h.t.app.get(QueueRegistry).queue(QUEUES.translatorPresence);
    const deadline = Date.now() + 5000;
    for (;;) {
      const jobs = await queue.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed']);
      const job = jobs.find((j) => j.name === TRANSLATOR_JOBS.dispatch && (j.data as TranslatorDispatchJob).roomId === roomId);
      if (job) return job.data as TranslatorDispatchJob;
      if (Date.now() > deadline) throw new Error('no dispatch');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** The room's job process: `current()` is the last glossaries it was handed. */
  async function translatorOf(roomId: string) {
    const handed: RoomGlossaries[] = [];
    const follower = new GlossaryFollower({
      redisUrl: h.t.config.redisUrl,
      prefix: h.t.config.queuePrefix,
      roomId,
      onChange: (g) => handed.push(g),
    });
    followers.push(follower);
    await follower.start();
    // What the dispatch carried, once the consumer kept it.
    await until(async () => handed.length > 0);
    return {
      current: () => handed.at(-1),
      /** Waits (at most the spec's 10 s) until what the translator applies says `check`. */
      until: (check: (g: RoomGlossaries) => boolean) =>
        until(async () => handed.length > 0 && check(handed.at(-1)!), CHANGE_REACHES_TRANSLATOR_MS),
    };
  }

  async function until(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Direction A>B: its entries as [source, target]. */
  const pairs = (g: RoomGlossaries | undefined, direction: string) =>
    g?.directions.find((d) => `${d.sourceLanguage}>${d.targetLanguage}` === direction)?.entries.map((e) => [e.source, e.target]);

  it("the dispatch carries the room's glossaries compiled for its pair, both directions, in priority order", async () => {
    const org = await createOrganization(h.t);
    const first = await glossary(org, { name: 'Robots', entries: [{ terms: { en: 'forward', es: 'adelante' } }] });
    const second = await glossary(org, {
      name: 'Brands',
      entries: [{ terms: { en: 'Tenmeter' }, do_not_translate: true, sounds_like: { en: ['ten meters'] } }, { terms: { de: 'vorwärts' } }],
    });
    // More entries than one page of the API holds (200), for translate:file's reading below.
    const bulk = await glossary(org, {
      name: 'Bulk',
      entries: Array.from({ length: 250 }, (_, i) => ({ terms: { en: `part ${i}`, es: `pieza ${i}` } })),
    });
    const room = await roomWithTranslator(org, [second, first, bulk]);

    const dispatch = await dispatchOf(room.id);
    expect(dispatch.languages).toEqual(['en', 'es']);
    expect(pairs(dispatch.glossaries, 'en>es')?.slice(0, 3)).toEqual([
      ['Tenmeter', 'Tenmeter'],
      ['forward', 'adelante'],
      ['part 0', 'pieza 0'],
    ]);
    expect(pairs(dispatch.glossaries, 'en>es')).toHaveLength(252);
    expect(pairs(dispatch.glossaries, 'es>en')?.slice(0, 2)).toEqual([
      ['adelante', 'forward'],
      ['pieza 0', 'part 0'],
    ]);
    expect(dispatch.glossaries.directions[0]?.entries[0]).toMatchObject({ soundsLike: ['ten meters'], priority: 0 });

    // translate:file --room reads them through the API and compiles them the same way.
    const overApi = await roomGlossariesOverApi({
      apiUrl: 'http://api.test',
      apiKey: org.apiKey,
      roomId: room.id,
      languages: ['en', 'es'],
      fetch: (async (url: URL, init: { headers: Record<string, string> }) => {
        const res = await h.t.http().get(`${url.pathname}${url.search}`).set(init.headers);
        return new Response(JSON.stringify(res.body), { status: res.status, headers: { 'content-type': 'application/json' } });
      }) as unknown as typeof fetch,
    });
    expect(overApi.directions).toEqual(dispatch.glossaries.directions);
  });

  it("a change to a live room's glossary, its list or a default reaches its translator within 10 s", async () => {
    const org = await createOrganization(h.t);
    const robots = await glossary(org, { name: 'Robots', default: true, entries: [{ terms: { en: 'forward', es: 'de frente' } }] });
    const room = await roomWithTranslator(org);
    const translator = await translatorOf(room.id);
    expect(pairs(translator.current(), 'en>es')).toEqual([['forward', 'de frente']]);

    // Its entries, replaced from CSV.
    await h.t
      .http()
      .put(`/v1/glossaries/${robots}/entries`)
      .set(org.auth)
      .set('Content-Type', 'text/csv')
      .send('en,es\nforward,adelante\nmeters,metros\n')
      .expect(200);
    await translator.until((g) => pairs(g, 'en>es')?.[0]?.[1] === 'adelante');
    expect(pairs(translator.current(), 'en>es')).toEqual([
      ['forward', 'adelante'],
      ['meters', 'metros'],
    ]);

    // One entry added.
    await addEntry(org, robots, { terms: { en: 'Debian' }, do_not_translate: true });
    await translator.until((g) => pairs(g, 'en>es')?.length === 3);

    // A newer default glossary comes first for a room without a list of its own.
    const brands = await glossary(org, { name: 'Brands', default: true, entries: [{ terms: { en: 'forward', es: 'avance' } }] });
    await translator.until((g) => pairs(g, 'en>es')?.[0]?.[1] === 'avance');

    // Brands no longer a default, then a default again.
    await h.t.http().patch(`/v1/glossaries/${brands}`).set(org.auth).send({ default: false }).expect(200);
    await translator.until((g) => pairs(g, 'en>es')?.[0]?.[1] === 'adelante');
    await h.t.http().patch(`/v1/glossaries/${brands}`).set(org.auth).send({ default: true }).expect(200);
    await translator.until((g) => pairs(g, 'en>es')?.[0]?.[1] === 'avance');

    // The room's own list: only Robots; then none.
    await h.t
      .http()
      .put(`/v1/rooms/${room.id}/glossaries`)
      .set(org.auth)
      .send({ glossary_ids: [robots] })
      .expect(200);
    await translator.until((g) => pairs(g, 'en>es')?.[0]?.[1] === 'adelante');
    await h.t.http().put(`/v1/rooms/${room.id}/glossaries`).set(org.auth).send({ glossary_ids: [] }).expect(200);
    await translator.until((g) => pairs(g, 'en>es')?.length === 0);

    // Both in its own list, then Robots deleted (it leaves the list).
    await h.t
      .http()
      .put(`/v1/rooms/${room.id}/glossaries`)
      .set(org.auth)
      .send({ glossary_ids: [robots, brands] })
      .expect(200);
    await translator.until((g) => pairs(g, 'en>es')?.length === 4);
    await h.t.http().delete(`/v1/glossaries/${robots}`).set(org.auth).expect(204);
    await translator.until((g) => pairs(g, 'en>es')?.length === 1);
    expect(pairs(translator.current(), 'en>es')).toEqual([['forward', 'avance']]);
  });

  it("one change reaches every live room's translator with that room's own glossaries", async () => {
    const org = await createOrganization(h.t);
    const robots = await glossary(org, { name: 'Robots', default: true, entries: [{ terms: { en: 'forward', es: 'adelante' } }] });
    const own = await glossary(org, { name: 'Own', entries: [{ terms: { en: 'meters', es: 'metros' } }] });
    const [byDefault, alsoByDefault] = [await roomWithTranslator(org), await roomWithTranslator(org)];
    const withOwnList = await roomWithTranslator(org, [own]);
    const translators = [await translatorOf(byDefault.id), await translatorOf(alsoByDefault.id), await translatorOf(withOwnList.id)];
    const before = translators.map((t) => t.current()!.version);

    await addEntry(org, robots, { terms: { en: 'Debian' }, do_not_translate: true });
    for (const [i, translator] of translators.entries()) await translator.until((g) => g.version > before[i]!);
    for (const translator of translators.slice(0, 2)) {
      expect(pairs(translator.current(), 'en>es')).toEqual([
        ['forward', 'adelante'],
        ['Debian', 'Debian'],
      ]);
    }
    expect(pairs(translators[2]!.current(), 'en>es')).toEqual([['meters', 'metros']]);
  });

  it("another organization's changes send nothing to this room's translator", async () => {
    const org = await createOrganization(h.t);
    const other = await createOrganization(h.t);
    const ours = await glossary(org, { name: 'Ours', default: true, entries: [{ terms: { en: 'forward', es: 'adelante' } }] });
    const room = await roomWithTranslator(org);
    const translator = await translatorOf(room.id);
    const before = translator.current()?.version;

    await glossary(other, { name: 'Theirs', default: true, entries: [{ terms: { en: 'forward', es: 'avance' } }] });
    // Ours changes afterwards: once that arrived, theirs (sent before, if at all) would have too.
    await addEntry(org, ours, { terms: { en: 'meters', es: 'metros' } });
    await translator.until((g) => g.version > (before ?? 0));
    expect(pairs(translator.current(), 'en>es')).toEqual([
      ['forward', 'adelante'],
      ['meters', 'metros'],
    ]);
  });
});
