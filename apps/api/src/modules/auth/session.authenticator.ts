import { Inject, Injectable } from '@nestjs/common';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import type { Actor } from '../../common/auth/actor';
import { DatabaseClient } from '../../database/database.client';
import { OrganizationsRepository, type UserRow } from '../organizations/organizations.repository';

interface SessionClaims extends JWTPayload {
  email?: string;
  given_name?: string;
  family_name?: string;
  picture?: string;
  org_id?: string;
  org_name?: string;
}

/**
 * Verifies identity-provider session JWTs against AUTH_JWKS_URL and provisions the user and the
 * organization on first use. The organization comes from the `org_id` claim, or is the user's own.
 */
@Injectable()
export class SessionAuthenticator {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet> | null;

  constructor(
    private readonly database: DatabaseClient,
    private readonly organizations: OrganizationsRepository,
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
    const existing = await this.organizations.userBySubject(claims.sub);
    if (existing) return existing;
    return this.database.transaction(async (tx) => {
      const externalId = claims.org_id ? `org:${claims.org_id}` : `user:${claims.sub}`;
      const orgName = claims.org_name ?? claims.org_id ?? claims.email;
      const organizationId = await this.organizations.upsertExternal(orgName, externalId, tx);
      return this.organizations.upsertSessionUser(
        organizationId,
        {
          email: claims.email,
          firstName: claims.given_name ?? '',
          lastName: claims.family_name ?? '',
          imageUrl: claims.picture ?? '',
          authSubject: claims.sub,
        },
        tx,
      );
    });
  }
}
