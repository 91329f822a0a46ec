import { TRANSLATOR_JOBS } from '@app/contracts';
import { OutboxPublisher, type OutboxJob } from '../../src/queue/outbox.publisher';
import { createOrganization, type TestOrganization } from '../support/factories';
import { createRoom, events, settled, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';

/**
 * Each room change writes its outbox jobs once: the transaction's owner writes what the lifecycle,
 * the translator presence and the event processor decided, and nothing else writes them again
 * (outbox_jobs' ON CONFLICT DO NOTHING is a safety net, not the way a duplicate is dropped).
 */
describe('outbox jobs of a room change', () => {
  let h: RoomsHarness;
  let writes: OutboxJob[];

  beforeAll(async () => {
    h = await startRoomsHarness();
    const outbox = h.t.app.get(OutboxPublisher);
    const write = outbox.write.bind(outbox);
    jest.spyOn(outbox, 'write').mockImplementation(async (tx, jobs) => {
      writes.push(...jobs);
      return write(tx, jobs);
    });
  });
  beforeEach(() => {
    writes = [];
  });
  afterAll(async () => h.close());

  /** How many times each job of the room was written to the outbox, by job id. */
  const writtenFor = (roomId: string) =>
    writes
      .filter((job) => (job.payload as { roomId?: string }).roomId === roomId)
      .reduce<Record<string, number>>((counts, job) => ({ ...counts, [job.jobId]: (counts[job.jobId] ?? 0) + 1 }), {});

  const stored = async (roomId: string) =>
    (
      (await h.t.db.query(`SELECT job_id, job_name FROM outbox_jobs WHERE payload->>'roomId' = $1 ORDER BY id`, [roomId])) as {
        job_id: string;
        job_name: string;
      }[]
    ).map((row) => [row.job_id, row.job_name]);

  async function roomWithTranslator(org: TestOrganization) {
    const room = await createRoom(h, org);
    await token(h, org, room.name, { languages: ['en'], identity: 'ann' }).expect(201);
    await token(h, org, room.name, { languages: ['de'], identity: 'bob' }).expect(201);
    await webhook(h, events.participantJoined(room.livekitName, { identity: 'ann', sid: 'PA_a' })).expect(200);
    await webhook(h, events.participantJoined(room.livekitName, { identity: 'bob', sid: 'PA_b' })).expect(200);
    await settled(h);
    return room;
  }

  it('joins that bring the translator, and a leave that dismisses it: each job written once', async () => {
    const org = await createOrganization(h.t);
    const room = await roomWithTranslator(org);
    await webhook(h, events.participantLeft(room.livekitName, { identity: 'bob', sid: 'PA_b' })).expect(200);
    await settled(h);
    expect(writtenFor(room.id)).toEqual({ [`${room.id}.1.dispatch`]: 1, [`${room.id}.2.dismiss`]: 1 });
    expect(await stored(room.id)).toEqual([
      [`${room.id}.1.dispatch`, TRANSLATOR_JOBS.dispatch],
      [`${room.id}.2.dismiss`, TRANSLATOR_JOBS.dismiss],
    ]);
  });

  it('room_finished, delivered twice, ends the room and writes its dismiss once', async () => {
    const org = await createOrganization(h.t);
    const room = await roomWithTranslator(org);
    const finished = events.roomFinished(room.livekitName, { createdAt: Math.ceil(Date.now() / 1000) + 1 });
    await webhook(h, finished).expect(200);
    await webhook(h, finished).expect(200);
    await settled(h);
    expect(writtenFor(room.id)).toEqual({ [`${room.id}.1.dispatch`]: 1, [`${room.id}.2.dismiss`]: 1 });
    expect(await stored(room.id)).toEqual([
      [`${room.id}.1.dispatch`, TRANSLATOR_JOBS.dispatch],
      [`${room.id}.2.dismiss`, TRANSLATOR_JOBS.dismiss],
    ]);
  });

  it('DELETE /v1/rooms/{id}, then room_finished: the dismiss written once, by the request', async () => {
    const org = await createOrganization(h.t);
    const room = await roomWithTranslator(org);
    await h.t.http().delete(`/v1/rooms/${room.id}`).set(org.auth).expect(204);
    await webhook(h, events.roomFinished(room.livekitName)).expect(200);
    await settled(h);
    expect(writtenFor(room.id)).toEqual({ [`${room.id}.1.dispatch`]: 1, [`${room.id}.2.dismiss`]: 1 });
    expect(await stored(room.id)).toEqual([
      [`${room.id}.1.dispatch`, TRANSLATOR_JOBS.dispatch],
      [`${room.id}.2.dismiss`, TRANSLATOR_JOBS.dismiss],
    ]);
  });

  it('ending a room of another organization changes nothing and writes nothing', async () => {
    const [owner, other] = [await createOrganization(h.t), await createOrganization(h.t)];
    const room = await roomWithTranslator(owner);
    await h.t.http().delete(`/v1/rooms/${room.id}`).set(other.auth).expect(404);
    expect(writtenFor(room.id)).toEqual({ [`${room.id}.1.dispatch`]: 1 });
    const detail = await h.t.http().get(`/v1/rooms/${room.id}`).set(owner.auth).expect(200);
    expect(detail.body.status).toBe('active');
  });
});
