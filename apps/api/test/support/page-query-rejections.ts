import type { ValidationIssue } from '../../src/common/errors/validation-error';

/** Page queries every paginated list must refuse, with the exact 422 body each gets. */
export const PAGE_QUERY_REJECTIONS: [string, ValidationIssue[]][] = [
  [
    'limit=0',
    [
      {
        loc: ['query', 'limit'],
        msg: 'Input should be greater than or equal to 1',
        type: 'greater_than_equal',
        input: '0',
        ctx: { ge: 1 },
      },
    ],
  ],
  [
    'limit=201',
    [
      {
        loc: ['query', 'limit'],
        msg: 'Input should be less than or equal to 200',
        type: 'less_than_equal',
        input: '201',
        ctx: { le: 200 },
      },
    ],
  ],
  [
    'limit=abc',
    [
      {
        loc: ['query', 'limit'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        type: 'int_parsing',
        input: 'abc',
        ctx: {},
      },
    ],
  ],
  [
    'limit=1.5',
    [
      {
        loc: ['query', 'limit'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        type: 'int_parsing',
        input: '1.5',
        ctx: {},
      },
    ],
  ],
  [
    'offset=-1',
    [
      {
        loc: ['query', 'offset'],
        msg: 'Input should be greater than or equal to 0',
        type: 'greater_than_equal',
        input: '-1',
        ctx: { ge: 0 },
      },
    ],
  ],
  [
    'limit=0&offset=-5',
    [
      {
        loc: ['query', 'limit'],
        msg: 'Input should be greater than or equal to 1',
        type: 'greater_than_equal',
        input: '0',
        ctx: { ge: 1 },
      },
      {
        loc: ['query', 'offset'],
        msg: 'Input should be greater than or equal to 0',
        type: 'greater_than_equal',
        input: '-5',
        ctx: { ge: 0 },
      },
    ],
  ],
];
