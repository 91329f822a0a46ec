import { loadAgentConfig } from './config';
import type { LocalEngines, LocalEnginesResult } from './local/local-engines';

const engines: LocalEngines = {
  python: '/usr/bin/python3',
  recognizerScript: 'pocketsphinx-stream.py',
  sphinxModel: { hmm: 'hmm', lm: 'lm', dict: 'dict' },
  modes: new Map([['en>es', 'eng-spa.mode']]),
  espeak: 'espeak-ng',
  source: 'en',
  targets: ['es'],
};
const installed = (): LocalEnginesResult => ({ ok: true, engines });
const missing = (): LocalEnginesResult => ({
  ok: false,
  problem: 'the local speech pipeline needs Debian packages: apt-get install espeak-ng',
});

describe('loadAgentConfig', () => {
  it('without any provider key, runs the local pipeline when its packages are installed', () => {
    const result = loadAgentConfig({}, installed);
    expect(result.ok && result.config.pipeline).toMatchObject({ stt: 'local', translation: 'local', tts: 'local', local: engines });
  });

  it('without keys or packages, refuses in one line saying what to install', () => {
    const result = loadAgentConfig({}, missing);
    expect(result).toEqual({ ok: false, problem: expect.stringContaining('apt-get install espeak-ng') });
    expect(result.ok ? '' : result.problem).not.toContain('\n');
  });

  it.each([
    [{ TRANSLATOR_PIPELINE: 'openai' }, 'set OPENAI_API_KEY'],
    [{ OPENAI_API_KEY: 'sk', TRANSLATOR_STT: 'deepgram' }, 'DEEPGRAM_API_KEY'],
    [{ OPENAI_API_KEY: 'sk', TRANSLATOR_TTS: 'elevenlabs' }, 'ELEVEN_API_KEY'],
    [{ OPENAI_API_KEY: 'sk', TRANSLATOR_PIPELINE: 'nope' }, 'TRANSLATOR_PIPELINE'],
    [{ OPENAI_API_KEY: 'sk', TRANSLATOR_TTS: 'cartesia' }, 'TRANSLATOR_TTS'],
    [{ OPENAI_API_KEY: 'sk', TRANSLATOR_STATS_INTERVAL_MS: '10' }, 'TRANSLATOR_STATS_INTERVAL_MS'],
    [{ OPENAI_API_KEY: 'sk', TRANSLATOR_MAX_JOBS: '0' }, 'TRANSLATOR_MAX_JOBS'],
    [{ OPENAI_API_KEY: 'sk', TRANSLATOR_STREAM_CAPACITY: '0' }, 'TRANSLATOR_STREAM_CAPACITY must be an integer of at least 1'],
    [{ OPENAI_API_KEY: 'sk', TRANSLATOR_STREAM_CAPACITY: '2.5' }, 'TRANSLATOR_STREAM_CAPACITY'],
    [{ OPENAI_API_KEY: 'sk', AGENT_METRICS_PORT: '70000' }, 'AGENT_METRICS_PORT must be an integer from 1 to 65535'],
    [{ OPENAI_API_KEY: 'sk', AGENT_METRICS_PORT: 'http' }, 'AGENT_METRICS_PORT'],
    [{ OPENAI_API_KEY: 'sk', AGENT_HEALTH_PORT: '0' }, 'AGENT_HEALTH_PORT must be an integer from 1 to 65535'],
    [{ OPENAI_API_KEY: 'sk', AGENT_HEALTH_PORT: '8081x' }, 'AGENT_HEALTH_PORT'],
  ])('names what is missing or bad, in one line: %j', (env, name) => {
    const result = loadAgentConfig(env, installed);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.problem).toContain(name);
    expect(result.ok ? '' : result.problem).not.toContain('\n');
  });

  it('takes the stream capacity and the metrics port when set, and leaves them to calibration / off when not', () => {
    const set = loadAgentConfig({ OPENAI_API_KEY: 'sk', TRANSLATOR_STREAM_CAPACITY: '6', AGENT_METRICS_PORT: '9464' }, installed);
    expect(set.ok && { capacity: set.config.streamCapacity, port: set.config.metricsPort }).toEqual({ capacity: 6, port: 9464 });
    const unset = loadAgentConfig({ OPENAI_API_KEY: 'sk', TRANSLATOR_STREAM_CAPACITY: ' ', AGENT_METRICS_PORT: '' }, installed);
    expect(unset.ok && { capacity: unset.config.streamCapacity, port: unset.config.metricsPort }).toEqual({ capacity: null, port: null });
  });

  it("takes agents-js's health port from AGENT_HEALTH_PORT, and leaves agents-js's default (8081) when not set", () => {
    const set = loadAgentConfig({ OPENAI_API_KEY: 'sk', AGENT_HEALTH_PORT: '8082' }, installed);
    expect(set.ok && set.config.healthPort).toBe(8082);
    const unset = loadAgentConfig({ OPENAI_API_KEY: 'sk', AGENT_HEALTH_PORT: '' }, installed);
    expect(unset.ok && unset.config.healthPort).toBe(null);
  });

  it('derives the agent and API addresses from LIVEKIT_URL / LIVEKIT_API_URL', () => {
    const a = loadAgentConfig({ OPENAI_API_KEY: 'sk', LIVEKIT_URL: 'wss://lk.example.com' });
    expect(a.ok && a.config.livekit).toMatchObject({ wsUrl: 'wss://lk.example.com', apiUrl: 'https://lk.example.com' });
    const b = loadAgentConfig({ OPENAI_API_KEY: 'sk', LIVEKIT_URL: 'ws://localhost:7880', LIVEKIT_API_URL: 'http://livekit:7880' });
    expect(b.ok && b.config.livekit).toMatchObject({ wsUrl: 'ws://livekit:7880', apiUrl: 'http://livekit:7880' });
  });

  it('with an OpenAI key, every stage is OpenAI with default models; overrides are taken', () => {
    const result = loadAgentConfig({ OPENAI_API_KEY: 'sk', TRANSLATOR_TTS_VOICE: 'nova' }, missing);
    expect(result.ok && result.config.pipeline).toMatchObject({
      stt: 'openai',
      translation: 'openai',
      tts: 'openai',
      openai: { apiKey: 'sk', ttsVoice: 'nova', sttModel: 'gpt-4o-mini-transcribe' },
      local: null,
    });
  });

  it('chooses each stage on its own: Deepgram, OpenAI and ElevenLabs, or local speech with hosted translation', () => {
    const hosted = loadAgentConfig(
      { OPENAI_API_KEY: 'sk', DEEPGRAM_API_KEY: 'dg', ELEVEN_API_KEY: 'el', TRANSLATOR_STT: 'deepgram', TRANSLATOR_TTS: 'elevenlabs' },
      missing,
    );
    expect(hosted.ok && hosted.config.pipeline).toMatchObject({
      stt: 'deepgram',
      translation: 'openai',
      tts: 'elevenlabs',
      deepgram: { apiKey: 'dg', model: 'nova-3' },
      elevenlabs: { apiKey: 'el', model: 'eleven_flash_v2_5' },
    });
    const mixed = loadAgentConfig({ OPENAI_API_KEY: 'sk', TRANSLATOR_STT: 'local', TRANSLATOR_TTS: 'local' }, installed);
    expect(mixed.ok && mixed.config.pipeline).toMatchObject({ stt: 'local', translation: 'openai', tts: 'local', local: engines });
  });
});

describe('TRANSLATOR_TIMING and TRANSLATOR_PIPELINE=openai-realtime', () => {
  it('simultaneous (the default) or sentence timing for the local recognizer; a hosted recognizer is always sentence', () => {
    const simultaneous = loadAgentConfig({ TRANSLATOR_PIPELINE: 'local', TRANSLATOR_TIMING: 'simultaneous' }, installed);
    expect(simultaneous.ok && simultaneous.config.pipeline.timing).toBe('simultaneous');
    const byDefault = loadAgentConfig({ TRANSLATOR_PIPELINE: 'local', TRANSLATOR_TIMING: '' }, installed);
    expect(byDefault.ok && byDefault.config.pipeline.timing).toBe('simultaneous');
    const sentence = loadAgentConfig({ TRANSLATOR_PIPELINE: 'local', TRANSLATOR_TIMING: 'sentence' }, installed);
    expect(sentence.ok && sentence.config.pipeline.timing).toBe('sentence');
    const hosted = loadAgentConfig({ OPENAI_API_KEY: 'sk', TRANSLATOR_TIMING: 'simultaneous' }, installed);
    expect(hosted.ok && hosted.config.pipeline.timing).toBe('sentence');
    expect(loadAgentConfig({ TRANSLATOR_PIPELINE: 'local', TRANSLATOR_TIMING: 'soon' }, installed)).toEqual({
      ok: false,
      problem: 'TRANSLATOR_TIMING must be one of: simultaneous, sentence (got "soon").',
    });
  });

  it('the realtime translation session needs the OpenAI key, and says so, unless local stages take over', () => {
    expect(loadAgentConfig({ TRANSLATOR_PIPELINE: 'openai-realtime' }, installed)).toEqual({
      ok: false,
      problem: expect.stringContaining('TRANSLATOR_PIPELINE=openai-realtime') as string,
    });
    const realtime = loadAgentConfig({ TRANSLATOR_PIPELINE: 'openai-realtime', OPENAI_API_KEY: 'sk' }, installed);
    expect(realtime.ok && realtime.config.pipeline.realtime).toEqual({
      baseUrl: 'https://api.openai.com/v1',
      model: 'gpt-realtime-translate',
      transcriptionModel: 'gpt-realtime-whisper',
      fallback: true,
    });
    // No key, local stages: the agent starts, every speaker's session reports the missing key and the local stages serve.
    const local = {
      TRANSLATOR_PIPELINE: 'openai-realtime',
      TRANSLATOR_STT: 'local',
      TRANSLATOR_TRANSLATION: 'local',
      TRANSLATOR_TTS: 'local',
    };
    const keyless = loadAgentConfig(local, installed);
    expect(keyless.ok && keyless.config.pipeline).toMatchObject({ stt: 'local', openai: null, realtime: { fallback: true } });
    expect(loadAgentConfig({ ...local, TRANSLATOR_REALTIME_FALLBACK: 'none' }, installed)).toEqual({
      ok: false,
      problem: expect.stringContaining('set OPENAI_API_KEY') as string,
    });
    const none = loadAgentConfig(
      { TRANSLATOR_PIPELINE: 'openai-realtime', OPENAI_API_KEY: 'sk', TRANSLATOR_REALTIME_FALLBACK: 'none' },
      installed,
    );
    expect(none.ok && none.config.pipeline.realtime?.fallback).toBe(false);
  });
});
