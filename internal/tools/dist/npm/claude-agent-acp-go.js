#!/usr/bin/env node
// claude-agent-acp-go: runs the claude-agent-acp binary for this platform.
//
// npm installs exactly one of the optional dependencies
// claude-agent-acp-go-<platform>-<arch> (their package.json "os" and "cpu"
// rule the others out), so nothing is downloaded at install time and no
// install script runs. This shim finds that package's binary and runs it
// with this process's stdin, stdout and stderr (the ACP connection passes
// straight through), forwards termination signals, and exits the way the
// binary did.
'use strict';

const { spawn } = require('child_process');
const path = require('path');

const key = process.platform + '-' + process.arch;
const pkg = 'claude-agent-acp-go-' + key;
const exe = process.platform === 'win32' ? 'claude-agent-acp.exe' : 'claude-agent-acp';

let bin;
try {
  bin = path.join(path.dirname(require.resolve(pkg + '/package.json')), 'bin', exe);
} catch (err) {
  process.stderr.write(
    'claude-agent-acp-go: no binary for ' + key + ': the package ' + pkg + ' is not installed.\n' +
    'It is an optional dependency that npm installs on linux, macOS and Windows (x64, arm64);\n' +
    'reinstall without --omit=optional, or use a release archive or `go install` (see the README).\n');
  process.exit(1);
}

const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit', windowsHide: true });

const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'];
for (const sig of forwarded) {
  process.on(sig, () => {
    try {
      child.kill(sig);
    } catch (_) {
      // the child is gone already
    }
  });
}

child.on('error', (err) => {
  process.stderr.write('claude-agent-acp-go: cannot run ' + bin + ': ' + err.message + '\n');
  process.exit(1);
});

child.on('exit', (code, signal) => {
  if (signal) {
    // Die of the same signal, so that our parent sees what happened.
    for (const sig of forwarded) process.removeAllListeners(sig);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
