// Node module hook (module.register): a scenario file anywhere on disk imports the harness's scenario API by its
// package name, `nomad-reboot-harness/scenario`, without a node_modules of its own. Plain JS: hooks run on their own
// thread, before any TypeScript loader applies to them.
const targets = new Map();

/** Receives { targets: { specifier: file URL } } from register(). */
export async function initialize(data) {
  for (const [specifier, url] of Object.entries(data?.targets ?? {})) targets.set(specifier, url);
}

/**
 * Maps the harness's own specifiers to this checkout's files; everything else resolves as usual. A JavaScript target
 * (the harness compiled, as the test tiers run it) is taken as it is: tsx, resolving for a TypeScript scenario, would
 * take the target's .ts twin where one lies next to it, a second copy of the API whose error classes are not the
 * harness's. A .ts target goes through the loader, which needs its own resolution to load it.
 */
export async function resolve(specifier, context, next) {
  const url = targets.get(specifier);
  if (url && !url.endsWith('.ts')) return { url, shortCircuit: true };
  return next(url ?? specifier, context);
}
