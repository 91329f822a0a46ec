import type { ValidationIssue } from '../../common/errors/validation-error';
import { isPublicAddress, resolveHost } from './endpoint-address';

const issue = (url: string, type: string, msg: string, ctx: Record<string, unknown> = {}): ValidationIssue => ({
  loc: ['body', 'url'],
  msg,
  type,
  input: url,
  ctx,
});

/**
 * An endpoint URL must be absolute https whose host resolves only to public addresses, unless the
 * deployment allows private URLs (development, tests). Checked again at every delivery.
 */
export async function endpointUrlIssue(url: string, allowPrivate: boolean): Promise<ValidationIssue | null> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return issue(url, 'url_parsing', 'Input should be a valid URL');
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(parsed.protocol)) {
    const expected = allowPrivate ? "'https' or 'http'" : "'https'";
    return issue(url, 'url_scheme', `URL scheme should be ${expected}`, { expected_schemes: expected });
  }
  if (parsed.username || parsed.password) return issue(url, 'value_error', 'Value error, the URL may not carry credentials');
  if (allowPrivate) return null;
  const addresses = await resolveHost(parsed.hostname);
  if (addresses.length === 0) return issue(url, 'value_error', `Value error, the host ${parsed.hostname} cannot be resolved`);
  if (addresses.some((address) => !isPublicAddress(address))) {
    return issue(url, 'value_error', 'Value error, the host resolves to a loopback, private, link-local or metadata address');
  }
  return null;
}
