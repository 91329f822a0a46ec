import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyAuthenticator } from '../../common/auth/api-key-authenticator';
import { AuthGuard } from '../../common/auth/auth.guard';
import { SessionAuthenticator } from '../../common/auth/session-authenticator';

@Global()
@Module({
  providers: [ApiKeyAuthenticator, SessionAuthenticator, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [ApiKeyAuthenticator, SessionAuthenticator],
})
export class AuthModule {}
