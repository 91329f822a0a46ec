import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { Actor } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import { RequestValidationError } from '../../common/errors/validation-error';
import { toPage, type Page } from '../../common/pagination/page';
import type { PageQueryDto } from '../../common/pagination/page-query.dto';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { DatabaseClient } from '../../database/database.client';
import { CustomerWebhookDeliveryWorker } from './customer-webhook-delivery.worker';
import { endpointUrlIssue } from './endpoint-url';
import { CUSTOMER_EVENT_TYPES } from './event-types';
import type { CreatedWebhookEndpointView, CreateWebhookEndpointDto, DeliveryView, WebhookEndpointView } from './webhook-endpoint.dto';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { AuditLogService } from '../audit/audit-log.service';

/** An endpoint's address as the audit log keeps it: without credentials or a query, where a token could hide. */
function auditedUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}

const NOT_FOUND = 'Webhook endpoint not found.';

@Injectable()
export class WebhookEndpointsService {
  constructor(
    private readonly database: DatabaseClient,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveryLog: WebhookDeliveriesRepository,
    private readonly delivery: CustomerWebhookDeliveryWorker,
    private readonly audit: AuditLogService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(actor: Actor, dto: CreateWebhookEndpointDto): Promise<CreatedWebhookEndpointView> {
    const issue = await endpointUrlIssue(dto.url, this.config.webhooks.allowPrivateUrls);
    if (issue) throw new RequestValidationError([issue], true);
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    // Every type (stored as null) when absent, so types added later reach it too; duplicates once.
    const events = Array.isArray(dto.events) ? CUSTOMER_EVENT_TYPES.filter((type) => (dto.events as string[]).includes(type)) : null;
    const endpoint = await this.database.transaction(async (tx) => {
      const created = await this.endpoints.create(
        {
          organizationId: actor.organizationId,
          url: dto.url,
          events,
          description: dto.description ?? null,
          secret,
        },
        tx,
      );
      await this.audit.record(tx, actor, {
        action: 'webhook_endpoint.created',
        target: { type: 'webhook_endpoint', id: created.id },
        details: { url: auditedUrl(dto.url), events: created.events, description: created.description },
      });
      return created;
    });
    return { ...endpoint, secret };
  }

  async list(actor: Actor, query: PageQueryDto): Promise<Page<WebhookEndpointView>> {
    return toPage(await this.endpoints.page(actor.organizationId, query.limit + 1, query.offset), query);
  }

  /** The endpoint stops at once: its pending deliveries are marked failed and never sent. */
  async delete(actor: Actor, endpointId: string): Promise<void> {
    await this.database.transaction(async (tx) => {
      if (!(await this.endpoints.delete(endpointId, actor.organizationId, tx))) throw ApiError.notFound(NOT_FOUND);
      const stopped = await this.deliveryLog.failPending(endpointId, actor.organizationId, tx);
      await this.audit.record(tx, actor, {
        action: 'webhook_endpoint.deleted',
        target: { type: 'webhook_endpoint', id: endpointId },
        details: { pending_deliveries_failed: stopped },
      });
    });
  }

  async deliveries(actor: Actor, endpointId: string, query: PageQueryDto): Promise<Page<DeliveryView>> {
    await this.assertEndpoint(actor, endpointId);
    return toPage(await this.deliveryLog.page(endpointId, actor.organizationId, query.limit + 1, query.offset), query);
  }

  /** Sends the delivery again now: pending with one more attempt (a pending one keeps its schedule's). */
  async retry(actor: Actor, endpointId: string, deliveryId: string): Promise<DeliveryView> {
    const delivery = await this.database.transaction(async (tx) => {
      const retried = await this.deliveryLog.retry(deliveryId, endpointId, actor.organizationId, tx);
      if (retried) {
        await this.audit.record(tx, actor, {
          action: 'webhook_delivery.retried',
          target: { type: 'webhook_delivery', id: deliveryId },
          details: { endpoint_id: endpointId, event_id: retried.event_id, event_type: retried.event_type },
        });
      }
      return retried;
    });
    if (!delivery) {
      await this.assertEndpoint(actor, endpointId);
      throw ApiError.notFound('Delivery not found.');
    }
    await this.delivery.sendNow(endpointId);
    return delivery;
  }

  private async assertEndpoint(actor: Actor, endpointId: string): Promise<void> {
    if (!(await this.endpoints.exists(endpointId, actor.organizationId))) throw ApiError.notFound(NOT_FOUND);
  }
}
