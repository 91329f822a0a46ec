import { isAgent } from '@livekit/agents';
import agent, { parseJobMetadata } from './agent';
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
