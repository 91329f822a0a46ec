import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql } from '../../database/sql';

/** How long the oldest unapplied inbound event of a provider has waited (0 when none). */
export interface UnappliedAge {
  provider: string;
  seconds: number;
}

const UNAPPLIED_AGES = `SELECT p.provider, coalesce(extract(epoch FROM now() - (SELECT min(received_at) FROM inbound_events
    WHERE processed_at IS NULL AND provider = p.provider)), 0)::float8 AS seconds
  FROM (VALUES ('livekit'), ('stripe')) AS p(provider)`;

const ACTIVE_ROOMS = `SELECT count(*)::int AS n FROM rooms WHERE status = 'active'`;

const OPEN_CONNECTIONS = `SELECT count(*)::int AS n FROM connections WHERE left_at IS NULL`;

/**
 * The reads behind the operator's gauges, read on each scrape. They count across every organization
 * on purpose: the gauges describe the service, not a customer, and carry no organization label.
 */
@Injectable()
export class MetricsRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** One row per inbound webhook provider (livekit, stripe). */
  async unappliedInboundAges(sql: Sql = this.database): Promise<UnappliedAge[]> {
    return sql.rows<UnappliedAge>(UNAPPLIED_AGES);
  }

  /** Rooms with status active. */
  async activeRooms(sql: Sql = this.database): Promise<number> {
    const [row] = await sql.rows<{ n: number }>(ACTIVE_ROOMS);
    return row.n;
  }

  /** Participant connections open now, translators included. */
  async openConnections(sql: Sql = this.database): Promise<number> {
    const [row] = await sql.rows<{ n: number }>(OPEN_CONNECTIONS);
    return row.n;
  }
}
