import { initializeLogger } from '@livekit/agents';
import { dispose } from '@livekit/rtc-node';
import { loadAgentConfig, type Timing } from '../config';
import { workerStreamCapacity } from './worker-streams';

initializeLogger({ pretty: false, level: 'error' });

/** The worker's capacity at start, measured with the local engines on Debian's recording. */
describe('stream capacity calibration', () => {
  afterAll(async () => {
    await dispose();
  });

  const calibrated = async (timing: Timing) => {
    const loaded = loadAgentConfig({ TRANSLATOR_PIPELINE: 'local', TRANSLATOR_TIMING: timing });
    if (!loaded.ok) throw new Error(loaded.problem);
    return workerStreamCapacity(loaded.config);
  };

  it('runs in real time in the configured timing: simultaneous mode speaks the recording in chunks, sentence mode as one utterance', async () => {
    const simultaneous = await calibrated('simultaneous');
    expect(simultaneous.source).toMatch(/\(simultaneous timing, pieces spoken: ([2-9]|\d\d+)\)/);
    const sentence = await calibrated('sentence');
    expect(sentence.source).toMatch(/\(sentence timing, pieces spoken: 1\)/);
    for (const { capacity, costPerStream, source } of [simultaneous, sentence]) {
      expect(capacity).toBeGreaterThanOrEqual(1);
      expect(costPerStream).toBeGreaterThan(0);
      // As streams run: fed and played out in real time; the line shows how K follows from the cost.
      expect(source).toMatch(/ in real time /);
      expect(source).toContain(`= ${capacity}`);
    }
  }, 120_000);
});
