import { Injectable } from '@nestjs/common';
import { Database } from '../../database/database';

/**
 * Rooms with their join tokens and held languages: every statement on `rooms`, `room_tokens` and the
 * languages they hold, each scoped to the organization in the statement itself.
 */
@Injectable()
export class RoomsRepository {
  constructor(private readonly database: Database) {}

  // Requests: creating, reading, listing, ending rooms; admitting join tokens.

  // Lifecycle: ending a room, translator presence (driven by LiveKit events).
}
