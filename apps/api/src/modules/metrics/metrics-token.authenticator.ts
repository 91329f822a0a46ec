import { Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../common/errors/api-error';
import { RateLimitsService } from '../../common/rate-limiting/rate-limits.service';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';

const digest = (value: string) => createHash('sha256').update(value).digest();
/** The metrics token's key in the per-credential budget (API keys are `key:<id>`, sessions `user:<id>`). */
const METRICS_CREDENTIAL = 'metrics-token';

/** `Authorization: Bearer <METRICS_TOKEN>`, wherever metrics ask for it (the API port, the worker's listener). */
@Injectable()
export class MetricsTokenAuthenticator {
  constructor(
    private readonly limits: RateLimitsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** METRICS_TOKEN, or null when the deployment sets none. */
  get token(): string | null {
    return this.config.metrics.token;
  }

  /**
   * The rate-limit headers of the token's own budget when `authorization` carries the token (none
   * when no token is set). Else throws the 401: a wrong token counts against the address's
   * failed-authentication budget, as a wrong API key does (429 once it is spent).
   */
  async check(authorization: string | undefined, address: string | undefined): Promise<Record<string, string>> {
    const token = this.token;
    if (token === null) return {};
    const sent = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (sent === undefined || !timingSafeEqual(digest(sent), digest(token))) {
      throw await this.limits.failedAuthentication(address ?? 'unknown', ApiError.unauthorized('Missing or wrong metrics token.'));
    }
    return this.limits.spend('credential', METRICS_CREDENTIAL);
  }
}
