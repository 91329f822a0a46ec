import { ParticipantKind, RoomEvent, type Room } from '@livekit/rtc-node';
import { declaredLanguages } from './room-translator';

/**
 * Leaves by itself once the room holds fewer than two of its languages among the people in it
 * for `leaveAfterMs`: a dismiss that comes late, or never, must not leave a billed agent behind.
 */
export class LanguageWatch {
  private timer: NodeJS.Timeout | null = null;
  private readonly check = () => this.evaluate();

  constructor(
    private readonly room: Room,
    private readonly languages: readonly [string, string],
    private readonly leaveAfterMs: number,
    private readonly onBelowTwo: () => void,
  ) {}

  start(): void {
    for (const event of [RoomEvent.ParticipantConnected, RoomEvent.ParticipantDisconnected, RoomEvent.ParticipantMetadataChanged]) {
      this.room.on(event, this.check);
    }
    this.evaluate();
  }

  /** Room languages declared by the humans present. */
  present(): Set<string> {
    const found = new Set<string>();
    for (const participant of this.room.remoteParticipants.values()) {
      if (participant.kind === ParticipantKind.AGENT) continue;
      for (const language of declaredLanguages(participant.metadata)) if (this.languages.includes(language)) found.add(language);
    }
    return found;
  }

  private evaluate(): void {
    if (this.present().size >= 2) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = null;
      if (this.present().size < 2) this.onBelowTwo();
    }, this.leaveAfterMs);
  }

  stop(): void {
    for (const event of [RoomEvent.ParticipantConnected, RoomEvent.ParticipantDisconnected, RoomEvent.ParticipantMetadataChanged]) {
      this.room.off(event, this.check);
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
