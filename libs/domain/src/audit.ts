/**
 * The audit log's vocabulary (extensions.md "Audit log"): what a row says happened, and who did it.
 * The list is data: the API writes only these actions and its `action` filter accepts only these.
 */

export const AUDIT_ACTIONS = [
  'api_key.created',
  'api_key.revoked',
  'member.role_changed',
  'member.removed',
  'member_invitation.created',
  'member_invitation.revoked',
  'member_invitation.accepted',
  'room.created',
  'room.ended_by_api',
  'invite.created',
  'invites.revoked',
  'glossary.created',
  'glossary.updated',
  'glossary.deleted',
  'glossary.entries_replaced',
  'glossary.entry_added',
  'glossary.entry_deleted',
  'room.glossaries_set',
  'webhook_endpoint.created',
  'webhook_endpoint.deleted',
  'webhook_delivery.retried',
  'checkout.created',
  'billing.alerts_changed',
  'transcripts.settings_changed',
  'transcript.erased',
  'credit.granted',
  'credit.purchased',
  'access.denied',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** `user`: a session; `api_key`: a key (acting for its creator); `operator`: the CLI; `system`: a provider (Stripe). */
export const AUDIT_ACTOR_TYPES = ['user', 'api_key', 'operator', 'system'] as const;

export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

/** What an event is about; its id is the object's own (a Stripe checkout session's id for checkouts and purchases). */
export const AUDIT_TARGET_TYPES = [
  'api_key',
  'member',
  'member_invitation',
  'room',
  'glossary',
  'webhook_endpoint',
  'webhook_delivery',
  'checkout_session',
  'organization',
] as const;

export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];
