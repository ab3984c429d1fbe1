// Read the agent templates shipped in vms/templates (the only I/O around rendering).
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** vms/templates in this checkout, found relative to this module. */
export const TEMPLATE_DIR = fileURLToPath(new URL('../../vms/templates/', import.meta.url));

type TemplateName = 'server.hcl' | 'client.hcl' | 'nomad.service';

/** The text of one template from vms/templates. */
export async function readTemplate(name: TemplateName, dir: string = TEMPLATE_DIR): Promise<string> {
  return readFile(new URL(name, `file://${dir.endsWith('/') ? dir : `${dir}/`}`), 'utf8');
}
