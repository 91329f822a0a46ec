import { Inject, Injectable } from '@nestjs/common';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';

const CODE_SHAPE = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

/** Invite codes: 128 random bits and an HMAC over them, URL-safe. Only a SHA-256 of the code is stored. */
@Injectable()
export class InviteCodesService {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  mint(): { code: string; hash: Buffer } {
    const nonce = randomBytes(16).toString('base64url');
    const code = `${nonce}.${this.sign(nonce).toString('base64url')}`;
    return { code, hash: InviteCodesService.hash(code) };
  }

  /** The stored hash of a code whose signature verifies; null for anything else (treated as unknown). */
  verify(code: string): Buffer | null {
    const match = CODE_SHAPE.exec(code);
    if (!match) return null;
    // Compared as text: decoding would ignore the unused low bits of the last character, so a code
    // differing only there would verify and reach the database.
    const expected = Buffer.from(this.sign(match[1]).toString('base64url'));
    const given = Buffer.from(match[2]);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    return InviteCodesService.hash(code);
  }

  private sign(nonce: string): Buffer {
    return createHmac('sha256', this.config.inviteSigningSecret).update(`invite:${nonce}`).digest();
  }

  static hash(code: string): Buffer {
    return createHash('sha256').update(code).digest();
  }
}
