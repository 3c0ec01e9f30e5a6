// Selection ops on the sim as sm_80 (and the interpreter), against plain-JS references (select_cases.ts).
process.env['TESSERA_SIM_ARCH'] = 'sm_80';
import { selectSuites } from './select_cases.js';

selectSuites('sm_80');
