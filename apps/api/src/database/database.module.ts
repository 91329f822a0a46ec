import { Global, Module } from '@nestjs/common';
import { HotRowWrites } from './hot-row-writes';

@Global()
@Module({ providers: [HotRowWrites], exports: [HotRowWrites] })
export class DatabaseModule {}
