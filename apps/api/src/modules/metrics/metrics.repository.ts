import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql } from '../../database/sql';
import { sql } from '../../database/typed-sql';
import type { IActiveRoomsQuery, IOpenConnectionsQuery, IUnappliedAgesQuery, IUnappliedAgesResult } from './metrics.repository.types';

/** How long the oldest unapplied inbound event of a provider has waited (0 when none). */
export type UnappliedAge = IUnappliedAgesResult;

const UNAPPLIED_AGES = sql<IUnappliedAgesQuery>`SELECT p.provider AS "provider!",
    coalesce(extract(epoch FROM now() - (SELECT min(received_at) FROM inbound_events
      WHERE processed_at IS NULL AND provider = p.provider)), 0)::float8 AS "seconds!"
  FROM (VALUES ('livekit'), ('stripe')) AS p(provider)`;

const ACTIVE_ROOMS = sql<IActiveRoomsQuery>`SELECT count(*)::int AS "n!" FROM rooms WHERE status = 'active'`;

const OPEN_CONNECTIONS = sql<IOpenConnectionsQuery>`SELECT count(*)::int AS "n!" FROM connections WHERE left_at IS NULL`;

/**
 * The reads behind the operator's gauges, read on each scrape. They count across every organization
 * on purpose: the gauges describe the service, not a customer, and carry no organization label.
 */
@Injectable()
export class MetricsRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** One row per inbound webhook provider (livekit, stripe). */
  async unappliedInboundAges(sql: Sql = this.database): Promise<UnappliedAge[]> {
    return sql.rows(UNAPPLIED_AGES);
  }

  /** Rooms with status active. */
  async activeRooms(sql: Sql = this.database): Promise<number> {
    const [row] = await sql.rows(ACTIVE_ROOMS);
    return row.n;
  }

  /** Participant connections open now, translators included. */
  async openConnections(sql: Sql = this.database): Promise<number> {
    const [row] = await sql.rows(OPEN_CONNECTIONS);
    return row.n;
  }
}
