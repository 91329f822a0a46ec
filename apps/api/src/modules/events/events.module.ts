import { Module } from '@nestjs/common';
import { EventFanoutService } from './event-fanout.service';
import { EventLogRepository } from './event-log.repository';
import { EventLogService } from './event-log.service';
import { EventStreamsService } from './event-streams.service';
import { EventsController } from './events.controller';
import { StreamSlotsService } from './stream-slots.service';

/** The customer events as a log (GET /v1/events) and a live stream (Server-Sent Events), and their retention. */
@Module({
  controllers: [EventsController],
  providers: [EventLogRepository, EventLogService, EventFanoutService, EventStreamsService, StreamSlotsService],
})
export class EventsModule {}
