// How a JUnit file names the files it attaches (`[[ATTACHMENT|path]]`), for the CI that reads it. Pure.
//   relative: from the JUnit file's folder (a person opening the file, most tools)
//   project:  from the project directory (GitLab resolves attachments from $CI_PROJECT_DIR, not from the JUnit file)
//   absolute: absolute paths (Jenkins' junit-attachments plugin)
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

type AttachmentMode = 'relative' | 'project' | 'absolute';

export interface AttachmentBase {
  mode: AttachmentMode;
  /** the project directory, for `project` ($CI_PROJECT_DIR, else the working directory) */
  projectDir: string;
}

/** The setting as given (`auto` = `project` under GitLab CI, where CI_PROJECT_DIR is set, else `relative`). */
export function attachmentBase(
  setting: AttachmentMode | 'auto',
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): AttachmentBase {
  const gitlab = env['CI_PROJECT_DIR']?.trim();
  const mode = setting === 'auto' ? (gitlab ? 'project' : 'relative') : setting;
  return { mode, projectDir: resolve(cwd, gitlab || '.') };
}

/** The path a JUnit file at `junitPath` writes for the file at `file` (both absolute or relative to the same cwd). */
export function attachmentPath(base: AttachmentBase, junitPath: string, file: string): string {
  if (base.mode === 'absolute') return resolve(file);
  const from = base.mode === 'project' ? base.projectDir : dirname(resolve(junitPath));
  const rel = relative(from, resolve(file)).split(sep).join('/');
  return isAbsolute(rel) ? resolve(file) : rel;
}
