import { ParticipantInfo_Kind } from '@livekit/protocol';
import { AgentDispatchClient, RoomServiceClient, ServerError } from 'livekit-server-sdk';
import type { PresenceAction, RoomPresenceState } from './presence-plan';

/** Reads and changes the agent presence of one LiveKit room through the server API (Twirp). */
export interface PresenceGateway {
  read(room: string): Promise<RoomPresenceState>;
  apply(room: string, agentName: string, action: PresenceAction): Promise<void>;
}

function isNotFound(error: unknown): boolean {
  return error instanceof ServerError && (error.code === 'not_found' || error.status === 404);
}

/** A room LiveKit no longer knows has no dispatch and no participant: nothing to undo. */
async function unlessGone<T>(call: Promise<T>, fallback: T): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (isNotFound(error)) return fallback;
    throw error;
  }
}

export class LiveKitPresenceGateway implements PresenceGateway {
  private readonly dispatch: AgentDispatchClient;
  private readonly rooms: RoomServiceClient;

  constructor(apiUrl: string, apiKey: string, apiSecret: string) {
    this.dispatch = new AgentDispatchClient(apiUrl, apiKey, apiSecret);
    this.rooms = new RoomServiceClient(apiUrl, apiKey, apiSecret);
  }

  async read(room: string): Promise<RoomPresenceState> {
    const [dispatches, participants] = await Promise.all([
      unlessGone(this.dispatch.listDispatch(room), []),
      unlessGone(this.rooms.listParticipants(room), []),
    ]);
    return {
      dispatches: dispatches.map((d) => ({ id: d.id, agentName: d.agentName, metadata: d.metadata })),
      agentParticipants: participants.filter((p) => p.kind === ParticipantInfo_Kind.AGENT).map((p) => p.identity),
    };
  }

  async apply(room: string, agentName: string, action: PresenceAction): Promise<void> {
    switch (action.type) {
      case 'create-dispatch':
        await this.dispatch.createDispatch(room, agentName, { metadata: action.metadata });
        return;
      case 'delete-dispatch':
        await unlessGone(this.dispatch.deleteDispatch(action.dispatchId, room), undefined);
        return;
      case 'remove-participant':
        await unlessGone(this.rooms.removeParticipant(room, action.identity), undefined);
        return;
    }
  }
}
