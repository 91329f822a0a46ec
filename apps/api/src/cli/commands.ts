import type { INestApplicationContext } from '@nestjs/common';
import { parseArgs } from 'node:util';
import { LedgerService } from '../modules/billing/ledger.service';
import { OrganizationsService } from '../modules/organizations/organizations.service';
import { devAccount } from './dev-account';
import { devIdentity, signDevSession } from './dev-identity';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { UsageError } from './usage-error';

export { UsageError };

type Command = (app: INestApplicationContext, args: string[]) => Promise<unknown>;

function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** `--cents -500` as documented: parseArgs would call a value starting with a dash ambiguous. */
function withNegativeNumbersJoined(args: string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (/^--[a-z-]+$/.test(args[i]) && /^-\d+$/.test(args[i + 1] ?? '')) joined.push(`${args[i]}=${args[++i]}`);
    else joined.push(args[i]);
  }
  return joined;
}

export const COMMANDS: Record<string, { usage: string; run: Command }> = {
  'credit:grant': {
    usage: 'credit:grant --org <organization_id> --cents <n> [--note <text>]',
    run: async (app, args) => {
      const options = { org: { type: 'string' }, cents: { type: 'string' }, note: { type: 'string' } } as const;
      const { values } = parseArgs({ args: withNegativeNumbersJoined(args), options });
      const organizationId = required(values, 'org');
      const centsText = required(values, 'cents');
      if (!/^-?\d+$/.test(centsText) || Number(centsText) === 0 || !Number.isSafeInteger(Number(centsText))) {
        throw new UsageError(`--cents must be a non-zero whole number of cents, got "${centsText}"`);
      }
      if (!/^[0-9a-f-]{36}$/i.test(organizationId))
        throw new UsageError(`--org must be an organization id (uuid), got "${organizationId}"`);
      await app.get(OrganizationsService).assertExists(organizationId);
      const line = await app.get(LedgerService).grant({ organizationId, cents: Number(centsText), note: values.note ?? null });
      return {
        kind: line.kind,
        occurred_at: line.occurred_at,
        delta_cents: line.delta_cents,
        currency: line.currency,
        provider_reference: line.provider_reference,
      };
    },
  },
  'dev:account': {
    usage:
      'dev:account [--file <path>] (development only: the organization, API key and credit `npm run dev` prints; ' +
      'kept by default in .data/dev-account-<database>.json)',
    run: async (app, args) => {
      const { values } = parseArgs({ args, options: { file: { type: 'string' } } });
      return devAccount(app, values.file);
    },
  },
  'dev:session': {
    usage:
      'dev:session --email <email> [--first-name F] [--last-name L] (development only: a session token from the identity provider `npm run dev` runs)',
    run: async (app, args) => {
      const config = app.get<AppConfig>(APP_CONFIG);
      if (config.env === 'production')
        throw new Error('dev:session is for development: NODE_ENV=production has no development identity provider.');
      const { values } = parseArgs({
        args,
        options: { email: { type: 'string' }, 'first-name': { type: 'string' }, 'last-name': { type: 'string' } },
      });
      const email = required(values, 'email');
      if (!EMAIL.test(email)) throw new UsageError(`--email must be an email address, got "${email}"`);
      const token = await signDevSession(await devIdentity(), email, { given: values['first-name'], family: values['last-name'] });
      return { email, session_token: token };
    },
  },
  'org:create': {
    usage: 'org:create --name <org> --email <email> [--first-name F] [--last-name L]',
    run: async (app, args) => {
      const { values } = parseArgs({
        args,
        options: { name: { type: 'string' }, email: { type: 'string' }, 'first-name': { type: 'string' }, 'last-name': { type: 'string' } },
      });
      const email = required(values, 'email');
      if (!EMAIL.test(email)) throw new UsageError(`--email must be an email address, got "${email}"`);
      return app.get(OrganizationsService).create({
        name: required(values, 'name'),
        email,
        firstName: values['first-name'],
        lastName: values['last-name'],
      });
    },
  },
};
