/**
 * Self-test of the LiveKit doubles: the REAL livekit-server-sdk clients and WebhookReceiver
 * must accept what the doubles produce, exactly as they would from a LiveKit server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AccessToken,
  AgentDispatchClient,
  ParticipantInfo_State,
  RoomAgentDispatch,
  RoomServiceClient,
  TwirpError,
  WebhookReceiver,
} from 'livekit-server-sdk';
import request from 'supertest';
import { startLiveKitDouble, type LiveKitDouble } from '../support/livekit-double';
import {
  LIVEKIT_WEBHOOK_CONTENT_TYPE,
  buildEvent,
  liveKitWebhookRequest,
  participantJoined,
  participantLeft,
  roomFinished,
  sendLiveKitWebhook,
  signWebhook,
} from '../support/livekit-webhooks';

const API_KEY = 'lk_test_key';
const API_SECRET = 'lk_test_secret_that_is_long_enough_0123456789';
// ParticipantInfo_Kind is not re-exported by livekit-server-sdk; AGENT = 4 in livekit_models.proto.
const KIND_AGENT = 4;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}

describe('LiveKit API double, driven by the real livekit-server-sdk', () => {
  let double: LiveKitDouble;
  let rooms: RoomServiceClient;
  let agents: AgentDispatchClient;

  beforeAll(async () => {
    double = await startLiveKitDouble({ apiKey: API_KEY, apiSecret: API_SECRET });
    rooms = new RoomServiceClient(double.url, API_KEY, API_SECRET);
    agents = new AgentDispatchClient(double.url, API_KEY, API_SECRET);
  });
  afterAll(() => double.close());
  beforeEach(() => double.reset());

  it('creates, lists and deletes rooms', async () => {
    const created = await rooms.createRoom({ name: 'room-a', emptyTimeout: 600, departureTimeout: 30, metadata: '{"x":1}' });
    expect(created.sid).toMatch(/^RM_[0-9A-Za-z]{12}$/);
    expect(created.name).toBe('room-a');
    expect(created.emptyTimeout).toBe(600);
    expect(created.departureTimeout).toBe(30);
    expect(created.metadata).toBe('{"x":1}');
    expect(typeof created.creationTime).toBe('bigint');
    expect(Number(created.creationTime)).toBeCloseTo(Date.now() / 1000, -1);

    // Same name again: the existing room comes back (same sid), non-zero settings applied.
    const again = await rooms.createRoom({ name: 'room-a', emptyTimeout: 900 });
    expect(again.sid).toBe(created.sid);
    expect(again.emptyTimeout).toBe(900);
    expect(again.metadata).toBe('{"x":1}');

    await rooms.createRoom({ name: 'room-b' });
    expect((await rooms.listRooms()).map((r) => r.name).sort()).toEqual(['room-a', 'room-b']);
    expect((await rooms.listRooms(['room-b'])).map((r) => r.name)).toEqual(['room-b']);

    await rooms.deleteRoom('room-a');
    expect((await rooms.listRooms()).map((r) => r.name)).toEqual(['room-b']);
    expect(double.room('room-a')).toBeUndefined();

    const err = await rejection(rooms.deleteRoom('room-a'));
    expect(err).toBeInstanceOf(TwirpError);
    expect(err).toMatchObject({ status: 404, code: 'not_found' });

    expect(double.callsOf('CreateRoom').map((c) => c.body)).toEqual([
      { name: 'room-a', emptyTimeout: 600, departureTimeout: 30, metadata: '{"x":1}' },
      { name: 'room-a', emptyTimeout: 900 },
      { name: 'room-b' },
    ]);
    expect(double.callsOf('CreateRoom')[0]).toMatchObject({ service: 'RoomService', status: 200, grants: { roomCreate: true } });
    expect(double.calls.map((c) => c.method)).toEqual([
      'CreateRoom',
      'CreateRoom',
      'CreateRoom',
      'ListRooms',
      'ListRooms',
      'DeleteRoom',
      'ListRooms',
      'DeleteRoom',
    ]);
  });

  it('lists and removes participants that test code puts in a room', async () => {
    await rooms.createRoom({ name: 'room-p' });
    double.addParticipant('room-p', { identity: 'alice', name: 'Alice', metadata: '{"lang":"en"}' });
    double.addParticipant('room-p', { identity: 'agent-1', kind: 'AGENT', attributes: { role: 'translator' } });

    const listed = await rooms.listParticipants('room-p');
    expect(listed.map((p) => p.identity).sort()).toEqual(['agent-1', 'alice']);
    const alice = listed.find((p) => p.identity === 'alice');
    expect(alice?.sid).toMatch(/^PA_/);
    expect(alice?.name).toBe('Alice');
    expect(alice?.state).toBe(ParticipantInfo_State.ACTIVE);
    const agent = listed.find((p) => p.identity === 'agent-1');
    expect(agent?.kind).toBe(KIND_AGENT);
    expect(agent?.attributes).toEqual({ role: 'translator' });
    expect((await rooms.listRooms(['room-p']))[0]?.numParticipants).toBe(2);

    await rooms.removeParticipant('room-p', 'alice');
    expect(double.participants('room-p').map((p) => p.identity)).toEqual(['agent-1']);
    await expect(rooms.removeParticipant('room-p', 'alice')).rejects.toMatchObject({ status: 404, code: 'not_found' });
    expect(await rooms.listParticipants('nowhere')).toEqual([]);
  });

  it('creates, lists and deletes agent dispatches', async () => {
    await rooms.createRoom({ name: 'room-d' });
    const d = await agents.createDispatch('room-d', 'translator', { metadata: '{"target":"fr"}' });
    expect(d.id).toMatch(/^AD_/);
    expect(d.agentName).toBe('translator');
    expect(d.room).toBe('room-d');
    expect(d.metadata).toBe('{"target":"fr"}');
    expect(double.callsOf('CreateDispatch')[0]?.body).toEqual({ agentName: 'translator', room: 'room-d', metadata: '{"target":"fr"}' });

    const listed = await agents.listDispatch('room-d');
    expect(listed.map((x) => x.id)).toEqual([d.id]);
    expect((await agents.getDispatch(d.id, 'room-d'))?.agentName).toBe('translator');
    expect(await agents.getDispatch('AD_unknown', 'room-d')).toBeUndefined();

    await agents.deleteDispatch(d.id, 'room-d');
    expect(await agents.listDispatch('room-d')).toEqual([]);
    expect(double.dispatches()).toEqual([]);
    await expect(agents.deleteDispatch(d.id, 'room-d')).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it('dispatches agents listed in CreateRoom, and drops dispatches with the room', async () => {
    await rooms.createRoom({ name: 'room-e', agents: [new RoomAgentDispatch({ agentName: 'translator', metadata: 'm' })] });
    expect(double.dispatches('room-e')).toMatchObject([{ agentName: 'translator', room: 'room-e', metadata: 'm' }]);
    await rooms.deleteRoom('room-e');
    expect(double.dispatches()).toEqual([]);
  });

  it('rejects a token signed with the wrong secret as Twirp unauthenticated (401)', async () => {
    const wrong = new RoomServiceClient(double.url, API_KEY, 'not-the-secret');
    const err = await rejection(wrong.createRoom({ name: 'nope' }));
    expect(err).toBeInstanceOf(TwirpError);
    expect(err).toMatchObject({ status: 401, code: 'unauthenticated' });
    expect(double.rooms()).toEqual([]);
    expect(double.callsOf('CreateRoom')).toMatchObject([{ status: 401 }]);

    const otherKey = new RoomServiceClient(double.url, 'other-key', API_SECRET);
    await expect(otherKey.listRooms()).rejects.toMatchObject({ status: 401, code: 'unauthenticated' });
  });

  it('enforces the grant each method needs (room admin is per room)', async () => {
    const at = new AccessToken(API_KEY, API_SECRET, { ttl: '1m' });
    at.addGrant({ roomAdmin: true, room: 'other-room' });
    const scoped = new RoomServiceClient(double.url, undefined, undefined, { token: await at.toJwt() });
    await expect(scoped.listParticipants('room-x')).rejects.toMatchObject({ status: 401, code: 'unauthenticated' });
    await expect(scoped.createRoom({ name: 'room-x' })).rejects.toMatchObject({ status: 401 });
    expect(await scoped.listParticipants('other-room')).toEqual([]);
  });

  it('answers injected faults with Twirp unavailable (503) n times, then recovers', async () => {
    double.failNext('CreateRoom', 2);
    for (let i = 0; i < 2; i += 1) {
      const err = await rejection(rooms.createRoom({ name: 'flaky' }));
      expect(err).toBeInstanceOf(TwirpError);
      expect(err).toMatchObject({ status: 503, code: 'unavailable' });
    }
    expect(double.rooms()).toEqual([]);
    expect((await rooms.createRoom({ name: 'flaky' })).name).toBe('flaky');
    expect(double.callsOf('CreateRoom').map((c) => c.status)).toEqual([503, 503, 200]);

    double.failNext('CreateDispatch', 1, 500, 'boom');
    await expect(agents.createDispatch('flaky', 'translator')).rejects.toMatchObject({ status: 500, code: 'internal', message: 'boom' });
    await expect(agents.createDispatch('flaky', 'translator')).resolves.toMatchObject({ agentName: 'translator' });
  });

  it('can delay answers past the SDK request timeout', async () => {
    const impatient = new RoomServiceClient(double.url, API_KEY, API_SECRET, { requestTimeout: 0.2 });
    double.delayNext('ListRooms', 1, 500);
    await expect(impatient.listRooms()).rejects.toThrow();
  });

  it('speaks Twirp errors on the wire (content-type exactly application/json)', async () => {
    const res = await fetch(`${double.url}/twirp/livekit.RoomService/ListRooms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ code: 'unauthenticated', msg: 'permissions denied' });

    const unknown = await fetch(`${double.url}/twirp/livekit.Nope/Thing`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: 'bad_route' });
  });
});

describe('LiveKit webhook sender, checked by the real WebhookReceiver', () => {
  const receiver = new WebhookReceiver(API_KEY, API_SECRET);
  const creds = { apiKey: API_KEY, apiSecret: API_SECRET };

  it('signs participant_joined the way WebhookReceiver verifies it', async () => {
    const ev = participantJoined({ name: 'room-w', sid: 'RM_fixedsid0001' }, { identity: 'agent-1', kind: 'AGENT', metadata: '{"a":1}' });
    const { body, headers } = liveKitWebhookRequest(ev, creds);
    expect(headers['Content-Type']).toBe(LIVEKIT_WEBHOOK_CONTENT_TYPE);
    expect(headers.Authorization.startsWith('Bearer ')).toBe(false);

    const received = await receiver.receive(body, headers.Authorization);
    expect(received.event).toBe('participant_joined');
    expect(received.id).toMatch(/^EV_/);
    expect(received.room?.name).toBe('room-w');
    expect(received.room?.sid).toBe('RM_fixedsid0001');
    expect(received.participant?.identity).toBe('agent-1');
    expect(received.participant?.kind).toBe(KIND_AGENT);
    expect(received.participant?.metadata).toBe('{"a":1}');
    expect(Number(received.participant?.joinedAt)).toBeCloseTo(Date.now() / 1000, -1);
    expect(Number(received.createdAt)).toBeCloseTo(Date.now() / 1000, -1);
  });

  it('builds participant_left and room_finished with sensible defaults', async () => {
    const left = participantLeft('room-w', 'alice');
    const rLeft = await receiver.receive(...bodyAndAuth(left));
    expect(rLeft.event).toBe('participant_left');
    expect(rLeft.participant?.state).toBe(ParticipantInfo_State.DISCONNECTED);
    expect(rLeft.participant?.identity).toBe('alice');

    const finished = await receiver.receive(...bodyAndAuth(roomFinished({ name: 'room-w', sid: 'RM_x' })));
    expect(finished.event).toBe('room_finished');
    expect(finished.room?.sid).toBe('RM_x');

    const custom = buildEvent({ event: 'room_started', room: 'room-z', id: 'EV_custom', createdAt: 1_700_000_000 });
    const rCustom = await receiver.receive(...bodyAndAuth(custom));
    expect(rCustom.id).toBe('EV_custom');
    expect(rCustom.createdAt).toBe(1_700_000_000n);
  });

  it('is rejected for a tampered body, a wrong secret, a Bearer prefix or an expired token', async () => {
    const { body, headers } = liveKitWebhookRequest(participantJoined('room-w', 'alice'), creds);
    await expect(receiver.receive(body.replace('alice', 'mallory'), headers.Authorization)).rejects.toThrow(/sha256/);
    await expect(receiver.receive(body, signWebhook(body, API_KEY, 'wrong-secret'))).rejects.toThrow();
    await expect(receiver.receive(body, `Bearer ${headers.Authorization}`)).rejects.toThrow();
    await expect(receiver.receive(body, signWebhook(body, API_KEY, API_SECRET, { ttlSeconds: -60 }))).rejects.toThrow();
    await expect(new WebhookReceiver('other-key', API_SECRET).receive(body, headers.Authorization)).rejects.toThrow();
  });

  it('posts through supertest to an endpoint that verifies the raw body', async () => {
    const seen: string[] = [];
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        receiver
          .receive(Buffer.concat(chunks).toString('utf8'), req.headers.authorization)
          .then((ev) => {
            seen.push(`${ev.event}:${req.headers['content-type'] ?? ''}`);
            res.writeHead(200).end();
          })
          .catch(() => res.writeHead(401).end());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await sendLiveKitWebhook(request(server), '/webhooks/livekit', participantJoined('room-w', 'alice'), creds).expect(200);
      await sendLiveKitWebhook(request(server), '/webhooks/livekit', participantJoined('room-w', 'alice'), {
        ...creds,
        apiSecret: 'x',
      }).expect(401);
      expect(seen).toEqual([`participant_joined:${LIVEKIT_WEBHOOK_CONTENT_TYPE}`]);
      expect((server.address() as AddressInfo).port).toBeGreaterThan(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  function bodyAndAuth(ev: Parameters<typeof liveKitWebhookRequest>[0]): [string, string] {
    const { body, headers } = liveKitWebhookRequest(ev, creds);
    return [body, headers.Authorization];
  }
});
