/*
 * Keys of deferred hot-row writes (see HotRowWritesService). Deferred writes run in key order, so every
 * transaction takes these row locks in the same order: the charges it appends, the totals of the
 * rooms it already holds locked, then usage slots (by organization and time) and after them the
 * organization's usage version, then balances.
 */

export const LEDGER_CHARGES_KEY = '0.ledger.charges';

/** The totals of every room the transaction charged, written by one statement (see HotRowWritesService.addToGroup). */
export const ROOM_TOTALS_KEY = '0.room.totals';

export const usageSlotKey = (organizationId: string, slotSeconds: number) =>
  `1.usage.${organizationId}.${String(slotSeconds).padStart(12, '0')}`;

/** Sorts after every slot key of the organization (`v` follows the digits). */
export const usageVersionKey = (organizationId: string) => `1.usage.${organizationId}.version`;

export const balanceKey = (organizationId: string) => `2.balance.${organizationId}`;

/** Customer webhook events, after every other write, so a room's event shows its final totals. */
export const CUSTOMER_EVENTS_KEY = '3.customer.events';
