/**
 * A protocol-level double of the LiveKit server API, for tests only.
 *
 * Longer than ~300 lines on purpose: every RoomService and AgentDispatchService method the SDK calls,
 * and the token check each needs, work on one in-memory LiveKit (rooms, participants, dispatches); a
 * split would pass that state between files.
 *
 * It speaks LiveKit's Twirp JSON API exactly as the official `livekit-server-sdk` (v2.x) calls it:
 *
 *   POST /twirp/livekit.RoomService/{CreateRoom,ListRooms,DeleteRoom,ListParticipants,
 *                                    GetParticipant,RemoveParticipant,UpdateParticipant,
 *                                    UpdateRoomMetadata,SendData}
 *   POST /twirp/livekit.AgentDispatchService/{CreateDispatch,DeleteDispatch,ListDispatch}
 *
 * Requests carry `Authorization: Bearer <HS256 JWT>` (iss = API key, `video` grant); the double
 * checks the token and the grant each method needs, like livekit-server's auth middleware and
 * Ensure*Permission helpers, and answers Twirp errors (`{"code","msg"}`, content-type exactly
 * `application/json`, which the SDK's toTwirpError requires to read the JSON).
 * Responses are proto3 JSON (camelCase json names, int64 as strings, enums by name) which the SDK
 * parses with protobuf-es `fromJson(..., { ignoreUnknownFields: true })`.
 *
 * It records every call and answers the way LiveKit would; it never decides product behaviour.
 *
 * Point the SDK at it with:
 *   new RoomServiceClient(double.url, double.apiKey, double.apiSecret)
 *   new AgentDispatchClient(double.url, double.apiKey, double.apiSecret)
 * (127.0.0.1 is not a *.livekit.cloud host, so the SDK makes exactly one attempt: no region failover.)
 */
import http from 'node:http';
import { listenLocally } from './listen-locally';
import {
  type AgentDispatchJson,
  type ParticipantInfoJson,
  type ParticipantKindName,
  type ParticipantPermissionJson,
  type ParticipantStateName,
  type RoomJson,
  type TwirpCode,
  TWIRP_STATUS,
  decodeJwtClaims,
  liveKitId,
  twirpCodeForStatus,
  verifyHs256,
} from './livekit-wire';

export type { AgentDispatchJson, ParticipantInfoJson, ParticipantKindName, RoomJson, TwirpCode } from './livekit-wire';

export const LIVEKIT_DOUBLE_DEFAULT_API_KEY = 'devkey';
export const LIVEKIT_DOUBLE_DEFAULT_API_SECRET = 'secret';

/** LiveKit's defaults for a room created without explicit settings (config.RoomConfig). */
export const LIVEKIT_DEFAULT_EMPTY_TIMEOUT = 300;
export const LIVEKIT_DEFAULT_DEPARTURE_TIMEOUT = 20;

export type RoomServiceMethod =
  | 'CreateRoom'
  | 'ListRooms'
  | 'DeleteRoom'
  | 'ListParticipants'
  | 'GetParticipant'
  | 'RemoveParticipant'
  | 'UpdateParticipant'
  | 'UpdateRoomMetadata'
  | 'SendData';
export type AgentDispatchMethod = 'CreateDispatch' | 'DeleteDispatch' | 'ListDispatch';
export type LiveKitMethod = RoomServiceMethod | AgentDispatchMethod;

/** The `video` grant claims the SDK puts in its API tokens (subset). */
export interface VideoGrantClaims {
  roomCreate?: boolean;
  roomList?: boolean;
  roomRecord?: boolean;
  roomAdmin?: boolean;
  roomJoin?: boolean;
  room?: string;
  destinationRoom?: string;
}

export interface LiveKitCall {
  /** Twirp service, e.g. `RoomService` or `AgentDispatchService`. */
  service: string;
  /** Twirp method, e.g. `CreateRoom`. */
  method: string;
  /** The parsed JSON request body, exactly as the SDK sent it (camelCase proto JSON names). */
  body: unknown;
  /** Date.now() when the request arrived. */
  at: number;
  /** HTTP status the double answered with (set once answered). */
  status: number;
  /** The verified `video` grant, when the request carried a valid token. */
  grants?: VideoGrantClaims;
}

export interface ParticipantSeed {
  identity: string;
  sid?: string;
  name?: string;
  metadata?: string;
  kind?: ParticipantKindName;
  state?: ParticipantStateName;
  attributes?: Record<string, string>;
  permission?: ParticipantPermissionJson;
  /** Join time, ms since epoch (default: now). */
  joinedAtMs?: number;
}

export interface RoomSeed {
  sid?: string;
  emptyTimeout?: number;
  departureTimeout?: number;
  maxParticipants?: number;
  metadata?: string;
  /** Creation time, ms since epoch (default: now). */
  creationTimeMs?: number;
}

export interface LiveKitDoubleOptions {
  apiKey?: string;
  apiSecret?: string;
  /**
   * What CreateDispatch does for a room that does not exist: `create` it (default: an explicit
   * dispatch starts the room) or answer Twirp `not_found`.
   */
  dispatchToMissingRoom?: 'create' | 'not_found';
  /** A fixed port of 127.0.0.1 (default: a free one). */
  port?: number;
  /**
   * Told when livekit-server would send a room webhook: a room created (CreateRoom, or CreateDispatch
   * to a missing room) or deleted (DeleteRoom) through the server API. The double carries no media, so
   * nothing tells it of participants or tracks. Arranging state (`addRoom`, `removeRoom`) tells nothing.
   */
  onRoomEvent?: (event: 'room_started' | 'room_finished', room: RoomJson) => void;
}

export interface LiveKitDouble {
  /** `http://127.0.0.1:<port>`: pass as the host to the SDK clients (or LIVEKIT_API_URL). */
  readonly url: string;
  readonly apiKey: string;
  readonly apiSecret: string;
  /** Every Twirp request received, in order (including rejected and fault-injected ones). */
  readonly calls: LiveKitCall[];
  callsOf(method: LiveKitMethod | (string & {})): LiveKitCall[];
  /** Forgets calls, rooms, participants, dispatches and pending faults/delays. */
  reset(): void;
  /** Forgets recorded calls only. */
  clearCalls(): void;
  /**
   * The next `n` calls of `method` (or of any method with `'*'`) answer HTTP `status`
   * (default 503, Twirp `unavailable`) with a Twirp error body, without touching state.
   */
  failNext(method: LiveKitMethod | '*' | (string & {}), n?: number, status?: number, msg?: string): void;
  /** The next `n` calls of `method` (or `'*'`) are answered after `ms` milliseconds. */
  delayNext(method: LiveKitMethod | '*' | (string & {}), n: number, ms: number): void;
  /** Forgets the faults and delays not used up yet: LiveKit answers normally again. */
  clearFaults(): void;

  // --- LiveKit-side state, for arranging and asserting (what the server would know) ---
  rooms(): RoomJson[];
  room(name: string): RoomJson | undefined;
  /** A room that exists on the server, e.g. auto-created because someone joined it. */
  addRoom(name: string, seed?: RoomSeed): RoomJson;
  /** The room is gone on the server side (e.g. empty timeout elapsed). */
  removeRoom(name: string): boolean;
  /** A participant connected to `room` (the room is auto-created if needed, like a join does). */
  addParticipant(room: string, seed: ParticipantSeed): ParticipantInfoJson;
  /** A participant disconnected. Returns its last info (state DISCONNECTED), if it was there. */
  removeParticipant(room: string, identity: string): ParticipantInfoJson | undefined;
  participants(room: string): ParticipantInfoJson[];
  participant(room: string, identity: string): ParticipantInfoJson | undefined;
  /** Active dispatches of `room`, or of every room. */
  dispatches(room?: string): AgentDispatchJson[];
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Internal state
// ---------------------------------------------------------------------------------------------

interface ParticipantState {
  sid: string;
  identity: string;
  name: string;
  metadata: string;
  kind: ParticipantKindName;
  state: ParticipantStateName;
  attributes: Record<string, string>;
  permission: ParticipantPermissionJson;
  joinedAtMs: number;
  version: number;
}

interface DispatchState {
  id: string;
  agentName: string;
  room: string;
  metadata: string;
  createdAtMs: number;
}

interface RoomState {
  sid: string;
  name: string;
  emptyTimeout: number;
  departureTimeout: number;
  maxParticipants: number;
  metadata: string;
  creationTimeMs: number;
  participants: Map<string, ParticipantState>;
  dispatches: Map<string, DispatchState>;
}

interface Countdown {
  method: string;
  remaining: number;
}
interface Fault extends Countdown {
  status: number;
  msg: string | undefined;
}
interface Delay extends Countdown {
  ms: number;
}

class TwirpFailure extends Error {
  constructor(
    readonly code: TwirpCode,
    msg: string,
    readonly status: number = TWIRP_STATUS[code],
  ) {
    super(msg);
  }
}

// ---------------------------------------------------------------------------------------------
// Request body readers (the SDK sends camelCase json names; snake_case proto names are accepted too)
// ---------------------------------------------------------------------------------------------

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field(body: JsonObject, jsonName: string): unknown {
  if (jsonName in body) return body[jsonName];
  const protoName = jsonName.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return body[protoName];
}

function str(body: JsonObject, name: string): string {
  const v = field(body, name);
  return typeof v === 'string' ? v : '';
}

function num(body: JsonObject, name: string): number {
  const v = field(body, name);
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return 0;
}

function strList(body: JsonObject, name: string): string[] {
  const v = field(body, name);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function objList(body: JsonObject, name: string): JsonObject[] {
  const v = field(body, name);
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function strMap(body: JsonObject, name: string): Record<string, string> | undefined {
  const v = field(body, name);
  if (!isObject(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) if (typeof val === 'string') out[k] = val;
  return out;
}

function toGrants(claims: Record<string, unknown>): VideoGrantClaims | undefined {
  const video = claims.video;
  if (!isObject(video)) return undefined;
  const grants: VideoGrantClaims = {};
  for (const key of ['roomCreate', 'roomList', 'roomRecord', 'roomAdmin', 'roomJoin'] as const) {
    if (typeof video[key] === 'boolean') grants[key] = video[key];
  }
  if (typeof video.room === 'string') grants.room = video.room;
  if (typeof video.destinationRoom === 'string') grants.destinationRoom = video.destinationRoom;
  return grants;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// The double
// ---------------------------------------------------------------------------------------------

class LiveKitDoubleServer implements LiveKitDouble {
  readonly calls: LiveKitCall[] = [];
  url = '';
  private readonly roomsByName = new Map<string, RoomState>();
  private faults: Fault[] = [];
  private delays: Delay[] = [];

  constructor(
    private readonly server: http.Server,
    readonly apiKey: string,
    readonly apiSecret: string,
    private readonly dispatchToMissingRoom: 'create' | 'not_found',
    private readonly onRoomEvent: LiveKitDoubleOptions['onRoomEvent'] = undefined,
  ) {}

  // --- test-facing API ---------------------------------------------------------------------

  callsOf(method: string): LiveKitCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  reset(): void {
    this.calls.length = 0;
    this.roomsByName.clear();
    this.faults = [];
    this.delays = [];
  }

  clearCalls(): void {
    this.calls.length = 0;
  }

  failNext(method: string, n = 1, status = 503, msg?: string): void {
    if (n > 0) this.faults.push({ method, remaining: n, status, msg });
  }

  /** Forgets the faults and delays not used up yet: LiveKit answers normally again. */
  clearFaults(): void {
    this.faults = [];
    this.delays = [];
  }

  delayNext(method: string, n: number, ms: number): void {
    if (n > 0) this.delays.push({ method, remaining: n, ms });
  }

  rooms(): RoomJson[] {
    return [...this.roomsByName.values()].map((r) => this.roomJson(r));
  }

  room(name: string): RoomJson | undefined {
    const r = this.roomsByName.get(name);
    return r ? this.roomJson(r) : undefined;
  }

  addRoom(name: string, seed: RoomSeed = {}): RoomJson {
    const existing = this.roomsByName.get(name);
    if (existing) return this.roomJson(existing);
    const r = this.newRoom(name, seed);
    return this.roomJson(r);
  }

  removeRoom(name: string): boolean {
    return this.roomsByName.delete(name);
  }

  addParticipant(room: string, seed: ParticipantSeed): ParticipantInfoJson {
    const r = this.roomsByName.get(room) ?? this.newRoom(room, {});
    const p: ParticipantState = {
      sid: seed.sid ?? liveKitId('PA_'),
      identity: seed.identity,
      name: seed.name ?? '',
      metadata: seed.metadata ?? '',
      kind: seed.kind ?? 'STANDARD',
      state: seed.state ?? 'ACTIVE',
      attributes: { ...(seed.attributes ?? {}) },
      permission: seed.permission ?? {
        canSubscribe: true,
        canPublish: true,
        canPublishData: true,
        ...(seed.kind === 'AGENT' ? { agent: true } : {}),
      },
      joinedAtMs: seed.joinedAtMs ?? Date.now(),
      version: 1,
    };
    r.participants.set(p.identity, p);
    return participantJson(p);
  }

  removeParticipant(room: string, identity: string): ParticipantInfoJson | undefined {
    const r = this.roomsByName.get(room);
    const p = r?.participants.get(identity);
    if (!r || !p) return undefined;
    r.participants.delete(identity);
    return participantJson({ ...p, state: 'DISCONNECTED', version: p.version + 1 });
  }

  participants(room: string): ParticipantInfoJson[] {
    const r = this.roomsByName.get(room);
    return r ? [...r.participants.values()].map(participantJson) : [];
  }

  participant(room: string, identity: string): ParticipantInfoJson | undefined {
    const p = this.roomsByName.get(room)?.participants.get(identity);
    return p ? participantJson(p) : undefined;
  }

  dispatches(room?: string): AgentDispatchJson[] {
    const rooms = room === undefined ? [...this.roomsByName.values()] : [this.roomsByName.get(room)].filter((r): r is RoomState => !!r);
    return rooms.flatMap((r) => [...r.dispatches.values()].map((d) => dispatchJson(d)));
  }

  close(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.server.close((err) => (err ? reject(err) : resolve()));
      this.server.closeAllConnections();
    });
  }

  // --- HTTP --------------------------------------------------------------------------------

  async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    const raw = Buffer.concat(chunks).toString('utf8');

    const path = new URL(req.url ?? '/', 'http://double').pathname;
    const route = /^\/twirp\/livekit\.([A-Za-z]+)\/([A-Za-z]+)$/.exec(path);
    if (!route) {
      sendTwirpError(res, new TwirpFailure('bad_route', `no handler for path "${path}"`));
      return;
    }
    const service = route[1] ?? '';
    const method = route[2] ?? '';

    let body: unknown = raw;
    let malformed = false;
    if (raw.trim() !== '') {
      try {
        body = JSON.parse(raw) as unknown;
      } catch {
        malformed = true;
      }
    } else {
      body = {};
    }
    const call: LiveKitCall = { service, method, body, at: Date.now(), status: 0 };
    this.calls.push(call);

    const answer = (status: number, payload: unknown): void => {
      call.status = status;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    const fail = (failure: TwirpFailure): void => {
      call.status = failure.status;
      sendTwirpError(res, failure);
    };

    try {
      if (req.method !== 'POST') throw new TwirpFailure('bad_route', `unsupported method ${req.method ?? ''} (only POST is allowed)`);
      const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      if (contentType !== 'application/json') {
        throw new TwirpFailure('bad_route', `unexpected Content-Type: "${req.headers['content-type'] ?? ''}"`);
      }
      if (malformed || !isObject(body)) throw new TwirpFailure('malformed', 'the json request could not be decoded');

      const delay = this.take(this.delays, method);
      if (delay) await sleep(delay.ms);
      const fault = this.take(this.faults, method);
      if (fault) {
        const code = twirpCodeForStatus(fault.status);
        throw new TwirpFailure(code, fault.msg ?? `injected failure (${code})`, fault.status);
      }

      const grants = this.authenticate(req.headers.authorization);
      if (grants) call.grants = grants;
      answer(200, this.dispatch(service, method, body, grants));
    } catch (err) {
      if (err instanceof TwirpFailure) fail(err);
      else fail(new TwirpFailure('internal', err instanceof Error ? err.message : String(err)));
    }
  }

  private take<T extends Countdown>(queue: T[], method: string): T | undefined {
    const entry = queue.find((e) => e.remaining > 0 && (e.method === method || e.method === '*'));
    if (!entry) return undefined;
    entry.remaining -= 1;
    if (entry.remaining === 0) queue.splice(queue.indexOf(entry), 1);
    return entry;
  }

  /** livekit-server's APIKeyAuthMiddleware: no header means no grants; a bad header is a 401. */
  private authenticate(header: string | undefined): VideoGrantClaims | undefined {
    if (header === undefined || header === '') return undefined;
    if (!header.startsWith('Bearer ')) {
      throw new TwirpFailure('unauthenticated', 'invalid authorization header. Must start with Bearer ');
    }
    const token = header.slice('Bearer '.length);
    const unverified = decodeJwtClaims(token);
    if (!unverified) throw new TwirpFailure('unauthenticated', 'invalid authorization token');
    if (unverified.iss !== this.apiKey) {
      throw new TwirpFailure('unauthenticated', `invalid API key: ${String(unverified.iss)}`);
    }
    const verified = verifyHs256(token, this.apiSecret, { issuer: this.apiKey });
    if (!verified.ok) throw new TwirpFailure('unauthenticated', `invalid token: ${verified.reason}`);
    return toGrants(verified.claims) ?? {};
  }

  private dispatch(service: string, method: string, body: JsonObject, grants: VideoGrantClaims | undefined): unknown {
    if (service === 'RoomService') {
      switch (method) {
        case 'CreateRoom':
          ensureCreate(grants);
          return this.createRoom(body);
        case 'ListRooms': {
          ensureList(grants);
          const names = strList(body, 'names');
          const rooms = [...this.roomsByName.values()].filter((r) => names.length === 0 || names.includes(r.name));
          return { rooms: rooms.map((r) => this.roomJson(r)) };
        }
        case 'DeleteRoom': {
          ensureCreate(grants);
          const name = str(body, 'room');
          const deleted = this.roomsByName.get(name);
          if (!deleted) throw new TwirpFailure('not_found', 'requested room does not exist');
          this.roomsByName.delete(name);
          this.onRoomEvent?.('room_finished', this.roomJson(deleted));
          return {};
        }
        case 'ListParticipants': {
          const room = str(body, 'room');
          ensureAdmin(grants, room);
          return { participants: this.participants(room) };
        }
        case 'GetParticipant': {
          const room = str(body, 'room');
          ensureAdmin(grants, room);
          const p = this.participant(room, str(body, 'identity'));
          if (!p) throw new TwirpFailure('not_found', 'participant does not exist');
          return p;
        }
        case 'RemoveParticipant': {
          const room = str(body, 'room');
          ensureAdmin(grants, room);
          if (!this.removeParticipant(room, str(body, 'identity'))) {
            throw new TwirpFailure('not_found', 'participant not found');
          }
          return {};
        }
        case 'UpdateParticipant':
          ensureAdmin(grants, str(body, 'room'));
          return this.updateParticipant(body);
        case 'UpdateRoomMetadata': {
          const room = str(body, 'room');
          ensureAdmin(grants, room);
          const r = this.roomsByName.get(room);
          if (!r) throw new TwirpFailure('not_found', 'requested room does not exist');
          r.metadata = str(body, 'metadata');
          return this.roomJson(r);
        }
        case 'SendData':
          ensureAdmin(grants, str(body, 'room'));
          return {};
        default:
          break;
      }
    }
    if (service === 'AgentDispatchService') {
      const room = str(body, 'room');
      switch (method) {
        case 'CreateDispatch': {
          ensureAdmin(grants, room);
          let r = this.roomsByName.get(room);
          if (!r) {
            if (this.dispatchToMissingRoom === 'not_found') throw new TwirpFailure('not_found', 'requested room does not exist');
            r = this.newRoom(room, {});
            this.onRoomEvent?.('room_started', this.roomJson(r));
          }
          const d = this.newDispatch(r, str(body, 'agentName'), str(body, 'metadata'));
          return dispatchJson(d);
        }
        case 'DeleteDispatch': {
          ensureAdmin(grants, room);
          const r = this.roomsByName.get(room);
          const id = str(body, 'dispatchId');
          const d = r?.dispatches.get(id);
          if (!r || !d) throw new TwirpFailure('not_found', `dispatch ${id} not found`);
          r.dispatches.delete(id);
          return dispatchJson(d, Date.now());
        }
        case 'ListDispatch': {
          ensureAdmin(grants, room);
          const id = str(body, 'dispatchId');
          const list = this.dispatches(room).filter((d) => id === '' || d.id === id);
          return { agentDispatches: list };
        }
        default:
          break;
      }
    }
    if (service === 'RoomService' || service === 'AgentDispatchService') {
      throw new TwirpFailure('unimplemented', `livekit double: ${service}/${method} is not implemented`);
    }
    throw new TwirpFailure('bad_route', `no handler for path "/twirp/livekit.${service}/${method}"`);
  }

  /** StandardRoomAllocator.CreateRoom: reuse an existing room, applying the non-zero settings given. */
  private createRoom(body: JsonObject): RoomJson {
    const name = str(body, 'name');
    if (name === '') throw new TwirpFailure('invalid_argument', 'room name is required');
    let r = this.roomsByName.get(name);
    const created = !r;
    r ??= this.newRoom(name, {});
    const emptyTimeout = num(body, 'emptyTimeout');
    const departureTimeout = num(body, 'departureTimeout');
    const maxParticipants = num(body, 'maxParticipants');
    const metadata = str(body, 'metadata');
    if (emptyTimeout > 0) r.emptyTimeout = emptyTimeout;
    if (departureTimeout > 0) r.departureTimeout = departureTimeout;
    if (maxParticipants > 0) r.maxParticipants = maxParticipants;
    if (metadata !== '') r.metadata = metadata;
    if (created) {
      for (const agent of objList(body, 'agents')) this.newDispatch(r, str(agent, 'agentName'), str(agent, 'metadata'));
      this.onRoomEvent?.('room_started', this.roomJson(r));
    }
    return this.roomJson(r);
  }

  private updateParticipant(body: JsonObject): ParticipantInfoJson {
    const r = this.roomsByName.get(str(body, 'room'));
    const p = r?.participants.get(str(body, 'identity'));
    if (!p) throw new TwirpFailure('not_found', 'participant does not exist');
    const metadata = str(body, 'metadata');
    const name = str(body, 'name');
    if (metadata !== '') p.metadata = metadata;
    if (name !== '') p.name = name;
    const attributes = strMap(body, 'attributes');
    if (attributes) {
      for (const [k, v] of Object.entries(attributes)) {
        if (v === '') delete p.attributes[k];
        else p.attributes[k] = v;
      }
    }
    const permission = field(body, 'permission');
    if (isObject(permission)) {
      const next: ParticipantPermissionJson = {};
      for (const key of ['canSubscribe', 'canPublish', 'canPublishData', 'canUpdateMetadata', 'hidden', 'agent'] as const) {
        const v = field(permission, key);
        if (typeof v === 'boolean') next[key] = v;
      }
      p.permission = next;
    }
    p.version += 1;
    return participantJson(p);
  }

  private newRoom(name: string, seed: RoomSeed): RoomState {
    const r: RoomState = {
      sid: seed.sid ?? liveKitId('RM_'),
      name,
      emptyTimeout: seed.emptyTimeout ?? LIVEKIT_DEFAULT_EMPTY_TIMEOUT,
      departureTimeout: seed.departureTimeout ?? LIVEKIT_DEFAULT_DEPARTURE_TIMEOUT,
      maxParticipants: seed.maxParticipants ?? 0,
      metadata: seed.metadata ?? '',
      creationTimeMs: seed.creationTimeMs ?? Date.now(),
      participants: new Map(),
      dispatches: new Map(),
    };
    this.roomsByName.set(name, r);
    return r;
  }

  private newDispatch(r: RoomState, agentName: string, metadata: string): DispatchState {
    const d: DispatchState = { id: liveKitId('AD_'), agentName, room: r.name, metadata, createdAtMs: Date.now() };
    r.dispatches.set(d.id, d);
    return d;
  }

  private roomJson(r: RoomState): RoomJson {
    const participants = [...r.participants.values()];
    return {
      sid: r.sid,
      name: r.name,
      emptyTimeout: r.emptyTimeout,
      departureTimeout: r.departureTimeout,
      maxParticipants: r.maxParticipants,
      creationTime: String(Math.floor(r.creationTimeMs / 1000)),
      creationTimeMs: String(r.creationTimeMs),
      metadata: r.metadata,
      numParticipants: participants.length,
      numPublishers: participants.filter((p) => p.state === 'ACTIVE' && isPublisher(p)).length,
      activeRecording: false,
    };
  }
}

/** The double models no tracks, so nobody has published anything. */
function isPublisher(_p: ParticipantState): boolean {
  return false;
}

function participantJson(p: ParticipantState): ParticipantInfoJson {
  return {
    sid: p.sid,
    identity: p.identity,
    state: p.state,
    metadata: p.metadata,
    joinedAt: String(Math.floor(p.joinedAtMs / 1000)),
    joinedAtMs: String(p.joinedAtMs),
    name: p.name,
    version: p.version,
    permission: { ...p.permission },
    isPublisher: isPublisher(p),
    kind: p.kind,
    attributes: { ...p.attributes },
  };
}

function dispatchJson(d: DispatchState, deletedAtMs?: number): AgentDispatchJson {
  const ns = (ms: number): string => (BigInt(ms) * 1_000_000n).toString();
  return {
    id: d.id,
    agentName: d.agentName,
    room: d.room,
    metadata: d.metadata,
    state: { createdAt: ns(d.createdAtMs), ...(deletedAtMs !== undefined ? { deletedAt: ns(deletedAtMs) } : {}) },
  };
}

// livekit-server's Ensure*Permission: a missing/insufficient grant is Twirp `unauthenticated`.
function ensureCreate(grants: VideoGrantClaims | undefined): void {
  if (!grants?.roomCreate) throw new TwirpFailure('unauthenticated', 'permissions denied');
}
function ensureList(grants: VideoGrantClaims | undefined): void {
  if (!grants?.roomList) throw new TwirpFailure('unauthenticated', 'permissions denied');
}
function ensureAdmin(grants: VideoGrantClaims | undefined, room: string): void {
  if (!grants?.roomAdmin || grants.room !== room) throw new TwirpFailure('unauthenticated', 'permissions denied');
}

function sendTwirpError(res: http.ServerResponse, failure: TwirpFailure): void {
  // Exactly `application/json`: the SDK only parses the body as JSON on an exact match.
  res.writeHead(failure.status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ code: failure.code, msg: failure.message }));
}

export async function startLiveKitDouble(opts: LiveKitDoubleOptions = {}): Promise<LiveKitDouble> {
  const server = http.createServer();
  const double = new LiveKitDoubleServer(
    server,
    opts.apiKey ?? LIVEKIT_DOUBLE_DEFAULT_API_KEY,
    opts.apiSecret ?? LIVEKIT_DOUBLE_DEFAULT_API_SECRET,
    opts.dispatchToMissingRoom ?? 'create',
    opts.onRoomEvent,
  );
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    double.handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendTwirpError(res, new TwirpFailure('internal', err instanceof Error ? err.message : String(err)));
    });
  });
  double.url = await listenLocally(server, opts.port);
  return double;
}
