// Selection ops on the sim as sm_90 (and the interpreter), against plain-JS references (select_cases.ts).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { selectSuites } from './select_cases.js';

selectSuites('sm_90');
