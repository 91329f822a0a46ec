import { Global, Module } from '@nestjs/common';
import { Metrics } from '../../common/metrics/metrics';
import { MetricsCollectors } from './metrics-collectors';
import { MetricsController } from './metrics.controller';
import { MetricsServer } from './metrics-server';
import { MetricsToken } from './metrics-token';
import { MetricsRepository } from './metrics.repository';

@Global()
@Module({
  controllers: [MetricsController],
  providers: [Metrics, MetricsCollectors, MetricsRepository, MetricsServer, MetricsToken],
  exports: [Metrics, MetricsServer],
})
export class MetricsModule {}
