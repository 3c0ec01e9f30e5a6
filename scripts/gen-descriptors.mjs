// Writes native/xla_custom_call/include/tessera_descriptors.h from the schemas in src/descriptor
// (run after `npm run build:ts`); test/descriptor checks that the committed header is current.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { descriptorsHeader } from '../dist/src/descriptor/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'native/xla_custom_call/include/tessera_descriptors.h');
writeFileSync(out, descriptorsHeader());
console.log(`tessera: wrote ${out}`);
