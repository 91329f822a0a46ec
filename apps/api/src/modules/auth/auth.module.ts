import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyAuthenticator } from './api-key.authenticator';
import { AuthGuard } from './auth.guard';
import { SessionAuthenticator } from './session.authenticator';
import { StreamTicketAuthenticator } from './stream-ticket.authenticator';
import { StreamTicketsRepository } from './stream-tickets.repository';
import { RateLimitsService } from '../../common/rate-limiting/rate-limits.service';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { OrganizationsModule } from '../organizations/organizations.module';

@Global()
@Module({
  imports: [ApiKeysModule, OrganizationsModule],
  providers: [
    ApiKeyAuthenticator,
    SessionAuthenticator,
    StreamTicketAuthenticator,
    StreamTicketsRepository,
    RateLimitsService,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [ApiKeyAuthenticator, SessionAuthenticator, StreamTicketAuthenticator, StreamTicketsRepository, RateLimitsService],
})
export class AuthModule {}
