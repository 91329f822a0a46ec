import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { isPublicAddress, publicOnlyLookup } from './endpoint-address';

export type AttemptResult = { ok: true; statusCode: number } | { ok: false; statusCode: number | null; error: string };

const USER_AGENT = 'translation-rooms-webhooks/1';

/**
 * Keep-alive connection pools per endpoint origin (undici: about half of node:http's CPU per POST, and
 * the worker posts thousands when many rooms start at once). Unless private addresses are allowed,
 * connections only go to public addresses, checked at each connect.
 */
const publicOnly = new Agent({ connect: { lookup: publicOnlyLookup } });
const anyAddress = new Agent();

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
    if (target.protocol !== 'https:' && target.protocol !== 'http:') {
      return resolve({ ok: false, statusCode: null, error: 'The endpoint URL is not valid.' });
    }
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const abort = new AbortController();
    const timer = setTimeout(() => {
      finish({ ok: false, statusCode: null, error: `No answer within ${options.timeoutMs / 1000} s.` });
      abort.abort();
    }, options.timeoutMs);
    request(target, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': USER_AGENT },
      body,
      signal: abort.signal,
      dispatcher: options.allowPrivate ? anyAddress : publicOnly,
    }).then(
      ({ statusCode, body: answer }) => {
        // The answer's body is not needed; draining it frees the connection for the next delivery.
        answer.dump().catch(() => undefined);
        if (statusCode >= 200 && statusCode < 300) finish({ ok: true, statusCode });
        else finish({ ok: false, statusCode, error: `The endpoint answered ${statusCode}.` });
      },
      (error: Error) => finish({ ok: false, statusCode: null, error: `Could not deliver: ${causeOf(error).message}` }),
    );
  });
}

/** undici wraps a connection's failure (a refused address, say) in its own error; the cause says what happened. */
function causeOf(error: Error): Error {
  return error.cause instanceof Error ? error.cause : error;
}
