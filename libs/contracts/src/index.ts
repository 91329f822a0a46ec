export * from './queues';
export * from './jobs';
