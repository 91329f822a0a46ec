import { Inject, Injectable } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { HISTORY_PAGES } from '../../common/caching/caching.module';
import { OrganizationVersionsRepository } from '../../common/caching/organization-versions.repository';
import type { VersionedCache } from '../../common/caching/versioned-cache';
import { toPage } from '../../common/pagination/page';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { DatabaseClient } from '../../database/database.client';
import type { Sql } from '../../database/sql';
import type { HistoryLineView, HistoryQueryDto, RoomUsageView } from './billing.dto';
import { BillingHistoryRepository, type HistoryLineRow } from './billing-history.repository';

/** `GET /v1/billing/history`: purchases and calls in one list, newest first, cached per history version. */
@Injectable()
export class BillingHistoryService {
  constructor(
    @Inject(HISTORY_PAGES) private readonly cache: VersionedCache,
    private readonly versions: OrganizationVersionsRepository,
    private readonly database: DatabaseClient,
    private readonly history: BillingHistoryRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * One history page as JSON text, served from the cache while the organization's history version
   * (kept by triggers on every row a page shows, migration HistoryVersions) holds.
   */
  async page(actor: Actor, query: HistoryQueryDto): Promise<string> {
    // Read before the page, to serve a hit. A miss is computed in its own snapshot and cached under
    // the version read again first in that snapshot: never newer, nor older, than the data it shows.
    const version = await this.versions.historyVersion(actor.organizationId);
    const key = [actor.organizationId, query.expand, query.limit, query.offset].map(String).join('\n');
    const cached = this.cache.get(key, version);
    if (cached !== null) return cached;
    // One REPEATABLE READ snapshot: a room's total always equals its breakdown and a call's line its
    // room, whatever commits meanwhile.
    const page = await this.database.transaction((tx) => this.read(tx, actor.organizationId, query), {
      isolation: 'repeatable read',
      readOnly: true,
    });
    this.cache.set(key, page.version, page.body);
    return page.body;
  }

  /** One line per call, never split across pages; the page as its OpenAPI schema (HistoryLineView) describes it. */
  private async read(tx: Sql, organizationId: string, query: HistoryQueryDto): Promise<{ version: string; body: string }> {
    const version = await this.history.version(organizationId, tx);
    const rows = await this.history.lines(
      organizationId,
      { limit: query.limit + 1, offset: query.offset, currency: this.config.credit.currency },
      tx,
    );
    const page = toPage(rows, query);
    const roomIds = page.items.flatMap((line) => (line.room_id ? [line.room_id] : []));
    const expand = query.expand !== 'none' && roomIds.length > 0;
    const rooms = new Map<string, RoomUsageView>(
      expand ? (await this.history.rooms(organizationId, roomIds, tx)).map((room) => [room.id, room]) : [],
    );
    if (expand && query.expand === 'participants') {
      const participants = await this.history.participants(organizationId, roomIds, tx);
      for (const room of rooms.values()) room.participants = participants.get(room.id) ?? [];
    }
    const items = page.items.map((row) => line(row, rooms, query.expand !== 'none'));
    return { version, body: JSON.stringify({ ...page, items }) };
  }
}

function line(row: HistoryLineRow, rooms: Map<string, RoomUsageView>, expand: boolean): HistoryLineView {
  const base = { kind: row.kind, occurred_at: row.occurred_at, delta_cents: row.delta_cents, currency: row.currency };
  if (row.room_id === null) return { ...base, provider_reference: row.provider_reference };
  return expand ? { ...base, room: rooms.get(row.room_id) ?? null } : base;
}
