// Options several commands take with the same meaning, written once; each command lists the ones it takes.
import type { CommandOption } from '../command.js';

export const CONFIG: CommandOption = {
  name: 'config',
  type: 'string',
  short: 'c',
  arg: '<file>',
  file: 'read',
  doc: 'harness.yaml to read (default ./harness.yaml when present)',
};

export const EXPECT: CommandOption = {
  name: 'expect',
  type: 'string',
  multiple: true,
  arg: '<fail|pass|check=fail|check=pass>',
  doc: 'expected outcome, repeatable: "fail" for the scenario, or per check',
};

export const PLAN: CommandOption = {
  name: 'plan',
  type: 'boolean',
  doc: 'validate everything, print the plan (every cell, its config and builds) as JSON, and create nothing',
};

export const FRESH: CommandOption = {
  name: 'fresh',
  type: 'boolean',
  doc: 'a cold lab: no warm lab snapshot is used or made (lab.warm: false)',
};
