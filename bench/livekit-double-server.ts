// Starts the LiveKit protocol double for `npm run bench` (no LiveKit server can be reached here)
// and prints its address; the API under measurement is pointed at it.
import { startLiveKitDouble } from '../apps/api/test/support/livekit-double';

void startLiveKitDouble({ apiKey: process.env.LIVEKIT_API_KEY ?? 'devkey', apiSecret: process.env.LIVEKIT_API_SECRET ?? 'secret' }).then(
  (double) => {
    process.stdout.write(`LIVEKIT_DOUBLE_URL=${double.url}\n`);
  },
);
