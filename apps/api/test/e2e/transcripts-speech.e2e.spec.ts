import { initializeLogger } from '@livekit/agents';
import { dispose } from '@livekit/rtc-node';
import { goForward, librivoxClip, reportRecordedRoom } from '../../../translator-agent/test/support/recorded-room';
import { translatorEventsDrained } from '../support/translator-events';
import { createOrganization } from '../support/factories';
import { createRoom, events, settled, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';

/**
 * Real speech end to end: Debian's recorded LibriVox clip and "go forward ten meters" spoken into a
 * room, heard by the translator's own RoomTranslator on the local pipeline (PocketSphinx → Apertium),
 * reported through its TranslatorEventsReporter onto translator-events, stored by the API, and read
 * back as JSON, WebVTT and SRT.
 */
describe('a transcript of recorded speech, through the translator’s reporting code', () => {
  let h: RoomsHarness;
  beforeAll(async () => {
    initializeLogger({ pretty: false, level: 'error' });
    h = await startRoomsHarness();
  });
  afterAll(async () => {
    await h.close();
    await dispose();
  });

  it('stores what alice said with its Spanish translation, exported per language with cue times from the room start', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    await token(h, org, room.name, { identity: 'alice', languages: ['en'] }).expect(201);
    await token(h, org, room.name, { identity: 'bruno', languages: ['es'] }).expect(201);
    const startedAt = Math.floor(Date.now() / 1000);
    await webhook(
      h,
      events.participantJoined(
        room.livekitName,
        { identity: 'alice', sid: 'PA_alice', joinedAt: String(startedAt) },
        { createdAt: startedAt },
      ),
    ).expect(200);
    await settled(h);

    const { reports, errors } = await reportRecordedRoom({
      roomId: room.id,
      livekitRoom: room.livekitName,
      languages: ['en', 'es'],
      queuePrefix: h.t.config.queuePrefix,
      redisUrl: h.t.config.redisUrl,
      paced: true,
      speakers: [{ identity: 'alice', languages: ['en'], utterances: [librivoxClip('0880'), goForward()] }],
    });
    expect(errors).toEqual([]);
    expect(reports).toHaveLength(2);
    await translatorEventsDrained(h.t);

    const json = await h.t.http().get(`/v1/rooms/${room.id}/transcript`).set(org.auth);
    expect(json.status).toBe(200);
    const segments = json.body.items as {
      id: string;
      participant_identity: string;
      language: string;
      text: string;
      translation: { language: string; text: string } | null;
      started_at: string;
      ended_at: string;
    }[];
    expect(segments.map((s) => s.id)).toEqual(reports.map((r) => r.segmentId));
    expect(segments.map((s) => [s.participant_identity, s.language, s.translation?.language])).toEqual([
      ['alice', 'en', 'es'],
      ['alice', 'en', 'es'],
    ]);
    expect(segments[0].text).toMatch(/young man/);
    expect(segments[0].translation?.text).toMatch(/hombre/);
    expect(segments[1].text).toMatch(/forward ten meters/);
    expect(segments[1].translation?.text).toMatch(/metros/);
    for (const s of segments) expect(Date.parse(s.started_at)).toBeLessThan(Date.parse(s.ended_at));
    expect(Date.parse(segments[0].ended_at)).toBeLessThanOrEqual(Date.parse(segments[1].started_at));

    // Cue times count from the room's start (alice's join).
    const roomStart = Date.parse((await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth).expect(200)).body.started_at);
    const cue = (ms: number, separator: string) => {
      const whole = Math.round(ms);
      const two = (n: number) => String(n).padStart(2, '0');
      return `${two(Math.floor(whole / 3_600_000))}:${two(Math.floor(whole / 60_000) % 60)}:${two(Math.floor(whole / 1000) % 60)}${separator}${String(whole % 1000).padStart(3, '0')}`;
    };
    const times = (s: (typeof segments)[number], separator: string) =>
      `${cue(Date.parse(s.started_at) - roomStart, separator)} --> ${cue(Date.parse(s.ended_at) - roomStart, separator)}`;

    const vtt = await h.t.http().get(`/v1/rooms/${room.id}/transcript?format=vtt`).set(org.auth);
    expect(vtt.status).toBe(200);
    expect(vtt.headers['content-type']).toBe('text/vtt; charset=utf-8');
    expect(vtt.text).toBe(`WEBVTT\n\n${segments.map((s) => `${times(s, '.')}\n<v alice>${s.text}\n`).join('\n')}`);

    const spanish = await h.t.http().get(`/v1/rooms/${room.id}/transcript?format=srt&language=es`).set(org.auth);
    expect(spanish.status).toBe(200);
    expect(spanish.headers['content-type']).toBe('application/x-subrip; charset=utf-8');
    expect(spanish.text).toBe(segments.map((s, i) => `${i + 1}\n${times(s, ',')}\nalice: ${s.translation?.text}\n`).join('\n'));
  }, 120_000);
});
