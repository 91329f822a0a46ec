/** The one place where a domain error code becomes an HTTP status. */
export const DOMAIN_ERROR_STATUS: Record<string, number> = {};

export function registerDomainErrorStatus(entries: Record<string, number>): void {
  Object.assign(DOMAIN_ERROR_STATUS, entries);
}
