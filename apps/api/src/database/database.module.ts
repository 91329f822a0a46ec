import { Global, Module } from '@nestjs/common';
import { DatabaseClient } from './database.client';
import { HotRowWritesService } from './hot-row-writes.service';
import { NotificationsClient } from './notifications.client';

@Global()
@Module({
  providers: [DatabaseClient, HotRowWritesService, NotificationsClient],
  exports: [DatabaseClient, HotRowWritesService, NotificationsClient],
})
export class DatabaseModule {}
