import { Global, Module } from '@nestjs/common';
import { Database } from './database';
import { HotRowWrites } from './hot-row-writes';
import { Notifications } from './notifications';

@Global()
@Module({ providers: [Database, HotRowWrites, Notifications], exports: [Database, HotRowWrites, Notifications] })
export class DatabaseModule {}
