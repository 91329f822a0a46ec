import { Logger } from '@nestjs/common';
import type { Tx } from '../../database/sql';
import type { CustomerEventsPublisher } from '../customer-webhooks/customer-events.publisher';
import type { OrganizationsRepository } from '../organizations/organizations.repository';
import type { LedgerService } from './ledger.service';
import type { AuditLogService } from '../audit/audit-log.service';
import { PurchaseSettlementService } from './purchase-settlement.service';

const ORG = '11111111-1111-4111-8111-111111111111';
const paid = (object: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id: 'evt_1',
  object: 'event',
  type: 'checkout.session.completed',
  created: 1_780_000_000,
  data: { object: { id: 'cs_1', payment_status: 'paid', amount_total: 2500, client_reference_id: ORG, ...object } },
  ...extra,
});

describe('PurchaseSettlementService', () => {
  let credit: jest.Mock;
  let idByReference: jest.Mock;
  let settlement: PurchaseSettlementService;
  const tx = () => ({}) as unknown as Tx;

  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    credit = jest.fn().mockResolvedValue(null);
    idByReference = jest.fn().mockResolvedValue(ORG);
    settlement = new PurchaseSettlementService(
      { credit } as unknown as LedgerService,
      { emit: jest.fn() } as unknown as CustomerEventsPublisher,
      { idByReference } as unknown as OrganizationsRepository,
      { record: jest.fn() } as unknown as AuditLogService,
    );
  });
  afterEach(() => jest.restoreAllMocks());

  it('credits a paid checkout', async () => {
    await settlement.apply(tx(), paid({}));
    expect(credit).toHaveBeenCalledWith(expect.anything(), {
      organizationId: ORG,
      kind: 'purchase',
      cents: 2500,
      occurredAt: new Date(1_780_000_000_000),
      providerReference: 'cs_1',
    });
  });

  it('credits nothing (left for an operator) when the client reference names no organization', async () => {
    idByReference.mockResolvedValue(null);
    await expect(settlement.apply(tx(), paid({ client_reference_id: 'not-an-org' }))).resolves.toBeUndefined();
    expect(idByReference).toHaveBeenCalledWith('not-an-org', expect.anything());
    expect(credit).not.toHaveBeenCalled();
  });

  it.each<[string, unknown]>([
    ['no data', { id: 'evt_1', type: 'checkout.session.completed', created: 1 }],
    ['data without object', { id: 'evt_1', type: 'checkout.session.completed', created: 1, data: {} }],
    ['an object that is a list', { id: 'evt_1', type: 'checkout.session.async_payment_succeeded', created: 1, data: { object: [] } }],
    ['no amount', paid({ amount_total: null })],
    ['a negative amount', paid({ amount_total: -5 })],
    ['a fractional amount', paid({ amount_total: 1.5 })],
    ['no session id', paid({ id: undefined })],
    ['no created', paid({}, { created: undefined })],
    ['a created no date can hold', paid({}, { created: 1e15 })],
    ['not an object at all', 42],
  ])('returns without crediting (so the event is marked processed) for an event with %s', async (_, payload) => {
    await expect(settlement.apply(tx(), payload)).resolves.toBeUndefined();
    expect(credit).not.toHaveBeenCalled();
    expect(idByReference).not.toHaveBeenCalled();
  });

  it('lets a database failure through, so the event is not marked processed and is tried again', async () => {
    idByReference.mockRejectedValue(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    await expect(settlement.apply(tx(), paid({}))).rejects.toThrow('ECONNREFUSED');
    credit.mockRejectedValue(new Error('terminating connection due to administrator command'));
    idByReference.mockResolvedValue(ORG);
    await expect(settlement.apply(tx(), paid({}))).rejects.toThrow('administrator command');
  });
});
