/*
 * Keys of deferred hot-row writes (see HotRowWritesService). Deferred writes run in key order, so every
 * transaction takes these row locks in the same order: the charges it appends, the totals of the
 * rooms it already holds locked, then usage slots (by organization and time) and after them the
 * organization's usage version, then balances.
 */

export const LEDGER_CHARGES_KEY = '0.ledger.charges';

/** The totals of every room the transaction charged, written by one statement (see HotRowWritesService.addToGroup). */
export const ROOM_TOTALS_KEY = '0.room.totals';

/** The organization's usage slots (rows by slot, in time order) and then its usage version, one statement. */
export const usageKey = (organizationId: string) => `1.usage.${organizationId}`;

export const balanceKey = (organizationId: string) => `2.balance.${organizationId}`;

/** Customer webhook events, after every other write, so a room's event shows its final totals. */
export const CUSTOMER_EVENTS_KEY = '3.customer.events';
