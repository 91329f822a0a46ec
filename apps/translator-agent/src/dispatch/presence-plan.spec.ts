import { dispatchMetadata, planPresence, type PresenceAction, type PresenceWant, type RoomPresenceState } from './presence-plan';

const meta = dispatchMetadata({ roomId: 'r1', languages: ['de', 'en'], mode: 'dual' });
const otherMeta = dispatchMetadata({ roomId: 'r1', languages: ['en', 'fr'], mode: 'dual' });
const dispatch: PresenceWant = { kind: 'dispatch', metadata: meta };
const dismiss: PresenceWant = { kind: 'dismiss' };
const empty: RoomPresenceState = { dispatches: [], agentParticipants: [] };
const d = (id: string, metadata = meta, agentName = 'translator') => ({ id, agentName, metadata });

describe('planPresence', () => {
  it.each<[string, PresenceWant, RoomPresenceState, PresenceAction[]]>([
    ['dispatch into an empty room creates one dispatch', dispatch, empty, [{ type: 'create-dispatch', metadata: meta }]],
    ['dispatch when the same dispatch exists does nothing', dispatch, { dispatches: [d('AD_1')], agentParticipants: ['agent-1'] }, []],
    [
      'dispatch when two equal dispatches exist removes the duplicate',
      dispatch,
      { dispatches: [d('AD_1'), d('AD_2')], agentParticipants: [] },
      [{ type: 'delete-dispatch', dispatchId: 'AD_2' }],
    ],
    [
      'dispatch with other languages replaces the translator',
      dispatch,
      { dispatches: [d('AD_1', otherMeta)], agentParticipants: ['agent-1'] },
      [
        { type: 'delete-dispatch', dispatchId: 'AD_1' },
        { type: 'remove-participant', identity: 'agent-1' },
        { type: 'create-dispatch', metadata: meta },
      ],
    ],
    [
      'dispatch with an orphaned agent participant removes it first',
      dispatch,
      { dispatches: [], agentParticipants: ['agent-9'] },
      [
        { type: 'remove-participant', identity: 'agent-9' },
        { type: 'create-dispatch', metadata: meta },
      ],
    ],
    [
      'dispatches of other agents are left alone',
      dispatch,
      { dispatches: [d('AD_X', meta, 'recorder')], agentParticipants: [] },
      [{ type: 'create-dispatch', metadata: meta }],
    ],
    ['dismiss of an empty room does nothing', dismiss, empty, []],
    [
      'dismiss deletes the dispatch and removes the agent',
      dismiss,
      { dispatches: [d('AD_1')], agentParticipants: ['agent-1'] },
      [
        { type: 'delete-dispatch', dispatchId: 'AD_1' },
        { type: 'remove-participant', identity: 'agent-1' },
      ],
    ],
    [
      'dismiss removes every translator dispatch, keeps other agents’ dispatches',
      dismiss,
      { dispatches: [d('AD_1'), d('AD_2', otherMeta), d('AD_X', meta, 'recorder')], agentParticipants: [] },
      [
        { type: 'delete-dispatch', dispatchId: 'AD_1' },
        { type: 'delete-dispatch', dispatchId: 'AD_2' },
      ],
    ],
  ])('%s', (_name, want, state, expected) => {
    expect(planPresence(want, state, 'translator')).toEqual(expected);
  });
});

describe('dispatchMetadata', () => {
  it('carries room, languages and mode as JSON', () => {
    expect(JSON.parse(meta)).toEqual({ roomId: 'r1', languages: ['de', 'en'], mode: 'dual' });
  });

  it('is equal for equal wants', () => {
    expect(dispatchMetadata({ roomId: 'r1', languages: ['de', 'en'], mode: 'dual' })).toBe(meta);
  });
});
