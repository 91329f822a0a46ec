import { loadAgentConfig } from './config';

describe('loadAgentConfig', () => {
  it('refuses to start without provider keys, in one line saying what to set', () => {
    const result = loadAgentConfig({});
    expect(result).toEqual({ ok: false, problem: expect.stringContaining('set OPENAI_API_KEY') });
    expect(result.ok ? '' : result.problem).not.toContain('\n');
  });

  it.each([
    [{ OPENAI_API_KEY: 'sk', TRANSLATOR_PIPELINE: 'nope' }, 'TRANSLATOR_PIPELINE'],
    [{ OPENAI_API_KEY: 'sk', TRANSLATOR_STATS_INTERVAL_MS: '10' }, 'TRANSLATOR_STATS_INTERVAL_MS'],
  ])('names the bad variable: %j', (env, name) => {
    const result = loadAgentConfig(env);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.problem).toContain(name);
  });

  it('derives the agent and API addresses from LIVEKIT_URL / LIVEKIT_API_URL', () => {
    const a = loadAgentConfig({ OPENAI_API_KEY: 'sk', LIVEKIT_URL: 'wss://lk.example.com' });
    expect(a.ok && a.config.livekit).toMatchObject({ wsUrl: 'wss://lk.example.com', apiUrl: 'https://lk.example.com' });
    const b = loadAgentConfig({ OPENAI_API_KEY: 'sk', LIVEKIT_URL: 'ws://localhost:7880', LIVEKIT_API_URL: 'http://livekit:7880' });
    expect(b.ok && b.config.livekit).toMatchObject({ wsUrl: 'ws://livekit:7880', apiUrl: 'http://livekit:7880' });
  });

  it('defaults the cascade models and takes overrides', () => {
    const result = loadAgentConfig({ OPENAI_API_KEY: 'sk', TRANSLATOR_TTS_VOICE: 'nova' });
    expect(result.ok && result.config.pipeline).toMatchObject({
      provider: 'openai',
      apiKey: 'sk',
      ttsVoice: 'nova',
      sttModel: 'gpt-4o-mini-transcribe',
    });
  });
});
