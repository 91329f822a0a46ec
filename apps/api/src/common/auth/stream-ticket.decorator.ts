import { SetMetadata } from '@nestjs/common';

export const TAKES_STREAM_TICKET = 'auth:stream-ticket';

/**
 * Marks a route that also takes a stream ticket (`?ticket=`) in place of the Authorization header,
 * for browsers' `EventSource`, which cannot send headers.
 */
export const TakesStreamTicket = () => SetMetadata(TAKES_STREAM_TICKET, true);
