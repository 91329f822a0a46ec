import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'auth:public';

/** Marks a route that takes no bearer credentials (invite preview and join, webhooks, health). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
