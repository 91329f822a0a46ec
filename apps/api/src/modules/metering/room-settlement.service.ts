import { QUEUES, ROOM_SETTLE_JOB, type RoomSettleJob } from '@app/contracts';
import { isLiveRoom } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import { DurableQueueService, type DurableJob } from '../../queue/durable-queue.service';
import { CustomerEventsPublisher } from '../customer-webhooks/customer-events.publisher';
import { RoomsRepository } from '../rooms/rooms.repository';
import { InboundEventsService } from '../webhooks/inbound-events.service';

/** How often ended rooms are looked at for settling, and how many at most at once. */
const SWEEP_EVERY_MS = 1_000;
const SWEEP_BATCH = 500;

/**
 * An ended room settles once its settling time (`ROOM_SETTLE_MS` after it ended) has passed and no
 * LiveKit event of it is stored and not applied: its connections' late ends have corrected its
 * charges, so `room.ended` goes out once, with the final totals. Ended rooms are a source of the
 * durable queue: each sweep (the periodic job `sweep.settling-rooms`, once a second for the deployment)
 * enqueues a `room.settle` job for those due (the job id names the sweep's round, so two sweeps in one
 * round enqueue it once and a room still waiting is tried again in a later round).
 */
@Injectable()
export class RoomSettlementService {
  constructor(
    private readonly database: DatabaseClient,
    private readonly rooms: RoomsRepository,
    private readonly inbound: InboundEventsService,
    private readonly events: CustomerEventsPublisher,
    durable: DurableQueueService,
  ) {
    durable.register({ name: 'settling-rooms', sweepEveryMs: SWEEP_EVERY_MS, due: (now) => this.due(now) });
  }

  /** Settles the room unless an event of it still waits to be applied; whether it settled now. */
  async settle({ organizationId, roomId }: RoomSettleJob): Promise<boolean> {
    return this.database.transaction(async (tx) => {
      const room = await this.rooms.lockForLifecycle(organizationId, roomId, tx);
      if (!room || isLiveRoom(room.status)) return false;
      if ((await this.inbound.subjectsWithUnapplied('livekit', [room.livekit_name], tx)).size > 0) return false;
      if (!(await this.rooms.markSettled(organizationId, roomId, tx))) return false;
      await this.events.emit(tx, { organizationId, type: 'room.ended', roomId });
      return true;
    });
  }

  private async due(now: number): Promise<DurableJob[]> {
    const round = Math.floor(now / SWEEP_EVERY_MS);
    return (await this.rooms.settlingDue(SWEEP_BATCH)).map(({ organizationId, id }) => ({
      queue: QUEUES.livekitEvents,
      name: ROOM_SETTLE_JOB,
      jobId: `${id}.settle.${round}`,
      payload: { organizationId, roomId: id } satisfies RoomSettleJob,
    }));
  }
}
