import { Module } from '@nestjs/common';
import { MembersModule } from '../members/members.module';
import { UsersController } from './users.controller';

@Module({ imports: [MembersModule], controllers: [UsersController] })
export class UsersModule {}
