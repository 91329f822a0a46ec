import { FakeRoom } from '../../test/support/fake-room';
import { LanguageWatch } from './language-watch';

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('LanguageWatch: the agent leaves a room that holds fewer than two languages', () => {
  it('leaves once a side has been gone for the grace period', async () => {
    const room = new FakeRoom();
    room.join('ana', ['en']);
    room.join('beto', ['es']);
    const left: string[] = [];
    const watch = new LanguageWatch(room.asRoom(), ['en', 'es'], 30, () => left.push('left'));
    watch.start();
    room.leave('beto');
    await settle(120);
    watch.stop();
    expect(left).toEqual(['left']);
  });

  it('stays when the side comes back within the grace period (a reconnect), and for a mono device alone', async () => {
    const room = new FakeRoom();
    room.join('ana', ['en']);
    room.join('beto', ['es']);
    room.join('cara', ['en', 'es']);
    const left: string[] = [];
    const watch = new LanguageWatch(room.asRoom(), ['en', 'es'], 80, () => left.push('left'));
    watch.start();
    room.leave('beto');
    room.leave('ana');
    // cara's one device carries both languages: the room still holds two.
    await settle(150);
    room.leave('cara');
    await settle(20);
    room.join('cara', ['en', 'es']);
    await settle(150);
    watch.stop();
    expect(left).toEqual([]);
  });
});
