/**
 * The agent side of a LiveKit server, on loopback: accepts an agents-js worker's WebSocket
 * (`/agent`), answers its registration, and records the WorkerMessages it sends (load updates).
 * A minimal RFC 6455 server (binary frames only): the project has no WebSocket server package.
 */
import { ServerMessage, WorkerMessage } from '@livekit/protocol';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

function frame(payload: Uint8Array): Buffer {
  const length = payload.length;
  const header =
    length < 126
      ? Buffer.from([0x82, length])
      : length < 65_536
        ? Buffer.from([0x82, 126, length >> 8, length & 0xff])
        : Buffer.concat([Buffer.from([0x82, 127]), Buffer.from(new BigUint64Array([BigInt(length)]).buffer).reverse()]);
  return Buffer.concat([header, payload]);
}

export class AgentProtocolDouble {
  readonly messages: WorkerMessage[] = [];
  private readonly server: Server;
  private readonly sockets = new Set<Duplex>();

  constructor() {
    this.server = createServer((_req, res) => res.writeHead(404).end());
    this.server.on('upgrade', (req, socket) => {
      const accept = createHash('sha1')
        .update(`${String(req.headers['sec-websocket-key'])}${GUID}`)
        .digest('base64');
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
      );
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
      let buffer = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        buffer = Buffer.concat([buffer, chunk]);
        for (;;) {
          if (buffer.length < 2) return;
          const opcode = buffer[0]! & 0x0f;
          let length = buffer[1]! & 0x7f;
          let at = 2;
          if (length === 126) {
            if (buffer.length < 4) return;
            length = buffer.readUInt16BE(2);
            at = 4;
          } else if (length === 127) {
            if (buffer.length < 10) return;
            length = Number(buffer.readBigUInt64BE(2));
            at = 10;
          }
          if (buffer.length < at + 4 + length) return;
          const mask = buffer.subarray(at, at + 4);
          const payload = Buffer.from(buffer.subarray(at + 4, at + 4 + length).map((byte, i) => byte ^ mask[i % 4]!));
          buffer = buffer.subarray(at + 4 + length);
          if (opcode === 8) socket.end();
          if (opcode === 2) this.onMessage(socket, WorkerMessage.fromBinary(payload));
        }
      });
    });
  }

  private onMessage(socket: Duplex, message: WorkerMessage): void {
    this.messages.push(message);
    if (message.message.case === 'register') {
      const answer = new ServerMessage({ message: { case: 'register', value: { workerId: 'AW_test' } } });
      socket.write(frame(answer.toBinary()));
    }
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The load updates the worker sent, oldest first. */
  updates(): { load: number; status: number }[] {
    return this.messages.flatMap((m) =>
      m.message.case === 'updateWorker' ? [{ load: m.message.value.load, status: m.message.value.status ?? -1 }] : [],
    );
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
