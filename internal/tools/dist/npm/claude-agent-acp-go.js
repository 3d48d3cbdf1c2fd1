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
  process.stderr.write(missing());
  process.exit(1);
}

// missing says why the platform package is not there and how to get it.
function missing() {
  let own = {};
  try {
    own = require('../package.json');
  } catch (_) {
    // keep the generic advice
  }
  const version = own.version || '<version>';
  const platforms = Object.keys(own.optionalDependencies || {}).map((p) => p.slice('claude-agent-acp-go-'.length));
  if (platforms.length > 0 && !platforms.includes(key)) {
    return 'claude-agent-acp-go: there is no binary for ' + key + ' (there is for ' + platforms.join(', ') + ').\n' +
      'Build it from source: go install github.com/claude-agent-acp/claude-agent-acp/cmd/claude-agent-acp@latest\n';
  }
  return 'claude-agent-acp-go: no binary for ' + key + ': the package ' + pkg + '@' + version + ' is not installed.\n' +
    'npm installs it beside claude-agent-acp-go, as an optional dependency, unless optional\n' +
    'dependencies are left out (--omit=optional) or cannot be fetched: offline, or when\n' +
    'claude-agent-acp-go was installed from its tarball alone. Install both together, e.g.\n' +
    '  npm install -g ' + pkg + '-' + version + '.tgz claude-agent-acp-go-' + version + '.tgz\n' +
    'or, online: npm install -g claude-agent-acp-go@' + version + '\n' +
    'A release archive or `go install` works too (see the README).\n';
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
