import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';

/** Rows the medium repository tests stand on, written straight to the database (no application). */
export class MediumRows {
  constructor(private readonly db: DataSource) {}

  /** An organization with one user (rooms need their creator). */
  async organization(name = 'medium'): Promise<{ organizationId: string; userId: string }> {
    const [org] = (await this.db.query(`INSERT INTO organizations (name) VALUES ($1) RETURNING id`, [name])) as { id: string }[];
    const [user] = (await this.db.query(`INSERT INTO users (organization_id, email) VALUES ($1, $2) RETURNING id`, [
      org.id,
      `${randomBytes(6).toString('hex')}@medium.test`,
    ])) as { id: string }[];
    return { organizationId: org.id, userId: user.id };
  }

  async room(
    owner: { organizationId: string; userId: string },
    room: { startedAt?: Date | null; endedAt?: Date | null; minutes?: number; chargedCents?: number; name?: string } = {},
  ): Promise<string> {
    const name = room.name ?? `room-${randomBytes(4).toString('hex')}`;
    const [row] = (await this.db.query(
      `INSERT INTO rooms (organization_id, name, livekit_name, created_by_user_id, status, streaming_mode, started_at, ended_at,
                          total_connection_minutes, total_charged_cents)
       VALUES ($1, $2, $3, $4, $5, 'mono', $6, $7, $8, $9) RETURNING id`,
      [
        owner.organizationId,
        name,
        `lk-${randomBytes(8).toString('hex')}`,
        owner.userId,
        room.endedAt ? 'ended' : room.startedAt ? 'active' : 'created',
        room.startedAt ?? null,
        room.endedAt ?? null,
        room.minutes ?? 0,
        room.chargedCents ?? 0,
      ],
    )) as { id: string }[];
    return row.id;
  }

  async connection(
    organizationId: string,
    roomId: string,
    connection: { kind?: 'member' | 'guest' | 'translator'; joinedAt: Date; leftAt?: Date | null; minutes?: number; chargedCents?: number },
  ): Promise<number> {
    const [row] = (await this.db.query(
      `INSERT INTO connections (room_id, organization_id, participant_sid, identity, kind, languages, joined_at, left_at,
                                cents_per_minute, connection_minutes, charged_cents)
       VALUES ($1, $2, $3, $4, $5, ARRAY['en'], $6, $7, 3, $8, $9) RETURNING id`,
      [
        roomId,
        organizationId,
        `PA_${randomBytes(6).toString('hex')}`,
        `id-${randomBytes(4).toString('hex')}`,
        connection.kind ?? 'member',
        connection.joinedAt,
        connection.leftAt ?? null,
        connection.minutes ?? null,
        connection.chargedCents ?? null,
      ],
    )) as { id: number }[];
    return row.id;
  }
}
