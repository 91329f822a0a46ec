import { initializeLogger } from '@livekit/agents';
import { dispose } from '@livekit/rtc-node';
import { FakeRoom } from '../../test/support/fake-room';
import { librivoxClips, localProviders } from '../../test/support/local-speech';
import { translateFile } from '../tools/file-translation';
import { wordErrorRate } from '../tools/wer';
import { ATTR, CAPTION_ATTR, CaptionPublisher, TRANSCRIPTION_TOPIC } from './captions';
import { OUTPUT_SAMPLE_RATE } from './room-translator';
import type { SpeechProviders } from './speech-providers';

initializeLogger({ pretty: false, level: 'error' });

describe('captions of a recorded clip, through the agent’s CaptionPublisher', () => {
  let providers: SpeechProviders;
  beforeAll(() => {
    providers = localProviders();
  });
  afterAll(async () => {
    await providers.close?.();
    await dispose();
  });

  it('carry the original text and its translation, their languages and the speaker; interim segments come before the final one', async () => {
    const room = new FakeRoom();
    const clip = librivoxClips().find((c) => c.id.endsWith('0920'))!;
    await translateFile({
      from: 'en',
      to: 'es',
      audio: clip.audio,
      providers,
      sampleRate: OUTPUT_SAMPLE_RATE,
      paced: false,
      captions: new CaptionPublisher(() => room.localParticipant),
    });
    const sent = room.texts;
    expect(sent.every((t) => t.topic === TRANSCRIPTION_TOPIC && t.senderIdentity === 'file')).toBe(true);
    expect(sent.every((t) => t.attributes[ATTR.trackId] === 'TR_file' && t.attributes[CAPTION_ATTR.speaker] === 'file')).toBe(true);

    const original = sent.filter((t) => t.attributes[CAPTION_ATTR.kind] === 'transcript');
    const finalAt = original.findIndex((t) => t.attributes[ATTR.final] === 'true');
    const segmentId = original[finalAt]!.attributes[ATTR.segmentId];
    const interims = original.filter((t) => t.attributes[ATTR.final] === 'false' && t.attributes[ATTR.segmentId] === segmentId);
    expect(interims.length).toBeGreaterThan(2);
    expect(original.indexOf(interims[interims.length - 1]!)).toBeLessThan(finalAt);
    // The last interim text is most of the final one.
    expect(wordErrorRate(original[finalAt]!.text, interims[interims.length - 1]!.text)).toBeLessThan(0.5);
    expect(original[finalAt]).toMatchObject({
      text: expect.stringContaining('amiable woman'),
      attributes: { [CAPTION_ATTR.language]: 'en' },
    });

    const translated = sent.filter((t) => t.attributes[CAPTION_ATTR.kind] === 'translation');
    expect(translated).toEqual([
      expect.objectContaining({
        text: expect.stringContaining('mujer'),
        attributes: expect.objectContaining({
          [ATTR.segmentId]: `${segmentId}-es`,
          [ATTR.final]: 'true',
          [CAPTION_ATTR.language]: 'es',
          [CAPTION_ATTR.sourceLanguage]: 'en',
        }),
      }),
    ]);
    expect(sent.indexOf(translated[0]!)).toBeGreaterThan(sent.indexOf(original[finalAt]!));
  }, 60_000);
});
