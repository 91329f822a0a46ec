import { Global, Module } from '@nestjs/common';
import { LiveKitGateway } from './livekit.gateway';

@Global()
@Module({ providers: [LiveKitGateway], exports: [LiveKitGateway] })
export class LiveKitModule {}
