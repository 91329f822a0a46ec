import type { DataSource } from 'typeorm';

/** An organization with one user (rooms need their creator), inserted directly: no app, no API. */
export async function insertOrganization(db: DataSource): Promise<{ organizationId: string; userId: string }> {
  const [{ id: organizationId }] = (await db.query(`INSERT INTO organizations (name) VALUES ('metering') RETURNING id`)) as {
    id: string;
  }[];
  const [{ id: userId }] = (await db.query(`INSERT INTO users (organization_id, email) VALUES ($1, $2) RETURNING id`, [
    organizationId,
    `${organizationId}@example.com`,
  ])) as { id: string }[];
  return { organizationId, userId };
}

let rooms = 0;

/** A room of the organization, named as the API names its LiveKit rooms (`<organization>.<n>`). */
export async function insertRoom(
  db: DataSource,
  org: { organizationId: string; userId: string },
  room: { status?: 'created' | 'active' | 'ended'; startedAt?: Date | null; createdAt?: Date } = {},
): Promise<{ id: string; livekitName: string }> {
  rooms += 1;
  const livekitName = `${org.organizationId}.room-${rooms}`;
  const [{ id }] = (await db.query(
    `INSERT INTO rooms (organization_id, name, livekit_name, status, started_at, created_at, created_by_user_id)
     VALUES ($1, $2, $3, $4, $5, coalesce($6, clock_timestamp()), $7) RETURNING id`,
    [
      org.organizationId,
      `room-${rooms}`,
      livekitName,
      room.status ?? 'created',
      room.startedAt ?? null,
      room.createdAt ?? null,
      org.userId,
    ],
  )) as { id: string }[];
  return { id, livekitName };
}
