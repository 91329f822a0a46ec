import { Module } from '@nestjs/common';
import { ConsoleController } from './console.controller';

/** The console at /console: one static page over the public API (imported only when CONSOLE_ENABLED). */
@Module({ controllers: [ConsoleController] })
export class ConsoleModule {}
