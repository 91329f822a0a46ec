import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';

/**
 * The development identity provider `npm run dev` runs (never with NODE_ENV=production): a key pair kept
 * in `.data/dev-identity.json`, its public key served as a JWKS that the API's AUTH_JWKS_URL points at,
 * and session tokens signed with it for any email (`npm run -s cli -- dev:session --email …`), so that a
 * dashboard's sign-in and the Teams walk work on a machine without an identity provider.
 */
export const DEV_ISSUER = 'translation-rooms-dev-identity';
export const DEV_AUDIENCE = 'translation-rooms-api';
const KEY_ID = 'dev-1';
const SESSION_HOURS = 12;

interface StoredIdentity {
  privateJwk: JWK;
  publicJwk: JWK;
}

export function devIdentityFile(directory = process.cwd()): string {
  return path.join(directory, '.data', 'dev-identity.json');
}

/** The development key pair, made on first use. */
export async function devIdentity(file = devIdentityFile()): Promise<StoredIdentity> {
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as StoredIdentity;
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const identity: StoredIdentity = {
    privateJwk: { ...(await exportJWK(privateKey)), kid: KEY_ID, alg: 'ES256' },
    publicJwk: { ...(await exportJWK(publicKey)), kid: KEY_ID, alg: 'ES256', use: 'sig' },
  };
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(identity));
  chmodSync(file, 0o600);
  return identity;
}

/** Serves the JWKS on 127.0.0.1 (port 0: any free one); resolves with the server and the JWKS URL. */
export async function serveDevJwks(identity: StoredIdentity, port = 0): Promise<{ server: Server; url: string }> {
  const body = JSON.stringify({ keys: [identity.publicJwk] });
  const server = createServer((request, response) => {
    if (request.url !== '/.well-known/jwks.json') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return { server, url: `http://127.0.0.1:${bound}/.well-known/jwks.json` };
}

/** A session token for `email` (its `sub` derived from it, so the same email is the same user), verified email. */
export async function signDevSession(
  identity: StoredIdentity,
  email: string,
  name: { given?: string; family?: string } = {},
): Promise<string> {
  const key = await importJWK(identity.privateJwk, 'ES256');
  return new SignJWT({ email, email_verified: true, given_name: name.given ?? '', family_name: name.family ?? '' })
    .setProtectedHeader({ alg: 'ES256', kid: KEY_ID })
    .setIssuer(DEV_ISSUER)
    .setAudience(DEV_AUDIENCE)
    .setSubject(`dev:${email.toLowerCase()}`)
    .setIssuedAt()
    .setExpirationTime(`${SESSION_HOURS}h`)
    .sign(key);
}
