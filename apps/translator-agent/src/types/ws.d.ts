/**
 * The part of `ws` (8.x, installed with @livekit/agents-plugin-openai, which uses it for OpenAI's
 * realtime API) the realtime translation client and its test stand-in use. `@types/ws` is not
 * installed: this declares only what is called here.
 */
declare module 'ws' {
  import type { IncomingMessage, Server as HttpServer } from 'node:http';
  import type { AddressInfo } from 'node:net';

  type RawData = Buffer | ArrayBuffer | Buffer[];

  class WebSocket {
    static readonly CONNECTING: 0;
    static readonly OPEN: 1;
    static readonly CLOSING: 2;
    static readonly CLOSED: 3;
    constructor(url: string, options?: { headers?: Record<string, string>; handshakeTimeout?: number });
    readonly readyState: 0 | 1 | 2 | 3;
    send(data: string): void;
    close(code?: number, reason?: string): void;
    terminate(): void;
    on(event: 'open', listener: () => void): this;
    on(event: 'message', listener: (data: RawData, isBinary: boolean) => void): this;
    on(event: 'close', listener: (code: number, reason: Buffer) => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
    on(event: 'unexpected-response', listener: (request: unknown, response: IncomingMessage) => void): this;
  }

  class WebSocketServer {
    constructor(options: {
      port?: number;
      host?: string;
      server?: HttpServer;
      verifyClient?: (info: { req: IncomingMessage }, callback: (ok: boolean, code?: number, message?: string) => void) => void;
    });
    readonly clients: Set<WebSocket>;
    address(): AddressInfo | string;
    on(event: 'connection', listener: (socket: WebSocket, request: IncomingMessage) => void): this;
    on(event: 'listening', listener: () => void): this;
    close(callback?: (error?: Error) => void): void;
  }

  export { WebSocket, WebSocketServer, type RawData };
  export default WebSocket;
}
