/**
 * LiveKit webhooks as LiveKit sends them, for tests only.
 *
 * What livekit-server does (protocol/webhook URL notifier), and what `livekit-server-sdk`'s
 * WebhookReceiver.receive(body, authHeader) checks:
 *   - POST, `Content-Type: application/webhook+json`, body = proto3 JSON of a livekit.WebhookEvent
 *     (camelCase json names, int64 as strings, enums by name, zero values omitted);
 *   - `Authorization: <jwt>` with NO `Bearer ` prefix (the SDK hands the header value straight to
 *     jose.jwtVerify). The JWT is HS256 with the API secret, `iss` = API key, `nbf`/`exp` (exp is
 *     required by the SDK; LiveKit makes it valid for 5 minutes) and a `sha256` claim = base64
 *     (standard alphabet) of SHA-256 over the exact body bytes.
 *   Note: the SDK exports `authorizeHeader = "Authorize"`, but LiveKit sends `Authorization`;
 *   read the `authorization` request header.
 *
 * The builders only shape events; they never decide what the product does with them.
 */
import type { DisconnectReasonName, ParticipantInfoJson, RoomEndReasonName, RoomJson, TrackInfoJson } from './livekit-wire';
import { liveKitId, nowSeconds, sha256Base64, signHs256 } from './livekit-wire';

export type {
  DisconnectReasonName,
  ParticipantInfoJson,
  ParticipantKindName,
  RoomEndReasonName,
  RoomJson,
  TrackInfoJson,
} from './livekit-wire';

export const LIVEKIT_WEBHOOK_CONTENT_TYPE = 'application/webhook+json';

export type WebhookEventName =
  | 'room_started'
  | 'room_finished'
  | 'participant_joined'
  | 'participant_left'
  | 'participant_connection_aborted'
  | 'track_published'
  | 'track_unpublished'
  | 'egress_started'
  | 'egress_updated'
  | 'egress_ended'
  | 'ingress_started'
  | 'ingress_ended';

/** livekit.WebhookEvent as JSON (the fields these builders produce). */
export interface WebhookEventJson {
  event: WebhookEventName;
  room?: RoomJson;
  participant?: ParticipantInfoJson;
  track?: TrackInfoJson;
  /** `EV_...` */
  id: string;
  /** int64 unix seconds, as a string */
  createdAt: string;
  numDropped?: number;
  roomEndReason?: RoomEndReasonName;
}

export interface LiveKitCredentials {
  apiKey: string;
  apiSecret: string;
}

/** A room name, or room fields (e.g. `double.room('x')`, or `{ name, sid }` to keep a stable sid). */
export type RoomInput = string | (Partial<RoomJson> & { name: string });
/** An identity, or participant fields (e.g. `double.participant(room, id)`, or `{ identity, kind: 'AGENT' }`). */
export type ParticipantInput = string | (Partial<ParticipantInfoJson> & { identity: string });

export interface EventMeta {
  /** Event id (default: a fresh `EV_...`). */
  id?: string;
  /** Event time, unix seconds (default: now). */
  createdAt?: number;
}

export interface BuildEventInput extends EventMeta {
  event: WebhookEventName;
  room?: RoomInput;
  participant?: ParticipantInput;
  track?: TrackInfoJson;
  numDropped?: number;
  roomEndReason?: RoomEndReasonName;
}

/** Room fields as LiveKit reports them; a fresh `RM_` sid unless one is given. */
export function buildRoom(input: RoomInput): RoomJson {
  const given = typeof input === 'string' ? { name: input } : input;
  const creationTimeMs = given.creationTimeMs ?? (given.creationTime !== undefined ? `${given.creationTime}000` : String(Date.now()));
  return {
    sid: liveKitId('RM_'),
    emptyTimeout: 300,
    departureTimeout: 20,
    creationTime: String(Math.floor(Number(creationTimeMs) / 1000)),
    creationTimeMs,
    ...given,
  };
}

/** Participant fields as LiveKit reports them; a fresh `PA_` sid unless one is given. */
export function buildParticipant(input: ParticipantInput, defaults: Partial<ParticipantInfoJson> = {}): ParticipantInfoJson {
  const given = typeof input === 'string' ? { identity: input } : input;
  const joinedAtMs = given.joinedAtMs ?? (given.joinedAt !== undefined ? `${given.joinedAt}000` : String(Date.now()));
  const kind = given.kind ?? defaults.kind ?? 'STANDARD';
  return {
    sid: liveKitId('PA_'),
    state: 'ACTIVE',
    joinedAt: String(Math.floor(Number(joinedAtMs) / 1000)),
    joinedAtMs,
    version: 1,
    permission: { canSubscribe: true, canPublish: true, canPublishData: true, ...(kind === 'AGENT' ? { agent: true } : {}) },
    kind,
    ...defaults,
    ...given,
  };
}

/** Any webhook event; room/participant given by name/identity get LiveKit-like defaults. */
export function buildEvent(input: BuildEventInput): WebhookEventJson {
  const out: WebhookEventJson = {
    event: input.event,
    id: input.id ?? liveKitId('EV_'),
    createdAt: String(input.createdAt ?? nowSeconds()),
  };
  if (input.room !== undefined) out.room = buildRoom(input.room);
  if (input.participant !== undefined) out.participant = buildParticipant(input.participant);
  if (input.track !== undefined) out.track = input.track;
  if (input.numDropped !== undefined) out.numDropped = input.numDropped;
  if (input.roomEndReason !== undefined) out.roomEndReason = input.roomEndReason;
  return out;
}

export function roomStarted(room: RoomInput, meta: EventMeta = {}): WebhookEventJson {
  return buildEvent({ ...meta, event: 'room_started', room });
}

export function roomFinished(room: RoomInput, meta: EventMeta & { roomEndReason?: RoomEndReasonName } = {}): WebhookEventJson {
  return buildEvent({ ...meta, event: 'room_finished', room });
}

export function participantJoined(room: RoomInput, participant: ParticipantInput, meta: EventMeta = {}): WebhookEventJson {
  return buildEvent({ ...meta, event: 'participant_joined', room, participant: buildParticipant(participant, { state: 'ACTIVE' }) });
}

/** `participant_left`: state DISCONNECTED, disconnectReason CLIENT_INITIATED unless given. */
export function participantLeft(
  room: RoomInput,
  participant: ParticipantInput,
  meta: EventMeta & { disconnectReason?: DisconnectReasonName } = {},
): WebhookEventJson {
  const { disconnectReason, ...eventMeta } = meta;
  const p = buildParticipant(participant, { disconnectReason: 'CLIENT_INITIATED' });
  p.state = 'DISCONNECTED';
  if (disconnectReason !== undefined) p.disconnectReason = disconnectReason;
  return buildEvent({ ...eventMeta, event: 'participant_left', room, participant: p });
}

// ---------------------------------------------------------------------------------------------
// Serialisation and signing
// ---------------------------------------------------------------------------------------------

/** Zero values of enum fields, by json name (protojson leaves zero values out). */
const ENUM_ZERO: Readonly<Record<string, string>> = {
  kind: 'STANDARD',
  state: 'JOINING',
  disconnectReason: 'UNKNOWN_REASON',
  roomEndReason: 'ROOM_END_UNKNOWN',
  type: 'AUDIO',
  source: 'UNKNOWN',
};

function omitZeroValues(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) {
    const items = value.map((v) => omitZeroValues(v)).filter((v) => v !== undefined);
    return items.length ? items : undefined;
  }
  if (typeof value === 'object' && value !== null) {
    // Maps (attributes) keep every entry, and are left out only when empty.
    if (key === 'attributes') return Object.keys(value).length ? value : undefined;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const kept = omitZeroValues(v, k);
      if (kept !== undefined) out[k] = kept;
    }
    // A set message field stays present even when all its fields are zero (e.g. permission: {}).
    return out;
  }
  if (value === '' || value === 0 || value === false || value === undefined || value === null) return undefined;
  if (key !== undefined && ENUM_ZERO[key] === value) return undefined;
  return value;
}

/** The body LiveKit would POST: protojson of the event (zero values omitted). */
export function serializeEvent(event: WebhookEventJson): string {
  return JSON.stringify(omitZeroValues(event));
}

export interface SignOptions {
  /** Token issue time, unix seconds (default: now). */
  now?: number;
  /** Validity in seconds (default 300, as LiveKit). Use a negative value to mint an expired token. */
  ttlSeconds?: number;
  /** Override the `sha256` claim (e.g. to simulate a body/claim mismatch). */
  sha256?: string;
}

/** The `Authorization` header value LiveKit sends for `body` (a bare JWT, no `Bearer `). */
export function signWebhook(body: string, apiKey: string, apiSecret: string, opts: SignOptions = {}): string {
  const now = opts.now ?? nowSeconds();
  const exp = now + (opts.ttlSeconds ?? 300);
  return signHs256({ iss: apiKey, nbf: Math.min(now, exp), exp, sha256: opts.sha256 ?? sha256Base64(body) }, apiSecret);
}

export interface LiveKitWebhookRequest {
  body: string;
  headers: { 'Content-Type': string; Authorization: string };
}

/** Body + headers of the POST LiveKit would make for `event` (an object, or an already serialised body). */
export function liveKitWebhookRequest(
  event: WebhookEventJson | string,
  creds: LiveKitCredentials,
  opts: SignOptions = {},
): LiveKitWebhookRequest {
  const body = typeof event === 'string' ? event : serializeEvent(event);
  return {
    body,
    headers: { 'Content-Type': LIVEKIT_WEBHOOK_CONTENT_TYPE, Authorization: signWebhook(body, creds.apiKey, creds.apiSecret, opts) },
  };
}

/** What `sendLiveKitWebhook` needs from a supertest agent (`request(app.getHttpServer())`). */
export interface SupertestLikeAgent<T> {
  post(url: string): { set(headers: Record<string, string>): { send(body: string): T } };
}

/**
 * Posts the signed webhook through a supertest agent and returns supertest's Test, so it can be
 * awaited or chained: `await sendLiveKitWebhook(request(server), '/webhooks/livekit', ev, creds).expect(200)`.
 */
export function sendLiveKitWebhook<T>(
  agent: SupertestLikeAgent<T>,
  path: string,
  event: WebhookEventJson | string,
  creds: LiveKitCredentials,
  opts: SignOptions = {},
): T {
  const { body, headers } = liveKitWebhookRequest(event, creds, opts);
  return agent.post(path).set(headers).send(body);
}

/** Same, with fetch against a listening base URL. */
export function postLiveKitWebhook(
  baseUrl: string,
  path: string,
  event: WebhookEventJson | string,
  creds: LiveKitCredentials,
  opts: SignOptions = {},
): Promise<Response> {
  const { body, headers } = liveKitWebhookRequest(event, creds, opts);
  return fetch(new URL(path, baseUrl), { method: 'POST', headers, body });
}
