import { Inject, Injectable } from '@nestjs/common';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import type { Actor } from '../../common/auth/actor';
import { DatabaseClient } from '../../database/database.client';
import { ApiError } from '../../common/errors/api-error';
import { MembershipsRepository } from '../organizations/memberships.repository';
import { OrganizationsRepository, type UserRow } from '../organizations/organizations.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface SessionClaims extends JWTPayload {
  email?: string;
  email_verified?: boolean;
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
    private readonly memberships: MembershipsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.jwks = config.auth.jwksUrl ? createRemoteJWKSet(new URL(config.auth.jwksUrl)) : null;
  }

  get enabled(): boolean {
    return this.jwks !== null;
  }

  /**
   * The session's user, acting in the organization `organizationId` names (one of the user's; any other
   * is 404) or, when none is named, in the user's oldest membership. Null for a token that does not verify.
   */
  async authenticate(token: string, organizationId: string | null): Promise<Actor | null> {
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
    const membership = await this.memberships.acting(user.id, organizationId !== null && UUID.test(organizationId) ? organizationId : null);
    if (!membership || (organizationId !== null && membership.organizationId !== organizationId.toLowerCase())) {
      throw ApiError.notFound(
        organizationId === null ? 'You are not a member of any organization.' : `Organization ${organizationId} not found among yours.`,
      );
    }
    return {
      organizationId: membership.organizationId,
      role: membership.role,
      scopes: null,
      userId: user.id,
      email: user.email,
      firstName: user.first_name,
      lastName: user.last_name,
      imageUrl: user.image_url,
      userCreatedAt: user.created_at,
      apiKeyId: null,
      emailVerified: claims.email_verified === true,
      requestId: null,
      ip: null,
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
