import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { MetricsRegistry } from '../../common/metrics/metrics.registry';
import { DatabaseClient } from '../../database/database.client';
import { HotRowWritesService } from '../../database/hot-row-writes.service';
import { OutboxPublisher } from '../../queue/outbox.publisher';
import { PeriodicJobsScheduler } from '../../queue/periodic-jobs.scheduler';
import { LiveKitGateway, LiveKitListingError, type ListedParticipant } from '../livekit/livekit.gateway';
import type { RoomRow } from '../rooms/room-rows';
import { RoomLifecycleService } from '../rooms/room-lifecycle.service';
import { RoomsRepository, type LiveRoomToReconcile } from '../rooms/rooms.repository';
import { ConnectionsRepository, type ListedConnection } from './connections.repository';
import type { LiveKitEventFacts } from './livekit-event';
import { LiveKitEventsService } from './livekit-events.service';

/** Rooms read per page, and rooms changed per transaction. */
const PAGE = 1_000;
const ROOMS_PER_TRANSACTION = 50;
/** `ListParticipants` calls in flight at once. */
const LISTINGS_IN_FLIGHT = 8;

/** What LiveKit listed in a room, and when it was asked (a participant it lists was there then). */
interface RoomListing {
  room: LiveRoomToReconcile;
  askedAt: Date;
  participants: ListedParticipant[];
}

/** What one run concluded, for its metrics. */
interface Changes {
  connectionsEnded: number;
  connectionsOpened: number;
  roomsEnded: number;
}

/**
 * What LiveKit never reported is found by asking it (docs/decisions.md, "Metering"): every
 * `LIVEKIT_RECONCILE_SECONDS`, once for the deployment, the rooms the product holds live are compared
 * with LiveKit's `ListRooms`, and the participants of those with open connections or people in them
 * with `ListParticipants`. What LiveKit no longer lists ends where it was last seen listed (a
 * participant's join when it never was), what it lists unknown opens at its `joinedAt`: these are
 * applied as the LiveKit events they stand for (LiveKitEventsService), so the earliest end still
 * wins and a webhook that arrives later corrects them. A listing that fails concludes nothing.
 */
@Injectable()
export class LiveKitReconciliationService {
  private readonly logger = new Logger(LiveKitReconciliationService.name);

  constructor(
    private readonly livekit: LiveKitGateway,
    private readonly database: DatabaseClient,
    private readonly hot: HotRowWritesService,
    private readonly outbox: OutboxPublisher,
    private readonly lifecycle: RoomLifecycleService,
    private readonly events: LiveKitEventsService,
    private readonly rooms: RoomsRepository,
    private readonly connections: ConnectionsRepository,
    private readonly metrics: MetricsRegistry,
    @Inject(APP_CONFIG) config: AppConfig,
    periodic: PeriodicJobsScheduler,
  ) {
    const { reconcileSeconds } = config.livekit;
    if (reconcileSeconds !== null)
      periodic.register({ name: 'livekit.reconcile', everyMs: reconcileSeconds * 1000, run: () => this.run() });
  }

  /** One reconciliation; false when LiveKit's room list could not be had (nothing changed then). */
  async run(): Promise<boolean> {
    const stopTimer = this.metrics.reconcileDuration.startTimer();
    try {
      const reconciled = await this.reconcile();
      this.metrics.reconcileRuns.inc({ outcome: reconciled ? 'ok' : 'livekit_unavailable' });
      return reconciled;
    } catch (error) {
      this.metrics.reconcileRuns.inc({ outcome: 'failed' });
      throw error;
    } finally {
      stopTimer();
    }
  }

  private async reconcile(): Promise<boolean> {
    // The product's rooms first: a room created after this read is not judged by a list taken before it existed.
    const live = await this.liveRooms();
    if (live.length === 0) return true;
    const askedAt = new Date();
    const listed = await this.listing('ListRooms', () => this.livekit.listRooms());
    if (!listed) return false;
    const peopleIn = new Map(listed.map((room) => [room.name, room.numParticipants]));
    const present = live.filter((room) => peopleIn.has(room.livekitName));
    const gone = live.filter((room) => !peopleIn.has(room.livekitName));
    await this.database.oneStatement((tx) => this.rooms.markSeen(present, askedAt, tx));

    const listings = await this.listParticipants(present.filter((room) => room.hasOpenConnections || peopleIn.get(room.livekitName)! > 0));
    const open = await this.connections.openInRooms(listings.map(({ room }) => room));
    await this.database.oneStatement((tx) => this.connections.markSeen(seenConnections(listings, open), tx));

    const toChange = [...gone, ...listings.filter((listing) => mayChange(listing, open)).map(({ room }) => room)];
    const listingOf = new Map(listings.map((listing) => [listing.room.id, listing]));
    const changes: Changes = { connectionsEnded: 0, connectionsOpened: 0, roomsEnded: 0 };
    for (let i = 0; i < toChange.length; i += ROOMS_PER_TRANSACTION) {
      await this.change(toChange.slice(i, i + ROOMS_PER_TRANSACTION), listingOf, changes);
    }
    this.metrics.reconcileChanges.inc({ change: 'connection_ended' }, changes.connectionsEnded);
    this.metrics.reconcileChanges.inc({ change: 'connection_opened' }, changes.connectionsOpened);
    this.metrics.reconcileChanges.inc({ change: 'room_ended' }, changes.roomsEnded);
    return true;
  }

  private async liveRooms(): Promise<LiveRoomToReconcile[]> {
    const rooms: LiveRoomToReconcile[] = [];
    for (let afterId = '00000000-0000-0000-0000-000000000000'; ;) {
      const page = await this.rooms.liveForReconcile(afterId, PAGE);
      rooms.push(...page);
      if (page.length < PAGE) return rooms;
      afterId = page[page.length - 1].id;
    }
  }

  /** Each room's participants as LiveKit lists them; a room whose listing failed is left out. */
  private async listParticipants(rooms: LiveRoomToReconcile[]): Promise<RoomListing[]> {
    const listings: RoomListing[] = [];
    let next = 0;
    const lister = async () => {
      while (next < rooms.length) {
        const room = rooms[next++];
        const askedAt = new Date();
        const participants = await this.listing('ListParticipants', () => this.livekit.listParticipants(room.livekitName));
        if (participants) listings.push({ room, askedAt, participants });
      }
    };
    await Promise.all(Array.from({ length: Math.min(LISTINGS_IN_FLIGHT, rooms.length) }, lister));
    return listings;
  }

  private async listing<T>(call: 'ListRooms' | 'ListParticipants', list: () => Promise<T>): Promise<T | null> {
    try {
      return await list();
    } catch (error) {
      if (!(error instanceof LiveKitListingError)) throw error;
      this.metrics.reconcileLiveKitErrors.inc({ call });
      this.logger.warn(`${error.message}: nothing is concluded from it; the next reconciliation asks again`);
      return null;
    }
  }

  /**
   * Under the rooms' locks, from their connections as they are now: the leaves, room ends and joins
   * LiveKit's lists stand for, applied as those events.
   */
  private async change(rooms: LiveRoomToReconcile[], listingOf: Map<string, RoomListing>, changes: Changes): Promise<void> {
    const jobs = await this.database.transaction((tx) =>
      this.hot.deferWithin(tx, async () => {
        const locked = (
          await this.lifecycle.lockAll(
            tx,
            rooms.map((room) => room.livekitName),
          )
        ).filter((room) => room.status !== 'ended');
        const open = await this.connections.openInRooms(
          locked.map((room) => ({ organizationId: room.organization_id, id: room.id })),
          tx,
        );
        const facts: LiveKitEventFacts[] = [];
        const unknown: { room: RoomRow; participant: ListedParticipant; askedAt: Date }[] = [];
        for (const room of locked) {
          const inRoom = open.filter((connection) => connection.roomId === room.id);
          const listing = listingOf.get(room.id);
          if (!listing) {
            facts.push(...inRoom.map((connection) => leaveAtLastSight(room, connection)));
            facts.push(finishedAtLastSight(room));
            changes.connectionsEnded += inRoom.length;
            changes.roomsEnded += 1;
            continue;
          }
          const listed = new Set(listing.participants.map((p) => p.sid));
          const gone = inRoom.filter((c) => !listed.has(c.participantSid) && c.joinedAt < listing.askedAt);
          facts.push(...gone.map((connection) => leaveAtLastSight(room, connection)));
          changes.connectionsEnded += gone.length;
          const openSids = new Set(inRoom.map((c) => c.participantSid));
          for (const participant of listing.participants) {
            if (participant.inRoom && !openSids.has(participant.sid)) unknown.push({ room, participant, askedAt: listing.askedAt });
          }
        }
        // A participant whose connection ended is never reopened by a listing.
        const known = await this.connections.byParticipant(
          unknown.map(({ room, participant }) => ({
            organizationId: room.organization_id,
            roomId: room.id,
            participantSid: participant.sid,
          })),
          tx,
        );
        const knownSids = new Set(known.map((c) => `${c.roomId} ${c.participantSid}`));
        const joins = unknown.filter(({ room, participant }) => !knownSids.has(`${room.id} ${participant.sid}`));
        facts.push(...joins.map(({ room, participant, askedAt }) => joinAsListed(room, participant, askedAt)));
        changes.connectionsOpened += joins.length;
        const decided = await this.events.applyFacts(tx, facts);
        await this.outbox.write(tx, decided);
        return decided;
      }),
    );
    await this.outbox.flush(jobs);
  }
}

/** The open connections each listing shows, as seen when it was asked. */
function seenConnections(listings: RoomListing[], open: ListedConnection[]): { organizationId: string; id: number; at: Date }[] {
  const listingOf = new Map(listings.map((listing) => [listing.room.id, listing]));
  return open.flatMap((connection) => {
    const listing = listingOf.get(connection.roomId);
    const listed = listing?.participants.some((p) => p.sid === connection.participantSid);
    return listing && listed ? [{ organizationId: connection.organizationId, id: connection.id, at: listing.askedAt }] : [];
  });
}

/** Whether the listing differs from the room's open connections (read before the lock: the lock's read decides). */
function mayChange(listing: RoomListing, open: ListedConnection[]): boolean {
  const inRoom = open.filter((connection) => connection.roomId === listing.room.id);
  const listed = new Set(listing.participants.map((p) => p.sid));
  const openSids = new Set(inRoom.map((c) => c.participantSid));
  return (
    inRoom.some((c) => !listed.has(c.participantSid) && c.joinedAt < listing.askedAt) ||
    listing.participants.some((p) => p.inRoom && !openSids.has(p.sid))
  );
}

function leaveAtLastSight(room: RoomRow, connection: ListedConnection): LiveKitEventFacts {
  return {
    id: 'reconciliation',
    type: 'participant_left',
    livekitRoom: room.livekit_name,
    createdAt: connection.seenAt ?? connection.joinedAt,
    participant: {
      sid: connection.participantSid,
      identity: connection.identity,
      isAgent: connection.isTranslator,
      joinedAt: connection.joinedAt,
    },
  };
}

function finishedAtLastSight(room: RoomRow): LiveKitEventFacts {
  return {
    id: 'reconciliation',
    type: 'room_finished',
    livekitRoom: room.livekit_name,
    createdAt: room.livekit_seen_at ?? room.created_at,
    participant: null,
  };
}

function joinAsListed(room: RoomRow, participant: ListedParticipant, askedAt: Date): LiveKitEventFacts {
  return {
    id: 'reconciliation',
    type: 'participant_joined',
    livekitRoom: room.livekit_name,
    createdAt: askedAt,
    participant: { sid: participant.sid, identity: participant.identity, isAgent: participant.isAgent, joinedAt: participant.joinedAt },
  };
}
