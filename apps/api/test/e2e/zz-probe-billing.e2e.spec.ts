import { createOrganization } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';
describe('probe', () => {
  let t: TestApp;
  beforeAll(async () => { t = await startTestApp(); });
  afterAll(async () => t.close());
  it('prints', async () => {
    const org = await createOrganization(t);
    try {
    const rows = await t.db.query(
      `SELECT kind, occurred_at, delta_cents, currency, provider_reference, room_id FROM (
         (SELECT e.kind, e.occurred_at, e.delta_cents, e.currency, e.provider_reference, NULL::uuid AS room_id, e.id::text AS line_key
            FROM ledger_entries e WHERE e.organization_id = $1 AND e.kind <> 'charge'
           ORDER BY e.occurred_at DESC, e.id::text DESC LIMIT $2 + $3)
         UNION ALL
         (SELECT 'room_usage', r.started_at, -r.total_charged_cents, $4, NULL, r.id, r.id::text
            FROM rooms r WHERE r.organization_id = $1 AND r.total_charged_cents > 0
           ORDER BY r.started_at DESC, r.id::text DESC LIMIT $2 + $3)
       ) lines ORDER BY occurred_at DESC, line_key DESC LIMIT $2 OFFSET $3`,
      [org.organizationId, 51, 0, 'usd'],
    );
    console.log(rows);
    } catch (e) { console.log(String(e)); }
    console.log(await t.db.query(`SELECT column_name, data_type FROM information_schema.columns WHERE table_name IN ('ledger_entries','credit_accounts','rooms','connections') ORDER BY table_name`));
  });
});
