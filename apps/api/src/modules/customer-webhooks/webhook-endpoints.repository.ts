import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql, Tx } from '../../database/sql';
import { type Narrowed, sql } from '../../database/typed-sql';
import { CUSTOMER_EVENT_TYPES, type CustomerEventType } from './event-types';
import type {
  ICreateQuery,
  IDeleteQuery,
  IExistsQuery,
  IPageQuery,
  IPageResult,
  ISubscribedQuery,
  ISubscribedResult,
} from './webhook-endpoints.repository.types';

/** An endpoint as the API shows it (never its secret); `events`: every type when it was registered without a list. */
export type WebhookEndpointRow = Narrowed<IPageResult, { events: CustomerEventType[] }>;

type SubscribedRow = Narrowed<ISubscribedResult, { events: CustomerEventType[] | null }>;

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

const EVERY_TYPE: string[] = [...CUSTOMER_EVENT_TYPES];

// An endpoint as answered: `$everyType` holds every event type (what an endpoint with no list receives).
const CREATE = sql<ICreateQuery>`INSERT INTO webhook_endpoints (organization_id, url, events, description, secret)
  VALUES ($organizationId!, $url!, $events, $description, $secret!)
  RETURNING id, url, coalesce(events, $everyType!::text[]) AS "events!", description, true AS "enabled!", created_at`;

/**
 * Lists are ordered at the precision they show: `created_at` is shown to the millisecond, so
 * endpoints created within one millisecond are ordered by id (as they look equal), not by
 * microseconds nobody sees (index `webhook_endpoints_live_ms`).
 */
const PAGE = sql<IPageQuery>`SELECT id, url, coalesce(events, $everyType!::text[]) AS "events!", description, true AS "enabled!", created_at
  FROM webhook_endpoints WHERE organization_id = $organizationId! AND deleted_at IS NULL
  ORDER BY date_trunc('milliseconds', created_at AT TIME ZONE 'UTC') DESC, id DESC LIMIT $limit! OFFSET $offset!`;

const DELETE = sql<IDeleteQuery>`UPDATE webhook_endpoints SET deleted_at = now()
  WHERE id = $endpointId! AND organization_id = $organizationId! AND deleted_at IS NULL`;

const EXISTS = sql<IExistsQuery>`SELECT 1 AS found FROM webhook_endpoints
  WHERE id = $endpointId! AND organization_id = $organizationId! AND deleted_at IS NULL`;

const SUBSCRIBED = sql<ISubscribedQuery>`SELECT id, organization_id, events FROM webhook_endpoints
  WHERE organization_id = ANY($organizationIds!) AND deleted_at IS NULL ORDER BY created_at, id`;

/** `webhook_endpoints`: where an organization's events are sent. */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(private readonly database: DatabaseClient) {}

  async create(endpoint: NewWebhookEndpoint, tx: Tx): Promise<WebhookEndpointRow> {
    const [row] = await tx.rows<ICreateQuery, WebhookEndpointRow>(CREATE, { ...endpoint, everyType: EVERY_TYPE });
    return row;
  }

  /** The organization's live endpoints, newest first; `limit` rows from `offset`. */
  async page(organizationId: string, limit: number, offset: number, sql: Sql = this.database): Promise<WebhookEndpointRow[]> {
    return sql.rows<IPageQuery, WebhookEndpointRow>(PAGE, { organizationId, limit, offset, everyType: EVERY_TYPE });
  }

  /** Marks the endpoint deleted; false when the organization has no such live endpoint. */
  async delete(endpointId: string, organizationId: string, tx: Tx): Promise<boolean> {
    return (await tx.count(DELETE, { endpointId, organizationId })) > 0;
  }

  /** Whether the organization has this live endpoint. */
  async exists(endpointId: string, organizationId: string, sql: Sql = this.database): Promise<boolean> {
    return (await sql.rows(EXISTS, { endpointId, organizationId })).length > 0;
  }

  /** The live endpoints of these organizations, oldest first. */
  async subscribed(organizationIds: string[], sql: Sql = this.database): Promise<SubscribedEndpoint[]> {
    const rows = await sql.rows<ISubscribedQuery, SubscribedRow>(SUBSCRIBED, { organizationIds });
    return rows.map((row) => ({ id: row.id, organizationId: row.organization_id, events: row.events }));
  }
}
