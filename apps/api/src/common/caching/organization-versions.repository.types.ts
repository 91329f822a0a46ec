/** Types generated for queries found in "apps/api/src/common/caching/organization-versions.repository.ts" */
export type stringArray = (string)[];

/** 'HistoryVersions' parameters type */
export interface IHistoryVersionsParams {
  organizationIds: stringArray;
}

/** 'HistoryVersions' return type */
export interface IHistoryVersionsResult {
  organization_id: string;
  version: string;
}

/** 'HistoryVersions' query type */
export interface IHistoryVersionsQuery {
  params: IHistoryVersionsParams;
  result: IHistoryVersionsResult;
}

/** 'UsageVersions' parameters type */
export interface IUsageVersionsParams {
  organizationIds: stringArray;
}

/** 'UsageVersions' return type */
export interface IUsageVersionsResult {
  organization_id: string;
  version: string;
}

/** 'UsageVersions' query type */
export interface IUsageVersionsQuery {
  params: IUsageVersionsParams;
  result: IUsageVersionsResult;
}

