import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { createServer, type Server } from 'node:http';
import { listenLocally } from './listen-locally';

export interface IdentityProviderDouble {
  jwksUrl: string;
  issuer: string;
  audience: string;
  sign: (claims: JWTPayload, options?: { expiresIn?: string; audience?: string }) => Promise<string>;
  close: () => Promise<void>;
}

/** An identity provider as far as the API can see it: a JWKS endpoint and tokens signed with its key. */
export async function startIdentityProviderDouble(): Promise<IdentityProviderDouble> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const server: Server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  const baseUrl = await listenLocally(server);
  const issuer = 'https://id.example.test/';
  const audience = 'translation-rooms';
  return {
    jwksUrl: `${baseUrl}/.well-known/jwks.json`,
    issuer,
    audience,
    sign: (claims, options = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
        .setIssuer(issuer)
        .setAudience(options.audience ?? audience)
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? '5m')
        .sign(privateKey),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
