// whileLoop on the interpreter and on the sim as an sm_80, against plain-JS references (while_cases.ts).
process.env['TESSERA_SIM_ARCH'] = 'sm_80';
import { whileSuite } from './while_cases.js';

whileSuite('sm_80');
