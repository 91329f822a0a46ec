import type { Request, Response } from 'express';

/**
 * Request bodies are taken as sent, never inflated: a compressed body could expand far past the body
 * limit, and no client of this API needs to compress a few hundred bytes. 415 says which coding is
 * accepted (RFC 7694), instead of a decompression error surfacing as a server error.
 * True when the request was answered here.
 */
export function refusedEncodedBody(request: Request, response: Response): boolean {
  const coding = request.headers['content-encoding'];
  if (coding === undefined || coding.trim().toLowerCase() === 'identity' || coding.trim() === '') return false;
  response.setHeader('Accept-Encoding', 'identity');
  response.status(415).json({ detail: 'Compressed request bodies are not accepted: send the body without Content-Encoding.' });
  return true;
}
