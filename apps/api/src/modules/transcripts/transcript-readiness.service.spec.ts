import type { DatabaseClient } from '../../database/database.client';
import type { Sql } from '../../database/sql';
import type { PeriodicJob, PeriodicJobsScheduler } from '../../queue/periodic-jobs.scheduler';
import type { CustomerEvent, CustomerEventsPublisher } from '../customer-webhooks/customer-events.publisher';
import type { ClosedTranscriptRoom } from '../rooms/room-rows';
import type { RoomsRepository } from '../rooms/rooms.repository';
import { READY_GRACE_SECONDS, TranscriptReadinessService } from './transcript-readiness.service';
import type { TranscriptSummary, TranscriptsRepository } from './transcripts.repository';

/** When a room's transcript is closed and `transcript.ready` sent, and how retention deletes, with the repositories replaced. */
describe('TranscriptReadinessService', () => {
  const startedAt = new Date('2026-01-01T10:00:00Z');
  const endedAt = new Date('2026-01-01T10:30:00Z');

  /** Rooms whose transcript is open, by id: closing one takes it out. */
  let open: Map<string, ClosedTranscriptRoom>;
  let summaries: Map<string, TranscriptSummary>;
  let due: string[];
  let dueAsked: [number, number][];
  /** The transaction each emitted event was written in, beside the event. */
  let emitted: { tx: Sql; event: CustomerEvent }[];
  /** The transaction each close ran in. */
  let closedIn: Sql[];
  /** What each retention batch deletes, in turn (then nothing). */
  let batches: number[];
  let batchLimits: number[];
  let jobs: PeriodicJob[];

  function readiness(): TranscriptReadinessService {
    const database = {
      transaction: <T>(work: (tx: Sql) => Promise<T>) => work({} as Sql),
      oneStatement: <T>(work: (tx: Sql) => Promise<T>) => work({} as Sql),
    } as unknown as DatabaseClient;
    const transcripts = {
      dueToClose: async (graceSeconds: number, limit: number) => {
        dueAsked.push([graceSeconds, limit]);
        return due;
      },
      summary: async (roomId: string) => summaries.get(roomId) ?? { segments: 0, languages: [] },
      deleteExpired: async (limit: number) => {
        batchLimits.push(limit);
        return batches.shift() ?? 0;
      },
    } as unknown as TranscriptsRepository;
    const rooms = {
      closeTranscript: async (roomId: string, tx: Sql) => {
        const room = open.get(roomId) ?? null;
        open.delete(roomId);
        if (room) closedIn.push(tx);
        return room;
      },
    } as unknown as RoomsRepository;
    const events = {
      emit: async (tx: Sql, event: CustomerEvent) => void emitted.push({ tx, event }),
    } as unknown as CustomerEventsPublisher;
    const periodic = { register: (job: PeriodicJob) => void jobs.push(job) } as unknown as PeriodicJobsScheduler;
    return new TranscriptReadinessService(database, transcripts, rooms, events, periodic);
  }

  const room = (name: string): ClosedTranscriptRoom => ({ organizationId: 'org-1', name, startedAt, endedAt });
  const ready = (roomId: string, name: string, summary: TranscriptSummary): CustomerEvent => ({
    organizationId: 'org-1',
    type: 'transcript.ready',
    roomId,
    data: { room_id: roomId, room: name, ...summary, started_at: startedAt, ended_at: endedAt },
  });

  beforeEach(() => {
    open = new Map([
      ['room-1', room('standup')],
      ['room-2', room('retro')],
    ]);
    summaries = new Map([['room-1', { segments: 42, languages: ['de', 'en'] }]]);
    due = [];
    dueAsked = [];
    emitted = [];
    closedIn = [];
    batches = [];
    batchLimits = [];
    jobs = [];
  });

  it('closes the rooms that are due, sending transcript.ready with the summary and room facts for those with segments', async () => {
    due = ['room-1', 'room-2'];
    const r = readiness();
    expect(await r.closeDue()).toBe(1);
    expect(dueAsked).toEqual([[READY_GRACE_SECONDS, 200]]);
    expect(open.size).toBe(0);
    expect(emitted.map(({ event }) => event)).toEqual([ready('room-1', 'standup', { segments: 42, languages: ['de', 'en'] })]);
    expect(emitted[0].tx).toBe(closedIn[0]);
  });

  it('closes only the rooms due', async () => {
    due = ['room-2'];
    await readiness().closeDue();
    expect([...open.keys()]).toEqual(['room-1']);
    expect(emitted).toEqual([]);
  });

  it('closes a room without segments with no event', async () => {
    expect(await readiness().close('room-2')).toBe(false);
    expect(open.has('room-2')).toBe(false);
    expect(emitted).toEqual([]);
  });

  it('sends transcript.ready once: a room already closed emits nothing', async () => {
    const r = readiness();
    expect(await r.close('room-1')).toBe(true);
    expect(await r.close('room-1')).toBe(false);
    due = ['room-1'];
    expect(await r.closeDue()).toBe(0);
    expect(emitted).toHaveLength(1);
  });

  it.each<[string, number[], number, number]>([
    ['nothing expired', [], 1, 0],
    ['one short batch', [12], 1, 12],
    ['full batches until a short one', [5_000, 5_000, 12], 3, 10_012],
    ['full batches until an empty one', [5_000, 0], 2, 5_000],
    ['more than a run may delete: it stops after 200 batches', Array<number>(250).fill(5_000), 200, 1_000_000],
  ])('deletes expired segments in batches of 5,000: %s', async (_, deletes, calls, total) => {
    batches = deletes;
    expect(await readiness().deleteExpired()).toBe(total);
    expect(batchLimits).toEqual(Array<number>(calls).fill(5_000));
  });

  it('registers its two periodic jobs, running closeDue and deleteExpired', async () => {
    due = ['room-1'];
    batches = [7];
    readiness();
    expect(jobs.map(({ name, everyMs }) => [name, everyMs])).toEqual([
      ['transcripts.readiness', 5_000],
      ['transcripts.retention', 3_600_000],
    ]);
    await jobs[0].run();
    expect(emitted).toHaveLength(1);
    await jobs[1].run();
    expect(batchLimits).toEqual([5_000]);
  });
});
