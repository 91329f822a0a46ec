import { Inject, Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import { toPage, type Page } from '../../common/pagination/page';
import { OrganizationVersions } from '../../common/caching/organization-versions';
import { VersionedCache } from '../../common/caching/versioned-cache';
import { APP_CONFIG } from '../../config/config.module';
import { poolOf, preparedQuery } from '../../database/prepared-query';
import type { AppConfig } from '../../config/app-config';
import type { ParticipantUsageView } from '../rooms/room.dto';
import type {
  AlertsDto,
  AlertsView,
  CheckoutDto,
  CheckoutView,
  CreditView,
  HistoryLineView,
  HistoryQueryDto,
  RoomUsageView,
} from './billing.dto';
import { CreditAccountsRepository } from './credit-accounts.repository';
import { StripeGateway } from './stripe.gateway';

interface LineRow {
  kind: string;
  occurred_at: Date;
  delta_cents: number;
  currency: string;
  provider_reference: string | null;
  room_id: string | null;
}

type RoomRow = Omit<RoomUsageView, 'participants'>;

/** A timestamptz as JavaScript's Date#toJSON writes it, so every endpoint shows times alike. */
const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Stands in for a room's breakdown until the page is serialized; no field of a history line can contain `@@`. */
const BREAKDOWN_MARKER = /"@@breakdown:([0-9a-f-]{36})@@"/g;
const breakdownMarker = (roomId: string) => `@@breakdown:${roomId}@@` as unknown as ParticipantUsageView[];

const HISTORY_VERSION = `SELECT coalesce((SELECT version FROM history_versions WHERE organization_id = $1), 0)::text AS version`;

/** Appends `session_id={CHECKOUT_SESSION_ID}` (Stripe fills in the placeholder; it must stay unencoded). */
export function withSessionId(url: string): string {
  const [base, fragment] = url.split('#', 2);
  const joined = `${base}${base.includes('?') ? '&' : '?'}session_id={CHECKOUT_SESSION_ID}`;
  return fragment === undefined ? joined : `${joined}#${fragment}`;
}

@Injectable()
export class BillingService {
  /** Dashboards read the first pages again and again; history changes far less often. */
  private readonly historyCache = new VersionedCache(32 * 1024 * 1024);
  private readonly historyVersions: OrganizationVersions;

  constructor(
    private readonly dataSource: DataSource,
    private readonly stripe: StripeGateway,
    private readonly accounts: CreditAccountsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.historyVersions = new OrganizationVersions(dataSource, 'history_versions');
  }

  async credit(actor: Actor): Promise<CreditView> {
    const { balance, lowBalanceCents } = await this.accounts.readAccount(actor.organizationId);
    const { credit, rates } = this.config;
    return {
      credit_cents: balance,
      low_balance_cents: lowBalanceCents,
      currency: credit.currency,
      rates: [
        { participant_class: 'participant', cents_per_minute: rates.participantCentsPerMinute },
        { participant_class: 'translator', cents_per_minute: rates.translatorCentsPerMinute },
      ],
      min_topup_cents: credit.minTopupCents,
      max_topup_cents: credit.maxTopupCents,
    };
  }

  async alerts(actor: Actor): Promise<AlertsView> {
    const { lowBalanceCents } = await this.accounts.readAccount(actor.organizationId);
    return { low_balance_cents: lowBalanceCents };
  }

  /** Setting the threshold sends nothing: an alert is sent when the balance crosses it. */
  async setAlerts(actor: Actor, dto: AlertsDto): Promise<AlertsView> {
    await this.dataSource.query(
      `INSERT INTO credit_accounts (organization_id, balance_cents, currency, low_balance_cents) VALUES ($1, 0, $2, $3)
       ON CONFLICT (organization_id) DO UPDATE SET low_balance_cents = EXCLUDED.low_balance_cents`,
      [actor.organizationId, this.config.credit.currency, dto.low_balance_cents],
    );
    return { low_balance_cents: dto.low_balance_cents };
  }

  async checkout(actor: Actor, dto: CheckoutDto): Promise<CheckoutView> {
    const { minTopupCents, maxTopupCents, currency } = this.config.credit;
    if (dto.amount_cents < minTopupCents || dto.amount_cents > maxTopupCents) {
      throw new ApiError(
        400,
        `amount_cents must be between ${minTopupCents} and ${maxTopupCents} (see GET /v1/billing/credit), got ${dto.amount_cents}.`,
      );
    }
    const successUrl = dto.success_url ?? this.config.checkout.successUrl ?? `http://127.0.0.1:${this.config.port}/checkout/success`;
    const cancelUrl = dto.cancel_url ?? this.config.checkout.cancelUrl ?? `http://127.0.0.1:${this.config.port}/checkout/cancel`;
    const session = await this.stripe.createCheckout({
      organizationId: actor.organizationId,
      amountCents: dto.amount_cents,
      currency,
      successUrl: withSessionId(successUrl),
      cancelUrl,
    });
    return { checkout_id: session.id, checkout_url: session.url };
  }

  /**
   * One history page as JSON text, served from the cache while the organization's history version
   * (kept by triggers on every row a page shows, migration HistoryVersions) holds.
   */
  async history(actor: Actor, query: HistoryQueryDto): Promise<string> {
    // Read before the page, to serve a hit. A miss is computed in its own snapshot and cached under
    // the version read again first in that snapshot: never newer, nor older, than the data it shows.
    const version = await this.historyVersions.read(actor.organizationId);
    const key = [actor.organizationId, query.expand, query.limit, query.offset].map(String).join('\n');
    const cached = this.historyCache.get(key, version);
    if (cached !== null) return cached;
    const page = await this.inSnapshot((client) => this.historyPage(client, actor, query));
    this.historyCache.set(key, page.version, page.body);
    return page.body;
  }

  /**
   * Runs the reads of one page in one REPEATABLE READ snapshot on one connection, so a room's total
   * always equals its breakdown and a call's line its room, whatever commits meanwhile.
   */
  private async inSnapshot<T>(read: (client: PoolClient) => Promise<T>): Promise<T> {
    const pool = poolOf(this.dataSource);
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const result = await read(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      // ROLLBACK leaves the connection clean; if even that fails, it is closed rather than reused.
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /**
   * Purchases and calls in one signed list, newest first; one line per call, never split across
   * pages. Participant breakdowns are spliced in as Postgres wrote them, never parsed and
   * re-serialized (a page can carry thousands of connections). The version is read first, in the
   * page's own snapshot: the page is cached under exactly the version of the data it shows.
   */
  private async historyPage(client: PoolClient, actor: Actor, query: HistoryQueryDto): Promise<{ version: string; body: string }> {
    const [{ version }] = await preparedQuery<{ version: string }>(client, 'history_version', HISTORY_VERSION, [actor.organizationId]);
    // bigint: offset may be any safe integer, and limit + offset must not overflow int4.
    const rows: LineRow[] = await preparedQuery(
      client,
      'history_page',
      `SELECT kind, occurred_at, delta_cents, currency, provider_reference, room_id FROM (
         (SELECT e.kind, e.occurred_at, e.delta_cents, e.currency, e.provider_reference, NULL::uuid AS room_id, lpad(e.id::text, 20, '0') AS line_key
            FROM ledger_entries e WHERE e.organization_id = $1 AND e.kind <> 'charge'
           ORDER BY e.occurred_at DESC, lpad(e.id::text, 20, '0') DESC LIMIT $2::bigint + $3::bigint)
         UNION ALL
         (SELECT 'room_usage', r.started_at, -r.total_charged_cents, $4, NULL, r.id, r.id::text
            FROM rooms r WHERE r.organization_id = $1 AND r.total_charged_cents > 0
           ORDER BY r.started_at DESC, r.id::text DESC LIMIT $2::bigint + $3::bigint)
       ) lines ORDER BY occurred_at DESC, line_key DESC LIMIT $2::bigint OFFSET $3::bigint`,
      [actor.organizationId, query.limit + 1, query.offset, this.config.credit.currency],
    );
    const page = toPage(rows, query);
    const breakdowns = new Map<string, string>();
    const rooms =
      query.expand === 'none'
        ? new Map<string, RoomUsageView>()
        : await this.roomUsage(client, actor, page.items, query.expand === 'participants', breakdowns);
    const json = JSON.stringify({
      ...page,
      items: page.items.map((row) => this.line(row, rooms, query.expand !== 'none')),
    } satisfies Page<HistoryLineView>);
    return { version, body: json.replace(BREAKDOWN_MARKER, (_marker, roomId: string) => breakdowns.get(roomId) ?? '[]') };
  }

  private line(row: LineRow, rooms: Map<string, RoomUsageView>, expand: boolean): HistoryLineView {
    const base = { kind: row.kind, occurred_at: row.occurred_at, delta_cents: row.delta_cents, currency: row.currency };
    if (row.room_id === null) return { ...base, provider_reference: row.provider_reference };
    return expand ? { ...base, room: rooms.get(row.room_id) ?? null } : base;
  }

  private async roomUsage(
    client: PoolClient,
    actor: Actor,
    lines: LineRow[],
    withParticipants: boolean,
    breakdowns: Map<string, string>,
  ): Promise<Map<string, RoomUsageView>> {
    const ids = lines.flatMap((line) => (line.room_id ? [line.room_id] : []));
    if (ids.length === 0) return new Map();
    const rooms: RoomRow[] = await preparedQuery(
      client,
      'history_rooms',
      `SELECT r.id, r.name, r.streaming_mode, r.started_at, r.ended_at, r.total_connection_minutes, r.total_charged_cents
         FROM rooms r WHERE r.id = ANY($1) AND r.organization_id = $2`,
      [ids, actor.organizationId],
    );
    const byRoom = new Map<string, RoomUsageView>(
      rooms.map((room) => [room.id, withParticipants ? { ...room, participants: breakdownMarker(room.id) } : room]),
    );
    if (withParticipants) {
      // A page can carry thousands of connections: Postgres writes their JSON, which is far cheaper
      // than turning each row into JS objects and dates first.
      const rows: { room_id: string; participants: string }[] = await preparedQuery(
        client,
        'history_breakdowns',
        `SELECT c.room_id, json_agg(json_build_object(
                  'id', c.id, 'participant_identity', c.identity, 'participant_kind', c.kind, 'languages', c.languages,
                  'joined_at', ${ISO('c.joined_at')}, 'left_at', ${ISO('c.left_at')},
                  'connection_minutes', c.connection_minutes, 'charged_cents', c.charged_cents) ORDER BY c.joined_at, c.id)::text AS participants
           FROM connections c
          WHERE c.room_id = ANY($1) AND c.organization_id = $2 AND c.left_at IS NOT NULL
          GROUP BY c.room_id`,
        [ids, actor.organizationId],
      );
      for (const { room_id, participants } of rows) breakdowns.set(room_id, participants);
    }
    return byRoom;
  }
}
