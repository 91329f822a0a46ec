import { Module } from '@nestjs/common';
import { RoomsModule } from '../rooms/rooms.module';
import { InviteCodesService } from './invite-codes.service';
import { InvitesController } from './invites.controller';
import { InvitesRepository } from './invites.repository';
import { InvitesService } from './invites.service';

@Module({ imports: [RoomsModule], controllers: [InvitesController], providers: [InviteCodesService, InvitesService, InvitesRepository] })
export class InvitesModule {}
