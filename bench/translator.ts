// The translator row of `npm run bench`: the local speech pipeline (PocketSphinx → Apertium → eSpeak NG)
// over Debian's LibriVox clips, fed in real time in 10 ms frames as LiveKit delivers them.
// Prints one JSON line: end of utterance → first translated audio frame (p50/p95), the time spent inside
// recognition, translation and synthesis, the pipeline's own overhead (total minus those), and the
// real-time factor (processing time / audio time, frames pushed as fast as the pipeline takes them).
// Env: BENCH_TRANSLATOR_ROUNDS  paced passes over the clips (default 2)
import { initializeLogger } from '@livekit/agents';
import { dispose } from '@livekit/rtc-node';
import { performance } from 'node:perf_hooks';
import { librivoxClips } from '../apps/translator-agent/test/support/local-speech';
import { loadAgentConfig } from '../apps/translator-agent/src/config';
import { translateFile } from '../apps/translator-agent/src/tools/file-translation';
import { TimedTTS, timedTranslator, type StageTimes } from '../apps/translator-agent/src/tools/timed-stages';
import { wordErrorRate } from '../apps/translator-agent/src/tools/wer';
import { createSpeechProviders } from '../apps/translator-agent/src/translation/providers';
import { OUTPUT_SAMPLE_RATE } from '../apps/translator-agent/src/translation/room-translator';

initializeLogger({ pretty: false, level: 'error' });

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function main(): Promise<void> {
  const loaded = loadAgentConfig({ TRANSLATOR_PIPELINE: 'local' });
  if (!loaded.ok) throw new Error(loaded.problem);
  const times: StageTimes = { translation: [], synthesis: [] };
  const base = createSpeechProviders(
    loaded.config.pipeline,
    OUTPUT_SAMPLE_RATE,
    () => undefined,
    (engine) => new TimedTTS(engine, times),
  );
  const providers = { ...base, translator: timedTranslator(base.translator, times) };
  const clips = librivoxClips();
  const rounds = Number(process.env.BENCH_TRANSLATOR_ROUNDS ?? '2');

  // Warm-up: Apertium's and eSpeak's first runs load their data.
  await translateFile({ from: 'en', to: 'es', audio: clips[0]!.audio, providers, sampleRate: OUTPUT_SAMPLE_RATE, paced: false });

  const samples: { total: number; stt: number; mt: number; tts: number; overhead: number }[] = [];
  const wer: Record<string, number> = {};
  for (let round = 0; round < rounds; round += 1) {
    for (const clip of clips) {
      times.translation.length = 0;
      times.synthesis.length = 0;
      const detail = await translateFile({ from: 'en', to: 'es', audio: clip.audio, providers, sampleRate: OUTPUT_SAMPLE_RATE });
      wer[clip.id.replace(/^.*-/, '')] = Math.round(wordErrorRate(clip.reference, detail.result.transcript) * 1000) / 1000;
      const u = detail.firstUtterance;
      if (!u) continue;
      const total = u.firstAudioAt - u.speechEndAt;
      const stt = u.finalAt - u.speechEndAt;
      const mt = times.translation[0]?.ms ?? 0;
      const tts = times.synthesis[0]?.firstAudioMs ?? 0;
      samples.push({ total, stt, mt, tts, overhead: total - stt - mt - tts });
    }
  }

  let audioSeconds = 0;
  const started = performance.now();
  for (const clip of clips) {
    const detail = await translateFile({
      from: 'en',
      to: 'es',
      audio: clip.audio,
      providers,
      sampleRate: OUTPUT_SAMPLE_RATE,
      paced: false,
    });
    audioSeconds += detail.result.input_seconds + 2.5; // with the lead-in and trailing silence it was fed
  }
  const rtf = (performance.now() - started) / 1000 / audioSeconds;
  await base.close?.();
  await dispose();

  const stat = (key: keyof (typeof samples)[number]) => ({
    p50: Math.round(
      percentile(
        samples.map((s) => s[key]),
        50,
      ),
    ),
    p95: Math.round(
      percentile(
        samples.map((s) => s[key]),
        95,
      ),
    ),
  });
  process.stdout.write(
    `${JSON.stringify({
      utterances: samples.length,
      firstAudio: stat('total'),
      stt: stat('stt'),
      mt: stat('mt'),
      tts: stat('tts'),
      overhead: stat('overhead'),
      rtf: Math.round(rtf * 1000) / 1000,
      wer,
    })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
