import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { isPublicAddress, publicOnlyLookup } from './endpoint-address';

export type AttemptResult = { ok: true; statusCode: number } | { ok: false; statusCode: number | null; error: string };

const USER_AGENT = 'translation-rooms-webhooks/1';

/**
 * One POST of a signed event: 2xx within `timeoutMs` is delivered, anything else (a redirect
 * included: it is never followed) is a failed attempt. Unless private addresses are allowed, the
 * connection only goes to public addresses.
 */
export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<AttemptResult> {
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return resolve({ ok: false, statusCode: null, error: 'The endpoint URL is not valid.' });
    }
    const literal = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
    if (!options.allowPrivate && (target.protocol !== 'https:' || (isIP(literal) && !isPublicAddress(literal)))) {
      return resolve({ ok: false, statusCode: null, error: 'The endpoint is not a public https address.' });
    }
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = send(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': USER_AGENT },
        lookup: options.allowPrivate ? undefined : publicOnlyLookup,
      },
      (res: IncomingMessage) => {
        res.resume(); // the answer's body is not needed; draining frees the socket
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) finish({ ok: true, statusCode: status });
        else finish({ ok: false, statusCode: status, error: `The endpoint answered ${status}.` });
      },
    );
    const timer = setTimeout(() => {
      finish({ ok: false, statusCode: null, error: `No answer within ${options.timeoutMs / 1000} s.` });
      req.destroy();
    }, options.timeoutMs);
    req.on('error', (error: Error) => finish({ ok: false, statusCode: null, error: `Could not deliver: ${error.message}` }));
    req.end(body);
  });
}
