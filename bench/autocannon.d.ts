// autocannon ships no types; the webhook sender uses only these parts of its API.
declare module 'autocannon' {
  interface Request {
    method?: string;
    path?: string;
    body?: string;
    headers?: Record<string, string>;
    setupRequest?: (request: Request) => Request;
  }
  interface Options {
    url: string;
    connections: number;
    amount: number;
    requests: Request[];
  }
  interface Result {
    non2xx: number;
    errors: number;
  }
  /** The run: a promise of its result, and the events of each response as it arrives. */
  interface Instance extends Promise<Result> {
    on(event: 'response', listener: () => void): void;
  }
  export default function autocannon(options: Options): Instance;
}
