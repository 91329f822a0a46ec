import { initializeLogger } from '@livekit/agents';
import { dispose } from '@livekit/rtc-node';
import { goForward, localProviders } from '../../test/support/local-speech';
import { translateFile } from '../tools/file-translation';
import { OUTPUT_SAMPLE_RATE } from '../translation/room-translator';
import type { SpeechProviders } from '../translation/speech-providers';
import { AgentMetrics } from './agent-metrics';

initializeLogger({ pretty: false, level: 'error' });

describe('agent metrics after a recorded clip through the real local pipeline', () => {
  let providers: SpeechProviders;
  const metrics = new AgentMetrics();
  let text = '';

  beforeAll(async () => {
    providers = localProviders();
    // Real time, as a track is delivered: "go forward ten meters", English → Spanish.
    await translateFile({ from: 'en', to: 'es', audio: goForward(), providers, sampleRate: OUTPUT_SAMPLE_RATE, observer: metrics });
    text = await metrics.registry.metrics();
  }, 60_000);
  afterAll(async () => {
    await providers.close?.();
    await dispose();
  });

  const value = (line: RegExp) => Number(line.exec(text)?.[1] ?? NaN);

  it('has one end of utterance → first audio sample, in the en → es direction only', () => {
    expect(value(/^translator_first_audio_seconds_count\{from="en",to="es"\} (\S+)$/m)).toBe(1);
    expect(text).not.toMatch(/translator_first_audio_seconds_count\{from="es"/);
    const seconds = value(/^translator_first_audio_seconds_sum\{from="en",to="es"\} (\S+)$/m);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThan(10);
  });

  it.each(['recognition', 'translation', 'synthesis'])('moved the %s stage series', (stage) => {
    expect(value(new RegExp(`^translator_stage_duration_seconds_count\\{stage="${stage}"\\} (\\S+)$`, 'm'))).toBeGreaterThanOrEqual(1);
    expect(value(new RegExp(`^translator_stage_duration_seconds_sum\\{stage="${stage}"\\} (\\S+)$`, 'm'))).toBeGreaterThan(0);
  });

  it('names every series translator_*, and counted nothing merged, dropped, failed or restarted', () => {
    const names = [...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(4);
    expect(names.every((n) => n!.startsWith('translator_'))).toBe(true);
    expect(text).not.toMatch(/^translator_utterances_total\{/m);
    expect(text).not.toMatch(/^translator_provider_errors_total\{/m);
    expect(text).toMatch(/^translator_recognition_restarts_total 0$/m);
  });
});

describe('translator_revised_words_total', () => {
  it('counts, per direction, the translated words the final recognition did not keep', async () => {
    const metrics = new AgentMetrics();
    metrics.revisedWords('en', 'es', 2);
    metrics.revisedWords('en', 'es', 1);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^translator_revised_words_total\{from="en",to="es"\} 3$/m);
    expect(text).not.toMatch(/^translator_revised_words_total\{from="es"/m);
  });
});
