import type { INestApplicationContext } from '@nestjs/common';
import { parseArgs } from 'node:util';
import { OrganizationsService } from '../modules/organizations/organizations.service';

export class UsageError extends Error {}

type Command = (app: INestApplicationContext, args: string[]) => Promise<unknown>;

function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export const COMMANDS: Record<string, { usage: string; run: Command }> = {
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
