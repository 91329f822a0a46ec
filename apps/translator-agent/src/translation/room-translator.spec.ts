/**
 * RoomTranslator on recorded speech through the local engines. One file of a little over 300 lines
 * on purpose: its cases share one set of local engines (PocketSphinx, Apertium and eSpeak NG processes,
 * seconds of start-up on two cores) and one room runner, which a split would start again per file.
 */
import { QUEUES, type TranslatorEventJob } from '@app/contracts';
import { initializeLogger } from '@livekit/agents';
import { dispose } from '@livekit/rtc-node';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { englishSpanishIn, FakeRoom, recordAudio, trackFrames as speech, type SentText } from '../../test/support/fake-room';
import { goForward, librivoxClips, localProviders, YOUNG_MAN_IN_SPANISH } from '../../test/support/local-speech';
import { deleteQueueKeys, reportRecordedRoom } from '../../test/support/recorded-room';
import type { PcmAudio } from '../tools/wav';
import { ATTR, CAPTION_ATTR, TRANSCRIPTION_TOPIC } from './captions';
import { LocalAdmission, StreamBudget, type StreamAdmission } from '../capacity/stream-budget';
import { AgentMetrics } from '../metrics/agent-metrics';
import { LatencyTracker } from './latency-tracker';
import { realtimeCoverage, stagesCoverage } from './direction-plan';
import { roomSupport } from './room-support';
import { OUTPUT_SAMPLE_RATE, RoomTranslator, type SegmentReporter } from './room-translator';
import type { SpeechProviders } from './speech-providers';

initializeLogger({ pretty: false, level: 'error' });

const captions = (texts: SentText[], kind: string) => texts.filter((t) => t.attributes[CAPTION_ATTR.kind] === kind);

describe('RoomTranslator on recorded speech (local pipeline, real AudioSource tracks)', () => {
  let providers: SpeechProviders;
  const errors: unknown[] = [];
  const clips = librivoxClips();
  const clip = (suffix: string) => clips.find((c) => c.id.endsWith(suffix))!.audio;

  beforeAll(() => {
    providers = localProviders((e) => errors.push(e));
  });
  afterAll(async () => {
    await providers.close?.();
    await dispose();
  });

  async function runRoom(
    mode: 'mono' | 'dual',
    speakers: { identity: string; languages: string[]; trackSid: string; audio: PcmAudio }[],
    extra: { admission?: StreamAdmission; observer?: AgentMetrics; reporter?: SegmentReporter } = {},
  ) {
    const room = new FakeRoom();
    const audio = recordAudio();
    let services = new Map<string, string>();
    const translator = new RoomTranslator({
      ...extra,
      room: room.asRoom(),
      mode,
      languages: ['en', 'es'],
      providers,
      latency: new LatencyTracker(),
      onError: (e) => errors.push(e),
      listenTo: room.listenTo,
    });
    try {
      translator.listen();
      // Speakers are heard before the agent's tracks are published: their translations must wait, not vanish.
      for (const s of speakers) room.speak(room.join(s.identity, s.languages), s.trackSid, speech(s.audio));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await translator.publish();
      await translator.settled();
      services = translator.services();
      await translator.close();
    } finally {
      audio.restore();
    }
    return { room, audio, services };
  }

  it('a room that grows past the worker capacity keeps captions for every speaker; the newest gets no speech', async () => {
    const budget = new StreamBudget(1);
    const metrics = new AgentMetrics();
    const { room, audio, services } = await runRoom(
      'dual',
      [
        { identity: 'ana', languages: ['en'], trackSid: 'TR_ana', audio: clip('0880') },
        { identity: 'bob', languages: ['en'], trackSid: 'TR_bob', audio: goForward() },
      ],
      { admission: new LocalAdmission(budget), observer: metrics },
    );
    expect(Object.fromEntries(services)).toEqual({ TR_ana: 'full', TR_bob: 'captions' });
    // Captions for both: what each said, and its translation.
    const finals = captions(room.texts, 'transcript').filter((t) => t.attributes[ATTR.final] === 'true');
    expect(new Set(finals.map((t) => t.senderIdentity))).toEqual(new Set(['ana', 'bob']));
    const translations = captions(room.texts, 'translation');
    expect(translations.find((t) => t.senderIdentity === 'ana')?.text).toMatch(YOUNG_MAN_IN_SPANISH);
    expect(translations.find((t) => t.senderIdentity === 'bob')?.text).toMatch(/diez metros/i);
    // Speech for the admitted speaker only: one utterance spoken, bob's one captioned instead.
    expect(audio.seconds.get('es')).toBeGreaterThan(1);
    const firstAudio = (await metrics.firstAudioSeconds.get()).values.find((v) => v.metricName === 'translator_first_audio_seconds_count');
    expect(firstAudio?.value).toBe(1);
    const dropped = (await metrics.utterances.get()).values;
    expect(dropped).toEqual([expect.objectContaining({ labels: { outcome: 'dropped', reason: 'captions_only' }, value: 1 })]);
    // Both streams ended: the worker's places are free again.
    expect(budget.load).toBe(0);
  }, 120_000);

  it('dual: the English speaker is spoken in Spanish with captions on her behalf; the Spanish speaker, whom the local pipeline cannot hear, is only captioned', async () => {
    const { room, audio } = await runRoom('dual', [
      { identity: 'ana', languages: ['en'], trackSid: 'TR_ana', audio: clip('0880') },
      { identity: 'beto', languages: ['es'], trackSid: 'TR_beto', audio: clip('0930') },
    ]);
    expect(room.publishedTracks).toEqual(['translation-en', 'translation-es']);
    expect([...audio.seconds.keys()]).toEqual(['es']);
    expect(audio.seconds.get('es')).toBeGreaterThan(1);
    expect([...audio.rates]).toEqual([OUTPUT_SAMPLE_RATE]);

    expect(room.texts.every((t) => t.topic === TRANSCRIPTION_TOPIC)).toBe(true);
    const transcripts = captions(room.texts, 'transcript').filter((t) => t.attributes[ATTR.final] === 'true');
    expect(transcripts.map((t) => [t.senderIdentity, t.attributes[ATTR.trackId], t.attributes[CAPTION_ATTR.language]]).sort()).toEqual([
      ['ana', 'TR_ana', 'en'],
      ['beto', 'TR_beto', 'es'],
    ]);
    const translations = captions(room.texts, 'translation');
    expect(translations).toHaveLength(1);
    expect(translations[0]).toMatchObject({
      senderIdentity: 'ana',
      text: expect.stringMatching(YOUNG_MAN_IN_SPANISH),
      attributes: {
        [ATTR.trackId]: 'TR_ana',
        [ATTR.final]: 'true',
        [CAPTION_ATTR.speaker]: 'ana',
        [CAPTION_ATTR.language]: 'es',
        [CAPTION_ATTR.sourceLanguage]: 'en',
      },
    });
    const anaFinal = transcripts.find((t) => t.senderIdentity === 'ana')!;
    expect(translations[0]!.attributes[ATTR.segmentId]).toBe(`${anaFinal.attributes[ATTR.segmentId]}-es`);
    // Segment ids name the track, so two speakers' segments never collide.
    const finalIds = transcripts.map((t) => t.attributes[ATTR.segmentId]);
    expect(new Set(finalIds).size).toBe(finalIds.length);
    expect(anaFinal.attributes[ATTR.segmentId]).toContain('TR_ana');
  }, 120_000);

  it('mono: one device, the detected English goes to the Spanish track', async () => {
    const { room, audio } = await runRoom('mono', [{ identity: 'cara', languages: ['en', 'es'], trackSid: 'TR_cara', audio: goForward() }]);
    expect([...audio.seconds.keys()]).toEqual(['es']);
    const translation = captions(room.texts, 'translation')[0];
    expect(translation?.text.toLowerCase()).toContain('diez metros');
    expect(translation?.attributes[CAPTION_ATTR.sourceLanguage]).toBe('en');
  }, 60_000);

  it('a second session in the same room uses new segment ids (a reconnect does not restart them)', async () => {
    const first = await runRoom('dual', [{ identity: 'ana', languages: ['en'], trackSid: 'TR_ana', audio: goForward() }]);
    const second = await runRoom('dual', [{ identity: 'ana', languages: ['en'], trackSid: 'TR_ana', audio: goForward() }]);
    const ids = (room: FakeRoom) => new Set(room.texts.map((t) => t.attributes[ATTR.segmentId]));
    const overlap = [...ids(first.room)].filter((id) => ids(second.room).has(id));
    expect(ids(first.room).size).toBeGreaterThan(0);
    expect(overlap).toEqual([]);
  }, 60_000);

  it('drain: the utterance in progress is still recognized, translated and spoken; a speaker arriving after the drain began is not listened to', async () => {
    const room = new FakeRoom();
    const audio = recordAudio();
    // "go forward ten meters" cut at its last loud sample: the track is still open and the utterance not over.
    const clipAudio = goForward();
    let end = clipAudio.samples.length;
    while (end > 0 && Math.abs(clipAudio.samples[end - 1]!) < 1000) end -= 1;
    const words = speech({ ...clipAudio, samples: clipAudio.samples.slice(0, end) }).slice(0, -150);
    let heard!: () => void;
    const allHeard = new Promise<void>((resolve) => (heard = resolve));
    const opened: string[] = [];
    const translator = new RoomTranslator({
      ...englishSpanishIn(room, providers),
      onError: (e) => errors.push(e),
      // A live track: it delivers the speech, then stays open (silent) until the translator stops listening.
      listenTo: (track: { sid?: string }) => {
        opened.push(track.sid ?? '');
        let stop!: () => void;
        const stopped = new Promise<void>((resolve) => (stop = resolve));
        return {
          frames: (async function* () {
            for (const frame of words) yield frame;
            heard();
            await stopped;
          })(),
          stop,
        };
      },
    });
    try {
      translator.listen();
      await translator.publish();
      room.speak(room.join('ana', ['en']), 'TR_ana', []);
      await allHeard;
      expect(captions(room.texts, 'transcript').filter((t) => t.attributes[ATTR.final] === 'true')).toEqual([]);

      const drained = translator.drain();
      room.speak(room.join('beto', ['es']), 'TR_beto', []);
      await drained;

      expect(opened).toEqual(['TR_ana']);
      const translations = captions(room.texts, 'translation');
      expect(translations).toHaveLength(1);
      expect(translations[0]).toMatchObject({ senderIdentity: 'ana', text: expect.stringMatching(/diez metros/i) });
      // Spoken on the Spanish track before the drain resolved, i.e. before the agent leaves.
      expect([...audio.seconds.keys()]).toEqual(['es']);
      expect(audio.seconds.get('es')).toBeGreaterThan(0.5);
      expect(room.texts.some((t) => t.senderIdentity === 'beto')).toBe(false);
      await translator.close();
    } finally {
      audio.restore();
    }
  }, 60_000);

  it('each final segment goes to the translator-events queue once, in spoken order, with its translation or null; interims never', async () => {
    const redisUrl = 'redis://127.0.0.1:6379';
    const prefix = `trk_test_agent_${randomBytes(4).toString('hex')}`;
    const connection = new IORedis(redisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue<TranslatorEventJob>(QUEUES.translatorEvents, { connection, prefix });
    try {
      const before = Date.now();
      const {
        reports,
        captions: sent,
        sessionId,
      } = await reportRecordedRoom({
        roomId: 'room-1',
        livekitRoom: 'org-1.room-1',
        languages: ['en', 'es'],
        queuePrefix: prefix,
        redisUrl,
        providers,
        speakers: [
          { identity: 'ana', languages: ['en'], trackSid: 'TR_ana', utterances: [clip('0880'), goForward()] },
          // Spanish speech, which the local pipeline hears (badly) but cannot translate: reported without translation.
          { identity: 'beto', languages: ['es'], trackSid: 'TR_beto', utterances: [clip('0930')] },
        ],
      });
      const after = Date.now();

      const jobs = await queue.getJobs(['waiting'], 0, -1, true);
      expect(jobs.map((j) => j.name)).toEqual(reports.map(() => 'segment'));
      expect(jobs.map((j) => j.data)).toEqual(reports);
      expect(jobs.map((j) => j.id)).toEqual(reports.map((r) => `${sessionId}.segment.${r.segmentId}`));
      expect(jobs[0]?.opts).toMatchObject({ attempts: 5, backoff: { type: 'exponential', delay: 1000 } });

      // One report per final caption (interims have none), carrying the caption's segment id and text.
      const finals = captions(sent, 'transcript').filter((t) => t.attributes[ATTR.final] === 'true');
      expect(new Set(reports.map((r) => r.segmentId)).size).toBe(reports.length);
      expect(reports.map((r) => [r.segmentId, r.participantIdentity, r.text]).sort()).toEqual(
        finals.map((t) => [t.attributes[ATTR.segmentId], t.senderIdentity, t.text]).sort(),
      );
      expect(captions(sent, 'transcript').some((t) => t.attributes[ATTR.final] === 'false')).toBe(true);

      const ana = reports.filter((r) => r.participantIdentity === 'ana');
      expect(ana).toEqual([
        {
          type: 'segment',
          roomId: 'room-1',
          livekitRoom: 'org-1.room-1',
          at: expect.any(String),
          segmentId: expect.stringContaining('TR_ana'),
          participantIdentity: 'ana',
          language: 'en',
          text: expect.stringMatching(/young man/i),
          translation: { language: 'es', text: expect.stringMatching(YOUNG_MAN_IN_SPANISH) },
          startedAt: expect.any(String),
          endedAt: expect.any(String),
        },
        expect.objectContaining({
          language: 'en',
          text: expect.stringMatching(/forward ten meters/i),
          translation: { language: 'es', text: expect.stringMatching(/diez metros/i) },
        }),
      ]);
      const beto = reports.filter((r) => r.participantIdentity === 'beto');
      expect(beto.length).toBeGreaterThan(0);
      expect(beto.every((r) => r.language === 'es' && r.translation === null)).toBe(true);

      // Wall-clock bounds, ISO 8601 UTC with milliseconds; a speaker's segments in spoken order.
      for (const r of reports) {
        expect(r.startedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(Date.parse(r.startedAt)).toBeLessThan(Date.parse(r.endedAt));
        expect(Date.parse(r.startedAt)).toBeGreaterThanOrEqual(before);
        expect(Date.parse(r.at)).toBeLessThanOrEqual(after);
      }
      expect(Date.parse(ana[0]!.endedAt)).toBeLessThanOrEqual(Date.parse(ana[1]!.startedAt));
    } finally {
      await queue.close();
      await connection.quit();
      await deleteQueueKeys(redisUrl, prefix);
    }
  }, 120_000);

  it('a transcript report that fails is logged; captions and speech go on', async () => {
    const failures = errors.length;
    const { room, audio } = await runRoom('dual', [{ identity: 'ana', languages: ['en'], trackSid: 'TR_ana', audio: goForward() }], {
      reporter: { segment: async () => Promise.reject(new Error('redis away')) },
    });
    expect(captions(room.texts, 'translation').map((t) => t.text)).toEqual([expect.stringMatching(/diez metros/i)]);
    expect(audio.seconds.get('es')).toBeGreaterThan(0.5);
    const reportErrors = errors
      .slice(failures)
      .map(String)
      .filter((e) => e.includes('not reported'));
    expect(reportErrors).toEqual([expect.stringMatching(/^Error: transcript segment TR_ana-\w+-1 not reported: redis away$/)]);
  }, 60_000);

  it('a pair the local pipeline cannot serve is refused in one line; a half-served pair serves its one direction', () => {
    const none = roomSupport(['de', 'fr'], [stagesCoverage(providers)]);
    expect(none).toMatchObject({
      served: [],
      refused: ['de>fr', 'fr>de'],
      line: expect.stringMatching(/cannot translate de>fr or fr>de \(no PocketSphinx recognizer for "de" speech .*\); leaving the room$/),
    });
    expect(none.line).not.toContain('\n');
    // The missing engine and the env that selects a hosted provider for it.
    expect(roomSupport(['en', 'es'], [stagesCoverage(providers)])).toMatchObject({
      served: ['en>es'],
      refused: ['es>en'],
      line: expect.stringContaining('no PocketSphinx recognizer for "es" speech (Debian ships only en-us): set TRANSLATOR_STT='),
    });
    // The realtime session (with a key) serves both directions into languages it speaks, whatever its local fallback stages can do.
    expect(roomSupport(['en', 'es'], [realtimeCoverage(), stagesCoverage(providers)])).toMatchObject({
      served: ['en>es', 'es>en'],
      refused: [],
      line: null,
    });
  });
});
