import { QUEUES, type TranscriptSegmentReport } from '@app/contracts';
import { Webhook } from 'standardwebhooks';
import { TranscriptReadinessService } from '../../src/modules/transcripts/transcript-readiness.service';
import { QueueRegistry } from '../../src/queue/queue.registry';
import { translatorEventsDrained } from '../support/translator-events';
import { createOrganization, type TestOrganization } from '../support/factories';
import { createRoom, events, settled, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

type Room = Awaited<ReturnType<typeof createRoom>>;

describe('Transcripts', () => {
  let h: RoomsHarness;
  const receivers: WebhookReceiver[] = [];
  beforeAll(async () => {
    h = await startRoomsHarness({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await h.close();
  });

  const t0 = new Date('2026-11-25T10:00:00.000Z');
  const at = (ms: number) => new Date(t0.getTime() + ms).toISOString();
  let jobs = 0;

  function segment(room: Room, over: Partial<TranscriptSegmentReport> = {}): TranscriptSegmentReport {
    return {
      type: 'segment',
      roomId: room.id,
      livekitRoom: room.livekitName,
      at: new Date().toISOString(),
      segmentId: `TR_a-s1-${jobs}`,
      participantIdentity: 'alice',
      language: 'en',
      text: 'hello everyone',
      translation: { language: 'es', text: 'hola a todos' },
      startedAt: at(1_200),
      endedAt: at(3_400),
      ...over,
    };
  }

  /** Sends a report the way the translator agent does: a job on translator-events (each job its own id). */
  async function report(s: TranscriptSegmentReport): Promise<void> {
    jobs += 1;
    await h.t.app.get(QueueRegistry).add(QUEUES.translatorEvents, s.type, s, { jobId: `test.${jobs}.segment.${s.segmentId}` });
  }

  async function storedCount(roomId: string): Promise<number> {
    const [{ n }] = (await h.t.db.query(`SELECT count(*)::int AS n FROM transcript_segments WHERE room_id = $1`, [roomId])) as {
      n: number;
    }[];
    return n;
  }

  const transcript = (org: TestOrganization, roomId: string, query = '') =>
    h.t.http().get(`/v1/rooms/${roomId}/transcript${query}`).set(org.auth);

  describe('settings', () => {
    it('default to storing for 30 days; PUT takes both fields and answers what is now set', async () => {
      const org = await createOrganization(h.t);
      expect((await h.t.http().get('/v1/transcripts/settings').set(org.auth).expect(200)).body).toEqual({
        store: true,
        retention_days: 30,
      });
      const put = await h.t.http().put('/v1/transcripts/settings').set(org.auth).send({ store: false, retention_days: 7 });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({ store: false, retention_days: 7 });
      expect((await h.t.http().get('/v1/transcripts/settings').set(org.auth).expect(200)).body).toEqual({
        store: false,
        retention_days: 7,
      });
    });

    it('422 for a missing field, a non-boolean store or a retention outside 1…3650, and nothing changes', async () => {
      const org = await createOrganization(h.t);
      const put = (body: unknown) =>
        h.t
          .http()
          .put('/v1/transcripts/settings')
          .set(org.auth)
          .send(body as object);
      const missing = await put({ store: true });
      expect(missing.status).toBe(422);
      expect(missing.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'retention_days'], type: 'missing' })]);
      const notBool = await put({ store: 'yes', retention_days: 5 });
      expect(notBool.status).toBe(422);
      expect(notBool.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'store'], type: 'bool_type', input: 'yes' })]);
      for (const days of [0, 3651, 2.5]) {
        const res = await put({ store: true, retention_days: days });
        expect(res.status).toBe(422);
        expect(res.body.detail[0].loc).toEqual(['body', 'retention_days']);
      }
      expect((await h.t.http().get('/v1/transcripts/settings').set(org.auth).expect(200)).body).toEqual({
        store: true,
        retention_days: 30,
      });
    });
  });

  describe('segments', () => {
    it('are stored once per segment id and listed in spoken order across speakers, with both texts', async () => {
      const org = await createOrganization(h.t);
      const room = await createRoom(h, org);
      const alice1 = segment(room, { segmentId: 'alice-1', startedAt: at(1_000), endedAt: at(2_000), text: 'good morning' });
      const bob1 = segment(room, {
        segmentId: 'bob-1',
        participantIdentity: 'bob',
        language: 'es',
        text: 'buenos días',
        translation: { language: 'en', text: 'good morning' },
        startedAt: at(1_500),
        endedAt: at(2_500),
      });
      const alice2 = segment(room, {
        segmentId: 'alice-2',
        startedAt: at(3_000),
        endedAt: at(4_000),
        text: 'how are you',
        translation: null,
      });
      // Reported out of order, and the first one three times (a retried job, a redelivery under another job id).
      for (const s of [alice2, bob1, alice1, alice1, { ...alice1, at: new Date().toISOString() }]) await report(s);
      await translatorEventsDrained(h.t);
      expect(await storedCount(room.id)).toBe(3);

      const res = await transcript(org, room.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        items: [
          {
            id: 'alice-1',
            participant_identity: 'alice',
            language: 'en',
            text: 'good morning',
            translation: { language: 'es', text: 'hola a todos' },
            started_at: at(1_000),
            ended_at: at(2_000),
            committed: null,
          },
          {
            id: 'bob-1',
            participant_identity: 'bob',
            language: 'es',
            text: 'buenos días',
            translation: { language: 'en', text: 'good morning' },
            started_at: at(1_500),
            ended_at: at(2_500),
            committed: null,
          },
          {
            id: 'alice-2',
            participant_identity: 'alice',
            language: 'en',
            text: 'how are you',
            translation: null,
            started_at: at(3_000),
            ended_at: at(4_000),
            committed: null,
          },
        ],
        limit: 50,
        offset: 0,
        next_offset: null,
      });
      const page = await transcript(org, room.id, '?limit=1&offset=1');
      expect(page.body.items.map((s: { id: string }) => s.id)).toEqual(['bob-1']);
      expect(page.body.next_offset).toBe(2);
    });

    it('say which words were translated while spoken and which of them the final recognition revised', async () => {
      const org = await createOrganization(h.t);
      const room = await createRoom(h, org);
      await report(
        segment(room, {
          segmentId: 'revised-1',
          startedAt: at(1_000),
          text: 'had he married',
          translation: { language: 'es', text: 'Addie casado' },
          committed: { text: 'addie married', revisedWords: ['addie'] },
        }),
      );
      await report(segment(room, { segmentId: 'kept-2', startedAt: at(2_000), committed: { text: 'hello everyone', revisedWords: [] } }));
      // An agent older than the field, and one whose committed words are malformed: the line is stored without them.
      await report(segment(room, { segmentId: 'whole-3', startedAt: at(3_000) }));
      await report(segment(room, { segmentId: 'bad-4', startedAt: at(4_000), committed: { text: '', revisedWords: [7] } as never }));
      await translatorEventsDrained(h.t);

      const items = (await transcript(org, room.id).expect(200)).body.items as { id: string; text: string; committed: unknown }[];
      expect(items.map((s) => [s.id, s.text, s.committed])).toEqual([
        ['revised-1', 'had he married', { text: 'addie married', revised_words: ['addie'], revised: true }],
        ['kept-2', 'hello everyone', { text: 'hello everyone', revised_words: [], revised: false }],
        ['whole-3', 'hello everyone', null],
        ['bad-4', 'hello everyone', null],
      ]);
      const [row] = (await h.t.db.query(
        `SELECT committed_text, revised_words FROM transcript_segments WHERE room_id = $1 AND segment_id = 'revised-1'`,
        [room.id],
      )) as { committed_text: string; revised_words: string[] }[];
      expect(row).toEqual({ committed_text: 'addie married', revised_words: ['addie'] });
    });

    it('orders segments that start in the same millisecond by id', async () => {
      const org = await createOrganization(h.t);
      const room = await createRoom(h, org);
      for (const id of ['b', 'c', 'a']) await report(segment(room, { segmentId: id, startedAt: at(500), endedAt: at(900) }));
      await translatorEventsDrained(h.t);
      expect((await transcript(org, room.id)).body.items.map((s: { id: string }) => s.id)).toEqual(['a', 'b', 'c']);
    });

    it('are not written at all while the organization has storing off', async () => {
      const org = await createOrganization(h.t);
      const room = await createRoom(h, org);
      await h.t.http().put('/v1/transcripts/settings').set(org.auth).send({ store: false, retention_days: 30 }).expect(200);
      await report(segment(room, { segmentId: 'off-1' }));
      await translatorEventsDrained(h.t);
      expect(await storedCount(room.id)).toBe(0);
      await h.t.http().put('/v1/transcripts/settings').set(org.auth).send({ store: true, retention_days: 30 }).expect(200);
      await report(segment(room, { segmentId: 'on-1' }));
      await translatorEventsDrained(h.t);
      expect(await storedCount(room.id)).toBe(1);
    });

    it('erase: 204 and an empty list, 204 again, and a live room keeps later segments again', async () => {
      const org = await createOrganization(h.t);
      const room = await createRoom(h, org);
      await report(segment(room, { segmentId: 'e-1' }));
      await translatorEventsDrained(h.t);
      expect((await transcript(org, room.id)).body.items).toHaveLength(1);
      await h.t.http().delete(`/v1/rooms/${room.id}/transcript`).set(org.auth).expect(204);
      expect((await transcript(org, room.id)).body.items).toEqual([]);
      await h.t.http().delete(`/v1/rooms/${room.id}/transcript`).set(org.auth).expect(204);
      await report(segment(room, { segmentId: 'e-2' }));
      await translatorEventsDrained(h.t);
      expect((await transcript(org, room.id)).body.items.map((s: { id: string }) => s.id)).toEqual(['e-2']);
    });

    it("retention: segments older than the organization's retention_days are gone after the sweep, younger ones and other organizations' stay", async () => {
      const [short, long] = [await createOrganization(h.t), await createOrganization(h.t)];
      await h.t.http().put('/v1/transcripts/settings').set(short.auth).send({ store: true, retention_days: 2 }).expect(200);
      const [a, b] = [await createRoom(h, short), await createRoom(h, long)];
      const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString();
      await report(segment(a, { segmentId: 'old', startedAt: daysAgo(3), endedAt: daysAgo(3) }));
      await report(segment(a, { segmentId: 'young', startedAt: daysAgo(1), endedAt: daysAgo(1) }));
      await report(segment(b, { segmentId: 'old-but-kept', startedAt: daysAgo(3), endedAt: daysAgo(3) }));
      await translatorEventsDrained(h.t);
      expect(await h.t.app.get(TranscriptReadinessService).deleteExpired()).toBeGreaterThanOrEqual(1);
      expect((await transcript(short, a.id)).body.items.map((s: { id: string }) => s.id)).toEqual(['young']);
      expect((await transcript(long, b.id)).body.items.map((s: { id: string }) => s.id)).toEqual(['old-but-kept']);
    });
  });

  describe('exports', () => {
    async function startedRoomWithSegments(org: TestOrganization) {
      const room = await createRoom(h, org);
      await token(h, org, room.name, { languages: ['en'] }).expect(201);
      await token(h, org, room.name, { languages: ['es'] }).expect(201);
      const joined = Math.floor(t0.getTime() / 1000);
      await webhook(
        h,
        events.participantJoined(room.livekitName, { identity: 'alice', sid: 'PA_alice', joinedAt: String(joined) }, { createdAt: joined }),
      ).expect(200);
      await settled(h);
      await report(
        segment(room, {
          segmentId: 's1',
          startedAt: at(1_200),
          endedAt: at(3_400),
          text: 'hello everyone',
          translation: { language: 'es', text: 'hola a todos' },
        }),
      );
      await report(
        segment(room, {
          segmentId: 's2',
          participantIdentity: 'bob',
          language: 'es',
          text: 'buenos días',
          translation: { language: 'en', text: 'good morning' },
          startedAt: at(3_723_045),
          endedAt: at(3_725_000),
        }),
      );
      await report(
        segment(room, { segmentId: 's3', startedAt: at(3_800_000), endedAt: at(3_801_000), text: 'untranslated', translation: null }),
      );
      await translatorEventsDrained(h.t);
      return room;
    }

    it('WebVTT: cue times from the room start, the speaker as a voice tag, as spoken or in one language', async () => {
      const org = await createOrganization(h.t);
      const room = await startedRoomWithSegments(org);
      const vtt = await transcript(org, room.id, '?format=vtt');
      expect(vtt.status).toBe(200);
      expect(vtt.headers['content-type']).toBe('text/vtt; charset=utf-8');
      expect(vtt.text).toBe(
        'WEBVTT\n\n00:00:01.200 --> 00:00:03.400\n<v alice>hello everyone\n\n01:02:03.045 --> 01:02:05.000\n<v bob>buenos días\n\n01:03:20.000 --> 01:03:21.000\n<v alice>untranslated\n',
      );
      const spanish = await transcript(org, room.id, '?format=vtt&language=es');
      expect(spanish.text).toBe(
        'WEBVTT\n\n00:00:01.200 --> 00:00:03.400\n<v alice>hola a todos\n\n01:02:03.045 --> 01:02:05.000\n<v bob>buenos días\n',
      );
    });

    it('SRT: numbered cues with the speaker as a prefix', async () => {
      const org = await createOrganization(h.t);
      const room = await startedRoomWithSegments(org);
      const srt = await transcript(org, room.id, '?format=srt&language=en');
      expect(srt.status).toBe(200);
      expect(srt.headers['content-type']).toBe('application/x-subrip; charset=utf-8');
      expect(srt.text).toBe(
        '1\n00:00:01,200 --> 00:00:03,400\nalice: hello everyone\n\n2\n01:02:03,045 --> 01:02:05,000\nbob: good morning\n\n3\n01:03:20,000 --> 01:03:21,000\nalice: untranslated\n',
      );
    });

    it('a room that never started counts from its first segment; an empty transcript is the header alone', async () => {
      const org = await createOrganization(h.t);
      const room = await createRoom(h, org);
      expect((await transcript(org, room.id, '?format=vtt')).text).toBe('WEBVTT\n');
      const empty = await transcript(org, room.id, '?format=srt');
      expect(empty.status).toBe(200);
      expect(empty.text).toBe('');
      await report(segment(room, { segmentId: 'first', startedAt: at(10_000), endedAt: at(12_500) }));
      await translatorEventsDrained(h.t);
      expect((await transcript(org, room.id, '?format=srt')).text).toBe('1\n00:00:00,000 --> 00:00:02,500\nalice: hello everyone\n');
    });

    it('422 for a language the room never held and for an unknown format', async () => {
      const org = await createOrganization(h.t);
      const room = await startedRoomWithSegments(org);
      const notHeld = await transcript(org, room.id, '?format=vtt&language=de');
      expect(notHeld.status).toBe(422);
      expect(notHeld.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'language'], input: 'de' })]);
      const format = await transcript(org, room.id, '?format=docx');
      expect(format.status).toBe(422);
      expect(format.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'format'], type: 'enum', input: 'docx' })]);
    });
  });

  it("another organization's room, or an unknown one: 404 on every transcript route", async () => {
    const [owner, other] = [await createOrganization(h.t), await createOrganization(h.t)];
    const room = await createRoom(h, owner);
    await report(segment(room, { segmentId: 'private' }));
    await translatorEventsDrained(h.t);
    for (const id of [room.id, '00000000-0000-4000-8000-000000000000']) {
      expect((await transcript(other, id)).status).toBe(404);
      expect((await transcript(other, id, '?format=vtt')).status).toBe(404);
      expect((await h.t.http().delete(`/v1/rooms/${id}/transcript`).set(other.auth)).status).toBe(404);
    }
    expect(await storedCount(room.id)).toBe(1);
  });

  describe('transcript.ready', () => {
    async function receiver(): Promise<WebhookReceiver> {
      const r = await startWebhookReceiver();
      receivers.push(r);
      return r;
    }

    async function register(org: TestOrganization, url: string) {
      const res = await h.t
        .http()
        .post('/v1/webhook-endpoints')
        .set(org.auth)
        .send({ url, events: ['transcript.ready'] });
      expect(res.status).toBe(201);
      return res.body as { id: string; secret: string };
    }

    async function endRoom(room: Room) {
      const now = Math.floor(Date.now() / 1000);
      await webhook(
        h,
        events.participantJoined(
          room.livekitName,
          { identity: 'translator-1', sid: 'PA_agent', kind: 'AGENT', joinedAt: String(now - 30) },
          { createdAt: now - 30 },
        ),
      ).expect(200);
      await webhook(h, events.roomFinished(room.livekitName, { createdAt: now })).expect(200);
      await settled(h);
    }

    it('is sent once after the end and the translator leaving; segments until then are stored, later ones are not', async () => {
      const org = await createOrganization(h.t);
      const r = await receiver();
      const endpoint = await register(org, r.url);
      const room = await createRoom(h, org);
      const base = { roomId: room.id, livekitRoom: room.livekitName };
      await h.t.app
        .get(QueueRegistry)
        .add(
          QUEUES.translatorEvents,
          'joined',
          { type: 'joined', ...base, at: new Date().toISOString() },
          { jobId: `ready.${room.id}.joined` },
        );
      await report(segment(room, { segmentId: 'r-1' }));
      await endRoom(room);
      // The translator is still draining: its last segment comes after the end, and is kept.
      await report(segment(room, { segmentId: 'r-2', startedAt: at(5_000), endedAt: at(6_000), translation: null }));
      await translatorEventsDrained(h.t);
      expect(await h.t.app.get(TranscriptReadinessService).closeDue()).toBe(0); // the translator has not left yet
      await h.t.app
        .get(QueueRegistry)
        .add(QUEUES.translatorEvents, 'left', { type: 'left', ...base, at: new Date().toISOString() }, { jobId: `ready.${room.id}.left` });
      await translatorEventsDrained(h.t);

      const [ready] = await r.waitFor((all) => all.some((x) => x.event.type === 'transcript.ready'));
      const payload = new Webhook(endpoint.secret).verify(ready.body, {
        'webhook-id': String(ready.headers['webhook-id']),
        'webhook-timestamp': String(ready.headers['webhook-timestamp']),
        'webhook-signature': String(ready.headers['webhook-signature']),
      }) as { type: string; data: Record<string, unknown> };
      const detail = (await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth).expect(200)).body;
      expect(payload.type).toBe('transcript.ready');
      expect(payload.data).toEqual({
        room_id: room.id,
        room: room.name,
        segments: 2,
        languages: ['en', 'es'],
        started_at: detail.started_at,
        ended_at: detail.ended_at,
      });

      // Closed: a segment reported now is not stored, and nothing is sent again.
      await report(segment(room, { segmentId: 'r-3', startedAt: at(7_000), endedAt: at(8_000) }));
      await translatorEventsDrained(h.t);
      expect(await storedCount(room.id)).toBe(2);
      expect(await h.t.app.get(TranscriptReadinessService).closeDue()).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(r.received.filter((x) => x.event.type === 'transcript.ready')).toHaveLength(1);
    });

    it('60 s after the end even when the translator never reports leaving; never for a room without segments', async () => {
      const org = await createOrganization(h.t);
      const r = await receiver();
      await register(org, r.url);
      const [spoken, silent] = [await createRoom(h, org), await createRoom(h, org)];
      for (const room of [spoken, silent]) {
        await h.t.app
          .get(QueueRegistry)
          .add(
            QUEUES.translatorEvents,
            'joined',
            { type: 'joined', roomId: room.id, livekitRoom: room.livekitName, at: new Date().toISOString() },
            { jobId: `grace.${room.id}.joined` },
          );
      }
      await report(segment(spoken, { segmentId: 'g-1' }));
      await translatorEventsDrained(h.t);
      for (const room of [spoken, silent]) await endRoom(room);
      expect(await h.t.app.get(TranscriptReadinessService).closeDue()).toBe(0);
      await h.t.db.query(`UPDATE rooms SET ended_at = ended_at - interval '61 seconds' WHERE id = ANY($1)`, [[spoken.id, silent.id]]);
      const received = await r.waitFor((all) => all.some((x) => x.event.type === 'transcript.ready'));
      expect(received.filter((x) => x.event.type === 'transcript.ready').map((x) => x.event.data.room_id)).toEqual([spoken.id]);
      const [{ closed }] = (await h.t.db.query(
        `SELECT count(*)::int AS closed FROM rooms WHERE id = ANY($1) AND transcript_closed_at IS NOT NULL`,
        [[spoken.id, silent.id]],
      )) as { closed: number }[];
      expect(closed).toBe(2);
    });
  });
});
