/**
 * What a translator.dispatch / translator.dismiss job does, given what LiveKit currently has in the
 * room. Pure, so the rules are tested as a table; the consumer only reads state and applies actions.
 */
export interface DispatchInfo {
  id: string;
  agentName: string;
  metadata: string;
}

export interface RoomPresenceState {
  dispatches: readonly DispatchInfo[];
  /** Identities of the participants whose LiveKit kind is AGENT. */
  agentParticipants: readonly string[];
}

export type PresenceWant = { kind: 'dispatch'; metadata: string } | { kind: 'dismiss' };

export type PresenceAction =
  | { type: 'create-dispatch'; metadata: string }
  | { type: 'delete-dispatch'; dispatchId: string }
  | { type: 'remove-participant'; identity: string };

export function planPresence(want: PresenceWant, state: RoomPresenceState, agentName: string): PresenceAction[] {
  const own = state.dispatches.filter((d) => d.agentName === agentName);
  const removeAgents = (): PresenceAction[] => state.agentParticipants.map((identity) => ({ type: 'remove-participant', identity }));
  const deleteAll = (list: readonly DispatchInfo[]): PresenceAction[] => list.map((d) => ({ type: 'delete-dispatch', dispatchId: d.id }));

  if (want.kind === 'dismiss') return [...deleteAll(own), ...removeAgents()];

  const keep = own.find((d) => d.metadata === want.metadata);
  if (keep) {
    // Already placed with these languages: only a duplicate dispatch (from elsewhere) is undone.
    return deleteAll(own.filter((d) => d !== keep));
  }
  // A translator for other languages, or an agent left without its dispatch, is replaced.
  return [...deleteAll(own), ...removeAgents(), { type: 'create-dispatch', metadata: want.metadata }];
}

/** The job metadata the agent reads in its entry; deterministic so equal wants compare equal. */
export function dispatchMetadata(job: { roomId: string; languages: readonly [string, string]; mode: 'mono' | 'dual' }): string {
  return JSON.stringify({ roomId: job.roomId, languages: [...job.languages], mode: job.mode });
}
