import { Inject, Injectable } from '@nestjs/common';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import type { Actor } from './actor';
import { Database } from '../../database/database';

interface SessionClaims extends JWTPayload {
  email?: string;
  given_name?: string;
  family_name?: string;
  picture?: string;
  org_id?: string;
  org_name?: string;
}

interface UserRow {
  id: string;
  organization_id: string;
  email: string;
  first_name: string;
  last_name: string;
  image_url: string;
  created_at: Date;
}

/**
 * Verifies identity-provider session JWTs against AUTH_JWKS_URL and provisions the user and the
 * organization on first use. The organization comes from the `org_id` claim, or is the user's own.
 */
@Injectable()
export class SessionAuthenticator {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet> | null;

  constructor(
    private readonly database: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.jwks = config.auth.jwksUrl ? createRemoteJWKSet(new URL(config.auth.jwksUrl)) : null;
  }

  get enabled(): boolean {
    return this.jwks !== null;
  }

  async authenticate(token: string): Promise<Actor | null> {
    if (!this.jwks) return null;
    let claims: SessionClaims;
    try {
      const verified = await jwtVerify<SessionClaims>(token, this.jwks, {
        issuer: this.config.auth.issuer ?? undefined,
        audience: this.config.auth.audience ?? undefined,
      });
      claims = verified.payload;
    } catch {
      return null;
    }
    if (!claims.sub || !claims.email) return null;
    const user = await this.provision(claims as SessionClaims & { sub: string; email: string });
    return {
      organizationId: user.organization_id,
      userId: user.id,
      email: user.email,
      firstName: user.first_name,
      lastName: user.last_name,
      imageUrl: user.image_url,
      userCreatedAt: user.created_at,
      apiKeyId: null,
    };
  }

  private async provision(claims: SessionClaims & { sub: string; email: string }): Promise<UserRow> {
    const existing: UserRow[] = await this.database.rows(
      `SELECT id, organization_id, email, first_name, last_name, image_url, created_at FROM users WHERE auth_subject = $1`,
      [claims.sub],
    );
    if (existing[0]) return existing[0];
    return this.database.transaction(async (tx) => {
      const externalId = claims.org_id ? `org:${claims.org_id}` : `user:${claims.sub}`;
      const orgName = claims.org_name ?? claims.org_id ?? claims.email;
      const [org] = (await tx.rows(
        `INSERT INTO organizations (name, external_id) VALUES ($1, $2)
         ON CONFLICT (external_id) DO UPDATE SET external_id = EXCLUDED.external_id
         RETURNING id`,
        [orgName, externalId],
      )) as { id: string }[];
      const rows = (await tx.rows(
        `INSERT INTO users (organization_id, email, first_name, last_name, image_url, auth_subject)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (auth_subject) DO UPDATE SET auth_subject = EXCLUDED.auth_subject
         RETURNING id, organization_id, email, first_name, last_name, image_url, created_at`,
        [org.id, claims.email, claims.given_name ?? '', claims.family_name ?? '', claims.picture ?? '', claims.sub],
      )) as UserRow[];
      return rows[0];
    });
  }
}
