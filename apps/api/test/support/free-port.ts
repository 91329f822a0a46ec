import { readFileSync } from 'node:fs';
import net from 'node:net';

/** Where the kernel's ephemeral ports start (outgoing connections and `listen(0)` draw from there up). */
function ephemeralStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

const PICK_TO = ephemeralStart();
const PICK_FROM = Math.max(1_025, PICK_TO - 12_000);

function canListen(port: number): Promise<boolean> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });
}

/**
 * A port nothing listens on, for a process a test starts. Picked below the ephemeral range: a port from
 * `listen(0)` lies inside it, where another test's outgoing connection may take it as its local port
 * before the process binds it (EADDRINUSE in a full parallel run).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = PICK_FROM + Math.floor(Math.random() * (PICK_TO - PICK_FROM));
    if (await canListen(port)) return port;
  }
}
