import { Foundation1763780000000 } from './1763780000000-Foundation';

/** Every migration, oldest first. A landed migration is never edited; a change is a new one. */
export const MIGRATIONS = [Foundation1763780000000];
