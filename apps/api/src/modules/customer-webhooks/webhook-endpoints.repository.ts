import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql } from '../../database/sql';
import { CUSTOMER_EVENT_TYPES, type CustomerEventType } from './event-types';

/** An endpoint as the API shows it (never its secret). */
export interface WebhookEndpointRow {
  id: string;
  url: string;
  /** The types it receives: every type when it was registered without a list. */
  events: CustomerEventType[];
  description: string | null;
  enabled: boolean;
  created_at: Date;
}

export interface NewWebhookEndpoint {
  organizationId: string;
  url: string;
  /** null: every type, also types added later. */
  events: CustomerEventType[] | null;
  description: string | null;
  secret: string;
}

/** An endpoint that hears about its organization's events. */
export interface SubscribedEndpoint {
  id: string;
  organizationId: string;
  /** null: every type. */
  events: CustomerEventType[] | null;
}

/** The endpoint as answered; parameter `$eventsParam` holds every event type (what an endpoint with no list receives). */
const endpointColumns = (eventsParam: number) =>
  `id, url, coalesce(events, $${eventsParam}::text[]) AS events, description, true AS enabled, created_at`;

/**
 * Lists are ordered at the precision they show: `created_at` is shown to the millisecond, so
 * endpoints created within one millisecond are ordered by id (as they look equal), not by
 * microseconds nobody sees (index `webhook_endpoints_live_ms`).
 */
const SHOWN_CREATED_AT = `date_trunc('milliseconds', created_at AT TIME ZONE 'UTC')`;

const CREATE = `INSERT INTO webhook_endpoints (organization_id, url, events, description, secret) VALUES ($1, $2, $3, $4, $5)
  RETURNING ${endpointColumns(6)}`;
const PAGE = `SELECT ${endpointColumns(4)} FROM webhook_endpoints WHERE organization_id = $1 AND deleted_at IS NULL
  ORDER BY ${SHOWN_CREATED_AT} DESC, id DESC LIMIT $2 OFFSET $3`;
const DELETE = `UPDATE webhook_endpoints SET deleted_at = now() WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL`;
const EXISTS = `SELECT 1 FROM webhook_endpoints WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL`;
const SUBSCRIBED = `SELECT id, organization_id, events FROM webhook_endpoints WHERE organization_id = ANY($1) AND deleted_at IS NULL
  ORDER BY created_at, id`;

/** `webhook_endpoints`: where an organization's events are sent. */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(private readonly database: DatabaseClient) {}

  async create(endpoint: NewWebhookEndpoint, sql: Sql = this.database): Promise<WebhookEndpointRow> {
    const [row] = await sql.rows<WebhookEndpointRow>(CREATE, [
      endpoint.organizationId,
      endpoint.url,
      endpoint.events,
      endpoint.description,
      endpoint.secret,
      CUSTOMER_EVENT_TYPES,
    ]);
    return row;
  }

  /** The organization's live endpoints, newest first; `limit` rows from `offset`. */
  async page(organizationId: string, limit: number, offset: number, sql: Sql = this.database): Promise<WebhookEndpointRow[]> {
    return sql.rows<WebhookEndpointRow>(PAGE, [organizationId, limit, offset, CUSTOMER_EVENT_TYPES]);
  }

  /** Marks the endpoint deleted; false when the organization has no such live endpoint. */
  async delete(endpointId: string, organizationId: string, sql: Sql = this.database): Promise<boolean> {
    return (await sql.count(DELETE, [endpointId, organizationId])) > 0;
  }

  /** Whether the organization has this live endpoint. */
  async exists(endpointId: string, organizationId: string, sql: Sql = this.database): Promise<boolean> {
    return (await sql.rows(EXISTS, [endpointId, organizationId])).length > 0;
  }

  /** The live endpoints of these organizations, oldest first. */
  async subscribed(organizationIds: string[], sql: Sql = this.database): Promise<SubscribedEndpoint[]> {
    const rows = await sql.rows<{ id: string; organization_id: string; events: CustomerEventType[] | null }>(SUBSCRIBED, [organizationIds]);
    return rows.map((row) => ({ id: row.id, organizationId: row.organization_id, events: row.events }));
  }
}
