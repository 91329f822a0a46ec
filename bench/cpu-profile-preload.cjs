// Preloaded into the API by `BENCH_PROFILE=1 npm run bench` (node -r): SIGWINCH starts V8's sampling CPU
// profiler, the next SIGWINCH stops it and writes the profile to $BENCH_PROFILE_DIR/<pid>-<n>.cpuprofile
// (the format Chrome DevTools and speedscope open). In-process, so the API keeps its own exit path;
// SIGWINCH because Nest's shutdown hooks take SIGUSR2 and Node keeps SIGUSR1 for its debugger.
'use strict';
const fs = require('node:fs');
const inspector = require('node:inspector');
const path = require('node:path');

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  const post = (method, params = {}) =>
    new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
  let running = false;
  let count = 0;
  process.on('SIGWINCH', () => {
    const step = running
      ? post('Profiler.stop').then(({ profile }) => {
          running = false;
          const file = path.join(dir, `${process.pid}-${count++}.cpuprofile`);
          fs.writeFileSync(`${file}.tmp`, JSON.stringify(profile));
          fs.renameSync(`${file}.tmp`, file);
        })
      : post('Profiler.enable')
          .then(() => post('Profiler.setSamplingInterval', { interval: 200 }))
          .then(() => post('Profiler.start'))
          .then(() => {
            running = true;
            fs.writeFileSync(path.join(dir, `${process.pid}.started`), String(count));
          });
    step.catch((error) => process.stderr.write(`cpu profile: ${error.message}\n`));
  });
}
