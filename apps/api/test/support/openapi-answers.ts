import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { Response } from 'supertest';

type Json = Record<string, unknown>;
interface Answer {
  description?: string;
  content?: Record<string, { schema: Json }>;
  $ref?: string;
}
interface Operation {
  responses: Record<string, Answer>;
}

// Provider webhooks are called by LiveKit and Stripe, not by API clients: they are not in the document.
const UNDOCUMENTED = [/^\/v1\/webhooks\/(livekit|stripe)$/];
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/**
 * Checks an answer the API gave against the OpenAPI document the same API serves: the status must be
 * documented for the operation (or be the shared answer to an unknown path or method), and the body
 * must validate against that answer's schema. Used on every answer of the e2e tests (test-app.ts).
 */
export class OpenApiAnswers {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly paths: { template: string; pattern: RegExp; operations: Record<string, Operation> }[];

  constructor(private readonly document: OpenAPIObject) {
    addFormats(this.ajv);
    this.paths = Object.entries(document.paths)
      .map(([template, operations]) => ({
        template,
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
        operations: operations as Record<string, Operation>,
      }))
      // a literal segment wins over a parameter (`/v1/rooms/x/invites` before `/v1/rooms/{room_id}`)
      .sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  }

  /** Null when the answer matches the document; else what is wrong, naming the request. */
  problem(method: string, url: string, res: Response): string | null {
    const lower = method.toLowerCase();
    const pathname = new URL(url, 'http://x').pathname;
    if (!METHODS.includes(lower) || !pathname.startsWith('/v1/') || UNDOCUMENTED.some((p) => p.test(pathname))) return null;
    const request = `${method.toUpperCase()} ${url} → ${res.status}`;
    const path = this.paths.find((p) => p.pattern.test(pathname));
    let answer: Answer | undefined;
    let where: string;
    if (!path) {
      answer = res.status === 404 ? this.component('NotFound') : this.common(res.status);
      where = 'an unknown path';
    } else if (!path.operations[lower]) {
      answer = res.status === 405 ? this.component('MethodNotAllowed') : this.common(res.status);
      where = `${path.template} (not served with ${method.toUpperCase()})`;
      if (res.status === 405 && !res.headers.allow) return `${request}: a 405 without Allow`;
    } else {
      answer = path.operations[lower].responses[String(res.status)];
      if (answer?.$ref) answer = this.component(answer.$ref.split('/').pop()!);
      where = `${method.toUpperCase()} ${path.template}`;
    }
    if (!answer) return `${request}: status ${res.status} is not documented for ${where}`;
    const type = String(res.headers['content-type'] ?? '').split(';')[0];
    const text = type !== 'application/json' ? answer.content?.[type]?.schema : undefined;
    // A text answer (WebVTT, SubRip) the document declares for this status: its type is what is checked.
    if (text) return text.type === 'string' ? null : `${request}: ${type} is not documented as text for ${where}`;
    const schema = answer.content?.['application/json']?.schema;
    if (!schema) {
      return res.text ? `${request}: the document says no body, the API sent ${res.text.slice(0, 200)}` : null;
    }
    if (!/^application\/json/.test(String(res.headers['content-type']))) return `${request}: not JSON (${res.headers['content-type']})`;
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile({ ...schema, components: this.document.components });
      this.compiled.set(key, validate);
    }
    if (validate(res.body)) return null;
    const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
    return `${request}: the body does not match the document's schema for ${where}:\n  ${errors.join('\n  ')}\n  body: ${res.text.slice(0, 500)}`;
  }

  private component(name: string): Answer | undefined {
    return this.document.components?.responses?.[name] as Answer | undefined;
  }

  /** The shared answer every operation may give with this status (429, 503, …), if there is one. */
  private common(status: number): Answer | undefined {
    for (const [, operations] of Object.entries(this.document.paths)) {
      for (const operation of Object.values(operations as Record<string, Operation>)) {
        const ref = operation.responses?.[String(status)]?.$ref;
        if (ref) return this.component(ref.split('/').pop()!);
      }
    }
    return undefined;
  }
}
