// The Nomad API stand-in (not Nomad), under the name some callers import: same module as ./index.js.
export * from './index.js';
