import { decodeJwt, jwtVerify } from 'jose';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import { ParticipantInfo_Kind, ParticipantInfo_State } from '@livekit/protocol';
import { AccessToken, RoomServiceClient } from 'livekit-server-sdk';
import { ServiceUnavailableError } from '../../common/errors/service-unavailable';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';

/** A room as LiveKit's `ListRooms` lists it. */
export interface ListedRoom {
  name: string;
  numParticipants: number;
}

/** A participant as LiveKit's `ListParticipants` lists it. */
export interface ListedParticipant {
  sid: string;
  identity: string;
  isAgent: boolean;
  joinedAt: Date;
  /** JOINED or ACTIVE: in the room (a JOINING participant has not joined yet, a DISCONNECTED one has left). */
  inRoom: boolean;
}

/** LiveKit did not answer a listing, or answered an error: nothing may be concluded from it. */
export class LiveKitListingError extends Error {}

export interface JoinGrant {
  livekitRoom: string;
  identity: string;
  displayName: string | null;
  metadata: Record<string, unknown>;
  ttlSeconds: number;
}

/** The SDK's TokenVerifier's default. */
const WEBHOOK_CLOCK_TOLERANCE_SECONDS = 10;

/** Everything the API asks of LiveKit, through the official SDK. */
@Injectable()
export class LiveKitGateway {
  private readonly logger = new Logger(LiveKitGateway.name);
  private readonly rooms: RoomServiceClient;
  /** The secret that signs LiveKit's webhooks, made a key once (the SDK's verifier imports it per event). */
  private readonly webhookKey: KeyObject;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    const { apiUrl, apiKey, apiSecret } = config.livekit;
    // The SDK aborts each request after `requestTimeout` seconds (AbortSignal.timeout around fetch).
    this.rooms = new RoomServiceClient(apiUrl, apiKey, apiSecret, { requestTimeout: config.timeouts.livekitMs / 1000, failover: false });
    this.webhookKey = createSecretKey(Buffer.from(apiSecret, 'utf8'));
  }

  get clientUrl(): string {
    return this.config.livekit.url;
  }

  async createRoom(livekitRoom: string): Promise<{ sid: string }> {
    try {
      const room = await this.rooms.createRoom({
        name: livekitRoom,
        emptyTimeout: this.config.rooms.emptyTimeoutSeconds,
        departureTimeout: this.config.rooms.departureTimeoutSeconds,
      });
      return { sid: room.sid };
    } catch (error) {
      throw this.unavailable('create the room', error);
    }
  }

  /** Ends the LiveKit room; a room LiveKit no longer knows is already ended. */
  async deleteRoom(livekitRoom: string): Promise<void> {
    try {
      await this.rooms.deleteRoom(livekitRoom);
    } catch (error) {
      if (isTwirpNotFound(error)) return;
      throw this.unavailable('end the room', error);
    }
  }

  /** Every room LiveKit has now. */
  async listRooms(): Promise<ListedRoom[]> {
    try {
      const rooms = await this.rooms.listRooms();
      return rooms.map((room) => ({ name: room.name, numParticipants: room.numParticipants }));
    } catch (error) {
      throw new LiveKitListingError(`ListRooms failed: ${reasonOf(error)}`, { cause: error });
    }
  }

  /** The participants LiveKit lists in the room now. */
  async listParticipants(livekitRoom: string): Promise<ListedParticipant[]> {
    try {
      const participants = await this.rooms.listParticipants(livekitRoom);
      return participants.map((p) => ({
        sid: p.sid,
        identity: p.identity,
        isAgent: p.kind === ParticipantInfo_Kind.AGENT,
        joinedAt: new Date(p.joinedAtMs > 0n ? Number(p.joinedAtMs) : Number(p.joinedAt) * 1000),
        inRoom: p.state === ParticipantInfo_State.JOINED || p.state === ParticipantInfo_State.ACTIVE,
      }));
    } catch (error) {
      throw new LiveKitListingError(`ListParticipants of ${livekitRoom} failed: ${reasonOf(error)}`, { cause: error });
    }
  }

  async joinToken(grant: JoinGrant): Promise<{ token: string; expiresAt: Date }> {
    const token = new AccessToken(this.config.livekit.apiKey, this.config.livekit.apiSecret, {
      identity: grant.identity,
      name: grant.displayName || undefined,
      ttl: grant.ttlSeconds,
      metadata: JSON.stringify(grant.metadata),
    });
    token.addGrant({ roomJoin: true, room: grant.livekitRoom, canPublish: true, canSubscribe: true, canPublishData: true });
    const jwt = await token.toJwt();
    // The `exp` the SDK stamped when signing, so `expires_at` is exactly the token's own expiry.
    return { token: jwt, expiresAt: new Date((decodeJwt(jwt).exp ?? 0) * 1000) };
  }

  /**
   * Whether the Authorization header LiveKit puts on a webhook signs this body. The checks of the
   * SDK's WebhookReceiver.receive and TokenVerifier (a token signed with our secret, issued by our
   * key, with an `exp`, 10 s of clock tolerance; its `sha256` claim the body's), with the key made
   * once and the body hashed by node:crypto: the SDK imports the key and hashes through WebCrypto for
   * every event (docs/performance-history.md, issue 28). Reading the body is the caller's.
   */
  async verifyWebhook(rawBody: string, authorization: string | undefined): Promise<boolean> {
    if (!authorization) return false;
    try {
      const { payload: claims } = await jwtVerify(authorization, this.webhookKey, {
        issuer: this.config.livekit.apiKey,
        clockTolerance: WEBHOOK_CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp'],
      });
      const expected = Buffer.from(createHash('sha256').update(rawBody).digest('base64'));
      const claimed = Buffer.from(typeof claims.sha256 === 'string' ? claims.sha256 : '');
      return claimed.length === expected.length && timingSafeEqual(claimed, expected);
    } catch {
      return false;
    }
  }

  private unavailable(action: string, error: unknown): ServiceUnavailableError {
    const reason = reasonOf(error);
    this.logger.error(
      `LiveKit at ${this.config.livekit.apiUrl} could not ${action}: ${reason} (is a LiveKit server running there? see LIVEKIT_URL)`,
    );
    return new ServiceUnavailableError(
      'livekit',
      `The realtime service is unavailable and could not ${action}; nothing was changed. Try again shortly.`,
      { cause: error },
    );
  }
}

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function isTwirpNotFound(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    ((error as { code?: unknown }).code === 'not_found' || (error as { status?: unknown }).status === 404)
  );
}
