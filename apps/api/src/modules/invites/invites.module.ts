import { Module } from '@nestjs/common';
import { RoomsModule } from '../rooms/rooms.module';
import { InviteCodes } from './invite-codes';
import { InvitesController } from './invites.controller';
import { InvitesRepository } from './invites.repository';
import { InvitesService } from './invites.service';

@Module({ imports: [RoomsModule], controllers: [InvitesController], providers: [InviteCodes, InvitesService, InvitesRepository] })
export class InvitesModule {}
