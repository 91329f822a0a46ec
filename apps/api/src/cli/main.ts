import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { loadConfigOrExit } from '../config/app-config';
import { loadDotEnv } from '../config/dot-env';
import { CliModule } from './cli.module';
import { COMMANDS, UsageError } from './commands';

/** Operator CLI: `npm run cli -- <command> ...`, printing one JSON object on stdout. */
async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(
      `Usage: npm run cli -- <command>\n${Object.values(COMMANDS)
        .map((c) => `  ${c.usage}`)
        .join('\n')}\n`,
    );
    return 2;
  }
  loadDotEnv();
  const config = loadConfigOrExit();
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(config), { logger: ['error'] });
  try {
    const result = await command.run(app, args);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${error instanceof UsageError ? `Usage: npm run cli -- ${command.usage}\n` : ''}${message}\n`);
    return error instanceof UsageError ? 2 : 1;
  } finally {
    await app.close();
  }
}

void main(process.argv.slice(2)).then((code) => process.exit(code));
