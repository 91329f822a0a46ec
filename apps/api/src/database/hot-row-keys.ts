/**
 * Keys of deferred hot-row writes (see HotRowWrites). Deferred writes run in key order, so every
 * transaction takes these row locks in the same order: the rows of rooms it already holds locked,
 * the charges it appends, then usage slots (by organization and time), then balances.
 */
export const roomTotalsKey = (roomId: string) => `0.room.${roomId}`;

export const LEDGER_CHARGES_KEY = '0.ledger.charges';

export const usageSlotKey = (organizationId: string, slotSeconds: number) =>
  `1.usage.${organizationId}.${String(slotSeconds).padStart(12, '0')}`;

export const balanceKey = (organizationId: string) => `2.balance.${organizationId}`;
