/** The translator agent; see issue 5 for the worker. Until a speech pipeline is configured it refuses to start. */
function main(): number {
  process.stderr.write('no speech pipeline is configured (the translator worker is not built yet).\n');
  return 1;
}

process.exit(main());
