/** A 422 answer's issues as `["body.max_uses", "less_than_equal"]` pairs: where, and what went wrong. */
export function issueKinds(res: { body: { detail: { loc: (string | number)[]; type: string }[] } }): [string, string][] {
  return res.body.detail.map((issue) => [issue.loc.join('.'), issue.type]);
}
