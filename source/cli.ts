#!/usr/bin/env node
/** The ctpool command: the TUI, the pool commands and the simulated cluster. */
process.stdout.write('ctpool: not yet\n');
