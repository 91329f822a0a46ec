import { createHmac, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const API_KEY_PREFIX = 'trk_';
const RANDOM_LENGTH = 40;

/** `trk_` + 40 uniformly random base62 characters (about 238 bits). */
export function generateApiKeySecret(): string {
  let out = '';
  while (out.length < RANDOM_LENGTH) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && out.length < RANDOM_LENGTH) out += BASE62[byte % 62]; // 248 = 4 × 62: no modulo bias
    }
  }
  return API_KEY_PREFIX + out;
}

export function hashApiKeySecret(secret: string, pepper: string): Buffer {
  return createHmac('sha256', pepper).update(secret).digest();
}

export function looksLikeApiKey(credential: string): boolean {
  return credential.startsWith(API_KEY_PREFIX);
}

export function describeSecret(secret: string): { keyPrefix: string; keyLast4: string } {
  return { keyPrefix: secret.slice(0, 8), keyLast4: secret.slice(-4) };
}
