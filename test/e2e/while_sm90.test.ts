// whileLoop on the interpreter and on the sim as an sm_90 (sm_90a PTX), against plain-JS references (while_cases.ts).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { whileSuite } from './while_cases.js';

whileSuite('sm_90');
