// Builds the page into dist/: the player's bundle, the graph drawer's bundle (loaded only by the
// writer's preview), the style sheet and the HTML, then writes dist/manifest.json with the
// SHA-256 of every file, which the stagehand-web crate's test holds the embedded bytes against.
// The output is deterministic (no hashes in names, no timestamps), so a rebuild of unchanged
// sources leaves dist/ byte for byte as committed (.ci/web checks that).
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dist = 'dist';
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

const common = {
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020'],
  legalComments: 'linked',
  logLevel: 'warning',
  charset: 'utf8',
};
await build({ ...common, entryPoints: ['src/main.ts'], outfile: join(dist, 'app.js'), external: ['./graph.js'] });
await build({ ...common, entryPoints: ['src/graph.ts'], outfile: join(dist, 'graph.js') });
await build({ ...common, entryPoints: ['src/style.css'], outfile: join(dist, 'app.css') });
copyFileSync('src/index.html', join(dist, 'index.html'));

const files = readdirSync(dist).filter((name) => name !== 'manifest.json').sort();
const manifest = {};
for (const name of files) {
  manifest[name] = createHash('sha256').update(readFileSync(join(dist, name))).digest('hex');
}
writeFileSync(join(dist, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
console.log(`built ${files.length} files into ${dist}/`);
