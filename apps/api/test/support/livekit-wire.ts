/**
 * Wire-level pieces shared by the LiveKit test doubles (test code only).
 *
 * - The JSON shapes LiveKit puts on the wire (proto3 JSON, lowerCamelCase json names, int64 as
 *   decimal strings, enums as their proto names), as `livekit-server-sdk` parses them with
 *   protobuf-es `fromJson(..., { ignoreUnknownFields: true })`.
 * - LiveKit-style ids (`RM_`, `PA_`, `AD_`, `EV_` + 12 base62 chars, like protocol's guid.New).
 * - HS256 JWT signing / verification with node:crypto, matching what LiveKit mints and checks:
 *   `iss` = API key, `nbf`/`exp` in seconds, custom claims (`video`, `sha256`, ...).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// ---------------------------------------------------------------------------------------------
// Enum names (livekit_models.proto) as protobuf-es reads them from JSON.
// ---------------------------------------------------------------------------------------------

export type ParticipantKindName = 'STANDARD' | 'INGRESS' | 'EGRESS' | 'SIP' | 'AGENT' | 'CONNECTOR' | 'BRIDGE';
export type ParticipantStateName = 'JOINING' | 'JOINED' | 'ACTIVE' | 'DISCONNECTED';
export type DisconnectReasonName =
  | 'UNKNOWN_REASON'
  | 'CLIENT_INITIATED'
  | 'DUPLICATE_IDENTITY'
  | 'SERVER_SHUTDOWN'
  | 'PARTICIPANT_REMOVED'
  | 'ROOM_DELETED'
  | 'STATE_MISMATCH'
  | 'JOIN_FAILURE'
  | 'MIGRATION'
  | 'SIGNAL_CLOSE'
  | 'ROOM_CLOSED'
  | 'USER_UNAVAILABLE'
  | 'USER_REJECTED'
  | 'SIP_TRUNK_FAILURE'
  | 'CONNECTION_TIMEOUT'
  | 'MEDIA_FAILURE'
  | 'AGENT_ERROR';
export type RoomEndReasonName =
  | 'ROOM_END_UNKNOWN'
  | 'ROOM_END_API_DELETE'
  | 'ROOM_END_IDLE_TIMEOUT'
  | 'ROOM_END_SERVER_SHUTDOWN'
  | 'ROOM_END_SUPERSEDED'
  | 'ROOM_END_OPEN_FAILED';
export type TrackTypeName = 'AUDIO' | 'VIDEO' | 'DATA';
export type TrackSourceName = 'UNKNOWN' | 'CAMERA' | 'MICROPHONE' | 'SCREEN_SHARE' | 'SCREEN_SHARE_AUDIO';

// ---------------------------------------------------------------------------------------------
// Message JSON shapes (only the fields the doubles produce; all proto3 JSON names).
// ---------------------------------------------------------------------------------------------

/** livekit.Room */
export interface RoomJson {
  sid: string;
  name: string;
  emptyTimeout?: number;
  departureTimeout?: number;
  maxParticipants?: number;
  /** int64 unix seconds, as a string */
  creationTime?: string;
  /** int64 unix milliseconds, as a string */
  creationTimeMs?: string;
  metadata?: string;
  numParticipants?: number;
  numPublishers?: number;
  activeRecording?: boolean;
}

/** livekit.ParticipantPermission */
export interface ParticipantPermissionJson {
  canSubscribe?: boolean;
  canPublish?: boolean;
  canPublishData?: boolean;
  canUpdateMetadata?: boolean;
  hidden?: boolean;
  agent?: boolean;
}

/** livekit.ParticipantInfo */
export interface ParticipantInfoJson {
  sid: string;
  identity: string;
  state?: ParticipantStateName;
  metadata?: string;
  /** int64 unix seconds, as a string */
  joinedAt?: string;
  /** int64 unix milliseconds, as a string */
  joinedAtMs?: string;
  name?: string;
  version?: number;
  permission?: ParticipantPermissionJson;
  isPublisher?: boolean;
  kind?: ParticipantKindName;
  attributes?: Record<string, string>;
  disconnectReason?: DisconnectReasonName;
}

/** livekit.TrackInfo (subset) */
export interface TrackInfoJson {
  sid: string;
  type?: TrackTypeName;
  name?: string;
  muted?: boolean;
  source?: TrackSourceName;
}

/** livekit.AgentDispatchState (subset) */
export interface AgentDispatchStateJson {
  /** int64 unix nanoseconds, as a string */
  createdAt?: string;
  /** int64 unix nanoseconds, as a string */
  deletedAt?: string;
}

/** livekit.AgentDispatch */
export interface AgentDispatchJson {
  id: string;
  agentName: string;
  room: string;
  metadata?: string;
  state?: AgentDispatchStateJson;
}

/** Twirp error codes (https://twitchtv.github.io/twirp/docs/spec_v7.html#error-codes). */
export type TwirpCode =
  | 'canceled'
  | 'unknown'
  | 'invalid_argument'
  | 'malformed'
  | 'deadline_exceeded'
  | 'not_found'
  | 'bad_route'
  | 'already_exists'
  | 'permission_denied'
  | 'unauthenticated'
  | 'resource_exhausted'
  | 'failed_precondition'
  | 'aborted'
  | 'out_of_range'
  | 'unimplemented'
  | 'internal'
  | 'unavailable'
  | 'dataloss';

export const TWIRP_STATUS: Readonly<Record<TwirpCode, number>> = {
  canceled: 408,
  unknown: 500,
  invalid_argument: 400,
  malformed: 400,
  deadline_exceeded: 408,
  not_found: 404,
  bad_route: 404,
  already_exists: 409,
  permission_denied: 403,
  unauthenticated: 401,
  resource_exhausted: 429,
  failed_precondition: 412,
  aborted: 409,
  out_of_range: 400,
  unimplemented: 501,
  internal: 500,
  unavailable: 503,
  dataloss: 500,
};

/** The Twirp code a server would pair with an HTTP status (first match in the spec's table). */
export function twirpCodeForStatus(status: number): TwirpCode {
  const byStatus: Record<number, TwirpCode> = {
    400: 'invalid_argument',
    401: 'unauthenticated',
    403: 'permission_denied',
    404: 'not_found',
    408: 'deadline_exceeded',
    409: 'already_exists',
    412: 'failed_precondition',
    429: 'resource_exhausted',
    500: 'internal',
    501: 'unimplemented',
    503: 'unavailable',
  };
  return byStatus[status] ?? (status >= 500 ? 'internal' : 'unknown');
}

// ---------------------------------------------------------------------------------------------
// Ids
// ---------------------------------------------------------------------------------------------

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `prefix` + 12 base62 characters, the shape of LiveKit's guid.New (e.g. `RM_3xK9...`). */
export function liveKitId(prefix: 'RM_' | 'PA_' | 'AD_' | 'EV_' | 'TR_' | string): string {
  const bytes = randomBytes(12);
  let out = prefix;
  for (const b of bytes) out += BASE62[b % BASE62.length];
  return out;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

// ---------------------------------------------------------------------------------------------
// HS256 JWT (node:crypto)
// ---------------------------------------------------------------------------------------------

export type JwtClaims = Record<string, unknown>;

const b64url = (buf: Buffer): string => buf.toString('base64url');
const b64urlJson = (value: unknown): string => b64url(Buffer.from(JSON.stringify(value), 'utf8'));

/** Signs `claims` as an HS256 JWT, the way LiveKit's auth packages do (`{"alg":"HS256","typ":"JWT"}`). */
export function signHs256(claims: JwtClaims, secret: string): string {
  const signingInput = `${b64urlJson({ alg: 'HS256', typ: 'JWT' })}.${b64urlJson(claims)}`;
  const sig = createHmac('sha256', secret).update(signingInput).digest();
  return `${signingInput}.${b64url(sig)}`;
}

export type JwtVerifyResult = { ok: true; claims: JwtClaims } | { ok: false; reason: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJsonSegment(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Reads the claims without checking anything (to find `iss` before choosing a secret). */
export function decodeJwtClaims(token: string): JwtClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const claims = parseJsonSegment(parts[1] ?? '');
  return isRecord(claims) ? claims : undefined;
}

/**
 * Verifies an HS256 JWT: structure, `alg`, signature, `iss`, `nbf` and `exp` (with leeway), and
 * that `exp` is present (livekit-server-sdk's TokenVerifier requires it too).
 */
export function verifyHs256(
  token: string,
  secret: string,
  expected: { issuer: string; clockToleranceSeconds?: number; now?: number },
): JwtVerifyResult {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'malformed token' };
  const [h = '', p = '', s = ''] = parts;
  const header = parseJsonSegment(h);
  if (!isRecord(header) || header.alg !== 'HS256') return { ok: false, reason: 'unsupported alg' };
  const expectedSig = createHmac('sha256', secret).update(`${h}.${p}`).digest();
  const actualSig = Buffer.from(s, 'base64url');
  if (actualSig.length !== expectedSig.length || !timingSafeEqual(actualSig, expectedSig)) {
    return { ok: false, reason: 'signature mismatch' };
  }
  const claims = parseJsonSegment(p);
  if (!isRecord(claims)) return { ok: false, reason: 'malformed claims' };
  if (claims.iss !== expected.issuer) return { ok: false, reason: 'issuer mismatch' };
  const now = expected.now ?? nowSeconds();
  const leeway = expected.clockToleranceSeconds ?? 10;
  if (typeof claims.exp !== 'number') return { ok: false, reason: 'missing exp' };
  if (claims.exp + leeway < now) return { ok: false, reason: 'token expired' };
  if (typeof claims.nbf === 'number' && claims.nbf - leeway > now) return { ok: false, reason: 'token not yet valid' };
  return { ok: true, claims };
}

/** base64 (standard alphabet, padded) of SHA-256 over the UTF-8 bytes: LiveKit's webhook `sha256` claim. */
export function sha256Base64(body: string): string {
  return createHash('sha256').update(body, 'utf8').digest('base64');
}
