import type { INestApplicationContext } from '@nestjs/common';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { hashApiKeySecret } from '../common/auth/api-key-secret';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ApiKeysRepository } from '../modules/api-keys/api-keys.repository';
import { LedgerService } from '../modules/billing/ledger.service';
import { CreditAccountsRepository } from '../modules/billing/credit-accounts.repository';
import { OrganizationsService } from '../modules/organizations/organizations.service';
import { UsageError } from './usage-error';

export const DEV_CREDIT_CENTS = 10_000;

interface StoredAccount {
  organization_id: string;
  user_id: string;
  api_key: string;
}

function readStored(file: string): StoredAccount | null {
  if (!existsSync(file)) return null;
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<StoredAccount>;
    return typeof stored.organization_id === 'string' && typeof stored.user_id === 'string' && typeof stored.api_key === 'string'
      ? (stored as StoredAccount)
      : null;
  } catch {
    return null;
  }
}

async function keyStillWorks(keys: ApiKeysRepository, config: AppConfig, account: StoredAccount): Promise<boolean> {
  return keys.worksFor(account.organization_id, hashApiKeySecret(account.api_key, config.apiKeyPepper));
}

/** Where `npm run dev` keeps the development organization of a database: one file per database name. */
export function devAccountFile(databaseUrl: string, directory = process.cwd()): string {
  return path.join(directory, '.data', `dev-account-${new URL(databaseUrl).pathname.slice(1) || 'postgres'}.json`);
}

/**
 * The development organization of `npm run dev`: created once with an API key and a development
 * credit grant, kept in `file` (under the git-ignored .data/), and created again only when the
 * database no longer accepts its key (a new database, another pepper, a revoked key).
 */
export async function devAccount(
  app: INestApplicationContext,
  file?: string,
): Promise<StoredAccount & { created: boolean; credit_cents: number; file: string }> {
  const config = app.get<AppConfig>(APP_CONFIG);
  if (config.env === 'production') throw new UsageError('dev:account is for development only; it never runs with NODE_ENV=production.');
  file ??= devAccountFile(config.databaseUrl);
  const stored = readStored(file);
  if (stored && (await keyStillWorks(app.get(ApiKeysRepository), config, stored))) {
    return { ...stored, created: false, credit_cents: await app.get(CreditAccountsRepository).readBalance(stored.organization_id), file };
  }
  const account = await app.get(OrganizationsService).create({ name: 'Development', email: 'dev@localhost.test', firstName: 'Dev' });
  await app
    .get(LedgerService)
    .grant({ organizationId: account.organization_id, cents: DEV_CREDIT_CENTS, note: 'development credit (npm run dev)' });
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(account, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { ...account, created: true, credit_cents: await app.get(CreditAccountsRepository).readBalance(account.organization_id), file };
}
