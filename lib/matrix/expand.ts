// Matrix cells: cartesian expansion with stable names, sharding, per-cell config, cost and subnets. Pure.
import type { ConfigProblem } from '../errors.js';
import type { HarnessConfig } from '../config/schema.js';
import type { RebootKind, TaskDriver } from '../model/kinds.js';
import type { MatrixSpec, NomadEntry } from './spec.js';
import { configTopology, labMemoryMb, vmCostMb } from '../config/topology.js';
import { machineSlots, type ServerCount } from '../model/topology.js';

/** How a cell's memory cost is made up, for messages. */
function costText(config: Pick<HarnessConfig, 'lab'>, overheadMb: number): string {
  const vm = vmCostMb(config.lab, overheadMb);
  const n = machineSlots(configTopology(config)).length;
  return `${n} VMs x (lab.memory_mb ${vm.guestMb} + ${vm.qemuMb} QEMU)`;
}

/** One cell: a scenario with one value per axis. */
export interface Cell {
  /** stable across nights: `<scenario>/<axis>=<value>/...`, axes in file order */
  name: string;
  scenario: string;
  /** position in the full expansion (before sharding) */
  index: number;
  /** axis name -> value as it appears in the name */
  values: [string, string][];
  nomad?: NomadEntry;
  reboot?: RebootKind;
  box?: string;
  driver?: TaskDriver;
  servers?: ServerCount;
  clients?: number;
}

/** Every combination of the scenarios and the axes, in file order (last axis varies fastest), each with a stable name. */
export function expandCells(spec: Pick<MatrixSpec, 'scenarios' | 'axes'>): Cell[] {
  let partial: Omit<Cell, 'name' | 'index'>[] = spec.scenarios.map((scenario) => ({ scenario, values: [] }));
  for (const axis of spec.axes) {
    const next: Omit<Cell, 'name' | 'index'>[] = [];
    for (const c of partial) {
      for (const v of axis.values) {
        if (axis.name === 'servers' || axis.name === 'clients')
          next.push({ ...c, values: [...c.values, [axis.name, v as string]], [axis.name]: Number(v) });
        else if (typeof v === 'string') next.push({ ...c, values: [...c.values, [axis.name, v]], [axis.name]: v });
        else next.push({ ...c, values: [...c.values, ['nomad', v.name]], nomad: v });
      }
    }
    partial = next;
  }
  return partial.map((c, index) => ({
    ...c,
    index,
    name: [c.scenario, ...c.values.map(([k, v]) => `${k}=${v}`)].join('/'),
  }));
}

/** Parse `i/n` (1-based, as CI systems number their jobs); a problem naming the flag otherwise. */
export function parseShard(text: string | undefined): { i: number; n: number } | ConfigProblem {
  if (text === undefined) return { i: 1, n: 1 };
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const i = Number(m?.[1]);
  const n = Number(m?.[2]);
  if (!m || n < 1 || i < 1 || i > n)
    return {
      field: '--shard',
      value: text,
      message: 'must be i/n with 1 <= i <= n',
      fix: 'write e.g. --shard 2/4 (the second of four CI jobs)',
    };
  return { i, n };
}

/**
 * The cells of shard i of n: cell k goes to shard (k mod n) + 1. Every cell is in exactly one shard, shards differ
 * in size by at most one, and the split depends only on the expansion order (so it is the same on every CI job).
 */
export function shard<T>(cells: readonly T[], i: number, n: number): T[] {
  return cells.filter((_, k) => k % n === i - 1);
}

/** What one cell costs in host memory: every machine of its topology with its hypervisor's share (`overheadMb`). */
export function cellCostMb(config: Pick<HarnessConfig, 'lab'>, overheadMb: number): number {
  return labMemoryMb(configTopology(config), config.lab, overheadMb);
}

/** The /24 with its third octet moved up by `k` (10.199.0.0/24, 2 -> 10.199.2.0/24); undefined past .255. */
export function shiftSubnet(subnet: string, k: number): string | undefined {
  const [a, b, c] = subnet.split('/')[0]!.split('.').map(Number);
  const third = (c ?? 0) + k;
  return third > 255 ? undefined : `${a}.${b}.${third}.0/24`;
}

/**
 * The config of one cell: the scenario's base config with the cell's axis values on top, and for parallel runs
 * (slot >= 1) a private and management subnet of its own so two labs never share a libvirt network.
 */
export function cellConfig(
  base: HarnessConfig,
  cell: Cell,
  slot: number,
  resolvePath: (p: string) => string = (p) => p,
): HarnessConfig {
  const c = structuredClone(base);
  c.scenario = cell.scenario;
  if (cell.nomad) {
    c.nomadBinary = resolvePath(cell.nomad.binary);
    if (cell.nomad.upgradeTo) c.upgradeTo = resolvePath(cell.nomad.upgradeTo);
    c.expect = {
      scenario: cell.nomad.expect.scenario ?? c.expect.scenario,
      perCheck: { ...c.expect.perCheck, ...cell.nomad.expect.perCheck },
    };
  }
  if (cell.reboot) c.reboot.kind = cell.reboot;
  if (cell.box) c.lab.box = cell.box;
  if (cell.driver) c.task.driver = cell.driver;
  if (cell.servers) c.lab.servers = cell.servers;
  if (cell.clients) c.lab.clients = cell.clients;
  if (slot > 0) {
    c.lab.privateSubnet = shiftSubnet(base.lab.privateSubnet, slot) ?? base.lab.privateSubnet;
    c.lab.managementSubnet = shiftSubnet(base.lab.managementSubnet, slot) ?? base.lab.managementSubnet;
  }
  return c;
}

/**
 * Problems with running these configs `parallel` at a time within `budgetMb`: a cell that never fits, subnets that run
 * out or overlap. `overheadOf` is a cell's memory per machine beyond its guest (its provider's, handed down).
 */
export function planProblems(
  configs: readonly { cell: Cell; config: HarnessConfig }[],
  parallel: number,
  budgetMb: number | undefined,
  file: string,
  overheadOf: (config: HarnessConfig) => number,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const { cell, config } of configs) {
    const cost = cellCostMb(config, overheadOf(config));
    if (budgetMb !== undefined && cost > budgetMb)
      problems.push({
        field: `${file}: memory_budget_mb`,
        value: budgetMb,
        message: `is less than what cell ${cell.name} needs (${cost} MiB: ${costText(config, overheadOf(config))})`,
        fix: `raise memory_budget_mb to at least ${cost}, or lower lab.memory_mb in defaults`,
      });
  }
  if (parallel > 1) {
    for (const { cell, config } of configs.slice(0, 1)) {
      const nets = [config.lab.privateSubnet, config.lab.managementSubnet].flatMap((s) =>
        Array.from({ length: parallel + 1 }, (_, k) => shiftSubnet(s, k)),
      );
      if (nets.includes(undefined))
        problems.push({
          field: `${file}: parallel`,
          value: parallel,
          message: `needs ${parallel} subnets above ${config.lab.privateSubnet} and ${config.lab.managementSubnet} (third octet + slot <= 255)`,
          fix: 'lower parallel, or set lab.private_subnet/lab.management_subnet with a lower third octet',
        });
      else if (new Set(nets).size !== nets.length)
        problems.push({
          field: `${file}: parallel`,
          value: parallel,
          message: `the per-cell subnets of ${cell.scenario} overlap (private ${config.lab.privateSubnet}, management ${config.lab.managementSubnet}, +1..+${parallel})`,
          fix: 'move lab.private_subnet and lab.management_subnet further apart (defaults 10.199.0.0/24 and 10.198.0.0/24)',
        });
    }
  }
  return problems;
}
