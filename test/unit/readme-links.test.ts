// The README is for users: short, and every relative link in it (and in docs/) resolves to a file that exists, with
// its #anchor a heading of that file.
import t from 'tap';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const docs = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

t.test('the README stays short', async (t) => {
  const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length;
  t.ok(lines < 300, `${lines} lines`);
});

for (const doc of docs) {
  t.test(`${doc}: every relative link resolves`, async (t) => {
    const text = readFileSync(join(ROOT, doc), 'utf8').replace(/```[^]*?```/g, '');
    const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/i.test(l));
    for (const link of links) {
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path ? join(dirname(join(ROOT, doc)), path) : join(ROOT, doc);
      t.ok(existsSync(target), `${link}: ${path || doc} exists`);
      if (anchor && existsSync(target) && target.endsWith('.md')) {
        const headings = [...readFileSync(target, 'utf8').matchAll(/^#+ (.+)$/gm)].map((m) => anchorOf(m[1]!));
        t.ok(headings.includes(anchor), `${link}: #${anchor} is a heading`);
      }
    }
  });
}
