import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { Actor } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import { RequestValidationError } from '../../common/errors/validation-error';
import { toPage, type Page } from '../../common/pagination/page';
import type { PageQueryDto } from '../../common/pagination/page-query.dto';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { CustomerWebhookDelivery } from './customer-webhook-delivery';
import { endpointUrlIssue } from './endpoint-url';
import { CUSTOMER_EVENT_TYPES } from './event-types';
import type { CreatedWebhookEndpointView, CreateWebhookEndpointDto, DeliveryView, WebhookEndpointView } from './webhook-endpoint.dto';
import { Database } from '../../database/database';

/** The endpoint as answered; parameter `$eventsParam` holds every event type (what an endpoint with no list receives). */
const endpointColumns = (eventsParam: number) =>
  `id, url, coalesce(events, $${eventsParam}::text[]) AS events, description, true AS enabled, created_at`;
const DELIVERY_COLUMNS = `d.id, ev.id AS event_id, ev.type AS event_type, d.status, d.attempts, d.last_status_code, d.last_error,
  d.next_attempt_at, d.delivered_at, d.created_at`;

const NOT_FOUND = 'Webhook endpoint not found.';

@Injectable()
export class WebhookEndpointsService {
  constructor(
    private readonly database: Database,
    private readonly delivery: CustomerWebhookDelivery,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(actor: Actor, dto: CreateWebhookEndpointDto): Promise<CreatedWebhookEndpointView> {
    const issue = await endpointUrlIssue(dto.url, this.config.webhooks.allowPrivateUrls);
    if (issue) throw new RequestValidationError([issue], true);
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    // Every type (stored as null) when absent, so types added later reach it too; duplicates once.
    const events = Array.isArray(dto.events) ? CUSTOMER_EVENT_TYPES.filter((type) => (dto.events as string[]).includes(type)) : null;
    const [endpoint] = (await this.database.rows(
      `INSERT INTO webhook_endpoints (organization_id, url, events, description, secret) VALUES ($1, $2, $3, $4, $5)
       RETURNING ${endpointColumns(6)}`,
      [actor.organizationId, dto.url, events, dto.description ?? null, secret, CUSTOMER_EVENT_TYPES],
    )) as WebhookEndpointView[];
    return { ...endpoint, secret };
  }

  async list(actor: Actor, query: PageQueryDto): Promise<Page<WebhookEndpointView>> {
    const rows = (await this.database.rows(
      `SELECT ${endpointColumns(4)} FROM webhook_endpoints WHERE organization_id = $1 AND deleted_at IS NULL
        ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
      [actor.organizationId, query.limit + 1, query.offset, CUSTOMER_EVENT_TYPES],
    )) as WebhookEndpointView[];
    return toPage(rows, query);
  }

  /** The endpoint stops at once: its pending deliveries are marked failed and never sent. */
  async delete(actor: Actor, endpointId: string): Promise<void> {
    await this.database.transaction(async (tx) => {
      const rows = (await tx.rows(
        `UPDATE webhook_endpoints SET deleted_at = now() WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL RETURNING id`,
        [endpointId, actor.organizationId],
      )) as unknown[];
      if (rows.length === 0) throw ApiError.notFound(NOT_FOUND);
      await tx.rows(
        `UPDATE webhook_deliveries SET status = 'failed', last_error = 'The endpoint was deleted.', next_attempt_at = NULL
          WHERE endpoint_id = $1 AND status = 'pending'`,
        [endpointId],
      );
    });
  }

  async deliveries(actor: Actor, endpointId: string, query: PageQueryDto): Promise<Page<DeliveryView>> {
    await this.assertEndpoint(actor, endpointId);
    const rows = (await this.database.rows(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_events ev ON ev.seq = d.event_seq
        WHERE d.endpoint_id = $1 AND d.organization_id = $2 ORDER BY d.created_at DESC, d.id DESC LIMIT $3 OFFSET $4`,
      [endpointId, actor.organizationId, query.limit + 1, query.offset],
    )) as DeliveryView[];
    return toPage(rows, query);
  }

  /** Sends the delivery again now: pending with one more attempt (a pending one keeps its schedule's). */
  async retry(actor: Actor, endpointId: string, deliveryId: string): Promise<DeliveryView> {
    const rows = (await this.database.rows(
      `UPDATE webhook_deliveries d SET next_attempt_at = now(),
              max_attempts = GREATEST(CASE WHEN d.status = 'pending' THEN d.max_attempts ELSE 0 END, d.attempts + 1), status = 'pending'
         FROM webhook_endpoints w, webhook_events ev
        WHERE d.id = $1 AND d.endpoint_id = $2 AND d.organization_id = $3
          AND w.id = d.endpoint_id AND w.organization_id = $3 AND w.deleted_at IS NULL AND ev.seq = d.event_seq
        RETURNING ${DELIVERY_COLUMNS}`,
      [deliveryId, endpointId, actor.organizationId],
    )) as DeliveryView[];
    if (rows.length === 0) {
      await this.assertEndpoint(actor, endpointId);
      throw ApiError.notFound('Delivery not found.');
    }
    await this.delivery.sendNow(endpointId);
    return rows[0];
  }

  private async assertEndpoint(actor: Actor, endpointId: string): Promise<void> {
    const rows = (await this.database.rows(
      `SELECT 1 FROM webhook_endpoints WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL`,
      [endpointId, actor.organizationId],
    )) as unknown[];
    if (rows.length === 0) throw ApiError.notFound(NOT_FOUND);
  }
}
