/** The one place where a domain error code becomes an HTTP status. */
export const DOMAIN_ERROR_STATUS: Record<string, number> = {
  room_mode_mismatch: 409,
  language_not_held: 409,
  invite_expired: 410,
  invite_spent: 410,
  invite_room_ended: 410,
};
