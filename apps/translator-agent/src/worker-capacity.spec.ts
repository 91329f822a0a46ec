import { JobRequest } from '@livekit/agents';
import { Job } from '@livekit/protocol';
import { acceptsJob, jobCapacity, workerLoad } from './worker-capacity';

describe('worker capacity', () => {
  it('reports the worker full (load 1) once its job limit is reached, whatever the CPU', () => {
    expect(workerLoad(0, 4, 0.1)).toBeCloseTo(0.1);
    expect(workerLoad(2, 4, 0.1)).toBe(0.5);
    expect(workerLoad(4, 4, 0.1)).toBe(1);
    expect(workerLoad(1, 4, 3)).toBe(1); // a saturated CPU is full too
  });

  it('declines a request past the limit that arrives before the next load report', () => {
    expect(acceptsJob(3, 4)).toBe(true);
    expect(acceptsJob(4, 4)).toBe(false);
  });
});

describe('the worker request handler (jobCapacity, as main.ts passes it to agents-js)', () => {
  /** A job LiveKit offers, as agents-js hands it to `requestFunc`; records the answer. */
  function offer(id: string) {
    const answer = { value: 'none' as 'none' | 'accepted' | 'declined' };
    const request = new JobRequest(
      new Job({ id }),
      async () => void (answer.value = 'declined'),
      async () => void (answer.value = 'accepted'),
    );
    return { request, answer };
  }

  it('declines a job offered past the limit, even in a burst before any job runs, and takes one again once a job ended', async () => {
    let clock = 0;
    const capacity = jobCapacity(2, () => clock);
    const answers = [];
    for (const id of ['AJ_1', 'AJ_2', 'AJ_3']) {
      const { request, answer } = offer(id);
      await capacity.requestFunc(request);
      answers.push(answer.value);
    }
    expect(answers).toEqual(['accepted', 'accepted', 'declined']);

    const running = { activeJobs: [{ job: { id: 'AJ_1' } }, { job: { id: 'AJ_2' } }] };
    expect(await capacity.loadFunc(running)).toBe(1);
    const fourth = offer('AJ_4');
    await capacity.requestFunc(fourth.request);
    expect(fourth.answer.value).toBe('declined');

    running.activeJobs = [{ job: { id: 'AJ_2' } }];
    clock += 60_000;
    const fifth = offer('AJ_5');
    await capacity.requestFunc(fifth.request);
    expect(fifth.answer.value).toBe('accepted');
  });

  it('frees the slot of an accepted job LiveKit never assigned', async () => {
    let clock = 0;
    const capacity = jobCapacity(1, () => clock);
    await capacity.requestFunc(offer('AJ_1').request);
    const second = offer('AJ_2');
    await capacity.requestFunc(second.request);
    expect(second.answer.value).toBe('declined');
    clock += 60_000;
    const third = offer('AJ_3');
    await capacity.requestFunc(third.request);
    expect(third.answer.value).toBe('accepted');
  });
});
