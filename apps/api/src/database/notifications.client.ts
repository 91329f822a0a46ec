import { Injectable, Logger } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';

/** After a lost connection, listening starts again this much later (until closed). */
const RECONNECT_MS = 1_000;

export interface Listener {
  /** Stops listening: the connection ends, no reconnection is tried, no callback is called again. */
  close(): Promise<void>;
}

export interface ListenHandlers {
  /** A notification on the channel (sent by `pg_notify` at the commit of the transaction that sent it), with its payload. */
  onNotification: (payload: string) => void;
  /** Listening started, or started again after a lost connection: what was committed meanwhile was not notified. */
  onListening?: () => void;
}

/**
 * `LISTEN` on a PostgreSQL channel. A listening session holds its connection for as long as it
 * listens, so it has one of its own, outside the pool (whose connections go back after each
 * statement or transaction). Part of `database/`, the one way to PostgreSQL at run time.
 */
@Injectable()
export class NotificationsClient {
  private readonly logger = new Logger(NotificationsClient.name);
  private readonly url: string;

  constructor(dataSource: DataSource) {
    const url = (dataSource.options as PostgresConnectionOptions).url;
    if (!url) throw new Error('Notifications need the database URL of the data source');
    this.url = url;
  }

  /**
   * Listens on `channel` until closed. Resolves once the first connection is listening or has
   * failed: a failed or lost connection is retried a second later, and `onListening` tells when it
   * listens again.
   */
  async listen(channel: string, handlers: ListenHandlers): Promise<Listener> {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Not a channel name: ${channel}`);
    let closed = false;
    let current: Client | null = null;
    let retry: NodeJS.Timeout | null = null;

    const connect = async (): Promise<void> => {
      const client = new Client({ connectionString: this.url });
      let lost = false;
      const onLost = (error: Error): void => {
        if (lost || closed) return;
        lost = true;
        if (current === client) current = null;
        void client.end().catch(() => undefined);
        this.logger.warn(`Notifications on ${channel} lost (${error.message}); listening again in ${RECONNECT_MS / 1000} s`);
        retry = setTimeout(() => {
          retry = null;
          void connect();
        }, RECONNECT_MS);
        retry.unref();
      };
      client.on('notification', (message) => {
        if (message.channel === channel && !closed) handlers.onNotification(message.payload ?? '');
      });
      client.on('error', onLost);
      client.on('end', () => onLost(new Error('the connection ended')));
      try {
        await client.connect();
        await client.query(`LISTEN ${channel}`);
      } catch (error) {
        onLost(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (closed || lost) {
        await client.end().catch(() => undefined);
        return;
      }
      current = client;
      handlers.onListening?.();
    };

    await connect();
    return {
      close: async () => {
        closed = true;
        if (retry) clearTimeout(retry);
        retry = null;
        const client = current;
        current = null;
        await client?.end().catch(() => undefined);
      },
    };
  }
}
