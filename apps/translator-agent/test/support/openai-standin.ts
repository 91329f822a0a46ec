/**
 * A local stand-in of the OpenAI HTTP API, enough for the real plugins' chat and speech requests:
 * `POST /chat/completions` streams the scripted answer as server-sent events, `POST /audio/speech`
 * answers raw 24 kHz PCM (a tone, 10 ms per character). The next `failNext` requests get a 503.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export class OpenAIStandIn {
  private server: Server | null = null;
  readonly requests: { path: string; body: Record<string, unknown> }[] = [];
  failNext = 0;

  constructor(private readonly answers: Record<string, string>) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      void readJson(req).then((body) => {
        this.requests.push({ path: req.url ?? '', body });
        if (this.failNext > 0) {
          this.failNext -= 1;
          res
            .writeHead(503, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } }));
          return;
        }
        if (req.url?.endsWith('/chat/completions')) {
          const messages = (body.messages ?? []) as { role: string; content: string }[];
          const last = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
          const answer = this.answers[last] ?? '';
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for (const piece of answer.match(/.{1,4}/gs) ?? []) {
            res.write(
              `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })}\n\n`,
            );
          }
          res.write(
            `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
          );
          res.end('data: [DONE]\n\n');
          return;
        }
        if (req.url?.endsWith('/audio/speech')) {
          const samples = 240 * String(body.input ?? '').length;
          const pcm = Buffer.alloc(samples * 2);
          for (let i = 0; i < samples; i += 1) pcm.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 220 * i) / 24_000)), i * 2);
          res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(pcm);
          return;
        }
        res.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}
