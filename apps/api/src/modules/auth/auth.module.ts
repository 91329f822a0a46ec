import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyAuthenticator } from './api-key.authenticator';
import { AuthGuard } from './auth.guard';
import { SessionAuthenticator } from './session.authenticator';
import { RateLimitsService } from '../../common/rate-limiting/rate-limits.service';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { OrganizationsModule } from '../organizations/organizations.module';

@Global()
@Module({
  imports: [ApiKeysModule, OrganizationsModule],
  providers: [ApiKeyAuthenticator, SessionAuthenticator, RateLimitsService, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [ApiKeyAuthenticator, SessionAuthenticator, RateLimitsService],
})
export class AuthModule {}
