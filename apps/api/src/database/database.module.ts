import { Global, Module } from '@nestjs/common';
import { Database } from './database';
import { HotRowWrites } from './hot-row-writes';

@Global()
@Module({ providers: [Database, HotRowWrites], exports: [Database, HotRowWrites] })
export class DatabaseModule {}
