// Pure: a job's Nomad-native services (provider "nomad") from its JSON, and the API's registrations and check results
// as evidence records.
import type { AllocCheckRec, JobServiceRec, ServiceRegRec } from '../model/evidence.js';

/** The fields read of a registration (api-types.ts ApiServiceRegistration; a parser imports no adapter type). */
interface RegistrationIn {
  ID: string;
  ServiceName: string;
  AllocID: string;
  Address: string;
  Port: number;
}

/** The fields read of a check result (api-types.ts ApiCheckQueryResult). */
interface CheckIn {
  Service: string;
  Check: string;
  Status: string;
  Output: string;
  Timestamp: number;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj).filter((x): x is Obj => !!x) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** One service block as a record, when its provider is Nomad (Consul's are not the client's to register here). */
function nomadService(s: Obj, group: string, task?: string): JobServiceRec | undefined {
  if (str(s['Provider']) !== 'nomad') return undefined;
  // Note: an unnamed check keeps its place as "" (Nomad names it itself); the count is what matters then.
  const checks = arr(s['Checks']).map((c) => str(c['Name']));
  return { name: str(s['Name']), group, ...(task ? { task } : {}), portLabel: str(s['PortLabel']), checks };
}

/** Every Nomad-native service of a job (group and task level), from `{"Job": ...}` or the job itself. */
export function nomadServicesOf(raw: unknown): JobServiceRec[] {
  const root = obj(raw);
  const job = obj(root?.['Job']) ?? root;
  const out: JobServiceRec[] = [];
  for (const g of arr(job?.['TaskGroups'])) {
    const group = str(g['Name']);
    for (const s of arr(g['Services'])) {
      const rec = nomadService(s, group);
      if (rec?.name) out.push(rec);
    }
    for (const t of arr(g['Tasks'])) {
      for (const s of arr(t['Services'])) {
        const rec = nomadService(s, group, str(t['Name']));
        if (rec?.name) out.push(rec);
      }
    }
  }
  return out;
}

/** `/v1/service/<name>` as records. */
export function toServiceRegs(body: readonly RegistrationIn[] | null | undefined): ServiceRegRec[] {
  return (body ?? []).map((r) => ({
    service: r.ServiceName,
    id: r.ID,
    allocId: r.AllocID,
    address: r.Address,
    port: r.Port,
  }));
}

/** `/v1/client/allocation/<id>/checks` as records, in the order of service and check name. */
export function toAllocChecks(
  allocId: string,
  body: Readonly<Record<string, CheckIn>> | null | undefined,
): AllocCheckRec[] {
  return Object.values(body ?? {})
    .map((c) => ({
      allocId,
      service: c.Service,
      check: c.Check,
      status: c.Status,
      output: c.Output,
      timestampS: c.Timestamp,
    }))
    .sort((a, b) => `${a.service}\u0000${a.check}`.localeCompare(`${b.service}\u0000${b.check}`));
}
