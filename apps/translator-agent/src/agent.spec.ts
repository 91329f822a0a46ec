import { isAgent } from '@livekit/agents';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import agent, { connectLoadChannel, parseJobMetadata, realtimeOptions } from './agent';
import { LOAD_SOCKET_ENV } from './capacity/load-channel';
import type { AgentConfig } from './config';
import { dispatchMetadata } from './dispatch/presence-plan';

describe('the translator agent definition', () => {
  it('is an agents-js agent with an entry', () => {
    expect(isAgent(agent)).toBe(true);
    expect(typeof agent.entry).toBe('function');
  });

  it('reads the metadata the dispatch consumer writes', () => {
    expect(parseJobMetadata(dispatchMetadata({ roomId: 'r1', languages: ['de', 'en'], mode: 'mono' }))).toEqual({
      roomId: 'r1',
      languages: ['de', 'en'],
      mode: 'mono',
    });
  });

  it.each(['{}', '{"roomId":"r","languages":["de"],"mode":"dual"}', '{"roomId":"r","languages":["de","en"],"mode":"x"}'])(
    'rejects %s',
    (metadata) => {
      expect(() => parseJobMetadata(metadata)).toThrow('translator job metadata');
    },
  );
});

describe('the job steps that decide', () => {
  it('without a worker load socket in the environment, the room has no load channel and nothing is logged', async () => {
    const logger = { warn: jest.fn() };
    await expect(connectLoadChannel(logger, {})).resolves.toBeNull();
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('a worker load socket that cannot be reached: no load channel, one warning that every speaker is served in full', async () => {
    const logger = { warn: jest.fn() };
    const socket = join(tmpdir(), `no-worker-${process.pid}-${Date.now()}.sock`);
    await expect(connectLoadChannel(logger, { [LOAD_SOCKET_ENV]: socket })).resolves.toBeNull();
    expect(logger.warn.mock.calls).toEqual([
      [{ error: expect.objectContaining({ code: 'ENOENT' }) }, 'worker load channel unreachable: every speaker is served in full'],
    ]);
  });

  it('a realtime pipeline gives every speaker a hosted session with the OpenAI key and its fallback; other pipelines none', () => {
    const realtime = { baseUrl: 'wss://realtime.test/v1', model: 'rt-model', transcriptionModel: 'rt-whisper', fallback: true };
    const config = (pipeline: Partial<AgentConfig['pipeline']>) => ({ pipeline }) as AgentConfig;
    expect(realtimeOptions(config({ realtime, openai: { apiKey: 'sk-test' } } as Partial<AgentConfig['pipeline']>))).toEqual({
      baseUrl: 'wss://realtime.test/v1',
      apiKey: 'sk-test',
      model: 'rt-model',
      inputTranscriptionModel: 'rt-whisper',
      fallback: true,
    });
    expect(realtimeOptions(config({ realtime: null }))).toBeNull();
  });
});
