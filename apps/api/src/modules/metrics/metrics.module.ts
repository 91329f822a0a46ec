import { Global, Module } from '@nestjs/common';
import { MetricsRegistry } from '../../common/metrics/metrics.registry';
import { MetricsCollectorsService } from './metrics-collectors.service';
import { MetricsController } from './metrics.controller';
import { MetricsServer } from './metrics.server';
import { MetricsTokenAuthenticator } from './metrics-token.authenticator';
import { MetricsRepository } from './metrics.repository';

@Global()
@Module({
  controllers: [MetricsController],
  providers: [MetricsRegistry, MetricsCollectorsService, MetricsRepository, MetricsServer, MetricsTokenAuthenticator],
  exports: [MetricsRegistry, MetricsServer],
})
export class MetricsModule {}
