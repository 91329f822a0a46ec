import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts `server` on `port` of 127.0.0.1, a free one by default (rejects if it cannot listen); returns its base URL. */
export async function listenLocally(server: Server, port = 0): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
